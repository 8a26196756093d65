"""A documentation page as docs-sync reads it: sections, the tokens it cites, the defaults it claims.

The page is parsed once with markdown-it. Every cited token keeps the exact line it sits on,
because findings and suggested rewrites are posted on that line. Block tokens only carry a
line range, so inline positions are recovered by walking the block's source text with a
cursor, in the same order markdown-it produced the inline tokens.

Here: the page's types and the walk over its blocks. What a code span says is bot/core/spans.py,
the inline scan bot/core/page_inline.py, fenced blocks bot/core/page_fences.py and the defaults
a page claims bot/core/page_claims.py.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING

from bot.core import lazyre
from bot.core.anchors import custom_id, docutils_id, github_anchor, mintlify_slug, pandoc_id
from bot.core.page_claims import DEFAULT_HEADER, emphasized_claims, paragraph_claims, plain_claims, row_claims
from bot.core.page_fences import Shell, config_refs, fence_refs
from bot.core.page_inline import (
    ANCHOR_TAG_RE,
    Inline,
    PageSource,
    RawClaim,
    RawRef,
    inline_title,
    scan_inline,
)

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@dataclass(frozen=True)
class Section:
    """A heading of a page and the lines under it."""

    title: str  # heading text without markup, e.g. "3. Precision"
    path: str  # heading path joined with " > ", e.g. "FSDP > 3. Precision"
    anchor: str  # as GitHub renders it
    level: int  # 0 for the preamble before the first heading
    line: int  # 1-based line of the heading (1 for the preamble)
    end_line: int  # last line belonging to it (before the next heading of any level)


@dataclass(frozen=True)
class Ref:
    """A token a page cites: a flag, a path, a name, a value or a key."""

    token: str  # what is cited, exactly as written: "--fsdp-cpu-backend", "miles/utils/arguments.py"
    kind: str  # "flag" | "path" | "name" | "value" | "key" (set in a YAML/TOML block, configblocks.py,
    # or in a span as a config writes it: `sample_packing: true`) | "module" (`python -m pkg.tool`)
    line: int  # 1-based line where the token itself sits
    where: str  # "inline" | "table" | "fence" | "link" (relative to the page) | "url" (a GitHub URL)
    section: Section
    value: str | None = None  # value written with a flag (`--x gloo`, `--x=3`) or a name (`name=1`)
    column: str | None = None  # table cells: the header text of the column; SETTING: the name a
    # setting's directive documents (`.. data:: READERS`), a setting whatever its shape
    row: int | None = None  # table cells: 0-based index of the body row within its table
    col: int | None = None  # 0-based character offset of the token in its line, when known
    # Flags and scripts passed in a shell command (a fence, or a code span starting with a
    # command): the command's words before the token, `("torchrun", "--nproc-per-node", "8",
    # "train.py")`. None for a token cited on its own.
    command: tuple[str, ...] | None = None
    # The folder a `cd` in a fenced block before the command moved to (in the same block or an
    # earlier one of the page: page_fences.Shell), as written from the page's folder or the root
    # (`examples/dreambooth`, `../scripts`); None when none did, or one went where we cannot follow.
    cwd: str | None = None
    # A GitHub URL's repository name, lowercase (`optimum-habana`): the file it names is ours only
    # when that repository is (bot/core/check/ownership.py). None for any other reference.
    repo: str | None = None


@dataclass(frozen=True)
class DefaultClaim:
    """A default a page says a flag or name has."""

    subject: str | None  # the flag or name the claim is about; None when only the row value is known
    value: str  # claimed default as written; "False"/"True" for "default off"/"default on"
    line: int  # line where the value is written
    section: Section
    text: str  # the exact substring of that line holding the value, for a suggested rewrite
    col: int | None = None  # 0-based character offset of `text` in its line, when known


@dataclass(frozen=True)
class DocPage:
    """A parsed page: its lines, sections, references and default claims."""

    path: str
    text: str
    lines: tuple[str, ...]  # lines[i - 1] is line i, without newline
    sections: tuple[Section, ...]
    refs: tuple[Ref, ...]  # sorted by (line, order of appearance)
    claims: tuple[DefaultClaim, ...]
    anchors: frozenset[str]  # heading anchors + explicit <a id=..> / <a name=..> ids
    # Long options written in plain text ("--amp defaults to native AMP"), where "prose": not
    # refs, since `--` in prose is as often a dash; only the history may vouch for one.
    mentions: tuple[Ref, ...] = ()

    def section_at(self, line: int) -> Section:
        i = bisect.bisect_right(self._section_lines, line) - 1
        return self.sections[max(i, 0)]

    @cached_property
    def _section_lines(self) -> list[int]:
        return [s.line for s in self.sections]

    def refs_on(self, line: int) -> tuple[Ref, ...]:
        return self._refs_by_line.get(line, ())

    @cached_property
    def _refs_by_line(self) -> dict[int, tuple[Ref, ...]]:
        by_line: dict[int, list[Ref]] = {}
        for ref in self.refs:
            by_line.setdefault(ref.line, []).append(ref)
        return {k: tuple(v) for k, v in by_line.items()}


# commonmark + GFM tables. text_join stays off so escapes and entities remain separate tokens
# whose markup is the source text, which keeps the position cursor exact. MDX has no indented
# code: a line indented four spaces, as the text inside `<Tip>` often is, is a paragraph there.
@cache
def _markdown(indented_code: bool = True) -> MarkdownIt:
    # Imported on first parse: a run whose pages all come from the cache never loads the parser.
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table").disable("text_join")
    return md if indented_code else md.disable("code")


# A line that is nothing but one HTML/MDX tag: `<Note>`, `</Warning>`, `<a id="x" />`.
_TAG_LINE_RE = lazyre.compile(r"\s*</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>\s*")
_VERBATIM_TAG_RE = lazyre.compile(r"\s*<(?:pre|script|style|textarea)\b", re.IGNORECASE)


# --- the page ---------------------------------------------------------------------------------


def front_matter_end(lines: list[str]) -> int:
    """0-based index of the closing `---` of YAML front matter, or -1 when there is none."""
    if not lines or lines[0].rstrip() != "---":
        return -1
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i
    return -1


SETTING = "setting"  # Ref.column of the name a setting's directive documents


class _Walker:
    """One pass over markdown-it's block tokens, collecting headings, refs, claims and anchors."""

    def __init__(self, lines: list[str], indented_code: bool = True):
        self.lines = lines
        self.indented_code = indented_code
        self.source = PageSource(lines)
        self.src = self.source.text
        self.headings: list[tuple[int, str, int]] = []  # (line, title, level)
        self.refs: list[RawRef] = []
        self.mentions: list[RawRef] = []
        self.claims: list[RawClaim] = []
        self.anchors: set[str] = set()
        self.shell = Shell()  # where a `cd` in one of its blocks took the page's later commands

    def walk(self, tokens: list[Token], off: int, depth: int = 0) -> None:
        block: str | None = None  # what the next inline token belongs to
        level = 0
        headers: list[str] = []
        default_col: int | None = None
        in_head = False
        body_row = -1
        cells: list[Inline] = []
        row_hi = 0
        for tok in tokens:
            t = tok.type
            if t == "heading_open":
                block, level = "heading", int(tok.tag[1:])
            elif t == "paragraph_open":
                block = "paragraph"
            elif t in ("th_open", "td_open"):
                block = "cell"
            elif t == "inline" and tok.map is not None:
                lo = self.source.offset(tok.map[0] + off)
                hi = self.source.offset(tok.map[1] + off)
                children = tok.children or []
                if block == "cell":
                    column: str | None
                    row: int | None
                    if in_head:
                        headers.append(inline_title(children))
                        column, row = headers[-1], None
                    else:
                        column = headers[len(cells)] if len(cells) < len(headers) else None
                        row = body_row
                    start = tok.meta.get("start", cells[-1].end if cells else lo)
                    scan = scan_inline(self.src, children, start, hi, "table", self.anchors, column, row)
                    self.claims.extend(plain_claims(self.src, scan))
                    cells.append(scan)
                    row_hi = hi
                else:
                    scan = scan_inline(self.src, children, lo, hi, "inline", self.anchors)
                    if block == "heading":
                        self.headings.append((tok.map[0] + off + 1, inline_title(children), level))
                    elif block == "paragraph":
                        self.mentions.extend(_item_head(self.src, lo, hi))
                        # In the description of a setting (reStructuredText's `.. data:: NAME`),
                        # a default its sentence names no flag for is the setting's; the
                        # directive's own `= value` is its claim.
                        self.claims.extend(paragraph_claims(self.src, scan, tok.meta.get("subject")))
                        self.claims.extend(plain_claims(self.src, scan))
                        self.claims.extend(emphasized_claims(self.src, scan))
                        if "claim" in tok.meta:
                            name, value, pos = tok.meta["claim"]
                            self.claims.append(RawClaim(name, value, pos, value))
                        for ref in scan.refs:
                            if ref.token == tok.meta.get("setting"):
                                ref.column = SETTING
                self.refs.extend(scan.refs)
                self.mentions.extend(scan.mentions)
                block = None
            elif t == "thead_open":
                in_head, headers, default_col, body_row = True, [], None, -1
            elif t == "thead_close":
                in_head = False
                default_col = next(
                    (i for i, h in enumerate(headers) if DEFAULT_HEADER.fullmatch(h.strip())), None
                )
            elif t == "tr_open":
                cells = []
                if not in_head:
                    body_row += 1
            elif t == "tr_close" and not in_head:
                self.claims.extend(row_claims(self.src, cells, default_col, row_hi))
            elif t == "fence" and tok.map is not None:
                self.refs.extend(fence_refs(tok, tok.map[0] + off + 1, self.source, self.lines, self.shell))
                self.refs.extend(config_refs(tok, tok.map[0] + off + 1, self.source, self.lines))
            elif t == "code_block" and tok.map is not None and _SESSION.search(tok.content):
                # CommonMark's indented code (four spaces, no fence) says no language: a block whose
                # lines show a `$ ` prompt is a shell session (`$ tool insert x.db --csv`), read as
                # a `console` fence; any other (Python, output) cites nothing, as before.
                session = tok.copy(type="fence", info="console")
                self.refs.extend(fence_refs(session, tok.map[0] + off, self.source, self.lines, self.shell))
            elif t == "html_block" and tok.map is not None:
                self.anchors.update(ANCHOR_TAG_RE.findall(tok.content))
                if depth == 0:
                    self._walk_html(tok, off)

    def _walk_html(self, tok: Token, off: int) -> None:
        """MDX wraps markdown in tags (`<Note>` ... `</Note>`); parse what is between them."""
        assert tok.map is not None
        block_lines = tok.content.split("\n")
        opening = _TAG_LINE_RE.fullmatch(block_lines[0])
        if not opening or _VERBATIM_TAG_RE.match(block_lines[0]):
            return  # comments, <pre>, <script>: nothing in them is read as markdown
        inner = ["" if _TAG_LINE_RE.fullmatch(line) else line for line in block_lines]
        if inner == block_lines or not any(line.strip() for line in inner):
            return
        self.walk(_markdown(self.indented_code).parse("\n".join(inner)), off + tok.map[0], depth=1)


