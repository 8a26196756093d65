"""Rewriting a line of a reStructuredText page in place: a table's columns keep their widths, a
title's adornment grows with it (bot/core/check/findings.py suggests through it)."""

from __future__ import annotations

from collections.abc import Callable

from bot.core.rst import GRID_BORDER, RUN, SIMPLE_BORDER, indent_of, is_adornment


def refit(
    lines: list[str] | tuple[str, ...], line: int, fix: Callable[[str], str]
) -> tuple[int, int, str] | None:
    """The rewrite of `line` (1-based) by `fix` that keeps the page valid reStructuredText, as
    (first line, last line, their new text): a grid or simple table's columns keep their widths
    (each cell rewritten on its own, padded back), a title's adornment grows with it. None when
    the new text does not fit its cell: no suggestion beats a broken table."""
    text = lines[line - 1]
    fixed = fix(text)
    if fixed == text:
        return None
    grid = _grid_columns(lines, line)
    if grid is not None:
        return _refit_cells(text, grid, fix, line)
    simple = _simple_columns(lines, line)
    if simple is not None:
        return _refit_cells(text, simple, fix, line)
    under = lines[line] if line < len(lines) else ""
    if text.strip() and is_adornment(under) and indent_of(text) == 0:
        width = max(len(under.rstrip()), len(fixed.rstrip()))
        over = lines[line - 2] if line >= 2 else ""
        if is_adornment(over) and over.rstrip() == under.rstrip():
            bar = under[0] * width
            return line - 1, line + 1, f"{bar}\n{fixed}\n{bar}"
        return line, line + 1, f"{fixed}\n{under[0] * width}"
    return line, line, fixed


def _refit_cells(
    text: str, bounds: list[tuple[int, int, int]], fix: Callable[[str], str], line: int
) -> tuple[int, int, str] | None:
    """`text` with each cell (`bounds`: its columns and how wide its text may be; the last one
    open) rewritten by `fix` and padded back; None when a rewritten cell outgrows its room."""
    out = []
    done = 0
    for a, b, room in bounds:
        out.append(text[done:a])  # a grid's bar between cells
        new = fix(text[a:b])
        if b >= len(text):  # the row's last cell, open to the right
            out.append(new)
            done = len(text)
            break
        content = new.rstrip()
        if len(content) > room:
            return None
        out.append(content.ljust(b - a))
        done = b
    out.append(text[done:])
    return line, line, "".join(out)


def _grid_columns(lines: list[str] | tuple[str, ...], line: int) -> list[tuple[int, int, int]] | None:
    """The cells of a grid table's row line (between its bars), from the border above it."""
    text = lines[line - 1]
    if not text.lstrip().startswith("|"):
        return None
    k = line - 2
    while k >= 0 and lines[k].lstrip().startswith("|"):
        k -= 1
    if k < 0 or not GRID_BORDER.fullmatch(lines[k].strip()):
        return None
    edges = [p for p, c in enumerate(lines[k]) if c == "+"]
    if any(p >= len(text) or text[p] != "|" for p in edges):
        return None
    return [(a + 1, b, b - a - 2) for a, b in zip(edges, edges[1:], strict=False)]


def _simple_columns(lines: list[str] | tuple[str, ...], line: int) -> list[tuple[int, int, int]] | None:
    """The columns of a simple table's row line: each from its border's run of `=` to the next
    run (the last one open), and None when the line is in no simple table."""
    k = line - 2
    while k >= 0 and lines[k].strip() and not SIMPLE_BORDER.fullmatch(lines[k].strip()):
        k -= 1
    if k < 0 or not lines[k].strip():
        return None
    runs = [(m.start(), m.end()) for m in RUN.finditer(lines[k])]
    open_end = 10**9
    return [
        (a, runs[n + 1][0] if n + 1 < len(runs) else open_end, b - a if n + 1 < len(runs) else open_end)
        for n, (a, b) in enumerate(runs)
    ]
