"""The pull request's one summary comment: created when there is something to say, then edited.

Its id and a hash of its body are kept in the store's `PullState`: an unchanged body costs no
call. A creation whose answer was lost is marked (`summary_pending`) before the call (once.py's
protocol); the next run looks for the comment (a bot's, starting with the summary marker) and
adopts it rather than post a second. The same look-up adopts the summary of a pull request the
database does not know (`adopt_summary`: the database was lost). A summary someone deleted is
posted again, the same way.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from bot.app.github.client import GitHubError, Repo
from bot.app.github.context import Context
from bot.app.github.once import recover, write
from bot.app.github.pullslot import PullSlot
from bot.app.github.shapes import IssueComment, by_bot
from bot.app.queue.store import PullState
from bot.render.comments import SUMMARY_MARKER


def upsert_summary(ctx: Context, state: PullState, body: str, wanted: bool) -> PullState:
    """Create the summary comment once (when `wanted`), then keep editing that one comment."""
    digest = hashlib.sha1(body.encode()).hexdigest()
    # The last creation got no answer: it may be there. Adopt it rather than post a second.
    state = recover(_SummarySlot(ctx, state)) or state
    if state.summary_id is None:
        if not wanted:
            ctx.store.save_pull_state(ctx.pr, state)
            return state
        state = _post(ctx, state, body)
    elif digest != state.summary_hash:
        try:
            ctx.repo.update_issue_comment(state.summary_id, body)
        except GitHubError as exc:
            if exc.status != 404:
                raise
            state = _post(ctx, replace(state, summary_id=None), body)  # it was deleted: post it again
    state = replace(state, summary_hash=digest)
    ctx.store.save_pull_state(ctx.pr, state)
    return state


def _post(ctx: Context, state: PullState, body: str) -> PullState:
    """`state` with a new summary comment of `body`: marked before the call, its id kept after."""

    def send() -> PullState:
        created = int(ctx.repo.create_issue_comment(ctx.pull.number, body)["id"])
        return replace(state, summary_id=created, summary_pending=False)

    return write(_SummarySlot(ctx, state), send)


class _SummarySlot(PullSlot):
    """The summary comment (once.Slot), kept in the PullState: one sent unanswered
    (`summary_pending`, no id yet) is found by its marker (`adopt_summary`)."""

    def pending(self) -> bool:
        return self.state.summary_id is None and self.state.summary_pending

    def marked(self, sent: bool) -> PullState:
        return replace(self.state, summary_pending=sent)

    def find(self) -> PullState:
        return adopt_summary(self.ctx, self.state)


def adopt_summary(ctx: Context, state: PullState) -> PullState:
    """`state` with docs-sync's summary comment as GitHub has it (id, and the hash of its body, so
    the same words are not sent again); as it was when there is none."""
    found = find_summary(ctx.repo, ctx.pull.number, ctx.settings.app_id)
    if found is None:
        return replace(state, summary_pending=False)
    digest = hashlib.sha1(str(found.get("body") or "").encode()).hexdigest()
    return replace(state, summary_id=int(found["id"]), summary_hash=digest, summary_pending=False)


def find_summary(repo: Repo, number: int, app_id: int | None = None) -> IssueComment | None:
    """docs-sync's summary comment on the pull request (a bot's, with the marker, posted by the
    App `app_id` where GitHub says which App posted it), if any."""
    for c in repo.issue_comments(number):
        body = str(c.get("body") or "")
        app = c.get("performed_via_github_app")
        if (
            body.startswith(SUMMARY_MARKER)
            and by_bot(c)
            and (app_id is None or (app.get("id") if app else None) in (None, app_id))
        ):
            return c
    return None
