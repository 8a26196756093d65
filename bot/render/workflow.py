"""GitHub Actions workflow commands: one `::error file=...,line=...::message` annotation per finding,
then a plain summary line."""

from __future__ import annotations

from bot.core.model import Report
from bot.render.common import DELETE, summary_line


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(report: Report, fail_on: str | None = None) -> str:
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
