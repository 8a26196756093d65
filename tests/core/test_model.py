"""The values that flow through the check: a fact built from the attributes an extractor collected."""

from __future__ import annotations

from bot.core.model import Fact


def test_a_fact_built_from_a_mapping_is_the_same_whatever_order_its_attrs_came_in():
    written = Fact.of("flag", "--lr", "lr", "cli", "cli.py", 7, {"type": "float", "default": "0.1"})
    found = Fact.of("flag", "--lr", "lr", "cli", "cli.py", 7, {"default": "0.1", "type": "float"})
    assert written == found
    assert written.attrs == (("default", "0.1"), ("type", "float"))
    assert written == Fact("flag", "--lr", "lr", "cli", "cli.py", 7, (("default", "0.1"), ("type", "float")))
    assert written.attr("type") == "float" and written.attr("help") is None
