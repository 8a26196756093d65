"""Suppressions written where the line is, like a linter's `# noqa`:

    <!-- docs-sync: ignore [kind] [symbol] [-- reason] -->      Markdown, MDX, Quarto
    {/* docs-sync: ignore [kind] [symbol] [-- reason] */}       MDX
    .. docs-sync: ignore [kind] [symbol] [-- reason]            reStructuredText (a comment)

After text on a line, a comment covers that line; alone on its line, the block below it: up to
the next blank line, or a whole code block (a fence, a directive and its body). `kind` is a
finding kind (`unresolved`), `symbol` a token as findings name it (`--x`, which also takes
`--x gloo`); either or both may be left out. A suppressed finding is reported as ignored, with
the reason and where the comment is. An audit reports a suppression that covers no finding as
an `unused-ignore` notice, so a stale one does not hide the next real finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from bot.core.kinds import FINDING_KINDS
from bot.core.model import SEVERITY_RANK, DocLocation, Finding, Report
from bot.core.rules import Rule

KINDS = frozenset(k.name for k in FINDING_KINDS)
_HTML = re.compile(r"<!--\s*docs-sync:\s*ignore\b(?P<args>.*?)-->")
_MDX = re.compile(r"\{/\*\s*docs-sync:\s*ignore\b(?P<args>.*?)\*/\}")
_RST = re.compile(r"(?P<indent>\s*)\.\.\s+docs-sync:\s*ignore\b(?P<args>.*)$")
_FENCE = re.compile(r"\s*(`{3,}|~{3,})")
_MARKER = "docs-sync:"
MAX_LINE = 2_000  # a longer line holds no suppression (the patterns stay linear on it anyway)


@dataclass(frozen=True)
class Suppression:
    path: str
    line: int  # the comment's line
    first: int  # the lines it covers
    last: int
    kind: str | None
    symbol: str | None
    reason: str

    def covers(self, f: Finding) -> bool:
        if f.doc is None or f.doc.path != self.path or not self.first <= f.doc.line <= self.last:
            return False
        if self.kind is not None and f.kind != self.kind:
            return False
        return self.symbol is None or self.symbol in (f.symbol, f.symbol.split(" ", 1)[0])


def _arguments(args: str) -> tuple[str | None, str | None, str]:
    """(kind, symbol, reason) of `ignore [kind] [symbol] [-- reason]`."""
    words = args.split()
    reason: list[str] = []
    if "--" in words:
        at = words.index("--")
        words, reason = words[:at], words[at + 1 :]
    kind = words.pop(0) if words and words[0] in KINDS else None
    symbol = words.pop(0).strip("`") if words else None
    return kind, symbol or None, " ".join(words + reason)


def suppressions(path: str, text: str) -> list[Suppression]:
    """The suppressions a page writes."""
    if _MARKER not in text:
        return []
    lines = text.replace("\r\n", "\n").split("\n")
    rst = path.lower().endswith((".rst", ".rest"))
    out = []
    for i, line in enumerate(lines):
        if _MARKER not in line or len(line) > MAX_LINE:
            continue
        if rst:
            m = _RST.match(line)
            found = [m] if m else []
        else:
            found = [*_HTML.finditer(line), *(_MDX.finditer(line) if path.lower().endswith(".mdx") else ())]
        for m in found:
            kind, symbol, reason = _arguments(m.group("args"))
            alone = not line[: m.start()].strip() and not line[m.end() :].strip()
            first, last = (_rst_block(lines, i) if rst else _block(lines, i)) if alone else (i + 1, i + 1)
            out.append(Suppression(path, i + 1, first, last, kind, symbol, reason))
    return out


def _next(lines: list[str], i: int) -> int:
    """The 0-based index of the first non-blank line after line i (len(lines) when none)."""
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    return j


def _block(lines: list[str], i: int) -> tuple[int, int]:
    """The 1-based lines of the Markdown block below line i: a fence whole, else to a blank line."""
    j = _next(lines, i)
    if j >= len(lines):
        return i + 1, i + 1
    fence = _FENCE.match(lines[j])
    k = j + 1
    if fence:
        mark = fence.group(1)
        while k < len(lines) and not lines[k].strip().startswith(mark[0] * len(mark)):
            k += 1
        return j + 1, min(k + 1, len(lines))
    while k < len(lines) and lines[k].strip():
        k += 1
    return j + 1, k


def _rst_block(lines: list[str], i: int) -> tuple[int, int]:
    """The 1-based lines of the reStructuredText block below line i: the next paragraph, table
    or list to a blank line, or a directive with its indented body."""
    j = _next(lines, i)
    if j >= len(lines):
        return i + 1, i + 1
    indent = len(lines[j]) - len(lines[j].lstrip())
    k = j + 1
    if lines[j].lstrip().startswith(".. ") and "::" in lines[j]:
        while k < len(lines) and (not lines[k].strip() or len(lines[k]) - len(lines[k].lstrip()) > indent):
            k += 1
        while k > j + 1 and not lines[k - 1].strip():
            k -= 1
        return j + 1, k
    while k < len(lines) and lines[k].strip():
        k += 1
    return j + 1, k


def apply(
    report: Report, read: Callable[[str], str | None], pages: Iterable[str] = ()
) -> tuple[Report, list[Suppression]]:
    """`report` with the findings its pages suppress moved to `ignored`, and the suppressions
    that covered nothing on those pages and on `pages`."""
    paths = sorted({f.doc.path for f in report.findings if f.doc is not None} | set(pages))
    found = {path: suppressions(path, read(path) or "") for path in paths}
    used: set[Suppression] = set()
    kept: list[Finding] = []
    ignored = list(report.ignored)
    for f in report.findings:
        by = next((s for s in found.get(f.doc.path, ()) if s.covers(f)), None) if f.doc else None
        if by is None:
            kept.append(f)
            continue
        used.add(by)
        ignored.append((f, f"{by.reason or 'no reason given'} ({by.path}:{by.line})"))
    unused = [s for ss in found.values() for s in ss if s not in used]
    return replace(report, findings=tuple(kept), ignored=tuple(ignored)), unused


def unused_notices(
    unused: Iterable[Suppression], rule_of: Callable[[str], Rule], where: Callable[[str, int], DocLocation]
) -> list[Finding]:
    """An `unused-ignore` notice on each suppression that covered no finding."""
    out = []
    for s in unused:
        rule = rule_of(s.path)
        what = " ".join(w for w in (s.kind, f"`{s.symbol}`" if s.symbol else None) if w) or "anything"
        severity = rule.severity.get("unused-ignore", "notice")
        out.append(
            Finding(
                kind="unused-ignore",
                severity=severity,
                symbol=s.symbol or s.kind or "docs-sync: ignore",
                message=f"this `docs-sync: ignore` ({what}) suppresses no finding; it can go",
                rule=rule.id,
                doc=where(s.path, s.line),
                blocking=rule.fail_on != "never"
                and SEVERITY_RANK[severity] >= SEVERITY_RANK.get(rule.fail_on, 3),
            )
        )
    return out
