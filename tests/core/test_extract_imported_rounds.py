"""Flags declared once a round by a loop over a constant another module defines (mypy's
`for report_type in sorted(defaults.REPORTER_NAMES):` adding `--{report_type}-report`)."""

from __future__ import annotations

import textwrap

from bot.core.check import audit
from bot.core.extract import extract
from bot.core.facts import gather
from bot.core.packs import parse_repo_config
from bot.core.rules import Source
from bot.trees.memory import MemoryTree

DEFAULTS = textwrap.dedent(
    """
    from typing import Final

    REPORT_NAMES: Final = ["line_count", "html", "xml"]
    FORMATS = ("json", "text")
    LOADED = load_names()
    """
)
MAIN = textwrap.dedent(
    """
    import argparse

    from tool import defaults
    from tool.defaults import FORMATS


    def build():
        parser = argparse.ArgumentParser(prog="tool")
        reports = parser.add_argument_group(title="Reports")
        for report in sorted(defaults.REPORT_NAMES):
            reports.add_argument(f"--{report.replace('_', '-')}-report", metavar="DIR")
        for name in FORMATS:
            parser.add_argument("--" + name + "-output", action="store_true")
        for name in defaults.LOADED:
            parser.add_argument(f"--{name}-extra")
        parser.add_argument("--verbose", action="store_true")
        return parser
    """
)
SOURCE = Source(id="cli", kind="argparse", paths=("tool/main.py",))
CONFIG = """
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: argparse
        paths: [tool/main.py]
"""
PYPROJECT = '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.main:build"\n'
README = "# Reports\n\nRun `tool --line-count-report out --html-report out --json-output --verbose`.\n"


def tree(readme: str = README, defaults: str = DEFAULTS) -> MemoryTree:
    return MemoryTree(
        {
            "tool/main.py": MAIN,
            "tool/defaults.py": defaults,
            "tool/__init__.py": "",
            "README.md": readme,
            "pyproject.toml": PYPROJECT,
        }
    )


def rules():
    return [r for pack in parse_repo_config(CONFIG) for r in pack.rules]


def test_a_loop_over_another_module_s_constant_declares_a_flag_each_round():
    found = {f.token: f for f in gather(rules()[0], tree()).flags()}
    assert sorted(found) == [
        "--html-report",
        "--json-output",
        "--line-count-report",
        "--text-output",
        "--verbose",
        "--xml-report",
    ]
    # Each round's flag is on the line of its call, with the call's keywords.
    assert dict(found["--xml-report"].attrs)["metavar"] == "DIR"
    assert "reports.add_argument" in MAIN.splitlines()[found["--xml-report"].line - 1]
    # A name the other module does not spell out (`load_names()`) declares nothing.
    assert not [t for t in found if t.endswith("-extra")]


def test_one_file_says_only_which_loop_reads_which_imported_name():
    refs = [f for f in extract(SOURCE, "tool/main.py", MAIN).facts if f.kind != "flag"]
    assert [(f.kind, f.token, f.key) for f in refs] == [
        ("imported-rounds", "defaults.REPORT_NAMES", "tool.defaults:REPORT_NAMES"),
        ("imported-rounds", "FORMATS", "tool.defaults:FORMATS"),
        ("imported-rounds", "defaults.LOADED", "tool.defaults:LOADED"),
    ]


def test_an_audit_of_a_page_citing_the_rounds_flags_is_quiet_and_a_round_removed_is_missed():
    assert audit(rules(), tree()).findings == ()
    fewer = DEFAULTS.replace('"line_count", ', "")
    found = audit(rules(), tree(defaults=fewer)).findings
    assert [(f.kind, f.symbol) for f in found] == [("unresolved", "--line-count-report")]


UTILS = textwrap.dedent(
    """
    def common_args():
        args = [
            {"arg": "--model", "type": str, "required": True},
            {"arg": "--push-to-hub", "action": "store_true"},
        ]
        return args


    def schema_args(params):
        return [{"arg": "--never", "type": str}]
    """
)
SUBCOMMAND = textwrap.dedent(
    """
    from tool.utils import common_args, schema_args


    def register(parser):
        arg_list = [{"arg": "--lora_r", "type": int, "default": 16}]
        arg_list = common_args() + arg_list
        run = parser.add_parser("llm")
        for arg in arg_list:
            if "action" in arg:
                run.add_argument(arg["arg"], action=arg["action"])
            else:
                run.add_argument(arg["arg"], type=arg["type"], default=arg.get("default"))


    def extended(parser):
        arg_list = [{"arg": "--prompt", "type": str}]
        arg_list.extend(common_args())
        run = parser.add_parser("dreambooth")
        for arg in arg_list:
            if "action" in arg:
                run.add_argument(arg["arg"], action=arg["action"])
            else:
                run.add_argument(arg["arg"], type=arg["type"])


    def generated(parser):
        arg_list = schema_args(Params)
        for arg in arg_list:
            parser.add_argument(arg["arg"])
    """
)


def test_the_specs_another_module_s_function_returns_join_the_loop_they_are_added_to():
    files = {"tool/main.py": SUBCOMMAND, "tool/utils.py": UTILS, "tool/__init__.py": "", "README.md": README}
    found: dict[str, list[dict[str, str]]] = {}
    for f in gather(rules()[0], MemoryTree(files)).flags():
        found.setdefault(f.token, []).append(dict(f.attrs))
    # The shared specs declare flags of each loop's parser, each round as the file's own do,
    # whether added before the file's own (`common_args() + arg_list`) or after (`.extend`).
    assert sorted(a["subcommand"] for a in found["--model"]) == ["dreambooth", "llm"]
    assert all(a["type"] == "str" for a in found["--model"])
    assert [a["action"] for a in found["--push-to-hub"]] == ["store_true", "store_true"]
    assert [(a["default"], a["subcommand"]) for a in found["--lora_r"]] == [("16", "llm")]
    assert [a["subcommand"] for a in found["--prompt"]] == ["dreambooth"]
    assert found["--model"][0]["programs"] == found["--prompt"][0]["programs"] == "tool/main.py"
    # A function that takes arguments (`schema_args(Params)`) is not read: its list depends on them.
    assert "--never" not in found and len(found) == 4
