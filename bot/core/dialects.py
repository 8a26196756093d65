"""MDX and Quarto pages, read as the CommonMark they carry.

Each is turned into a Markdown page of the same lines and columns: what is not Markdown is
overwritten with spaces, so every position markdown-it reports is the page's own.

- MDX: `import`/`export` statements (up to the blank line that ends them) and JS expressions
  (`{props.x}`, `{/* comments */}`) outside code are blanked; JSX tags are left to the page
  reader, which reads the Markdown between them. A heading's `{#custom-id}` stays.
- Quarto: an executable chunk's braces (```` ```{bash} ````, ```` ```{.python} ````) become the
  fence's language, fenced divs (`::: {.callout-note}`, `:::`) and shortcodes (`{{< ... >}}`)
  are blanked.
"""

from __future__ import annotations

import json
import re
from typing import Literal

_FENCE = re.compile(r"\s{0,3}(`{3,}|~{3,})")
_ESM = re.compile(r"(?:import|export)\b")
_HEADING_ID = re.compile(r"\s*\{:?\s*#[^\s}]+[^}]*\}\s*$")
_CHUNK = re.compile(r"(\s{0,3}(?:`{3,}|~{3,}))\s*\{\s*\.?([A-Za-z][\w+-]*)[^}]*\}(.*)")
_DIV = re.compile(r"\s*:::+(?:\s.*|\{.*)?$")
_SHORTCODE = re.compile(r"\{\{[<%].*?[>%]\}\}")

_Role = Literal["text", "opens", "code"]


def _closes(opened: re.Match[str] | None, fence: str) -> bool:
    """Whether a fence line closes `fence`: the same character, at least as many of it."""
    return opened is not None and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence)


def _fenced(fence: str | None, line: str, may_open: bool = True) -> tuple[str | None, _Role]:
    """The fence open after `line`, given the one open before it (None: none), and what the line
    is: "text" (the page's own), "opens" (a fence's first line, when `may_open`) or "code" (inside
    a fence, or its closing line)."""
    opened = _FENCE.match(line)
    if fence is not None:
        return (None if _closes(opened, fence) else fence), "code"
    if may_open and opened:
        return opened.group(1), "opens"
    return None, "text"


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def mdx(lines: list[str]) -> list[str]:
    out = list(lines)
    fence: str | None = None
    depth = 0  # open braces of a JS expression carried across lines
    esm = False
    for i, line in enumerate(lines):
        fence, role = _fenced(fence, line, may_open=depth == 0)  # inside `{...}` no fence opens
        if role != "text":
            continue
        if esm or (depth == 0 and _ESM.match(line)):
            esm = bool(line.strip())
            out[i] = _blank(line) if esm else line
            continue
        out[i], depth = _expressions(line, depth)
    return out


def _expressions(line: str, depth: int) -> tuple[str, int]:
    """The line with JS expressions blanked, outside code spans; the braces still open after it."""
    chars = list(line)
    keep_id = _HEADING_ID.search(line) if line.lstrip().startswith("#") else None
    i = 0
    while i < len(chars):
        c = chars[i]
        if depth == 0:
            if c == "\\":
                i += 2
                continue
            if c == "`":
                run = len(line[i:]) - len(line[i:].lstrip("`"))
                close = line.find("`" * run, i + run)
                i = close + run if close >= 0 else i + run
                continue
            if c == "{" and not (keep_id and i >= keep_id.start()):
                depth = 1
                chars[i] = " "
        else:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            chars[i] = " "
        i += 1
    blanked = "".join(chars)
    lead = len(line) - len(line.lstrip())
    if blanked.strip() and not blanked[lead].strip():
        # What follows an expression at the start of a line is not indented code: keep the
        # line's first character a character (a zero-width space, which no citation holds).
        blanked = blanked[:lead] + "\u200b" + blanked[lead + 1 :]
    return blanked, depth


def quarto(lines: list[str]) -> list[str]:
    out = list(lines)
    fence: str | None = None
    for i, line in enumerate(lines):
        fence, role = _fenced(fence, line)
        if role == "opens":
            chunk = _CHUNK.fullmatch(line)
            if chunk:
                out[i] = f"{chunk.group(1)}{chunk.group(2)}"
        if role != "text":
            continue
        if _DIV.fullmatch(line):
            out[i] = _blank(line)
        elif "{{" in line:
            out[i] = _SHORTCODE.sub(lambda m: _blank(m.group(0)), line)
    return out


# A Jupyter notebook as nbformat writes it: one JSON string a line for each line of a cell.
_CELL_TYPE = re.compile(r'\s*"cell_type":\s*"(\w+)"')
_SOURCE_OPENS = re.compile(r'\s*"source":\s*\[\s*$')
_SOURCE_ITEM = re.compile(r'\s*("(?:[^"\\]|\\.)*")\s*,?\s*$')


def notebook(lines: list[str]) -> list[str]:
    """The page a notebook (`.ipynb`) shows, line for line with the file: each line of a
    markdown cell on the line of its JSON string, a code cell as a fenced shell block whose
    quotes are blanked (the command a cell hands `launch_server_cmd('python3 -m pkg.serve
    --port 8000')`, in a triple-quoted string too, reads as the command it runs: a string opening
    with a word and holding an option starts a command), everything else
    blank. A cell's lines are found by their layout; the JSON is not loaded."""
    out = [""] * len(lines)
    cell, inside = "", False
    for i, line in enumerate(lines):
        if not inside:
            found = _CELL_TYPE.match(line)
            if found:
                cell = found.group(1)
            elif _SOURCE_OPENS.match(line) and cell in ("markdown", "code"):
                inside = True
                out[i] = "```bash" if cell == "code" else ""
            continue
        item = _SOURCE_ITEM.match(line)
        if item is None:  # the array's `]`: the cell ends
            inside = False
            if cell == "code":
                out[i] = "```"
            continue
        try:
            text = json.loads(item.group(1))
        except ValueError:
            continue
        text = text.rstrip("\n")
        if cell == "code":
            # A string that starts a command (`run("python x.py --lr 1")`) starts one here too.
            text = _QUOTES.sub(" ", _COMMAND_STRING.sub("; ", text)).replace("`", " ")
        out[i] = text
    return out


_QUOTES = re.compile(r"[\"']")
# The quote opening a string that holds a command line: a word, then an option before it closes.
_COMMAND_STRING = re.compile(r"[\"'](?=[A-Za-z_./][\w.:/-]*\s[^\"']*?(?<=\s)-)")
