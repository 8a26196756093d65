"""What reviewers see: the check run, one review with inline comments, one summary comment.

The pure half plans (titles, annotations, which finding goes on which diff line, comment
bodies); the other half writes to GitHub and records what it wrote in the queue's kv store,
so a retried or resumed job picks up where it stopped and a re-run adds nothing twice:

    ns "check-run", key = job id    {"id", "head_sha", "html_url", "sent", "done"}: the job's run,
                                    annotations already sent, whether it is completed
    ns "check-run-pending", job id  {"head_sha"}: a creation sent and not yet answered (else null);
                                    the run is then found by its external_id, the delivery id
    ns "pr", key = "owner/repo#12"  {"reviews": [ids], "comments": {fingerprint: {"state",
                                    "message", "id"}}, "summary_id", "summary_hash",
                                    "review_pending", "summary_pending"}

Inline comments go only on lines GitHub accepts (added or context lines of a file's patch, on
the head side): a single line outside the diff makes GitHub refuse the whole review. Each body
ends with `<!-- docs-sync:fp=<fingerprint> -->`, which is how a later run recognises it. At most
30 of them are open on a pull request at once; the rest are listed in the summary.

A write whose answer never arrived (a crash, a timeout, a 502 after GitHub did the work) may
have happened: the state says so ("review_pending", "summary_pending") before the call, and the
next run looks at the pull request's comments once, adopting what it finds instead of posting
it twice.

GitHub's limits: check run summary and text at most 65,535 bytes of UTF-8 (GitHub counts bytes,
though its docs say characters), annotation message and raw_details at most 64 KB, title 255
characters, 50 annotations a request; comment bodies at most 65,536 characters.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from bot.app.events import RERUN_ACTION
from bot.app.github import GitHubError, Repo
from bot.app.queue import JobQueue
from bot.core.model import Finding, Report
from bot.render.formats import md_code, md_escape, suggestion_diff, to_markdown

CHECK_NAME = "docs-sync"
MAX_INLINE = 30  # more inline comments than this make a PR page hard to use
ANNOTATION_BATCH = 50  # GitHub takes at most 50 annotations per request
TEXT_LIMIT = 65_535  # check run summary and text, in UTF-8 bytes
NOTE_LIMIT = 65_535  # annotation message and raw_details ("64 KB"), in UTF-8 bytes
COMMENT_LIMIT = 65_536  # issue and review comment bodies, in characters
SUMMARY_MARKER = "<!-- docs-sync:summary -->"
ACTIONS = [{"label": "Re-run", "description": "Run docs-sync again", "identifier": RERUN_ACTION}]

_LEVEL = {"error": "failure", "warning": "warning", "notice": "notice"}
_BADGE = {"error": "🔴", "warning": "🟡", "notice": "🔵"}
_MARKER = re.compile(r"<!-- docs-sync:fp=([0-9a-f]+) -->")


def clip(text: str, limit: int) -> str:
    """`text` within `limit` bytes of UTF-8, ending in "…" where it was cut (never mid-character)."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: max(0, limit - 3)].decode("utf-8", "ignore") + "…"


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def marker(fingerprint: str) -> str:
    return f"<!-- docs-sync:fp={fingerprint} -->"


def marked_fingerprint(body: str) -> str | None:
    m = _MARKER.search(body)
    return m.group(1) if m else None


# ---------------------------------------------------------------------------------------------
# planning (pure)


def right_lines(patch: str | None) -> frozenset[int]:
    """Head line numbers a review comment may use: the added and context lines of `patch`.

    GitHub's `patch` is the file's hunks without the file header; unidiff reads them once one is
    put in front.
    """
    if not patch:
        return frozenset()
    try:
        (diff,) = PatchSet("--- a/file\n+++ b/file\n" + patch.rstrip("\n") + "\n")
    except (UnidiffParseError, ValueError):
        return frozenset()  # a patch we cannot read gets no inline comment, only the summary
    return frozenset(
        line.target_line_no for hunk in diff for line in hunk if line.is_added or line.is_context
    )


@dataclass(frozen=True)
class Links:
    """Permalinks into the repository at the head commit."""

    html_url: str  # https://github.com/owner/repo
    head_sha: str

    def blob(self, path: str, start: int, end: int | None = None) -> str:
        return f"{self.html_url}/blob/{self.head_sha}/{quote(path)}#L{start}-L{end or start}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def check_title(report: Report) -> str:
    """'2 doc lines out of date', 'Docs are in sync (1 finding ignored)', ..."""
    ignored = f" ({_plural(len(report.ignored), 'finding')} ignored)" if report.ignored else ""
    if not report.findings:
        return "Docs are in sync" + ignored
    doc_lines = {(f.doc.path, f.doc.line) for f in report.findings if f.doc}
    others = sum(1 for f in report.findings if not f.doc)
    if not doc_lines:
        return _plural(others, "finding") + ignored
    title = _plural(len(doc_lines), "doc line") + " out of date"
    if others:
        title += f", {_plural(others, 'more finding')}"
    return title + ignored


