"""The JSON output: a stable contract for machines, with exactly these top-level keys:

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
A suggestion with an empty replacement deletes its lines.
"""

from __future__ import annotations

import json
from typing import Any

from bot.core.model import Finding, Report


def to_json(report: Report, fail_on: str | None = None) -> str:
    data = {
        "conclusion": report.conclusion(fail_on),
        "findings": [_finding_dict(f) for f in report.findings],
        "ignored": [{"symbol": f.symbol, "reason": reason, "kind": f.kind} for f, reason in report.ignored],
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


def _finding_dict(f: Finding) -> dict[str, Any]:
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
