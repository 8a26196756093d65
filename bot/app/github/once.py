"""Every GitHub write that creates something (the check run, the review, the summary comment, a
command's reply) is made once, however often its job runs: through `write` and `recover`.

A job can stop anywhere (a crash, a deploy, a timeout) and runs again, and GitHub can do a
write whose answer never arrives (a timeout, a 502 after the work was done). So a creation is

    mark it pending in the store -> the call -> its result kept, the mark cleared   (`write`)

and a job that finds the mark cannot know whether GitHub did the work: it looks on GitHub
first, by the id sent with the write (a check run's `external_id`) or the hidden marker in its
body, and keeps what it finds (`recover`); only when nothing is there is it written again.

A `Slot` is where the store keeps one such write; each kind of write has its own (checkruns.py,
review.py, summary.py, bot.app.jobs.commands). Edits (an update of a check run or a comment)
and reactions need none: sent twice, they leave what one leaves. tests/app/test_once.py holds
every call of a `Repo` method that POSTs to `write`, but for the few listed as safe to repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

R = TypeVar("R")


class Slot(Protocol[R]):
    """Where the store keeps one write: its result, and the mark that it was sent."""

    def result(self) -> R | None:
        """What the store holds as written (None: nothing yet)."""
        ...

    def pending(self) -> bool:
        """Was the write sent without its answer being seen?"""
        ...

    def mark(self) -> None:
        """Say in the store, before the call, that the write is being sent."""
        ...

    def keep(self, result: R) -> None:
        """Keep the write's result (its answer, or what was found on GitHub); the mark goes."""
        ...

    def find(self) -> R | None:
        """What an unanswered write left on GitHub, if anything."""
        ...

    def forget(self) -> None:
        """Nothing was found: the mark goes, so the next write is a first one."""
        ...


def recover(slot: Slot[R]) -> R | None:
    """The slot's result; when a write was sent unanswered, what it left on GitHub, kept."""
    if slot.pending():
        found = slot.find()
        if found is not None:
            slot.keep(found)
            return found
        slot.forget()
    return slot.result()


def write(slot: Slot[R], send: Callable[[], R]) -> R:
    """Make the write `send` does: marked before, its result kept after."""
    slot.mark()
    result = send()
    slot.keep(result)
    return result
