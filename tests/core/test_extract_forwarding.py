"""Flags declared through a local helper forwarding its arguments to the declaring call (pytest's
`add_option_ini(option, dest, ...)` calling `group.addoption(option, dest=dest, **kwargs)`)."""

from __future__ import annotations

import textwrap

from bot.core.check import audit, check
from bot.core.extract import extract
from bot.core.model import Change
from bot.core.packs import parse_repo_config
from bot.core.rules import Source
from bot.trees.memory import MemoryTree

PLUGIN = textwrap.dedent(
    """
    def pytest_addoption(parser):
        group = parser.getgroup("logging")

        def add_option_ini(option, dest, default=None, type=None, **kwargs):
            parser.addini(dest, default=default, type=type, help="Default value for " + option)
            group.addoption(option, dest=dest, **kwargs)

        add_option_ini("--log-level", dest="log_level", default=None, metavar="LEVEL", help="Level.")
        add_option_ini(
            "--log-format",
            dest="log_format",
            default="%(levelname)s %(message)s",
            help="Log format used by the logging module.",
        )
        add_option_ini("--log-cli-level", "log_cli_level", choices=["info", "debug"])

        def describe(name, text):
            return name + ": " + text

        describe("--not-a-flag", "help text")
        group.addoption("--log-disable", action="append", default=[], dest="logger_disable")
    """
)
SOURCE = Source(id="cli", kind="argparse", paths=("plugin.py",), calls=("addoption", "add_argument"))
ARGPARSE = Source(id="cli", kind="argparse", paths=("options.py",))
CONFIG = """
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: argparse
        calls: [addoption, add_argument]
        paths: [plugin.py]
"""
PYPROJECT = '[project]\nname = "pytest"\n\n[project.scripts]\npytest = "plugin:main"\n'
README = "# Logging\n\nRun `pytest --log-format '%(message)s' --log-cli-level debug` to see more.\n"


def flags(text: str) -> dict[str, dict[str, str]]:
    return {f.token: {"key": f.key, **dict(f.attrs)} for f in extract(SOURCE, "plugin.py", text).facts}


def test_a_helper_s_calls_declare_what_its_forwarded_call_would():
    found = flags(PLUGIN)
    assert sorted(found) == ["--log-cli-level", "--log-disable", "--log-format", "--log-level"]
    assert found["--log-level"]["key"] == "log_level" and found["--log-level"]["metavar"] == "LEVEL"
    # The helper's `default` goes to the ini setting, not to the flag: the option's default is unset.
    assert "default" not in found["--log-format"]
    assert found["--log-format"]["help"] == "Log format used by the logging module."
    # Bound positionally too, and a keyword the helper does not take goes through **kwargs.
    assert found["--log-cli-level"]["key"] == "log_cli_level"
    assert found["--log-cli-level"]["choices"] == "info,debug"


def test_a_function_that_forwards_nothing_declares_nothing():
    text = PLUGIN.replace("group.addoption(option, dest=dest, **kwargs)", "pass")
    assert sorted(flags(text)) == ["--log-disable"]
    # A call whose arguments the helper cannot take is no flag either.
    text = PLUGIN.replace(
        'add_option_ini("--log-level", dest', 'add_option_ini("--log-level", "x", "y", "z", "w", dest'
    )
    assert "--log-level" not in flags(text)


def rules():
    return [r for pack in parse_repo_config(CONFIG) for r in pack.rules]


def test_an_audit_of_a_page_citing_the_helper_s_flags_is_quiet():
    tree = MemoryTree({"plugin.py": PLUGIN, "README.md": README, "pyproject.toml": PYPROJECT})
    assert audit(rules(), tree).findings == ()
    # A misspelling of a flag the helper declares is one.
    typo = README.replace("--log-format", "--log-formt")
    found = audit(
        rules(), MemoryTree({"plugin.py": PLUGIN, "README.md": typo, "pyproject.toml": PYPROJECT})
    ).findings
    assert [(f.kind, f.symbol, f.suggestion and f.suggestion.replacement) for f in found] == [
        ("unresolved", "--log-formt", typo.splitlines()[2].replace("--log-formt", "--log-format"))
    ]