def annotations(report: Report, gone: Collection[str] = ()) -> list[dict]:
    """One check-run annotation per finding that has a place in the head commit.

    The doc line, else the code line; `gone` are paths the head commit no longer has (removed,
    or renamed away), where an annotation would point at nothing.
    """
    out = []
    for f in report.findings:
        if f.doc and f.doc.path not in gone:
            path, start, end = f.doc.path, f.doc.line, f.doc.line
            s = f.suggestion
            if s and s.path == path and s.start_line <= s.end_line:
                start, end = s.start_line, s.end_line
        elif f.code and f.code.path not in gone:
            path, start, end = f.code.path, f.code.line, f.code.line
        else:
            continue  # the summary still lists it
        if not path or start < 1:
            continue  # GitHub refuses the whole request for one annotation without a place
        message = f.message
        if f.doc and f.code:
            message += f"\ncode: {f.code.path}:{f.code.line}"
        annotation = {
            "path": path,
            "start_line": start,
            "end_line": end,
            "annotation_level": _LEVEL[f.severity],
            "title": f"{f.kind}: {f.symbol}"[:255],
            "message": clip(message, NOTE_LIMIT),
        }
        if f.suggestion:
            details = (
                "Suggested text:\n" + f.suggestion.replacement
                if f.suggestion.replacement
                else "Suggested: delete these lines."
            )
            annotation["raw_details"] = clip(details, NOTE_LIMIT)
        out.append(annotation)
    return out


