"""A documentation page as docs-sync reads it: sections, the tokens it cites, the defaults it claims.

The page is parsed once with markdown-it. Every cited token keeps the exact line it sits on,
because findings and suggested rewrites are posted on that line. Block tokens only carry a
line range, so inline positions are recovered by walking the block's source text with a
cursor, in the same order markdown-it produced the inline tokens.
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
    # or in a span as a config writes it: `sample_packing: true`)
    line: int  # 1-based line where the token itself sits
    where: str  # "inline" | "table" | "fence" | "link" (relative to the page) | "url" (a GitHub URL)
    section: Section
    value: str | None = None  # value written with a flag (`--x gloo`, `--x=3`) or a name (`name=1`)
    column: str | None = None  # table cells: the header text of the column
    row: int | None = None  # table cells: 0-based index of the body row within its table
    col: int | None = None  # 0-based character offset of the token in its line, when known
    # Flags and scripts passed in a shell command (a fence, or a code span starting with a
    # command): the command's words before the token, `("torchrun", "--nproc-per-node", "8",
    # "train.py")`. None for a token cited on its own.
    command: tuple[str, ...] | None = None


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
# whose markup is the source text, which keeps the position cursor exact.
@cache
def _markdown() -> MarkdownIt:
    # Imported on first parse: a run whose pages all come from the cache never loads the parser.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable("text_join")


# A dot inside a flag is part of it (`--train.seed`, a dotted config hierarchy); one at its end
# ends the sentence.
_FLAG_RE = lazyre.compile(r"(?<![\w-])--[A-Za-z0-9](?:[A-Za-z0-9_*-]|\.(?=[A-Za-z0-9_])|<[^<>\s]*>)*")
_SHORT_FLAG_RE = lazyre.compile(r"-[A-Za-z](?:[ =](\S+))?")
_NAME_RE = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NAME_VALUE_RE = lazyre.compile(r"([A-Za-z_][A-Za-z0-9_.]*)=(\S+)")
_KEY_VALUE_RE = lazyre.compile(r"([A-Za-z_][\w.-]*):\s+([^\s#]+)")
_EXT_RE = lazyre.compile(r"\.(?:py|md|mdx|yml|yaml|json|toml|txt|sh|cfg|ini)$")
_GITHUB_RE = lazyre.compile(r"https?://github\.com/[^/]+/[^/]+/(?:blob|tree)/[^/]+/([^?#]+)")
_ANCHOR_TAG_RE = lazyre.compile(r"<a\s[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
# A line that is nothing but one HTML/MDX tag: `<Note>`, `</Warning>`, `<a id="x" />`.
_TAG_LINE_RE = lazyre.compile(r"\s*</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>\s*")
_VERBATIM_TAG_RE = lazyre.compile(r"\s*<(?:pre|script|style|textarea)\b", re.IGNORECASE)
_CODE_CLOSE = {n: lazyre.compile(rf"(?<!`){'`' * n}(?!`)") for n in range(1, 8)}


def classify(token: str) -> str:
    """flag, path, name or value: what kind of thing a cited token is."""
    if token.startswith("--") or re.fullmatch(r"-[A-Za-z]", token):
        return "flag"
    if "://" in token:
        return "value"
    if "/" in token or _EXT_RE.search(token):
        return "path"
    if _NAME_RE.fullmatch(token):
        return "name"
    return "value"


def _good_value(word: str) -> bool:
    """Whether the word after a flag is the flag's value rather than prose or shell syntax."""
    return (
        bool(word)
        and not word.startswith(("-", "$", "#", "\\"))
        and word not in {">", ">>", "<", "&", "|", "||", "&&", ";", "2>&1", "..."}
        and any(c.isalnum() or c == "<" for c in word)
    )


