"""The internal links a page writes, with the line and column of each target.

Inline links and images (`[text](/user-guide/x#anchor)`, `![](../img.png)`, the target may sit
on the line after the link text), reference definitions (`[label]: ../x.md`), and the `href`
and `src` attributes of HTML and MDX components (`<Card href="/x">`). Code (fenced blocks and
inline spans), HTML comments and front matter are skipped: links written there are examples.
Pure and line-based, so every link keeps its exact place for a suggested rewrite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.page import front_matter_end

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_INLINE = re.compile(
    r"\]\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
_DEFINITION = re.compile(r"^\s{0,3}\[([^\]^][^\]]*)\]:\s*(<[^<>\n]*>|\S+)")
_ATTRIBUTE = re.compile(r"""\b(?:href|src)\s*=\s*(?:\{\s*)?(["'])([^"'\n]*)\1""")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_CODE_CLOSE = {n: re.compile(rf"(?<!`){'`' * n}(?!`)") for n in range(1, 9)}


@dataclass(frozen=True)
class Link:
    """A link a page writes, where it writes it."""

    target: str  # as written, without angle brackets
    line: int  # 1-based
    col: int  # 0-based offset of `target` in its line


def is_external(target: str) -> bool:
    """A full URL, `mailto:` and the like, or a protocol-relative `//host` URL."""
    return bool(_SCHEME.match(target)) or target.startswith("//")


def scan(text: str) -> list[Link]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[Link] = []
    fence: str | None = None
    in_comment = False
    start = front_matter_end(lines) + 1
    for n in range(start, len(lines)):
        line = lines[n]
        if fence is not None:
            m = _FENCE.match(line)
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and not line[m.end() :].strip()
            ):
                fence = None
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            continue
        visible, in_comment = _mask(line, in_comment)
        for m in _INLINE.finditer(visible):
            _add(out, line, n, m.group(1), m.start(1))
        m = _DEFINITION.match(visible)
        if m:
            _add(out, line, n, m.group(2), m.start(2))
        for m in _ATTRIBUTE.finditer(visible):
            _add(out, line, n, m.group(2), m.start(2))
    return out


def _add(out: list[Link], line: str, n: int, target: str, col: int) -> None:
    if target.startswith("<") and target.endswith(">"):
        target, col = target[1:-1], col + 1
    target = target.strip()
    if target:
        out.append(Link(target, n + 1, line.find(target, col)))


def _mask(line: str, in_comment: bool) -> tuple[str, bool]:
    """The line with inline code and HTML comments blanked (same length, so columns hold)."""
    if not in_comment and "`" not in line and "<!--" not in line:
        return line, False
    chars = list(line)
    i = 0
    while i < len(line):
        if in_comment:
            end = line.find("-->", i)
            stop = len(line) if end < 0 else end + 3
            chars[i:stop] = " " * (stop - i)
            if end < 0:
                break
            in_comment, i = False, stop
            continue
        found = [at for at in (line.find("`", i), line.find("<!--", i)) if at >= 0]
        if not found:
            break
        i = min(found)
        if line.startswith("<!--", i):
            in_comment = True
            continue
        run = len(line) - i - len(line[i:].lstrip("`"))
        closing = _CODE_CLOSE.get(run)
        close = closing.search(line, i + run) if closing else None
        if close:
            chars[i : close.end()] = " " * (close.end() - i)
            i = close.end()
        else:
            i += run
    return "".join(chars), in_comment
