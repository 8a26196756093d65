"""A typer CLI spread over modules: commands registered from another module
(`app.command()(download)`, `app.command(name="cp")(make_cp())`), sub-apps named where they are
added (`app.add_typer(cache_cli, name="cache")`), a group class reading options for every
command, and `Annotated` option aliases of a shared module. Each doc line is judged against the
subcommand it runs."""

from __future__ import annotations

import textwrap

from bot.core.check import audit, check
from bot.core.model import Change, Report
from bot.core.packs import parse_repo_config
from bot.trees.memory import MemoryTree

CONFIG = """
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: typer
        paths: ["tool/*.py"]
"""
FILES = {
    "pyproject.toml": '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.cli:main"\n',
    "tool/__init__.py": "",
    "tool/_utils.py": """
        from typing import Annotated

        import typer
        from typer.core import TyperGroup

        TokenOpt = Annotated[str | None, typer.Option("--token", "-t", help="Access token.")]
        RepoArg = Annotated[str, typer.Argument(help="The repository.")]


        class ToolGroup(TyperGroup):
            def resolve_command(self, ctx, args):
                _no_strict_with_format(args)
                _global_flags(args)
                return super().resolve_command(ctx, args)


        def _global_flags(args):  # what every command's words may carry
            for arg in list(args):
                if arg == "--format" or arg.startswith("--format="):
                    args.remove(arg)
                if arg in ("-q", "--quiet"):
                    args.remove(arg)


        def _no_strict_with_format(args):  # looks for a command's own option, takes no word
            if any(arg == "--strict" for arg in args) and "--format" in args:
                raise ValueError("--strict and --format")


        def _declares(command):
            return any("--verbose" in p.opts for p in command.params)


        def make_app(help):
            return typer.Typer(help=help, cls=ToolGroup)
        """,
    "tool/download.py": '''
        from typing import Annotated

        import typer

        from ._utils import RepoArg, TokenOpt


        def download(
            repo: RepoArg,
            local_dir: Annotated[str | None, typer.Option(help="Where to put the files.")] = None,
            workers: Annotated[int, typer.Option(help="Parallel downloads.")] = 8,
            token: TokenOpt = None,
        ):
            """Download files."""


        def helper(limit: Annotated[int, typer.Option()] = 3):
            """Nobody registers it: no command."""
        ''',
    "tool/_cp.py": '''
        from typing import Annotated

        import typer

        from ._utils import TokenOpt


        def make_cp():
            def cp(
                src: str,
                dst: str,
                recursive: Annotated[bool, typer.Option("--recursive", "-r")] = False,
                token: TokenOpt = None,
            ):
                """Copy."""

            return cp
        ''',
    "tool/cache.py": """
        from typing import Annotated

        import typer

        from ._utils import make_app

        cache_cli = make_app("Manage the cache.")


        @cache_cli.command("verify")
        def verify(fail_on_extra_files: Annotated[bool, typer.Option(help="Fail on extra files.")] = False):
            pass


        @cache_cli.command("rm | remove")
        def rm(dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say.")] = False):
            pass
        """,
    "tool/jobs.py": """
        import typer

        from ._utils import make_app

        jobs_cli = make_app("Run jobs.")


        @jobs_cli.command("run")
        def run(dry_run: bool = typer.Option(False, "--dry-run", help="Only say.")):
            pass
        """,
    "tool/cli.py": """
        from typing import Annotated

        import typer

        from ._cp import make_cp
        from ._utils import make_app
        from .cache import cache_cli
        from .download import download
        from .jobs import jobs_cli

        app = make_app("The tool.")
        app.command()(download)
        app.command(name="cp")(make_cp())
        app.add_typer(cache_cli, name="cache")
        app.add_typer(jobs_cli, name="jobs")


        @app.callback()
        def top(verbose: Annotated[bool, typer.Option("--verbose")] = False):
            pass


        def main():
            app()
        """,
}
README = textwrap.dedent(
    """
    # Tool

    ```bash
    tool download org/repo --local-dir out --workers 8 -t $TOKEN
    tool cp a b --recursive --token $TOKEN
    tool cache verify --fail-on-extra-files --format json -q
    tool cache rm --dry-run
    tool cache remove --dry-run
    tool jobs run --dry-run
    tool --verbose cache verify
    ```

    `tool download` uses `--workers` parallel downloads (default `8`).
    """
)


def files(**edits: str) -> dict[str, str]:
    out = {path: textwrap.dedent(text).lstrip() for path, text in FILES.items()}
    out["README.md"] = README
    for path, text in edits.items():
        out[path] = text
    return out