def split_span(content: str) -> list[tuple[str, str, str | None]]:
    """Tokens one inline code span cites, as (token, kind, value).

    A span with long flags yields each flag (and the word after it as its value); any other
    single-word span is one token; a multi-word span without flags only yields script paths.
    """
    text = content.strip()
    if not text:
        return []
    flags = list(_FLAG_RE.finditer(text))
    if flags:
        out: list[tuple[str, str, str | None]] = []
        for m in flags:
            rest = text[m.end() :]
            value = None
            if rest.startswith("="):
                value = _first_value(rest[1:])
            elif rest[:1].isspace():
                word = _first_value(rest)
                if word is not None and _good_value(word.rstrip(",;")):
                    value = word.rstrip(",;")
            out.append((m.group(0), "flag", value))
        return out
    short = _SHORT_FLAG_RE.fullmatch(text)
    if short:
        flag = text[:2]
        value = short.group(1)
        return [(flag, "flag", value if value and _good_value(value) else None)]
    key = _KEY_VALUE_RE.fullmatch(text)
    if key:  # `sample_packing: true`, as a config sets it; `config: x.yaml` cites the file too
        value = key.group(2)
        path = [(value, "path", None)] if _EXT_RE.search(value) and "://" not in value else []
        return [(key.group(1), "key", None), *path]
    if any(c.isspace() for c in text):
        return [(w, "path", None) for w in text.split() if _EXT_RE.search(w) and "://" not in w]
    if text.endswith("()"):
        text = text[:-2]
    nv = _NAME_VALUE_RE.fullmatch(text)
    if nv:
        return [(nv.group(1), "name", nv.group(2))]
    cited = _CITATION_RE.fullmatch(text)
    if cited and "://" not in text and (cited.group(2) is None or _EXT_RE.search(cited.group(1))):
        return [(cited.group(1), "path", None)]  # `pkg/mod.py:379`, `pkg/mod.py#L10`, `pkg/mod.py:main`
    return [(text, classify(text), None)]


# A line citation: the path, then `:379`, `:10-20`, `#L10` or `#L10-L20`; or a file's symbol
# (`pkg/mod.py:generate`, group 2), for the files a page cites.
_CITATION_RE = lazyre.compile(
    r"([^\s:#]+\.[A-Za-z0-9]+)(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?|:([A-Za-z_][\w.]*))"
)
_OPENERS = {"{": "}", "[": "]", "(": ")"}


def _first_value(rest: str) -> str | None:
    """The word at the start of `rest`; a set written in braces (`{no, fp16, bf16}`) is one word."""
    text = rest.lstrip()
    if not text:
        return None
    close = _OPENERS.get(text[0])
    if close is not None:
        end = text.find(close)
        if end > 0:
            return text[: end + 1]
    return text.split(maxsplit=1)[0]


def command_words(text: str) -> list[str]:
    """The words of one shell command as written, without the variable assignments and the
    words (`env`, `nohup`, `time`, `sudo`) that only run it."""
    words = [(m.group(0), m.start()) for m in _WORD_RE.finditer(text)]
    return [w for w, _ in words[_command_start(words, text) :]]


def _command_start(words: list[tuple[str, int]], text: str) -> int:
    """Where the command starts among (word, column) pairs: after the variable assignments
    (`A=1`, `A="x y"`, whose quoted value is words of its own here) and the prefix words."""
    i = 0
    while i < len(words) and (_ASSIGN_RE.match(words[i][0]) or words[i][0] in _PREFIX_WORDS):
        i += 1 + _quoted_value(words, i, text)
    return i


def _quoted_value(words: list[tuple[str, int]], i: int, text: str) -> int:
    """How many words after the assignment words[i] are its quoted value: `A="x.py y"` is three
    words here (the quotes are no part of any); `A=(--x 1)` is an array, its words are kept."""
    word, col = words[i]
    end = col + len(word)
    if not word.endswith("=") or text[end : end + 1] not in ("'", '"') or i + 1 >= len(words):
        return 0
    if text[end + 1 : end + 3] == "$(":
        return 0  # `A="$(python3 x.py)"`: a command runs in there
    if words[i + 1][1] != end + 1:
        return 0
    return 1 + _quoted_rest(words, i + 1)


