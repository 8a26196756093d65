"""Subcommands are programs of their own: a git-style CLI whose subcommands reuse a flag name
(`tool build --output`, `tool serve --output`) has each doc line judged against the subcommand
it invokes."""

from __future__ import annotations

import textwrap

import pytest

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
CLICK = textwrap.dedent(
    """
    import click

    @click.group()
    def main():
        pass

    @main.command()
    @click.option("--output", default="dist", help="where to build")
    @click.option("--jobs", type=int, default=1)
    def build(output, jobs):
        pass

    @main.command("serve")
    @click.option("--output", default="site", help="what to serve")
    @click.option("--port", type=int, default=8000)
    def serve_site(output, port):
        pass
    """
)
TYPER = textwrap.dedent(
    """
    from typing import Annotated

    import typer

    main = typer.Typer()

    @main.command()
    def build(
        output: Annotated[str, typer.Option("--output", help="where to build")] = "dist",
        jobs: int = 1,
    ):
        pass

    @main.command()
    def serve(
        output: Annotated[str, typer.Option("--output", help="what to serve")] = "site",
        port: int = 8000,
    ):
        pass
    """
)
# How each framework spells the edits: (the build flag, the serve flag) as declared.
SPELLED = {
    "argparse": (ARGPARSE, 'b.add_argument("--output"', 's.add_argument("--output"'),
    "click": (CLICK, '@click.option("--output", default="dist"', '@click.option("--output", default="site"'),
    "typer": (TYPER, 'typer.Option("--output", help="where', 'typer.Option("--output", help="what'),
}


def config(kind: str) -> str:
    return CONFIG.replace("kind: argparse", f"kind: {kind}")


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


KINDS = pytest.mark.parametrize("kind", sorted(SPELLED))


def renamed(kind: str, which: int, new: str) -> str:
    """The CLI of `kind` with the build (1) or serve (2) `--output` declared as `new`."""
    cli, spelled = SPELLED[kind][0], SPELLED[kind][which]
    head = cli.replace(spelled, spelled.replace('"--output"', f'"{new}"'))
    assert head != cli
    return head


@KINDS
def test_a_flag_renamed_in_one_subcommand_is_found_where_that_subcommand_is_documented(kind):
    cli = SPELLED[kind][0]
    report = run(cli, renamed(kind, 2, "--root"), config=config(kind))
    assert errors(report) == [
        ("renamed", "--output", line(README, "tool serve"), "tool serve --root DIR"),
        ("renamed", "--output", line(README, "It serves"), "It serves from `--root` (default `site`)."),
    ]
    assert "`serve` flag `--output` is now `--root`" in report.findings[0].message
    assert report.conclusion() == "failure"


@KINDS
def test_the_other_subcommands_lines_are_left_alone(kind):
    report = run(SPELLED[kind][0], renamed(kind, 1, "--out"), config=config(kind))
    assert errors(report) == [("renamed", "--output", line(README, "tool build"), "tool build --out dist")]


@KINDS
def test_a_default_changed_in_one_subcommand_is_found_on_its_claim(kind):
    cli = SPELLED[kind][0]
    head = cli.replace('"site"', '"public"')
    assert errors(run(cli, head, config=config(kind))) == [
        ("changed", "--output", line(README, "It serves"), "It serves from `--output` (default `public`).")
    ]
    # The build subcommand's default is another flag's: its change says nothing about `site`.
    assert errors(run(cli, cli.replace('"dist"', '"out"'), config=config(kind))) == []


def test_a_flag_moved_up_to_the_top_parser_is_still_taken_by_the_subcommand():
    head = ARGPARSE.replace('s.add_argument("--port"', 'p.add_argument("--port"')
    assert errors(run(ARGPARSE, head, README + "\n```bash\ntool serve --port 80\n```\n")) == []


