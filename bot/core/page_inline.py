"""The inline scan of a page's block: the refs, code spans and prose markdown-it's inline tokens
hold, each at its offset in the page source (bot/core/page.py turns offsets into lines)."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.core import lazyre
from bot.core.spans import (
    link_path,
    link_repository,
    names_link_target,
    span_commands,
    split_span,
)

if TYPE_CHECKING:
    from markdown_it.token import Token


ANCHOR_TAG_RE = lazyre.compile(r"<a\s[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
# A long option written in plain text, outside code: `--amp` in "--amp defaults to native AMP".
# A word before it (a dash, `x--y`) or a character going on after it makes it no option.
_MENTION = lazyre.compile(r"(?<![\w`'\"/.:=<>-])--[a-z][a-z0-9]+(?:[-_][a-z0-9]+)*(?![\w`'\"/<>-])")
# A short option alone on a list item, outside code: `- -l` in a reference page's list of an
# option's spellings (`- -l`, `- --line-length`). Anywhere else a plain `-l` is as often a
# hyphen or a minus; a whole item of one is the option.
_ITEM_SHORT = lazyre.compile(r"[ \t]*(?:>[ \t]*)*(?:[-*+]|\d+[.)])[ \t]+(-[A-Za-z][A-Za-z0-9]{0,3})[ \t]*")
# A code span running a module: `python -m pkg.tool --x`, `python3.11 -m pkg`.
_SPAN_MODULE = lazyre.compile(r"\s*(?:\S*/)?python[0-9.]*\s+-m\s+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?![\w.])")
_DOTTED = lazyre.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")
_CODE_CLOSE = {n: lazyre.compile(rf"(?<!`){'`' * n}(?!`)") for n in range(1, 8)}


@dataclass
class RawRef:
    """A ref before sections are known; `pos` is the offset in the page source."""

    token: str
    kind: str
    pos: int
    where: str
    value: str | None = None
    value_pos: int | None = None
    column: str | None = None
    row: int | None = None
    command: tuple[str, ...] | None = None
    cwd: str | None = None  # Ref.cwd
    repo: str | None = None  # Ref.repo


@dataclass
class Span:
    """One inline code span of a block: its content, source extent and the refs it yields."""

    content: str
    start: int  # offset of the opening backticks, -1 when not located
    end: int
    refs: list[RawRef]


@dataclass
class RawClaim:
    """A default claim as the line's text says it, before its subject is known."""

    subject: str | None
    value: str
    pos: int
    text: str


@dataclass
class Inline:
    """The scan of one inline block: refs, code spans, and prose for sentence matching.

    `prose` is the block's text with each code span replaced by \\x01<index>\\x02, and `segs`
    maps stretches of prose that are verbatim source back to source offsets.
    """

    refs: list[RawRef]
    spans: list[Span]
    prose: str
    segs: list[tuple[int, int, int]]  # (prose start, prose end, source start)
    lo: int
    end: int  # cursor after the scan
    mentions: list[RawRef]  # long options written in plain text (`_MENTION`), not refs

    def src_pos(self, prose_pos: int) -> int | None:
        i = bisect.bisect_right(self.segs, (prose_pos, float("inf"), 0)) - 1
        if i >= 0:
            ps, pe, ss = self.segs[i]
            if ps <= prose_pos < pe:
                return ss + prose_pos - ps
        return None

    def plain(self) -> str:
        return re.sub("\x01(\\d+)\x02", lambda m: self.spans[int(m.group(1))].content, self.prose)


class PageSource:
    def __init__(self, lines: list[str]):
        self.text = "\n".join(lines)
        self.starts: list[int] = []
        pos = 0
        for line in lines:
            self.starts.append(pos)
            pos += len(line) + 1

    def offset(self, line0: int) -> int:
        return self.starts[line0] if line0 < len(self.starts) else len(self.text)

    def line_col(self, pos: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.starts, pos) - 1
        return i + 1, pos - self.starts[i]


