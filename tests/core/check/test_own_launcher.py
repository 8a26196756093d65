"""A repository whose own program is one of the launchers docs-sync knows (`accelerate launch
[options] script.py [its flags]`, here a made-up package declaring that console script): the
options before the script are the launcher's, judged against its parser; the script's are the
script's. And a parser that takes both `--a-b` and `--a_b` for every option it declares."""

from __future__ import annotations

from bot.core.check import audit
from bot.core.check.spellings import other_spelling
from bot.core.model import Finding
from bot.core.rules import DocTarget
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import DOC, flags_source, kinds, paths_source, rule

PYPROJECT = '[project]\nname = "runner"\n\n[project.scripts]\naccelerate = "runner.cli:main"\n'
CLI = """\
import argparse

from runner.launch import launch_parser


def main():
    parser = argparse.ArgumentParser("runner")
    sub = parser.add_subparsers()
    launch_parser(sub)
    parser.parse_args()
"""
LAUNCH = """\
def launch_parser(subparsers):
    parser = subparsers.add_parser("launch")
    parser.add_argument("--num_procs", type=int, default=1)
    parser.add_argument("--mixed_precision", choices=["no", "fp16"])
    parser.add_argument("script")
    return parser
"""
EXAMPLE = "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--data_dir')\np.parse_args()\n"
FILES = {
    "pyproject.toml": PYPROJECT,
    "src/runner/__init__.py": "",
    "src/runner/cli.py": CLI,
    "src/runner/launch.py": LAUNCH,
    "examples/train.py": EXAMPLE,
}
RULE = rule(
    flags_source("src/runner/*.py", "examples/*.py"),
    paths_source(),
    docs=(DocTarget(DOC),),
)


def audited(page: str, files: dict[str, str] = FILES) -> list[Finding]:
    return list(audit([RULE], MemoryTree(dict(files, **{DOC: page}))).findings)


def test_the_launchers_own_options_are_its_programs_flags():
    page = (
        "Run `accelerate launch --num_proces 2 --mixed_precision=fp16 examples/train.py --data_dir d`.\n"
        "\n"
        "```bash\naccelerate launch --num_procs 2 --mixed_precision bf16 examples/train.py --data_dir d\n"
        "```\n"
    )
    found = audited(page)
    assert kinds(found) == [("unresolved", "--num_proces"), ("unresolved", "--mixed_precision bf16")]
    assert "did you mean `--num_procs`" in found[0].message


def test_flags_after_the_script_are_the_scripts_and_placeholders_stand_for_one():
    page = (
        "```bash\naccelerate launch --num_procs 2 examples/train.py --data_dir d --num_procs 3\n"
        "accelerate launch other.py --whatever 1\n"
        "accelerate launch {script_name.py} --arg1 --arg2\n"
        "accelerate launch [arguments] {training_script} --{training_script-argument-1}\n```\n"
    )
    # `--num_procs` after the script is the script's, which has none: the one error.
    assert kinds(audited(page)) == [("unresolved", "--num_procs")]


def test_a_parser_adding_the_dashed_spelling_of_its_options_takes_both():
    dashed = """\
import argparse


class _Store(argparse.Action):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.option_strings += [o.replace("_", "-") for o in self.option_strings if "_" in o[2:]]
"""
    launch = "from runner.utils import _Store\n\n" + LAUNCH.replace("type=int,", "action=_Store, type=int,")
    files = dict(FILES, **{"src/runner/utils.py": dashed, "src/runner/launch.py": launch})
    page = "```bash\naccelerate launch --num-procs 2 --mixed-precision fp16 examples/train.py --data-dir d\n"
    page += "```\n"
    # The launcher takes `--num-procs` for `--num_procs`; the example's plain argparse does not.
    found = audited(page, files)
    assert kinds(found) == [("unresolved", "--data-dir")]
    assert sorted(kinds(audited(page))) == [
        ("unresolved", "--data-dir"),
        ("unresolved", "--mixed-precision"),
        ("unresolved", "--num-procs"),
    ]


def test_the_other_spelling_of_a_flag():
    assert other_spelling("--use-fsdp") == "--use_fsdp" and other_spelling("--use_fsdp") == "--use-fsdp"
    assert other_spelling("--cpu") is None and other_spelling("-m") is None
    assert other_spelling("--a-b_c") is None  # both kinds: no one other spelling


def test_a_usage_line_with_a_placeholder_script_is_about_the_launcher():
    page = (
        "## launch\n\n```bash\naccelerate launch [arguments] {training_script}\n```\n\n"
        "* `--num_procs` (`int`) -- how many.\n* `--num_proc` (`int`) -- a typo.\n"
    )
    [found] = audited(page)
    assert (found.symbol, found.suggestion.replacement) == (
        "--num_proc",
        "* `--num_procs` (`int`) -- a typo.",
    )
