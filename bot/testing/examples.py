"""The rule-example runner: every example a rule carries is a small change whose findings are known.

A rule pack tests itself: `run_example` builds the example's two revisions in memory and checks
them; `mismatches` says how the findings differ from what the example expects. The test suite,
`docs-sync validate` and users' own tests all run examples through here.
"""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.check import check
from bot.core.model import Change, Finding, Report
from bot.core.rules import Example, Expectation, Rule, RulePack
from bot.trees.memory import MemoryTree


def run_example(rule: Rule, example: Example) -> Report:
    base = {p: f.base for p, f in example.files.items() if f.base is not None}
    head = {p: f.head for p, f in example.files.items() if f.head is not None}
    changes = []
    for path in sorted(set(base) | set(head)):
        if path not in head:
            changes.append(Change("removed", path))
        elif path not in base:
            changes.append(Change("added", path))
        elif base[path] != head[path]:
            changes.append(Change("modified", path))
    return check([rule], MemoryTree(base), MemoryTree(head), changes)


def _matches(f: Finding, want: Expectation) -> bool:
    return (
        f.kind == want.kind
        and (want.symbol is None or f.symbol == want.symbol)
        and (want.line is None or (f.doc is not None and f.doc.line == want.line))
        and (want.severity is None or f.severity == want.severity)
        and (
            want.replacement is None
            or (f.suggestion is not None and f.suggestion.replacement == want.replacement)
        )
    )


def mismatches(rule: Rule, example: Example) -> list[str]:
    """What differs between the example's expected findings and the check's; empty when they agree."""
    findings = list(run_example(rule, example).findings)
    problems = []
    for want in example.expect:
        match = next((f for f in findings if _matches(f, want)), None)
        if match is None:
            problems.append(f"expected {want} was not found")
        else:
            findings.remove(match)
    problems.extend(f"unexpected {f.kind} on {f.symbol!r}: {f.message}" for f in findings)
    return problems


def examples_of(packs: tuple[RulePack, ...] | list[RulePack]) -> Iterator[tuple[RulePack, Rule, Example]]:
    for pack in packs:
        for rule in pack.rules:
            for example in rule.examples:
                yield pack, rule, example
