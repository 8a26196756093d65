"""SARIF 2.1.0, the format GitHub code scanning uploads (`--format sarif`).

One run of the tool `docs-sync`, whose rules are the finding kinds. Each finding is a result on
its doc line (the code line when it has none), with the code line as a related location, and
its suggestion as a fix that replaces the doc lines. Ignored findings are results carrying an
external suppression with the reason given. `partialFingerprints` holds the finding's
fingerprint, which survives line shifts, so code scanning tracks one alert across runs.
"""

from __future__ import annotations

import json
from typing import Any, get_args
from urllib.parse import quote

from bot.core.model import CodeLocation, DocLocation, Finding, FindingKind, Report, Suggestion

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"  # paths are relative to the repository root

KINDS: tuple[str, ...] = get_args(FindingKind)
DESCRIPTIONS = {
    "removed": "A documented fact is gone from the code and nothing replaces it.",
    "renamed": "A documented fact now has another name.",
    "changed": "A documented fact changed meaning: its default, choices, boolean polarity or type.",
    "undocumented": "A new member appeared in a set the doc enumerates.",
    "new-flag": "A new flag appeared next to documented ones, on a page that does not list them all.",
    "unresolved": "A doc line added by the change cites a flag, path or symbol the code does not have.",
    "wrong-default": "A doc line added by the change claims a default the code does not have.",
    "parse-error": "A source file the rules read does not parse.",
    "vanished": "The doc cites in code style a name the code it is coupled to stopped using.",
    "nav": "A navigation entry of the docs site reaches no page, or a page no entry reaches.",
    "redirect": "A redirect of the docs site is broken, chained or stale, or a moved page has none.",
    "link": "A link in the docs reaches no page or file of the site.",
    "anchor": "A link's or redirect's #anchor names no heading of its page.",
    "unused-ignore": "A docs-sync: ignore comment in a page suppresses no finding.",
    "config": "A file a rule lists by name is in neither revision; the rest of the rule is checked.",
}
_LEVEL = {"error": "error", "warning": "warning", "notice": "note"}


def to_sarif(report: Report) -> str:
    rules = [
        {
            "id": kind,
            "name": kind,
            "shortDescription": {"text": f"docs-sync: {kind}"},
            "fullDescription": {"text": DESCRIPTIONS[kind]},
        }
        for kind in KINDS
    ]
    results = [_result(f) for f in report.findings]
    for f, reason in report.ignored:
        results.append({**_result(f), "suppressions": [{"kind": "external", "justification": reason}]})
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "docs-sync", "rules": rules}}, "results": results}],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


def _artifact(path: str) -> dict[str, str]:
    return {"uri": quote(path), "uriBaseId": SRCROOT}


def _location(where: DocLocation | CodeLocation) -> dict[str, Any]:
    return {
        "physicalLocation": {"artifactLocation": _artifact(where.path), "region": {"startLine": where.line}}
    }


def _result(f: Finding) -> dict[str, Any]:
    text = f"{f.symbol}: {f.message}"
    if f.doc and f.code:
        text += f" (code {f.code.path}:{f.code.line})"
    result: dict[str, Any] = {
        "ruleId": f.kind,
        "ruleIndex": KINDS.index(f.kind),
        "level": _LEVEL[f.severity],
        "message": {"text": text},
        "partialFingerprints": {"docsSync/v1": f.fingerprint()},
    }
    where = f.doc or f.code
    if where:
        result["locations"] = [_location(where)]
    if f.doc and f.code:
        result["relatedLocations"] = [
            {"id": 1, **_location(f.code), "message": {"text": "the code line that made the doc line wrong"}}
        ]
    if f.suggestion:
        result["fixes"] = [_fix(f.suggestion)]
    return result


def _fix(s: Suggestion) -> dict[str, Any]:
    """The suggestion as one replacement. A region of whole lines without columns stops before the
    last line's newline (SARIF 3.30.2), so a replacement keeps it; a deletion runs to the start of
    the next line, taking the newline too; an insertion is an empty region at the start of its line."""
    replacement: dict[str, Any]
    if s.end_line < s.start_line:
        replacement = {
            "deletedRegion": {
                "startLine": s.start_line,
                "startColumn": 1,
                "endLine": s.start_line,
                "endColumn": 1,
            },
            "insertedContent": {"text": s.replacement + "\n"},
        }
        what = f"Insert before doc line {s.start_line}"
    elif not s.replacement:
        replacement = {
            "deletedRegion": {
                "startLine": s.start_line,
                "startColumn": 1,
                "endLine": s.end_line + 1,
                "endColumn": 1,
            }
        }
        what = f"Delete {_lines(s)}"
    else:
        replacement = {
            "deletedRegion": {"startLine": s.start_line, "endLine": s.end_line},
            "insertedContent": {"text": s.replacement},
        }
        what = f"Replace {_lines(s)}"
    return {
        "description": {"text": what},
        "artifactChanges": [{"artifactLocation": _artifact(s.path), "replacements": [replacement]}],
    }


def _lines(s: Suggestion) -> str:
    if s.start_line == s.end_line:
        return f"doc line {s.start_line}"
    return f"doc lines {s.start_line}-{s.end_line}"
