import textwrap

from bot.core.extract import extract
from bot.core.model import ParseError
from bot.core.rules import Source
from tests.miles import miles_file

SOURCE = Source(id="cli", kind="argparse", paths=("pkg/arguments.py",))

CLI = textwrap.dedent(
    """\
    import argparse
    from argparse import BooleanOptionalAction

    _MODES = ["fast", "slow"]
    SHARED_FLAG = "--shared-flag"


    def reset_arg(parser, name, **kwargs):
        parser.add_argument(name, **kwargs)


    def get_extra_args_provider():
        def add_all_arguments(parser):
            def add_cluster_arguments(parser):
                parser.add_argument("--node-count", type=int, default=1, help="Nodes for the trainer")
                parser.add_argument(
                    "--engine",
                    type=str,
                    choices=["alpha", "beta"],
                    default="alpha",
                    help=(
                        "Which engine runs the job. "
                        "Alpha is the usual one."
                    ),
                )
                parser.add_argument(
                    "--pin-memory",
                    action="store_true",
                    help="Pin host memory.",
                )
                parser.add_argument("--no-cache", dest="use_cache", action="store_false")
                parser.add_argument("--offload", action=argparse.BooleanOptionalAction, default=True)
                parser.add_argument("--overlap", action=BooleanOptionalAction)
                parser.add_argument("-v", "--verbose-level", type=int, default=0)
                parser.add_argument("-q", action="count")
                return parser

            group = parser.add_argument_group("tuning")
            group.add_argument("--mode", choices=_MODES, default=None)
            group.add_argument("--ratio", type=float, default=0.8, choices=(0.5, 0.8))
            group.add_argument(SHARED_FLAG, action="store_true", default=True)
            if use_extra_steps():
                parser.add_argument("--extra-steps", type=int, default=2)
            else:
                parser.add_argument("--extra-steps", type=int, default=3)
            parser.add_argument(compute_name(), type=int)
            parser.add_argument("input_file")
            parser.add_argument("--scale", type=float, default=-1.5, help=f"Scale, at most {LIMIT}")
            parser.add_argument("--levels", nargs="+", default=["low", "high"], choices=LEVELS.keys())
            return add_cluster_arguments(parser)

        return add_all_arguments
    """
)


def line_of(text: str, needle: str) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def by_token(facts):
    out = {}
    for f in facts:
        out.setdefault(f.token, []).append(f)
    return out


def test_every_option_string_becomes_a_fact_in_line_order():
    result = extract(SOURCE, "pkg/arguments.py", CLI)

    assert result.errors == ()
    assert [f.token for f in result.facts] == [
        "--node-count",
        "--engine",
        "--pin-memory",
        "--no-cache",
        "--no-offload",
        "--offload",
        "--no-overlap",
        "--overlap",
        "--verbose-level",  # same line as "-v": ordered by token
        "-v",
        "-q",
        "--mode",
        "--ratio",
        "--shared-flag",
        "--extra-steps",
        "--extra-steps",
        "--scale",
        "--levels",
    ]
    assert all(f.kind == "flag" and f.source == "cli" and f.path == "pkg/arguments.py" for f in result.facts)


def test_typed_flag_with_choices_and_concatenated_help():
    facts = by_token(extract(SOURCE, "pkg/arguments.py", CLI).facts)

    (node_count,) = facts["--node-count"]
    assert node_count.key == "node_count"
    assert node_count.line == line_of(CLI, '"--node-count"')
    assert node_count.attrs == (("default", "1"), ("help", "Nodes for the trainer"), ("type", "int"))

    (engine,) = facts["--engine"]
    assert engine.key == "engine"
    assert engine.line == line_of(CLI, '"--engine"')  # the option string, not the call's first line
    assert dict(engine.attrs) == {
        "choices": "alpha,beta",
        "default": "alpha",
        "help": "Which engine runs the job. Alpha is the usual one.",
        "type": "str",
    }


def test_store_true_and_store_false_imply_their_defaults():
    facts = by_token(extract(SOURCE, "pkg/arguments.py", CLI).facts)

    (pin,) = facts["--pin-memory"]
    assert pin.line == line_of(CLI, '"--pin-memory"')
    assert pin.attrs == (
        ("action", "store_true"),
        ("default", "False"),
        ("help", "Pin host memory."),
        ("sets", "true"),
    )

    (no_cache,) = facts["--no-cache"]
    assert no_cache.key == "use_cache"  # explicit dest wins over the option string
    assert no_cache.attrs == (("action", "store_false"), ("default", "True"), ("sets", "false"))

    # An explicit default is kept even when it contradicts the switch.
    (shared,) = facts["--shared-flag"]
    assert shared.key == "shared_flag"
    assert shared.attr("default") == "True"
    assert shared.attr("sets") == "true"