def _quoted_rest(words: list[tuple[str, int]], i: int) -> int:
    """How many more words after words[i] the same quoted value holds: `A="a b"` splits in two."""
    n = 0
    while i + n + 1 < len(words) and words[i + n + 1][1] == words[i + n][1] + len(words[i + n][0]) + 1:
        n += 1
    return n


def _span_commands(content: str) -> list[tuple[str, ...] | None]:
    """For each long flag of a code span (in `split_span`'s order), the command words before it
    when the span is a command (`lm_eval --model hf`); None when the span starts with a flag
    (a flag cited on its own)."""
    text = content.strip()
    flags = list(_FLAG_RE.finditer(text))
    words = [(m.group(0), m.start()) for m in _WORD_RE.finditer(text)]
    words = words[_command_start(words, text) :]
    if not words or words[0][0].startswith("-"):
        return [None] * len(flags)
    return [tuple(w for w, at in words if at + len(w) <= m.start()) for m in flags]


def _link_path(href: str) -> tuple[str, str] | None:
    """(path, where) for a link to a file: "url" for a GitHub URL (a path from the root of some
    repository), "link" for a path relative to the page."""
    m = _GITHUB_RE.match(href)
    if m:
        path = m.group(1).rstrip("/")
        return (path, "url") if path else None
    if "://" in href or href.startswith(("/", "#", "mailto:")):
        return None
    target = href.split("#", 1)[0].split("?", 1)[0]
    return (target, "link") if _EXT_RE.search(target) else None


@dataclass
class _Raw:
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


@dataclass
class _Span:
    """One inline code span of a block: its content, source extent and the refs it yields."""

    content: str
    start: int  # offset of the opening backticks, -1 when not located
    end: int
    refs: list[_Raw]


@dataclass
class _RawClaim:
    """A default claim as the line's text says it, before its subject is known."""

    subject: str | None
    value: str
    pos: int
    text: str


@dataclass
class _Inline:
    """The scan of one inline block: refs, code spans, and prose for sentence matching.

    `prose` is the block's text with each code span replaced by \\x01<index>\\x02, and `segs`
    maps stretches of prose that are verbatim source back to source offsets.
    """

    refs: list[_Raw]
    spans: list[_Span]
    prose: str
    segs: list[tuple[int, int, int]]  # (prose start, prose end, source start)
    lo: int
    end: int  # cursor after the scan

    def src_pos(self, prose_pos: int) -> int | None:
        i = bisect.bisect_right(self.segs, (prose_pos, float("inf"), 0)) - 1
        if i >= 0:
            ps, pe, ss = self.segs[i]
            if ps <= prose_pos < pe:
                return ss + prose_pos - ps
        return None

    def plain(self) -> str:
        return re.sub("\x01(\\d+)\x02", lambda m: self.spans[int(m.group(1))].content, self.prose)


class _Source:
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


