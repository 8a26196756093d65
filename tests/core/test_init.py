"""`docs-sync init` on small repositories held in memory: which parsers and pages it couples, the
globs it writes, and that its config works on the first run."""

from __future__ import annotations

from bot.core.check import audit
from bot.core.globs import expand_all
from bot.core.init import config_for, plan
from bot.core.packs import parse_repo_config
from bot.core.validate import unmatched
from bot.trees.memory import MemoryTree

CLI = """\
import argparse

def main():
    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    return parser.parse_args()
"""

CONVERT = """\
import argparse
p = argparse.ArgumentParser()
p.add_argument("--input")
p.add_argument("--output")
"""

FIELDS = """\
import argparse
import dataclasses
from dataclasses import dataclass

@dataclass
class TrainArgs:
    learning_rate: float = 1e-4
    warmup_steps: int = 100

def build_parser():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(TrainArgs):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=f.type, default=f.default)
    return parser
"""

TEST_CLI = CONVERT.replace("--input", "--model").replace("--output", "--batch-size")

FILES = {
    "pyproject.toml": '[project]\nname = "tool"\n[project.scripts]\ntool = "tool.cli:main"\n',
    "tool/__init__.py": "",
    "tool/cli.py": CLI,
    "tool/train.py": FIELDS,
    "scripts/convert_a.py": CONVERT,
    "scripts/convert_b.py": CONVERT,
    "scripts/convert_c.py": CONVERT,
    "tests/test_cli.py": TEST_CLI,  # a test's parser is nobody's documented CLI
    "README.md": "# Tool\n\n```bash\ntool --model gpt2 --batch-size 16\n```\n",
    "docs/usage.md": "# Usage\n\nPass `--model` and `--device cuda`.\n",
    "docs/guide/train.md": "# Train\n\n`--learning-rate 3e-4` with `--warmup-steps 10`.\n",
    "docs/guide/convert.md": "# Convert\n\n`python scripts/convert_a.py --input a --output b`\n",
    "docs/guide/docker.md": "# Docker\n\n`docker run --gpus all --rm image`\n",  # other programs' flags
    "docs/about.md": "# About\n\nNo flags here.\n",
    "CHANGELOG.md": "# Changes\n\n- removed `--model` and `--batch-size`\n",
    "docs/HISTORY.md": "# History\n\n- `--model` was `--net`, `--batch-size` was `--bs`\n",
    "docs/blog/2023-01-01-launch.md": "# Launch\n\n`tool --net x --bs 4`\n",
}


def test_it_finds_the_parsers_pages_cite_and_the_pages_citing_them():
    found = plan(MemoryTree(FILES))
    parsers = {(p.path, p.kind, p.dataclass, p.builder) for p in found.parsers}
    assert parsers == {
        ("tool/cli.py", "argparse", None, None),
        ("tool/train.py", "dataclass-flags", "TrainArgs", "build_parser"),
        ("scripts/convert_a.py", "argparse", None, None),
        ("scripts/convert_b.py", "argparse", None, None),
        ("scripts/convert_c.py", "argparse", None, None),
    }
    # The changelog, the docker page and the page with no flags cite no parser of the repository.
    assert found.pages == ("README.md", "docs/guide/convert.md", "docs/guide/train.md", "docs/usage.md")


def test_a_folder_of_release_history_is_left_out():
    # hatch's docs/history/hatch.md: what each release removed, true then.
    page = "# 1.8.0\n\nRemoved `--copy` and `--verbose`.\n"
    text = config_for(MemoryTree({**FILES, "docs/history/tool.md": page}), "abc123")
    assert text is not None and '"docs/history/**"' in text
    # towncrier's news fragments (pipx's changelog.d/1725.feature.md) are no pages either.
    fragment = "Added `tool --model x --batch-size 2`.\n"
    fragments = {**FILES, "changelog.d/1.feature.md": fragment, "changelog.d/2.bugfix.md": fragment}
    assert "changelog.d" not in (config_for(MemoryTree(fragments), "abc123") or "")


