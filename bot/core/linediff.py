"""Line-level comparison of two versions of one file."""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

Block = tuple[int, int, int]  # (base start, head start, length), 0-based, as difflib's


@dataclass(frozen=True)
class LineDiff:
    """Which head lines a change added or rewrote, and where base lines landed at head.

    Lines are 1-based. The alignment anchors on lines that occur exactly once on each side
    (patience diff) and runs difflib only in the gaps between anchors: an argparse module
    repeats `group.add_argument(` hundreds of times, which makes a plain SequenceMatcher slow
    and its alignment arbitrary.
    """

    base: tuple[str, ...]
    head: tuple[str, ...]

    @cached_property
    def _opcodes(self) -> list[tuple[str, int, int, int, int]]:
        blocks = _matching_blocks(self.base, self.head)
        return _opcodes(blocks, len(self.base), len(self.head))

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

    def rewritten(self) -> list[tuple[str, str]]:
        """(base line, head line) texts of the lines rewritten in place: the n-th removed line of
        a replaced block beside the n-th added one."""
        return [
            (self.base[i1 + k], self.head[j1 + k])
            for tag, i1, i2, j1, j2 in self._opcodes
            if tag == "replace"
            for k in range(min(i2 - i1, j2 - j1))
        ]

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


def _matching_blocks(a: tuple[str, ...], b: tuple[str, ...]) -> list[Block]:
    out: list[Block] = []
    _match(a, 0, len(a), b, 0, len(b), out)
    return out


def _match(
    a: tuple[str, ...], alo: int, ahi: int, b: tuple[str, ...], blo: int, bhi: int, out: list[Block]
) -> None:
    # Equal lines at both ends match as they are.
    head = 0
    while alo + head < ahi and blo + head < bhi and a[alo + head] == b[blo + head]:
        head += 1
    if head:
        out.append((alo, blo, head))
        alo, blo = alo + head, blo + head
    tail = 0
    while alo < ahi - tail and blo < bhi - tail and a[ahi - tail - 1] == b[bhi - tail - 1]:
        tail += 1
    ahi_core, bhi_core = ahi - tail, bhi - tail

    anchors = _unique_common(a, alo, ahi_core, b, blo, bhi_core)
    if anchors:
        i, j = alo, blo
        for ai, bj in anchors:
            _match(a, i, ai, b, j, bj, out)
            out.append((ai, bj, 1))
            i, j = ai + 1, bj + 1
        _match(a, i, ahi_core, b, j, bhi_core, out)
    elif alo < ahi_core and blo < bhi_core:
        matcher = difflib.SequenceMatcher(None, a[alo:ahi_core], b[blo:bhi_core], autojunk=False)
        out.extend((alo + x, blo + y, n) for x, y, n in matcher.get_matching_blocks() if n)
    if tail:
        out.append((ahi_core, bhi_core, tail))


def _unique_common(
    a: tuple[str, ...], alo: int, ahi: int, b: tuple[str, ...], blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Lines occurring once in each range, paired, longest run in order (patience sorting)."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if count_a[a[i]] == 1 and a[i] in where_b]
    # Longest increasing subsequence of head positions, in base order.
    tails: list[int] = []
    tail_idx: list[int] = []
    prev: list[int] = [-1] * len(pairs)
    for k, (_i, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_idx.append(k)
        else:
            tails[pos] = j
            tail_idx[pos] = k
        prev[k] = tail_idx[pos - 1] if pos else -1
    chain: list[tuple[int, int]] = []
    k = tail_idx[-1] if tail_idx else -1
    while k != -1:
        chain.append(pairs[k])
        k = prev[k]
    return chain[::-1]


def _opcodes(blocks: list[Block], len_a: int, len_b: int) -> list[tuple[str, int, int, int, int]]:
    """difflib-style opcodes from matching blocks (sorted, non-overlapping)."""
    ops: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for ai, bj, n in sorted(blocks) + [(len_a, len_b, 0)]:
        tag = "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else ""
        if tag:
            ops.append((tag, i, ai, j, bj))
        if n:
            if ops and ops[-1][0] == "equal" and ops[-1][2] == ai and ops[-1][4] == bj:
                ops[-1] = ("equal", ops[-1][1], ai + n, ops[-1][3], bj + n)
            else:
                ops.append(("equal", ai, ai + n, bj, bj + n))
        i, j = ai + n, bj + n
    return ops