def _scan_inline(
    src: str,
    children: list[Token],
    lo: int,
    hi: int,
    where: str,
    anchors: set[str],
    column: str | None = None,
    row: int | None = None,
) -> _Inline:
    cur = lo
    refs: list[_Raw] = []
    spans: list[_Span] = []
    prose: list[str] = []
    plen = 0
    segs: list[tuple[int, int, int]] = []
    links: list[tuple[str | int | float, int, str]] = []  # (href as markdown-it gives it, ...)

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
            commands = iter(_span_commands(tok.content))
            for token, kind, value in split_span(tok.content):
                q = src.find(token, at, end) if start >= 0 else -1
                pos = q if q >= 0 else max(start, lo)
                at = q + len(token) if q >= 0 else at
                vpos = None
                if value is not None and start >= 0:
                    v = src.find(value, at, end)
                    if v >= 0:
                        vpos, at = v, v + len(value)
                command = next(commands, None) if kind == "flag" and token.startswith("--") else None
                span_refs.append(_Raw(token, kind, pos, where, value, vpos, column, row, command))
            refs.extend(span_refs)
            add_prose(f"\x01{len(spans)}\x02", None)
            spans.append(_Span(tok.content, start, end, span_refs))
        elif t == "link_open":
            links.append((tok.attrGet("href") or "", cur, tok.markup))
        elif t == "link_close" and links:
            href, opened, markup = links.pop()
            search_from = opened
            if markup != "autolink":
                p = src.find("](", cur, hi)
                if p >= 0 and not src[cur:p].strip(" *_~"):
                    paren = src.find(")", p + 2, hi)
                    search_from = p + 2
                    cur = paren + 1 if paren >= 0 else cur
                else:
                    search_from = cur
            linked = _link_path(str(href))
            if linked:
                path, kind = linked
                q = src.find(path, search_from, hi)
                refs.append(_Raw(path, "path", q if q >= 0 else search_from, kind, column=column, row=row))
        elif t == "html_inline":
            anchors.update(_ANCHOR_TAG_RE.findall(tok.content))
            p = src.find(tok.content, cur, hi)
            if p >= 0:
                cur = p + len(tok.content)
        elif t == "image":
            p = src.find("![", cur, hi)
            if p >= 0:
                q = src.find("](", p, hi)
                r = src.find(")", q, hi) if q >= 0 else -1
                cur = r + 1 if r >= 0 else cur
    return _Inline(refs, spans, "".join(prose), segs, lo, cur)


def _inline_title(children: list[Token]) -> str:
    parts = []
    for tok in children:
        if tok.type in ("text", "text_special", "code_inline"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif tok.type == "image":
            parts.append(tok.content)
    return "".join(parts).strip()


# --- fences -----------------------------------------------------------------------------------

_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "shell-session", "shellsession", "terminal"}
# Words that run the command after them: not the command itself.
_PREFIX_WORDS = {"do", "then", "else", "time", "exec", "nohup", "env", "sudo", "$"}
_SEPARATORS = {"&&", "||", "|", ";", "--"}
_WORD_RE = lazyre.compile(r"[^\s\"'`()]+")
_ASSIGN_RE = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SCRIPT_EXTS = (".py", ".sh")


def _quoted_spans(text: str) -> Callable[[int], bool]:
    """Whether a column of a shell line sits inside a quoted string (a `$(...)` in one is a
    command again: `A="$(python3 x.py)"`)."""
    inside: list[bool] = []
    stack: list[str] = []  # open quotes and `$(` substitutions, innermost last
    escaped = False
    for i, c in enumerate(text):
        inside.append(bool(stack) and stack[-1] in "\"'")
        if escaped:
            escaped = False
        elif stack and stack[-1] == "'":
            if c == "'":
                stack.pop()
        elif c == "\\":
            escaped = True
        elif c == "$" and text[i + 1 : i + 2] == "(":
            stack.append("(")
        elif c == ")" and stack and stack[-1] == "(":
            stack.pop()
        elif c in "\"'":
            if stack and stack[-1] == c:
                stack.pop()
            else:
                stack.append(c)
    return lambda col: 0 <= col < len(inside) and inside[col]


def _fence_lang(tok: Token) -> str:
    info = (tok.info or "").strip()
    return info.split(maxsplit=1)[0].lower() if info else ""


def _config_refs(tok: Token, first_line0: int, source: _Source, lines: list[str]) -> list[_Raw]:
    """The keys a YAML or TOML block sets (kind "key", bot/core/configblocks.py), each at its name."""
    from bot.core.configblocks import CONFIG_LANGS, block_keys

    lang = _fence_lang(tok)
    if lang not in CONFIG_LANGS:
        return []
    content = tok.content.split("\n")
    out = []
    for key, value, i, col in block_keys(lang, tok.content):
        line0 = first_line0 + i
        if line0 >= len(lines) or i >= len(content):
            continue
        shift = max(lines[line0].find(content[i]), 0) if content[i] else 0
        out.append(_Raw(key, "key", source.offset(line0) + shift + col, "fence", value))
    return out


