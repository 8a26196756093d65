import ast
import textwrap

import pytest

from bot.core.extract import extract
from bot.core.extract.dataclass_flags import dataclass_fields
from bot.core.rules import Convention, Source
from tests.miles import miles_file

SOURCE = Source(
    id="trainer-args", kind="dataclass-flags", dataclass="TrainerArgs", builder="build_trainer_parser"
)

FIELDS = textwrap.dedent(
    """\
    import argparse
    import dataclasses
    from dataclasses import dataclass
    from typing import Optional


    @dataclass
    class TrainerArgs:
        # Optimizer
        optimizer: str = "sgd"  # which optimizer
        learning_rate: float = 1e-4
        warmup_steps: int | None = None
        resume_scheduler: bool = True
        mixed_precision: bool = False
        keep_master_copy: bool = True
        offload_states: bool = (
            False  # offload parameters and optimizer states to host memory
        )
        comm_backend: Optional[str] = (
            "gloo"  # host-side collectives; None disables them
        )
        settings_file: str | None = None
    """
)

# The loop as it was before the switch to BooleanOptionalAction: a special case, store_true for
# the other bools (which silently turns every `= True` default into False), typed for the rest.
STORE_TRUE_BUILDER = textwrap.dedent(
    """\


    def parse_trainer_cli(extra=None):
        parser = argparse.ArgumentParser("trainer")
        parser.add_argument("--settings-file", type=str, default=None, help="YAML settings")
        for f in dataclasses.fields(TrainerArgs):
            if f.name == "settings_file":
                continue

            if hasattr(f.type, "__args__"):
                candidates = [t for t in f.type.__args__ if t is not type(None)]
                arg_type = candidates[0] if candidates else str
            else:
                arg_type = f.type

            if f.name == "keep_master_copy":
                parser.add_argument(
                    "--drop-master-copy",
                    dest=f.name,
                    action="store_false",
                    default=f.default,
                    help="Drop the master copy to save memory.",
                )
            elif arg_type is bool:
                parser.add_argument(f"--{f.name.replace('_', '-')}", action="store_true")
            else:
                parser.add_argument(f"--{f.name.replace('_', '-')}", type=arg_type, default=f.default)
        return parser.parse_args()
    """
)

# The loop after it: every bool gets --x / --no-x and keeps its dataclass default.
BOOLEAN_OPTIONAL_BUILDER = textwrap.dedent(
    """\


    def build_trainer_parser(extra=None) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser("trainer")
        parser.add_argument("--settings-file", type=str, default=None, help="YAML settings")
        for f in dataclasses.fields(TrainerArgs):
            if f.name == "settings_file":
                continue

            if hasattr(f.type, "__args__"):
                candidates = [t for t in f.type.__args__ if t is not type(None)]
                arg_type = candidates[0] if candidates else str
            else:
                arg_type = f.type

            if arg_type is bool:
                parser.add_argument(
                    f"--{f.name.replace('_', '-')}", action=argparse.BooleanOptionalAction, default=f.default
                )
            else:
                parser.add_argument(f"--{f.name.replace('_', '-')}", type=arg_type, default=f.default)
        return parser


    def parse_trainer_cli(extra=None):
        return build_trainer_parser(extra).parse_args()
    """
)

BEFORE = FIELDS + STORE_TRUE_BUILDER
AFTER = FIELDS + BOOLEAN_OPTIONAL_BUILDER


def line_of(text: str, needle: str) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def flags(text: str, source: Source = SOURCE) -> dict[str, tuple[str, int, dict[str, str]]]:
    result = extract(source, "pkg/trainer_args.py", text)
    assert result.errors == ()
    assert all(f.kind == "flag" and f.source == source.id for f in result.facts)
    tokens = [f.token for f in result.facts]
    assert len(tokens) == len(set(tokens))
    return {f.token: (f.key, f.line, dict(f.attrs)) for f in result.facts}