@KINDS
def test_a_doc_edit_citing_another_subcommands_flag_is_unresolved(kind):
    cli = SPELLED[kind][0]
    edited = README.replace("tool serve --output DIR", "tool serve --output DIR --jobs 4")
    report = run(cli, cli, readme_head=edited, config=config(kind))
    assert errors(report) == [("unresolved", "--jobs", line(edited, "tool serve"), None)]
    fine = README.replace("tool build --output dist", "tool build --output dist --jobs 4")
    assert errors(run(cli, cli, readme_head=fine, config=config(kind))) == []


@KINDS
def test_prose_after_one_subcommand_may_name_another_subcommands_flag(kind):
    cli = SPELLED[kind][0]
    page = "# Tool\n\n```bash\ntool build --output dist\ntool serve --output DIR\n```\n"
    page += "\n`--jobs` defaults to 1.\n"
    head = cli.replace("default=1", "default=2").replace("jobs: int = 1", "jobs: int = 2")
    assert errors(run(cli, head, page, config=config(kind))) == [
        ("changed", "--jobs", line(page, "defaults"), "`--jobs` defaults to 2.")
    ]


@KINDS
def test_a_table_below_a_bare_subcommand_is_that_subcommands(kind):
    cli = SPELLED[kind][0]
    page = (
        "# Tool\n\n## Build\n\n```bash\ntool build --output dist\n```\n\n"
        "## Serve\n\n```bash\ntool serve [DIR]\n```\n\n| Flag | Meaning |\n|---|---|\n"
        "| `--output` | what to serve |\n| `--port` | the port |\n"
    )
    report = run(cli, renamed(kind, 2, "--root"), page, config=config(kind))
    assert errors(report) == [
        ("renamed", "--output", line(page, "| `--output`"), "| `--root` | what to serve |"),
    ]


def test_a_click_command_that_lets_unknown_options_through_takes_flags_it_does_not_declare():
    # `ignore_unknown_options`: click hands undeclared options to the command (config overrides).
    passing = CLICK.replace(
        '@main.command("serve")', '@main.command("serve", context_settings={"ignore_unknown_options": True})'
    )
    edited = README.replace("tool serve --output DIR", "tool serve --output DIR --max-steps 10")
    assert errors(run(passing, passing, readme_head=edited, config=config("click"))) == []
    # A near miss of one of its own flags is still a misspelling; the other commands are as strict.
    typo = README.replace("tool serve --output DIR", "tool serve --outptu DIR")
    assert [e[:2] for e in errors(run(passing, passing, readme_head=typo, config=config("click")))] == [
        ("unresolved", "--outptu")
    ]
    strict = README.replace("tool build --output dist", "tool build --output dist --max-steps 10")
    assert [e[:2] for e in errors(run(passing, passing, readme_head=strict, config=config("click")))] == [
        ("unresolved", "--max-steps")
    ]


TYRO_LIKE = textwrap.dedent(
    """
    import argparse

    def main():
        p = argparse.ArgumentParser(prog="tool")
        sub = p.add_subparsers(dest="cmd")
        b = sub.add_parser("build")
        b.add_argument("--output", default="dist")
        s = sub.add_parser("serve")
        s.add_argument("--port", type=int, default=8000)
        p.parse_args()
    """
)


def test_a_subcommand_no_flag_of_the_program_names_leaves_its_flags_alone():
    # `tool aria` is a subcommand added in a module the rule does not read: its flags are unknown.
    readme = "# Tool\n\n```bash\ntool aria --vrs-file a.vrs\ntool serve --prot 80\n```\n"
    report = run(TYRO_LIKE, TYRO_LIKE, README, readme_head=readme)
    assert errors(report) == [("unresolved", "--prot", 5, "tool serve --port 80")]


def test_a_line_whose_first_word_is_an_argument_is_still_judged():
    # Top-level flags and a file as the first word: the flag is still the program's.
    top = TYRO_LIKE.replace(
        'sub = p.add_subparsers(dest="cmd")',
        'p.add_argument("--verbose")\n    sub = p.add_subparsers(dest="cmd")',
    )
    readme = "# Tool\n\n```bash\ntool input.txt --verbse\ntool aria --vrs-file a.vrs\n```\n"
    assert [e[:2] for e in errors(run(top, top, README, readme_head=readme))] == [("unresolved", "--verbse")]


