"""Inline review comments: which finding goes on which diff line, one review per run, "Fixed in"
edits, and the recovery of a review whose answer was lost.

Comments go only on lines GitHub accepts (added or context lines of a file's patch, on the head
side): a single line outside the diff makes GitHub refuse the whole review. Each body ends with
a fingerprint marker (bot.render.comments.marker), which is how a later run recognises it. At
most 30 are open on a pull request at once; the rest are listed in the summary.

What was posted is kept in the store's `PullState` (by fingerprint: open or fixed, the one-line
message, the comment id once known). A review sent whose answer never arrived may have been
created: the state says so (`review_pending`) before the call, and the next run lists the
review comments once, adopting docs-sync's own instead of posting them twice (once.py's
protocol; `_ReviewSlot`). The same listing
adopts every comment of a pull request the database does not know (`adopt_comments`: the
database was lost), "fixed" ones as fixed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace

from unidiff import PatchSet  # type: ignore[import-untyped]
from unidiff.errors import UnidiffParseError  # type: ignore[import-untyped]

from bot.app.github.client import GitHubError
from bot.app.github.context import Context
from bot.app.github.once import recover, write
from bot.app.github.pullslot import PullSlot
from bot.app.github.shapes import DraftComment, NewReview, by_bot
from bot.app.queue.store import PostedComment, PullState
from bot.core.model import Finding, Report
from bot.render.comments import Links, code_comment, doc_comment, finding_line, fixed_body, marked_fingerprint

MAX_INLINE = 30  # more inline comments than this make a pull request's page hard to use
_FIXED = re.compile(r"✅ \*\*Fixed in [0-9a-f]+\.\*\* ~~")  # how fixed_body begins


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

    def as_review_comment(self) -> DraftComment:
        comment = DraftComment(path=self.path, line=self.line, side="RIGHT", body=self.body)
        if self.start_line is not None:
            comment["start_line"], comment["start_side"] = self.start_line, "RIGHT"
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


def post_review(ctx: Context, state: PullState, inline: list[Inline]) -> PullState:
    """One COMMENT review holding every new inline comment; nothing when there is none."""
    if not inline:
        return state

    def send() -> PullState:
        comments = [c.as_review_comment() for c in inline]
        review = ctx.repo.create_review(
            ctx.pull.number, NewReview(commit_id=ctx.pull.head_sha, event="COMMENT", comments=comments)
        )
        posted = {c.fingerprint: PostedComment("open", c.message) for c in inline}
        return replace(
            state,
            reviews=(*state.reviews, int(review["id"])),
            comments={**state.comments, **posted},
            review_pending=False,
        )

    return write(_ReviewSlot(ctx, state), send)


class _ReviewSlot(PullSlot):
    """The pull request's reviews (once.Slot), kept in its PullState: one sent unanswered
    (`review_pending`) is found by listing the review comments (`adopt_comments`)."""

    def pending(self) -> bool:
        return self.state.review_pending

    def marked(self, sent: bool) -> PullState:
        return replace(self.state, review_pending=sent)

    def find(self) -> PullState:
        return adopt_comments(self.ctx, self.state)


def recover_review(ctx: Context, state: PullState) -> PullState:
    """Adopt the comments of a review whose answer was lost.

    Only when the state says a review was sent unanswered: one listing of the review comments,
    keeping docs-sync's own (a bot's, with a fingerprint marker) from reviews the state does not
    know; comments of known reviews (some marked fixed since) keep the state they have.
    """
    return recover(_ReviewSlot(ctx, state)) or state


def adopt_comments(ctx: Context, state: PullState) -> PullState:
    """`state` with docs-sync's review comments on the pull request, as GitHub lists them.

    One listing; a bot's comments with a fingerprint marker count. Comments of reviews the state
    knows keep the state they have (some were marked fixed since) and gain their ids; the others
    are adopted, open or "fixed" as their body says, the newest winning for one fingerprint.
    """
    known = set(state.reviews)
    reviews = list(state.reviews)
    comments = dict(state.comments)
    for c in ctx.repo.review_comments(ctx.pull.number):
        body = str(c.get("body") or "")
        fp = marked_fingerprint(body)
        review_id = c.get("pull_request_review_id")
        if fp is None or not by_bot(c):
            continue
        if review_id in known:
            entry = comments.get(fp)
            if entry is not None and entry.id is None:
                comments[fp] = replace(entry, id=int(c["id"]))
            continue
        if isinstance(review_id, int) and review_id not in reviews:
            reviews.append(review_id)
        if _FIXED.match(body):
            comments[fp] = PostedComment("fixed", "", int(c["id"]))
        else:
            comments[fp] = PostedComment("open", body.split("\n\n", 1)[0], int(c["id"]))
    return replace(state, reviews=tuple(reviews), comments=comments, review_pending=False)


def mark_fixed(ctx: Context, state: PullState, current: Collection[str]) -> PullState:
    """Edit the open comments whose finding is not in `current` (fingerprints) to say it was fixed."""
    gone = [fp for fp in state.open_fingerprints() if fp not in current]
    if not gone:
        return state
    if any(state.comments[fp].id is None for fp in gone):
        # The review call does not answer with its comments' ids; look them up once, now.
        ours = set(state.reviews)
        for c in ctx.repo.review_comments(ctx.pull.number):
            fp = marked_fingerprint(str(c.get("body") or ""))
            if fp is not None and fp in state.comments and c.get("pull_request_review_id") in ours:
                state = state.with_comment(fp, replace(state.comments[fp], id=int(c["id"])))
    for fp in gone:
        entry = state.comments[fp]
        if entry.id is not None:
            try:
                ctx.repo.update_review_comment(entry.id, fixed_body(entry.message, ctx.pull.head_sha, fp))
            except GitHubError as exc:
                if exc.status != 404:  # someone deleted the comment: nothing left to mark
                    raise
        state = state.with_comment(fp, replace(entry, state="fixed"))
        ctx.store.save_pull_state(ctx.pr, state)
    return state
