"""Formatters of a `Report`: JSON for machines, text for terminals, markdown for GitHub, workflow commands.

All of them are pure: they take a report (and whatever the caller knows, such as how to link
to a doc line) and return a string.

The JSON output is a stable contract, with exactly these top-level keys:

    {
      "conclusion": "success" | "neutral" | "failure",      # report.conclusion(fail_on)
      "findings": [                                          # in report order
        {
          "kind": "renamed",                                 # see bot.core.model.FindingKind
          "severity": "error" | "warning" | "notice",
          "symbol": "--disable-fp32-master",
          "message": "...",
          "doc": {"path": ..., "line": ..., "section": ..., "anchor": ...} | null,
          "code": {"path": ..., "line": ...} | null,
          "suggestion": {"path": ..., "start_line": ..., "end_line": ..., "replacement": ...} | null
        }
      ],
      "ignored": [{"symbol": ..., "reason": ..., "kind": ...}]   # waived findings; may be empty
    }

Nothing else (rule ids, explanations, fingerprints) is part of it; add keys only with a version bump.

A suggestion with an empty replacement deletes its lines; every format says so.

Text and markdown group findings by doc section, in the order the sections first appear in the
report; inside a section findings are listed by doc line. Findings without a doc location are
grouped under their code path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from bot.core.model import Finding, Report

SEVERITIES = ("error", "warning", "notice")

_ANSI = {"error": "\x1b[31m", "warning": "\x1b[33m", "notice": "\x1b[36m", "bold": "\x1b[1m"}
_RESET = "\x1b[0m"

_BADGE = {"error": "🔴", "warning": "🟡", "notice": "🔵"}
_CONCLUSION_ICON = {"success": "✅", "neutral": "⚠️", "failure": "❌"}

_SUGGEST_WIDTH = 100
DELETE = "(delete the line)"  # how an empty replacement reads


# ---------------------------------------------------------------- JSON


def to_json(report: Report, fail_on: str | None = None) -> str:
    data = {
        "conclusion": report.conclusion(fail_on),
        "findings": [_finding_dict(f) for f in report.findings],
        "ignored": [{"symbol": f.symbol, "reason": reason, "kind": f.kind} for f, reason in report.ignored],
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


def _finding_dict(f: Finding) -> dict:
    doc = code = suggestion = None
    if f.doc:
        doc = {"path": f.doc.path, "line": f.doc.line, "section": f.doc.section, "anchor": f.doc.anchor}
    if f.code:
        code = {"path": f.code.path, "line": f.code.line}
    if f.suggestion:
        s = f.suggestion
        suggestion = {
            "path": s.path,
            "start_line": s.start_line,
            "end_line": s.end_line,
            "replacement": s.replacement,
        }
    return {
        "kind": f.kind,
        "severity": f.severity,
        "symbol": f.symbol,
        "message": f.message,
        "doc": doc,
        "code": code,
        "suggestion": suggestion,
    }


# ---------------------------------------------------------------- shared pieces


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _counts(findings: Sequence[Finding]) -> str:
    """'2 errors, 1 warning': only the severities present, most severe first."""
    parts = []
    for sev in SEVERITIES:
        n = sum(1 for f in findings if f.severity == sev)
        if n:
            parts.append(_plural(n, sev))
    return ", ".join(parts)


def summary_line(report: Report, fail_on: str | None = None) -> str:
    """One line for logs: 'docs-sync: failure, 2 errors, 1 warning (5 rules checked)'."""
    what = _counts(report.findings) or "no findings"
    if report.ignored:
        what += f", {len(report.ignored)} ignored"
    checked = _plural(len(report.rules_checked), "rule") + " checked"
    return f"docs-sync: {report.conclusion(fail_on)}, {what} ({checked})"


def _group_key(f: Finding) -> tuple[str, str | None]:
    if f.doc:
        return (f.doc.path, f.doc.section)
    if f.code:
        return (f.code.path, None)
    return ("", None)


def _group_title(key: tuple[str, str | None]) -> str:
    path, section = key
    if not path:
        return "(no location)"
    return f"{path} › {section}" if section else path


def _line_of(f: Finding) -> int | None:
    if f.doc:
        return f.doc.line
    if f.code:
        return f.code.line
    return None


def _grouped(findings: Sequence[Finding]) -> list[tuple[tuple[str, str | None], list[Finding]]]:
    groups: dict[tuple[str, str | None], list[Finding]] = {}
    for f in findings:
        groups.setdefault(_group_key(f), []).append(f)
    # Sorting is stable, so findings on the same line keep the report's order.
    return [(key, sorted(fs, key=lambda f: _line_of(f) or 0)) for key, fs in groups.items()]


# ---------------------------------------------------------------- text


def to_text(report: Report, fail_on: str | None = None, color: bool = False) -> str:
    def paint(style: str, text: str) -> str:
        return f"{_ANSI[style]}{text}{_RESET}" if color else text

    out = [paint("bold", summary_line(report, fail_on))]
    for key, findings in _grouped(report.findings):
        out.append("")
        out.append(paint("bold", _group_title(key)))
        for f in findings:
            line = _line_of(f)
            where = f"line {line}  " if line is not None else ""
            message = f.message.replace("\n", "\n    ")
            out.append(f"  {where}{paint(f.severity, f.severity)}  {f.kind}  {f.symbol}: {message}")
            if f.doc and f.code:
                out.append(f"    code: {f.code.path}:{f.code.line}")
            if f.suggestion:
                out.append(f"    suggest: {_first_line(f.suggestion.replacement) or DELETE}")
    if report.ignored:
        out.append("")
        out.append(paint("bold", f"ignored ({len(report.ignored)})"))
        for f, reason in report.ignored:
            out.append(f"  {f.symbol}  {f.kind}: {reason}")
    return "\n".join(out)


def _first_line(text: str) -> str:
    first, _, rest = text.partition("\n")
    if len(first) > _SUGGEST_WIDTH:
        return first[: _SUGGEST_WIDTH - 1] + "…"
    return first + " …" if rest else first


# ---------------------------------------------------------------- markdown

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


def _md_link(label: str, url: str) -> str:
    if re.search(r"[\s()<>]", url):
        url = f"<{url.replace('<', '%3C').replace('>', '%3E')}>"
    return f"[{label}]({url})"


def _md_finding(f: Finding, doc_url: Callable[[str, int, int], str] | None) -> str:
    head = f"- {_BADGE[f.severity]} **{f.kind}** {md_code(f.symbol)}: {md_escape(f.message)}"
    if f.doc:
        label = f"line {f.doc.line}"
        if doc_url:
            label = _md_link(label, doc_url(f.doc.path, f.doc.line, f.doc.line))
        head += f" ({label})"
    lines = [head]
    if f.code:
        lines.append(f"  - code: {md_code(f'{f.code.path}:{f.code.line}')}")
    if f.suggestion and not f.suggestion.replacement:
        lines += ["", f"  Suggested doc change: {DELETE}", ""]
    elif f.suggestion:
        # Every body line starts with "+", so no line of the replacement can close the fence.
        lines += [
            "",
            "  <details><summary>Suggested doc change</summary>",
            "",
            "  ```diff",
            *("  +" + line for line in f.suggestion.replacement.split("\n")),
            "  ```",
            "",
            "  </details>",
            "",
        ]
    return "\n".join(lines) + "\n"


def _md_group_header(
    key: tuple[str, str | None], findings: Sequence[Finding], doc_url: Callable[[str, int, int], str] | None
) -> str:
    title = md_escape(_group_title(key))
    path, section = key
    if doc_url and section is not None:
        lines = [f.doc.line for f in findings if f.doc]
        title = _md_link(title, doc_url(path, min(lines), max(lines)))
    return f"\n### {title}\n\n"


def to_markdown(
    report: Report,
    fail_on: str | None = None,
    *,
    doc_url: Callable[[str, int, int], str] | None = None,
    limit: int = 65_000,
) -> str:
    """The check-run summary and PR summary comment, at most `limit` characters long.

    `doc_url(path, start, end)` links doc lines (a permalink at the head commit); without it
    locations are plain text. When everything does not fit, whole findings are cut from the end
    and a last line says how many.
    """
    conclusion = report.conclusion(fail_on)
    counts = _counts(report.findings) or "no findings"
    title = f"## {_CONCLUSION_ICON[conclusion]} docs-sync: {conclusion} — {counts}\n\n"
    title += _plural(len(report.rules_checked), "rule") + " checked"
    if report.ignored:
        title += ", " + _plural(len(report.ignored), "ignored finding")
    title += ".\n"

    pieces = []  # one per finding, carrying its section header when it opens a section
    for key, findings in _grouped(report.findings):
        header = _md_group_header(key, findings, doc_url)
        pieces += [(header if i == 0 else "") + _md_finding(f, doc_url) for i, f in enumerate(findings)]
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
    return f"\n… and {_plural(n, 'ignored finding')} not listed here\n"


def _more_notice(n: int) -> str:
    return f"\n… and {_plural(n, 'more finding')} (see the check run annotations)\n"


def _md_ignored(report: Report) -> str:
    lines = ["\n### Ignored\n"]
    for f, reason in report.ignored:
        lines.append(f"- {md_code(f.symbol)} ({f.kind}): {md_escape(reason)}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- GitHub Actions


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(report: Report, fail_on: str | None = None) -> str:
    """GitHub Actions workflow commands, one annotation per finding, then a plain summary line."""
    out = []
    for f in report.findings:
        props = []
        if f.doc:
            props += [f"file={_gh_property(f.doc.path)}", f"line={f.doc.line}"]
        elif f.code:
            props += [f"file={_gh_property(f.code.path)}", f"line={f.code.line}"]
        props.append(f"title={_gh_property(f'docs-sync {f.kind} {f.symbol}')}")
        message = f.message
        if f.doc and f.code:
            message += f"\ncode: {f.code.path}:{f.code.line}"
        if f.suggestion:
            message += f"\nsuggested:\n{f.suggestion.replacement or DELETE}"
        out.append(f"::{f.severity} {','.join(props)}::{_gh_data(message)}")
    out.append(summary_line(report, fail_on))
    return "\n".join(out)


# ---------------------------------------------------------------- suggestion diff


def suggestion_diff(finding: Finding, doc_lines: Sequence[str]) -> str:
    """The body of a ```diff block: '-' the current doc lines the suggestion replaces, '+' the new ones.

    `doc_lines` are the doc's lines at the revision the suggestion was made against (line 1 is
    `doc_lines[0]`; trailing newlines are ignored). An `end_line` before `start_line` replaces
    nothing, so the block only adds lines; an empty replacement adds none, so it only removes.
    """
    s = finding.suggestion
    if s is None:
        raise ValueError(f"finding for {finding.symbol!r} has no suggestion")
    if s.start_line < 1 or s.end_line > len(doc_lines):
        raise ValueError(
            f"suggestion lines {s.start_line}-{s.end_line} are outside {s.path} ({len(doc_lines)} lines)"
        )
    old = [line.rstrip("\r\n") for line in doc_lines[s.start_line - 1 : s.end_line]]
    new = s.replacement.split("\n") if s.replacement else []
    return "\n".join(["-" + line for line in old] + ["+" + line for line in new])