# A line of a session: a `$ ` prompt and the command after it.
_SESSION = lazyre.compile(r"^[ \t]*\$ \S", re.M)


def _github_repeat(slug: str, n: int) -> str:
    return slug if n == 0 else f"{slug}-{n}"


def _rst_repeat(slug: str, n: int) -> str:
    return slug if n == 0 else ""  # docutils numbers a repeated title's id with the page's others


def _mintlify_repeat(slug: str, n: int) -> str:
    return slug if n == 0 else f"{slug}-{n + 1}"


# Each format's heading anchor and the anchor of its repeats (bot/core/anchors.py).
_SLUGS: dict[str, tuple[Callable[[str], str], Callable[[str, int], str]]] = {
    "markdown": (github_anchor, _github_repeat),
    "mdx": (mintlify_slug, _mintlify_repeat),
    "qmd": (pandoc_id, _github_repeat),
    "ipynb": (github_anchor, _github_repeat),  # as Jupyter and GitHub render its headings
    "rst": (docutils_id, _rst_repeat),
}


_ATTRIBUTES = lazyre.compile(r"\s*\{[^{}]*\}\s*$")


def page_format(path: str) -> str:
    """markdown, mdx, qmd, ipynb or rst: how a page is read, by its file name."""
    lowered = path.lower()
    if lowered.endswith((".rst", ".rest")):
        return "rst"
    if lowered.endswith(".mdx"):
        return "mdx"
    if lowered.endswith(".qmd"):
        return "qmd"
    if lowered.endswith(".ipynb"):
        return "ipynb"
    return "markdown"


