"""argparse as argparse means it: optional values, SUPPRESS, type= validators, defaults and choices
that are not literals, subcommands."""

import textwrap

from bot.core.extract import extract
from bot.core.rules import Source

SOURCE = Source(id="cli", kind="argparse", paths=("tool/cli.py",))


def flags(code: str) -> dict[str, dict[str, str]]:
    result = extract(SOURCE, "tool/cli.py", textwrap.dedent(code))
    assert result.errors == ()
    out: dict[str, dict[str, str]] = {}
    for fact in result.facts:
        assert fact.token not in out, fact.token
        out[fact.token] = dict(fact.attrs)
    return out


# --- nargs and const -----------------------------------------------------------------------------


def test_an_optional_value_with_a_true_const_is_a_switch_that_is_off_by_default():
    found = flags(
        """
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--use-server", nargs="?", const=True, type=str)
        p.add_argument("--chat-template", nargs="?", const=True, default=None)
        p.add_argument("--no-check", nargs="?", const=False)
        p.add_argument("--session", nargs="?", const=True, default="v1")
        p.add_argument("--level", nargs="?", const="high", default="low")
        p.add_argument("--files", nargs="+", default=[])
        """
    )

    # Given alone it sets True; absent it is None, which the program reads as off: not a claim
    # that the flag "defaults to None".
    assert found["--use-server"] == {
        "const": "True",
        "default": "False",
        "nargs": "?",
        "sets": "true",
        "type": "str",
    }
    assert found["--chat-template"] == {"const": "True", "default": "False", "nargs": "?", "sets": "true"}
    assert found["--no-check"] == {"const": "False", "default": "True", "nargs": "?", "sets": "false"}
    # An explicit default other than None is kept; a const that is no bool makes no switch.
    assert found["--session"] == {"const": "True", "default": "v1", "nargs": "?", "sets": "true"}
    assert found["--level"] == {"const": "high", "default": "low", "nargs": "?"}
    assert found["--files"] == {"default": "[]", "nargs": "+"}


def test_a_refactor_from_store_true_to_an_optional_value_keeps_default_and_polarity():
    before = flags('p.add_argument("--apply-template", action="store_true")\n')["--apply-template"]
    after = flags('p.add_argument("--apply-template", nargs="?", const=True, type=str)\n')["--apply-template"]

    for attr in ("default", "sets"):
        assert before[attr] == after[attr], attr


# --- SUPPRESS ------------------------------------------------------------------------------------


def test_suppress_leaves_the_default_unknown():
    found = flags(
        """
        import argparse
        from argparse import SUPPRESS
        p.add_argument("--apply_chat_template", nargs="?", const=True, default=argparse.SUPPRESS)
        p.add_argument("--seed", type=int, default=SUPPRESS)
        p.add_argument("--log_samples", action="store_true", default=argparse.SUPPRESS)
        """
    )

    # A switch whose default is suppressed: what it sets is known, its default is not.
    assert found["--log_samples"] == {"action": "store_true", "sets": "true", "unknown": "default"}

    assert found["--apply_chat_template"] == {
        "const": "True",
        "nargs": "?",
        "sets": "true",
        "unknown": "default",
    }
    assert found["--seed"] == {"type": "int", "unknown": "default"}


# --- type= validators ----------------------------------------------------------------------------


def test_choices_checked_by_a_type_function_of_the_module_are_read_from_it():
    found = flags(
        """
        from tool.validators import imported_check

        MODES = ("fast", "slow")


        def mode(value):
            if value not in MODES:
                raise argparse.ArgumentTypeError(f"{value} is not a mode")
            return value


        def backend(value):
            return value.lower()


        p.add_argument("--mode", type=mode, default="fast")
        p.add_argument("--backend", type=backend)
        p.add_argument("--check", type=imported_check)
        p.add_argument("--steps", type=int)
        p.add_argument("--dtype", type=str, choices=["fp16", "bf16"])
        """
    )

    assert found["--mode"] == {"choices": "fast,slow", "default": "fast", "type": "mode"}
    # A callable that tests no membership, or one from another file: its choices are unknown,
    # so a doc's value is neither confirmed nor reported as dropped.
    assert found["--backend"] == {"type": "backend", "unknown": "choices"}
    assert found["--check"] == {"type": "imported_check", "unknown": "choices"}
    # Plain conversions check nothing; explicit choices stay what they are.
    assert found["--steps"] == {"type": "int"}
    assert found["--dtype"] == {"choices": "fp16,bf16", "type": "str"}


