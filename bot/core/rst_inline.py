r"""The inline markup of a reStructuredText paragraph (literals, roles, links), read into the
inline tokens markdown-it gives a Markdown one, each code span with its exact offsets.

Plain text cites an option only when its hyphen is escaped: `\--no-clobber`, `\-n, \--no-clobber`,
`\--source {huggingface,kaggle}`, `\--job-name (-J)`, as a list-table's first cell writes them.
The escape is what a page writes to keep docutils from reading the text as an option list and
Sphinx from turning `--` into an en-dash, so it is written for an option; the run of options is a
code span, an option list's like. Unescaped plain text is not read: its `--` is just as often a
dash ("pages--see", "a -- b"), the end of options (`pass -- to stop`), or another program's
command line in a sentence, and `\---`, `\-- comment` and a permission's `\--x` name nothing.
"""

from __future__ import annotations

import bisect
import re

from markdown_it.token import Token

_ROLE = re.compile(r"(?<![\w:]):((?:[\w.+-]+:)?[\w.+-]+):$")  # searched up to the backtick
_ALIASES = re.compile(r"\([^()]*\)")
_TITLED = re.compile(r"(.*?)\s*<([^<>]+)>", re.S)
_BACKTICKS = re.compile(r"`+")
# A cross-reference titled with the options its target documents (`:ref:`-s or --sessions
# <opt-sessions>``): the title cites them, as a Markdown link whose text is a code span does.
_TITLE_OPTION = r"(?:--[A-Za-z0-9][\w.-]*[A-Za-z0-9_]|-[A-Za-z][A-Za-z]?)(?![\w-])"
_OPTION_TITLE = re.compile(rf"{_TITLE_OPTION}(?:\s*(?:,|/|\bor\b|\band\b)?\s*{_TITLE_OPTION})*")
_JOINERS = re.compile(r"\bor\b|\band\b|[,/]")
# An escaped option: a long one of two characters at least (`\--x` is a permission string), or a
# short one, a letter; led by the start of the text, a space or an opening bracket.
_ESCAPED_OPTION = r"(?:--[A-Za-z0-9][\w.-]*[A-Za-z0-9_]|-[A-Za-z])(?![\w-])"
_OPTION_ARG = r"(?:[ \t](?:<[^<>\n]+>|\{[^{}\n]+\}|[A-Z][A-Z0-9_]*(?![\w-]))|=[^\s,;()]*[^\s,;().])?"
_ANY_OPTION = rf"\\{{0,2}}{_ESCAPED_OPTION}{_OPTION_ARG}"
_ESCAPED = re.compile(
    rf"""(?<![^\s(\[{{'"])\\{{1,2}}{_ESCAPED_OPTION}{_OPTION_ARG}"""
    rf"(?:,[ \t]*{_ANY_OPTION})*(?:[ \t]+\({_ANY_OPTION}(?:,[ \t]*{_ANY_OPTION})*\))?"
)
_ESCAPES = re.compile(r"\\+(?=-)")
_LOOKAHEAD = 64  # runs of backticks searched for the one closing a literal: a bound on the scan
# Roles whose text is code: a flag, a name, a path.
_CODE_ROLES = frozenset(
    {
        "option",
        "program",
        "envvar",
        "class",
        "func",
        "meth",
        "mod",
        "attr",
        "data",
        "const",
        "exc",
        "obj",
        "any",
        "code",
        "literal",
    }
)