def test_a_release_s_frozen_copy_of_the_docs_is_no_page():
    # crewAI's docs/v1.15.3/en/cli.mdx beside docs/edge/en/cli.mdx, Docusaurus's
    # versioned_docs/version-2.x/: each release's copy cites the flags it had.
    old = "# CLI\n\n```bash\ntool --net gpt2 --bs 16 --model x --batch-size 2\n```\n"
    current = "# CLI\n\n```bash\ntool --model gpt2 --batch-size 16\n```\n"
    files = {
        **FILES,
        "docs/edge/en/cli.mdx": current,
        "docs/edge/ko/cli.mdx": current,
        "docs/v1.2.0/en/cli.mdx": old,
        "docs/v1.3/en/cli.mdx": old,
        "website/versioned_docs/version-2.x/cli.md": old,
        "docs/api/v1/cli.md": current,  # one number: an API's version, written against today's code
    }
    found = plan(MemoryTree(files))
    assert "docs/edge/en/cli.mdx" in found.pages and "docs/api/v1/cli.md" in found.pages
    assert not [p for p in found.pages if "v1." in p or "version" in p]
    text = config_for(MemoryTree(files), "abc123")
    assert text is not None
    (pack,) = parse_repo_config(text)
    expanded = expand_all(pack.rules, MemoryTree({}), MemoryTree(files), {})
    pages = {d.path for rule in expanded for d in rule.docs}
    assert {"docs/edge/en/cli.mdx", "docs/edge/ko/cli.mdx", "docs/api/v1/cli.md"} <= pages
    assert not [p for p in pages if "v1." in p or "version" in p]
    report = audit(pack.rules, MemoryTree(files))
    assert not [f for f in report.findings if "v1." in f.doc.path or "version" in f.doc.path]
    assert not unmatched(pack.rules, MemoryTree(files), MemoryTree(files))


def test_release_notes_of_one_name_are_one_exclude_that_outlives_a_move():
    # crewAI's docs/en/changelog.mdx, docs/ko/changelog.mdx, ... moved to docs/edge/en/ later:
    # a list of their paths would then match nothing, and every check would fail.
    notes = "# Changelog\n\n- removed `--net` and `--bs`\n"
    page = "# Use\n\n`tool --model gpt2 --batch-size 16`\n"
    files = {**FILES, "docs/en/changelog.md": notes, "docs/ko/changelog.md": notes, "docs/ko/use.md": page}
    text = config_for(MemoryTree(files), "abc123")
    assert text is not None and '"docs/**/changelog.md"' in text and "docs/en/changelog.md" not in text
    (pack,) = parse_repo_config(text)
    moved = {
        (f"docs/edge/{p[5:]}" if p.startswith(("docs/en/", "docs/ko/")) else p): t for p, t in files.items()
    }
    assert not unmatched(pack.rules, MemoryTree(files), MemoryTree(moved))
    assert not audit(pack.rules, MemoryTree(moved)).findings


def test_a_page_on_a_migrations_feature_is_kept_and_a_migration_guide_left_out():
    # `migrations.md` documenting a command that applies schema migrations cites its flags as
    # they are; a guide from one release to the next says what they were.
    feature = "# Schema migrations\n\nRun `tool --model m` to apply them.\n"
    guide = "# Migrating from 1.x to 2.0\n\n`--net` is `--model` now.\n"
    text = config_for(MemoryTree({**FILES, "docs/migrations.md": feature}), "abc123") or ""
    assert "docs/migrations.md" not in text and "docs/HISTORY.md" in text  # under docs/**, kept
    text = config_for(MemoryTree({**FILES, "docs/migrations.md": guide}), "abc123") or ""
    assert "docs/migrations.md" in text
    text = config_for(MemoryTree({**FILES, "docs/MIGRATION.md": "# Notes\n\n`--net`\n"}), "abc123") or ""
    assert "docs/MIGRATION.md" in text  # a singular name is a guide whatever its title


