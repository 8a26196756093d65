"""Subcommands are programs of their own: a git-style CLI whose subcommands reuse a flag name
(`tool build --output`, `tool serve --output`) has each doc line judged against the subcommand
it invokes."""

from __future__ import annotations

import textwrap

from bot.core.check import check
from bot.core.model import Change, Report
from bot.core.packs import parse_repo_config
from bot.trees.memory import MemoryTree

CLI = "tool/cli.py"
PYPROJECT = '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.cli:main"\n'
CONFIG = """
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: argparse
        paths: [tool/cli.py]
"""
ARGPARSE = textwrap.dedent(
    """
    import argparse

    def main():
        p = argparse.ArgumentParser(prog="tool")
        sub = p.add_subparsers(dest="cmd")
        b = sub.add_parser("build")
        b.add_argument("--output", default="dist", help="where to build")
        b.add_argument("--jobs", type=int, default=1)
        s = sub.add_parser("serve")
        s.add_argument("--output", default="site", help="what to serve")
        s.add_argument("--port", type=int, default=8000)
        p.parse_args()
    """
)
README = textwrap.dedent(
    """
    # Tool

    ## Build

    ```bash
    tool build --output dist
    ```

    ## Serve

    ```bash
    tool serve --output DIR
    ```

    It serves from `--output` (default `site`).
    """
)


def run(
    cli_base: str, cli_head: str, readme: str = README, readme_head: str | None = None, config: str = CONFIG
) -> Report:
    base = {CLI: cli_base, "tool/__init__.py": "", "README.md": readme, "pyproject.toml": PYPROJECT}
    head = dict(base, **{CLI: cli_head})
    changes = [Change("modified", CLI)] if cli_head != cli_base else []
    if readme_head is not None:
        head["README.md"] = readme_head
        changes.append(Change("modified", "README.md"))
    rules = [r for pack in parse_repo_config(config) for r in pack.rules]
    return check(rules, MemoryTree(base), MemoryTree(head), changes)


def line(text: str, needle: str) -> int:
    return next(i for i, row in enumerate(text.splitlines(), 1) if needle in row)


def errors(report: Report) -> list[tuple[str, str, int | None, str | None]]:
    return [
        (f.kind, f.symbol, f.doc.line if f.doc else None, f.suggestion.replacement if f.suggestion else None)
        for f in report.findings
        if f.severity != "notice"
    ]


def test_a_flag_renamed_in_one_subcommand_is_found_where_that_subcommand_is_documented():
    head = ARGPARSE.replace('s.add_argument("--output"', 's.add_argument("--root"')
    report = run(ARGPARSE, head)
    assert errors(report) == [
        ("renamed", "--output", line(README, "tool serve"), "tool serve --root DIR"),
        ("renamed", "--output", line(README, "It serves"), "It serves from `--root` (default `site`)."),
    ]
    assert "`serve` flag `--output` is now `--root`" in report.findings[0].message
    assert report.conclusion() == "failure"


def test_the_other_subcommands_lines_are_left_alone():
    head = ARGPARSE.replace('b.add_argument("--output"', 'b.add_argument("--out"')
    assert errors(run(ARGPARSE, head)) == [
        ("renamed", "--output", line(README, "tool build"), "tool build --out dist")
    ]


def test_a_default_changed_in_one_subcommand_is_found_on_its_claim():
    head = ARGPARSE.replace('default="site"', 'default="public"')
    assert errors(run(ARGPARSE, head)) == [
        ("changed", "--output", line(README, "It serves"), "It serves from `--output` (default `public`).")
    ]
    # The build subcommand's default is another flag's: its change says nothing about `site`.
    assert errors(run(ARGPARSE, ARGPARSE.replace('default="dist"', 'default="out"'))) == []


def test_a_flag_moved_up_to_the_top_parser_is_still_taken_by_the_subcommand():
    head = ARGPARSE.replace('s.add_argument("--port"', 'p.add_argument("--port"')
    assert errors(run(ARGPARSE, head, README + "\n```bash\ntool serve --port 80\n```\n")) == []


def test_a_doc_edit_citing_another_subcommands_flag_is_unresolved():
    edited = README.replace("tool serve --output DIR", "tool serve --output DIR --jobs 4")
    report = run(ARGPARSE, ARGPARSE, readme_head=edited)
    assert errors(report) == [("unresolved", "--jobs", line(edited, "tool serve"), None)]
    fine = README.replace("tool build --output dist", "tool build --output dist --jobs 4")
    assert errors(run(ARGPARSE, ARGPARSE, readme_head=fine)) == []