def test_a_flag_renamed_in_the_helper_s_call_is_found_on_the_page():
    base = {"plugin.py": PLUGIN, "README.md": README, "pyproject.toml": PYPROJECT}
    head = dict(base, **{"plugin.py": PLUGIN.replace('"--log-format"', '"--log-fmt"')})
    report = check(rules(), MemoryTree(base), MemoryTree(head), [Change("modified", "plugin.py")])
    assert [(f.kind, f.symbol) for f in report.findings if f.severity != "notice"] == [
        ("renamed", "--log-format")
    ]


OPTIONS = textwrap.dedent(
    """
    import argparse


    class Option:
        def __init__(self, *args, **kwargs):
            self.args = args
            self.kwargs = kwargs

        def add_to_parser(self, parser):
            parser.add_argument(*self.args, **self.kwargs)

        def __call__(self, func):
            self.kwargs.update(action="store", callback=func)
            return self


    class Label:  # keeps its arguments, hands them to nothing that declares
        def __init__(self, *args):
            self.args = args


    verbose = Option("-v", "--verbose", action="count", default=0, help="More output.")
    title = Label("--not-a-flag")


    @Option("-L", "--lockfile", metavar="PATH", help="Another lockfile.")
    def lockfile_option(project, namespace, values):
        project.lockfile = values
    """
)


def test_an_option_class_s_instances_declare_the_call_they_make():
    found = {f.token: {"key": f.key, **dict(f.attrs)} for f in extract(ARGPARSE, "options.py", OPTIONS).facts}
    assert sorted(found) == ["--lockfile", "--verbose", "-L", "-v"]
    assert found["--lockfile"]["metavar"] == "PATH" and found["--verbose"]["default"] == "0"


INVERTIBLE = textwrap.dedent(
    """
    import argparse

    pairs = [("allow", "disallow")]
    inverse_prefix = {}
    for a, b in pairs:
        inverse_prefix[a] = b
        inverse_prefix[b] = a


    def invert(flag):
        parts = flag[2:].split("-", 1)
        if len(parts) == 2:
            prefix, rest = parts
            if prefix in inverse_prefix:
                return f"--{inverse_prefix[prefix]}-{rest}"
            if prefix == "no":
                return f"--{rest}"
        return f"--no-{flag[2:]}"


    def build():
        parser = argparse.ArgumentParser(prog="checker")
        strict = []

        def add_switch(flag, *, inverse=None, default, dest=None, help, strict_flag=False, group=None):
            if inverse is None:
                inverse = invert(flag)
            if group is None:
                group = parser
            if help is not argparse.SUPPRESS:
                help += f" (inverse: {inverse})"
            on, off = ("store_false", "store_true") if default else ("store_true", "store_false")
            arg = group.add_argument(flag, action=on, dest=dest, help=help)
            dest = arg.dest
            group.add_argument(inverse, action=off, dest=dest, help=argparse.SUPPRESS)
            if strict_flag:
                strict.append(flag)  # a list of the enclosing function's: the run stops here

        checks = parser.add_argument_group(title="Checks")
        add_switch("--warn-unused", default=False, strict_flag=True, help="Warn.", group=checks)
        add_switch("--allow-globals", default=False, help="Allow.")
        add_switch("--no-reexport", default=True, dest="reexport", help="Keep.", group=checks)
        add_switch("--show-codes", inverse="--hide-codes", default=True, help=argparse.SUPPRESS)

        def add_rate(group, role):
            group.add_argument(f"--{role}-lr", type=float, default=0.1, help="Rate of " + role)

        add_rate(parser, "actor")
        add_rate(checks, "critic")
        return parser
    """
)


def argparse_flags(text: str) -> dict[str, dict[str, str]]:
    return {f.token: {"key": f.key, **dict(f.attrs)} for f in extract(ARGPARSE, "options.py", text).facts}


