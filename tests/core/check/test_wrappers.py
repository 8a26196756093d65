"""Programs through launchers: a shell or Python script that forwards its arguments to an entry
point is that program, and the flags a doc line gives the script are judged against its parser."""

from __future__ import annotations

import textwrap

import pytest

from bot.core.check import check
from bot.core.model import Change, Report
from bot.core.packs import parse_repo_config
from bot.core.programs import programs
from bot.trees.memory import MemoryTree

TRAIN = "pkg/train.py"
CONFIG = """
rules:
  - id: training
    docs:
      - path: README.md
    sources:
      - id: train
        kind: argparse
        paths: [pkg/train.py]
"""
PARSER = textwrap.dedent(
    """
    import argparse


    def main(argv=None):
        p = argparse.ArgumentParser()
        p.add_argument("--config")
        p.add_argument("--lr", type=float, default=1e-3)
        p.add_argument("--steps", type=int, default=100)
        p.parse_args(argv)


    if __name__ == "__main__":
        main()
    """
)
# Each way a launcher hands its arguments on, and how the page runs it.
LAUNCHERS = {
    '"$@"': ("run_train.sh", 'exec python -m pkg.train --config base.yaml "$@"\n', "./run_train.sh"),
    "${@}": (
        "scripts/train.sh",
        'set -e\nCUDA_VISIBLE_DEVICES=0 python "$(dirname "$0")/../pkg/train.py" \\\n  ${@} 2>&1 | tee log\n',
        "bash scripts/train.sh",
    ),
    "$*": ("scripts/multi.sh", "torchrun --nproc_per_node=8 -m pkg.train $*\n", "sh scripts/multi.sh"),
    "$SCRIPT": ("run.sh", 'SCRIPT=pkg/train.py\npython $SCRIPT --config base.yaml "$@"\n', "./run.sh"),
    '"$ENTRY" ${@}': (
        "scripts/run.sh",
        'ENTRY="$(dirname "$0")/../pkg/train.py"\npython "$ENTRY" ${@}\n',
        "bash scripts/run.sh",
    ),
    "main(sys.argv[1:])": (
        "train_cli.py",
        'import sys\n\nfrom pkg.train import main\n\nif __name__ == "__main__":\n'
        "    sys.exit(main(sys.argv[1:]))\n",
        "python train_cli.py",
    ),
    "sys.argv[1:]": (
        "launch.py",
        'import subprocess, sys\n\nsubprocess.run([sys.executable, "-m", "pkg.train", *sys.argv[1:]])\n',
        "python launch.py",
    ),
}
FORMS = pytest.mark.parametrize("form", sorted(LAUNCHERS))


def files(form: str, readme: str) -> dict[str, str]:
    script, text, _ = LAUNCHERS[form]
    return {
        TRAIN: PARSER,
        "pkg/__init__.py": "",
        script: text,
        "README.md": readme,
        "clean.sh": "rm -rf out\n",
    }


def readme(form: str, flags: str = "--lr 1e-4 --steps 10") -> str:
    return f"# Training\n\n```bash\n{LAUNCHERS[form][2]} {flags}\n```\n"


def run(base: dict[str, str], head: dict[str, str]) -> Report:
    changes = [Change("modified", p) for p in sorted(head) if base.get(p) != head[p]]
    rules = [r for pack in parse_repo_config(CONFIG) for r in pack.rules]
    return check(rules, MemoryTree(base), MemoryTree(head), changes)


def found(report: Report) -> list[tuple[str, str, int | None, str | None]]:
    return [
        (f.kind, f.symbol, f.doc.line if f.doc else None, f.suggestion.replacement if f.suggestion else None)
        for f in report.findings
        if f.severity != "notice"
    ]


@FORMS
def test_the_launcher_is_its_entry_points_program(form):
    tree = MemoryTree(files(form, readme(form)))
    command = programs(tree).command([*LAUNCHERS[form][2].split(), "--lr", "1"])
    assert command is not None and command.program == TRAIN
    assert command.args[-2:] == ("--lr", "1")


def test_a_script_that_forwards_nothing_runs_no_program_of_ours():
    assert programs(MemoryTree(files('"$@"', ""))).command(["./clean.sh", "--all"]) is None


@FORMS
def test_a_flag_renamed_in_the_entry_point_is_found_on_the_launchers_line(form):
    base = files(form, readme(form))
    head = dict(base, **{TRAIN: PARSER.replace('"--lr"', '"--learning-rate", dest="lr"')})
    line = f"{LAUNCHERS[form][2]} --learning-rate 1e-4 --steps 10"
    assert found(run(base, head)) == [("renamed", "--lr", 4, line)]


@FORMS
def test_a_doc_edit_giving_the_launcher_a_flag_the_entry_point_lacks_is_unresolved(form):
    base = files(form, readme(form))
    head = dict(base, **{"README.md": readme(form, "--lr 1e-4 --stepz 10")})
    assert found(run(base, head)) == [
        ("unresolved", "--stepz", 4, f"{LAUNCHERS[form][2]} --lr 1e-4 --steps 10"),
    ]
    fine = dict(base, **{"README.md": readme(form, "--lr 1e-4 --steps 20")})
    assert found(run(base, fine)) == []


DISPATCH = (
    'case "$1" in\n'
    '  train) shift; python -m pkg.train "$@" ;;\n'
    '  serve) shift; python -m pkg.serve "$@" ;;\n'
    "esac\n"
)


def test_a_dispatching_launcher_runs_the_program_its_first_argument_selects():
    tree = MemoryTree({TRAIN: PARSER, "pkg/serve.py": PARSER, "run.sh": DISPATCH, "both.sh": BOTH})
    found = programs(tree)
    train = found.command(["./run.sh", "train", "--lr", "1"])
    assert train is not None and (train.program, train.args) == (TRAIN, ("--lr", "1"))
    serve = found.command(["bash", "run.sh", "serve", "--port", "80"])
    assert serve is not None and serve.program == "pkg/serve.py"
    # No branch chosen, or two programs given the same arguments: nobody's to judge.
    assert found.command(["./run.sh", "--lr", "1"]) is None
    assert found.command(["./both.sh", "--lr", "1"]) is None


BOTH = 'python -m pkg.train "$@"\npython -m pkg.serve "$@"\n'
