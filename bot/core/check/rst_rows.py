"""The rows of a reStructuredText table of options, as a new row is written into one: a
`.. list-table::` (a row `* - key`, each further cell `  - text` under it) or a grid table
(cells between `|` bars, rows between `+---+` borders).

Only tables whose every cell is one line are written into: a row that spans lines is another
table's format, and a new row that does not fit a grid column's width would break the table
(no suggestion beats a broken table). What goes in the cells is bot/core/check/new_rows.py's;
this module reads the table's shape and writes the row in its syntax.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core import lazyre

_LIST_TABLE = lazyre.compile(r"(\s*)\.\.\s+list-table::")
_OPTION = lazyre.compile(r"\s*:[\w-]+:")
_HEADER_ROWS = lazyre.compile(r"\s*:header-rows:\s*(\d+)\s*$")
_ROW = lazyre.compile(r"(\s*)\*(\s+)-(\s+)(.*)$")
_CELL = lazyre.compile(r"(\s*)-(\s+)(.*)$")
_BORDER = lazyre.compile(r"\+(?:-+\+)+")
_HEAD_BORDER = lazyre.compile(r"\+(?:=+\+)+")
MAX_TABLE_LINES = 2_000  # lines looked through for a table's start and end


@dataclass(frozen=True)
class Row:
    first: int  # its first line (1-based)
    last: int  # its last line
    cells: tuple[str, ...]  # each cell's text, stripped


@dataclass(frozen=True)
class Table:
    kind: str  # "list" | "grid"
    start: int  # its first line: the directive's, or the top border
    end: int  # its last line
    header: tuple[str, ...]
    rows: tuple[Row, ...]  # the body's rows
    indent: str = ""  # a list-table's row indent (`   `) and its cells' (`     `)
    cell_indent: str = ""
    spacing: tuple[str, str] = (" ", " ")  # what a row writes after `*` and after `-`
    columns: tuple[tuple[int, int], ...] = ()  # a grid's cells: (start, end) offsets between bars

    def row_of(self, line: int) -> int | None:
        return next((i for i, r in enumerate(self.rows) if r.first <= line <= r.last), None)


def table_at(lines: tuple[str, ...], line: int) -> Table | None:
    """The table of options holding `line`, when every cell of it is one line."""
    text = lines[line - 1]
    if text.lstrip().startswith(("|", "+")):
        return _grid(lines, line)
    return _list_table(lines, line)


def in_key_cell(table: Table, line: int, col: int | None) -> bool:
    """Is offset `col` of `line` in the first cell of a body row?"""
    index = table.row_of(line)
    if index is None or col is None:
        return False
    row = table.rows[index]
    if table.kind == "list":
        return line == row.first and col >= len(table.indent) + 2
    return bool(table.columns) and table.columns[0][0] <= col < table.columns[0][1]


def placed(
    table: Table, lines: tuple[str, ...], index: int, after: bool, cells: list[str]
) -> tuple[int, str] | None:
    """(line, its new text) writing a row of `cells` after (or before) body row `index`; None
    when a cell has no place in the table's syntax."""
    row = table.rows[index]
    if table.kind == "list":
        if any("\n" in c for c in cells):
            return None
        star, dash = table.spacing
        new = [f"{table.indent}*{star}-{dash}{cells[0]}".rstrip()]
        new += [f"{table.cell_indent}-{dash}{c}".rstrip() for c in cells[1:]]
        text = "\n".join(new)
        if after:
            return row.last, f"{lines[row.last - 1]}\n{text}"
        return row.first, f"{text}\n{lines[row.first - 1]}"
    border_line = row.last + 1
    border = lines[border_line - 1]
    if not _BORDER.fullmatch(border.strip()):
        return None
    offset = len(border) - len(border.lstrip())
    parts = []
    for (a, b), cell in zip(table.columns, cells, strict=True):
        width = b - a
        if "|" in cell or len(cell) + 2 > width:
            return None  # it does not fit the column: the table would break
        parts.append(f" {cell}".ljust(width))
    text = " " * offset + "|" + "|".join(parts) + "|"
    if after:
        return border_line, f"{border}\n{text}\n{border}"
    return row.first, f"{text}\n{border}\n{lines[row.first - 1]}"


def _list_table(lines: tuple[str, ...], line: int) -> Table | None:
    start = line
    while start > 1 and line - start < MAX_TABLE_LINES:
        start -= 1
        found = _LIST_TABLE.match(lines[start - 1])
        if found is not None:
            break
        text = lines[start - 1]
        if text.strip() and not text.startswith((" ", "\t")):
            return None  # out of any directive's body
    else:
        return None
    base = len(found.group(1))
    i, header_rows = start, 0
    while i < len(lines) and (_OPTION.match(lines[i]) or not lines[i].strip()):
        given = _HEADER_ROWS.match(lines[i])
        header_rows = int(given.group(1)) if given else header_rows
        i += 1
    rows: list[Row] = []
    indent = cell_indent = ""
    spacing = (" ", " ")
    current: list[str] = []
    first = last = 0
    while i < len(lines) and i - start < MAX_TABLE_LINES:
        text = lines[i]
        if text.strip() and len(text) - len(text.lstrip()) <= base:
            break
        row = _ROW.match(text)
        cell = _CELL.match(text)
        if row is not None:
            if current:
                rows.append(Row(first, last, tuple(current)))
            indent, spacing = row.group(1), (row.group(2), row.group(3))
            current, first = [row.group(4).strip()], i + 1
            last = i + 1
        elif cell is not None and current:
            if cell_indent and cell.group(1) != cell_indent:
                return None
            cell_indent = cell.group(1)
            current.append(cell.group(3).strip())
            last = i + 1
        elif text.strip():
            return None  # a cell of more than one line
        i += 1
    if current:
        rows.append(Row(first, last, tuple(current)))
    if header_rows != 1 or len(rows) < 3 or len({len(r.cells) for r in rows}) != 1:
        return None
    end = rows[-1].last
    return Table("list", start, end, rows[0].cells, tuple(rows[1:]), indent, cell_indent, spacing)


def _grid(lines: tuple[str, ...], line: int) -> Table | None:
    def part(n: int) -> bool:
        return lines[n - 1].lstrip().startswith(("|", "+"))

    start = end = line
    while start > 1 and part(start - 1) and line - start < MAX_TABLE_LINES:
        start -= 1
    while end < len(lines) and part(end + 1) and end - line < MAX_TABLE_LINES:
        end += 1
    top = lines[start - 1]
    offset = len(top) - len(top.lstrip())
    if not _BORDER.fullmatch(top.strip()):
        return None
    bars = [offset + i for i, c in enumerate(top.strip()) if c == "+"]
    columns = tuple((a + 1, b) for a, b in zip(bars, bars[1:], strict=False))
    rows: list[Row] = []
    header: tuple[str, ...] | None = None
    n = start + 1
    while n <= end:
        text = lines[n - 1]
        stripped = text.strip()
        if _HEAD_BORDER.fullmatch(stripped):
            if header is not None or len(rows) != 1:
                return None
            header, rows = rows[0].cells, []
        elif not _BORDER.fullmatch(stripped):
            below = lines[n].strip() if n < len(lines) else ""
            if [i for i, c in enumerate(text) if c == "|"] != bars or not (
                _BORDER.fullmatch(below) or _HEAD_BORDER.fullmatch(below)
            ):
                return None  # a row of more than one line, or cells spanning columns
            rows.append(Row(n, n, tuple(text[a:b].strip() for a, b in columns)))
        n += 1
    if header is None or len(rows) < 2:
        return None
    return Table("grid", start, end, header, tuple(rows), columns=columns)