def test_the_config_is_short_uses_globs_and_validates_against_the_repository():
    tree = MemoryTree(FILES)
    text = config_for(tree, "abc123")
    assert text is not None
    assert "written by `docs-sync init` at abc123" in text
    # The comment says what the glob couples: every page under docs/, not only those citing flags.
    assert '      - path: "docs/**/*.md"  # 5 pages, 3 of them citing flags today\n' in text
    # Release notes and dated posts under the glob say what was true then: left out.
    assert '        exclude: [docs/HISTORY.md, "docs/blog/**"]  # changelogs, posts\n' in text
    assert "      - path: README.md\n" in text
    # A source glob says what it matches today: it takes the modules added there later too.
    assert '          - "scripts/*.py"  # 3 modules, each cited by the pages today\n' in text
    assert "          - tool/cli.py\n" in text
    assert "tool/train.py" in text and "dataclass: TrainArgs" in text and "builder: build_parser" in text
    assert "tests/" not in text
    (pack,) = parse_repo_config(text)
    assert unmatched(pack.rules, MemoryTree({}), tree) == []


def test_audit_right_after_init_finds_the_stale_citation_only():
    stale = "# Usage\n\nPass `--model`, `--batch-size 4` and `--devices cuda`.\n"
    files = dict(FILES, **{"docs/usage.md": stale})  # the docker page's flags are docker's: not reported
    tree = MemoryTree(files)
    text = config_for(tree)
    assert text is not None
    (pack,) = parse_repo_config(text)
    report = audit(pack.rules, tree)
    assert [(f.kind, f.symbol, f.doc.path) for f in report.findings] == [
        ("unresolved", "--devices", "docs/usage.md")
    ]


def test_a_one_flag_subcommand_beside_a_cited_parser_is_coupled_when_the_page_cites_its_flag():
    run = 'def add(sub):\n    p = sub.add_parser("run")\n    p.add_argument("--jobs")\n'
    run += '    p.add_argument("--seed")\n'
    env = 'def add(sub):\n    p = sub.add_parser("env")\n    p.add_argument("--config_file")\n'
    other = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--config_file")\n'
    page = "# CLI\n\n`tool run --jobs 2 --seed 1`\n\n`tool env --config_file c.yaml`\n"
    files = {"tool/cmd/run.py": run, "tool/cmd/env.py": env, "tools/other.py": other, "docs/cli.md": page}
    found = plan(MemoryTree(files))
    # env.py has one flag, cited, beside run.py: the page documents that command line's
    # subcommands. other.py has the same one flag elsewhere: one shared flag says nothing.
    assert {p.path for p in found.parsers} == {"tool/cmd/run.py", "tool/cmd/env.py"}


def test_a_program_a_page_runs_by_name_with_a_flag_it_takes_is_coupled():
    split = CONVERT.replace("--input", "--in-file").replace("--output", "--model-name-or-path")
    clean = CONVERT.replace('p.add_argument("--output")\n', 'p.add_argument("--skip-lang")\n')
    files = {
        "tool/__init__.py": "",
        "tool/data/__init__.py": "",
        "tool/data/split.py": split,
        "tool/data/clean.py": clean,
        "tool/data/merge.py": CONVERT,
        # argparse takes `--in` for `--in-file` and `--model-name` for `--model-name-or-path`
        "docs/data.md": "# Data\n\n```\npython3 -m tool.data.split --in a.json --model-name m\n"
        "python3 -m tool.data.clean --skip-lang en\n```\n",
        # cited on their own, or only `--help` given: no page of merge.py's
        "docs/merge.md": "# Merge\n\nPass `--input`.\n\n```\npython3 -m tool.data.merge --help\n```\n",
    }
    found = plan(MemoryTree(files))
    assert {p.path for p in found.parsers} == {"tool/data/split.py", "tool/data/clean.py"}
    assert found.pages == ("docs/data.md",)
    # one flag of a program no command of the page runs says nothing
    unrun = {**files, "docs/data.md": "# Data\n\nPass `--skip-lang en`.\n"}
    assert config_for(MemoryTree(unrun)) is None