def _fence_refs(tok: Token, first_line0: int, source: _Source, lines: list[str]) -> list[_Raw]:
    """Flags (with values) and script paths a shell block passes, each with the words of its
    command before it; other languages cite nothing. Whose flags they are is the check's call."""
    lang = _fence_lang(tok)
    if lang not in _SHELL_LANGS:
        return []
    console = lang in ("console", "shell-session", "shellsession", "terminal")
    out: list[_Raw] = []
    # A command runs across `\` continuations; segments split at && | ; and a bare `--`.
    command: list[str] = []
    continued, script_seen = False, False
    for i, content_line in enumerate(tok.content.split("\n")):
        line0 = first_line0 + i
        if line0 >= len(lines):
            break
        text = content_line
        if console:
            stripped = text.lstrip()
            if stripped.startswith("$ "):
                text = text.replace("$ ", "  ", 1)
            elif not continued:
                continue
        source_line = lines[line0]
        shift = source_line.find(content_line) if content_line else 0
        base = source.offset(line0) + max(shift, 0)
        quoted = _quoted_spans(text)
        words = [(m.group(0), m.start()) for m in _WORD_RE.finditer(text)]
        cut = next((k for k, (w, c) in enumerate(words) if w.startswith("#") and not quoted(c)), len(words))
        words = words[:cut]
        if not continued:
            command, script_seen = [], False
        continued = bool(words) and words[-1][0] == "\\"
        skip_to = -1
        for k, (word, col) in enumerate(words):
            if word == "\\" or k <= skip_to:
                continue
            if word in _SEPARATORS or word.endswith(";"):
                command, script_seen = [], False
                continue
            if not command and (_ASSIGN_RE.match(word) or word in _PREFIX_WORDS):
                skip_to = k + _quoted_value(words, k, text)  # `A="x.py y"`: the value is no command
                continue
            m = _FLAG_RE.match(word)
            if quoted(col):
                pass  # inside a quoted argument (`extra_args="--no-rope-fusion"`): a value, not a flag
            elif m and word.startswith("--"):
                flag, rest = m.group(0), word[m.end() :]
                value, vpos = None, None
                if rest.startswith("=") and len(rest) > 1:
                    value, vpos = rest[1:], base + col + m.end() + 1
                elif not rest and k + 1 < len(words) and _good_value(words[k + 1][0]):
                    value, vpos = words[k + 1][0], base + words[k + 1][1]
                out.append(
                    _Raw(flag, "flag", base + col, "fence", value, vpos, command=tuple(command) or None)
                )
            elif (
                not script_seen
                and word.endswith(_SCRIPT_EXTS)
                and not (command and command[-1].startswith("-"))  # not `--config x.py`
            ):
                # The script a command runs: `python3 tools/x.py`, `./run.sh`, `torchrun ... train.py`.
                out.append(_Raw(word, "path", base + col, "fence", command=tuple(command) or None))
                script_seen = True
            command.append(word)
    return out


# --- default claims ---------------------------------------------------------------------------

_C = "\x01(\\d+)\x02"
_CLAIM_PATTERNS = [
    lazyre.compile(_C + r"\s+by\s+default\b", re.IGNORECASE),
    lazyre.compile(_C + r"\s*\(\s*the\s+default\s*\)", re.IGNORECASE),
    lazyre.compile(r"\bdefault\b\s*(?:(?:is|to|of|was)\s+|:\s*|,\s*)?" + _C, re.IGNORECASE),
    # "defaults" needs a connector: "X defaults `--y=z` here" is something setting a default
    # under a condition, not a statement of the flag's default.
    lazyre.compile(r"\bdefaults\b\s*(?:(?:to|are)\s+|:\s*)" + _C, re.IGNORECASE),
]
_CODE_LIST = rf"((?:{_C}\s*(?:/|,|and|or|&)\s*)*{_C})"
_BOTH = r"(?:(?:both|all)\s+)?"
_BOOL_PATTERNS = [
    lazyre.compile(_CODE_LIST + r"\s+" + _BOTH + r"defaults?\s+(?:to\s+)?(?P<word>off|on)\b", re.IGNORECASE),
    lazyre.compile(_CODE_LIST + r"\s+(?:is|are)\s+" + _BOTH + r"(?P<word>off|on)\s+by\s+default\b", re.I),
]
_SENTENCE_END = lazyre.compile(r"[.;?!]\s+")
_CHECKMARKS = {"✅", "✓", "✔", "☑", "yes"}
_DEFAULT_HEADER = lazyre.compile(r"defaults?(?: value)?", re.IGNORECASE)


