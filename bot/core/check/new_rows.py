"""The line a new flag or value gets on a page that lists its siblings: a table row or a bullet
in the page's own format, beside the sibling declared next to it in the code.

A list of siblings is a table (pipes at both ends of every row) whose first cell, or a bullet
list whose first code span, cites two siblings at least. The new line copies what the siblings'
lines agree on: the column count and order, the key in backticks or not (with its default
written after it when every sibling writes its own there), the default column's style for its
kind of default (`code`, plain, a checkmark, a switch's on/off, a missing default's dash), a Type
column's words, the bullet's marker, bold and separator, and the description's sentence case
and final period. A cell the code has nothing for (a backend's class) is left blank to fill.
The description is the code's own words (`help=`, a field's comment) on one line, with the
characters a table or MDX would read as syntax escaped.

The new line goes right after the sibling declared just before it, or else right before the one
declared just after it, and only when that sibling is in such a list: a neighbour two
declarations away says nothing about where a flag belongs. No list, two lists holding the
neighbour equally, rows of uneven width or siblings written in mixed styles give no line: no
suggestion beats a wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bot.core import lazyre
from bot.core.check import rst_rows
from bot.core.doclines import normalize_default, paragraph
from bot.core.page import DocPage, Ref, page_format

_DEFAULT_HEADER = lazyre.compile(r"\s*defaults?(?: value)?\s*", re.IGNORECASE)
_MARKS = ("✅", "✓", "✔", "☑", "yes", "Yes")
_DELIMITER = lazyre.compile(r"\|?(?:\s*:?-+:?\s*\|)*\s*:?-+:?\s*\|?")
_CODE = lazyre.compile(r"`([^`]+)`")
_BULLET = lazyre.compile(
    r"(?P<indent>[ \t]*)(?P<marker>[-*+])(?P<gap>[ \t]+)(?P<open>\*\*|\[)?`(?P<code>[^`]+)`"
    r"(?P<close>\*\*|\]\([^)\s]*\))?(?P<sep>[ \t]*(?:[:—–]|[ \t]-)[ \t]*|[ \t]+|$)(?P<rest>.*)"
)
_BULLET_START = lazyre.compile(r"[ \t]*[-*+][ \t]")


@dataclass(frozen=True)
class Sibling:
    """A fact declared next to the new one, as the page may cite it."""

    tokens: tuple[str, ...]  # `--x` and its `--no-x`; a value
    default: str | None = None  # its default as the code writes it, to learn the page's style
    type: str | None = None  # its type (`float`), to learn how a Type column writes types
    switch: bool = False  # a boolean switch (its type cell says nothing of a value's type)


@dataclass(frozen=True)
class Entry:
    """What the new line says, from the code."""

    token: str
    description: str = ""  # the code's own words (help, comment); "" when it has none
    default: str | None = None  # the flag's default as the code writes it; None when not known
    switch: bool = False  # a boolean switch: no value is written after it
    on: bool | None = None  # for a checkmark column: is it on by default (None: not known)
    type: str | None = None  # `float`, `int`, `str`: for a Type column


@dataclass(frozen=True)
class NewLine:
    """A line to write beside an existing one of a list or table."""

    line: int  # the page line the new one is written beside
    replacement: str  # the new text of that line: it and the new line, in page order


@dataclass
class _List:
    """A table or bullet list of a page that cites a parser's flags."""

    kind: str  # "table" | "bullets" | "rst" (a reStructuredText list-table or grid table)
    start: int  # first line of the table or list
    end: int  # last line
    items: dict[int, list[int]] = field(default_factory=dict)  # sibling index -> its lines
    rst: rst_rows.Table | None = None


class Lists:
    """The tables and bullet lists of a page whose key position cites two of the siblings at least,
    found once for a parser's siblings (a new flag's questions about them are then set lookups,
    not a pass over the page: a change adding 3,000 flags asks 3,000 of them)."""

    def __init__(self, doc: DocPage, refs: Sequence[Ref], siblings: Sequence[Sibling]):
        self._found = _lists(doc, refs, siblings)

    def together(self, a: int, b: int) -> bool:
        """Does one list hold both siblings[a] and siblings[b]?"""
        return any(a in found.items and b in found.items for found in self._found)

    def holds(self, *indices: int) -> bool:
        """Does a list hold any of these siblings?"""
        return any(i in found.items for found in self._found for i in indices)


