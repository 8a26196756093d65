"""`/docs-sync` commands in pull request comments (job kind "command").

    /docs-sync, /docs-sync recheck      check the pull request's head again
    /docs-sync explain                  reply with each finding: rule, why, code line, doc line
    /docs-sync ignore <symbol> [reason] waive the findings about <symbol> on this pull request,
                                        then check again (write, maintain or admin only)
    /docs-sync help                     reply with this list

Every command is acknowledged with an "eyes" reaction on its comment and answered in a reply
comment; a command above the commenter's permission is refused politely, and one GitHub refuses
to carry out (a 404, a permission the App lacks) is answered with what GitHub said. events.py
has already dropped comments by bots, edits and deletions. The reply's id is kept in kv (ns
"reply", key = job id, {"id"}; id None while the reply is being sent), so a retried job does not
answer twice: a reply whose answer was lost is found by its hidden marker
`<!-- docs-sync:reply-to=<comment id> -->`. The reaction is idempotent on GitHub's side.
"""

from __future__ import annotations

import json
import logging

from bot.app.github import GitHubError, Repo
from bot.app.jobs import Deps, add_waiver, analyze, finding_json, pull_from_json, repo_for, run_check
from bot.app.queue import Job
from bot.render.comments import COMMENT_LIMIT, check_title, reply_marker
from bot.render.common import md_code, md_escape

log = logging.getLogger(__name__)

WRITE_PERMISSIONS = ("admin", "maintain", "write")  # GitHub reports maintain as write

HELP = """\
docs-sync keeps this repository's docs in step with its code. Commands (first line of a comment):

- `/docs-sync` or `/docs-sync recheck`: check this pull request again
- `/docs-sync explain`: why each finding was reported (rule, code line, doc line)
- `/docs-sync ignore <symbol> [reason]`: accept the findings about `<symbol>` on this pull \
request (needs write access); they move to the summary's "Ignored" list
- `/docs-sync help`: this list"""


def run_command(deps: Deps, job: Job) -> None:
    p = job.payload
    repo, installation = repo_for(deps, p)
    key, number, comment_id = str(job.id), int(p["pr"]), int(p["comment_id"])
    with deps.app.session(installation):
        repo.react(comment_id, "eyes")
        raw = deps.queue.kv_get("reply", key)
        if raw is not None:
            if json.loads(raw).get("id") is not None:
                return  # answered by an earlier attempt of this job
            found = _find_reply(repo, number, comment_id)  # sent, but the answer was lost?
            if found is not None:
                deps.queue.kv_put("reply", key, json.dumps({"id": found}))
                return
        try:
            answer = _answer(deps, job, repo)
        except GitHubError as exc:  # GitHub will not do it: say so rather than go quiet
            log.warning("command %s failed: %s", p.get("command"), exc)
            answer = f"docs-sync could not do that: {md_escape(str(exc))}"
        quoted = " ".join([f"/docs-sync {p.get('command')}", *map(str, p.get("args") or [])])
        end = "\n\n" + reply_marker(comment_id)
        body = f"> {md_code(quoted)}\n\n@{p['user']} {answer}"
        if len(body) + len(end) > COMMENT_LIMIT:
            body = body[: COMMENT_LIMIT - len(end) - 1] + "…"
        deps.queue.kv_put("reply", key, json.dumps({"id": None}))
        reply = repo.create_issue_comment(number, body + end)
        deps.queue.kv_put("reply", key, json.dumps({"id": reply.get("id")}))


def _find_reply(repo: Repo, number: int, comment_id: int) -> int | None:
    mark = reply_marker(comment_id)
    for c in repo.issue_comments(number):
        if mark in str(c.get("body") or "") and (c.get("user") or {}).get("type") == "Bot":
            return int(c["id"])
    return None


