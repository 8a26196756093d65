"""A known other's: what a rule's other projects declare is neither reported as unresolved nor
offered a suggestion of ours; what this repository owns is still judged as its own."""

from __future__ import annotations

from dataclasses import replace

from bot.core.check import audit, check
from bot.core.check.others import known
from bot.core.model import Change, Finding
from bot.core.rules import Other, Source
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, DOC, cli, flags_source, kinds, paths_source, rule

SISTER = Other(repo="org/sister", ref="v1.0", paths=("sister/**",))
# The sister project's launcher: argparse with a subcommand, a typer command, pytest's options,
# a dataclass command line, a config file.
SISTER_FILES = {
    "sister/cli.py": (
        "import argparse\np = argparse.ArgumentParser()\nsub = p.add_subparsers()\n"
        "serve = sub.add_parser('serve')\nserve.add_argument('--tp-size', type=int)\n"
        "p.add_argument('--sister-lr')\n"
    ),
    "sister/args.py": (
        "from dataclasses import dataclass\n\n@dataclass\nclass ServerArgs:\n"
        "    mem_fraction: float = 0.9\n    enable_cache: bool = True\n"
    ),
    "sister/conftest.py": "def pytest_addoption(parser):\n    parser.addoption('--run-gpu')\n",
    "sister/defaults.yaml": "scheduler:\n  policy: fcfs\nmodel:\n  tokenizer_path: t\n",
}
RULE = replace(rule(flags_source()), others=(SISTER,))
OURS = {CLI: cli("'--lr'", "'--seed'")}
PAGE = (
    "# Serving\n\n| Flag | What |\n|---|---|\n| `--lr` | ours |\n| `--tp-size` | the sister's |\n"
    "| `--mem-fraction` | its dataclass |\n| `--mem_fraction` | as HfArgumentParser spells it |\n"
    "| `--no-enable-cache` | its switch |\n| `--run-gpu` | its test option |\n"
    "| `--sister-lr` | close to ours, and still the sister's |\n| `--seeed` | nobody's |\n"
)


def audited(page: str, others: dict[Other, MemoryTree] | None, rule_=RULE) -> list[Finding]:
    return list(audit([rule_], MemoryTree(dict(OURS, **{DOC: page})), others=others).findings)


def test_a_sister_projects_flags_are_a_known_others_and_only_nobodys_is_reported():
    found = audited(PAGE, {SISTER: MemoryTree(SISTER_FILES)})
    assert kinds(found) == [("unresolved", "--seeed")]
    assert found[0].suggestion is not None and "--seed" in found[0].suggestion.replacement
    # Without the sister's files (not read: the caller says so), its flags are nobody's again.
    unread = kinds(audited(PAGE, {}))
    assert ("unresolved", "--tp-size") in unread and ("unresolved", "--sister-lr") in unread


def test_a_flag_of_ours_the_sister_also_has_is_still_judged_as_ours():
    files = dict(
        SISTER_FILES,
        **{"sister/cli.py": "import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr')\n"},
    )
    page = "Pass `--lr 1e-4` to train.\n"
    base = dict(OURS, **{DOC: page})
    head = dict(base, **{CLI: cli("'--learning-rate'", "'--seed'")})
    found = check(
        [RULE],
        MemoryTree(base),
        MemoryTree(head),
        [Change("modified", CLI)],
        others={SISTER: MemoryTree(files)},
    ).findings
    assert [(f.kind, f.symbol) for f in found] in ([("renamed", "--lr")], [("removed", "--lr")])


def test_what_the_sister_declares_is_read_from_its_files():
    found = known([SISTER], {SISTER: MemoryTree(SISTER_FILES)})
    assert {"--tp-size", "--sister-lr", "--run-gpu", "--mem_fraction", "--mem-fraction"} <= found.flags
    assert {
        "--no-enable-cache",
        "--no_enable_cache",
    } <= found.flags and "--no-mem-fraction" not in found.flags
    assert found.word("serve") and found.key("scheduler.policy")
    assert not known([SISTER], {})  # nothing read, nothing known


def test_a_sister_projects_script_a_tutorial_runs_is_not_unresolved():
    # The sister's checkout has a tool/ folder too: its tutorial runs the sister's script.
    sister = {"tool/serve.py": "print('serving')\n"}
    r = replace(rule(flags_source(), paths_source()), others=(SISTER,))
    tree = MemoryTree(dict(OURS, **{DOC: "# Tutorial\n\nRun `tool/serve.py`, not `tool/gone.py`.\n"}))
    found = audit([r], tree, others={SISTER: MemoryTree(sister)}).findings
    assert kinds(list(found)) == [("unresolved", "tool/gone.py")]
    assert sorted(kinds(list(audit([r], tree, others={}).findings))) == [
        ("unresolved", "tool/gone.py"),
        ("unresolved", "tool/serve.py"),
    ]


def test_a_sister_config_key_is_not_unresolved_nor_offered_ours():
    keys = Source(id="conf", kind="config", paths=("conf/base.yaml",))
    ours = {"conf/base.yaml": "model:\n  tokenizers_path: t\n  max_steps: 1\n"}
    r = replace(rule(keys), others=(SISTER,))
    page = "# Run\n\n```yaml\nmodel:\n  tokenizer_path: t\n  max_stpes: 2\n```\n"
    tree = MemoryTree(dict(ours, **{DOC: page}))
    found = audit([r], tree, others={SISTER: MemoryTree(SISTER_FILES)}).findings
    assert kinds(list(found)) == [("unresolved", "model.max_stpes")]
    # Unread, the sister's key is offered ours: the suggestion the sister's files prevent.
    unread = audit([r], tree, others={}).findings
    assert kinds(list(unread)) == [
        ("unresolved", "model.tokenizer_path"),
        ("unresolved", "model.max_stpes"),
    ]