def new_line(
    doc: DocPage, refs: Sequence[Ref], siblings: Sequence[Sibling], at: int | None, entry: Entry
) -> NewLine | None:
    """The new entry's line, declared between siblings[at - 1] and siblings[at] (at None: in no
    known order, so last in the list holding most siblings); None when the page does not say
    how to write it."""
    lists = _lists(doc, refs, siblings)
    if at is None:
        if not lists:
            return None
        last = max(lists, key=lambda found: len(found.items))
        at = 1 + max(last.items, key=lambda i: max(last.items[i]))
    for index, after in ((at - 1, True), (at, False)):
        holding = [found for found in lists if index in found.items]
        if not holding:
            continue
        holding.sort(key=lambda found: -len(found.items))
        if len(holding) > 1 and len(holding[0].items) == len(holding[1].items):
            return None  # two lists hold the neighbour equally
        found = holding[0]
        if found.rst is not None:
            return _rst_row(found.rst, doc, found, siblings, entry, index, after)
        if found.kind == "table":
            text = _table_row(doc, found, siblings, entry)
            line = max(found.items[index]) if after else min(found.items[index])
        else:
            text = _bullet(doc, found, siblings, entry)
            line = _item_end(doc, max(found.items[index])) if after else min(found.items[index])
        if text is None:
            return None
        old = doc.lines[line - 1]
        return NewLine(line, f"{old}\n{text}" if after else f"{text}\n{old}")
    return None


def in_default_column(doc: DocPage, line: int, col: int | None) -> bool:
    """Is offset `col` of `line` in a table's Default column (its header `Default`)?"""
    text = doc.lines[line - 1]
    if col is None or not text.lstrip().startswith("|"):
        return False
    start, _ = _table_bounds(doc, line)
    header = _cells(doc.lines[start - 1])
    pipes = _pipes(text)
    index = sum(1 for p in pipes if p < col) - 1
    return header is not None and 0 < index < len(header) and bool(_DEFAULT_HEADER.fullmatch(header[index]))


def type_cell(doc: DocPage, line: int) -> str | None:
    """The cell of `line` under its table's `Type` header, when the table has one."""
    if not doc.lines[line - 1].lstrip().startswith("|"):
        return None
    start, _ = _table_bounds(doc, line)
    header, row = _cells(doc.lines[start - 1]), _cells(doc.lines[line - 1])
    if header is None or row is None or len(row) != len(header):
        return None
    index = next((i for i, h in enumerate(header) if h.strip().lower() == "type"), None)
    return row[index] if index is not None else None


def one_line(text: str, default: str | None = None) -> str:
    """A help text or comment on one line: argparse's `%(default)s` filled in, whitespace
    collapsed."""
    if default is not None:
        text = text.replace("%(default)s", default)
    return " ".join(text.replace("%%", "%").split())


# What a table cell, markdown or MDX would read as syntax in a description: `|` ends a cell,
# `<` opens a tag, `{` an MDX expression. Already escaped ones stay as they are.
_PROSE = lazyre.compile(r"(?<!\\)([<{}])")
_PROSE_CELL = lazyre.compile(r"(?<!\\)([|<{}])")
_PIPE = lazyre.compile(r"(?<!\\)\|")
_SPAN = lazyre.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


def escaped(text: str, *, cell: bool) -> str:
    """`text` safe in a table cell (`cell`) or a bullet: outside code spans `<`, `{` and `}`
    escaped (markdown and MDX read tags and expressions there); in a cell every `|` escaped,
    code spans too (GFM splits cells on them everywhere and drops the backslash)."""
    out = []
    pos = 0
    for m in _SPAN.finditer(text):
        out.append(_escape_prose(text[pos : m.start()], cell))
        out.append(_PIPE.sub(r"\\|", m.group(0)) if cell else m.group(0))
        pos = m.end()
    out.append(_escape_prose(text[pos:], cell))
    return "".join(out)