# --- choices that are not literals ---------------------------------------------------------------


def test_choices_from_module_constants_and_enums_of_the_same_file():
    found = flags(
        """
        import enum
        from tool.registry import BACKENDS, Imported

        QUANT_RECIPES = {"mixed_2_6": 2, "mixed_3_4": 3}
        DTYPES = ["float16", "bfloat16"]
        EXTRA = DTYPES + ["float32"]
        ORDER = {"b", "a"}


        class Mode(str, enum.Enum):
            FAST = "fast"
            SLOW = "slow"


        class Auto(enum.Enum):
            ONE = enum.auto()


        p.add_argument("--recipe", choices=QUANT_RECIPES)
        p.add_argument("--recipe-keys", choices=QUANT_RECIPES.keys())
        p.add_argument("--dtype", choices=sorted(EXTRA))
        p.add_argument("--order", choices=ORDER)
        p.add_argument("--mode", choices=[m.value for m in Mode])
        p.add_argument("--mode-names", choices=tuple(m.name for m in Mode))
        p.add_argument("--mode-list", choices=list(Mode))
        p.add_argument("--auto", choices=[a.value for a in Auto])
        p.add_argument("--backend", choices=BACKENDS)
        p.add_argument("--imported", choices=[m.value for m in Imported])
        p.add_argument("--computed", choices=registry.names())
        """
    )

    assert found["--recipe"]["choices"] == "mixed_2_6,mixed_3_4"
    assert found["--recipe-keys"]["choices"] == "mixed_2_6,mixed_3_4"
    assert found["--dtype"]["choices"] == "bfloat16,float16,float32"
    assert found["--order"]["choices"] == "b,a"  # a set literal, in the order written
    assert found["--mode"]["choices"] == "fast,slow"
    assert found["--mode-names"]["choices"] == "FAST,SLOW"
    assert found["--mode-list"]["choices"] == "fast,slow"
    # What the file does not spell out is unknown, never the expression's text.
    for token in ("--auto", "--backend", "--imported", "--computed"):
        assert "choices" not in found[token], token
        assert found[token]["unknown"] == "choices", token


def test_an_enum_type_takes_its_members_values_unless_an_action_converts_otherwise():
    found = flags(
        """
        import argparse
        import enum
        from tool.actions import ImportedAction


        class Method(enum.Enum):
            NONE = "none"
            AUTO = "auto"


        class Level(enum.Enum):
            LOW = 1


        class Loose(enum.Enum):
            A = "a"

            @classmethod
            def _missing_(cls, value):
                return cls.A


        class EnumAction(argparse.Action):
            def __init__(self, **kwargs):
                enum_type = kwargs.pop("type", None)
                choices = tuple(e.value for e in enum_type)
                kwargs.setdefault("choices", choices)
                super().__init__(**kwargs)


        class NameAction(argparse.Action):
            def __init__(self, **kwargs):
                enum_type = kwargs.pop("type")
                kwargs["choices"] = [e.name for e in enum_type]
                super().__init__(**kwargs)


        p = argparse.ArgumentParser()
        p.add_argument("--plain", type=Method)
        p.add_argument("--many", type=Method, action="append")
        p.add_argument("--recipe", type=Method, action=EnumAction)
        p.add_argument("--by-name", type=Method, action=NameAction)
        p.add_argument("--imported", type=Method, action=ImportedAction)
        p.add_argument("--level", type=Level)
        p.add_argument("--loose", type=Loose)
        p.add_argument("--member", type=Method.__getitem__)
        """
    )

    # argparse converts the text with `Method(text)`, which looks a member up by its value.
    for token in ("--plain", "--many", "--recipe"):
        assert found[token]["choices"] == "none,auto", token
    assert found["--by-name"]["choices"] == "NONE,AUTO"
    assert found["--member"]["choices"] == "NONE,AUTO"  # `Method[text]`
    # An action of elsewhere, an int value no text equals, a `_missing_`: not spelt out here.
    for token in ("--imported", "--level", "--loose"):
        assert "choices" not in found[token], token
        assert found[token]["unknown"] == "choices", token


# --- defaults that are not literals --------------------------------------------------------------


