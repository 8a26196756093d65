"""The markdown report: the check run's summary and the App's summary comment (`--format markdown`).

Findings are grouped by doc section, each a bullet with its doc line (linked when the caller
knows how) and its code line. A suggestion shows as a ```diff: `-` the doc line as it is, `+`
what it should become (only `+` when the page cannot be read).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.core.model import Finding, Report
from bot.render.common import (
    DELETE,
    DocText,
    GroupKey,
    counts,
    group_title,
    grouped,
    md_code,
    md_escape,
    new_lines,
    old_lines,
    plural,
)

DocUrl = Callable[[str, int, int], str]  # (path, first line, last line) -> a link to those lines

_BADGE = {"error": "🔴", "warning": "🟡", "notice": "🔵"}
_CONCLUSION_ICON = {"success": "✅", "neutral": "⚠️", "failure": "❌"}


def _md_link(label: str, url: str) -> str:
    if re.search(r"[\s()<>]", url):
        url = f"<{url.replace('<', '%3C').replace('>', '%3E')}>"
    return f"[{label}]({url})"


def _md_finding(f: Finding, doc_url: DocUrl | None, doc_text: DocText | None) -> str:
    head = f"- {_BADGE[f.severity]} **{f.kind}** {md_code(f.symbol)}: {md_escape(f.message)}"
    if f.doc:
        label = f"doc line {f.doc.line}"
        if doc_url:
            label = _md_link(label, doc_url(f.doc.path, f.doc.line, f.doc.line))
        head += f" ({label})"
    lines = [head]
    if f.code:
        lines.append(f"  - code: {md_code(f'{f.code.path}:{f.code.line}')}")
    s = f.suggestion
    if s is not None:
        old = old_lines(s, doc_text)
        new = new_lines(s)
        if old is None and not new:
            lines += ["", f"  Suggested doc change: {DELETE}", ""]
        else:
            # Every body line starts with "-" or "+", so no line of the doc can close the fence.
            lines += [
                "",
                "  <details><summary>Suggested doc change</summary>",
                "",
                "  ```diff",
                *("  -" + line for line in old or ()),
                *("  +" + line for line in new),
                "  ```",
                "",
                "  </details>",
                "",
            ]
    return "\n".join(lines) + "\n"


def _md_group_header(key: GroupKey, findings: Sequence[Finding], doc_url: DocUrl | None) -> str:
    title = md_escape(group_title(key))
    path, section = key
    if doc_url and section is not None:
        lines = [f.doc.line for f in findings if f.doc]
        title = _md_link(title, doc_url(path, min(lines), max(lines)))
    return f"\n### {title}\n\n"


def to_markdown(
    report: Report,
    fail_on: str | None = None,
    *,
    doc_url: DocUrl | None = None,
    doc_text: DocText | None = None,
    limit: int = 65_000,
) -> str:
    """The report in GitHub markdown, at most `limit` characters long.

    `doc_url(path, start, end)` links doc lines (a permalink at the head commit); without it
    locations are plain text. `doc_text(path)` reads a doc page at the head, for the lines a
    suggestion replaces. When everything does not fit, whole findings are cut from the end and
    a last line says how many.
    """
    conclusion = report.conclusion(fail_on)
    what = counts(report.findings) or "no findings"
    title = f"## {_CONCLUSION_ICON[conclusion]} docs-sync: {conclusion} — {what}\n\n"
    title += plural(len(report.rules_checked), "rule") + " checked"
    if report.ignored:
        title += ", " + plural(len(report.ignored), "ignored finding")
    title += ".\n"

    pieces = []  # one per finding, carrying its section header when it opens a section
    for key, findings in grouped(report.findings):
        header = _md_group_header(key, findings, doc_url)
        pieces += [
            (header if i == 0 else "") + _md_finding(f, doc_url, doc_text) for i, f in enumerate(findings)
        ]
    ignored = _md_ignored(report) if report.ignored else ""

    text = title + "".join(pieces) + ignored
    if len(text) <= limit:
        return text

    # Keep room for the longest notice we may add, so it always fits after the cut.
    budget = limit - max(len(_more_notice(len(pieces))), len(_ignored_notice(len(report.ignored))))
    parts = [title]
    size = len(title)
    for piece in pieces:
        if size + len(piece) > budget:
            break
        parts.append(piece)
        size += len(piece)
    shown = len(parts) - 1
    if shown < len(pieces):
        parts.append(_more_notice(len(pieces) - shown))
    else:
        # Every finding fits but the ignored list does not; it is the part people need least.
        parts.append(_ignored_notice(len(report.ignored)))
    text = "".join(parts)
    # Only a limit too small for the title itself gets here; a cut mid-line beats a rejected post.
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def _ignored_notice(n: int) -> str:
    return f"\n… and {plural(n, 'ignored finding')} not listed here\n"


def _more_notice(n: int) -> str:
    return f"\n… and {plural(n, 'more finding')} (see the check run annotations)\n"


def _md_ignored(report: Report) -> str:
    lines = ["\n### Ignored\n"]
    for f, reason in report.ignored:
        lines.append(f"- {md_code(f.symbol)} ({f.kind}): {md_escape(reason)}")
    return "\n".join(lines) + "\n"