def test_a_script_a_page_runs_after_cd_into_its_folder_is_coupled():
    files = {
        "examples/split/run.py": CONVERT.replace("--input", "--in-file"),
        "run.py": CLI,  # the root's namesake: not what the block runs
        "README.md": "# Split\n\n```bash\ncd examples/split\npython run.py --in a.json --output b\n```\n",
    }
    found = plan(MemoryTree(files))
    assert {p.path for p in found.parsers} == {"examples/split/run.py"}
    assert found.pages == ("README.md",)


def test_a_script_run_with_its_helpers_flags_is_coupled_with_its_own_flags():
    # `train_db.py` builds its parser from a helper module's (`--learning_rate`, `--output_dir`,
    # cited enough to couple the helper) and adds two flags of its own, which the page does not
    # pass: the command runs it, so its own flags are the page's to keep right too. The command
    # is written over lines without `\` ("type it on one line").
    files = {
        "lib/__init__.py": "",
        "lib/train_util.py": (
            "def add_training_arguments(parser):\n    parser.add_argument('--learning_rate')\n"
            "    parser.add_argument('--output_dir')\n"
        ),
        "train_db.py": (
            "import argparse\nfrom lib import train_util\n\ndef setup_parser():\n"
            "    parser = argparse.ArgumentParser()\n    train_util.add_training_arguments(parser)\n"
            "    parser.add_argument('--no_token_padding')\n    parser.add_argument('--stop_te_at')\n"
            "    return parser\n\nif __name__ == '__main__':\n    setup_parser().parse_args()\n"
        ),
        "tools/other.py": (
            "import argparse\n\nif __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
            "    p.add_argument('--verbose_level')\n    p.add_argument('--dry')\n"
        ),
        "docs/db.md": (
            "# DreamBooth\n\n```\naccelerate launch --num_cpu_threads_per_process 1 train_db.py\n"
            "    --output_dir=out\n    --learning_rate=1e-6\n```\n"
        ),
    }
    found = plan(MemoryTree(files))
    assert {p.path for p in found.parsers} == {"lib/train_util.py", "train_db.py"}
    assert found.pages == ("docs/db.md",)


def test_enhancement_proposals_are_no_pages_of_the_command_line():
    files = {
        "tool/cli.py": CLI,
        "docs/usage.md": "# Usage\n\nPass `--model` and `--device cuda`.\n",
        "sep/sep-019.md": "# SEP 19\n\nAdd `--model` and `--batch-size` to `tool/old.py`.\n",
        "rfcs/0001-flags.md": "# RFC\n\nAdd `--model` and `--device`.\n",
    }
    assert plan(MemoryTree(files)).pages == ("docs/usage.md",)


def test_nothing_to_couple_gives_no_config():
    files = {"tool/cli.py": CLI, "README.md": "# Tool\n\nSee `--help`.\n", "docs/a.md": "# A\n\n`--model`\n"}
    assert config_for(MemoryTree(files)) is None  # one flag cited: not enough to say what a page is about


