"""Flags of dataclasses parsed by transformers' HfArgumentParser, read statically."""

from __future__ import annotations

import textwrap

from bot.core.extract import extract
from bot.core.model import Fact
from bot.core.rules import Source

ARGS = """\
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal, Optional

LONGEST = 512


class Mode(str, Enum):
    FAST = "fast"
    SLOW = "slow"


@dataclass
class Base:
    seed: int = field(default=42, metadata={"help": "Random seed."})


@dataclass
class ModelArguments(Base):
    model_name_or_path: str = field(metadata={"help": "The model."})
    use_fast: bool = field(default=True, metadata={"help": "Use the fast tokenizer."})
    flash: bool = False
    lr: Optional[float] = None
    stage: Literal["pt", "sft"] = "sft"
    mode: Mode = Mode.SLOW
    targets: list[str] = field(default_factory=lambda: ["q", "v"])
    resume: Optional[bool] = None
    cutoff: int = field(default=LONGEST, metadata={"aliases": ["-c", "--cut"], "choices": [256, 512]})
    cache: dict = field(default_factory=dict, init=False)


class NotAField:
    x: int = 1
"""


def flags(text: str, names: tuple[str, ...] = ()) -> dict[str, Fact]:
    source = Source(id="hf", kind="hf-dataclass", paths=("pkg/args.py",), names=names)
    return {f.token: f for f in extract(source, "pkg/args.py", textwrap.dedent(text)).facts}


def attrs(fact: Fact) -> dict[str, str]:
    return dict(fact.attrs)


def test_every_field_is_an_underscored_flag_with_its_dash_twin_and_aliases():
    found = flags(ARGS)
    assert {"--model_name_or_path", "--model-name-or-path", "--seed", "--cutoff", "-c", "--cut"} <= set(found)
    assert "--x" not in found and "--cache" not in found  # no dataclass; init=False
    assert found["--model_name_or_path"].key == "model_name_or_path"
    assert attrs(found["--model_name_or_path"]) == {"help": "The model.", "required": "true", "type": "str"}
    assert found["--seed"].line == 15  # the base's own line
    assert attrs(found["--cut"])["default"] == "512" and attrs(found["--cut"])["choices"] == "256,512"


def test_bools_are_optional_value_switches_and_true_ones_get_no_twins():
    found = flags(ARGS)
    on = attrs(found["--use_fast"])
    assert on["sets"] == "true" and on["nargs"] == "?" and on["default"] == "True"
    off = attrs(found["--no_use_fast"])
    assert (
        off["sets"] == "false" and off["action"] == "store_false" and found["--no-use-fast"].key == "use_fast"
    )
    assert attrs(found["--flash"])["default"] == "False" and "--no_flash" not in found
    # Optional[bool] defaulting to None takes a value and has no switch
    assert "sets" not in attrs(found["--resume"]) and attrs(found["--resume"])["default"] == "None"


def test_optional_literal_enum_and_list_types():
    found = flags(ARGS)
    assert attrs(found["--lr"]) == {"default": "None", "type": "float"}
    assert attrs(found["--stage"]) == {"choices": "pt,sft", "default": "sft"}
    assert attrs(found["--mode"]) == {"choices": "fast,slow", "default": "slow"}
    assert attrs(found["--targets"]) == {"default": "['q', 'v']", "nargs": "+", "type": "str"}


def test_names_choose_the_classes_and_their_bases_come_along():
    found = flags(ARGS, names=("ModelArguments",))
    assert "--seed" in found and "--use_fast" in found
    assert set(flags(ARGS, names=("Base",))) == {"--seed"}
    assert flags(ARGS, names=("Missing",)) == {}


def test_a_default_made_by_code_is_unknown_not_guessed():
    found = flags(
        """
        import os
        from dataclasses import dataclass, field

        @dataclass
        class A:
            workers: int = field(default=os.cpu_count())
        """
    )
    assert attrs(found["--workers"]) == {"type": "int", "unknown": "default"}


def test_a_base_of_another_module_named_as_the_class_opens_the_parser():
    # `class TrainingArguments(transformers.TrainingArguments)`: the base is transformers' class,
    # not the class itself, so `--bf16` and the rest of its fields are flags this file cannot show
    text = """
    from dataclasses import dataclass, field
    import transformers

    @dataclass
    class TrainingArguments(transformers.TrainingArguments):
        model_max_length: int = field(default=512)
    """
    found = flags(text, names=("TrainingArguments",))
    assert attrs(found["--model_max_length"])["open"] == "true"
    assert attrs(flags(text)["--model-max-length"])["open"] == "true"  # every dataclass of the file
    local = text.replace("import transformers", "class Base:\n        pass").replace(
        "(transformers.TrainingArguments)", "(Base)"
    )
    assert "open" not in attrs(flags(local, names=("TrainingArguments", "Base"))["--model_max_length"])


def test_a_base_from_another_package_opens_the_parser():
    text = """
    from dataclasses import dataclass, field
    from transformers import Seq2SeqTrainingArguments

    @dataclass
    class TrainingArguments(Seq2SeqTrainingArguments):
        sortish: bool = False
    """
    assert attrs(flags(text)["--sortish"])["open"] == "true"
    assert "open" not in attrs(flags(ARGS)["--seed"])  # every base is in the file
    assert "open" not in attrs(
        flags(text.replace("(Seq2SeqTrainingArguments)", "(Base)"), names=("TrainingArguments", "Base"))[
            "--sortish"
        ]
    )
