"""Findings as the check makes them, for the format tests: one doc page, one code file."""

from __future__ import annotations

from bot.core.model import CodeLocation, DocLocation, Finding, Suggestion

PAGE = "docs/user-guide/backend.md"


def finding(
    symbol="--disable-fp32-master",
    *,
    kind="renamed",
    severity="error",
    message="renamed to --no-keep-fp32-master",
    line=12,
    section="FSDP > 3. Precision",
    doc_path=PAGE,
    code=("pkg/args.py", 40),
    replacement=None,
    span=None,
    blocking=True,
    no_doc=False,
):
    """A finding on doc line `line`; `replacement` suggests new text for it (or for `span`, a
    (start_line, end_line) pair)."""
    start, end = span or (line, line)
    return Finding(
        kind=kind,
        severity=severity,
        symbol=symbol,
        message=message,
        rule="backend-page",
        doc=None if no_doc else DocLocation(doc_path, line, section, "3-precision"),
        code=CodeLocation(*code) if code else None,
        suggestion=Suggestion(doc_path, start, end, replacement) if replacement is not None else None,
        blocking=blocking,
    )


def page(lines: int = 40) -> str:
    """A doc page whose line n reads 'line n'."""
    return "".join(f"line {n}\n" for n in range(1, lines + 1))
