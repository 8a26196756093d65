"""Every suggestion as one unified diff (`--format patch`), to apply from the repository root:

    docs-sync check --base origin/main --format patch > docs.patch && git apply docs.patch

Each doc page the suggestions change gets one `diff --git` section, with one hunk per changed
region (regions closer than twice the context share a hunk, as git writes them). An empty
replacement deletes its lines. The pages are read at the revision the findings are about, and
the diff is against that text, so it applies to a checkout of it.

Two suggestions for overlapping lines cannot both apply; the first (by line) is kept and the
other is named in a `#` line before the diffs, which `git apply` skips.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.model import Report, Suggestion
from bot.render.common import DocText, RenderError, new_lines, replaced_lines

CONTEXT = 3  # lines of context around each change, as `git diff` writes
_NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass
class _Edit:
    start: int  # index of the first line replaced
    end: int  # index after the last line replaced (== start for an insertion)
    new: list[str]  # the lines put in their place, with their line endings


def to_patch(report: Report, doc_text: DocText | None) -> str:
    if doc_text is None:
        raise RenderError("the patch format needs the doc pages' text")
    by_path: dict[str, list[Suggestion]] = {}
    for f in report.findings:
        s = f.suggestion
        if s is not None and s not in by_path.get(s.path, ()):
            by_path.setdefault(s.path, []).append(s)
    notes: list[str] = []
    diffs: list[str] = []
    for path in sorted(by_path):
        text = doc_text(path)
        if text is None:
            raise RenderError(f"cannot write a patch: {path} cannot be read")
        if re.search(r"\r(?!\n)", text):
            raise RenderError(f"cannot write a patch: {path} ends lines with a bare CR")
        old = re.findall(r"[^\n]*\n|[^\n]+$", text)
        edits = _edits(path, old, by_path[path], notes)
        if edits:
            diffs.append(_file_diff(path, old, edits))
    return "".join(f"# docs-sync: {note}\n" for note in notes) + "".join(diffs)


def _edits(path: str, old: list[str], suggestions: Sequence[Suggestion], notes: list[str]) -> list[_Edit]:
    eol = next(("\r\n" if line.endswith("\r\n") else "\n" for line in old if line.endswith("\n")), "\n")
    open_end = bool(old) and not old[-1].endswith("\n")  # the last line has no newline
    edits: list[_Edit] = []
    for s in sorted(suggestions, key=lambda s: (s.start_line, s.end_line)):
        replaced = replaced_lines(s, old)  # raises when the lines are not in the page
        start, end = s.start_line - 1, s.end_line
        new = [line + eol for line in new_lines(s)]
        if replaced == [line.rstrip("\r\n") for line in new]:
            continue  # changes nothing
        if edits and start < edits[-1].end:
            notes.append(f"left out, overlaps another suggestion: {path} lines {s.start_line}-{s.end_line}")
            continue
        if open_end and end == len(old):
            if start == end:
                # Lines added after a last line without a newline: that line gains one, so it
                # changes too, together with any edit already ending there.
                if edits and edits[-1].end == end:
                    prev = edits.pop()
                    start, head = prev.start, prev.new
                else:
                    start, head = end - 1, [old[-1]]
                new = [line if line.endswith("\n") else line + eol for line in head] + new
            if new:
                new[-1] = new[-1].removesuffix(eol)  # the page still ends without a newline
        edits.append(_Edit(start, end, new))
    return edits


def _file_diff(path: str, old: list[str], edits: list[_Edit]) -> str:
    a, b = _git_path("a/" + path), _git_path("b/" + path)
    out = [f"diff --git {a} {b}\n", f"--- {a}\n", f"+++ {b}\n"]
    groups: list[list[_Edit]] = []
    for e in edits:
        if groups and e.start - groups[-1][-1].end <= 2 * CONTEXT:
            groups[-1].append(e)
        else:
            groups.append([e])
    shift = 0  # lines the earlier hunks added, minus those they removed
    for group in groups:
        lo, hi = max(0, group[0].start - CONTEXT), min(len(old), group[-1].end + CONTEXT)
        body: list[str] = []
        pos = lo
        for e in group:
            body += [_line(" ", line) for line in old[pos : e.start]]
            body += [_line("-", line) for line in old[e.start : e.end]]
            body += [_line("+", line) for line in e.new]
            pos = e.end
        body += [_line(" ", line) for line in old[pos:hi]]
        old_len = hi - lo
        new_len = old_len + sum(len(e.new) - (e.end - e.start) for e in group)
        # An empty side names the line before it (0 at the top of the file).
        old_start = lo + 1 if old_len else lo
        new_start = lo + shift + 1 if new_len else lo + shift
        out.append(f"@@ -{old_start},{old_len} +{new_start},{new_len} @@\n")
        out += body
        shift += new_len - old_len
    return "".join(out)


def _line(mark: str, line: str) -> str:
    return mark + line if line.endswith("\n") else mark + line + "\n" + _NO_NEWLINE


_QUOTE = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _git_path(path: str) -> str:
    """A path as git writes it in a diff header: quoted, C style, when it holds a quote, a backslash
    or a control character."""
    if not any(c in _QUOTE or ord(c) < 0x20 for c in path):
        return path
    return '"' + "".join(_QUOTE.get(c, f"\\{ord(c):03o}" if ord(c) < 0x20 else c) for c in path) + '"'