def test_defaults_from_module_constants_and_arithmetic_are_their_values():
    found = flags(
        """
        import os
        from tool.defaults import DEFAULT_MODEL

        DEFAULT_TEMP = 0.0
        DEFAULT_MAX_TOKENS = 256
        BUFFER = 512 * 1024**2
        NAME = "model"
        PATH = f"/tmp/{NAME}.bin"


        def add(parser):
            local = DEFAULT_MAX_TOKENS * 2
            parser.add_argument("--temp", type=float, default=DEFAULT_TEMP)
            parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS)
            parser.add_argument("--double", type=int, default=local)
            parser.add_argument("--buffer", type=int, default=BUFFER)
            parser.add_argument("--rollout-batch", type=int, default=int(1e8))
            parser.add_argument("--clip", type=float, default=float("inf"))
            parser.add_argument("--path", default=PATH)
            parser.add_argument("--model", default=DEFAULT_MODEL)
            parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "9090")))
            parser.add_argument("--home", default=os.path.expanduser("~"))
            parser.add_argument("--fn", default="a.b" if use_new() else "c.d")
        """
    )

    assert found["--temp"]["default"] == "0.0"
    assert found["--max-tokens"]["default"] == "256"
    assert found["--double"]["default"] == "512"
    assert found["--buffer"]["default"] == "536870912"
    assert found["--rollout-batch"]["default"] == "100000000"
    assert found["--clip"]["default"] == "inf"
    assert found["--path"]["default"] == "/tmp/model.bin"
    for token in ("--model", "--port", "--home", "--fn"):
        assert "default" not in found[token], token
        assert found[token]["unknown"] == "default", token


def test_a_constant_assigned_twice_or_shadowed_is_unknown():
    found = flags(
        """
        LIMIT = 1
        LIMIT = 2
        SIZE = 8


        def add(parser, SIZE=None):
            parser.add_argument("--limit", default=LIMIT)
            parser.add_argument("--size", default=SIZE)


        parser.add_argument("--size-top", default=SIZE)
        """
    )

    assert found["--limit"] == {"unknown": "default"}
    assert found["--size"] == {"unknown": "default"}  # the parameter, not the module constant
    assert found["--size-top"] == {"default": "8"}


# --- subcommands ---------------------------------------------------------------------------------


def test_flags_of_subparsers_belong_to_their_subcommand():
    found = flags(
        """
        import argparse


        def shared(parser):
            parser.add_argument("--config")


        def main():
            parser = argparse.ArgumentParser(prog="tool")
            parser.add_argument("--verbose", action="store_true")
            sub = parser.add_subparsers(dest="command")
            run = sub.add_parser("run", help="Run it")
            group = run.add_argument_group("model")
            group.add_argument("--model")
            ls = sub.add_parser("ls")
            ls.add_argument("what", choices=["tasks", "groups"])
            ls.add_argument("--include-path")
            shared(run)
            shared(ls)
            remote = sub.add_parser("remote").add_subparsers()
            add = remote.add_parser("add")
            add.add_argument("--url")
            sub.add_parser("validate").add_argument("--tasks")
        """
    )

    assert "subcommand" not in found["--verbose"]
    assert found["--model"]["subcommand"] == "run"
    assert found["--include-path"]["subcommand"] == "ls"
    assert found["--config"]["subcommand"] == "ls,run"  # added to both
    assert found["--url"]["subcommand"] == "remote add"
    assert found["--tasks"]["subcommand"] == "validate"


def test_a_parser_name_rebound_to_its_subparser_is_that_subcommand_once():
    # `parser = parser.add_parser("default")`: the name held the subparsers action before.
    found = flags(
        """
        def default_parser(parser, parents):
            parser = parser.add_parser("default", parents=parents)
            parser.add_argument("--precision")
            return parser
        """
    )

    assert found["--precision"]["subcommand"] == "default"  # not "default default ..."


def test_a_subcommand_class_keeps_its_parser_on_self():
    # lm-eval's layout: each subcommand is a class handed the subparsers action.
    found = flags(
        """
        import argparse


        class Run(SubCommand):
            def __init__(self, subparsers: argparse._SubParsersAction, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self._parser = subparsers.add_parser("run", help="Run the harness")
                self._add_args()

            def _add_args(self) -> None:
                self._parser = self._parser
                config_group = self._parser.add_argument_group("configuration")
                config_group.add_argument("--config", "-C", default=None)
                self._parser.add_argument("--limit", type=float)


        class Other:
            def build(self):
                self._parser = argparse.ArgumentParser()
                self._parser.add_argument("--top-level")
        """
    )

    assert found["--config"]["subcommand"] == "run"
    assert found["-C"]["subcommand"] == "run"
    assert found["--limit"]["subcommand"] == "run"
    assert "subcommand" not in found["--top-level"]