def test_a_subcommand_moved_to_a_module_the_rule_does_not_read_takes_its_flags_along():
    # axolotl's `lm-eval` left cli.py for a plugin module registered at run time.
    gone = CLICK.replace(CLICK[CLICK.index('@main.command("serve")') :], "")
    readme = README.replace("tool serve --output DIR", "tool serve --port 80")
    base = {CLI: CLICK, "tool/__init__.py": "", "README.md": readme, "pyproject.toml": PYPROJECT}
    rules = [r for pack in parse_repo_config(config("click")) for r in pack.rules]

    def moved_to(option: str) -> list[tuple[str, str]]:
        plugin = (
            f'import click\n\n@click.command("serve")\n@click.option("{option}")\ndef serve(x):\n    pass\n'
        )
        head = dict(base, **{CLI: gone, "tool/plugins/serve.py": plugin})
        changes = [Change("modified", CLI), Change("added", "tool/plugins/serve.py")]
        return [e[:2] for e in errors(check(rules, MemoryTree(base), MemoryTree(head), changes))]

    assert moved_to("--port") == []
    assert moved_to("--listen") == [("removed", "--port")]
    # The command stayed, its options deleted: another module's `--port` does not keep it alive.
    stripped = CLICK.replace('@click.option("--port", type=int, default=8000)\n', "").replace(
        '@click.option("--output", default="site", help="what to serve")\n', ""
    )
    probe = 'import click\n\n@click.command()\n@click.option("--port")\ndef probe(port):\n    pass\n'
    before = {**base, "tool/probe.py": probe}
    report = check(
        rules, MemoryTree(before), MemoryTree({**before, CLI: stripped}), [Change("modified", CLI)]
    )
    assert ("removed", "--port") in [e[:2] for e in errors(report)]


# Help listings in unlabelled fences (a `text` fence cites nothing: bot/core/page_fences.py).
LISTING_MD = (
    "# Tool\n\n## Build\n\n```\nUsage: tool build [OPTIONS]\n\nOptions:\n"
    "  --output TEXT   where to build\n  --jobs INTEGER\n```\n\n"
    "## Serve\n\n```\nUsage: tool serve [OPTIONS] [DIR]...\n\nOptions:\n"
    "  --output TEXT   what to serve\n  --port INTEGER\n```\n"
)
# The same help listings as reStructuredText literal blocks (a page cog fills with `--help`).
LISTING_RST = (
    "Tool\n====\n\nBuild\n-----\n\n::\n\n    Usage: tool build [OPTIONS]\n\n    Options:\n"
    "      --output TEXT   where to build\n      --jobs INTEGER\n\n"
    "Serve\n-----\n\n::\n\n    Usage: tool serve [OPTIONS] [DIR]...\n\n    Options:\n"
    "      --output TEXT   what to serve\n      --port INTEGER\n"
)


@KINDS
@pytest.mark.parametrize("page", ["README.md", "README.rst"])
def test_the_rows_of_a_help_listing_are_the_subcommands_its_usage_line_names(kind, page):
    text = LISTING_MD if page == "README.md" else LISTING_RST
    rules = config(kind).replace("path: README.md", f"path: {page}")
    # Both subcommands have `--output`: the row renamed is the one under serve's usage line.
    cli = SPELLED[kind][0]
    base = {CLI: cli, "tool/__init__.py": "", page: text, "pyproject.toml": PYPROJECT}
    for which, usage in ((2, "Usage: tool serve"), (1, "Usage: tool build")):
        head = dict(base, **{CLI: renamed(kind, which, "--root")})
        found = check(
            [r for pack in parse_repo_config(rules) for r in pack.rules],
            MemoryTree(base),
            MemoryTree(head),
            [Change("modified", CLI)],
        )
        row = next(
            i for i in range(line(text, usage), len(text.splitlines())) if "--output" in text.splitlines()[i]
        )
        assert [
            (f.kind, f.symbol, f.doc.line if f.doc else None)
            for f in found.findings
            if f.severity != "notice"
        ] == [("renamed", "--output", row + 1)]
