"""Options a click command applies from another module of the repository (pip-tools' layout:
`options.py` assigns `output = click.option(...)`, the command applies `@options.output`) are
the command's flags, as that module declares them."""

from __future__ import annotations

import textwrap

from bot.core.check import audit, check
from bot.core.facts import gather
from bot.core.model import Change, Report
from bot.core.packs import parse_repo_config
from bot.core.rules import Rule
from bot.trees.memory import MemoryTree

OPTIONS = textwrap.dedent(
    """
    import click

    output = click.option("--output", default="dist", help="where to build")
    port = click.option("--port", type=int, default=8000)
    verbose = click.option("-v", "--verbose", is_flag=True)
    version = click.version_option(package_name="tool")
    """
)
CLI = textwrap.dedent(
    """
    import click

    from . import options
    from .options import verbose

    @click.group()
    @options.version
    def main():
        pass

    @main.command()
    @options.output
    @verbose
    def build(output, verbose):
        pass

    @main.command()
    @options.port
    @options.not_an_option
    def serve(port):
        pass
    """
)
# The same command line before its options moved into options.py.
INLINE = textwrap.dedent(
    """
    import click

    @click.group()
    @click.version_option(package_name="tool")
    def main():
        pass

    @main.command()
    @click.option("--output", default="dist", help="where to build")
    @click.option("-v", "--verbose", is_flag=True)
    def build(output, verbose):
        pass

    @main.command()
    @click.option("--port", type=int, default=8000)
    def serve(port):
        pass
    """
)
README = textwrap.dedent(
    """
    # Tool

    ```bash
    tool build --output dist -v
    tool serve --port 80
    tool --version
    ```

    `tool build` writes to `--output` (default `dist`).
    """
)
PYPROJECT = '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.cli:main"\n'
CONFIG = """
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: click
        paths: [PATHS]
"""


def rules(paths: str = "tool/cli.py") -> list[Rule]:
    return [r for pack in parse_repo_config(CONFIG.replace("PATHS", paths)) for r in pack.rules]


def files(cli: str = CLI, options: str = OPTIONS, readme: str = README) -> dict[str, str]:
    return {
        "tool/__init__.py": "",
        "tool/cli.py": cli,
        "tool/options.py": options,
        "README.md": readme,
        "pyproject.toml": PYPROJECT,
    }


def run(base: dict[str, str], head: dict[str, str], paths: str = "tool/cli.py") -> Report:
    changes = [Change("modified", p) for p in sorted(head) if base.get(p) != head[p]]
    return check(rules(paths), MemoryTree(base), MemoryTree(head), changes)


def errors(report: Report) -> list[tuple[str, str, int | None]]:
    return [
        (f.kind, f.symbol, f.doc.line if f.doc else None) for f in report.findings if f.severity != "notice"
    ]


def line(text: str, needle: str) -> int:
    return next(i for i, row in enumerate(text.splitlines(), 1) if needle in row)


def test_the_options_a_command_applies_from_another_module_are_its_flags():
    (rule,) = rules()
    flags = {(f.token, f.attr("subcommand")): f for f in gather(rule, MemoryTree(files())).flags()}
    assert sorted(flags) == [
        ("--output", "build"),
        ("--port", "serve"),
        ("--verbose", "build"),
        ("--version", None),
        ("-v", "build"),
    ]
    output = flags[("--output", "build")]
    assert (output.path, output.line, output.attr("default")) == ("tool/options.py", 4, "dist")
    assert output.attr("assigned") is None
    # Taken by the programs of the module that applies it, not of the module that declares it.
    assert output.attr("programs") and output.attr("programs") == flags[("--version", None)].attr("programs")


def test_options_moving_into_a_module_the_command_applies_them_from_is_no_finding():
    report = run(files(cli=INLINE, options=""), files())
    assert errors(report) == [] and report.findings == ()
    # The rule naming the folder sees the same.
    assert run(files(cli=INLINE, options=""), files(), paths="'tool/*.py'").findings == ()


def test_a_flag_renamed_in_the_options_module_is_found_where_the_command_is_documented():
    head = files(options=OPTIONS.replace('"--output"', '"--out"'))
    assert errors(run(files(), head, paths="'tool/*.py'")) == [
        ("renamed", "--output", line(README, "tool build --output")),
        ("renamed", "--output", line(README, "writes to")),
    ]


def test_an_option_no_longer_applied_is_gone_though_its_module_still_assigns_it():
    head = files(cli=CLI.replace("@options.output\n", ""))
    found = errors(run(files(), head, paths="'tool/*.py'"))
    assert ("removed", "--output", line(README, "tool build --output")) in found


def test_a_doc_edit_citing_an_option_another_command_applies_is_unresolved():
    edited = README.replace("tool serve --port 80", "tool serve --port 80 --output x")
    assert errors(run(files(), files(readme=edited))) == [
        ("unresolved", "--output", line(edited, "tool serve"))
    ]
    fine = README.replace("tool serve --port 80", "tool serve --port 81")
    assert errors(run(files(), files(readme=fine))) == []


def test_an_audit_of_the_moved_options_finds_nothing_and_no_option_is_guessed():
    tree = MemoryTree(files())
    assert audit(rules(), tree).findings == ()
    # `@options.not_an_option` names nothing the module declares: no flag, no error.
    (rule,) = rules()
    assert not [f for f in gather(rule, tree).facts if "not_an_option" in f.token]


def test_a_command_applying_a_decorator_that_is_no_option_takes_options_no_file_shows():
    # mergekit's `@add_merge_options` makes a click option of each field of a model: a command
    # applying a function of the options module may take options no file shows.
    maker = OPTIONS + "\n\ndef model_options(f):\n    return f\n"
    cli = CLI.replace("@options.not_an_option", "@options.model_options")
    edited = README.replace("tool serve --port 80", "tool serve --port 80 --cuda")
    assert errors(run(files(cli=cli, options=maker), files(cli=cli, options=maker, readme=edited))) == []
    typo = README.replace("tool serve --port 80", "tool serve --prot 80")
    assert errors(run(files(cli=cli, options=maker), files(cli=cli, options=maker, readme=typo))) == [
        ("unresolved", "--prot", line(typo, "tool serve"))
    ]
    # A name the module does not define at all is nothing: the command shows all it takes.
    assert errors(run(files(), files(readme=edited))) == [
        ("unresolved", "--cuda", line(edited, "tool serve"))
    ]