def scan_inline(
    src: str,
    children: list[Token],
    lo: int,
    hi: int,
    where: str,
    anchors: set[str],
    column: str | None = None,
    row: int | None = None,
) -> Inline:
    cur = lo
    refs: list[RawRef] = []
    spans: list[Span] = []
    prose: list[str] = []
    plen = 0
    segs: list[tuple[int, int, int]] = []
    # (href as markdown-it gives it, where its text starts, its markup, refs before it)
    links: list[tuple[str | int | float, int, str, int]] = []
    mentions: list[RawRef] = []

    def add_prose(s: str, src_at: int | None) -> None:
        nonlocal plen
        if src_at is not None and s:
            segs.append((plen, plen + len(s), src_at))
        prose.append(s)
        plen += len(s)

    for tok in children:
        t = tok.type
        if t == "text":
            p = src.find(tok.content, cur, hi)
            if p >= 0:
                cur = p + len(tok.content)
                mentions += [
                    RawRef(m.group(), "flag", p + m.start(), "prose") for m in _MENTION.finditer(tok.content)
                ]
                if tok.content.startswith("-") and (short := _item_short(src, p)) is not None:
                    mentions.append(RawRef(short, "flag", p, "prose"))
            add_prose(tok.content, p if p >= 0 else None)
        elif t == "text_special":
            p = src.find(tok.markup, cur, hi)
            if p >= 0:
                cur = p + len(tok.markup)
            add_prose(tok.content, None)
        elif t in ("softbreak", "hardbreak"):
            p = src.find("\n", cur, hi)
            if p >= 0:
                cur = p + 1
            add_prose(" ", None)
        elif t == "code_inline":
            start = tok.meta.get("start", -1) if tok.meta else src.find(tok.markup, cur, hi)
            end = start
            if tok.meta:  # a reader that knows where the span is (reStructuredText's) says so
                end = cur = tok.meta["end"]
            elif start >= 0:
                close = _CODE_CLOSE.get(len(tok.markup))
                m = close.search(src, start + len(tok.markup), hi) if close else None
                end = m.end() if m else start + len(tok.markup)
                cur = end
            span_refs = []
            at = start if start >= 0 else cur
            commands = iter(span_commands(tok.content))
            for token, kind, value in split_span(tok.content):
                q = src.find(token, at, end) if start >= 0 else -1
                pos = q if q >= 0 else max(start, lo)
                at = q + len(token) if q >= 0 else at
                vpos = None
                if value is not None and start >= 0:
                    v = src.find(value, at, end)
                    if v >= 0:
                        vpos, at = v, v + len(value)
                command = next(commands, None) if kind == "flag" else None  # one for each flag
                span_refs.append(RawRef(token, kind, pos, where, value, vpos, column, row, command))
            # `python -m pkg.tool --x`: the module it runs (page_fences.py); `pkg.tool` alone names one.
            module = _SPAN_MODULE.match(tok.content) or _DOTTED.fullmatch(tok.content.strip())
            if module is not None:
                q = src.find(module.group(1), start, end) if start >= 0 else -1
                span_refs.append(RawRef(module.group(1), "module", q if q >= 0 else max(start, lo), where))
            refs.extend(span_refs)
            add_prose(f"\x01{len(spans)}\x02", None)
            spans.append(Span(tok.content, start, end, span_refs))
        elif t == "link_open":
            links.append((tok.attrGet("href") or "", cur, tok.markup, len(refs)))
        elif t == "link_close" and links:
            href, opened, markup, before = links.pop()
            # The link's text naming its target otherwise (`trl/examples/` linking to the
            # repository trl's examples/, `docs/guide` to docs/guide.md) is the link's path,
            # checked as the link.
            named = [r for r in refs[before:] if r.kind == "path" and names_link_target(r.token, str(href))]
            if named:
                refs[before:] = [r for r in refs[before:] if r not in named]
                for span in spans:
                    span.refs[:] = [r for r in span.refs if r not in named]
            search_from = opened
            if markup != "autolink":
                p = src.find("](", cur, hi)
                if p >= 0 and not src[cur:p].strip(" *_~"):
                    paren = src.find(")", p + 2, hi)
                    search_from = p + 2
                    cur = paren + 1 if paren >= 0 else cur
                else:
                    search_from = cur
            linked = link_path(str(href))
            if linked:
                path, kind = linked
                q = src.find(path, search_from, hi)
                repo = link_repository(str(href)) if kind == "url" else None
                at = q if q >= 0 else search_from
                refs.append(RawRef(path, "path", at, kind, column=column, row=row, repo=repo))
        elif t == "html_inline":
            anchors.update(ANCHOR_TAG_RE.findall(tok.content))
            p = src.find(tok.content, cur, hi)
            if p >= 0:
                cur = p + len(tok.content)
        elif t == "image":
            p = src.find("![", cur, hi)
            if p >= 0:
                q = src.find("](", p, hi)
                r = src.find(")", q, hi) if q >= 0 else -1
                cur = r + 1 if r >= 0 else cur
    return Inline(refs, spans, "".join(prose), segs, lo, cur, mentions)


def inline_title(children: list[Token]) -> str:
    parts = []
    for tok in children:
        if tok.type in ("text", "text_special", "code_inline"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif tok.type == "image":
            parts.append(tok.content)
    return "".join(parts).strip()


def _item_short(src: str, pos: int) -> str | None:
    """The short option a list item holding nothing else writes at `pos` (`- -l`), else None."""
    start = src.rfind("\n", 0, pos) + 1
    end = src.find("\n", pos)
    m = _ITEM_SHORT.fullmatch(src, start, len(src) if end < 0 else end)
    return m.group(1) if m is not None and m.start(1) == pos else None
