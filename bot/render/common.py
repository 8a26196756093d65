"""What the formats share: counts, grouping, markdown quoting, and the old and new lines of a suggestion.

A suggestion replaces doc lines `start_line..end_line` with `replacement` (no trailing newline).
An empty replacement deletes the lines; an `end_line` one before `start_line` replaces nothing,
so the replacement is inserted before `start_line`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.core.model import Finding, Report, Suggestion

SEVERITIES = ("error", "warning", "notice")
DELETE = "(delete the line)"  # how an empty replacement reads where the old lines are unknown

# The text of a doc page at the revision the findings were made against, or None when it cannot
# be read. Formats that show the lines a suggestion replaces ask for it.
DocText = Callable[[str], str | None]


class RenderError(ValueError):
    """A report that cannot be written in the asked format (a suggestion outside its page)."""


@dataclass(frozen=True)
class Options:
    """What a caller knows beyond the report, for every format of `bot.render.FORMATS`."""

    fail_on: str | None = None  # overrides each rule's fail_on in the conclusion
    doc_text: DocText | None = None
    color: bool = False  # ANSI colours, for a terminal
    version: str | None = None  # docs-sync's, for formats that name their tool's (SARIF)
    width: int | None = None  # the text format's longest suggestion line (None: its default)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def counts(findings: Sequence[Finding]) -> str:
    """'2 errors, 1 warning': only the severities present, most severe first."""
    parts = []
    for sev in SEVERITIES:
        n = sum(1 for f in findings if f.severity == sev)
        if n:
            parts.append(plural(n, sev))
    return ", ".join(parts)


def summary_line(report: Report, fail_on: str | None = None) -> str:
    """One line for logs: 'docs-sync: failure, 2 errors, 1 warning (5 rules checked)'."""
    what = counts(report.findings) or "no findings"
    if report.ignored:
        what += f", {len(report.ignored)} ignored"
    checked = plural(len(report.rules_checked), "rule") + " checked"
    return f"docs-sync: {report.conclusion(fail_on)}, {what} ({checked})"


# ---------------------------------------------------------------- grouping

GroupKey = tuple[str, str | None]  # (doc path, section), or (code path, None)


def group_title(key: GroupKey) -> str:
    path, section = key
    if not path:
        return "(no location)"
    return f"{path} › {section}" if section else path


def line_of(f: Finding) -> int | None:
    if f.doc:
        return f.doc.line
    if f.code:
        return f.code.line
    return None


def grouped(findings: Sequence[Finding]) -> list[tuple[GroupKey, list[Finding]]]:
    """Findings by doc section, in the order sections first appear; by doc line inside a section.

    Findings without a doc location are grouped under their code path."""
    groups: dict[GroupKey, list[Finding]] = {}
    for f in findings:
        key: GroupKey = (
            (f.doc.path, f.doc.section) if f.doc else (f.code.path, None) if f.code else ("", None)
        )
        groups.setdefault(key, []).append(f)
    # Sorting is stable, so findings on the same line keep the report's order.
    return [(key, sorted(fs, key=lambda f: line_of(f) or 0)) for key, fs in groups.items()]


# ---------------------------------------------------------------- markdown quoting

# Characters that change meaning in GitHub markdown outside code spans. Backslash-escaping any
# ASCII punctuation is valid CommonMark, so escaping a few too many is harmless.
_MD_SPECIAL = re.compile(r"([\\*_\[\]<>|~#&`])")


def md_code(text: str) -> str:
    """`text` as an inline code span, with a fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    # A span that starts or ends with a backtick needs a space so the fence is not read as longer.
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_escape(text: str) -> str:
    """Escape markdown in text that may quote code, keeping its well-formed `code spans` as they are.

    Newlines become spaces: every use is inside one bullet or heading line.
    """
    text = " ".join(text.splitlines())
    out = []
    i = 0
    plain_start = 0
    while i < len(text):
        if text[i] != "`":
            i += 1
            continue
        run = len(text) - i - len(text[i:].lstrip("`"))
        close = _closing_run(text, i + run, run)
        if close is None:
            i += run  # unmatched backticks stay in the plain part and get escaped
            continue
        out.append(_MD_SPECIAL.sub(r"\\\1", text[plain_start:i]))
        out.append(text[i : close + run])
        i = plain_start = close + run
    out.append(_MD_SPECIAL.sub(r"\\\1", text[plain_start:]))
    return "".join(out)


def _closing_run(text: str, start: int, length: int) -> int | None:
    """Index of the next backtick run of exactly `length` at or after `start` (CommonMark code spans)."""
    for m in re.finditer(r"`+", text[start:]):
        if len(m.group()) == length:
            return start + m.start()
    return None


# ---------------------------------------------------------------- a suggestion's old and new lines


def split_lines(text: str) -> list[str]:
    """A page's lines as the check numbers them (bot.core.page): CRLF and CR end lines too."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline ending the last line does not start another
    return lines


def new_lines(s: Suggestion) -> list[str]:
    return s.replacement.split("\n") if s.replacement else []


def replaced_lines(s: Suggestion, doc_lines: Sequence[str]) -> list[str]:
    """The lines of `doc_lines` (line 1 is `doc_lines[0]`, line endings ignored) that `s` replaces."""
    if s.start_line < 1 or s.end_line < s.start_line - 1 or s.end_line > len(doc_lines):
        raise RenderError(
            f"suggestion lines {s.start_line}-{s.end_line} are outside {s.path} ({len(doc_lines)} lines)"
        )
    return [line.rstrip("\r\n") for line in doc_lines[s.start_line - 1 : s.end_line]]


def old_lines(s: Suggestion, doc_text: DocText | None) -> list[str] | None:
    """The lines `s` replaces, read through `doc_text`; None when the page or the lines are not there."""
    text = doc_text(s.path) if doc_text else None
    if text is None:
        return None
    try:
        return replaced_lines(s, split_lines(text))
    except RenderError:
        return None  # the page changed since the check; the new lines alone still say something


def suggestion_diff(finding: Finding, doc_lines: Sequence[str]) -> str:
    """The body of a ```diff block: '-' the current doc lines the suggestion replaces, '+' the new ones.

    `doc_lines` are the doc's lines at the revision the suggestion was made against (line 1 is
    `doc_lines[0]`; trailing newlines are ignored). An `end_line` before `start_line` replaces
    nothing, so the block only adds lines; an empty replacement adds none, so it only removes.
    """
    s = finding.suggestion
    if s is None:
        raise RenderError(f"finding for {finding.symbol!r} has no suggestion")
    old = replaced_lines(s, doc_lines)
    return "\n".join(["-" + line for line in old] + ["+" + line for line in new_lines(s)])
