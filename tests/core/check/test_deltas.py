"""Fact deltas: what became of each base fact at head, and how a rename is inferred."""

from __future__ import annotations

from bot.core.check.deltas import deltas, renamed_to
from bot.core.facts import Facts
from bot.core.model import Fact, ParseError
from tests.core.check.checkkit import CLI, fact


def facts(*fs: Fact, errors: tuple[ParseError, ...] = ()) -> Facts:
    out = Facts()
    for f in fs:
        out.add(f)
    out.errors.extend(errors)
    return out


def test_a_flag_nothing_replaces_is_removed():
    found = deltas(facts(fact("--seed"), fact("--lr")), facts(fact("--lr"), fact("--max-tokens")))
    assert list(found) == ["--seed"]
    [delta] = found["--seed"]
    assert (delta.kind, delta.old.token, delta.new) == ("removed", "--seed", None)


def test_a_flag_with_the_same_dest_and_polarity_is_the_rename_even_when_another_name_is_closer():
    # PR 2384: `--disable-fp32-master` (stores False into keep_fp32_master) became the
    # BooleanOptionalAction pair; the `--no-` half keeps its meaning, the closer name inverts it.
    base = facts(fact("--disable-fp32-master", "keep_fp32_master", sets="false"))
    head = facts(
        fact("--keep-fp32-master", "keep_fp32_master", sets="true"),
        fact("--no-keep-fp32-master", "keep_fp32_master", sets="false"),
    )
    [delta] = deltas(base, head)["--disable-fp32-master"]
    assert delta.kind == "renamed"
    assert delta.new is not None and delta.new.token == "--no-keep-fp32-master"


def test_a_close_new_name_is_a_rename_only_within_the_same_source():
    base = facts(fact("--fsdp-cpu-offload", "fsdp_cpu_offload"))
    same = facts(fact("--fsdp-cpu-offloading", "offloading"))
    [delta] = deltas(base, same)["--fsdp-cpu-offload"]
    assert delta.kind == "renamed" and delta.new is not None and delta.new.token == "--fsdp-cpu-offloading"
    other = facts(fact("--fsdp-cpu-offloading", "offloading", source="launcher"))
    [delta] = deltas(base, other)["--fsdp-cpu-offload"]
    assert delta.kind == "removed"


def test_a_changed_default_is_a_change_of_that_attribute():
    [delta] = deltas(facts(fact("--lr", default="0.1")), facts(fact("--lr", default="0.01")))["--lr"]
    assert (delta.kind, delta.attr, delta.old_value, delta.new_value) == ("changed", "default", "0.1", "0.01")
    assert delta.new is not None and delta.new.token == "--lr"


def test_the_same_default_written_another_way_is_no_change():
    base = facts(fact("--steps", default="100"), fact("--fast", default="True"))
    head = facts(fact("--steps", default="100.0"), fact("--fast", default="true"))
    assert deltas(base, head) == {}


def test_attributes_a_flag_gains_are_changes_only_for_its_default():
    base = facts(fact("--backend"))
    head = facts(fact("--backend", choices="fsdp,megatron", type="str", default="fsdp"))
    found = deltas(base, head)["--backend"]
    assert [(d.attr, d.old_value, d.new_value) for d in found] == [("default", None, "fsdp")]


def test_changed_choices_and_polarity_are_changes():
    base = facts(fact("--backend", choices="fsdp,megatron"), fact("--offload", sets="true"))
    head = facts(fact("--backend", choices="megatron"), fact("--offload", sets="false"))
    found = deltas(base, head)
    assert [(d.attr, d.new_value) for d in found["--backend"]] == [("choices", "megatron")]
    assert [(d.attr, d.new_value) for d in found["--offload"]] == [("sets", "false")]


def test_a_renamed_member_of_a_set_is_found_in_its_own_group():
    base = facts(fact("dp_replicate", "mesh:dp_replicate", kind="string", group="mesh"))
    head = facts(
        fact("replicate", "mesh:replicate", kind="string", group="mesh"),
        fact("replicated", "backends:replicated", kind="string", group="backends"),
    )
    [delta] = deltas(base, head)["dp_replicate"]
    assert delta.kind == "renamed" and delta.new is not None and delta.new.token == "replicate"


def test_the_one_method_a_class_lost_and_the_one_it_gained_are_a_rename_whatever_their_names():
    # Built by hand: a symbol's own `kind` attribute (method, class, function) is what counts.
    base = facts(Fact("symbol", "train", "Actor.train", "contract", CLI, 3, (("kind", "method"),)))
    head = facts(Fact("symbol", "fit", "Actor.fit", "contract", CLI, 3, (("kind", "method"),)))
    [delta] = deltas(base, head)["train"]
    assert delta.kind == "renamed" and delta.new is not None and delta.new.token == "fit"
    # Without the one-for-one swap inside a class, names this far apart are no rename.
    elsewhere = facts(Fact("symbol", "fit", "Trainer.fit", "contract", CLI, 3, (("kind", "method"),)))
    [delta] = deltas(base, elsewhere)["train"]
    assert delta.kind == "removed"


def test_a_head_that_does_not_parse_removes_nothing():
    broken = facts(errors=(ParseError(CLI, 4, "invalid syntax"),))
    assert deltas(facts(fact("--seed")), broken) == {}
    # When other files still give facts, the unparsable file's own facts are skipped too.
    elsewhere = Fact("flag", "--lr", "lr", "cli", "tool/other.py", 1)
    partly = facts(elsewhere, errors=(ParseError(CLI, 4, "invalid syntax"),))
    assert deltas(facts(fact("--seed"), elsewhere), partly) == {}


def test_renamed_to_lists_the_new_names_of_renames_only():
    base = facts(fact("--disable-x", "x", sets="false"), fact("--seed"), fact("--lr", default="1"))
    head = facts(fact("--no-x", "x", sets="false"), fact("--lr", default="2"))
    assert renamed_to(deltas(base, head)) == {"--no-x"}