def test_rst_mdx_quarto_and_notebook_pages_are_pages_with_a_glob_of_their_own():
    files = {
        "tool/cli.py": CLI,
        "docs/usage.md": "# Usage\n\nPass `--model` and `--device cuda`.\n",
        "docs/a.rst": "A\n=\n\nPass ``--model`` and :option:`--batch-size`.\n",
        "docs/b.rst": "B\n=\n\n.. code-block:: bash\n\n   tool --model x --device cpu\n",
        "docs/c/d.rst": "D\n=\n\n``--model`` and ``--device``.\n",
        "docs/e.mdx": "import X from './x'\n\nPass `--model` and `--batch-size 2`.\n",
        "docs/f.qmd": "```{bash}\ntool --model x --batch-size 2\n```\n",
        "docs/g.ipynb": (
            '{\n "cells": [\n  {\n   "cell_type": "markdown",\n   "source": [\n'
            '    "Pass `--model` and `--device cuda`."\n   ]\n  }\n ]\n}\n'
        ),
        "docs/notes.txt": "--model --batch-size\n",
    }
    tree = MemoryTree(files)
    found = plan(tree)
    assert found.pages == (
        "docs/a.rst",
        "docs/b.rst",
        "docs/c/d.rst",
        "docs/e.mdx",
        "docs/f.qmd",
        "docs/g.ipynb",
        "docs/usage.md",
    )
    text = config_for(tree)
    assert text is not None
    assert '      - path: "docs/**/*.rst"  # 3 pages, each citing flags\n' in text
    assert "      - path: docs/e.mdx\n" in text and "      - path: docs/f.qmd\n" in text
    assert "      - path: docs/g.ipynb\n" in text  # a notebook is a page too
    (pack,) = parse_repo_config(text)
    assert unmatched(pack.rules, MemoryTree({}), tree) == []
    stale = dict(files, **{"docs/c/d.rst": "D\n=\n\n``--model`` and ``--devices``.\n"})
    report = audit(pack.rules, MemoryTree(stale))
    assert [(f.kind, f.symbol, f.doc.path) for f in report.findings] == [
        ("unresolved", "--devices", "docs/c/d.rst")
    ]


def test_folders_of_a_page_and_its_scripts_are_paired_each_page_against_its_own_scripts():
    from bot.core.check import check
    from bot.core.model import Change

    train = CONVERT.replace("--input", "--lr").replace("--output", "--epochs")
    files = {
        "tool/cli.py": CLI,
        "docs/usage.md": "# Usage\n\nPass `--model` and `--device cuda`.\n",
        "examples/sft/train.py": train,
        "examples/sft/README.md": "# SFT\n\n```bash\npython examples/sft/train.py --lr 1 --epochs 2\n```\n",
        "examples/dpo/train.py": train,
        "examples/dpo/README.md": "# DPO\n\n```bash\npython examples/dpo/train.py --lr 1 --epochs 3\n```\n",
        "examples/guide.md": "# Guide\n\nRun `python examples/sft/train.py --lr 1 --epochs 1`.\n",
        "examples/notes/README.md": "# Notes\n\nNo scripts here.\n",
    }
    tree = MemoryTree(files)
    text = config_for(tree)
    assert text is not None
    assert '      - path: "examples/{name}/README.md"\n' in text
    assert '        paths: ["examples/{name}/*.py"]\n' in text
    assert "(2 folders pair today)" in text
    # The guide cites the sft script from outside its folder: the main rule keeps it, and its
    # glob leaves the paired pages to their own rule.
    assert '      - path: "examples/**/*.md"' not in text or '"examples/*/README.md"' in text
    (pack,) = parse_repo_config(text)
    assert unmatched(pack.rules, MemoryTree({}), tree) == []
    assert audit(pack.rules, tree).findings == ()
    # A new flag of one example's script is news on its own page only.
    head = dict(files, **{"examples/dpo/train.py": train + 'p.add_argument("--beta")\n'})
    found = check(pack.rules, tree, MemoryTree(head), [Change("modified", "examples/dpo/train.py")]).findings
    assert [(f.kind, f.symbol, f.rule) for f in found] == [("new-flag", "--beta", "examples[dpo]")]
    assert "examples/dpo/README.md" in found[0].message


def test_pages_that_share_scripts_are_not_paired():
    files = {
        "tool/cli.py": CLI,
        "examples/a/README.md": "# A\n\n`tool --model x --batch-size 2`\n",
        "examples/b/README.md": "# B\n\n`tool --model y --device cpu`\n",
    }
    text = config_for(MemoryTree(files))
    assert text is not None and "{name}" not in text


PLUGIN = """\
def pytest_addoption(parser):
    group = parser.getgroup("general")
    group._addoption("-x", "--exitfirst", action="store_true", help="Stop at the first failure.")
    group.addoption("--maxfail", type=int, default=0)
    parser.addoption("--color", choices=["yes", "no", "auto"], default="auto")
"""