def test_field_list_reads_annotations_and_defaults():
    text = FIELDS + textwrap.dedent(
        """\

        @dataclass
        class Extra(TrainerArgs):
            names: list[str] = dataclasses.field(default_factory=list)
            seed: "int | None" = field(default=7)
            required: int
            optimizer: str = "adam"
            registry: ClassVar[dict] = {}
        """
    )
    fields = {f.name: f for f in dataclass_fields(ast.parse(text), "Extra")}

    # Base-class fields first; a redefinition keeps the base position with the new default.
    assert list(fields)[:2] == ["optimizer", "learning_rate"]
    assert list(fields)[-3:] == ["names", "seed", "required"]
    assert "registry" not in fields
    assert fields["optimizer"].default == "adam"
    assert fields["learning_rate"].default == "0.0001"
    assert (fields["warmup_steps"].annotation, fields["warmup_steps"].base) == ("int | None", "int")
    assert (fields["comm_backend"].base, fields["comm_backend"].default) == ("str", "gloo")
    assert fields["offload_states"].default == "False"
    assert fields["offload_states"].line == line_of(text, "offload_states: bool")
    assert fields["names"].default == "[]"  # what the factory makes, not its name
    assert (fields["seed"].base, fields["seed"].default) == ("int", "7")
    assert fields["required"].default is None


def test_store_true_builder_gives_switches_an_effective_default_of_false():
    found = flags(BEFORE)

    assert found["--resume-scheduler"] == (
        "resume_scheduler",
        line_of(BEFORE, "resume_scheduler: bool"),
        {"action": "store_true", "default": "False", "sets": "true", "type": "bool"},
    )
    assert found["--mixed-precision"][2]["default"] == "False"
    assert "--no-resume-scheduler" not in found


def test_special_case_gets_exactly_its_own_flag_at_its_own_line():
    found = flags(BEFORE)

    assert "--keep-master-copy" not in found
    assert found["--drop-master-copy"] == (
        "keep_master_copy",
        line_of(BEFORE, '"--drop-master-copy"'),
        {
            "action": "store_false",
            "default": "True",
            "help": "Drop the master copy to save memory.",
            "sets": "false",
            "type": "bool",
        },
    )


def test_typed_fields_skipped_field_and_plain_builder_flag():
    found = flags(BEFORE)

    assert found["--optimizer"] == (
        "optimizer",
        line_of(BEFORE, "optimizer: str"),
        {"default": "sgd", "type": "str"},
    )
    assert found["--learning-rate"][2] == {"default": "0.0001", "type": "float"}
    assert found["--warmup-steps"][2] == {"default": "None", "type": "int"}
    assert found["--comm-backend"][2] == {"default": "gloo", "type": "str"}
    # `settings_file` is skipped by the loop; the flag comes from the plain call before it.
    assert found["--settings-file"] == (
        "settings_file",
        line_of(BEFORE, 'parser.add_argument("--settings-file"'),
        {"default": "None", "help": "YAML settings", "type": "str"},
    )
    assert list(found) == [
        "--optimizer",
        "--learning-rate",
        "--warmup-steps",
        "--resume-scheduler",
        "--mixed-precision",
        "--offload-states",
        "--comm-backend",
        "--settings-file",
        "--drop-master-copy",
    ]


def test_boolean_optional_builder_gives_each_bool_a_pair_with_the_field_default():
    found = flags(AFTER)
    line = line_of(AFTER, "keep_master_copy: bool")
    action = "argparse.BooleanOptionalAction"

    assert found["--keep-master-copy"] == (
        "keep_master_copy",
        line,
        {"action": action, "default": "True", "sets": "true", "type": "bool"},
    )
    assert found["--no-keep-master-copy"] == (
        "keep_master_copy",
        line,
        {"action": action, "default": "True", "sets": "false", "type": "bool"},
    )
    assert found["--no-resume-scheduler"][2]["default"] == "True"
    assert found["--no-offload-states"][2]["default"] == "False"
    assert "--drop-master-copy" not in found
    assert found["--warmup-steps"][2] == {"default": "None", "type": "int"}


def test_the_loop_is_found_when_the_builder_was_renamed():
    # The rule names build_trainer_parser; the older file only has parse_trainer_cli.
    assert "--drop-master-copy" in flags(BEFORE)
    assert "--drop-master-copy" in flags(
        BEFORE, Source(id="s", kind="dataclass-flags", dataclass="TrainerArgs")
    )