def test_a_class_keeps_its_subcommand_parser_in_a_class_attribute():
    # Parsers made in class bodies and named through the class in its static methods: the
    # command `tool serve api`, not `tool api`.
    found = flags(
        """
        import argparse

        from .base import Base


        class CLI:
            parser = argparse.ArgumentParser(prog="tool")
            subparsers = parser.add_subparsers(dest="command")

            @staticmethod
            def add_parser_chat():
                parser = CLI.subparsers.add_parser("chat")
                parser.add_argument("--temperature")


        class Serve:
            parser = CLI.subparsers.add_parser("serve")
            subparsers = parser.add_subparsers()

            @staticmethod
            def add_parser_api():
                parser = Serve.subparsers.add_parser("api")
                parser.add_argument("--port")

            @classmethod
            def add_parser_proxy(cls):
                cls.subparsers.add_parser("proxy").add_argument("--strategy")


        class Remote:
            parser = Base.subparsers.add_parser("remote")  # another module's class: its top parser
            parser.add_argument("--url")
        """
    )

    assert found["--temperature"]["subcommand"] == "chat"
    assert found["--port"]["subcommand"] == "serve api"
    assert found["--strategy"]["subcommand"] == "serve proxy"
    assert found["--url"]["subcommand"] == "remote"


def test_expressions_too_large_to_compute_are_unknown():
    found = flags(
        """
        p.add_argument("--a", default="x" * 10**9)
        p.add_argument("--b", default=2 ** 10**6)
        p.add_argument("--c", default=1 << 4096)
        p.add_argument("--d", default=1 / 0)
        p.add_argument("--e", default=2**10)
        A = 2**64
        B = A * A
        C = B * B
        D = C * C
        E = D * D
        F = E * E
        G = F * F
        S = "ab" * 64
        T = S + S
        U = T + T
        V = U + U
        W = V + V
        X = W + W
        Y = X + X
        p.add_argument("--g", default=G)
        Z = Y + Y
        p.add_argument("--y", default=Z)
        """
    )

    assert [found[t].get("unknown") for t in ("--a", "--b", "--c", "--d", "--g", "--y")] == ["default"] * 6
    assert found["--e"]["default"] == "1024"


# --- loops over values the file spells out -------------------------------------------------------


def test_flags_made_in_a_loop_over_literal_values_are_each_read():
    found = flags(
        """
        ROLES = ("actor", "critic")


        def add(parser):
            for prefix in ROLES:
                parser.add_argument(f"--{prefix}.optim", type=str, default="adam", choices=["adam", "muon"])
                lr = 1e-6 if prefix == "actor" else 9e-6
                parser.add_argument(f"--{prefix}.adam.lr", type=float, default=lr)
                parser.add_argument(f"--{prefix}.no_x", dest=f"{prefix}.x", action="store_false")
            for name, size in [("small", 1), ("large", 8)]:
                parser.add_argument("--" + name + "-size", type=int, default=size)
            for f in fields(Config):
                parser.add_argument(f"--{f.name}")
        """
    )

    assert (
        found["--actor.optim"]
        == found["--critic.optim"]
        == {"choices": "adam,muon", "default": "adam", "type": "str"}
    )
    assert found["--actor.adam.lr"]["default"] == "1e-06"
    assert found["--critic.adam.lr"]["default"] == "9e-06"
    assert found["--small-size"]["default"] == "1"
    assert found["--large-size"]["default"] == "8"
    # A loop over values the file does not spell out yields nothing it cannot name.
    assert not [t for t in found if "f.name" in t or t == "--"]


