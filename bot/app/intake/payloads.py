"""The jobs' payloads: one frozen dataclass per job kind, stored in the queue as a JSON object.

events.py makes them from a delivery and stores `to_json()`; the handler reads them back once
with `parse(kind, payload)`, so no step indexes a dict. Every kind carries the same keys, null
where unknown:

    trigger          "pull_request.synchronize", ... (for logs, and to tell automatic runs from asked ones)
    installation_id  None when the delivery names none (the handler asks GitHub for the
                     repository's installation)
    owner, repo      the repository
    pr               the pull request's number (None: a fork's check suite, found by head SHA)
    head_sha, base_sha, base_ref
    check_run_id     check jobs from check_run events: the run a person asked to re-run
    comment_id, user, command, args, note
                     command jobs: the comment, its author, the verb after `/docs-sync` and the
                     words after it (at most two: the first word and the rest of the line);
                     `note` is kept for jobs queued before verbs were resolved when run

Reading is tolerant: keys the dataclass does not know are ignored, so a payload queued by a
newer or older version still runs; a payload without a field the job cannot do without is a
PayloadError, which fails the job with that message.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


class PayloadError(ValueError):
    """A queued payload lacks a field its job needs."""


@dataclass(frozen=True)
class CheckJob:
    """Check a pull request's head and publish the result."""

    owner: str
    repo: str
    installation_id: int | None = None
    trigger: str = ""
    pr: int | None = None
    head_sha: str | None = None
    base_sha: str | None = None
    base_ref: str | None = None
    check_run_id: int | None = None

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    def to_json(self) -> dict[str, Any]:
        return _json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckJob:
        return cls(
            owner=_required_str(data, "owner"),
            repo=_required_str(data, "repo"),
            installation_id=_int(data, "installation_id"),
            trigger=_str(data, "trigger") or "",
            pr=_int(data, "pr"),
            head_sha=_str(data, "head_sha"),
            base_sha=_str(data, "base_sha"),
            base_ref=_str(data, "base_ref"),
            check_run_id=_int(data, "check_run_id"),
        )


@dataclass(frozen=True)
class CommandJob:
    """Answer a `/docs-sync` comment on a pull request."""

    owner: str
    repo: str
    pr: int
    comment_id: int
    user: str
    command: str
    args: tuple[str, ...] = ()
    note: str | None = None
    installation_id: int | None = None
    trigger: str = "issue_comment.created"

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    def to_json(self) -> dict[str, Any]:
        return {**_json(self), "args": list(self.args)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CommandJob:
        pr, comment_id = _int(data, "pr"), _int(data, "comment_id")
        if pr is None or comment_id is None:
            raise PayloadError("a command job needs the pull request's number and the comment's id")
        args = data.get("args")
        return cls(
            owner=_required_str(data, "owner"),
            repo=_required_str(data, "repo"),
            pr=pr,
            comment_id=comment_id,
            user=_required_str(data, "user"),
            command=_str(data, "command") or "",
            args=tuple(str(a) for a in args) if isinstance(args, list) else (),
            note=_str(data, "note"),
            installation_id=_int(data, "installation_id"),
            trigger=_str(data, "trigger") or "issue_comment.created",
        )


Payload = CheckJob | CommandJob
KINDS: dict[str, type[CheckJob] | type[CommandJob]] = {"check": CheckJob, "command": CommandJob}


def parse(kind: str, data: dict[str, Any]) -> Payload | None:
    """The typed payload of a job of `kind`; None for a kind no version of docs-sync queued."""
    cls = KINDS.get(kind)
    if cls is None:
        return None
    if not isinstance(data, dict):
        raise PayloadError(f"a {kind} job's payload is not a JSON object")
    return cls.from_json(data)


# The keys every payload carries, null where its kind has no value for them.
_COMMON = ("trigger", "installation_id", "owner", "repo", "pr", "head_sha", "base_sha", "base_ref")


def _json(job: CheckJob | CommandJob) -> dict[str, Any]:
    return {**dict.fromkeys(_COMMON), **asdict(job)}


def _str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def _required_str(data: dict[str, Any], key: str) -> str:
    value = _str(data, key)
    if value is None:
        raise PayloadError(f"the job's payload has no {key!r}")
    return value


def _int(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
