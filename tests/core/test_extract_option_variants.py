"""Option strings spelt from a choice the caller makes, and defaults named through the class."""

import textwrap

from bot.core.extract import extract
from bot.core.rules import Source

SOURCE = Source(id="cli", kind="argparse", paths=("tool/args.py",))


def flags(code: str) -> dict[str, dict[str, str]]:
    result = extract(SOURCE, "tool/args.py", textwrap.dedent(code))
    assert result.errors == ()
    return {f.token: dict(f.attrs, dest=f.key) for f in result.facts if f.kind == "flag"}


PREFIXED = """
    import argparse
    import dataclasses


    @dataclasses.dataclass
    class GatewayArgs:
        mode: str = "fair"
        retries: int = dataclasses.field(default=3)
        peers: list = dataclasses.field(default_factory=list)

        @staticmethod
        def add_cli_args(parser, prefixed: bool = False):
            lead = "gw-" if prefixed else ""
            parser.add_argument(f"--{lead}mode", default=GatewayArgs.mode, choices=["fair", "fast"])
            parser.add_argument(f"--{lead}retries", type=int, default=GatewayArgs.retries)
            parser.add_argument(f"--{lead}peers", nargs="*", default=GatewayArgs.peers)
            parser.add_argument("--plain", action="store_true")
"""


def test_a_prefix_chosen_by_a_parameter_gives_each_spelling_its_own_dest():
    found = flags(PREFIXED)
    assert sorted(found) == [
        "--gw-mode",
        "--gw-peers",
        "--gw-retries",
        "--mode",
        "--peers",
        "--plain",
        "--retries",
    ]
    assert (found["--mode"]["dest"], found["--gw-mode"]["dest"]) == ("mode", "gw_mode")
    assert found["--gw-mode"]["choices"] == "fair,fast"
    # Each spelling is one a caller may choose; a flag spelt one way only is not marked.
    assert found["--mode"]["variant"] == found["--gw-mode"]["variant"] == "true"
    assert "variant" not in found["--plain"]


def test_a_default_named_through_the_class_is_the_field_default():
    found = flags(PREFIXED)
    assert found["--mode"]["default"] == "fair"
    assert found["--gw-retries"]["default"] == "3"  # field(default=3)
    # field(default_factory=...) leaves the class no such attribute: not known
    assert "default" not in found["--peers"] and "default" in found["--peers"]["unknown"]


def test_a_class_default_assigned_twice_or_inherited_from_another_module_is_unknown():
    found = flags(
        """
        import argparse
        from elsewhere import Base

        class Local(Base):
            size = 1
            size = 2

        class Child(Local):
            pass

        p = argparse.ArgumentParser()
        p.add_argument("--size", default=Child.size)
        p.add_argument("--name", default=Child.name)
        """
    )
    assert "default" not in found["--size"] and "default" not in found["--name"]


def test_a_choice_the_file_decides_is_not_split():
    found = flags(
        """
        import argparse
        FULL = True
        lead = "x-" if FULL else ""
        p = argparse.ArgumentParser()
        p.add_argument(f"--{lead}size")
        """
    )
    assert sorted(found) == ["--x-size"]
