"""Which verified deliveries become jobs, and what each job needs to know.

`route(event, payload)` reads only the fields it uses, through the accessors at the bottom,
so a payload older or newer than today's schema is still understood. It answers:

    None        not ours: an event or action docs-sync does not act on, a comment that is not
                a command, a bot's comment, or a payload missing a field the job would need
    []          acknowledged, nothing to do (ping, installation changes)
    [JobSpec]   work for the worker, one spec per pull request (a check suite can name several)

Triggers:
- pull_request opened, synchronize, reopened, ready_for_review, and edited when the base
  branch changed (`changes.base`). Draft pull requests are checked like any other: the check
  is cheap and the author sees doc drift before asking for review.
- check_run rerequested, and requested_action with the "rerun" identifier (the button on
  docs-sync's own check run); check_suite requested and rerequested. For pull requests from
  forks GitHub sends an empty `pull_requests` list: the job then carries only the head SHA,
  its key is "owner/repo@sha", and the handler finds the pull request by head SHA.
- issue_comment created on a pull request whose first line starts with `/docs-sync`.
  Comments by bots (`user.type == "Bot"`, or a login ending in "[bot]") are ignored, which
  also keeps docs-sync from answering itself. Edited and deleted comments are ignored: an edit
  must not run a command a second time. A command is stored once per comment (its id and
  `updated_at`, JobSpec.once), not per delivery: the same comment signed under a new delivery id
  is a duplicate, never a second apply.

Job payloads are payloads.py's dataclasses (CheckJob, CommandJob) as JSON. A command job
carries the verb as written and its words; commands.py's registry resolves the verb when the
job runs.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from bot.app.intake.payloads import CheckJob, CommandJob

log = logging.getLogger(__name__)

COMMAND_PREFIX = "/docs-sync"
RERUN_ACTION = "rerun"  # identifier of the "Re-run" button docs-sync puts on its check run

_PR_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})


@dataclass(frozen=True)
class JobSpec:
    kind: str  # "check" | "command"
    key: str  # "owner/repo#12", or "owner/repo@<head sha>" while the pull request is unknown
    payload: dict[str, Any]
    # What makes the job once, in place of the delivery id: a command is one comment as written
    # ("comment:<id>@<updated_at>"), under whatever delivery id it comes again.
    once: str | None = None


def route(event: str, payload: object) -> list[JobSpec] | None:
    if not isinstance(payload, dict):
        return None
    action = _str(payload, "action")
    if event in ("ping", "installation", "installation_repositories"):
        return []
    if event == "pull_request":
        return _pull_request(payload, action)
    if event == "check_run":
        return _check_run(payload, action)
    if event == "check_suite":
        return _check_suite(payload, action)
    if event == "issue_comment":
        return _issue_comment(payload, action)
    return None


def _pull_request(payload: dict[str, Any], action: str | None) -> list[JobSpec] | None:
    if action == "edited":
        if _dict(payload, "changes", "base") is None:
            return None  # a title or body edit changes no code
    elif action not in _PR_ACTIONS:
        return None
    repo = _repo(payload)
    number = _int(payload, "number") or _int(payload, "pull_request", "number")
    head_sha = _str(payload, "pull_request", "head", "sha")
    if repo is None or number is None or head_sha is None:
        _malformed("pull_request", action)
        return None
    owner, name = repo
    job = CheckJob(
        owner,
        name,
        _installation(payload),
        f"pull_request.{action}",
        pr=number,
        head_sha=head_sha,
        base_sha=_str(payload, "pull_request", "base", "sha"),
        base_ref=_str(payload, "pull_request", "base", "ref"),
    )
    return [JobSpec("check", f"{owner}/{name}#{number}", job.to_json())]


def _check_run(payload: dict[str, Any], action: str | None) -> list[JobSpec] | None:
    if action == "requested_action":
        if _str(payload, "requested_action", "identifier") != RERUN_ACTION:
            return None
    elif action != "rerequested":
        return None
    run = _dict(payload, "check_run") or {}
    pulls = _list(run, "pull_requests") or _list(run, "check_suite", "pull_requests")
    head_sha = _str(run, "head_sha")
    return _check_jobs(payload, action, "check_run", head_sha, pulls, check_run_id=_int(run, "id"))


def _check_suite(payload: dict[str, Any], action: str | None) -> list[JobSpec] | None:
    if action not in ("requested", "rerequested"):
        return None
    suite = _dict(payload, "check_suite") or {}
    return _check_jobs(payload, action, "check_suite", _str(suite, "head_sha"), _list(suite, "pull_requests"))


def _check_jobs(
    payload: dict[str, Any],
    action: str | None,
    event: str,
    head_sha: str | None,
    pulls: list[Any],
    check_run_id: int | None = None,
) -> list[JobSpec] | None:
    repo = _repo(payload)
    if repo is None or head_sha is None:
        _malformed(event, action)
        return None
    owner, name = repo
    trigger = f"{event}.{action}"
    repo_id = _int(payload, "repository", "id")
    installation = _installation(payload)
    specs = []
    for pull in pulls:
        number = _int(pull, "number")
        # The list can name pull requests of other repositories that share the commit.
        base_repo_id = _int(pull, "base", "repo", "id")
        if number is None or (base_repo_id is not None and repo_id is not None and base_repo_id != repo_id):
            continue
        job = CheckJob(
            owner,
            name,
            installation,
            trigger,
            pr=number,
            head_sha=_str(pull, "head", "sha") or head_sha,
            base_sha=_str(pull, "base", "sha"),
            base_ref=_str(pull, "base", "ref"),
            check_run_id=check_run_id,
        )
        specs.append(JobSpec("check", f"{owner}/{name}#{number}", job.to_json()))
    if specs:
        return specs
    # A fork's pull request (or a push with no pull request yet): the handler looks it up by SHA.
    job = CheckJob(owner, name, installation, trigger, head_sha=head_sha, check_run_id=check_run_id)
    return [JobSpec("check", f"{owner}/{name}@{head_sha}", job.to_json())]


def _issue_comment(payload: dict[str, Any], action: str | None) -> list[JobSpec] | None:
    if action != "created" or _dict(payload, "issue", "pull_request") is None:
        return None
    body = _str(payload, "comment", "body")
    parsed = parse_command(body or "")
    if parsed is None:
        return None
    login = _str(payload, "comment", "user", "login")
    if _str(payload, "comment", "user", "type") == "Bot" or (login or "").endswith("[bot]"):
        return None
    repo = _repo(payload)
    number = _int(payload, "issue", "number")
    comment_id = _int(payload, "comment", "id")
    if repo is None or number is None or comment_id is None or login is None:
        _malformed("issue_comment", action)
        return None
    owner, name = repo
    command, args = parsed
    job = CommandJob(
        owner, name, number, comment_id, login, command, args, installation_id=_installation(payload)
    )
    # GitHub's comment ids are unique across repositories; an edit would change `updated_at`.
    written = _str(payload, "comment", "updated_at") or _str(payload, "comment", "created_at") or ""
    return [JobSpec("command", f"{owner}/{name}#{number}", job.to_json(), f"comment:{comment_id}@{written}")]


_COMMAND_LINE = re.compile(re.escape(COMMAND_PREFIX) + r"(?:\s+(.*))?\Z")


def parse_command(body: str) -> tuple[str, tuple[str, ...]] | None:
    """`(verb, args)` for a comment whose first line is a /docs-sync command, else None.

    The verb is the word after the prefix as written ("" for a bare "/docs-sync"); args are at
    most two: the next word (a symbol; backticks around it are dropped) and the rest of the line,
    kept whole (a reason). Which verbs exist, and what each does, is commands.py's registry.
    """
    lines = body.strip().splitlines()
    if not lines:
        return None
    match = _COMMAND_LINE.match(lines[0].strip())
    if match is None:
        return None  # includes "/docs-syncing", which is a word, not the command
    words = (match.group(1) or "").split(maxsplit=2)
    if not words:
        return "", ()
    args = (words[1].strip("`"), *(w.strip() for w in words[2:])) if len(words) > 1 else ()
    return words[0], args


def _installation(delivery: dict[str, Any]) -> int | None:
    return _int(delivery, "installation", "id")


def _malformed(event: str, action: str | None) -> None:
    log.warning("ignoring %s.%s delivery: a field the job needs is missing", event, action)


def _repo(payload: dict[str, Any]) -> tuple[str, str] | None:
    owner = _str(payload, "repository", "owner", "login")
    name = _str(payload, "repository", "name")
    if owner and name:
        return owner, name
    full = _str(payload, "repository", "full_name") or ""
    owner, _, name = full.partition("/")
    return (owner, name) if owner and name else None


# -- tolerant accessors: a missing or mistyped field reads as None, never raises ----------------


def _dig(obj: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _str(obj: Any, *path: str) -> str | None:
    value = _dig(obj, *path)
    return value if isinstance(value, str) and value else None


def _int(obj: Any, *path: str) -> int | None:
    value = _dig(obj, *path)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _dict(obj: Any, *path: str) -> dict[str, Any] | None:
    value = _dig(obj, *path)
    return value if isinstance(value, dict) else None


def _list(obj: Any, *path: str) -> list[Any]:
    value = _dig(obj, *path)
    return value if isinstance(value, list) else []