def _span_text(src: str, span: _Span) -> tuple[str, int | None]:
    """The span as written (with backticks) when it sits on one line, else its content."""
    if span.start >= 0:
        raw = src[span.start : span.end]
        if "\n" not in raw:
            return raw, span.start
    return span.content, None


def _span_claim(
    src: str, scan: _Inline, idx: int, subject_of: Callable[[int], str | None]
) -> _RawClaim | None:
    """A claim that code span `idx` is a default; `subject_of` finds the flag for a bare value."""
    span = scan.spans[idx]
    if span.refs and span.refs[0].kind == "key":
        return None  # `lr: 1e-5` says what to set, not what the default is
    if span.refs and (span.refs[0].kind == "flag" or span.refs[0].value is not None):
        ref = span.refs[0]
        if ref.value is None or ref.value_pos is None:
            return None  # `--flag` alone says which flag, not which value
        return _RawClaim(ref.token, ref.value, ref.value_pos, ref.value)
    value = span.content.strip()
    # With no flag nearby the claim keeps subject None: the check ties it to the one flag whose
    # choices include the value, if there is exactly one.
    subject = subject_of(idx)
    if not value:
        return None
    text, pos = _span_text(src, span)
    return _RawClaim(subject, value, pos if pos is not None else max(span.start, scan.lo), text)


# A default written as plain text right after a flag: "(`--buffer-size`, default 1 GB)". Only
# numbers, with a size unit or not: plain words after "default" are prose more often than values.
_PLAIN_DEFAULT = lazyre.compile(
    _C + r"\s*[,(:]?\s*(?:the\s+)?defaults?\s*(?:is\s+|to\s+|of\s+|:\s*|=\s*)?"
    r"(?P<value>\d+(?:\.\d+)?(?:\s*[KMGT]i?B\b)?)(?![\w%/]|\.\w)",
    re.IGNORECASE,
)


def _plain_claims(src: str, scan: _Inline) -> list[_RawClaim]:
    """Defaults written as plain numbers after the flag they belong to (paragraphs and cells)."""
    if "default" not in scan.prose.lower():
        return []
    out = []
    for m in _PLAIN_DEFAULT.finditer(scan.prose):
        flags = [r.token for r in scan.spans[int(m.group(1))].refs if r.kind == "flag"]
        pos = scan.src_pos(m.start("value"))
        if len(flags) == 1 and pos is not None:
            value = m.group("value")
            out.append(_RawClaim(flags[0], value, pos, value))
    return out


def _parenthesized(prose: str) -> set[int]:
    """The code spans of `prose` written inside parentheses."""
    out: set[int] = set()
    depth = 0
    for m in re.finditer(r"[()]|" + _C, prose):
        if m.group(0) == "(":
            depth += 1
        elif m.group(0) == ")":
            depth = max(depth - 1, 0)
        elif depth:
            out.add(int(m.group(1)))
    return out