@pytest.mark.parametrize(
    "condition",
    [
        "f.type is bool",
        "arg_type == bool",
        "issubclass(arg_type, bool)",
        "isinstance(f.default, bool)",
        "not (arg_type is not bool)",
        "arg_type in (bool,)",
    ],
)
def test_bool_branch_spellings(condition):
    builder = textwrap.dedent(
        f"""\


        def build_trainer_parser():
            parser = argparse.ArgumentParser()
            for field in dataclasses.fields(TrainerArgs):
                arg_type = field.type
                if {condition.replace("f.", "field.")}:
                    parser.add_argument("--" + field.name.replace("_", "-"), action="store_true")
                else:
                    parser.add_argument(
                        f"--{{field.name.replace('_', '-')}}", type=arg_type, default=field.default
                    )
        """
    )
    found = flags(FIELDS + builder)

    assert found["--mixed-precision"][2]["action"] == "store_true"
    assert found["--keep-master-copy"][2]["default"] == "False"
    assert found["--optimizer"][2] == {"default": "sgd", "type": "str"}


def test_name_sets_in_conditions_and_no_replace_keeps_underscores():
    builder = textwrap.dedent(
        """\


        def build_trainer_parser():
            parser = argparse.ArgumentParser()
            for f in fields(TrainerArgs):
                if f.name in ("settings_file", "comm_backend"):
                    continue
                name = f"--{f.name}"
                if f.name != "optimizer" and f.type is not bool:
                    parser.add_argument(name, default=f.default)
                elif f.name == "optimizer":
                    parser.add_argument("--opt", "-o", dest=f.name, choices=["sgd", "adam"])
        """
    )
    text = FIELDS + builder
    found = flags(text)

    assert "--settings_file" not in found and "--comm_backend" not in found
    assert found["--learning_rate"] == (
        "learning_rate",
        line_of(text, "learning_rate: float"),
        {"default": "0.0001", "type": "float"},
    )
    # Bools get no flag from this loop, so they fall back to the convention.
    assert found["--no-mixed-precision"][2]["sets"] == "false"
    # The special case of `optimizer`: both of its option strings, at the call's line.
    opt_line = line_of(text, '"--opt", "-o"')
    assert found["--opt"] == ("optimizer", opt_line, {"choices": "sgd,adam", "type": "str"})
    assert found["-o"] == ("optimizer", opt_line, {"choices": "sgd,adam", "type": "str"})


def test_fallback_convention_without_a_builder():
    found = flags(FIELDS)
    line = line_of(FIELDS, "resume_scheduler: bool")

    assert found["--resume-scheduler"] == (
        "resume_scheduler",
        line,
        {"action": "argparse.BooleanOptionalAction", "default": "True", "sets": "true", "type": "bool"},
    )
    assert found["--no-resume-scheduler"][2]["sets"] == "false"
    assert found["--settings-file"][2] == {"default": "None", "type": "str"}


def test_fallback_convention_from_the_rule():
    convention = Convention(prefix="--", separator="_", bool="store-true")
    source = Source(id="s", kind="dataclass-flags", dataclass="TrainerArgs", convention=convention)

    found = flags(FIELDS, source)

    assert found["--resume_scheduler"][2] == {
        "action": "store_true",
        "default": "False",
        "sets": "true",
        "type": "bool",
    }
    assert "--no-resume_scheduler" not in found
    assert found["--learning_rate"][2] == {"default": "0.0001", "type": "float"}


def test_unreadable_loop_falls_back_per_field():
    builder = textwrap.dedent(
        """\


        def build_trainer_parser():
            parser = argparse.ArgumentParser()
            for f in dataclasses.fields(TrainerArgs):
                if f.name == "settings_file":
                    continue
                parser.add_argument(flag_name_for(f), default=f.default)
        """
    )
    underscores = Convention(separator="_")
    source = Source(
        id="s", kind="dataclass-flags", dataclass="TrainerArgs", builder="x", convention=underscores
    )

    found = flags(FIELDS + builder, source)

    assert "--settings_file" not in found  # the skip is still read
    assert found["--warmup_steps"][2] == {"default": "None", "type": "int"}
    assert found["--no-keep_master_copy"][2]["sets"] == "false"


