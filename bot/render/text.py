"""The terminal format: a summary line, then the findings grouped by doc section.

Every line number says what it is: `doc docs/x.md:15` is the doc line, `code pkg/args.py:33` the
code line that made it wrong. A suggestion reads as a diff: `-` the doc line as it is, `+` the
line it should become (only `+` when the page cannot be read).
"""

from __future__ import annotations

from bot.core.model import Finding, Report
from bot.render.common import DELETE, DocText, group_title, grouped, new_lines, old_lines, summary_line

_ANSI = {
    "error": "\x1b[31m",
    "warning": "\x1b[33m",
    "notice": "\x1b[36m",
    "bold": "\x1b[1m",
    "-": "\x1b[31m",
    "+": "\x1b[32m",
}
_RESET = "\x1b[0m"
WIDTH = 100  # longest suggestion line shown by default; the json and patch formats carry the whole text


def to_text(
    report: Report,
    fail_on: str | None = None,
    *,
    doc_text: DocText | None = None,
    color: bool = False,
    width: int = WIDTH,
) -> str:
    """`width`: the longest suggestion line shown (the terminal's, on the command line)."""

    def paint(style: str, text: str) -> str:
        return f"{_ANSI[style]}{text}{_RESET}" if color else text

    out = [paint("bold", summary_line(report, fail_on))]
    for key, findings in grouped(report.findings):
        out.append("")
        out.append(paint("bold", group_title(key)))
        for f in findings:
            where = _where(f)
            message = f.message.replace("\n", "\n    ")
            out.append(f"  {where}{paint(f.severity, f.severity)}  {f.kind}  {f.symbol}: {message}")
            if f.doc and f.code:
                out.append(f"    code {f.code.path}:{f.code.line}")
            out += [
                f"    {paint(line[0], line) if line[0] in '+-' else line}"
                for line in _suggestion(f, doc_text, width)
            ]
    if report.ignored:
        out.append("")
        out.append(paint("bold", f"ignored ({len(report.ignored)})"))
        for f, reason in report.ignored:
            out.append(f"  {f.symbol}  {f.kind}: {reason}")
    return "\n".join(out)


def _where(f: Finding) -> str:
    if f.doc:
        return f"doc {f.doc.path}:{f.doc.line}  "
    if f.code:
        return f"code {f.code.path}:{f.code.line}  "
    return ""


def _suggestion(f: Finding, doc_text: DocText | None, width: int) -> list[str]:
    s = f.suggestion
    if s is None:
        return []
    old = old_lines(s, doc_text)
    new = new_lines(s)
    if old is None and not new:
        return [f"suggest: {DELETE}"]
    return [_clip(f"- {line}", width) for line in old or ()] + [_clip(f"+ {line}", width) for line in new]


def _clip(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"
