"""The once.Slot of a write that the pull request's `PullState` keeps: its review (review.py) and its
summary comment (summary.py). The state is saved whenever it changes; each kind of write says which
field marks it sent unanswered and how to look for it on GitHub."""

from __future__ import annotations

from abc import ABC, abstractmethod

from bot.app.github.context import Context
from bot.app.queue.store import PullState


class PullSlot(ABC):
    """A write kept in `state`, saved in the store as the pull request's PullState. A subclass
    completes the once.Slot: `marked`, `pending` and `find`."""

    def __init__(self, ctx: Context, state: PullState):
        self.ctx, self.state = ctx, state

    def result(self) -> PullState:
        return self.state

    def keep(self, state: PullState) -> None:
        self.state = state
        self.ctx.store.save_pull_state(self.ctx.pr, state)

    def mark(self) -> None:
        self.keep(self.marked(True))

    def forget(self) -> None:
        self.keep(self.marked(False))

    @abstractmethod
    def marked(self, sent: bool) -> PullState:
        """The state with the write's mark set (`sent`) or cleared."""