def _escape_prose(text: str, cell: bool) -> str:
    return (_PROSE_CELL if cell else _PROSE).sub(r"\\\1", text)


# --- finding the lists -------------------------------------------------------------------------


def _lists(doc: DocPage, refs: Sequence[Ref], siblings: Sequence[Sibling]) -> list[_List]:
    """The tables and bullet lists whose key position cites two siblings at least."""
    index = {token: i for i, s in enumerate(siblings) for token in s.tokens}
    found: dict[tuple[str, int], _List] = {}
    rst = page_format(doc.path) == "rst"
    tables: dict[int, rst_rows.Table | None] = {}  # a line's table, read once per table
    for ref in refs:
        i = index.get(ref.token)
        if i is None:
            continue
        line = doc.lines[ref.line - 1]
        if rst:
            if ref.where != "table" or ref.row is None:
                continue
            table = tables[ref.line] if ref.line in tables else rst_rows.table_at(doc.lines, ref.line)
            if table is None or not rst_rows.in_key_cell(table, ref.line, ref.col):
                continue
            for n in range(table.start, table.end + 1):
                tables[n] = table
            listed = found.setdefault(("rst", table.start), _List("rst", table.start, table.end, rst=table))
            listed.items.setdefault(i, []).append(ref.line)
            continue
        if ref.where == "table" and ref.row is not None and _first_in_first_cell(doc, ref, line):
            start, end = _table_bounds(doc, ref.line)
            kind = "table"
        elif ref.where == "inline" and _bullet_key(line, ref):
            start, end = paragraph(doc, ref.line)  # the run of bullets holding it
            kind = "bullets"
        else:
            continue
        entry = found.setdefault((kind, start), _List(kind, start, end))
        entry.items.setdefault(i, []).append(ref.line)
    return [f for f in found.values() if len(f.items) >= 2]


def _first_in_first_cell(doc: DocPage, ref: Ref, line: str) -> bool:
    stripped = line.lstrip()
    if not stripped.startswith("|") or ref.col is None:
        return False
    lo = len(line) - len(stripped) + 1
    pipes = _pipes(line)
    hi = pipes[1] if len(pipes) > 1 else len(line)
    if not lo <= ref.col < hi:
        return False
    earlier = [r for r in doc.refs_on(ref.line) if r.col is not None and lo <= r.col < ref.col]
    return not earlier


def _bullet_key(line: str, ref: Ref) -> bool:
    m = _BULLET.match(line)
    if m is None or ref.col is None:
        return False
    return m.start("code") <= ref.col < m.end("code") and m.group("code").split()[0] == ref.token


def _table_bounds(doc: DocPage, line: int) -> tuple[int, int]:
    start = end = line
    while start > 1 and doc.lines[start - 2].lstrip().startswith("|"):
        start -= 1
    while end < len(doc.lines) and doc.lines[end].lstrip().startswith("|"):
        end += 1
    return start, end


def _item_end(doc: DocPage, first: int) -> int:
    """The last line of the bullet starting at `first`: its continuation lines, up to the next
    bullet, a blank line or a line less indented."""
    indent = len(doc.lines[first - 1]) - len(doc.lines[first - 1].lstrip())
    end = first
    while end < len(doc.lines):
        nxt = doc.lines[end]
        if not nxt.strip() or _BULLET_START.match(nxt) or len(nxt) - len(nxt.lstrip()) <= indent:
            break
        end += 1
    return end


# --- tables ------------------------------------------------------------------------------------


def _pipes(line: str) -> list[int]:
    """Offsets of the unescaped pipes of a table row (GFM splits cells on them, code spans too)."""
    return [i for i, c in enumerate(line) if c == "|" and (i == 0 or line[i - 1] != "\\")]