def _answer(deps: Deps, job: Job, repo: Repo) -> str:
    p = job.payload
    command = p.get("command")
    if command == "help":
        note = f"({p['note']})\n\n" if p.get("note") else ""
        return note + HELP
    if command == "explain":
        return explain(deps, job, repo)
    if command == "ignore":
        return ignore(deps, job, repo)
    if command == "recheck":
        pull = pull_from_json(repo.pull(int(p["pr"])))
        report = run_check(deps, job, pull)
        if report is None:
            return f"checked {pull.head_sha[:12]} again; the docs-sync check run has the result."
        return f"checked {pull.head_sha[:12]} again: {check_title(report)}."
    log.warning("unknown command %r", command)
    return HELP


def ignore(deps: Deps, job: Job, repo: Repo) -> str:
    p = job.payload
    user = str(p["user"])
    permission = repo.permission(user)
    if permission not in WRITE_PERMISSIONS:
        held = "no access" if permission == "none" else f"{permission} access"
        return (
            "thanks for looking into this! `/docs-sync ignore` changes what this pull request is "
            f"checked against, so it needs write access to the repository (you have {held}). "
            "A maintainer can run it, or the doc can be updated instead."
        )
    args = [str(a) for a in p.get("args") or []]
    symbol, reason = args[0], (args[1] if len(args) > 1 else "")
    number = int(p["pr"])
    add_waiver(deps.queue, f"{repo.full_name}#{number}", symbol, reason, user)
    pull = pull_from_json(repo.pull(number))
    report = run_check(deps, job, pull)
    said = f" ({md_escape(reason)})" if reason else ""
    answer = f"docs-sync now ignores findings about {md_code(symbol)} on this pull request{said}."
    if report is None:
        return answer
    if not any(f.symbol.split(" ", 1)[0] == symbol or f.symbol == symbol for f, _ in report.ignored):
        answer += f" No current finding is about {md_code(symbol)}; the waiver applies if one appears."
    return answer + f" Checked {pull.head_sha[:12]} again: {check_title(report)}."


def explain(deps: Deps, job: Job, repo: Repo) -> str:
    """Each finding of the last check (or of a fresh analysis when there was none)."""
    number = int(job.payload["pr"])
    raw = deps.queue.kv_get("report", f"{repo.full_name}#{number}")
    if raw is not None:
        data = json.loads(raw)
    else:
        pull = pull_from_json(repo.pull(number))
        result = analyze(deps, repo, pull)
        if result.report is None or result.links is None:
            title = result.problem[0] if result.problem else "nothing to explain"
            return f"docs-sync has no findings to explain: {title}."
        data = {
            "head_sha": pull.head_sha,
            "html_url": result.links.html_url,
            "findings": [finding_json(f) for f in result.report.findings],
            "ignored": [],
        }
    return explain_text(data)


def explain_text(data: dict) -> str:
    sha, base = data["head_sha"], f"{data['html_url']}/blob/{data['head_sha']}"
    findings = data.get("findings") or []
    if not findings:
        text = f"docs-sync found nothing out of date at {sha[:12]}."
    else:
        text = f"here is why docs-sync reported each finding at {sha[:12]}:\n"
        for i, f in enumerate(findings, 1):
            text += "\n" + _explain_one(i, f, base)
    ignored = data.get("ignored") or []
    if ignored:
        text += "\n\nIgnored on this pull request:\n"
        text += "\n".join(
            f"- {md_code(f['symbol'])} ({f['kind']}): {md_escape(f['reason'])}" for f in ignored
        )
    return text


def _explain_one(i: int, f: dict, base: str) -> str:
    lines = [f"**{i}. {f['kind']} {md_code(f['symbol'])}** ({f['severity']}, rule {md_code(f['rule'])})"]
    lines.append(f"- What: {md_escape(f['message'])}")
    if f.get("doc"):
        d = f["doc"]
        section = f" ({md_escape(d['section'])})" if d.get("section") else ""
        lines.append(f"- Doc: [{d['path']} line {d['line']}]({base}/{d['path']}#L{d['line']}){section}")
    if f.get("code"):
        c = f["code"]
        lines.append(f"- Code: [{c['path']} line {c['line']}]({base}/{c['path']}#L{c['line']})")
    if f.get("why"):
        lines.append(f"- Why: {md_escape(f['why'])}")
    return "\n".join(lines) + "\n"
