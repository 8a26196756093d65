"""configargparse gives every parser and argument group of a process that imports it `add` and
`add_arg`, aliases of add_argument: a module declaring its options with `group.add(...)` (as
OpenNMT-py's do) declares flags, and a program whose parser such a module fills takes them. Being
common method names (`set.add`), they declare only when handed an option string first."""

from __future__ import annotations

import textwrap

from bot.core.extract import extract
from bot.core.programs import programs
from bot.core.rules import Source
from bot.trees.memory import MemoryTree

OPTS = textwrap.dedent(
    """\
    import configargparse

    SEEN = set()


    def train_opts(parser):
        group = parser.add_argument_group("Optimization")
        group.add("-train_steps", "--train_steps", type=int, default=100000, help="Steps.")
        group.add_arg("--warmup", type=int, default=4000)
        SEEN.add("--not-an-option-string")
        SEEN.add(parser)
    """
)
TRAIN = textwrap.dedent(
    """\
    import configargparse
    from pkg.opts import train_opts


    def main():
        parser = configargparse.ArgumentParser()
        train_opts(parser)
        parser.parse_args()
    """
)


def flags(text: str, path: str = "pkg/opts.py") -> list[tuple[str, str | None]]:
    found = extract(Source(id="cli", kind="argparse", paths=(path,)), path, text).facts
    return [(f.token, f.attr("default")) for f in found if f.kind == "flag"]


def test_add_and_add_arg_declare_flags_in_a_module_importing_configargparse():
    assert sorted(flags(OPTS)) == [
        ("--not-an-option-string", None),  # an option string handed to `add`: read as one
        ("--train_steps", "100000"),
        ("--warmup", "4000"),
        ("-train_steps", "100000"),
    ]
    # Without configargparse, `add` is anybody's method.
    assert flags(OPTS.replace("import configargparse\n", "import argparse\n")) == []


def test_a_program_whose_parser_a_configargparse_module_fills_takes_its_flags():
    tree = MemoryTree(
        {
            "pkg/__init__.py": "",
            "pkg/opts.py": OPTS,
            "pkg/train.py": TRAIN,
            "setup.py": "from setuptools import setup\nsetup(entry_points={'console_scripts': "
            "['pkg_train=pkg.train:main']})\n",
        }
    )
    found = programs(tree)
    command = found.command(["pkg_train", "--train_steps", "1"])
    assert command is not None and command.program == "pkg/train.py"
    assert found.parsers("pkg/train.py") == frozenset({"pkg/opts.py"})
