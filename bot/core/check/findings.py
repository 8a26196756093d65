"""Findings as the checks emit them, and the list one rule's check hands back.

The rule decides each finding's severity and whether it blocks. Token replacements on one doc
line are merged: every finding on the line suggests the line with all its fixes applied.
Findings that say the same thing about the same line are reported once.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.core.check.wording import fixed_line
from bot.core.doclines import kept_for_history
from bot.core.model import (
    SEVERITY_RANK,
    CodeLocation,
    DocLocation,
    Finding,
    FindingKind,
    Suggestion,
)
from bot.core.page import DocPage, page_format
from bot.core.rules import Rule


def is_external(token: str, patterns: Sequence[str]) -> bool:
    """Is `token` one the rule says belongs to other code (its `external` patterns)? The `--no-`
    form of an external switch is external too."""
    if not patterns:
        return False
    regex = _external_regex(tuple(patterns))
    return regex.match(token) is not None or (
        token.startswith("--no-") and regex.match("--" + token[5:]) is not None
    )


@functools.cache
def _external_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(fnmatch.translate(p) for p in patterns))


def rank(severity: str) -> int:
    """notice < warning < error; a severity the rule file does not know ranks above them all."""
    return SEVERITY_RANK.get(severity, 3)


def doc_location(doc: DocPage, line: int) -> DocLocation:
    section = doc.section_at(line)
    return DocLocation(doc.path, line, section.path, section.anchor)


class Findings:
    """The findings of one rule's check, in the order the checks emit them."""

    def __init__(self, rule: Rule):
        self.rule = rule
        self._done: list[Finding] = []
        # Findings whose suggestion waits for every edit of their line:
        # (finding, its page, line, its edit).
        self._pending: list[tuple[Finding, DocPage, int, tuple[str, str]]] = []
        # (doc path, line) -> its (old, new) token replacements, merged into one suggestion.
        self._line_edits: dict[tuple[str, int], list[tuple[str, str]]] = defaultdict(list)

    def emit(
        self,
        kind: FindingKind,
        symbol: str,
        message: str,
        *,
        doc: DocPage | None = None,
        line: int | None = None,
        code: CodeLocation | None = None,
        edit: tuple[str, str] | None = None,
        replacement: str | None = None,
        why: str = "",
    ) -> None:
        """`edit` replaces one token of the doc line; `replacement` is the whole new line."""
        gone_now = kind in ("removed", "renamed")  # what a section of deprecated things lists
        if doc is not None and line is not None and kept_for_history(doc, line, gone_now=gone_now):
            return  # "These commands use the legacy script ... preserved here for historical reference"
        severity = self.rule.severity.get(kind, "error")
        blocking = self.rule.fail_on != "never" and rank(severity) >= rank(self.rule.fail_on)
        loc = doc_location(doc, line) if doc is not None and line is not None else None
        suggestion = None
        if doc is not None and line is not None and replacement is not None:
            suggestion = _in_place(doc, line, lambda text: replacement, whole=True)
        finding = Finding(
            kind=kind,
            severity=severity,
            symbol=symbol,
            message=message,
            rule=self.rule.id,
            doc=loc,
            code=code,
            suggestion=suggestion,
            why=why,
            blocking=blocking,
        )
        if edit is not None and doc is not None and line is not None:
            self._line_edits[(doc.path, line)].append(edit)
            self._pending.append((finding, doc, line, edit))
        else:
            self._done.append(finding)

    def emitted(self) -> list[tuple[Finding, tuple[str, str] | None]]:
        """Every finding emitted so far, with the token replacement it suggests (None: none, or a
        whole-line replacement)."""
        return [(f, None) for f in self._done] + [(f, edit) for f, _, _, edit in self._pending]

    def withdraw(self, finding: Finding) -> None:
        """Take back an emitted finding and its token replacement: a better-founded one replaces it."""
        self._done = [f for f in self._done if f is not finding]
        for entry in [p for p in self._pending if p[0] is finding]:
            self._pending.remove(entry)
            assert finding.doc is not None
            self._line_edits[(finding.doc.path, entry[2])].remove(entry[3])

    def finish(self) -> list[Finding]:
        """Every finding, deduplicated, ordered by doc path and line."""
        # Every finding on a line suggests the same text: the line with all its fixes applied,
        # so accepting any one of them leaves the line right.
        findings = list(self._done)
        for finding, doc, line, _ in self._pending:
            # The longest token first: `a/b/c.py` before `a/b/`, which would rewrite its start.
            edits = sorted(self._line_edits[(doc.path, line)], key=lambda e: -len(e[0]))
            suggestion = _in_place(doc, line, functools.partial(fixed_line, edits=edits))
            findings.append(replace(finding, suggestion=suggestion))
        unique: dict[tuple[object, ...], Finding] = {}
        for f in findings:
            key = (f.kind, f.symbol, f.doc.path if f.doc else None, f.doc.line if f.doc else None, f.message)
            unique.setdefault(key, f)
        # A token the change removed or renamed, on a line the change also wrote, is told once:
        # as the change's doing, not again as missing at head.
        gone = {
            (f.symbol, f.doc.path, f.doc.line) for f in unique.values() if f.doc and f.kind in _BY_THE_CHANGE
        }
        kept = [
            f
            for f in unique.values()
            if not (f.kind == "unresolved" and f.doc and (f.symbol, f.doc.path, f.doc.line) in gone)
        ]
        return sorted(kept, key=_order)


_BY_THE_CHANGE = frozenset({"removed", "renamed"})


def _in_place(doc: DocPage, line: int, fix: Callable[[str], str], whole: bool = False) -> Suggestion | None:
    """The suggestion that rewrites `line` by `fix` in the page's own syntax; None when it
    changes nothing or cannot be written there. `whole`: `fix` replaces the line, it does not
    edit its tokens (in a reStructuredText table that is no row any more)."""
    original = doc.lines[line - 1]
    if page_format(doc.path) == "ipynb":
        return None  # a notebook's line is a JSON string: the page's text is not the file's
    if page_format(doc.path) != "rst":
        fixed = fix(original)
        return Suggestion(doc.path, line, line, fixed) if fixed != original else None
    from bot.core.rst_refit import refit

    if whole:
        fixed = fix(original)
        kept = refit(doc.lines, line, lambda text: text if text != original else fixed)
        return Suggestion(doc.path, *kept) if kept is not None and kept[2] == fixed else None
    kept = refit(doc.lines, line, fix)
    return Suggestion(doc.path, *kept) if kept is not None else None


def _order(f: Finding) -> tuple[str, int, str, str]:
    return (f.doc.path if f.doc else "~", f.doc.line if f.doc else 0, f.symbol, f.kind)
