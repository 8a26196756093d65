"""A CLI whose subcommands are built in classes and get most flags from a helper class of another
module (`ArgumentHelper.tp(parser)`, a static method calling `parser.add_argument("--tp")`): each
flag belongs to the subcommands whose parsers are handed to its helper, and a line giving one
subcommand another's flag is unresolved, saying whose it is."""

from __future__ import annotations

import textwrap

from bot.core.check import audit
from bot.core.facts import gather
from bot.core.model import Report
from bot.core.packs import parse_repo_config
from bot.trees.memory import MemoryTree

PYPROJECT = '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.cli:run"\n'
CONFIG = """
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: argparse
        paths:
          - tool/cli/__init__.py
          - tool/cli/helpers.py
          - tool/cli/main.py
          - tool/cli/serve.py
          - bench/profile.py
"""
HELPERS = textwrap.dedent(
    """
    class ArgumentHelper:
        @staticmethod
        def tp(parser):
            return parser.add_argument("--tp", type=int, default=1)

        @staticmethod
        def max_log_len(parser):
            return parser.add_argument("--max-log-len", type=int, default=None)

        @staticmethod
        def calib_samples(parser):
            return parser.add_argument("--calib-samples", type=int, default=128)
    """
)
MAIN = textwrap.dedent(
    """
    import argparse

    from .helpers import ArgumentHelper


    class CLI:
        parser = argparse.ArgumentParser(prog="tool")
        subparsers = parser.add_subparsers(dest="command")

        @staticmethod
        def add_parser_chat():
            parser = CLI.subparsers.add_parser("chat")
            parser.add_argument("model_path")
            group = parser.add_argument_group("engine")
            ArgumentHelper.tp(group)
    """
)
SERVE = textwrap.dedent(
    """
    from .helpers import ArgumentHelper
    from .main import CLI


    class SubCliServe:
        parser = CLI.subparsers.add_parser("serve")
        subparsers = parser.add_subparsers()

        @staticmethod
        def add_parser_api_server():
            parser = SubCliServe.subparsers.add_parser("api_server")
            parser.add_argument("model_path")
            parser.add_argument("--server-port", type=int, default=23333)
            ArgumentHelper.tp(parser)
            ArgumentHelper.max_log_len(parser)


    class SubCliLite:
        parser = CLI.subparsers.add_parser("lite")
        subparsers = parser.add_subparsers()

        @staticmethod
        def add_parser_auto_awq():
            parser = SubCliLite.subparsers.add_parser("auto_awq")
            parser.add_argument("model")
            parser.add_argument("--w-bits", type=int, default=4)
            ArgumentHelper.calib_samples(parser)
    """
)
ENTRY = textwrap.dedent(
    """
    from .main import CLI
    from .serve import SubCliLite, SubCliServe


    def run():
        CLI.add_parser_chat()
        SubCliServe.add_parser_api_server()
        SubCliLite.add_parser_auto_awq()
        CLI.parser.parse_args()
    """
)
# A script building a parser of its own hands a helper too: that helper's flag stays anyone's.
BENCH = textwrap.dedent(
    """
    import argparse

    from tool.cli.helpers import ArgumentHelper

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int)
    ArgumentHelper.calib_samples(parser)
    parser.parse_args()
    """
)


def tree(readme: str) -> MemoryTree:
    return MemoryTree(
        {
            "pyproject.toml": PYPROJECT,
            "tool/__init__.py": "",
            "tool/cli/__init__.py": ENTRY,
            "tool/cli/helpers.py": HELPERS,
            "tool/cli/main.py": MAIN,
            "tool/cli/serve.py": SERVE,
            "bench/profile.py": BENCH,
            # The repository's own scripts pass them to the subcommand that has them.
            "scripts/serve.sh": "tool serve api_server internlm/model --max-log-len 10 --server-port 80\n",
            "README.md": readme,
        }
    )


def rules() -> list:
    return [r for pack in parse_repo_config(CONFIG) for r in pack.rules]


def run(readme: str) -> Report:
    return audit(rules(), tree(readme))


def errors(report: Report) -> list[tuple[str, int | None, str | None]]:
    return [
        (f.symbol, f.doc.line if f.doc else None, f.suggestion.replacement if f.suggestion else None)
        for f in report.findings
        if f.severity != "notice"
    ]


def test_a_helpers_flag_belongs_to_the_subcommands_handed_to_it():
    found = {(f.token, f.attr("subcommand")) for f in gather(rules()[0], tree("# Tool\n")).flags()}

    assert ("--tp", "chat,serve api_server") in found
    assert ("--max-log-len", "serve api_server") in found
    assert ("--server-port", "serve api_server") in found
    # Handed the bench script's own parser as well: whose flag it is there is not known.
    assert ("--calib-samples", None) in found


def test_each_subcommand_is_judged_against_the_flags_its_helpers_add():
    readme = textwrap.dedent(
        """
        # Tool

        ```bash
        tool chat internlm/model --tp 2
        tool serve api_server internlm/model --tp 2 --max-log-len 10 --server-port 8000
        tool lite auto_awq internlm/model --calib-samples 64 --w-bits 4
        tool serve api_server internlm/model --tpx 2
        tool lite auto_awq internlm/model --max-log-len 10
        tool chat internlm/model --server-port 8000
        ```
        """
    )

    report = run(readme)

    assert errors(report) == [
        ("--tpx", 8, "tool serve api_server internlm/model --tp 2"),
        ("--max-log-len", 9, None),
        ("--server-port", 10, None),
    ]
    messages = [f.message for f in report.findings]
    # A flag of another subcommand is offered no flag of this one's in its place.
    assert (
        messages[1]
        == "`--max-log-len` is not a flag of `lite auto_awq` at head; it is a flag of `serve api_server`"
    )
    assert (
        messages[2] == "`--server-port` is not a flag of `chat` at head; it is a flag of `serve api_server`"
    )


def test_a_script_importing_the_helpers_takes_only_the_flags_of_the_helpers_it_calls():
    readme = textwrap.dedent(
        """
        # Bench

        ```bash
        python bench/profile.py dataset --rounds 3 --calib-samples 64
        python bench/profile.py dataset --roundz 3
        python bench/profile.py dataset --max-log-len 10
        ```
        """
    )

    # The subcommands' flags are not the script's: its first word is an argument, not a
    # subcommand none of its flags names, and `--max-log-len` is none of its helpers'.
    assert errors(run(readme)) == [
        ("--roundz", 6, "python bench/profile.py dataset --rounds 3"),
        ("--max-log-len", 7, None),
    ]