def _cells(line: str) -> list[str] | None:
    """The cells of a row written with pipes at both ends; None for any other row."""
    stripped = line.strip()
    if (
        len(stripped) < 2
        or not stripped.startswith("|")
        or not stripped.endswith("|")
        or stripped[-2] == "\\"
    ):
        return None
    pipes = _pipes(stripped)
    return [stripped[a + 1 : b] for a, b in zip(pipes, pipes[1:], strict=False)]


def _table_row(doc: DocPage, table: _List, siblings: Sequence[Sibling], entry: Entry) -> str | None:
    rows = [_cells(line) for line in doc.lines[table.start - 1 : table.end]]
    if (
        len(rows) < 3
        or any(r is None for r in rows)
        or not _DELIMITER.fullmatch(doc.lines[table.start].strip())
    ):
        return None
    header = rows[0]
    assert header is not None
    width = len(header)
    if any(len(r) != width for r in rows if r is not None):
        return None  # rows of uneven width: not a table whose format is clear
    own = {i: rows[max(lines) - table.start] for i, lines in table.items.items()}
    sibling_rows = {i: r for i, r in own.items() if r is not None}
    body = [r for r in rows[2:] if r is not None]
    cells = _row_cells(header, sibling_rows, body, siblings, entry)
    if cells is None:
        return None
    # A table whose pipes line up in every row gets its new row padded to the same columns.
    widths = [len(c) for c in header]
    aligned = all([len(c) for c in r] == widths for r in rows if r is not None)
    padded = [(f" {c} " if c else " ").ljust(w if aligned else 0) for c, w in zip(cells, widths, strict=True)]
    return "|" + "|".join(padded) + "|"


def _row_cells(
    header: Sequence[str],
    sibling_rows: Mapping[int, Sequence[str]],
    body: Sequence[Sequence[str]],
    siblings: Sequence[Sibling],
    entry: Entry,
    *,
    cell: bool = True,
) -> list[str] | None:
    """The new row's cells, from the siblings' rows (`sibling_rows`, by sibling index) and every
    body row of the table; None when the table does not say how to write one. `cell`: escape a
    description for a Markdown cell."""
    width = len(header)
    key = _key(entry, [(siblings[i], r[0]) for i, r in sibling_rows.items()])
    if key is None:
        return None
    cells = [""] * width
    cells[0] = key
    default_col = next((i for i, h in enumerate(header) if i and _DEFAULT_HEADER.fullmatch(h)), None)
    if default_col is not None:
        written = [(siblings[i], r[default_col].strip()) for i, r in sibling_rows.items()]
        default = _default_cell(entry, written, [r[default_col].strip() for r in body])
        if default is None:
            return None
        cells[default_col] = default
    type_col = next((i for i, h in enumerate(header) if i and h.strip().lower() == "type"), None)
    if type_col is not None:
        typed = [(siblings[i], r[type_col].strip()) for i, r in sibling_rows.items()]
        switches = [
            r[type_col].strip() for r in body if default_col is not None and _is_onoff(r[default_col])
        ]
        cells[type_col] = _type_cell(entry, typed, switches)
    others = [i for i in range(1, width) if i not in (default_col, type_col)]
    if others and entry.description:
        # The description goes in the column the siblings write most in: their prose.
        prose = max(others, key=lambda c: sum(len(r[c].strip()) for r in sibling_rows.values()))
        text = _sentence(entry.description, [r[prose].strip() for r in sibling_rows.values()])
        cells[prose] = escaped(text, cell=True) if cell else text
    return cells


