"""Flags jsonargparse and LightningCLI make of signatures, read statically."""

from __future__ import annotations

import textwrap

from bot.core.extract import extract
from bot.core.model import Fact
from bot.core.rules import Source

LIGHTNING = '''\
from dataclasses import dataclass

from lightning.pytorch.cli import LightningCLI


class LitModel:
    def __init__(self, hidden_dim: int = 64, learning_rate: float = 1e-3, use_bn: bool = False):
        """A small model.

        Args:
            hidden_dim: width of the hidden layers.
            learning_rate: the peak learning rate.
        """


class DataModule:
    def __init__(self, data_dir: str = "./data", batch_size: int = 32):
        """
        :param data_dir: where the data is.
        """


def main():
    LightningCLI(LitModel, DataModule, subclass_mode_data=True)
'''


def flags(text: str, names: tuple[str, ...] = ()) -> dict[str, Fact]:
    source = Source(id="cli", kind="jsonargparse", paths=("main.py",), names=names)
    return {f.token: f for f in extract(source, "main.py", textwrap.dedent(text)).facts}


def attrs(fact: Fact) -> dict[str, str]:
    return dict(fact.attrs)


def test_lightning_cli_groups_model_and_data_init_parameters():
    found = flags(LIGHTNING)
    assert set(found) == {
        "--model.hidden_dim",
        "--model.learning_rate",
        "--model.use_bn",
        "--data.init_args.data_dir",
        "--data.init_args.batch_size",
    }
    # Lightning's own groups (`--trainer.*`) are not the file's: the flags say the parser is open
    hidden = {"default": "64", "help": "width of the hidden layers.", "open": "true", "type": "int"}
    assert attrs(found["--model.hidden_dim"]) == hidden
    assert found["--model.learning_rate"].key == "model.learning_rate"
    assert attrs(found["--model.use_bn"]) == {
        "default": "False",
        "open": "true",
        "type": "bool",
    }  # takes a value
    assert attrs(found["--data.init_args.data_dir"])["help"] == "where the data is."


def test_cli_of_a_function_and_nested_dataclasses():
    found = flags(
        """
        from dataclasses import dataclass
        from jsonargparse import CLI

        @dataclass
        class Optim:
            lr: float = 0.1

        def fit(max_epochs: int = 10, optim: Optim = Optim(lr=0.5), *, seed: int | None = None):
            ...

        if __name__ == "__main__":
            CLI(fit)
        """
    )
    assert set(found) == {"--max_epochs", "--optim.lr", "--seed"}
    assert attrs(found["--optim.lr"])["default"] == "0.5"
    assert attrs(found["--seed"]) == {"default": "None", "open": "true", "type": "int"}  # --config is its


def test_add_class_arguments_with_a_nested_key_and_names_from_the_rule():
    text = """
    from jsonargparse import ArgumentParser

    class Encoder:
        def __init__(self, layers: int = 2):
            ...

    parser = ArgumentParser()
    parser.add_class_arguments(Encoder, "encoder")
    """
    assert set(flags(text)) == {"--encoder.layers"}
    named = flags(text, names=("model.init_args.encoder=Encoder",))  # names add to the file's own
    assert set(named) == {"--encoder.layers", "--model.init_args.encoder.layers"}


def test_cli_of_a_dict_makes_subcommands():
    found = Source(id="cli", kind="jsonargparse", paths=("main.py",))
    text = textwrap.dedent(
        """
        from jsonargparse import CLI

        def fit(epochs: int = 3): ...
        def test(batch_size: int = 8): ...

        COMMANDS = {"fit": fit, "test": test}
        CLI(COMMANDS)
        """
    )
    facts = {f.token: dict(f.attrs) for f in extract(found, "main.py", text).facts}
    assert facts["--epochs"]["subcommand"] == "fit" and facts["--batch_size"]["subcommand"] == "test"


def test_cli_of_a_dict_the_calling_function_assigns_makes_subcommands():
    found = Source(id="cli", kind="jsonargparse", paths=("main.py",))
    text = textwrap.dedent(
        """
        from jsonargparse import CLI

        def fit(epochs: int = 3): ...
        def test(batch_size: int = 8): ...

        def main():
            commands = {"fit": fit, "test": test}
            CLI(commands)
        """
    )
    facts = {f.token: dict(f.attrs) for f in extract(found, "main.py", text).facts}
    assert facts["--epochs"]["subcommand"] == "fit" and facts["--batch_size"]["subcommand"] == "test"