def run(head: dict[str, str], base: dict[str, str] | None = None) -> Report:
    base = base or files()
    changes = [Change("modified", p) for p in sorted(head) if head[p] != base.get(p)]
    rules = [r for pack in parse_repo_config(CONFIG) for r in pack.rules]
    return check(rules, MemoryTree(base), MemoryTree(head), changes)


def errors(report: Report) -> list[tuple[str, str, int | None]]:
    return sorted(
        (f.kind, f.symbol, f.doc.line if f.doc else None) for f in report.findings if f.severity != "notice"
    )


def line(text: str, needle: str) -> int:
    return next(i for i, row in enumerate(text.splitlines(), 1) if needle in row)


def edited(path: str, old: str, new: str) -> dict[str, str]:
    base = files()
    assert old in base[path]
    return files(**{path: base[path].replace(old, new)})


def test_every_command_of_the_spread_cli_is_known():
    # A doc edit writing every command as it is: the flags of registered functions, a factory's
    # product, sub-apps named in another module, global options of the group class and an
    # alias's short option are all the CLI's.
    base = files(**{"README.md": "# Tool\n"})
    report = run(files(), base)
    assert errors(report) == []


def test_a_registered_functions_flag_renamed_is_found():
    head = edited("tool/download.py", "    workers: Annotated", "    max_workers: Annotated")
    found = errors(run(head))
    assert ("renamed", "--workers", line(README, "tool download org")) in found
    assert all(symbol == "--workers" for _, symbol, _ in found)


def test_a_default_written_after_annotated_changed_is_found():
    head = edited("tool/download.py", "] = 8", "] = 4")
    assert errors(run(head)) == [("changed", "--workers", line(README, "(default `8`)"))]


def test_a_factory_products_flag_removed_is_found():
    head = edited(
        "tool/_cp.py", '        recursive: Annotated[bool, typer.Option("--recursive", "-r")] = False,\n', ""
    )
    assert errors(run(head)) == [("removed", "--recursive", line(README, "tool cp"))]


def test_a_sub_app_named_in_another_module_carries_its_word():
    head = edited(
        "tool/cache.py",
        "fail_on_extra_files: Annotated[bool, typer.Option(help",
        'fail_on_extra_files: Annotated[bool, typer.Option("--strict", help',
    )
    assert errors(run(head)) == [
        ("renamed", "--fail-on-extra-files", line(README, "tool cache verify --fail"))
    ]


def test_a_shared_aliases_option_renamed_is_found_where_a_command_uses_it():
    head = edited("tool/_utils.py", '"--token", "-t"', '"--auth-token", "-t"')
    assert errors(run(head)) == [("renamed", "--token", line(README, "tool cp a b"))]


def test_a_polarity_change_in_one_subcommand_leaves_anothers_lines_alone():
    head = edited("tool/jobs.py", 'typer.Option(False, "--dry-run"', 'typer.Option(True, "--dry-run"')
    assert [(k, s, n) for k, s, n in errors(run(head))] == [
        ("changed", "--dry-run", line(README, "tool jobs run"))
    ]


def test_doc_edits_citing_what_the_commands_lack_are_found():
    wrong = (
        README.replace("tool cache rm --dry-run", "tool cache verify --dry-run")
        .replace("--local-dir out", "--local-dir out --limit 3")
        .replace("tool jobs run --dry-run", "tool jobs run --strict")
    )
    report = run(files(**{"README.md": wrong}))
    assert errors(report) == [
        ("unresolved", "--dry-run", line(wrong, "tool cache verify --dry-run")),
        ("unresolved", "--limit", line(wrong, "tool download org")),
        ("unresolved", "--strict", line(wrong, "tool jobs run")),
    ]


CLICK_FILES = {
    "pyproject.toml": '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.cli:cli"\n',
    "tool/__init__.py": "",
    "tool/build.py": (
        "import click\n\n\n@click.command()\n"
        '@click.option("--out", default="dist")\ndef build_cmd(out):\n    pass\n'
    ),
    "tool/cli.py": (
        "import click\n\nfrom .build import build_cmd\n\n\n@click.group()\ndef cli():\n    pass\n\n\n"
        "cli.add_command(build_cmd)\n"
    ),
    "README.md": "# Tool\n\n```bash\ntool build --out site\n```\n",
}