def test_field_without_default_reports_no_default():
    text = textwrap.dedent(
        """\
        @dataclass
        class TrainerArgs:
            model_path: str
            steps: int = 10


        def build_trainer_parser():
            for f in dataclasses.fields(TrainerArgs):
                parser.add_argument(f"--{f.name.replace('_', '-')}", type=f.type, default=f.default)
        """
    )
    found = flags(text)

    assert found["--model-path"] == ("model_path", 3, {"type": "str"})
    assert found["--steps"] == ("steps", 4, {"default": "10", "type": "int"})


def test_missing_dataclass_gives_no_facts_and_syntax_error_is_reported():
    assert extract(SOURCE, "a.py", "class Other:\n    x: int = 1\n").facts == ()

    result = extract(SOURCE, "pkg/trainer_args.py", FIELDS + "\ndef build(:\n")
    assert result.facts == ()
    assert [(e.path, e.line) for e in result.errors] == [("pkg/trainer_args.py", FIELDS.count("\n") + 2)]


FSDP = Source(id="fsdp-args", kind="dataclass-flags", dataclass="FSDPArgs", builder="build_fsdp_parser")


def test_real_miles_fsdp_args_both_shapes():
    head = flags(miles_file("miles/backends/fsdp_utils/arguments.py"), FSDP)
    assert head["--no-keep-fp32-master"][0] == "keep_fp32_master"
    assert head["--no-keep-fp32-master"][2]["default"] == "True"
    assert head["--no-keep-fp32-master"][2]["sets"] == "false"
    assert "--disable-fp32-master" not in head
    assert "--config" in head

    before = flags(miles_file("miles/backends/fsdp_utils/arguments.py", "0daa9ff92^"), FSDP)
    assert before["--disable-fp32-master"][0] == "keep_fp32_master"
    assert before["--disable-fp32-master"][2]["default"] == "True"
    assert "--no-keep-fp32-master" not in before
    assert before["--fsdp-state-dict-cpu-offload"][2]["default"] == "False"  # store_true shadowed True


def test_field_defaults_are_their_values_or_unknown_never_their_source_text():
    text = textwrap.dedent(
        """\
        import os
        from dataclasses import dataclass, field
        from pkg.defaults import IMPORTED

        DEFAULT_LR = 1e-4
        BUFFER = 512 * 1024**2


        @dataclass
        class Args:
            lr: float = DEFAULT_LR
            buffer: int = BUFFER
            tags: list[str] = field(default_factory=lambda: ["a", "b"])
            made: list[str] = field(default_factory=make_tags)
            home: str = os.environ.get("HOME", "/root")
            imported: int = IMPORTED
            plain: int = 3


        def build(parser):
            for f in fields(Args):
                parser.add_argument(f"--{f.name.replace('_', '-')}", type=f.type, default=f.default)
        """
    )
    by_name = {f.name: f for f in dataclass_fields(ast.parse(text), "Args")}

    assert by_name["lr"].default == "0.0001"
    assert by_name["buffer"].default == "536870912"
    assert by_name["tags"].default == "['a', 'b']"
    for name in ("made", "home", "imported"):
        assert by_name[name].default is None and by_name[name].default_unknown, name
    assert by_name["plain"].default == "3" and not by_name["plain"].default_unknown

    found = flags(text, source=Source(id="fsdp", kind="dataclass-flags", paths=("a.py",), dataclass="Args"))
    assert found["--lr"][2]["default"] == "0.0001"
    assert "default" not in found["--home"][2] and found["--home"][2]["unknown"] == "default"
    # The convention (no builder loop) says the same.
    conventional = flags(
        text.split("def build")[0],
        source=Source(id="fsdp", kind="dataclass-flags", paths=("a.py",), dataclass="Args"),
    )
    assert conventional["--imported"][2] == {"type": "int", "unknown": "default"}