def test_boolean_optional_action_adds_the_negated_twin():
    facts = by_token(extract(SOURCE, "pkg/arguments.py", CLI).facts)
    offload_line = line_of(CLI, '"--offload"')

    (offload,) = facts["--offload"]
    (no_offload,) = facts["--no-offload"]
    assert offload.key == no_offload.key == "offload"
    assert offload.line == no_offload.line == offload_line
    assert offload.attrs == (
        ("action", "argparse.BooleanOptionalAction"),
        ("default", "True"),
        ("sets", "true"),
    )
    assert no_offload.attrs == (
        ("action", "argparse.BooleanOptionalAction"),
        ("default", "True"),
        ("sets", "false"),
    )

    # The bare imported name counts too; without a default none is reported.
    (overlap,) = facts["--overlap"]
    (no_overlap,) = facts["--no-overlap"]
    assert overlap.attrs == (("action", "BooleanOptionalAction"), ("sets", "true"))
    assert no_overlap.attrs == (("action", "BooleanOptionalAction"), ("sets", "false"))


def test_short_and_long_options_share_the_dest_of_the_long_one():
    facts = by_token(extract(SOURCE, "pkg/arguments.py", CLI).facts)

    (short,) = facts["-v"]
    (long,) = facts["--verbose-level"]
    assert short.key == long.key == "verbose_level"
    assert short.attrs == long.attrs == (("default", "0"), ("type", "int"))

    (quiet,) = facts["-q"]
    assert quiet.key == "q"
    assert quiet.attrs == (("action", "count"),)


def test_groups_variables_and_conditional_definitions():
    facts = by_token(extract(SOURCE, "pkg/arguments.py", CLI).facts)

    # A module-level list assigned once is read through its name.
    (mode,) = facts["--mode"]
    assert mode.attrs == (("choices", "fast,slow"), ("default", "None"))

    (ratio,) = facts["--ratio"]
    assert ratio.attrs == (("choices", "0.5,0.8"), ("default", "0.8"), ("type", "float"))

    # The option string itself held in a module constant.
    assert facts["--shared-flag"][0].line == line_of(CLI, "group.add_argument(SHARED_FLAG")

    # Defined in both branches of an `if`: both are kept, in line order.
    extra = facts["--extra-steps"]
    assert [f.attr("default") for f in extra] == ["2", "3"]
    assert [f.line for f in extra] == [line_of(CLI, "default=2)"), line_of(CLI, "default=3)")]


def test_help_is_quoted_as_written_and_unknown_choices_are_left_out():
    facts = by_token(extract(SOURCE, "pkg/arguments.py", CLI).facts)

    (scale,) = facts["--scale"]
    assert scale.attrs == (("default", "-1.5"), ("help", "f'Scale, at most {LIMIT}'"), ("type", "float"))

    # LEVELS is not defined in the file: its choices are unknown, not the text "LEVELS.keys()".
    (levels,) = facts["--levels"]
    assert levels.attrs == (("default", "['low', 'high']"), ("nargs", "+"), ("unknown", "choices"))


def test_unresolvable_option_strings_and_positionals_are_skipped():
    tokens = {f.token for f in extract(SOURCE, "pkg/arguments.py", CLI).facts}

    # `input_file` is positional; `compute_name()` cannot be read; reset_arg's `name` is a
    # parameter, never resolved to an outer value.
    assert all(t.startswith("-") for t in tokens)
    assert len(tokens) == 17


def test_module_constant_assigned_twice_is_not_resolved():
    text = textwrap.dedent(
        """\
        FLAG = "--first"
        FLAG = "--second"
        parser.add_argument(FLAG)
        parser.add_argument("--plain", dest=DEST_NAME)
        """
    )
    facts = extract(SOURCE, "a.py", text).facts

    assert [(f.token, f.key) for f in facts] == [("--plain", "plain")]


def test_syntax_error_is_reported_not_raised():
    text = 'parser.add_argument("--ok")\nparser.add_argument("--broken",\n'

    result = extract(SOURCE, "pkg/arguments.py", text)

    assert result.facts == ()
    assert len(result.errors) == 1
    error = result.errors[0]
    assert isinstance(error, ParseError)
    assert error.path == "pkg/arguments.py"
    assert error.line == 2
    assert "never closed" in error.message


def test_paths_sources_read_nothing():
    result = extract(Source(id="p", kind="paths", paths=("docs/x.md",)), "docs/x.md", "not python {")

    assert result.facts == () and result.errors == ()


def test_real_miles_arguments_module():
    text = miles_file("miles/utils/arguments.py")

    result = extract(SOURCE, "miles/utils/arguments.py", text)

    assert result.errors == ()
    facts = by_token(result.facts)
    assert len(result.facts) > 300
    (backend,) = facts["--train-backend"]
    assert backend.key == "train_backend"
    assert backend.attr("choices") == "megatron,fsdp"
    assert backend.attr("default") == "megatron"
    assert text.splitlines()[backend.line - 1].strip() == '"--train-backend",'
    assert {f.attr("sets") for f in facts["--offload-train"] + facts["--no-offload-train"]} == {
        "true",
        "false",
    }


