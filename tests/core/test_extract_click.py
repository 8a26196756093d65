"""click and typer command lines read statically: the facts argparse's would give."""

from __future__ import annotations

import textwrap

from bot.core.extract import extract
from bot.core.extract.command_links import link
from bot.core.rules import Source
from bot.trees.memory import MemoryTree


def facts(kind: str, text: str) -> dict[str, dict[str, str]]:
    """token -> its attributes, with the key as `key`: as a rule reading the one module sees them."""
    source = Source(id="cli", kind=kind, paths=("cli.py",))
    text = textwrap.dedent(text)
    extracted = [(source, f, "cli.py") for f in extract(source, "cli.py", text).facts]
    found = [f for _, f, _ in link(extracted, MemoryTree({"cli.py": text}), None, lambda source, path: ())]
    out: dict[str, dict[str, str]] = {}
    for f in found:
        assert f.kind == "flag"
        out[f.token + (f" @{f.attr('subcommand')}" if f.attr("subcommand") else "")] = {
            "key": f.key,
            **dict(f.attrs),
        }
    return out


CLICK = """
import click

verbose = click.option("--verbose", "-v", is_flag=True, help="Say more.")


@click.group()
@click.option("--config", envvar="TOOL_CONFIG", type=click.Path(), help="Config file.")
def cli(config):
    pass


@cli.command()
@click.option("--output", "-o", "out_dir", default="dist", show_default=True, help="Where to build.")
@click.option("--mode", type=click.Choice(["fast", "safe"]), default="safe")
@click.option("--cache/--no-cache", default=True)
@click.option("--jobs", type=int, default=1, required=False)
@verbose
@click.argument("src")
def build(out_dir, mode, cache, jobs, verbose, src):
    pass


@cli.command("serve")
@click.option("--output", default="site")
@click.option("--quiet", is_flag=True, default=True)
def serve_cmd(output, quiet):
    pass


@cli.group()
def remote_grp():
    pass


@remote_grp.command()
@click.option("--name", required=True)
def add(name):
    pass
"""


def test_click_options_flags_and_their_attributes():
    found = facts("click", CLICK)
    assert found["--config"] == {
        "key": "config",
        "envvar": "TOOL_CONFIG",
        "type": "Path",
        "help": "Config file.",
    }
    build = found["--output @build"]
    assert build == {"key": "out_dir", "default": "dist", "help": "Where to build.", "subcommand": "build"}
    assert found["-o @build"]["key"] == "out_dir"
    assert found["--mode @build"]["choices"] == "fast,safe"
    assert found["--mode @build"]["default"] == "safe"
    assert found["--cache @build"]["sets"] == "true"
    assert found["--no-cache @build"]["sets"] == "false"
    assert found["--cache @build"]["default"] == "True"
    assert found["--jobs @build"]["type"] == "int"
    # An option kept in a name and used as a decorator; a flag's default is False.
    assert found["--verbose @build"] == {
        "key": "verbose",
        "default": "False",
        "sets": "true",
        "help": "Say more.",
        "subcommand": "build",
    }
    # A positional argument is no flag.
    assert not any(token.startswith("src") for token in found)


def test_click_command_names_and_groups():
    found = facts("click", CLICK)
    assert found["--output @serve"]["default"] == "site"
    # `is_flag` with default True: passing it sets `not default`.
    assert found["--quiet @serve"]["sets"] == "false"
    # A group's name drops `_grp` in click 8.2 and keeps it before: both are its words.
    assert found["--name @remote add,remote-grp add"]["required"] == "True"


def test_click_add_command_names_the_subcommand():
    text = """
    import click

    @click.command()
    @click.option("--port", type=int, default=8000)
    def run_server(port):
        pass

    cli = click.Group()
    cli.add_command(run_server, "serve")
    """
    assert facts("click", text) == {
        "--port @serve": {"key": "port", "type": "int", "default": "8000", "subcommand": "serve"}
    }


def test_a_click_command_without_group_is_the_program():
    text = """
    from click import command, option

    @command()
    @option("--line-length", "-l", type=int, default=88)
    def main(line_length):
        pass
    """
    assert facts("click", text)["--line-length"] == {"key": "line_length", "type": "int", "default": "88"}