def test_a_helper_run_on_each_call_declares_the_flag_and_its_computed_inverse():
    found = argparse_flags(INVERTIBLE)
    assert sorted(found) == [
        "--actor-lr",
        "--allow-globals",
        "--critic-lr",
        "--disallow-globals",
        "--hide-codes",
        "--no-reexport",
        "--no-warn-unused",
        "--reexport",
        "--show-codes",
        "--warn-unused",
    ]
    # The second call's dest is the first call's action's: one fact in two spellings.
    assert found["--warn-unused"]["key"] == found["--no-warn-unused"]["key"] == "warn_unused"
    assert (found["--warn-unused"]["sets"], found["--no-warn-unused"]["sets"]) == ("true", "false")
    assert found["--no-reexport"]["key"] == found["--reexport"]["key"] == "reexport"
    assert (found["--no-reexport"]["default"], found["--no-reexport"]["sets"]) == ("True", "false")
    # `help +=` ran; the inverse is hidden, as is a flag whose call hides it.
    assert found["--warn-unused"]["help"] == "Warn. (inverse: --no-warn-unused)"
    assert found["--no-warn-unused"]["hidden"] == "true" and "help" not in found["--no-warn-unused"]
    assert found["--show-codes"]["hidden"] == found["--hide-codes"]["hidden"] == "true"
    # Option strings spelt from a parameter, with the call's keywords as written.
    assert found["--critic-lr"]["default"] == "0.1" and found["--critic-lr"]["help"] == "Rate of critic"
    # Each flag on the line of its call's first argument.
    lines = {f.token: f.line for f in extract(ARGPARSE, "options.py", INVERTIBLE).facts}
    assert '"--allow-globals"' in INVERTIBLE.splitlines()[lines["--disallow-globals"] - 1]


def test_the_inverse_is_spelt_from_the_table_the_module_fills_when_imported():
    # `inverse_prefix = {}` alone would say `--no-allow-globals`; the loop after it says otherwise.
    assert "--no-allow-globals" not in argparse_flags(INVERTIBLE)
    unfilled = INVERTIBLE.replace("    inverse_prefix[a] = b\n    inverse_prefix[b] = a\n", "    pass\n")
    assert "--no-allow-globals" in argparse_flags(unfilled)
    # A table the module fills in a way the run cannot follow is unknown: no inverse is guessed
    # (and the run, stopped before its first call, declares nothing).
    unknown = INVERTIBLE.replace("for a, b in pairs:", "for a, b in load_pairs():")
    found = argparse_flags(unknown)
    assert not {"--allow-globals", "--disallow-globals", "--no-allow-globals"} & found.keys()
    assert {"--hide-codes", "--show-codes", "--actor-lr"} <= found.keys()  # its inverse is given


def test_a_helper_run_that_cannot_decide_its_first_step_declares_nothing():
    # `help` unknown to the run: `help += ...` cannot be run, and nothing was declared before it.
    text = INVERTIBLE.replace('help="Allow."', "help=describe()")
    found = argparse_flags(text)
    assert "--allow-globals" not in found and "--disallow-globals" not in found
    assert "--warn-unused" in found


def test_a_method_spelling_its_flags_is_not_run_with_its_callers_arguments_shifted():
    text = textwrap.dedent(
        """
        import argparse

        parser = argparse.ArgumentParser()


        class Options:
            def add_switch(self, name="quiet"):
                parser.add_argument("--" + name, action="store_true")

            def build(self):
                self.add_switch("verbose")
        """
    )
    # Bound as a function, "verbose" would be `self` and the flag `--quiet`.
    assert "--quiet" not in argparse_flags(text)
    # A function of the module is run, on the module's parser.
    function = text.replace("class Options:\n    def add_switch(self, ", "def add_switch(")
    function = function.replace("        parser.add_argument", "    parser.add_argument")
    function = function.replace("self.add_switch(", "add_switch(")
    assert "--verbose" in argparse_flags(function) and "--quiet" not in argparse_flags(function)
