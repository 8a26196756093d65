"""`docs-sync init` on a small click project and a small typer project: the rules it writes cite
their command modules as `click` and `typer` sources, validate, and check a change."""

from __future__ import annotations

import textwrap

import pytest

from bot.core.check import check
from bot.core.init import config_for, plan
from bot.core.model import Change
from bot.core.packs import parse_repo_config
from bot.core.validate import unmatched
from bot.trees.memory import MemoryTree

CLICK_CLI = textwrap.dedent(
    """
    import click

    from shop.orders import orders

    @click.group()
    @click.option("--store", default="main", help="The store.")
    def cli(store):
        pass

    @cli.command()
    @click.option("--dry-run/--no-dry-run", default=False)
    @click.option("--batch-size", type=int, default=50)
    def sync(dry_run, batch_size):
        pass

    cli.add_command(orders)
    """
)
CLICK_ORDERS = textwrap.dedent(
    """
    import click

    @click.command()
    @click.option("--since", help="ISO date.")
    @click.option("--status", type=click.Choice(["open", "paid"]), default="open")
    def orders(since, status):
        pass
    """
)
TYPER_CLI = textwrap.dedent(
    """
    from typing import Annotated

    import typer

    app = typer.Typer()

    @app.command()
    def train(
        config: str,
        learning_rate: float = 3e-4,
        max_steps: Annotated[int, typer.Option(help="Steps to run.")] = 1000,
        fp16: bool = False,
    ):
        pass

    @app.command()
    def evaluate(checkpoint: str, batch_size: int = 16):
        pass
    """
)
PROJECTS = {
    "click": {
        "pyproject.toml": '[project]\nname = "shop"\n\n[project.scripts]\nshop = "shop.cli:cli"\n',
        "shop/__init__.py": "",
        "shop/cli.py": CLICK_CLI,
        "shop/orders.py": CLICK_ORDERS,
        "shop/util.py": "import click\n\ndef shout(text):\n    click.echo(text.upper())\n",
        "README.md": "# shop\n\n```bash\nshop --store eu sync --batch-size 20 --dry-run\n```\n",
        "docs/orders.md": "# Orders\n\n```bash\nshop orders --since 2024-01-01 --status paid\n```\n",
        "docs/other.md": "# Other\n\nNothing about flags here.\n",
    },
    "typer": {
        "pyproject.toml": '[project]\nname = "trainer"\n\n[project.scripts]\ntrainer = "trainer.cli:app"\n',
        "trainer/__init__.py": "",
        "trainer/cli.py": TYPER_CLI,
        "README.md": textwrap.dedent(
            """
            # trainer

            ```bash
            trainer train cfg.yaml --learning-rate 1e-4 --max-steps 500 --fp16
            trainer evaluate ckpt/ --batch-size 32
            ```

            `--max-steps` defaults to 1000.
            """
        ),
    },
}


@pytest.mark.parametrize("kind", sorted(PROJECTS))
def test_init_couples_the_pages_to_the_command_modules_and_validates(kind):
    tree = MemoryTree(PROJECTS[kind])
    found = plan(tree)
    modules = {"click": ["shop/cli.py", "shop/orders.py"], "typer": ["trainer/cli.py"]}[kind]
    assert [(p.path, p.kind) for p in found.parsers] == [(m, kind) for m in modules]
    text = config_for(tree)
    assert text is not None
    assert f"        kind: {kind}\n" in text and "kind: argparse" not in text
    # Two command modules side by side: their folder, so a module added there later is read too.
    written = {
        "click": '"shop/*.py"  # 4 modules, 2 of them cited by the pages today',
        "typer": "trainer/cli.py",
    }
    assert f"          - {written[kind]}\n" in text
    assert "shop/util.py" not in text and "docs/other.md" not in text
    (pack,) = parse_repo_config(text)
    assert unmatched(pack.rules, MemoryTree({}), tree) == []


def test_a_check_with_inits_rules_finds_a_click_rename_on_its_subcommands_line():
    base = PROJECTS["click"]
    (pack,) = parse_repo_config(config_for(MemoryTree(base)) or "")
    head = dict(base, **{"shop/orders.py": CLICK_ORDERS.replace('"--status"', '"--state"')})
    report = check(pack.rules, MemoryTree(base), MemoryTree(head), [Change("modified", "shop/orders.py")])
    assert [(f.kind, f.symbol, f.doc.path, f.suggestion.replacement) for f in report.findings] == [
        ("renamed", "--status", "docs/orders.md", "shop orders --since 2024-01-01 --state paid")
    ]


