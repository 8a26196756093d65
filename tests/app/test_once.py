"""The protocol every GitHub creation goes through: marked pending before the call, its result
kept after; a retry that finds the mark looks on GitHub before writing again."""

from __future__ import annotations

import pytest

from bot.app.github.once import recover, write


class Slot:
    """A slot kept in memory, and a GitHub that holds what was written."""

    def __init__(self) -> None:
        self.kept: int | None = None
        self.marked = False
        self.on_github: list[int] = []
        self.looked = 0

    def result(self) -> int | None:
        return self.kept

    def pending(self) -> bool:
        return self.marked

    def mark(self) -> None:
        self.marked = True

    def keep(self, result: int) -> None:
        self.kept, self.marked = result, False

    def find(self) -> int | None:
        self.looked += 1
        return self.on_github[-1] if self.on_github else None

    def forget(self) -> None:
        self.marked = False

    def send(self, lose_the_answer: bool = False) -> int:
        assert self.marked, "sent before it was marked"
        self.on_github.append(100 + len(self.on_github))
        if lose_the_answer:
            raise TimeoutError("GitHub did the write; its answer never came")
        return self.on_github[-1]


def test_a_write_is_marked_before_the_call_and_kept_after():
    slot = Slot()
    assert recover(slot) is None and slot.looked == 0  # nothing sent: nothing to look for
    assert write(slot, slot.send) == 100
    assert (slot.kept, slot.marked) == (100, False)
    assert recover(slot) == 100 and slot.looked == 0  # kept: GitHub is not asked


def test_a_write_whose_answer_was_lost_is_found_not_made_again():
    slot = Slot()
    with pytest.raises(TimeoutError):
        write(slot, lambda: slot.send(lose_the_answer=True))
    assert slot.marked and slot.kept is None
    assert recover(slot) == 100 and (slot.kept, slot.marked, slot.looked) == (100, False, 1)
    assert slot.on_github == [100]


def test_a_write_that_never_reached_github_is_forgotten_and_made_again():
    slot = Slot()

    def refused() -> int:
        raise ConnectionError("GitHub never saw it")

    with pytest.raises(ConnectionError):
        write(slot, refused)
    assert recover(slot) is None and not slot.marked and slot.looked == 1
    assert write(slot, slot.send) == 100 and slot.on_github == [100]
