"""SARIF 2.1.0, the format GitHub code scanning uploads (`--format sarif`).

One run of the tool `docs-sync`, whose rules are the finding kinds. Each finding is a result on
its doc line (the code line when it has none), with the code line as a related location, and
its suggestion as a fix that replaces the doc lines. Ignored findings are results carrying an
external suppression with the reason given.

`partialFingerprints` identifies a result by its line, as the audit baseline does: the rule, kind,
symbol and file, the text of its line and of the lines either side (never the line number), and
its rank among results alike. A line that moves down a page stays one alert in code scanning;
two lines citing the same stale flag on one page are two. Every rule has a `help` (markdown
with an example), which GitHub's code scanning shows beside an alert.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any
from urllib.parse import quote

from bot.core.kinds import FINDING_KINDS
from bot.core.model import CodeLocation, DocLocation, Finding, Report, Suggestion
from bot.render.common import DocText

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"  # paths are relative to the repository root
INFORMATION_URI = "https://pypi.org/project/docs-sync/"
FINGERPRINT = "docsSync/v2"

KINDS: tuple[str, ...] = tuple(k.name for k in FINDING_KINDS)
DESCRIPTIONS = {k.name: k.description for k in FINDING_KINDS}
HELP = {k.name: k.help for k in FINDING_KINDS}
_LEVEL = {"error": "error", "warning": "warning", "notice": "note"}


def _help(kind: str) -> dict[str, str]:
    what, before, after = HELP[kind]
    if after.startswith("the "):  # nothing to rewrite the line to: what the code says instead
        example = f"For example, {after}:\n\n```text\n{before}\n```"
    else:
        added = [f"  {line}" if line == before else f"+ {line}" for line in after.split("\n") if line]
        removed = [] if f"  {before}" in added else [f"- {before}"]
        example = "For example:\n\n```diff\n" + "\n".join([*removed, *added]) + "\n```"
    text = f"{DESCRIPTIONS[kind]} {what}"
    return {"text": text, "markdown": f"**{kind}**: {DESCRIPTIONS[kind]}\n\n{what}\n\n{example}\n"}


def to_sarif(report: Report, doc_text: DocText | None = None, version: str | None = None) -> str:
    """`doc_text(path)` reads a file at the checked revision, for the results' fingerprints;
    `version` is docs-sync's (the command line's `bot.__version__`)."""
    rules = [
        {
            "id": kind,
            "name": kind,
            "shortDescription": {"text": f"docs-sync: {kind}"},
            "fullDescription": {"text": DESCRIPTIONS[kind]},
            "help": _help(kind),
        }
        for kind in KINDS
    ]
    fingerprints = _Fingerprints(doc_text)
    results = [_result(f, fingerprints) for f in report.findings]
    for f, reason in report.ignored:
        suppression = {"kind": "external", "justification": reason}
        results.append({**_result(f, fingerprints), "suppressions": [suppression]})
    driver: dict[str, Any] = {"name": "docs-sync", "informationUri": INFORMATION_URI, "rules": rules}
    if version:
        driver["version"] = version
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": results}]}
    return json.dumps(log, indent=2, ensure_ascii=False)


class _Fingerprints:
    """Each result's identity: its finding and the text around its line, ranked among equals."""

    def __init__(self, doc_text: DocText | None):
        self.doc_text = doc_text
        self.files: dict[str, list[str]] = {}
        self.seen: Counter[str] = Counter()

    def _lines(self, path: str) -> list[str]:
        if path not in self.files:
            text = self.doc_text(path) if self.doc_text is not None else None
            self.files[path] = text.splitlines() if text is not None else []
        return self.files[path]

    def __call__(self, f: Finding) -> str:
        where = f.doc or f.code
        parts = [f.rule, f.kind, f.symbol, where.path if where else ""]
        if where is not None:
            lines = self._lines(where.path)
            for n in (where.line - 1, where.line, where.line + 1):
                parts.append(" ".join(lines[n - 1].split()) if 0 < n <= len(lines) else "")
        digest = hashlib.sha1("\0".join(parts).encode()).hexdigest()[:20]
        self.seen[digest] += 1
        return f"{digest}:{self.seen[digest]}"


def _artifact(path: str) -> dict[str, str]:
    return {"uri": quote(path), "uriBaseId": SRCROOT}


def _location(where: DocLocation | CodeLocation) -> dict[str, Any]:
    return {
        "physicalLocation": {"artifactLocation": _artifact(where.path), "region": {"startLine": where.line}}
    }


def _result(f: Finding, fingerprint: _Fingerprints) -> dict[str, Any]:
    text = f"{f.symbol}: {f.message}"
    if f.doc and f.code:
        text += f" (code {f.code.path}:{f.code.line})"
    result: dict[str, Any] = {
        "ruleId": f.kind,
        "ruleIndex": KINDS.index(f.kind),
        "level": _LEVEL[f.severity],
        "message": {"text": text},
        "partialFingerprints": {FINGERPRINT: fingerprint(f)},
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