def _paragraph_claims(src: str, scan: _Inline) -> list[_RawClaim]:
    if "default" not in scan.prose.lower():
        return []
    flags_of = [[r.token for r in s.refs if r.kind == "flag"] for s in scan.spans]
    aside = _parenthesized(scan.prose)
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(scan.prose)] + [len(scan.prose)]
    out: list[_RawClaim] = []
    for s_start, s_end in zip(bounds, bounds[1:], strict=False):
        sentence_spans = [int(m.group(1)) for m in re.finditer(_C, scan.prose[s_start:s_end])]

        def subject_of(idx: int, sentence_spans: list[int] = sentence_spans) -> str | None:
            before = [flags_of[j][-1] for j in sentence_spans if j < idx and flags_of[j]]
            if before:
                return before[-1]
            after = [flags_of[j][0] for j in sentence_spans if j > idx and flags_of[j]]
            if after:
                return after[0]
            # An earlier sentence's flag, unless named in an aside: "Whether code is highlighted
            # (only if `--color` is also enabled). Default: `yes`." is not `--color`'s default.
            earlier = [
                flags_of[j][-1]
                for j in range(idx)
                if flags_of[j] and j not in sentence_spans and j not in aside
            ]
            return earlier[-1] if earlier else None

        seen: set[int] = set()
        for pattern in _CLAIM_PATTERNS:
            for m in pattern.finditer(scan.prose, s_start, s_end):
                idx = int(m.group(1))
                if idx in seen:
                    continue
                seen.add(idx)
                claim = _span_claim(src, scan, idx, subject_of)
                if claim:
                    out.append(claim)
        for pattern in _BOOL_PATTERNS:
            for m in pattern.finditer(scan.prose, s_start, s_end):
                word = m.group("word")
                pos = scan.src_pos(m.start("word"))
                if pos is None:
                    continue
                value = "True" if word.lower() == "on" else "False"
                for idx_text in re.findall(_C, m.group(1)):
                    for flag in flags_of[int(idx_text)]:
                        out.append(_RawClaim(flag, value, pos, src[pos : pos + len(word)]))
    return out


def _row_claims(src: str, cells: list[_Inline], default_col: int | None, hi: int) -> list[_RawClaim]:
    if not cells:
        return []
    first = cells[0]
    first_ref = first.refs[0] if first.refs else None
    out: list[_RawClaim] = []
    if sum(r.kind == "flag" for r in first.refs) > 1:
        return out  # `--adam-beta1`, `--adam-beta2` | `0.9, 0.98`: values in pairs, no one default
    if default_col is not None and default_col < len(cells):
        cell = cells[default_col]
        plain = cell.plain().replace("\ufe0f", "").strip()
        if plain.lower() in _CHECKMARKS:
            if first_ref is not None and first_ref.kind == "flag":
                subject, value = first_ref.token, first_ref.value or "True"
            elif first_ref is not None:
                subject, value = None, first_ref.token
            else:
                subject, value = None, first.plain().strip()
            mark_pos = src.find(plain, cell.lo, hi)
            if value:
                out.append(_RawClaim(subject, value, mark_pos if mark_pos >= 0 else cell.lo, plain))
            return out
        if plain.lower() in ("off", "on") and first_ref is not None and first_ref.kind == "flag":
            pos = src.find(plain, cell.lo, hi)
            value = "True" if plain.lower() == "on" else "False"
            out.append(_RawClaim(first_ref.token, value, pos if pos >= 0 else cell.lo, plain))
            return out
        if cell.spans and cell.prose.startswith("\x010\x02"):
            subject = first_ref.token if first_ref and first_ref.kind in ("flag", "name") else None
            text, at = _span_text(src, cell.spans[0])
            value = cell.spans[0].content.strip()
            if value:
                out.append(_RawClaim(subject, value, at if at is not None else cell.lo, text))
            return out
    if (
        first_ref is not None
        and first_ref.kind == "flag"
        and first_ref.value is not None
        and first_ref.value_pos is not None
        and any(re.match(r"default\b", c.plain().strip(), re.IGNORECASE) for c in cells[1:])
    ):
        out.append(_RawClaim(first_ref.token, first_ref.value, first_ref.value_pos, first_ref.value))
    return out


# --- the page ---------------------------------------------------------------------------------


def _front_matter_end(lines: list[str]) -> int:
    """0-based index of the closing `---` of YAML front matter, or -1 when there is none."""
    if not lines or lines[0].rstrip() != "---":
        return -1
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i
    return -1


