"""The kinds' tables are the one lists: the model's literal, the reader's keys and the README follow them."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import get_args

from bot.core import kinds, rules
from bot.core.model import FindingKind

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_literal_names_the_tables_kinds_in_order() -> None:
    assert get_args(FindingKind) == tuple(k.name for k in kinds.FINDING_KINDS)


def test_every_kind_has_a_severity_a_description_and_help() -> None:
    for k in kinds.FINDING_KINDS:
        assert k.severity in rules.LEVELS, k.name
        assert k.description.endswith("."), k.name
        assert k.help[0] and k.help[1], k.name


def test_the_readme_lists_the_finding_kinds_of_the_table() -> None:
    text = README.read_text(encoding="utf-8")
    paragraph = text[text.index("Finding kinds: ") :].split("\n\n")[0]
    assert re.findall(r"`([a-z-]+)`", paragraph) == [k.name for k in kinds.FINDING_KINDS]


def test_every_source_kind_has_keys_the_reader_knows_and_an_extractor_that_exists() -> None:
    for k in kinds.SOURCE_KINDS:
        assert set(k.keys) <= set(rules.SOURCE_KEYS) - set(kinds.COMMON_SOURCE_KEYS), k.name
        assert k.description.endswith("."), k.name
        if k.extractor is not None:
            module, name = k.extractor.split(":")
            assert callable(getattr(importlib.import_module(f"bot.core.extract.{module}"), name)), k.name


def test_the_readme_lists_the_source_kinds_of_the_table() -> None:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| Source kind | Facts |") :].split("\n\n")[0]
    assert re.findall(r"^\| `([a-z-]+)` \|", table, re.M) == [k.name for k in kinds.SOURCE_KINDS]