def _rst_row(
    table: rst_rows.Table,
    doc: DocPage,
    found: _List,
    siblings: Sequence[Sibling],
    entry: Entry,
    index: int,
    after: bool,
) -> NewLine | None:
    """The new row of a reStructuredText table: its cells worked out as a Markdown table's,
    with ``literals`` read as `code` and written back as ``literals``, a plain key escaped."""
    rows = {
        i: table.rows[r] for i, lines in found.items.items() if (r := table.row_of(max(lines))) is not None
    }
    if any(_SINGLE.search(c) for r in table.rows for c in r.cells):
        return None  # `interpreted text` of the page's default role: a style not ours to copy
    sibling_rows = {i: [_RST_CODE.sub(r"`\1`", c) for c in r.cells] for i, r in rows.items()}
    body = [[_RST_CODE.sub(r"`\1`", c) for c in r.cells] for r in table.rows]
    header = list(table.header)
    cells = _row_cells(header, sibling_rows, body, siblings, entry, cell=False)
    if cells is None or index not in rows:
        return None
    cells = [_MD_CODE.sub(r"``\1``", c) for c in cells]
    if cells[0].startswith("-"):
        # A plain key is written as its siblings are, escaped (`\--seed`): a cell starting
        # with a hyphen would be an option list, and `--` an en-dash.
        cells[0] = "\\" + cells[0]
    where = table.rows.index(rows[index])
    written = rst_rows.placed(table, doc.lines, where, after, cells)
    return NewLine(*written) if written is not None else None


_RST_CODE = lazyre.compile(r"``([^`]+)``")
_MD_CODE = lazyre.compile(r"(?<!`)`([^`]+)`(?!`)")
_SINGLE = lazyre.compile(r"(?<![`:\w])`[^`]+`(?![`_])")


def _key(entry: Entry, written: list[tuple[Sibling, str]]) -> str | None:
    """The new key as the siblings write theirs: in backticks or not, with the default after it
    when every sibling that writes a value there writes its own default."""
    spans = [_CODE.search(text) for _, text in written]
    if all(spans):
        ticks = True
    elif not any(spans):
        ticks = False
    else:
        return None
    values: list[bool] = []
    for (sibling, text), span in zip(written, spans, strict=True):
        words = (span.group(1) if span else text).split()
        if len(words) > 1:
            values.append(normalize_default(words[1]) == normalize_default(sibling.default))
    key = entry.token
    if values and all(values) and not entry.switch and entry.default not in (None, "None", ""):
        key = f"{key} {_number(entry.default)}"
    return f"`{key}`" if ticks else key


def _default_cell(entry: Entry, written: list[tuple[Sibling, str]], column: list[str]) -> str | None:
    """The new default as the table writes its kind of default; None when the table does not
    say how (or the code does not say what). `written` pairs the siblings with their cells,
    `column` is every row's cell: a switch's `off` or a missing default's `–` may only show in
    rows of other parsers."""
    styles = {_style(text) for text in column if text}
    if "mark" in styles:  # a checkmark column: only marks and blanks
        if styles != {"mark"} or entry.on is None:
            return None
        return next(text for text in column if text) if entry.on else ""
    default = entry.default
    if default is None:
        return None
    if entry.switch and default in ("True", "False"):
        onoff = [text for text in column if _is_onoff(text)]
        if onoff:
            word, sample = ("on" if default == "True" else "off"), onoff[0]
            return word.upper() if sample.isupper() else word.capitalize() if sample[0].isupper() else word
        kinds = [(s, t) for s, t in written if t and s.default in ("True", "False")]
        return _in_style(default, kinds, styles)
    if default == "None":
        same = [t for s, t in written if t and s.default == "None"]
        if same:
            return same[0]
        nones = [text for text in column if text.strip("`") in _NO_DEFAULT]
        if nones:
            return max(set(nones), key=nones.count)
        return _in_style(default, [], styles)
    kinds = [(s, t) for s, t in written if t and s.default not in (None, "None", "True", "False")]
    return _in_style(_number(default), kinds, styles)


# How a default column says "no default".
_NO_DEFAULT = ("–", "—", "-", "n/a", "N/A", "none", "None", "unset")


def _in_style(value: str, kinds: list[tuple[Sibling, str]], styles: set[str]) -> str | None:
    """`value` in the style of the siblings with the same kind of default (a bool in `false` if
    they spell it so), or of the whole column when it has one style; None when neither says."""
    own = {_style(t) for _, t in kinds}
    if len(own) > 1:
        return None
    style = own.pop() if own else (next(iter(styles)) if styles == {"code"} else None)
    if style == "code":
        shown = [t.strip("`").strip() for _, t in kinds]
        if value in ("True", "False") and shown and all(t.islower() for t in shown):
            value = value.lower()
        return f"`{value}`"
    if style == "plain" and any(normalize_default(t) == normalize_default(s.default) for s, t in kinds):
        return value  # plain cells that are their rows' defaults (not prose like "derived")
    return None