TYPER = """
from enum import Enum
from typing import Annotated, Optional

import typer

app = typer.Typer()
users = typer.Typer()
app.add_typer(users, name="users")


class Mode(str, Enum):
    fast = "fast"
    safe = "safe"


@app.command()
def train_model(
    data: str,
    learning_rate: float = 1e-3,
    mode: Mode = Mode.safe,
    fp16: bool = False,
    out: Annotated[str, typer.Option("--output", "-o", help="Where to write.")] = "runs",
    force: Annotated[bool, typer.Option("--force")] = False,
    seed: Optional[int] = typer.Option(None, "--seed", envvar="SEED"),
    name: Annotated[str, typer.Argument()] = "x",
):
    pass


@app.command("eval")
def evaluate(ctx: typer.Context, batch_size: int = typer.Option(8, help="Per device.")):
    pass


@users.command()
def create(admin: Annotated[bool, typer.Option("--admin/--regular")] = False):
    pass
"""


def test_typer_parameters_become_flags():
    found = facts("typer", TYPER)
    assert found["--learning-rate @train-model"] == {
        "key": "learning_rate",
        "type": "float",
        "default": "0.001",
        "subcommand": "train-model",
    }
    assert found["--mode @train-model"]["choices"] == "fast,safe"
    # A bool is a switch and its opposite, unless its names are given.
    assert found["--fp16 @train-model"]["sets"] == "true"
    assert found["--no-fp16 @train-model"]["sets"] == "false"
    assert "--no-force @train-model" not in found and found["--force @train-model"]["sets"] == "true"
    assert found["--output @train-model"]["key"] == "out"
    assert found["-o @train-model"]["help"] == "Where to write."
    assert found["--seed @train-model"]["envvar"] == "SEED"
    assert found["--batch-size @eval"] == {
        "key": "batch_size",
        "type": "int",
        "default": "8",
        "help": "Per device.",
        "subcommand": "eval",
    }
    assert found["--admin @users create"]["sets"] == "true"
    assert found["--regular @users create"]["sets"] == "false"
    # Positional parameters (no default, or typer.Argument) and the context are no flags.
    assert not {"--data", "--name", "--ctx"} & {t.split(" @")[0] for t in found}


def test_a_typer_app_with_one_command_runs_it_without_its_name():
    text = """
    import typer

    app = typer.Typer()

    @app.command()
    def main(steps: int = 10):
        pass
    """
    found = facts("typer", text)
    assert found["--steps"] == {"key": "steps", "type": "int", "default": "10"}
    assert set(found) == {
        "--steps",
        "--install-completion",
        "--show-completion",
    }  # typer's own, on the program's app
    run = "import typer\n\ndef main(steps: int = typer.Option(10, '--steps', '-s')):\n    pass\n\n"
    run += "typer.run(main)\n"
    assert set(facts("typer", run)) == {"--steps", "-s"}


def test_nothing_from_a_module_without_the_framework():
    assert facts("click", "import argparse\n@group.command()\ndef f(x=1): pass\n") == {}
    assert facts("typer", CLICK) == {}


def test_options_kept_for_commands_of_other_modules_are_flags():
    text = """
    import click

    dry_run = click.option("-n", "--dry-run", is_flag=True, help="Only show what would happen.")
    upgrade = click.option("-U", "--upgrade/--no-upgrade", default=False)
    """
    found = facts("click", text)
    assert found["--dry-run"]["sets"] == "true" and found["-n"]["key"] == "dry_run"
    assert found["--no-upgrade"]["sets"] == "false"


