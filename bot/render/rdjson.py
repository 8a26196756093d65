"""reviewdog's Diagnostic JSON, rdjson (`--format rdjson`), so reviewdog posts the findings on a
pull request, suggestions included, from a plain workflow: `reviewdog -f=rdjson -reporter=github-pr-review`.

Each finding is a diagnostic on its doc line (the code line when it has none), with the code
line as a related location. A suggestion covers whole lines (a range without columns, which
reviewdog posts as a GitHub suggestion of those lines); an empty text deletes them; an
insertion is an empty range at the start of its line.
"""

from __future__ import annotations

import json
from typing import Any

from bot.core.model import CodeLocation, DocLocation, Finding, Report, Suggestion

SOURCE = {"name": "docs-sync"}
_SEVERITY = {"error": "ERROR", "warning": "WARNING", "notice": "INFO"}


def to_rdjson(report: Report) -> str:
    diagnostics = [_diagnostic(f) for f in report.findings]
    return json.dumps({"source": SOURCE, "diagnostics": diagnostics}, indent=2, ensure_ascii=False)


def _location(where: DocLocation | CodeLocation) -> dict[str, Any]:
    return {"path": where.path, "range": {"start": {"line": where.line}}}


def _diagnostic(f: Finding) -> dict[str, Any]:
    diagnostic: dict[str, Any] = {
        "message": f"{f.symbol}: {f.message}",
        "severity": _SEVERITY[f.severity],
        "source": SOURCE,
        "code": {"value": f.kind},
    }
    where = f.doc or f.code
    if where:
        diagnostic["location"] = _location(where)
    # A suggestion applies to the diagnostic's own file: rdjson suggestions carry no path.
    if f.suggestion and where and f.suggestion.path == where.path:
        diagnostic["suggestions"] = [_suggestion(f.suggestion)]
    if f.doc and f.code:
        diagnostic["related_locations"] = [
            {"message": "the code line that made the doc line wrong", "location": _location(f.code)}
        ]
    return diagnostic


def _suggestion(s: Suggestion) -> dict[str, Any]:
    if s.end_line < s.start_line:
        at = {"line": s.start_line, "column": 1}
        return {"range": {"start": at, "end": at}, "text": s.replacement + "\n"}
    return {"range": {"start": {"line": s.start_line}, "end": {"line": s.end_line}}, "text": s.replacement}