def test_flags_made_in_a_loop_over_a_list_of_option_specs_are_each_read():
    found = flags(
        """
        import argparse


        def start(app):
            arguments = [
                {"name": "model", "nickname": "m", "help_text": "model to use", "type": str},
                {"name": "auto_run", "nickname": "y", "help_text": "run code", "type": bool,
                 "attribute": {"object": app, "attr_name": "auto_run"}},
                {"name": "safe_mode", "help_text": "safety", "type": str, "default": "off",
                 "choices": ["off", "ask", "auto"]},
                {"name": "reset", "help_text": "reset", "type": str, "nargs": "?", "default": "NONE"},
            ]
            parser = argparse.ArgumentParser()
            for arg in arguments:
                default = arg.get("default")
                action = arg.get("action", "store_true")
                nickname = arg.get("nickname")
                flags = [f"-{nickname}", f'--{arg["name"]}'] if nickname else [f'--{arg["name"]}']
                if arg["type"] == bool:
                    parser.add_argument(*flags, dest=arg["name"], help=arg["help_text"], action=action,
                                        default=default)
                else:
                    parser.add_argument(*flags, dest=arg["name"], help=arg["help_text"], type=arg["type"],
                                        choices=arg.get("choices"), default=default, nargs=arg.get("nargs"))
        """
    )
    # Each spec's entries, whatever its others hold (`"attribute": {"object": app, ...}`); its
    # `type` decides the branch; a `.get` of a key the spec lacks is its default.
    assert found["--model"] == found["-m"] == {"default": "None", "help": "model to use", "type": "str"}
    assert found["--auto_run"] == found["-y"]
    assert found["--auto_run"]["action"] == "store_true" and found["--auto_run"]["sets"] == "true"
    assert found["--safe_mode"]["choices"] == "off,ask,auto" and found["--safe_mode"]["default"] == "off"
    assert found["--reset"]["nargs"] == "?" and "choices" not in found["--reset"]
    assert "-None" not in found and len(found) == 6


def test_option_specs_of_a_list_built_up_in_steps_are_each_read():
    found = flags(
        """
        from pkg.utils import common_args, schema_args


        def register(parser):
            arg_list = [
                {"arg": "--text_column", "type": str, "default": "text", "alias": ["--text-column"]},
                {"arg": "--lora_r", "type": int, "default": 16},
            ]
            arg_list = common_args() + arg_list
            arg_list += [{"arg": "--seed", "type": int, "default": 42}]
            arg_list.append({"arg": "--train", "action": "store_true"})
            for arg in arg_list:
                names = [arg["arg"]] + arg.get("alias", [])
                if "action" in arg:
                    parser.add_argument(*names, action=arg["action"])
                else:
                    parser.add_argument(*names, type=arg["type"], default=arg.get("default"))


        def generated(parser):
            arg_list = schema_args(Params)
            arg_list = [{"arg": "--deploy", "action": "store_true"}] + arg_list
            for arg in arg_list:
                parser.add_argument(arg["arg"], action=arg.get("action"))


        def branched(parser, wide):
            arg_list = [{"arg": "--narrow", "action": "store_true"}]
            if wide:
                arg_list = [{"arg": "--wide", "action": "store_true"}]
            for arg in arg_list:
                parser.add_argument(arg["arg"], action=arg.get("action"))
        """
    )
    # Each step is read in order; the part another module makes (`common_args()`) declares
    # nothing here, as a loop over it alone would not.
    assert found["--text_column"] == found["--text-column"] == {"default": "text", "type": "str"}
    assert found["--lora_r"]["default"] == "16" and found["--seed"]["default"] == "42"
    assert found["--train"]["action"] == "store_true"
    assert found["--deploy"]["action"] == "store_true"
    # ...but a part made of what a call is handed (`schema_args(Params)`, one spec per field of a
    # model) leaves the parser open: it takes flags no file lists. A call with nothing handed is
    # another module's list, read where it is defined (test_extract_imported_rounds.py).
    assert found["--deploy"]["open"] == "true"
    assert "open" not in found["--lora_r"] and "open" not in found["--train"]
    # Rebound in a branch: which list reaches the loop is not known, so neither is read.
    assert "--narrow" not in found and "--wide" not in found


def test_a_rounds_own_test_decides_which_of_its_calls_declare():
    found = flags(
        """
        NAMES = ["html", "memory_xml", "txt"]


        def add(parser):
            for name in NAMES:
                if name not in {"memory_xml"}:
                    parser.add_argument(f"--{name.replace('_', '-')}-report", metavar="DIR")
                elif UNKNOWN_SETTING:
                    parser.add_argument("--memory-dump")
                else:
                    parser.add_argument(f"--{name}-never")
        """
    )
    # The round of `memory_xml` declares no report; a test the round cannot decide keeps both
    # branches, as outside a loop.
    assert sorted(found) == ["--html-report", "--memory-dump", "--memory_xml-never", "--txt-report"]


def test_keys_of_loop_made_flags_are_their_dests():
    result = extract(
        SOURCE,
        "tool/cli.py",
        'for p in ("a", "b"):\n    parser.add_argument(f"--{p}.no_x", dest=f"{p}.x", action="store_false")\n',
    )

    assert [(f.token, f.key, f.line) for f in result.facts] == [
        ("--a.no_x", "a.x", 2),
        ("--b.no_x", "b.x", 2),
    ]