def children(
    lines: list[str],
    starts: list[int],
    segments: list[tuple[int, int, int]],
    code: tuple[int, int] | None,
    program: str | None,
) -> list[Token]:
    """Inline tokens of the text in `segments`: text, soft breaks, code spans (with their exact
    offsets in `meta`) and links, in source order. An option (`.. option::`, `:option:`) of the
    page's `.. program::` is cited as that program's: `sphinx-build --jobs`."""
    # The text as one string (its segments joined by newlines), and where each segment starts
    # in it and in the page.
    parts: list[str] = []
    at_text: list[int] = []
    at_page: list[int] = []
    length = 0
    for n, (k, a, b) in enumerate(segments):
        if n:
            parts.append("\n")
            length += 1
        piece = lines[k][a:b]
        at_text.append(length)
        at_page.append(starts[k] + a)
        parts.append(piece)
        length += len(piece)
    text = "".join(parts)

    def where(pos: int) -> int:
        n = bisect.bisect_right(at_text, pos) - 1
        return at_page[n] + pos - at_text[n]

    out: list[Token] = []
    pos = 0

    def add_text(upto: int) -> None:
        at = pos
        for m in _ESCAPED.finditer(text, pos, upto):
            add_plain(text[at : m.start()])
            options = _ALIASES.sub(lambda a: " " * len(a.group(0)), _ESCAPES.sub("", m.group(0)))
            add_code(m.start(), m.end(), options, "")
            at = m.end()
        add_plain(text[at:upto])

    def add_plain(chunk: str) -> None:
        for n, piece in enumerate(chunk.split("\n")):
            if n:
                out.append(Token("softbreak", "br", 0))
            if piece.strip():
                t = Token("text", "", 0)
                t.content = piece
                out.append(t)

    def add_code(lo: int, hi: int, content: str, markup: str) -> None:
        t = Token("code_inline", "code", 0)
        t.content = content
        t.markup = markup
        t.meta = {"start": where(lo), "end": where(hi - 1) + 1}
        out.append(t)

    if code is not None and segments:
        k, a, _ = segments[0]
        lo, hi = code[0] - a, code[1] - a
        if 0 <= lo < hi <= len(lines[k]) - a:
            options = _ALIASES.sub(lambda m: " " * len(m.group(0)), text[lo:hi])
            add_code(lo, hi, f"{program} {options}" if program else options, "")
            pos = hi
    for lo, hi, content, href, role in _markup(text, pos):
        if role == "option" and program and content.startswith("-"):
            content = f"{program} {content}"
        add_text(lo)
        if href is not None:
            link = Token("link_open", "a", 1)
            link.attrSet("href", href)
            label = Token("text", "", 0)
            label.content = text[lo + 1 : text.rfind("<", lo, hi)].strip() or href
            out.extend([link, label, Token("link_close", "a", -1)])
        else:
            add_code(lo, hi, content, "``")
        pos = hi
    add_text(len(text))
    return out


def _markup(text: str, pos: int) -> list[tuple[int, int, str, str | None, str]]:
    """(start, end, code, href) of each inline literal, code role and `text <href>`_ link of
    `text` from `pos`: a literal's content and a role's target (`~pkg.Foo` is `pkg.Foo`), or the
    href of a link. One pass over the runs of backticks."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text, pos)]
    out: list[tuple[int, int, str, str | None, str]] = []
    i = 0
    while i < len(runs):
        a, b = runs[i]
        if b - a == 2 and _opens(text, a, b):
            close = next(
                (n for n in range(i + 1, min(len(runs), i + _LOOKAHEAD)) if _is_close(text, runs[n])),
                None,
            )
            if close is not None:
                c, d = runs[close]
                out.append((a, d, text[b:c], None, ""))
                i = close + 1
                continue
        elif b - a == 1 and _opens(text, a, b):
            ahead = range(i + 1, min(len(runs), i + _LOOKAHEAD))
            close = next((n for n in ahead if runs[n][1] - runs[n][0] == 1), None)
            if close is not None:
                c, d = runs[close]
                inner = text[b:c]
                role = _ROLE.search(text, max(0, a - 40), a)
                target = _TITLED.fullmatch(inner)
                if role is not None and role.group(1).split(":")[-1] in _CODE_ROLES:
                    name = (target.group(2) if target else inner).strip().lstrip("~!")
                    out.append((a - len(role.group(0)), d, name, None, role.group(1).split(":")[-1]))
                elif role is not None and target is not None and _OPTION_TITLE.fullmatch(target.group(1)):
                    # the title's options, the words joining them blanked (columns kept)
                    title = _JOINERS.sub(lambda j: " " * len(j.group(0)), target.group(1))
                    out.append((b, b + len(title), title, None, role.group(1).split(":")[-1]))
                elif role is None and target is not None and text[d : d + 1] == "_":
                    out.append(
                        (a, d + (2 if text[d : d + 2] == "__" else 1), "", target.group(2).strip(), "")
                    )
                i = close + 1
                continue
        i += 1
    return out


def _is_close(text: str, run: tuple[int, int]) -> bool:
    return run[1] - run[0] == 2 and _closes(text, *run)


def _opens(text: str, a: int, b: int) -> bool:
    before = text[a - 1] if a else " "
    after = text[b] if b < len(text) else " "
    return (before.isspace() or before in "'\"([{<-/:‘“’«¡¿") and not after.isspace()


def _closes(text: str, a: int, b: int) -> bool:
    before = text[a - 1] if a else " "
    after = text[b] if b < len(text) else " "
    return not before.isspace() and (after.isspace() or after in "'\")]}>-/:.,;!?\\’”»")