def test_a_click_command_another_module_defines_is_under_the_group_that_adds_it():
    config = CONFIG.replace("kind: typer", "kind: click")
    rules = [r for pack in parse_repo_config(config) for r in pack.rules]
    head = dict(
        CLICK_FILES, **{"tool/build.py": CLICK_FILES["tool/build.py"].replace('"--out"', '"--output"')}
    )
    report = check(rules, MemoryTree(CLICK_FILES), MemoryTree(head), [Change("modified", "tool/build.py")])
    assert errors(report) == [("renamed", "--out", 4)]
    wrong = dict(CLICK_FILES, **{"README.md": CLICK_FILES["README.md"].replace("--out", "--outdir")})
    report = check(rules, MemoryTree(CLICK_FILES), MemoryTree(wrong), [Change("modified", "README.md")])
    assert errors(report) == [("unresolved", "--outdir", 4)]


def test_a_command_of_a_group_another_module_adds_has_both_words():
    # `cli.add_command(check)`, and check's own module adds `code` from a third: `tool check code`.
    nested = {
        "pyproject.toml": CLICK_FILES["pyproject.toml"],
        "tool/__init__.py": "",
        "tool/check/__init__.py": (
            "import click\n\nfrom tool.check.code import code\n\n\n@click.group()\ndef check():\n"
            "    pass\n\n\ncheck.add_command(code)\n"
        ),
        "tool/check/code.py": (
            'import click\n\n\n@click.command()\n@click.option("--sync", is_flag=True)\n'
            "def code(sync):\n    pass\n"
        ),
        "tool/cli.py": (
            "import click\n\nfrom tool.check import check\n\n\n@click.group()\ndef cli():\n    pass\n\n\n"
            "cli.add_command(check)\n"
        ),
        "README.md": "# Tool\n\n```bash\ntool check code --sync\n```\n",
    }
    config = CONFIG.replace("kind: typer", "kind: click")
    config = config.replace('["tool/*.py"]', '["tool/*.py", "tool/*/*.py"]')
    rules = [r for pack in parse_repo_config(config) for r in pack.rules]
    assert errors(audit(rules, MemoryTree(nested))) == []
    wrong = dict(nested, **{"README.md": nested["README.md"].replace("--sync", "--sink")})
    assert errors(audit(rules, MemoryTree(wrong))) == [("unresolved", "--sink", 4)]


def test_an_app_whose_one_command_is_registered_runs_it_without_its_name():
    single = {
        "pyproject.toml": FILES["pyproject.toml"],
        "tool/__init__.py": "",
        "tool/download.py": textwrap.dedent(FILES["tool/download.py"])
        .replace("from ._utils import RepoArg, TokenOpt\n", "")
        .replace("repo: RepoArg,", "repo: str,")
        .replace("    token: TokenOpt = None,\n", ""),
        "tool/cli.py": (
            "import typer\n\nfrom .download import download\n\n"
            "app = typer.Typer()\napp.command()(download)\n\n\ndef main():\n    app()\n"
        ),
        "README.md": "# Tool\n",
    }
    edited_page = dict(single, **{"README.md": "# Tool\n\n```bash\ntool org/repo --workers 4\n```\n"})
    assert errors(run(edited_page, single)) == []
    wrong = dict(single, **{"README.md": "# Tool\n\n```bash\ntool org/repo --jobs 4\n```\n"})
    assert errors(run(wrong, single)) == [("unresolved", "--jobs", 4)]


KINDS_CLI = """
import enum

import typer

app = typer.Typer()


class Kind(str, enum.Enum):
    model = "model"
    dataset = "dataset"


@app.command()
def upload(kind: Kind = typer.Option(Kind.model, "--type")):
    pass


@app.command()
def info():
    pass
"""
KINDS_README = "# Tool\\n\\n`tool upload --type` takes `model` or `dataset`.\\n"


def kinds_run(cli_head: str) -> Report:
    base = {"pyproject.toml": FILES["pyproject.toml"], "tool/__init__.py": "", "tool/cli.py": KINDS_CLI}
    base["README.md"] = KINDS_README
    head = dict(base, **{"tool/cli.py": cli_head})
    rules = [r for pack in parse_repo_config(CONFIG) for r in pack.rules]
    return check(rules, MemoryTree(base), MemoryTree(head), [Change("modified", "tool/cli.py")])


def test_a_choice_new_in_the_listed_commands_flag_is_found_and_a_new_commands_is_not():
    grown = KINDS_CLI.replace('    dataset = "dataset"\n', '    dataset = "dataset"\n    space = "space"\n')
    assert [(k, s) for k, s, _ in errors(kinds_run(grown))] == [("undocumented", "space")]
    other = grown.replace(
        "class Kind(",
        "class Old(str, enum.Enum):\n    model = 'model'\n    dataset = 'dataset'\n\n\nclass Kind(",
    )
    other = other.replace("def upload(kind: Kind", "def upload(kind: Old").replace(
        "def info():", 'def ls(kind: Kind = typer.Option(Kind.model, "--type")):'
    )
    assert errors(kinds_run(other)) == []
