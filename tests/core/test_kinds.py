"""The kinds' tables are the one lists: the model's literal, the reader's keys and the README follow them."""

from __future__ import annotations

import importlib
import re
import textwrap
from pathlib import Path
from typing import get_args

from bot.core import kinds, rules, typed_clis
from bot.core.check import history
from bot.core.extract import extract
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


# `--lr` declared the way each kind that reads flags declares one.
FLAG_SAMPLES = {
    "argparse": """
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--lr", type=float, default=0.1)
        """,
    "dataclass-flags": """
        from dataclasses import dataclass
        @dataclass
        class Args:
            lr: float = 0.1
        """,
    "click": """
        import click
        @click.command()
        @click.option("--lr", type=float, default=0.1)
        def main(lr):
            pass
        """,
    "typer": """
        import typer
        app = typer.Typer()
        @app.command()
        def main(lr: float = typer.Option(0.1)):
            pass
        """,
    "hf-dataclass": """
        from dataclasses import dataclass
        from transformers import HfArgumentParser
        @dataclass
        class Args:
            lr: float = 0.1
        HfArgumentParser(Args).parse_args_into_dataclasses()
        """,
    "tyro": """
        from dataclasses import dataclass
        import tyro
        @dataclass
        class Args:
            lr: float = 0.1
        tyro.cli(Args)
        """,
    "jsonargparse": """
        from jsonargparse import CLI
        def main(lr: float = 0.1):
            pass
        CLI(main)
        """,
    "fire": """
        import fire
        def main(lr=0.1):
            pass
        fire.Fire(main)
        """,
}


def test_the_kinds_marked_as_declaring_flags_are_those_whose_extractors_find_flags() -> None:
    for k in kinds.SOURCE_KINDS:
        source = rules.Source(id="s", kind=k.name, paths=("cli.py",), dataclass="Args")
        found = {
            f.token
            for text in FLAG_SAMPLES.values()
            for f in extract(source, "cli.py", textwrap.dedent(text)).facts
            if f.kind == "flag"
        }
        assert ("--lr" in found) == k.flags, k.name
        assert k.flags or not found, k.name
    assert set(FLAG_SAMPLES) == set(kinds.FLAG_KINDS)


def test_the_narrower_lists_of_flag_kinds_are_flag_kinds() -> None:
    assert set(history.FIELD_KINDS) <= set(kinds.FLAG_KINDS)
    assert set(typed_clis.KINDS) <= set(kinds.FLAG_KINDS)
