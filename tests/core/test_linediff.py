"""The line alignment the check uses to tie findings to changed lines."""

from __future__ import annotations

import random

from bot.core.linediff import LineDiff, line_diff


def rebuild(d: LineDiff) -> list[str]:
    """Apply the opcodes to base: must give head back exactly."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in d._opcodes:
        assert tag in ("equal", "replace", "delete", "insert")
        if tag == "equal":
            assert d.base[i1:i2] == d.head[j1:j2]
            out.extend(d.base[i1:i2])
        else:
            out.extend(d.head[j1:j2])
    return out


def test_opcodes_rebuild_head_on_random_edits():
    rng = random.Random(7)
    vocab = ["group.add_argument(", "    help=(", ")", "", "x = 1", "def f():", "    return 2"]
    for _ in range(300):
        base = [
            rng.choice(vocab) if rng.random() < 0.6 else f"line {rng.randrange(40)}"
            for _ in range(rng.randrange(60))
        ]
        head = list(base)
        for _ in range(rng.randrange(6)):
            op = rng.randrange(3)
            pos = rng.randrange(len(head) + 1)
            if op == 0:
                head.insert(pos, f"new {rng.randrange(9)}")
            elif op == 1 and head:
                head.pop(min(pos, len(head) - 1))
            elif head:
                head[min(pos, len(head) - 1)] = rng.choice(vocab)
        d = line_diff("\n".join(base), "\n".join(head))
        assert rebuild(d) == list(d.head)


def test_changed_lines_and_mapping_in_a_repetitive_file():
    block = [
        "    group.add_argument(",
        '        "--x",',
        "        help=(",
        '            "text"',
        "        ),",
        "    )",
    ]
    base = ["def add(group):"] + block * 50 + ["    return group"]
    head = list(base)
    head[1 + 6 * 20 + 1] = '        "--renamed",'
    d = line_diff("\n".join(base), "\n".join(head))
    assert d.changed_head_lines == {1 + 6 * 20 + 2}
    assert d.head_line_for(len(base)) == len(head)


def test_deletion_is_touched_at_the_next_head_line():
    d = line_diff("a\nb\nc\nd", "a\nd")
    assert d.changed_head_lines == frozenset()
    assert d.touched_head_lines == {2}
    assert d.head_line_for(3) == 2
    assert d.head_line_for(4) == 2


def test_missing_sides():
    assert line_diff(None, "a\nb").changed_head_lines == {1, 2}
    assert line_diff("a\nb", None).changed_head_lines == frozenset()
