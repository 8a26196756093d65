"""An audit baseline: the findings a repository already had when it adopted docs-sync, so later
audits report only new ones.

A finding is keyed by its rule, kind, symbol, doc page and the text of its doc line (stripped),
never by its line number: a line that moves down a page is the same debt. Keys are counted, so
a stale citation copied onto a second identical line is new. Pure: the caller reads and writes
the file.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from bot.core.model import Finding, Report

VERSION = 1

# Reads a doc page's text at the audited revision (None: no such page).
DocText = Callable[[str], "str | None"]


class BaselineError(ValueError):
    """A baseline file that cannot be read."""


def key(finding: Finding, doc_text: DocText) -> str:
    place = finding.doc.path if finding.doc else (finding.code.path if finding.code else "")
    line = ""
    if finding.doc is not None:
        text = doc_text(finding.doc.path)
        lines = text.splitlines() if text is not None else []
        if 0 < finding.doc.line <= len(lines):
            line = " ".join(lines[finding.doc.line - 1].split())
    parts = (finding.rule, finding.kind, finding.symbol, place, line)
    return hashlib.sha1("\0".join(parts).encode()).hexdigest()[:20]


def dump(report: Report, doc_text: DocText) -> str:
    """The baseline file for `report`: JSON, one entry per finding, in a stable order."""
    entries = [
        {
            "key": key(f, doc_text),
            "kind": f.kind,
            "symbol": f.symbol,
            "path": f.doc.path if f.doc else (f.code.path if f.code else None),
            "line": f.doc.line if f.doc else (f.code.line if f.code else None),
        }
        for f in report.findings
    ]
    entries.sort(key=lambda e: (str(e["path"]), int(e["line"] or 0), str(e["symbol"]), str(e["key"])))
    return json.dumps({"version": VERSION, "findings": entries}, indent=1) + "\n"


def load(text: str, file: str) -> Counter[str]:
    """The keys a baseline file records, counted."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BaselineError(f"{file}: not a docs-sync baseline (invalid JSON: {e})") from None
    if (
        not isinstance(data, dict)
        or data.get("version") != VERSION
        or not isinstance(data.get("findings"), list)
    ):
        raise BaselineError(
            f"{file}: not a docs-sync baseline (expected version {VERSION} and a findings list)"
        )
    keys: Counter[str] = Counter()
    for entry in data["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
            raise BaselineError(f"{file}: every finding needs a string 'key'")
        keys[entry["key"]] += 1
    return keys


def new_findings(report: Report, known: Counter[str], doc_text: DocText) -> Report:
    """`report` without the findings the baseline records (each recorded key waives one)."""
    left = Counter(known)
    kept: list[Finding] = []
    for f in report.findings:
        k = key(f, doc_text)
        if left[k] > 0:
            left[k] -= 1
        else:
            kept.append(f)
    return replace(report, findings=tuple(kept))
