"""reStructuredText pages (Sphinx), read into the block tokens markdown-it gives a Markdown page,
with the same line maps, so one walker (bot/core/page.py) reads both formats.

What is read: section titles (underlined, or over- and underlined; levels in the order the page
first uses each adornment), explicit targets (`.. _label:`), paragraphs, bullet, enumerated,
definition, field and option lists, block quotes, the bodies of admonitions, tabs and domain
directives; code as a shell block (`.. code-block:: bash`, `.. code::`, `.. sourcecode::`,
`.. prompt:: bash`, `.. code-tab::`, and `::` literal blocks in `.. highlight::`'s language, a
shell's when none is set); tables (grid, simple and `.. list-table::`); inline literals
(``` ``--flag`` ```) and the roles that cite code (`:option:`, `:class:`, `:func:`, `:meth:`,
`:mod:`, `:attr:`, `:envvar:`, `:file:`, ...), `.. option::` directives, the settings `.. data::`
and `.. confval::` document (their name, and the default after `=` or in a `:value:` or
`:default:` field, bot/core/page.py reading the description's), and options plain text
writes with their hyphen escaped (`\\--no-clobber` in a table's cell). Comments, raw
HTML, math, `toctree` and directives of unknown meaning are skipped: no citation read from
them beats a wrong one.

Why not docutils: its doctree gives no position to an inline node and only approximate lines
to blocks (a literal block's is where it ends), while every citation here must keep its line
and column; and Sphinx's roles and directives are unknown to it without Sphinx. The reader is
a handful of line rules, linear in the page, nesting at most `MAX_DEPTH` deep.

A paragraph's inline markup is read by bot/core/rst_inline.py; a suggestion rewrites a line in
place through bot/core/rst_refit.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

from markdown_it.token import Token

from bot.core.anchors import docutils_id
from bot.core.rst_inline import children

MAX_DEPTH = 16  # nested bodies deeper than this are not read
_PUNCT = r"""!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~"""
_ADORNMENT = re.compile(rf"([{_PUNCT}])\1+\s*")
_TARGET = re.compile(r"\.\.\s+_(`[^`]+`|[^:`][^:]*):(?:\s+(.*))?$")
_DIRECTIVE = re.compile(r"\.\.\s+([A-Za-z][\w:.+-]*)::(?:\s+(.*))?$")
_SUBSTITUTION = re.compile(r"\.\.\s+\|[^|]+\|")
_BULLET = re.compile(r"([-*+\u2022])(\s+|$)")
_ENUMERATED = re.compile(r"(?:\d+|#|[a-zA-Z]|[ivxlcdmIVXLCDM]+)[.)](\s+|$)|\((?:\d+|#|[a-zA-Z])\)(\s+|$)")
_FIELD = re.compile(r":(?![\s:])[^`:]+(?<!\s):(\s+|$)")
_OPTION = r"(?:--?[A-Za-z0-9][\w.-]*(?:[ =](?:<[^>]+>|[A-Za-z_][\w-]*))?)"
_OPTION_LIST = re.compile(rf"({_OPTION}(?:,\s{_OPTION})*)(?:\s\s+|$)")
GRID_BORDER = re.compile(r"\+(?:[-=]+\+)+\s*")
SIMPLE_BORDER = re.compile(r"=+(?: +=+)+\s*")
_OPTION_FIELD = re.compile(r":[\w-]+:")
RUN = re.compile(r"=+")
_ONE_COLUMN = re.compile(r"\s*=+\s*")
_HEADER_ROWS = re.compile(r"\s*:header-rows:\s*(\d+)")
_LIST_ROW = re.compile(r"(\s*)\*\s+-\s+")
_LIST_CELL = re.compile(r"(\s*)(?:\*\s+)?-(\s+|$)")
_REMOVED = re.compile(r"\s*\.\.\s+versionremoved::")

_SHELL = "bash"
_CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "code-tab"}
# Directives whose body is more reStructuredText.
_BODY_DIRECTIVES = frozenset(
    {
        "note",
        "warning",
        "tip",
        "important",
        "caution",
        "danger",
        "error",
        "hint",
        "attention",
        "seealso",
        "admonition",
        "todo",
        "versionadded",
        "versionchanged",
        "deprecated",
        "topic",
        "sidebar",
        "rubric",
        "container",
        "only",
        "tab",
        "tabs",
        "tab-set",
        "tab-item",
        "group-tab",
        "dropdown",
        "card",
        "grid",
        "grid-item",
        "grid-item-card",
        "details",
        "option",
        "cmdoption",
        "describe",
        "program",
        "envvar",
        "function",
        "class",
        "method",
        "attribute",
        "data",
        "module",
        "exception",
        "decorator",
        "py:function",
        "py:class",
        "py:method",
        "py:attribute",
        "py:data",
        "py:module",
        "std:option",
        "std:envvar",
        "figure",
        "hlist",
        "centered",
        "epigraph",
        "highlights",
        "pull-quote",
        "compound",
        "confval",
        "std:confval",
    }
)
# Directives that document one setting, with its default after `=` or in a `:value:` or
# `:default:` field (Sphinx's `.. data:: SITENAME = 'A Blog'`, `.. confval:: x` with `:default:`).
_SETTING_DIRECTIVES = frozenset({"data", "py:data", "confval", "std:confval"})
_SETTING = re.compile(r"([A-Za-z_][\w.]*)(?:\s*=\s*(\S.*?))?\s*$")
_DEFAULT_FIELD = re.compile(r"(\s*:(?:value|default):\s+)(\S.*?)\s*$")


def _claimed(name: str, value: str, pos: int) -> tuple[str, str, int]:
    """A setting's claim of `value` at offset `pos`, inside its literal's backticks if it has them."""
    ticks = len(value) - len(value.lstrip("`"))
    if ticks and value.endswith("`" * ticks) and len(value) > 2 * ticks:
        return name, value[ticks:-ticks], pos + ticks
    return name, value, pos


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def is_adornment(line: str) -> bool:
    return len(line.strip()) >= 2 and _ADORNMENT.fullmatch(line) is not None and line[0] != " "


@dataclass
class Read:
    """A page read: its block tokens and the ids its explicit targets give."""

    tokens: list[Token] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)


class Reader:
    def __init__(self, lines: list[str]):
        self.lines = lines
        self.starts: list[int] = []
        pos = 0
        for line in lines:
            self.starts.append(pos)
            pos += len(line) + 1
        self.out = Read()
        self.styles: list[tuple[str, bool]] = []  # adornments in the order of first use
        self.highlight = _SHELL  # the language of `::` blocks
        self.program: str | None = None  # `.. program::`: whose options the page's options are

    # -- helpers --

    def _tok(self, kind: str, tag: str, nesting: Literal[-1, 0, 1], lo: int, hi: int) -> Token:
        tok = Token(kind, tag, nesting)
        tok.map = [lo, hi]
        self.out.tokens.append(tok)
        return tok

    @contextmanager
    def _element(self, kind: str, tag: str, lo: int, hi: int) -> Iterator[None]:
        """The `kind_open` and `kind_close` tokens of lines lo..hi, around the tokens made inside."""
        self._tok(f"{kind}_open", tag, 1, lo, hi)
        yield
        self._tok(f"{kind}_close", tag, -1, lo, hi)

    def _extent(self, start: int, end: int, indent: int) -> int:
        """The end of the block whose lines after `start` are blank or indented past `indent`."""
        j = start + 1
        while j < end and (not self.lines[j].strip() or indent_of(self.lines[j]) > indent):
            j += 1
        while j > start + 1 and not self.lines[j - 1].strip():
            j -= 1
        return j

    # -- blocks --

    def body(self, start: int, end: int, indent: int, depth: int = 0, first_col: int | None = None) -> None:
        """Read lines[start:end], a body whose text starts at column `indent` (the first line
        at `first_col` when it follows a list marker)."""
        if depth > MAX_DEPTH:
            return
        i = start
        literal_next = False
        while i < end:
            line = self.lines[i]
            if not line.strip():
                i += 1
                continue
            col = first_col if (i == start and first_col is not None) else indent_of(line)
            text = line[col:]
            if col > indent:  # a block quote, or the literal block a `::` announced
                j = i + 1
                while j < end and (not self.lines[j].strip() or indent_of(self.lines[j]) >= col):
                    j += 1
                while j > i + 1 and not self.lines[j - 1].strip():
                    j -= 1
                if literal_next:
                    self._fence(i, j, self.highlight)
                else:
                    self.body(i, j, col, depth + 1)
                literal_next = False
                i = j
                continue
            literal_next = False
            if depth == 0 and indent == 0 and self._title(i, end):
                i += 3 if is_adornment(line) else 2
                continue
            if text.startswith(".. ") or text.rstrip() == "..":
                i = self._explicit(i, end, col, text, depth)
                continue
            if GRID_BORDER.fullmatch(text):
                i = self._grid(i, end, col)
                continue
            if SIMPLE_BORDER.fullmatch(text):
                i = self._simple(i, end, col)
                continue
            if text.startswith(">>>"):
                while i < end and self.lines[i].strip():
                    i += 1
                continue
            marker = _BULLET.match(text) or _ENUMERATED.match(text)
            if marker is None and text.startswith(":"):
                marker = _FIELD.match(text)
            if marker is not None:
                content = col + marker.end()
                j = self._extent(i, end, col)
                if content >= len(line):  # the item's text starts on the next line
                    nxt = next((k for k in range(i + 1, j) if self.lines[k].strip()), None)
                    if nxt is not None:
                        self.body(nxt, j, indent_of(self.lines[nxt]), depth + 1)
                else:
                    self.body(i, j, content, depth + 1, first_col=content)
                i = j
                continue
            option = _OPTION_LIST.match(text) if text.startswith("-") else None
            if option is not None:
                j = self._extent(i, end, col)
                with self._element("paragraph", "p", i, i + 1):
                    self._inline(i, i + 1, col, code=(col, col + len(option.group(1))))
                if j > i + 1:
                    first = next(k for k in range(i + 1, j) if self.lines[k].strip())
                    self.body(first, j, indent_of(self.lines[first]), depth + 1)
                i = j
                continue
            # a paragraph: up to a blank line, a line indented otherwise, or a title under it
            j = i + 1
            while j < end and self.lines[j].strip() and indent_of(self.lines[j]) == col:
                if j + 1 < end and is_adornment(self.lines[j + 1]) and depth == 0:
                    break
                j += 1
            if j < end and self.lines[j].strip() and indent_of(self.lines[j]) > col:
                # a definition list: the term, then its definition indented under it
                with self._element("paragraph", "p", i, j):
                    self._inline(i, j, col, first_col=first_col if i == start else None)
                k = self._extent(j - 1, end, col)
                self.body(j, k, indent_of(self.lines[j]), depth + 1)
                i = k
                continue
            with self._element("paragraph", "p", i, j):
                self._inline(i, j, col, first_col=first_col if i == start else None)
            last = self.lines[j - 1].rstrip()
            literal_next = last.endswith("::") and not _DIRECTIVE.match(last.strip())
            i = j

    def _title(self, i: int, end: int) -> bool:
        lines = self.lines
        line = lines[i]
        if i > 0 and lines[i - 1].strip() and not is_adornment(lines[i - 1]):
            return False
        over = is_adornment(line)
        if over:
            if i + 2 >= end or not lines[i + 1].strip() or lines[i + 2].rstrip() != line.rstrip():
                return False
            at, style = i + 1, (line[0], True)
        else:
            if i + 1 >= end or not is_adornment(lines[i + 1]) or indent_of(line) > 0:
                return False
            under = lines[i + 1].rstrip()
            if len(under) < min(len(line.rstrip()), 4):
                return False
            at, style = i, (under[0], False)
        if style not in self.styles:
            self.styles.append(style)
        level = self.styles.index(style) + 1
        title = lines[at]
        with self._element("heading", f"h{level}", at, at + 1):
            self._inline(at, at + 1, indent_of(title))
        return True

    def _explicit(self, i: int, end: int, col: int, text: str, depth: int) -> int:
        """A target, directive, substitution or comment starting at line i; the line after it."""
        j = self._extent(i, end, col)
        target = _TARGET.match(text)
        if target is not None:
            # `.. _label:` alone marks a place; with a URL after it (or under it) it is a link
            external = (target.group(2) or "").strip() or any(self.lines[k].strip() for k in range(i + 1, j))
            if not external:
                self.out.anchors.add(docutils_id(target.group(1).strip("`")))
            return j
        directive = _DIRECTIVE.match(text)
        if directive is None or _SUBSTITUTION.match(text):
            return j  # a comment (docs-sync's own among them) or a substitution
        name, args = directive.group(1).lower(), (directive.group(2) or "").strip()
        content = self._content(i + 1, j)
        if name in _CODE_DIRECTIVES:
            lang = args.split()[0].lower() if args else self.highlight
            if content is not None:
                self._fence(content, j, lang)
        elif name == "prompt":
            words = args.split()
            lang = words[0].lower() if words else _SHELL
            if content is not None:
                self._fence(content, j, "console" if "auto" in words[1:] else lang)
        elif name == "program":
            self.program = args.split()[0] if args else None
        elif name == "highlight":
            self.highlight = args.split()[0].lower() if args else self.highlight
        elif name == "literalinclude" and args:
            self._link(i, args.split()[0])
        elif name == "list-table":
            if content is not None:
                self._list_table(i + 1, content, j)
        elif name in _BODY_DIRECTIVES:
            removed = any(_REMOVED.match(self.lines[k]) for k in range(i + 1, j))
            if name in ("option", "cmdoption", "std:option") and args and not removed:
                # `--use-make-mode (-m), --no-use-make-mode (-M)`: the options, not their aliases
                at = col + text.index("::") + 2
                at += len(self.lines[i][at:]) - len(self.lines[i][at:].lstrip())
                # The option and the first paragraph of its description are read as one, so
                # "Defaults to ``rst``." there is a claim about the option.
                end = self._plain_paragraph(content, j)
                segments = [(i, at, at + len(args))]
                segments += [
                    (k, indent_of(self.lines[k]), len(self.lines[k].rstrip()))
                    for k in range(content or 0, end)
                ]
                hi = max(end, i + 1)
                with self._element("paragraph", "p", i, hi):
                    inline = self._inline(i, hi, col, code=(at, at + len(args)), segments=segments)
                    # ... in a sentence of its own: `--cache-dir=DIR` is no claim of a default `DIR`
                    stop = Token("text", "", 0)
                    stop.content = ".\u2029"  # in no page, so it moves no cursor
                    assert inline.children is not None
                    inline.children.insert(1, stop)
                content = next((k for k in range(end, j) if self.lines[k].strip()), None) if end else content
            if name in _SETTING_DIRECTIVES and args and not removed:
                named = self._setting(i, col, text, args, content, j)
                if named is not None and content is not None:
                    first = len(self.out.tokens)
                    self.body(content, j, indent_of(self.lines[content]), depth + 1)
                    # A default its description states with no flag ("The default is ``True``.")
                    # is the setting's (bot/core/page.py).
                    for tok in self.out.tokens[first:]:
                        if tok.type == "inline":
                            tok.meta.setdefault("subject", named)
                    return j
            if content is not None:
                self.body(content, j, indent_of(self.lines[content]), depth + 1)
        return j

    def _setting(self, i: int, col: int, text: str, args: str, content: int | None, end: int) -> str | None:
        """A setting's directive on line i (`.. data:: NAME = value`): its name, read as code, and
        the default it states, as the inline token's `claim` (subject, value, offset). The name;
        None when the arguments are no setting's (`.. data:: a b`)."""
        setting = _SETTING.match(args)
        if setting is None:
            return None
        name = setting.group(1)
        at = col + text.index("::") + 2
        at += len(self.lines[i][at:]) - len(self.lines[i][at:].lstrip())
        with self._element("paragraph", "p", i, i + 1):
            span = (at, at + len(name))
            inline = self._inline(i, i + 1, col, code=span, segments=[(i, *span)])
        inline.meta["setting"] = name
        if setting.group(2) is not None:
            inline.meta["claim"] = _claimed(name, setting.group(2), self.starts[i] + at + setting.start(2))
            return name
        for k in range(i + 1, content if content is not None else end):
            field = _DEFAULT_FIELD.match(self.lines[k])
            if field is not None:
                inline.meta["claim"] = _claimed(name, field.group(2), self.starts[k] + field.start(2))
        return name

    def _plain_paragraph(self, start: int | None, end: int) -> int:
        """The end of the plain paragraph starting at line `start` (0 when it starts none: no
        content, or a list, a directive, a table)."""
        if start is None:
            return 0
        text = self.lines[start].lstrip()
        if text.startswith(("..", "+", "=", ">>>", ":")) or _BULLET.match(text) or _ENUMERATED.match(text):
            return 0
        k = start + 1
        indent = indent_of(self.lines[start])
        while k < end and self.lines[k].strip() and indent_of(self.lines[k]) == indent:
            k += 1
        return 0 if self.lines[k - 1].rstrip().endswith("::") else k

    def _content(self, start: int, end: int) -> int | None:
        """The first line of a directive's content, past its options; None when it has none."""
        k = start
        while k < end and self.lines[k].strip() and _OPTION_FIELD.match(self.lines[k].strip()):
            k += 1
        while k < end and not self.lines[k].strip():
            k += 1
        return k if k < end else None

    def _fence(self, start: int, end: int, lang: str) -> None:
        """A code block of lines[start:end] (its content as one block, indentation as written)."""
        tok = self._tok("fence", "code", 0, start - 1, end)
        tok.info = lang
        tok.content = "\n".join(self.lines[start:end]) + "\n"
        tok.markup = "::"

    def _link(self, i: int, target: str) -> None:
        with self._element("paragraph", "p", i, i + 1):
            inline = self._tok("inline", "", 0, i, i + 1)
            link = Token("link_open", "a", 1)
            link.attrSet("href", target)
            inline.children = [link, Token("link_close", "a", -1)]  # the path is its own text

    # -- paragraphs and inline markup --

    def _inline(
        self,
        start: int,
        end: int,
        col: int,
        first_col: int | None = None,
        code: tuple[int, int] | None = None,
        segments: list[tuple[int, int, int]] | None = None,
    ) -> Token:
        """The inline token of lines[start:end] from column `col` (or of `segments`, each
        (line, from column, to column)); `code` marks columns of the first line as code
        (an option list's or `.. option::`'s flags)."""
        if segments is None:
            segments = []
            for k in range(start, end):
                line = self.lines[k]
                lo = first_col if (k == start and first_col is not None) else min(col, indent_of(line))
                segments.append((k, lo, len(line.rstrip())))
        tok = self._tok("inline", "", 0, start, end)
        tok.children = children(self.lines, self.starts, segments, code, self.program)
        return tok

    # -- tables --

    def _grid(self, i: int, end: int, col: int) -> int:
        """A grid table from its top border at line i; the line after it."""
        j = i
        while j < end and self.lines[j][col : col + 1] in ("+", "|"):
            j += 1
        borders = [k for k in range(i, j) if GRID_BORDER.fullmatch(self.lines[k][col:])]
        top = self.lines[i]
        edges = [p for p, c in enumerate(top) if c == "+" and p >= col]
        if len(edges) < 2:
            return j
        header_end = next((k for k in borders if "=" in self.lines[k]), None)
        rows: list[tuple[int, int]] = [
            (a + 1, b) for a, b in zip(borders, borders[1:], strict=False) if b > a + 1
        ]
        cells_of = []
        for lo, hi in rows:
            cells = []
            for a, b in zip(edges, edges[1:], strict=False):
                if any(len(self.lines[k]) <= b or self.lines[k][b] not in "|+" for k in range(lo, hi)):
                    return j  # a spanning cell: not read as a plain grid
                cells.append([(k, a + 1, b) for k in range(lo, hi)])
            cells_of.append((lo, hi, cells))
        self._table(cells_of, header_end, i, j)
        return j

    def _simple(self, i: int, end: int, col: int) -> int:
        """A simple table from its top border at line i; the line after it."""
        border = self.lines[i]
        columns = [(m.start(), m.end()) for m in RUN.finditer(border)]
        j = i + 1
        borders = [i]
        while j < end:
            line = self.lines[j]
            if SIMPLE_BORDER.fullmatch(line[col:]) or _ONE_COLUMN.fullmatch(line):
                borders.append(j)
                j += 1
                if j >= end or not self.lines[j].strip():
                    break
                continue
            if not line.strip() and len(borders) >= 2:
                break
            j += 1
        if len(borders) < 2:
            return j
        header_end = borders[1] if len(borders) >= 3 else None
        rows: list[list[int]] = []
        for k in range(i + 1, borders[-1]):
            line = self.lines[k]
            if k in borders or not line.strip():
                continue
            starts = [c[0] for c in columns]
            if rows and not line[: columns[0][1]].strip():
                rows[-1][1] = k + 1  # a first column left blank continues the row above
                continue
            rows.append([k, k + 1])
        cells_of = []
        for lo, hi in rows:
            cells = []
            for n, (a, _) in enumerate(columns):
                right = starts[n + 1] if n + 1 < len(columns) else 10**9
                cells.append([(k, a, min(right, len(self.lines[k]))) for k in range(lo, hi)])
            cells_of.append((lo, hi, cells))
        self._table(cells_of, header_end, i, j)
        return j

    def _list_table(self, directive: int, start: int, end: int) -> None:
        header_rows = 0
        for k in range(directive, start):
            m = _HEADER_ROWS.match(self.lines[k])
            if m:
                header_rows = int(m.group(1))
        rows: list[tuple[int, int, list[list[tuple[int, int, int]]]]] = []
        k = start
        while k < end:
            line = self.lines[k]
            m = _LIST_ROW.match(line)
            if not m:
                k += 1
                continue
            row_end = self._extent(k, end, len(m.group(1)))
            cells: list[list[tuple[int, int, int]]] = []
            for n in range(k, row_end):
                cell = _LIST_CELL.match(self.lines[n])
                text = self.lines[n]
                if cell and (n == k or indent_of(text) == len(m.group(1)) + 2):
                    cells.append([(n, cell.end(), len(text.rstrip()))])
                elif cells and text.strip():
                    cells[-1].append((n, indent_of(text), len(text.rstrip())))
            rows.append((k, row_end, cells))
            k = row_end
        header_end = None
        if header_rows and len(rows) > header_rows:
            header_end = rows[header_rows][0]
        self._table(rows, header_end, start, end)

    def _table(
        self,
        rows: list[tuple[int, int, list[list[tuple[int, int, int]]]]],
        header_end: int | None,
        lo: int,
        hi: int,
    ) -> None:
        head = [r for r in rows if header_end is not None and r[0] < header_end]
        body = [r for r in rows if r not in head]
        with self._element("table", "table", lo, hi):
            with self._element("thead", "thead", lo, hi):
                for row in head:
                    self._row(row, "th")
            with self._element("tbody", "tbody", lo, hi):
                for row in body:
                    self._row(row, "td")

    def _row(self, row: tuple[int, int, list[list[tuple[int, int, int]]]], tag: str) -> None:
        lo, hi, cells = row
        with self._element("tr", "tr", lo, hi):
            for segments in cells:
                first = next(((k, a) for k, a, b in segments if self.lines[k][a:b].strip()), None)
                with self._element(tag, tag, lo, hi):
                    inline = self._inline(lo, hi, 0, segments=segments)
                    # Cells of a row side by side: each is read from its own first line, not
                    # after the cell before it (which may end lines below).
                    inline.meta["start"] = self.starts[first[0]] + first[1] if first else self.starts[lo]


def read(lines: list[str]) -> Read:
    """The block tokens of a reStructuredText page, as markdown-it would give a Markdown one."""
    reader = Reader(lines)
    reader.body(0, len(lines), 0)
    return reader.out
