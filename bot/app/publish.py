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
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from bot.app.events import RERUN_ACTION
from bot.app.github import GitHubError, Repo
from bot.app.queue import JobQueue
from bot.core.model import Finding, Report
from bot.render.comments import (
    IN_PROGRESS_SUMMARY,
    IN_PROGRESS_TITLE,
    RERUN_DESCRIPTION,
    RERUN_LABEL,
    SUMMARY_MARKER,
    TEXT_LIMIT,
    TITLE_LIMIT,
    Links,
    clip,
    code_comment,
    doc_comment,
    finding_line,
    fixed_body,
    left_behind,
    marked_fingerprint,
)

CHECK_NAME = "docs-sync"
MAX_INLINE = 30  # more inline comments than this make a PR page hard to use
ANNOTATION_BATCH = 50  # GitHub takes at most 50 annotations per request
ACTIONS = [{"label": RERUN_LABEL, "description": RERUN_DESCRIPTION, "identifier": RERUN_ACTION}]


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
    s = f.suggestion
    if f.doc and f.doc.line in diff.get(f.doc.path, ()):
        start = end = f.doc.line
        fits = None
        span = set(range(s.start_line, s.end_line + 1)) if s and s.path == f.doc.path else set()
        if s and span and span <= diff.get(s.path, frozenset()):
            start, end, fits = s.start_line, s.end_line, s  # the suggestion's lines are all in the diff
        body, whole = doc_comment(f, fits)
        if not whole:  # the suggestion did not fit: a comment on the doc line alone
            start = end = f.doc.line
        return Inline(fp, f.doc.path, end, start if start < end else None, body, finding_line(f))
    if f.code and f.code.line in diff.get(f.code.path, ()):
        body = code_comment(f, links, head_text)
        return Inline(fp, f.code.path, f.code.line, None, body, finding_line(f))
    return None


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
            gone = left_behind(run.head_sha)
            finish_check_run(
                repo, store, job_key, run, conclusion=gone.conclusion, title=gone.title, summary=gone.summary
            )
    store.kv_put("check-run-pending", job_key, json.dumps({"head_sha": head_sha}))
    data = repo.create_check_run(
        {
            "name": CHECK_NAME,
            "head_sha": head_sha,
            "status": "in_progress",
            "external_id": external_id,
            "output": {"title": IN_PROGRESS_TITLE, "summary": IN_PROGRESS_SUMMARY},
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
    output = {"title": title[:TITLE_LIMIT], "summary": clip(summary, TEXT_LIMIT)}
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