class _Walker:
    """One pass over markdown-it's block tokens, collecting headings, refs, claims and anchors."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.source = _Source(lines)
        self.src = self.source.text
        self.headings: list[tuple[int, str, int]] = []  # (line, title, level)
        self.refs: list[_Raw] = []
        self.claims: list[_RawClaim] = []
        self.anchors: set[str] = set()

    def walk(self, tokens: list[Token], off: int, depth: int = 0) -> None:
        block: str | None = None  # what the next inline token belongs to
        level = 0
        headers: list[str] = []
        default_col: int | None = None
        in_head = False
        body_row = -1
        cells: list[_Inline] = []
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
                        headers.append(_inline_title(children))
                        column, row = headers[-1], None
                    else:
                        column = headers[len(cells)] if len(cells) < len(headers) else None
                        row = body_row
                    start = tok.meta.get("start", cells[-1].end if cells else lo)
                    scan = _scan_inline(self.src, children, start, hi, "table", self.anchors, column, row)
                    self.claims.extend(_plain_claims(self.src, scan))
                    cells.append(scan)
                    row_hi = hi
                else:
                    scan = _scan_inline(self.src, children, lo, hi, "inline", self.anchors)
                    if block == "heading":
                        self.headings.append((tok.map[0] + off + 1, _inline_title(children), level))
                    elif block == "paragraph":
                        self.claims.extend(_paragraph_claims(self.src, scan))
                        self.claims.extend(_plain_claims(self.src, scan))
                self.refs.extend(scan.refs)
                block = None
            elif t == "thead_open":
                in_head, headers, default_col, body_row = True, [], None, -1
            elif t == "thead_close":
                in_head = False
                default_col = next(
                    (i for i, h in enumerate(headers) if _DEFAULT_HEADER.fullmatch(h.strip())), None
                )
            elif t == "tr_open":
                cells = []
                if not in_head:
                    body_row += 1
            elif t == "tr_close" and not in_head:
                self.claims.extend(_row_claims(self.src, cells, default_col, row_hi))
            elif t == "fence" and tok.map is not None:
                self.refs.extend(_fence_refs(tok, tok.map[0] + off + 1, self.source, self.lines))
                self.refs.extend(_config_refs(tok, tok.map[0] + off + 1, self.source, self.lines))
            elif t == "html_block" and tok.map is not None:
                self.anchors.update(_ANCHOR_TAG_RE.findall(tok.content))
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
        self.walk(_markdown().parse("\n".join(inner)), off + tok.map[0], depth=1)


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
    "rst": (docutils_id, _rst_repeat),
}


_ATTRIBUTES = lazyre.compile(r"\s*\{[^{}]*\}\s*$")


def page_format(path: str) -> str:
    """markdown, mdx, qmd or rst: how a page is read, by its file name."""
    lowered = path.lower()
    if lowered.endswith((".rst", ".rest")):
        return "rst"
    if lowered.endswith(".mdx"):
        return "mdx"
    if lowered.endswith(".qmd"):
        return "qmd"
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


def parse_doc(path: str, text: str) -> DocPage:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    fmt = page_format(path)
    walker = _Walker(lines)
    if fmt == "rst":
        from bot.core import rst  # imported for the first reStructuredText page only

        read = rst.read(lines)
        walker.walk(read.tokens, 0)
        walker.anchors |= read.anchors
    else:
        fm_end = _front_matter_end(lines)
        # Blank the front matter instead of cutting it so markdown-it's line numbers stay the page's.
        body = [("" if i <= fm_end else line) for i, line in enumerate(lines)]
        if fmt in ("mdx", "qmd"):
            from bot.core import dialects

            body = dialects.mdx(body) if fmt == "mdx" else dialects.quarto(body)
        walker.walk(_markdown().parse("\n".join(body)), 0)

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
            Ref(r.token, r.kind, line, r.where, section_at(line), r.value, r.column, r.row, col, r.command)
            for line, col, _, r in refs
        ),
        claims=tuple(
            DefaultClaim(c.subject, c.value, line, section_at(line), c.text, col) for line, col, c in claims
        ),
        anchors=frozenset({s.anchor for s in sections if s.level > 0} | walker.anchors),
    )
