"""Line-level comparison of two versions of one file."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class LineDiff:
    """Which head lines a change added or rewrote, and where base lines landed at head.

    Lines are 1-based. Built from difflib's opcodes; with autojunk off so that blank lines and
    repeated markdown table rules do not throw the alignment of long files.
    """

    base: tuple[str, ...]
    head: tuple[str, ...]

    @cached_property
    def _opcodes(self) -> list[tuple[str, int, int, int, int]]:
        return difflib.SequenceMatcher(None, self.base, self.head, autojunk=False).get_opcodes()

    @cached_property
    def changed_head_lines(self) -> frozenset[int]:
        out: set[int] = set()
        for tag, _i1, _i2, j1, j2 in self._opcodes:
            if tag in ("replace", "insert"):
                out.update(range(j1 + 1, j2 + 1))
        return frozenset(out)

    @cached_property
    def touched_head_lines(self) -> frozenset[int]:
        """Changed lines plus the head line next to each pure deletion, where a reviewer sees it."""
        out = set(self.changed_head_lines)
        for tag, _i1, _i2, j1, _j2 in self._opcodes:
            if tag == "delete":
                out.add(max(1, min(j1 + 1, len(self.head))) if self.head else 1)
        return frozenset(out)

    def head_line_for(self, base_line: int) -> int:
        """The head line that a base line became, or the nearest line of the change that replaced it."""
        i = base_line - 1
        for tag, i1, i2, j1, j2 in self._opcodes:
            if i1 <= i < i2:
                if tag == "equal":
                    return j1 + (i - i1) + 1
                if j2 > j1:
                    return min(j1 + (i - i1), j2 - 1) + 1
                return max(1, min(j1 + 1, len(self.head)))
        return max(1, len(self.head))


def line_diff(base_text: str | None, head_text: str | None) -> LineDiff:
    return LineDiff(
        tuple((base_text or "").splitlines()),
        tuple((head_text or "").splitlines()),
    )