def _sections(headings: list[tuple[int, str, int]], n_lines: int, fmt: str = "markdown") -> list[Section]:
    sections: list[Section] = []
    if not headings or headings[0][0] > 1:
        first = headings[0][0] if headings else n_lines + 1
        sections.append(Section("", "", "", 0, 1, max(first - 1, 0)))
    stack: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for i, (line, title, level) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        slug_of, repeat = _SLUGS[fmt]
        own = custom_id(title) if fmt in ("mdx", "qmd") else None
        if fmt == "qmd":  # Pandoc's attributes (`{.unnumbered}`) are no part of the title
            title = _ATTRIBUTES.sub("", title)
        slug = own[1] if own else slug_of(title)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchor = slug if own else repeat(slug, count)
        end = headings[i + 1][0] - 1 if i + 1 < len(headings) else n_lines
        sections.append(Section(title, " > ".join(t for _, t in stack), anchor, level, line, end))
    return sections


# A parameter list's item, opening with the parameter's bare name and a colon ("- 🔥lora_rank:
# The rank. Default is `8`.", "* **seed**: ..."), as pages listing a command line's parameters
# one by one write them.
_ITEM_HEAD = lazyre.compile(
    r"[ \t]*(?:[-*+]|\d+[.)])[ \t]+[^\w`\s]{0,4}(?:\*\*|__)?"
    r"(?P<name>[a-z][a-z0-9_]{2,})(?:\*\*|__)?[ \t]*[:：]\s"
)