def test_option_objects_a_group_takes_in_its_params_are_flags():
    # flask's FlaskGroup: `click.Option` instances, their names in one list, put in the group's
    # params by its __init__ and inserted into a command's (`run_command.params.insert(0, ...)`).
    text = """
    import click
    from click import Option

    _app_option = click.Option(["-A", "--app"], metavar="IMPORT", help="The app to load.")
    _debug_option = Option(["--debug/--no-debug"], help="Set debug mode.")
    _env_file_option = click.Option(("-e", "--env-file"), type=click.Path(exists=True, dir_okay=False))

    class FlaskGroup(click.Group):
        def __init__(self, **extra):
            params = list(extra.pop("params", None) or ())
            params.extend((_env_file_option, _app_option, _debug_option))
            super().__init__(params=params, **extra)
    """
    found = facts("click", text)
    assert found["--app"]["key"] == "app" and found["-A"]["key"] == "app"
    assert found["--debug"]["sets"] == "true" and found["--no-debug"]["sets"] == "false"
    assert found["--env-file"]["key"] == "env_file" and "-e" in found
    # typer's Option is a parameter's default, not a list of names: no flag of its own here.
    typed = facts("typer", "import typer\n\nverbose = typer.Option(False, help='Say more.')\n")
    assert typed == {}


def test_options_under_an_auto_envvar_prefix_read_their_environment_variables():
    text = """
    import click

    @click.group(context_settings={"auto_envvar_prefix": "GREETER"})
    @click.option("--debug/--no-debug")
    def cli(debug):
        pass

    @cli.command()
    @click.option("--user-name")
    @click.option("--home", envvar="GREETER_HOME_DIR")
    def greet(user_name, home):
        pass
    """
    found = facts("click", text)
    assert found["--debug"]["envvar"] == found["--no-debug"]["envvar"] == "GREETER_DEBUG"
    assert found["--user-name @greet"]["envvar"] == "GREETER_GREET_USER_NAME"
    assert found["--home @greet"]["envvar"] == "GREETER_HOME_DIR"  # its own is kept
    # Set by a group class in the settings it passes on (flask's FlaskGroup), or at the call.
    flask = "import click\n\n@click.command()\n@click.option('--app')\ndef run(app):\n    pass\n"
    settings = "extra.setdefault('context_settings', {}).setdefault('auto_envvar_prefix', 'FLASK')\n"
    assert facts("click", flask + settings)["--app"]["envvar"] == "FLASK_APP"
    assert facts("click", flask + "run(auto_envvar_prefix='TOOL')\n")["--app"]["envvar"] == "TOOL_APP"
    assert "envvar" not in facts("click", flask)["--app"]


def test_typer_commands_registered_on_an_app_of_another_module():
    # explosion's layout: main.py makes the app and `Opt = typer.Option`; each command module
    # imports them and need not import typer.
    text = """
    from pathlib import Path

    from .main import Arg, Opt, app

    @app.command("assets")
    def project_assets(
        project_dir: Path = Arg(Path.cwd()),
        sparse: bool = Opt(False, "--sparse", "-S", help="Sparse checkout."),
    ):
        pass
    """
    assert facts("typer", text) == {
        "--sparse @assets": {
            "key": "sparse",
            "default": "False",
            "sets": "true",
            "help": "Sparse checkout.",
            "subcommand": "assets",
        },
        "-S @assets": {
            "key": "sparse",
            "default": "False",
            "sets": "true",
            "help": "Sparse checkout.",
            "subcommand": "assets",
        },
    }
    main = "import typer\n\nArg = typer.Argument\nOpt = typer.Option\napp = typer.Typer()\n"
    main += "@app.callback()\ndef top(verbose: bool = Opt(False, '--verbose')):\n    pass\n"
    assert set(facts("typer", main)) == {"--verbose", "--install-completion", "--show-completion"}
    quiet = main.replace("typer.Typer()", "typer.Typer(add_completion=False)")
    assert set(facts("typer", quiet)) == {"--verbose"}


def test_options_a_shared_decorator_applies_belong_to_each_command_it_decorates():
    text = """
    import click

    def tool_options(fn):
        for decorator in reversed((
            click.option("tools_debug", "--td", "--tools-debug", is_flag=True),
            click.option("--chain-limit", type=int, default=5),
        )):
            fn = decorator(fn)
        return fn

    @click.group()
    def cli():
        pass

    @cli.command()
    @tool_options
    def prompt():
        pass

    @cli.command()
    @click.option("--port", type=int, default=8000)
    @tool_options
    def serve(port):
        pass
    """
    found = facts("click", text)
    assert found["--td @prompt"]["key"] == "tools_debug"
    assert found["--chain-limit @serve"]["default"] == "5"
    assert {t.split(" @")[0] for t in found} == {"--td", "--tools-debug", "--chain-limit", "--port"}


