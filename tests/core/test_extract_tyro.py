"""Flags tyro makes of dataclasses and signatures, read statically."""

from __future__ import annotations

import textwrap

from bot.core.extract import extract
from bot.core.model import Fact
from bot.core.rules import Convention, Source

CONFIG = '''\
import dataclasses
import enum
from typing import Annotated, Literal

import tyro


class Precision(enum.Enum):
    FP16 = "fp16"
    BF16 = "bf16"


@dataclasses.dataclass
class Optimizer:
    learning_rate: float = 3e-4
    """Peak learning rate."""
    warmup: bool = False


@dataclasses.dataclass
class Config:
    exp_name: str
    optimizer: Optimizer = Optimizer(learning_rate=1e-3)
    use_wandb: bool = True
    mode: Literal["train", "eval"] = "train"
    precision: Precision = Precision.BF16
    strict: bool = dataclasses.field(default=False)
    steps: Annotated[int, tyro.conf.arg(name="max-steps", aliases=("-n",))] = 100
    secret: tyro.conf.Suppress[str] = "x"
    tags: list[str] = dataclasses.field(default_factory=list)


if __name__ == "__main__":
    tyro.cli(Config)
'''


def flags(text: str, **source: object) -> dict[str, Fact]:
    found = Source(id="cfg", kind="tyro", paths=("cfg.py",), **source)  # type: ignore[arg-type]
    return {f.token: f for f in extract(found, "cfg.py", textwrap.dedent(text)).facts}


def attrs(fact: Fact) -> dict[str, str]:
    return {k: v for k, v in fact.attrs if k != "spelling"}


def test_every_flag_is_taken_in_either_spelling():
    # tyro parses `--exp_name` as `--exp-name`: use_underscores changes its help only
    assert {dict(f.attrs).get("spelling") for f in flags(CONFIG).values()} == {"either"}


def test_fields_of_what_tyro_cli_is_given_become_hyphenated_flags():
    found = flags(CONFIG)
    assert attrs(found["--exp-name"]) == {"required": "true", "type": "str"}
    assert found["--exp-name"].key == "exp_name"
    assert attrs(found["--mode"]) == {"choices": "train,eval", "default": "train"}
    assert attrs(found["--precision"]) == {"choices": "FP16,BF16", "default": "BF16"}  # member names
    assert attrs(found["--tags"]) == {"default": "[]", "nargs": "*", "type": "str"}
    assert "--secret" not in found


def test_nested_dataclass_is_a_group_with_the_defaults_its_default_gives():
    found = flags(CONFIG)
    lr = found["--optimizer.learning-rate"]
    assert lr.key == "optimizer.learning_rate"
    assert attrs(lr) == {"default": "0.001", "help": "Peak learning rate.", "type": "float"}
    assert attrs(found["--optimizer.no-warmup"])["sets"] == "false"


def test_bools_with_a_default_are_pairs():
    found = flags(CONFIG)
    assert attrs(found["--use-wandb"])["sets"] == "true" and attrs(found["--no-use-wandb"])["sets"] == "false"
    assert attrs(found["--no-strict"])["default"] == "False"


def test_conf_arg_renames_and_aliases():
    found = flags(CONFIG)
    assert "--steps" not in found
    assert attrs(found["--max-steps"])["default"] == "100" and found["-n"].key == "steps"


def test_underscores_kept_when_the_call_or_the_rule_says_so():
    assert "--exp_name" in flags(CONFIG.replace("tyro.cli(Config)", "tyro.cli(Config, use_underscores=True)"))
    assert "--use_wandb" in flags(CONFIG, convention=Convention(separator="_"))
    assert "--no_use_wandb" in flags(CONFIG, convention=Convention(separator="_"))


def test_function_signature_and_named_roots_with_a_prefix():
    text = """
    import tyro

    def main(data_dir: str, batch_size: int = 8, shuffle: bool = True) -> None:
        ...

    tyro.cli(main)
    """
    found = flags(text)
    assert set(found) == {"--data-dir", "--batch-size", "--shuffle", "--no-shuffle"}
    grouped = flags(text, names=("loader=main",))  # names add to what the file hands tyro
    assert {"--loader.batch-size", "--loader.no-shuffle", "--batch-size"} <= set(grouped)


def test_a_file_that_hands_tyro_nothing_has_no_flags():
    assert flags("import dataclasses\n\n@dataclasses.dataclass\nclass A:\n    x: int = 1\n") == {}


def test_a_union_of_classes_is_one_subcommand_each():
    text = """
    import dataclasses
    from typing import Annotated, Union

    import tyro

    @dataclasses.dataclass
    class Common:
        data: str = "."

    @dataclasses.dataclass
    class Images(Common):
        crop: float = 0.0

    @dataclasses.dataclass
    class VideoFrames(Common):
        fps: int = 30

    Commands = tyro.conf.FlagConversionOff[
        Union[Annotated[Images, tyro.conf.subcommand(name="images")], VideoFrames]
    ]

    tyro.cli(Commands)
    """
    source = Source(id="cfg", kind="tyro", paths=("cfg.py",))
    found = [(f.token, f.attr("subcommand")) for f in extract(source, "cfg.py", textwrap.dedent(text)).facts]
    assert sorted(found) == [
        ("--crop", "images"),
        ("--data", "images"),
        ("--data", "video-frames"),  # tyro's name for a class: kebab case
        ("--fps", "video-frames"),
    ]