def test_rule_can_name_wrappers_that_declare_flags():
    code = (
        "def add(parser):\n"
        "    parser.add_argument('--lr', type=float, default=0.1)\n"
        "    reset_arg(parser, '--load', type=str, default=None)\n"
    )
    plain = extract(Source(id="a", kind="argparse", paths=("m.py",)), "m.py", code)
    assert [f.token for f in plain.facts] == ["--lr"]
    wrapped = extract(
        Source(id="a", kind="argparse", paths=("m.py",), calls=("add_argument", "reset_arg")), "m.py", code
    )
    assert [(f.token, f.line, f.attr("default")) for f in wrapped.facts] == [
        ("--lr", 2, "0.1"),
        ("--load", 3, "None"),
    ]


def test_a_loop_over_a_dicts_keys_declares_a_flag_a_key():
    # sphinx-quickstart: its extensions' help texts are translated (`__(...)`), unknown here.
    text = textwrap.dedent(
        """\
        import argparse
        EXTENSIONS = {"autodoc": __("insert docstrings"), "doctest": __("test snippets")}
        def get_parser():
            parser = argparse.ArgumentParser()
            group = parser.add_argument_group("Extension options")
            for ext in EXTENSIONS:
                group.add_argument("--ext-%s" % ext, action="append_const", dest="extensions")
            return parser
        """
    )
    facts = extract(Source(id="cli", kind="argparse", paths=("q.py",)), "q.py", text).facts
    assert sorted(f.token for f in facts if f.kind == "flag") == ["--ext-autodoc", "--ext-doctest"]


def test_an_option_the_program_reads_from_its_words_by_hand_is_a_hidden_flag():
    text = textwrap.dedent(
        """\
        import argparse
        import sys
        def get_parser():
            parser = argparse.ArgumentParser()
            parser.add_argument("--builder")
            return parser
        def main(argv):
            if argv[:1] == ["--bug-report"]:
                return report()
            if "--version" in sys.argv or sys.argv[1] == "--builder":
                return 0
            if name == "--not-the-words":
                return 1
            return get_parser().parse_args(argv)
        """
    )
    facts = extract(Source(id="cli", kind="argparse", paths=("build.py",)), "build.py", text).facts
    flags = {f.token: f for f in facts if f.kind == "flag"}
    assert sorted(flags) == ["--bug-report", "--builder", "--version"]
    assert flags["--bug-report"].attr("hidden") == "true" and flags["--bug-report"].key == "bug_report"
    assert flags["--builder"].attr("hidden") is None  # the parser's own, as it declares it


def test_a_word_looked_up_among_option_strings_is_read_by_hand_in_a_module_with_no_add_argument():
    text = textwrap.dedent(
        """\
        import argparse
        import sys
        def main(argv=None):
            argv = sys.argv[1:] if argv is None else argv
            if argv and argv[0] in ["--version", "-V", "--version-verbose"]:
                return print_version()
            if argv[0] in ["-q"]:
                return 0
            parser = argparse.ArgumentParser()
            parser.add_subparsers(dest="command").add_parser("launch")
            return parser.parse_known_args(argv)
        """
    )
    facts = extract(Source(id="cli", kind="argparse", paths=("cli.py",)), "cli.py", text).facts
    flags = {f.token: f for f in facts if f.kind == "flag"}
    # A short option counts beside long ones; `-q` alone might be any word.
    assert sorted(flags) == ["--version", "--version-verbose", "-V"]
    assert all(f.attr("hidden") == "true" for f in flags.values())


def test_configargparse_s_env_var_is_the_variable_the_flag_reads():
    text = (
        "import configargparse\n\nENV = 'TOOL_HOST'\np = configargparse.ArgumentParser()\n"
        "p.add_argument('-H', '--host', env_var=ENV)\np.add_argument('--users', type=int)\n"
    )
    facts = extract(SOURCE, "pkg/arguments.py", text).facts
    read = {f.token: f.attr("envvar") for f in facts}
    assert read == {"-H": "TOOL_HOST", "--host": "TOOL_HOST", "--users": None}


def test_configargparse_s_auto_env_var_prefix_names_each_option_s_variable():
    text = (
        "import configargparse\n\np = configargparse.ArgParser(auto_env_var_prefix='APP_')\n"
        "p.add_argument('-w', '--expect-workers', type=int)\np.add_argument('--host', env_var='HOST_X')\n"
        "p.add_argument('--version', action='version', version='1')\n"
    )
    read = {f.token: f.attr("envvar") for f in extract(SOURCE, "pkg/arguments.py", text).facts}
    assert read == {
        "-w": "APP_EXPECT_WORKERS",
        "--expect-workers": "APP_EXPECT_WORKERS",
        "--host": "HOST_X",
        "--version": None,
    }
    # argparse's own parser reads no variable
    plain = (
        text.replace("configargparse", "argparse")
        .replace("auto_env_var_prefix", "prog")
        .replace(", env_var='HOST_X'", "")
    )
    assert {f.attr("envvar") for f in extract(SOURCE, "pkg/arguments.py", plain).facts} == {None}