def test_a_module_level_tuple_of_options_is_applied_by_the_decorators_that_name_it():
    # A tuple of option decorators kept under a name, applied by a plain decorator's loop and
    # spliced into a decorator factory's own tuple: each command it decorates takes them all.
    text = """
    import click

    _reading = (
        click.option("--json-lines", is_flag=True),
        click.option("-s", "--sep", default=","),
    )
    SIZE = click.option("--size", type=int, default=10)

    def reading_options(fn):
        for decorator in reversed(_reading):
            fn = decorator(fn)
        return fn

    def loading_options(*, needs_key=False):
        def inner(fn):
            for decorator in reversed((click.option("--key", required=needs_key),) + _reading + (SIZE,)):
                fn = decorator(fn)
            return fn
        return inner

    @click.group()
    def cli():
        pass

    @cli.command()
    @reading_options
    def check():
        pass

    @cli.command()
    @loading_options(needs_key=True)
    def load():
        pass
    """
    found = facts("click", text)
    assert found["--sep @check"]["default"] == ","
    assert "--json-lines @check" in found and "--key @check" not in found
    assert {t for t in found if t.endswith("@load")} == {
        "--key @load",
        "--json-lines @load",
        "-s @load",
        "--sep @load",
        "--size @load",
    }
    assert not any("@" not in t for t in found)  # nothing is left as another module's


def test_a_decorator_built_from_options_and_click_s_version_and_help_switches():
    text = """
    import click

    def add_options(*opts):
        def inner(f):
            for opt in reversed(opts):
                f = opt(f)
            return f
        return inner

    def quiet_option(f):
        return click.option("-q", "--quiet", is_flag=True, help="Say less.")(f)

    common = add_options(quiet_option, click.option("-f", "--config-file", help="Config."))

    @click.group()
    @click.version_option("1.0", "-V", "--version")
    def cli():
        pass

    @cli.command()
    @common
    @click.help_option("--usage")
    def build():
        pass

    @click.command()
    @click.version_option(version="2.0")
    def other():
        pass
    """
    found = facts("click", text)
    assert found["--config-file @build"]["key"] == "config_file"
    assert found["--quiet @build"]["sets"] == "true"
    assert {"-V", "--version", "--usage @build"} <= set(found)
    assert "1.0" not in found and "--help @build" not in found


def test_a_typer_app_a_project_function_makes_holds_the_commands_it_decorates():
    text = """
    from typing import Annotated

    import typer

    from ._utils import TokenOpt, make_app

    auth_cli = make_app(help="Manage authentication.")
    helpers = make_list("not an app")


    @auth_cli.command("login")
    def auth_login(
        token: TokenOpt = None,
        add_to_git: Annotated[bool, typer.Option(help="Save it for git too.")] = False,
    ):
        pass


    @auth_cli.command()
    def whoami_cmd(verbose: bool = False):
        pass
    """
    found = facts("typer", text)
    assert set(found) == {
        "--token @login",
        "--add-to-git @login",
        "--no-add-to-git @login",
        "--verbose @whoami-cmd",
        "--no-verbose @whoami-cmd",
        "--install-completion",
        "--show-completion",
    }
    assert found["--add-to-git @login"]["help"] == "Save it for git too."
    assert facts("typer", "import typer\n\nhelpers = make_list('x')\n") == {}


def test_a_hidden_click_option_is_a_flag_marked_hidden():
    found = facts(
        "click",
        """
        import click

        @click.command()
        @click.option("--debug-dump", is_flag=True, hidden=True)
        @click.option("--name", help="Who.")
        def main(debug_dump, name):
            pass
        """,
    )
    assert found["--debug-dump"]["hidden"] == "true" and "hidden" not in found["--name"]