def test_a_check_with_inits_rules_finds_a_typer_default_change():
    base = PROJECTS["typer"]
    (pack,) = parse_repo_config(config_for(MemoryTree(base)) or "")
    head = dict(base, **{"trainer/cli.py": TYPER_CLI.replace("= 1000", "= 2000")})
    report = check(pack.rules, MemoryTree(base), MemoryTree(head), [Change("modified", "trainer/cli.py")])
    assert [(f.kind, f.symbol, f.suggestion.replacement) for f in report.findings] == [
        ("changed", "--max-steps", "`--max-steps` defaults to 2000.")
    ]


def test_release_notes_are_no_page_to_couple():
    notes = "# Release notes\n\n`trainer train --learning-rate 1 --max-steps 2 --fp16`\n"
    files = dict(PROJECTS["typer"], **{"release-notes.md": notes, "NEWS.md": notes})
    assert plan(MemoryTree(files)).pages == ("README.md",)


def test_init_finds_typer_commands_that_register_on_an_app_they_import():
    files = {
        "pyproject.toml": '[project.scripts]\nproj = "proj.cli:app"\n',
        "proj/__init__.py": "",
        "proj/cli/__init__.py": "from .main import app\nfrom .fetch import fetch\n",
        "proj/cli/main.py": "import typer\n\nOpt = typer.Option\napp = typer.Typer()\n",
        "proj/cli/fetch.py": "from .main import Opt, app\n\n@app.command()\n"
        "def fetch(force: bool = Opt(False, '--force'), depth: int = Opt(1, '--depth')):\n    pass\n",
        "README.md": "# proj\n\n```bash\nproj fetch --force --depth 2\n```\n",
    }
    assert [(p.path, p.kind) for p in plan(MemoryTree(files)).parsers] == [("proj/cli/fetch.py", "typer")]


OPTIONS = textwrap.dedent(
    """
    import click

    upgrade = click.option("-U", "--upgrade/--no-upgrade", default=False, help="Upgrade all.")
    dry_run = click.option("-n", "--dry-run", is_flag=True, help="Only show what would happen.")
    """
)
COMPILE = textwrap.dedent(
    """
    import click

    from . import options

    @click.command()
    @options.upgrade
    @options.dry_run
    @click.option("--output-file", default="requirements.txt")
    def cli(upgrade, dry_run, output_file):
        pass
    """
)
PIP_LIKE = {
    "pyproject.toml": '[project]\nname = "pt"\n\n[project.scripts]\npt-compile = "pt.scripts.compile:cli"\n',
    "pt/__init__.py": "",
    "pt/resolver.py": "def resolve():\n    pass\n",
    "pt/scripts/__init__.py": "",
    "pt/scripts/compile.py": COMPILE,
    "pt/scripts/options.py": OPTIONS,
    "README.md": "# pt\n\n```bash\npt-compile --upgrade --dry-run --output-file req.txt\n```\n",
}


def test_init_reads_the_options_a_command_applies_from_another_module_and_globs_their_folder():
    tree = MemoryTree(PIP_LIKE)
    (compile_,) = [p for p in plan(tree).parsers if p.path == "pt/scripts/compile.py"]
    assert {"--upgrade", "--dry-run", "--output-file"} <= compile_.flags
    assert compile_.paths == ("pt/scripts/compile.py", "pt/scripts/options.py")
    text = config_for(tree) or ""
    assert '          - "pt/scripts/*.py"  # 3 modules, 2 of them cited by the pages today\n' in text
    assert "pt/resolver.py" not in text
    # The rule holds when the options move on: a renamed option is found on the page.
    (pack,) = parse_repo_config(text)
    head = dict(PIP_LIKE, **{"pt/scripts/options.py": OPTIONS.replace('"--dry-run"', '"--simulate"')})
    report = check(pack.rules, tree, MemoryTree(head), [Change("modified", "pt/scripts/options.py")])
    assert [(f.kind, f.symbol) for f in report.findings if f.severity != "notice"] == [
        ("renamed", "--dry-run")
    ]


def test_a_lone_command_module_beside_other_modules_is_written_as_the_file():
    files = dict(PIP_LIKE, **{"pt/scripts/options.py": "", "pt/scripts/compile.py": CLICK_ORDERS})
    files["README.md"] = "# pt\n\n```bash\npt-compile --since 2024 --status paid\n```\n"
    text = config_for(MemoryTree(files)) or ""
    assert "          - pt/scripts/compile.py\n" in text and "*.py" not in text