def test_pytest_s_addoption_is_argparse_and_dated_announcements_are_excluded():
    files = {
        "pyproject.toml": '[project]\nname = "runner"\n[project.scripts]\npytest = "runner.main:main"\n',
        "src/runner/main.py": PLUGIN,
        "conftest.py": 'def pytest_addoption(parser):\n    parser.addoption("--slow")\n',
        "doc/usage.rst": "Usage\n=====\n\n.. code-block:: bash\n\n   pytest -x --maxfail 2\n\n``--color``\n",
        "doc/how/a.rst": "A\n=\n\n``--exitfirst`` or ``--maxfail``.\n",
        "doc/how/b.rst": "B\n=\n\n``--color`` and ``-x``.\n",
        "doc/announce/release-1.0.rst": "1.0\n===\n\n``--maxfail`` and ``--color``.\n",
        "doc/announce/sprint.rst": "Sprint\n======\n\n``--maxfail`` and ``--color``.\n",
        # What a release removed: the page cites `--max-fails`, which no parser has any more.
        "doc/deprecations.rst": "Deprecations\n============\n\n``--max-fails`` is ``--maxfail``.\n",
        "doc/extdev/deprecated.rst": "Deprecated\n==========\n\n``--max-fails`` and ``--exitfirst``.\n",
    }
    tree = MemoryTree(files)
    text = config_for(tree)
    assert text is not None
    assert "        kind: argparse\n        calls: [_addoption, add_argument, addoption]\n" in text
    assert "          - src/runner/main.py\n" in text and "conftest.py" not in text
    assert 'exclude: ["doc/announce/**", doc/deprecations.rst, doc/extdev/deprecated.rst]' in text
    (pack,) = parse_repo_config(text)
    stale = dict(files, **{"doc/usage.rst": files["doc/usage.rst"].replace("--maxfail", "--max-fail")})
    report = audit(pack.rules, MemoryTree(stale))
    assert [(f.kind, f.symbol, f.doc.path) for f in report.findings] == [
        ("unresolved", "--max-fail", "doc/usage.rst")
    ]


MANAGER_OPTIONS = """\
def register_default_options(option_manager):
    add_option = option_manager.add_option
    add_option("--select", metavar="errors", help="Comma-separated list of errors to enable.")
    add_option("--max-line-length", type=int, default=79, help="Maximum allowed line length.")
"""


def test_options_an_option_manager_adds_like_optparse_are_read():
    # flake8's OptionManager.add_option takes argparse's arguments, as optparse's add_option does.
    files = {
        "pyproject.toml": '[project]\nname = "lint"\n[project.scripts]\nlint = "lint.main:main"\n',
        "src/lint/options.py": MANAGER_OPTIONS,
        "src/lint/main.py": (
            "import argparse\n\nfrom lint.options import register_default_options\n\n\n"
            "class Manager:\n    def __init__(self):\n        self.parser = argparse.ArgumentParser()\n\n"
            "    def add_option(self, *names, **kwargs):\n"
            "        self.parser.add_argument(*names, **kwargs)\n\n\n"
            "def main():\n    manager = Manager()\n    register_default_options(manager)\n"
            "    manager.parser.parse_args()\n"
        ),
        "docs/usage.rst": (
            "Usage\n=====\n\n.. code-block:: bash\n\n   lint --select E,W --max-line-length 99\n"
        ),
    }
    text = config_for(MemoryTree(files))
    assert text is not None and "        calls: [add_argument, add_option]\n" in text
    (pack,) = parse_repo_config(text)
    stale = dict(files, **{"docs/usage.rst": files["docs/usage.rst"].replace("--select", "--selekt")})
    report = audit(pack.rules, MemoryTree(stale))
    assert [(f.kind, f.symbol) for f in report.findings] == [("unresolved", "--selekt")]


