"""Every example carried by a rule pack in rules/ is a test: adding a pack adds its tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.check import check
from bot.memtree import MemoryTree
from bot.model import Change
from bot.rules import Example, Rule, builtin_pack_names, load_pack

RULES_DIR = Path(__file__).resolve().parents[1] / "rules"


def _cases():
    for name in builtin_pack_names():
        pack = load_pack(RULES_DIR / f"{name}.yml")
        for rule in pack.rules:
            for example in rule.examples:
                yield pytest.param(rule, example, id=f"{name}:{rule.id}:{example.line}:{example.name}")


def run_example(rule: Rule, example: Example):
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


@pytest.mark.parametrize(("rule", "example"), list(_cases()))
def test_rule_example(rule: Rule, example: Example):
    findings = list(run_example(rule, example).findings)
    for want in example.expect:
        match = [
            f
            for f in findings
            if f.kind == want.kind
            and (want.symbol is None or f.symbol == want.symbol)
            and (want.line is None or (f.doc is not None and f.doc.line == want.line))
            and (want.severity is None or f.severity == want.severity)
            and (want.replacement is None or (f.suggestion and f.suggestion.replacement == want.replacement))
        ]
        assert match, f"expected {want} among {findings}"
        findings.remove(match[0])
    assert findings == [], f"unexpected findings: {findings}"
