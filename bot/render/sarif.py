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
from typing import Any, get_args
from urllib.parse import quote

from bot.core.model import CodeLocation, DocLocation, Finding, FindingKind, Report, Suggestion
from bot.render.common import DocText

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"  # paths are relative to the repository root
INFORMATION_URI = "https://pypi.org/project/docs-sync/"
FINGERPRINT = "docsSync/v2"

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
# What to do about each kind, and an example: (what to do, the doc line before, after or what the
# code says).
HELP = {
    "removed": (
        "Delete the doc line, or rewrite it for what replaced the fact.",
        "`--cp-size 2` splits the sequence",
        "the code no longer declares `--cp-size`",
    ),
    "renamed": (
        "Cite the new name; the suggestion rewrites the line.",
        "Pass `--disable-fp32-master`.",
        "Pass `--no-keep-fp32-master`.",
    ),
    "changed": (
        "Say what the code now does: the default, choices, polarity or type it declares.",
        "`--batch-size` (default 32)",
        "`--batch-size` (default 64)",
    ),
    "undocumented": (
        "Add the new member to the list the page keeps.",
        "Backends: `fsdp`, `megatron`.",
        "Backends: `fsdp`, `megatron`, `sglang`.",
    ),
    "new-flag": (
        "Document the new flag beside its neighbours, or ignore it with `/docs-sync ignore`.",
        "| `--lr` | learning rate |",
        "| `--lr` | learning rate |\n| `--lr-warmup` | warm-up steps |",
    ),
    "unresolved": (
        "Fix the citation: the nearest real name is suggested.",
        "Set `--learing-rate`.",
        "Set `--learning-rate`.",
    ),
    "wrong-default": (
        "Write the default the code declares.",
        "`--epochs` defaults to 3.",
        "`--epochs` defaults to 1.",
    ),
    "parse-error": (
        "Fix the source file so Python can parse it; its facts are unknown until then.",
        "def build(:",
        "def build():",
    ),
    "vanished": (
        "Stop citing the name, or cite what the code uses now.",
        "Set `$BASE_DIR` first.",
        "the launchers no longer read `BASE_DIR`",
    ),
    "nav": (
        "Point the entry at a page that exists, or remove it.",
        '"pages": ["guide/old"]',
        '"pages": ["guide/new"]',
    ),
    "redirect": (
        "Point the redirect at the final page, or add the one a moved page needs.",
        '{"source": "/a", "destination": "/b"}',
        '{"source": "/a", "destination": "/c"}',
    ),
    "link": ("Link to a page or file that exists.", "[setup](/guide/instal)", "[setup](/guide/install)"),
    "anchor": ("Link to a heading the page has.", "[flags](/cli#flag)", "[flags](/cli#flags)"),
    "unused-ignore": (
        "Remove the comment: what it waived is fixed or gone.",
        "<!-- docs-sync: ignore --old-flag -->",
        "",
    ),
    "config": (
        "Fix the file's name in the rule, or remove it from the rule.",
        "paths: [tool/cli.py, tool/gone.py]",
        "paths: [tool/cli.py]",
    ),
}
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
