"""Option registries: calls of a class or function holding a flag's option strings, the parser
made from the records later (nox's `Option("sessions", "-s", "--sessions", ...)` in one module,
`add_argument(*option.flags, ...)` in the module defining `Option`)."""

from __future__ import annotations

import textwrap

from bot.core.check import audit
from bot.core.extract import extract
from bot.core.facts import gather
from bot.core.packs import parse_repo_config
from bot.core.rules import Source
from bot.trees.memory import MemoryTree

OPTION_SET = textwrap.dedent(
    """
    import argparse


    class Option:
        def __init__(self, name, *flags, group=None, help=None, default=None, hidden=False, **kwargs):
            self.name = name
            self.flags = flags
            self.help = help
            self.hidden = hidden
            self.kwargs = kwargs
            self._default = default

        @property
        def default(self):
            if callable(self._default):
                return self._default()
            return self._default


    def make_flag_pair(name, enable_flags, disable_flags, default=False, **kwargs):
        kwargs["action"] = "store_true"
        enable = Option(name, *enable_flags, default=default, **kwargs)
        kwargs["help"] = f"Disables {enable_flags[-1]}."
        disable = Option("no_" + name, *disable_flags, **kwargs)
        return enable, disable


    class OptionSet:
        def __init__(self):
            self.options = {}

        def add_options(self, *args):
            for option in args:
                self.options[option.name] = option

        def parser(self):
            parser = argparse.ArgumentParser()
            for option in self.options.values():
                if not option.hidden:
                    parser.add_argument(
                        *option.flags, help=option.help, default=option.default, **option.kwargs
                    )
            return parser
    """
)
OPTIONS = textwrap.dedent(
    """
    from tool import _option_set

    options = _option_set.OptionSet()
    options.add_options(
        _option_set.Option("sessions", "-s", "--sessions", nargs="*", help="Sessions to run."),
        _option_set.Option("noxfile", "-f", "--noxfile", default="noxfile.py", help="The file."),
        *_option_set.make_flag_pair(
            "stop_on_first_error",
            ("-x", "--stop-on-first-error"),
            ("--no-stop-on-first-error",),
            help="Stop after the first error.",
        ),
        _option_set.Option("forwarded", *EXTRA),
    )
    """
)
# The later shape: a function returning an attrs record, read by a parser spreading two of its
# attributes, the keywords it makes in code unknown.
OPT = textwrap.dedent(
    """
    import argparse

    import attrs


    @attrs.frozen(kw_only=True)
    class Opt:
        flags: tuple = ()
        help: str | None = None
        negative_flags: tuple = ()


    def opt(*flags, **kwargs):
        return {"opt": Opt(flags=flags, **kwargs)}


    def parser(fields):
        parser = argparse.ArgumentParser()
        for field in fields:
            option = field.metadata["opt"]
            parser.add_argument(*option.flags, dest=field.name, help=option.help, default=argparse.SUPPRESS)
            if option.negative_flags:
                parser.add_argument(*option.negative_flags, dest=field.name, action="store_false")
        return parser
    """
)
MODEL = textwrap.dedent(
    """
    import attrs

    from tool._option_set import opt


    @attrs.define
    class Options:
        verbose: bool = attrs.field(
            default=False, metadata=opt("-v", "--verbose", negative_flags=("--no-verbose",), help="Say more.")
        )
    """
)
CONFIG = """
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: argparse
        paths: [tool/_options.py]
"""
README = "# Usage\n\nRun `tool -s lint --noxfile other.py -x`, or `tool --no-stop-on-first-error`.\n"


def files(options: str = OPTIONS, option_set: str = OPTION_SET) -> dict[str, str]:
    return {
        "tool/_options.py": options,
        "tool/_option_set.py": option_set,
        "tool/__init__.py": "",
        "README.md": README,
        "pyproject.toml": '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool._options:main"\n',
    }


def tree(options: str = OPTIONS) -> MemoryTree:
    return MemoryTree(files(options))


def rules():
    return [r for pack in parse_repo_config(CONFIG) for r in pack.rules]


def test_the_records_another_module_s_parser_is_made_from_are_its_flags():
    found = {f.token: dict(f.attrs) for f in gather(rules()[0], tree()).flags()}
    assert sorted(found) == [
        "--no-stop-on-first-error",
        "--noxfile",
        "--sessions",
        "--stop-on-first-error",
        "-f",
        "-s",
        "-x",
    ]
    # the record's keywords are the call's: its own `help`, the `default` its property returns
    # and the rest handed on whole (`nargs`); the helper's `kwargs["action"]` too
    assert found["--noxfile"]["default"] == "noxfile.py"
    assert found["--sessions"]["nargs"] == "*" and found["--sessions"]["help"] == "Sessions to run."
    assert found["-x"]["action"] == "store_true" and found["-x"]["default"] == "False"
    assert found["--no-stop-on-first-error"]["sets"] == "true"
    # option strings spread from a name the call does not spell out (`*EXTRA`) declare nothing


def test_one_file_says_only_which_imported_names_it_calls_with_option_strings():
    source = Source(id="cli", kind="argparse", paths=("tool/_options.py",))
    facts = extract(source, "tool/_options.py", OPTIONS).facts
    assert [(f.kind, f.token) for f in facts] == [
        ("option-record", "_option_set.Option"),
        ("option-record", "_option_set.make_flag_pair"),
    ]


def test_records_imported_relatively_are_followed_to_their_module():
    relative = OPTIONS.replace("from tool import _option_set", "from . import _option_set")
    found = {f.token for f in gather(rules()[0], tree(relative)).flags()}
    assert {"--sessions", "--noxfile", "--no-stop-on-first-error"} <= found


def test_a_function_returning_a_record_declares_each_attribute_a_parser_spreads():
    config = CONFIG.replace("tool/_options.py", "tool/model.py")
    rule = [r for pack in parse_repo_config(config) for r in pack.rules][0]
    held = files(option_set=OPT) | {"tool/model.py": MODEL}
    found = {f.token: dict(f.attrs) for f in gather(rule, MemoryTree(held)).flags()}
    assert sorted(found) == ["--no-verbose", "--verbose", "-v"]
    assert found["--no-verbose"]["sets"] == "false"
    # `dest=field.name` is no dest argparse derives from the flag: unknown, as the default is
    assert set(found["--verbose"]["unknown"].split()) >= {"dest", "default"}
    assert found["--verbose"]["help"] == "Say more."


def test_an_audit_reads_the_registry_and_a_flag_taken_out_of_it_is_reported():
    assert audit(rules(), tree()).findings == ()
    fewer = OPTIONS.replace('"-f", "--noxfile", ', '"-f", ')
    found = audit(rules(), tree(options=fewer)).findings
    assert [(f.kind, f.symbol) for f in found] == [("unresolved", "--noxfile")]


def test_init_couples_a_page_to_the_module_holding_the_records_not_the_one_making_the_parser():
    from bot.core.init import config_for

    text = config_for(tree(), "abc123") or ""
    assert "tool/_options.py" in text and "README.md" in text
    assert "tool/_option_set.py" not in text  # its one `add_argument(*option.flags)` declares nothing