def _number(value: str) -> str:
    """A float as code writes it rather than as Python prints it: `1e-8`, not `1e-08`."""
    return re.sub(r"^(-?\d+(?:\.\d+)?e[+-]?)0+(\d)", r"\1\2", value)


def _is_onoff(text: str) -> bool:
    return text.strip().lower() in ("on", "off")


def _style(text: str) -> str:
    if text in _MARKS:
        return "mark"
    if _is_onoff(text):
        return "onoff"
    if _CODE.fullmatch(text):
        return "code"
    return "plain"


def _type_cell(entry: Entry, typed: list[tuple[Sibling, str]], switches: list[str]) -> str:
    """The new flag's type as the siblings write theirs (`float`, `int`): only when each
    sibling's cell is its own type. A switch takes what the table's on/off rows write (`flag`).
    Blank when the table does not say: a cell left to fill is no wrong one."""
    if entry.switch:
        return switches[0] if switches and len(set(switches)) == 1 else ""
    shown = [(s, t) for s, t in typed if t and s.type and not s.switch]
    if not entry.type or not shown or any(t.strip("`") != s.type for s, t in shown):
        return ""
    ticks = all(t.startswith("`") for _, t in shown)
    return f"`{entry.type}`" if ticks else entry.type


def _sentence(text: str, neighbours: list[str]) -> str:
    """The description in the siblings' sentence case and final period."""
    written = [n for n in neighbours if n]
    if written and all(n[0].isupper() for n in written) and text[0].islower():
        text = text[0].upper() + text[1:]
    if written and all(n.endswith(".") for n in written) and not text.endswith((".", "!", "?")):
        text += "."
    return text


# --- bullets -----------------------------------------------------------------------------------


def _bullet(doc: DocPage, found: _List, siblings: Sequence[Sibling], entry: Entry) -> str | None:
    items = [(i, _BULLET.match(doc.lines[min(lines) - 1])) for i, lines in found.items.items()]
    matches = [(i, m) for i, m in items if m is not None]
    if len(matches) != len(items):
        return None
    shapes = {
        (
            m.group("indent"),
            m.group("marker"),
            m.group("gap"),
            m.group("open") == "**",
            m.group("sep").strip(),
        )
        for _, m in matches
    }
    if len(shapes) != 1:
        return None  # bullets written in mixed styles
    for lines in found.items.values():
        first = min(lines)
        if any(first <= c.line <= _item_end(doc, first) for c in doc.claims):
            return None  # the siblings state their defaults in prose: no format to copy
    indent, marker, gap, bold, sep = shapes.pop()
    m = matches[0][1]
    key = _key(entry, [(siblings[i], f"`{m.group('code')}`") for i, m in matches])
    if key is None:
        return None
    star = "**" if bold else ""
    rests = [_item_text(doc, min(found.items[i]), m.group("rest")) for i, m in matches]
    if not any(rests):
        return f"{indent}{marker}{gap}{star}{key}{star}"
    if not entry.description and not entry.token.startswith("-"):
        # A new choice: the code names it and says nothing about it. Its bullet says what is
        # true (it is one), with nothing after the key that would read as unfinished.
        return f"{indent}{marker}{gap}{star}{key}{star}"
    if not entry.description or not sep:
        # Nothing after the separator reads as unfinished; with no separator the siblings'
        # bullets are sentences (`--x` selects the ...), which a help text does not continue.
        return None
    text = escaped(_sentence(entry.description, rests), cell=False)
    return f"{indent}{marker}{gap}{star}{key}{star}{m.group('sep')}{text}"


def _item_text(doc: DocPage, first: int, rest: str) -> str:
    """A bullet's words after its key, continuation lines included."""
    more = doc.lines[first : _item_end(doc, first)]
    return " ".join([rest.strip(), *(line.strip() for line in more)]).strip()
