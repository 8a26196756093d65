"""Every example carried by a built-in rule pack is a test: adding a pack adds its tests."""

from __future__ import annotations

import pytest

from bot.core.packfiles import builtin_pack_names
from bot.core.packs import load_builtin
from bot.core.rules import Example, Rule
from bot.testing.examples import examples_of, mismatches


def _cases():
    packs = [load_builtin(name) for name in builtin_pack_names()]
    for pack, rule, example in examples_of(packs):
        yield pytest.param(rule, example, id=f"{pack.pack}:{rule.id}:{example.line}:{example.name}")


def test_the_miles_pack_ships_examples():
    assert "miles" in builtin_pack_names()
    assert len(list(_cases())) >= 5


@pytest.mark.parametrize(("rule", "example"), list(_cases()))
def test_rule_example(rule: Rule, example: Example):
    assert mismatches(rule, example) == []
