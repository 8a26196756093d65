"""A dataclass field's comments, which `ast` drops: on its line, inside a parenthesised default,
in the block above it, and the section title it sits under."""

from __future__ import annotations

from bot.core.extract.field_comments import FieldComments, field_comments, is_title

ARGS = """\
from dataclasses import dataclass


@dataclass
class Base:
    # Logging
    project: str = "run"  # Where the runs are logged.


@dataclass
class TrainArgs(Base):
    # Optim
    lr: float = 2e-5  # Peak learning rate.
    warmup: int = 0

    # Offload
    cpu_offload: bool = (
        False  # If True, offload parameters
        # and gradients to CPU.
    )
    # Replica count for hybrid sharding.
    # One means a flat shard group.
    replicas: int = 1
    quiet: bool = False  # noqa: E501
    odd: int = 3  # Fine, see issue #12.  # type: ignore[assignment]
    ratio: float = 0.5  # A | B split, <dir> and {x}.

    def method(self) -> int:  # Not a field.
        return 1
"""


def test_each_field_gets_the_comment_on_its_own_line():
    found = field_comments(ARGS, "TrainArgs")
    assert found is not None
    assert found["lr"] == FieldComments("Peak learning rate.", "Optim", "Optim")
    assert found["warmup"].description() == ""
    assert (
        found["ratio"].inline == "A | B split, <dir> and {x}."
    )  # as written: escaping is the page's business


def test_a_comment_inside_a_parenthesised_default_is_the_fields_own():
    found = field_comments(ARGS, "TrainArgs")
    assert found is not None
    assert found["cpu_offload"].inline == "If True, offload parameters and gradients to CPU."
    assert found["cpu_offload"].section == "Offload"


def test_a_sentence_right_above_a_field_describes_it_and_a_title_does_not():
    found = field_comments(ARGS, "TrainArgs")
    assert found is not None
    replicas = found["replicas"]
    assert replicas.above == "Replica count for hybrid sharding. One means a flat shard group."
    assert replicas.description() == replicas.above
    assert replicas.section == "Offload"  # a sentence does not start a section
    assert found["lr"].above == "Optim" and found["lr"].description() == "Peak learning rate."
    assert found["warmup"].above == ""  # the block above belongs to the field right below it


def test_comments_for_tools_are_no_description():
    found = field_comments(ARGS, "TrainArgs")
    assert found is not None
    assert found["quiet"].description() == ""
    assert found["odd"].description() == "Fine, see issue #12."


def test_fields_of_a_base_class_in_the_same_file_come_too():
    found = field_comments(ARGS, "TrainArgs")
    assert found is not None
    assert found["project"] == FieldComments("Where the runs are logged.", "Logging", "Logging")
    assert "method" not in found


def test_no_class_or_no_parse_gives_none():
    assert field_comments(ARGS, "Missing") is None
    assert field_comments("class Broken(:\n    x: int = 1\n", "Broken") is None


def test_a_title_is_one_short_phrase_without_a_sentence_end():
    assert is_title("FSDP configuration")
    assert not is_title("FSDP2 hybrid-shard replica count.")
    assert not is_title("Set this when the cluster has more than eight GPUs per node")
    assert not is_title("")