def _fence(text: str, info: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def suggestion_block(replacement: str) -> str:
    """A ```suggestion block replacing the commented lines with `replacement`.

    An empty replacement deletes them, which GitHub writes as a block with no line at all (a
    block holding one empty line would replace them with a blank line).
    """
    if replacement == "":
        return "```suggestion\n```"
    return _fence(replacement, "suggestion")


def finding_line(f: Finding) -> str:
    """The one-line markdown form of a finding: badge, kind, symbol, message."""
    return f"{_BADGE[f.severity]} **{f.kind}** {md_code(f.symbol)}: {md_escape(f.message)}"


@dataclass(frozen=True)
class Inline:
    """One planned review comment."""

    fingerprint: str
    path: str
    line: int
    start_line: int | None  # for a suggestion spanning several lines
    body: str
    message: str  # the finding in one line, kept for the "fixed" edit

    def as_review_comment(self) -> dict:
        comment = {"path": self.path, "line": self.line, "side": "RIGHT", "body": self.body}
        if self.start_line is not None:
            comment.update(start_line=self.start_line, start_side="RIGHT")
        return comment


def plan_inline(
    report: Report,
    diff: Mapping[str, frozenset[int]],
    head_text: Callable[[str], str | None],
    links: Links,
    skip: Collection[str] = (),
    limit: int = MAX_INLINE,
) -> tuple[list[Inline], int]:
    """Review comments for findings with a line in the diff, and how many the cap left out.

    A doc line in the diff gets a suggestion; otherwise the code line that made the doc wrong
    gets the message, a link to the doc lines and the proposed doc patch. Fingerprints in
    `skip` (already posted) and repeats of one fingerprint are left out.
    """
    planned: list[Inline] = []
    over = 0
    seen = set(skip)
    for f in report.findings:
        fp = f.fingerprint()
        if fp in seen:
            continue
        comment = _inline_for(f, fp, diff, head_text, links)
        if comment is None:
            continue
        seen.add(fp)
        if len(planned) >= limit:
            over += 1
            continue
        planned.append(comment)
    return planned, over


def _inline_for(
    f: Finding,
    fp: str,
    diff: Mapping[str, frozenset[int]],
    head_text: Callable[[str], str | None],
    links: Links,
) -> Inline | None:
    head = finding_line(f)
    s = f.suggestion
    if f.doc and f.doc.line in diff.get(f.doc.path, ()):
        start = end = f.doc.line
        parts = [head]
        if s and s.path == f.doc.path and s.start_line <= s.end_line:
            span = set(range(s.start_line, s.end_line + 1))
            if span <= diff.get(s.path, frozenset()):
                start, end = s.start_line, s.end_line
                parts.append(suggestion_block(s.replacement))
        body, whole = _comment_body(parts, fp)
        if not whole:  # the suggestion did not fit: a comment on the doc line alone
            start = end = f.doc.line
        return Inline(fp, f.doc.path, end, start if start < end else None, body, head)
    if f.code and f.code.line in diff.get(f.code.path, ()):
        parts = [head]
        if f.doc:
            link = f"[{f.doc.path} line {f.doc.line}]({links.blob(f.doc.path, f.doc.line)})"
            section = f" ({md_escape(f.doc.section)})" if f.doc.section else ""
            parts.append(f"This change makes {link}{section} out of date.")
            patch = _doc_patch(f, head_text)
            if patch:
                parts.append("Proposed doc change:\n\n" + _fence(patch, "diff"))
        body, _ = _comment_body(parts, fp)
        return Inline(fp, f.code.path, f.code.line, None, body, head)
    return None


TOO_LONG = "The rest of this finding is too long for a comment; the check run's annotation has it."


def _comment_body(parts: Sequence[str], fp: str) -> tuple[str, bool]:
    """The comment: its paragraphs and marker, and True; past GitHub's limit (which refuses the
    whole review), the paragraphs that fit whole (else the first, cut), a note, and False."""
    end = marker(fp)
    body = "\n\n".join([*parts, end])
    if len(body) <= COMMENT_LIMIT:
        return body, True
    kept: list[str] = []
    for part in parts:
        if len("\n\n".join([*kept, part, TOO_LONG, end])) > COMMENT_LIMIT:
            break
        kept.append(part)
    if not kept:
        kept = [parts[0][: COMMENT_LIMIT - len(TOO_LONG) - len(end) - 10] + "…"]
    return "\n\n".join([*kept, TOO_LONG, end]), False


def _doc_patch(f: Finding, head_text: Callable[[str], str | None]) -> str | None:
    if f.suggestion is None:
        return None
    text = head_text(f.suggestion.path)
    if text is None:
        return None
    try:
        return suggestion_diff(f, text.split("\n"))
    except ValueError:
        return None


def fixed_body(message: str, sha: str, fingerprint: str) -> str:
    return f"✅ **Fixed in {sha[:12]}.** ~~{message}~~\n\n{marker(fingerprint)}"


def summary_text(report: Report, links: Links, notes: Sequence[str] = (), limit: int = TEXT_LIMIT) -> str:
    """The markdown summary of the check run (and of the summary comment), within `limit` bytes.

    The markdown is cut at whole findings; GitHub measures the summary in bytes, so where badges
    and non-ASCII text make the bytes outgrow the characters, it is cut again, shorter.
    """
    tail = "".join(f"\n> {note}\n" for note in notes)
    room = limit - _size(tail) - 100  # bytes for the markdown
    budget = room  # characters asked of to_markdown
    for _ in range(8):
        markdown = to_markdown(report, doc_url=links.blob, limit=max(1000, budget))
        size = _size(markdown)
        if size <= room:
            return markdown + tail
        budget = int(budget * room / size * 0.99)  # as many characters as the bytes per character allow
    return clip(markdown + tail, limit)


def summary_comment(report: Report, links: Links, notes: Sequence[str] = ()) -> str:
    footer = f"\n<sub>docs-sync checked {links.head_sha[:12]}.</sub>\n"
    budget = COMMENT_LIMIT - len(SUMMARY_MARKER) - len(footer) - 2
    return f"{SUMMARY_MARKER}\n{summary_text(report, links, notes, limit=budget)}{footer}"


# ---------------------------------------------------------------------------------------------
# writing (GitHub + kv)


@dataclass
class CheckRun:
    """The job's check run and how far its completion got."""

    id: int
    head_sha: str
    html_url: str = ""
    sent: int = 0  # annotations already sent
    done: bool = False

    def save(self, store: JobQueue, job_key: str) -> None:
        store.kv_put("check-run", job_key, json.dumps(self.__dict__))


def start_check_run(repo: Repo, store: JobQueue, job_key: str, head_sha: str, external_id: str) -> CheckRun:
    """The job's check run on `head_sha`: the one a previous attempt created, else a new one.

    `external_id` (the job's delivery id) names the run on GitHub, so a creation whose answer
    was lost is found again instead of leaving a second run in progress. A run an earlier
    attempt left on another head (a recheck after a push) is completed as superseded first.
    """
    run = known_check_run(repo, store, job_key, external_id)
    if run is not None:
        if run.head_sha == head_sha:
            return run
        if not run.done:
            finish_check_run(
                repo,
                store,
                job_key,
                run,
                conclusion="neutral",
                title="Superseded by a newer push",
                summary=f"A newer commit was pushed after {run.head_sha[:12]}; docs-sync checks that one.",
            )
    store.kv_put("check-run-pending", job_key, json.dumps({"head_sha": head_sha}))
    data = repo.create_check_run(
        {
            "name": CHECK_NAME,
            "head_sha": head_sha,
            "status": "in_progress",
            "external_id": external_id,
            "output": {"title": "Checking the docs", "summary": "docs-sync is reading this pull request."},
        }
    )
    run = CheckRun(id=int(data["id"]), head_sha=head_sha, html_url=str(data.get("html_url") or ""))
    run.save(store, job_key)
    store.kv_put("check-run-pending", job_key, json.dumps({"head_sha": None}))
    return run


def check_run_started(store: JobQueue, job_key: str) -> bool:
    """Has the job created its check run, or sent the creation (answered or not)?"""
    pending = json.loads(store.kv_get("check-run-pending", job_key) or "{}").get("head_sha")
    return pending is not None or store.kv_get("check-run", job_key) is not None


def known_check_run(repo: Repo, store: JobQueue, job_key: str, external_id: str) -> CheckRun | None:
    """The check run the job created, from kv, or found on GitHub when its creation went unanswered."""
    raw = store.kv_get("check-run", job_key)
    saved = CheckRun(**json.loads(raw)) if raw is not None else None
    pending = json.loads(store.kv_get("check-run-pending", job_key) or "{}").get("head_sha")
    if pending is None or (saved is not None and saved.head_sha == pending):
        return saved
    found = [r for r in repo.check_runs(pending, CHECK_NAME) if r.get("external_id") == external_id]
    store.kv_put("check-run-pending", job_key, json.dumps({"head_sha": None}))
    if not found:
        return saved  # the creation never happened
    data = max(found, key=lambda r: int(r["id"]))
    run = CheckRun(
        id=int(data["id"]),
        head_sha=pending,
        html_url=str(data.get("html_url") or ""),
        done=data.get("status") == "completed",
    )
    run.save(store, job_key)
    return run


def finish_check_run(
    repo: Repo,
    store: JobQueue,
    job_key: str,
    run: CheckRun,
    *,
    conclusion: str,
    title: str,
    summary: str,
    notes: Sequence[dict] = (),
) -> None:
    """Send the annotations 50 a request, the last batch with `conclusion`, which completes the run.

    Completing comes last, so a job interrupted between batches is still in progress and its
    retry sends the rest; progress is saved after each request, so no annotation goes twice.
    """
    if run.done:
        return
    output = {"title": title[:255], "summary": clip(summary, TEXT_LIMIT)}
    while len(notes) - run.sent > ANNOTATION_BATCH:
        batch = list(notes[run.sent : run.sent + ANNOTATION_BATCH])
        repo.update_check_run(run.id, {"output": {**output, "annotations": batch}})
        run.sent += len(batch)
        run.save(store, job_key)
    last = list(notes[run.sent :])
    body = {
        "status": "completed",
        "conclusion": conclusion,
        "output": {**output, "annotations": last} if last else output,
        "actions": ACTIONS,
    }
    repo.update_check_run(run.id, body)
    run.done, run.sent = True, run.sent + len(last)
    run.save(store, job_key)


def fail_summary(error: BaseException | str) -> str:
    text = str(error) or type(error).__name__
    return (
        "docs-sync stopped before it could finish checking this pull request:\n\n"
        + _fence(clip(text, TEXT_LIMIT - 500), "")
        + "\n\nThis run says nothing about the docs. Use **Re-run** above, or comment `/docs-sync` "
        "on the pull request, to try again."
    )


@dataclass
class PullState:
    """What docs-sync has written on one pull request."""

    reviews: list[int] = field(default_factory=list)
    comments: dict[str, dict] = field(default_factory=dict)  # fingerprint -> {state, message, id}
    summary_id: int | None = None
    summary_hash: str | None = None
    review_pending: bool = False  # a review was sent and its answer not seen
    summary_pending: bool = False  # the summary comment was sent and its answer not seen

    @classmethod
    def load(cls, store: JobQueue, pr_key: str) -> PullState:
        raw = store.kv_get("pr", pr_key)
        return cls(**json.loads(raw)) if raw else cls()

    def save(self, store: JobQueue, pr_key: str) -> None:
        store.kv_put("pr", pr_key, json.dumps(self.__dict__))

    def open_fingerprints(self) -> set[str]:
        return {fp for fp, c in self.comments.items() if c.get("state") == "open"}


def post_review(
    repo: Repo,
    store: JobQueue,
    pr_key: str,
    state: PullState,
    number: int,
    head_sha: str,
    inline: list[Inline],
) -> None:
    """One COMMENT review holding every new inline comment; nothing when there is none."""
    if not inline:
        return
    state.review_pending = True
    state.save(store, pr_key)
    review = repo.create_review(
        number,
        {"commit_id": head_sha, "event": "COMMENT", "comments": [c.as_review_comment() for c in inline]},
    )
    state.reviews.append(int(review["id"]))
    for c in inline:
        state.comments[c.fingerprint] = {"state": "open", "message": c.message, "id": None}
    state.review_pending = False
    state.save(store, pr_key)


def recover_review(repo: Repo, store: JobQueue, pr_key: str, state: PullState, number: int) -> int:
    """Adopt the comments of a review whose answer was lost; returns how many were found.

    Only when the state says a review was sent unanswered: one listing of the review comments,
    keeping docs-sync's own (a bot's, with a fingerprint marker) from reviews the state does not
    know; comments of known reviews (some marked fixed since) keep the state they have.
    """
    if not state.review_pending:
        return 0
    found = 0
    known = set(state.reviews)
    for c in repo.review_comments(number):
        fp = marked_fingerprint(str(c.get("body") or ""))
        review_id = c.get("pull_request_review_id")
        if fp is None or review_id in known or (c.get("user") or {}).get("type") != "Bot":
            continue
        if isinstance(review_id, int) and review_id not in state.reviews:
            state.reviews.append(review_id)
        message = str(c.get("body") or "").split("\n\n", 1)[0]
        state.comments[fp] = {"state": "open", "message": message, "id": int(c["id"])}
        found += 1
    state.review_pending = False
    state.save(store, pr_key)
    return found


def mark_fixed(
    repo: Repo,
    store: JobQueue,
    pr_key: str,
    state: PullState,
    number: int,
    head_sha: str,
    current: Collection[str],
) -> int:
    """Edit the comments whose finding is gone to say so; returns how many."""
    gone = [fp for fp in state.open_fingerprints() if fp not in current]
    if not gone:
        return 0
    if any(state.comments[fp].get("id") is None for fp in gone):
        # The review call does not answer with its comments' ids; look them up once, now.
        ours = set(state.reviews)
        for c in repo.review_comments(number):
            fp = marked_fingerprint(str(c.get("body") or ""))
            if fp in state.comments and c.get("pull_request_review_id") in ours:
                state.comments[fp]["id"] = int(c["id"])
    for fp in gone:
        entry = state.comments[fp]
        if entry.get("id") is not None:
            try:
                repo.update_review_comment(entry["id"], fixed_body(entry["message"], head_sha, fp))
            except GitHubError as exc:
                if exc.status != 404:  # someone deleted the comment: nothing left to mark
                    raise
        entry["state"] = "fixed"
        state.save(store, pr_key)
    return len(gone)


def upsert_summary(
    repo: Repo, store: JobQueue, pr_key: str, state: PullState, number: int, body: str, wanted: bool
) -> None:
    """Create the summary comment once (when `wanted`), then keep editing that one comment."""
    digest = hashlib.sha1(body.encode()).hexdigest()
    if state.summary_id is None and state.summary_pending:
        # The last creation got no answer: it may be there. Adopt it rather than post a second.
        state.summary_id = find_summary(repo, number)
        state.summary_pending = False
        state.summary_hash = None
    if state.summary_id is None:
        if not wanted:
            state.save(store, pr_key)
            return
        state.summary_pending = True
        state.save(store, pr_key)
        state.summary_id = int(repo.create_issue_comment(number, body)["id"])
        state.summary_pending = False
    elif digest != state.summary_hash:
        try:
            repo.update_issue_comment(state.summary_id, body)
        except GitHubError as exc:
            if exc.status != 404:
                raise
            state.summary_id = int(repo.create_issue_comment(number, body)["id"])  # it was deleted
    state.summary_hash = digest
    state.save(store, pr_key)


def find_summary(repo: Repo, number: int) -> int | None:
    """The id of docs-sync's summary comment on the pull request (a bot's, with the marker), if any."""
    for c in repo.issue_comments(number):
        body = str(c.get("body") or "")
        if body.startswith(SUMMARY_MARKER) and (c.get("user") or {}).get("type") == "Bot":
            return int(c["id"])
    return None