def test_sources_side_by_side_or_of_one_name_in_sibling_folders_are_one_glob():
    files = {
        "rewards/sarm/compute.py": CONVERT,
        "rewards/robo/compute.py": CONVERT,
        "rewards/robo/model.py": "class Model:\n    pass\n",
        "tools/a.py": CONVERT,
        "tools/b.py": CONVERT,
        "tools/util.py": "X = 1\n",
        "lone/run.py": CONVERT,
        "README.md": "# Tools\n\n`--input a --output b`\n",
    }
    text = config_for(MemoryTree(files)) or ""
    assert '          - "rewards/*/compute.py"  # 2 modules, each cited by the pages today\n' in text
    assert '          - "tools/*.py"  # 3 modules, 2 of them cited by the pages today\n' in text
    assert "          - lone/run.py\n" in text
    (pack,) = parse_repo_config(text)
    assert unmatched(pack.rules, MemoryTree({}), MemoryTree(files)) == []


def test_an_rst_table_of_escaped_options_pairs_its_page_with_their_parser():
    copy = CONVERT.replace('"--input"', '"-n", "--no-clobber"').replace("--output", "--make-parents")
    page = "Copy\n====\n\n.. list-table::\n   :widths: 30 60\n\n   * - \\-n, \\--no-clobber\n"
    page += "     - Keep what is there.\n   * - \\--make-parents\n     - Make the folders.\n"
    files = {"tool/copy.py": copy, "docs/cli.rst": page}
    found = plan(MemoryTree(files))
    assert (found.pages, [p.path for p in found.parsers]) == (("docs/cli.rst",), ["tool/copy.py"])
    text = config_for(MemoryTree(files))
    assert text is not None and "          - tool/copy.py\n" in text
    (pack,) = parse_repo_config(text)
    renamed = dict(files, **{"tool/copy.py": copy.replace("--make-parents", "--make-parent")})
    [f] = audit(pack.rules, MemoryTree(renamed)).findings
    assert (f.kind, f.symbol, f.doc.line) == ("unresolved", "--make-parents", 9)
    assert f.suggestion.replacement == "   * - \\--make-parent"  # behind the escape


def test_a_console_script_s_parsers_in_a_benchmarks_folder_are_sources():
    from tests.core.test_programs import LAZY_SUBCOMMANDS

    page = "# Bench\n\n```bash\ntool bench latency --num-iters 3 --warmup 1\ntool serve --port 8000\n```\n"
    files = {**LAZY_SUBCOMMANDS, "docs/bench.md": page, "tests/benchmarks/run.py": CONVERT}
    found = plan(MemoryTree(files))

    # `tool bench`'s flags live in tool/benchmarks/: the installed command line, not a test.
    assert {p.path for p in found.parsers} >= {"tool/benchmarks/latency.py"}
    assert "tests/benchmarks/run.py" not in {p.path for p in found.parsers}


CLICK_CLI = """\
import click

@click.command()
@click.argument("template")
@click.option("--checkout", help="branch to check out")
@click.option("--no-input", is_flag=True)
def main(template, checkout, no_input):
    pass
"""


def test_a_click_console_script_a_page_runs_with_one_flag_is_coupled():
    files = {
        "pyproject.toml": '[project]\nname = "maker"\n[project.scripts]\nmaker = "maker.cli:main"\n',
        "maker/__init__.py": "",
        "maker/cli.py": CLICK_CLI,
        "docs/usage.rst": "Usage\n=====\n\n.. code-block:: bash\n\n    $ maker gh:me/t --checkout dev\n",
        # click takes no abbreviation: `--check` is another program's flag, or nobody's
        "docs/other.rst": "Other\n=====\n\n.. code-block:: bash\n\n    $ maker gh:me/t --check\n",
    }
    found = plan(MemoryTree(files))
    assert [p.path for p in found.parsers] == ["maker/cli.py"]
    assert found.pages == ("docs/usage.rst",)


def test_a_folder_of_release_notes_in_capitals_is_no_page():
    notes = "# 1.3.0\n\nAdded `tool --model x --batch-size 2`.\n"
    found = plan(MemoryTree({**FILES, "CHANGELOG/1.3.0.md": notes, "Changelog/1.4.0.md": notes}))
    assert not [p for p in found.pages if p.lower().startswith("changelog/")]