def _item_head(src: str, lo: int, hi: int) -> list[RawRef]:
    """The flag a parameter list's item names by its head (`lora_rank` -> `--lora_rank`), as a
    mention: it goes stale when a change renames or removes that flag, and says nothing else
    (a head naming no flag is the page's own list: a dataset's fields, a folder's modules)."""
    m = _ITEM_HEAD.match(src, lo, hi)
    return [RawRef("--" + m.group("name"), "flag", m.start("name"), "item")] if m else []


def parse_doc(path: str, text: str) -> DocPage:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    fmt = page_format(path)
    if fmt == "ipynb":  # a notebook: its cells, each line on its line of the file
        from bot.core import dialects

        lines = dialects.notebook(lines)
        text = "\n".join(lines) + "\n"
    walker = _Walker(lines, indented_code=fmt != "mdx")
    if fmt == "rst":
        from bot.core import rst  # imported for the first reStructuredText page only

        read = rst.read(lines)
        walker.walk(read.tokens, 0)
        walker.anchors |= read.anchors
    else:
        fm_end = front_matter_end(lines)
        # Blank the front matter instead of cutting it so markdown-it's line numbers stay the page's.
        body = [("" if i <= fm_end else line) for i, line in enumerate(lines)]
        if fmt in ("mdx", "qmd"):
            from bot.core import dialects

            body = dialects.mdx(body) if fmt == "mdx" else dialects.quarto(body)
        walker.walk(_markdown(walker.indented_code).parse("\n".join(body)), 0)

    sections = _sections(walker.headings, len(lines), fmt)
    section_lines = tuple(s.line for s in sections)

    def section_at(line: int) -> Section:
        return sections[max(bisect.bisect_right(section_lines, line) - 1, 0)]

    source = walker.source
    refs = []
    for order, raw in enumerate(walker.refs):
        line, col = source.line_col(raw.pos)
        refs.append((line, col, order, raw))
    refs.sort(key=lambda r: r[:3])
    claims = []
    for raw_claim in walker.claims:
        line, col = source.line_col(raw_claim.pos)
        claims.append((line, col, raw_claim))
    claims.sort(key=lambda c: c[:2])

    return DocPage(
        path=path,
        text=text,
        lines=tuple(lines),
        sections=tuple(sections),
        refs=tuple(
            Ref(
                r.token,
                r.kind,
                line,
                r.where,
                section_at(line),
                r.value,
                r.column,
                r.row,
                col,
                command=r.command,
                cwd=r.cwd,
                repo=r.repo,
            )
            for line, col, _, r in refs
        ),
        claims=tuple(
            DefaultClaim(c.subject, c.value, line, section_at(line), c.text, col) for line, col, c in claims
        ),
        anchors=frozenset({s.anchor for s in sections if s.level > 0} | walker.anchors),
        # reStructuredText's plain text makes `--` a dash (Sphinx's smartquotes): no option there
        mentions=()
        if fmt == "rst"
        else tuple(
            Ref(m.token, m.kind, line, m.where, section_at(line), col=col)
            for m in walker.mentions
            for line, col in [source.line_col(m.pos)]
        ),
    )
