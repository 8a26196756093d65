"""Flags Python Fire makes of a function's parameters, read statically."""

from __future__ import annotations

import textwrap

from bot.core.extract import extract
from bot.core.model import Fact
from bot.core.rules import Source

FINETUNE = '''\
import fire


def train(
    base_model: str = "",
    data_path: str = "yahma/alpaca-cleaned",
    batch_size: int = 128,
    learning_rate: float = 3e-4,
    train_on_inputs: bool = True,
    output_dir="./lora-alpaca",
    resume_from_checkpoint=None,
):
    """Fine-tune with LoRA.

    Args:
        base_model: the model to start from.
    """


def _helper(x: int = 1):
    pass


if __name__ == "__main__":
    fire.Fire(train)
'''


def flags(text: str, path: str = "finetune.py") -> dict[str, Fact]:
    source = Source(id="cli", kind="fire", paths=(path,))
    return {
        f.token + (f" @{f.attr('subcommand')}" if f.attr("subcommand") else ""): f
        for f in extract(source, path, textwrap.dedent(text)).facts
        if f.kind == "flag"
    }


def test_each_parameter_of_the_function_fire_is_handed_is_a_flag():
    found = flags(FINETUNE)
    assert sorted(found) == [
        "--base_model",
        "--batch_size",
        "--data_path",
        "--learning_rate",
        "--output_dir",
        "--resume_from_checkpoint",
        "--train_on_inputs",
    ]
    assert found["--batch_size"].attr("default") == "128"
    assert found["--data_path"].attr("default") == "yahma/alpaca-cleaned"
    assert found["--output_dir"].attr("default") == "./lora-alpaca"  # no annotation: still a flag
    assert found["--base_model"].attr("help") == "the model to start from."
    # Fire takes `--batch-size` for `--batch_size`, and a function of fixed parameters is closed.
    assert all(f.attr("spelling") == "either" and f.attr("open") is None for f in found.values())


def test_a_dict_makes_subcommands_and_kwargs_open_the_flags():
    text = """\
    from fire import Fire

    def download(repo: str, revision: str = "main"):
        pass

    def convert(checkpoint_dir: str, **kwargs):
        pass

    Fire({"download": download, "convert": convert})
    """
    found = flags(text)
    assert sorted(found) == ["--checkpoint_dir @convert", "--repo @download", "--revision @download"]
    assert found["--revision @download"].attr("default") == "main"
    assert found["--repo @download"].attr("required") == "true"
    assert found["--checkpoint_dir @convert"].attr("open") == "true"  # convert(**kwargs) takes any
    assert found["--repo @download"].attr("open") is None


def test_fire_with_nothing_exposes_the_module_and_reads_no_flags():
    assert flags("import fire\n\ndef main(x: int = 1):\n    pass\n\nfire.Fire()\n") == {}
