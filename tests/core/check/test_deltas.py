"""Fact deltas: what became of each base fact at head, and how a rename is inferred."""

from __future__ import annotations

from bot.core.check.deltas import deltas, renamed_to
from bot.core.check.evidence import ChangeEvidence
from bot.core.facts import Facts
from bot.core.model import Fact, ParseError
from bot.trees.memory import MemoryTree
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


def test_a_switch_that_no_longer_states_its_polarity_has_not_turned_around():
    # pipx's `--json` became `store_const` of another module's value: unknown, not a new polarity.
    base = facts(fact("--json", sets="true"))
    head = facts(fact("--json", action="store_const"))
    assert "--json" not in deltas(base, head)


def test_a_no_switch_storing_false_into_the_variable_it_negates_keeps_its_meaning():
    # `--no-color` setting `no_color` true became `store_false` into `color`: the same switch.
    base = facts(fact("--no-color", "no_color", sets="true"), fact("--fast", "fast", sets="true"))
    head = facts(fact("--no-color", "color", sets="false"), fact("--fast", "fast", sets="false"))
    found = deltas(base, head)
    assert "--no-color" not in found
    assert [(d.attr, d.new_value) for d in found["--fast"]] == [("sets", "false")]


def test_a_switch_storing_into_a_variable_made_in_code_has_no_polarity_to_compare():
    # `add_argument(*option.negative_flags, dest=field.name, action="store_false")`
    base = facts(fact("--no-install", "no_install", sets="true"))
    head = facts(fact("--no-install", "no_install", sets="false", unknown="dest"))
    assert "--no-install" not in deltas(base, head)
    # made in code on both sides alike, the switch turning around is a change still
    both = facts(fact("--no-install", "no_install", sets="true", unknown="dest"))
    [delta] = deltas(both, head)["--no-install"]
    assert (delta.attr, delta.new_value) == ("sets", "false")


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


# -- evidence, in order --------------------------------------------------------------------------


def swapped(old: str, new: str, *files: str, renames: dict[str, str] | None = None) -> ChangeEvidence:
    """The change's other files: each of `files` has a line writing `old` that now writes `new`."""
    base = {f: f"run(x, {old}=1)\n" for f in files}
    head = {f: f"run(x, {new}=1)\n" for f in files}
    return ChangeEvidence(MemoryTree(base), MemoryTree(head), [(f, f) for f in files], renames)


def bool_pair(field: str, line: int, **attrs: str) -> list[Fact]:
    """A dataclass field's BooleanOptionalAction pair."""
    dashed = field.replace("_", "-")
    common = dict(action="argparse.BooleanOptionalAction", type="bool", **attrs)
    return [
        fact(f"--{dashed}", field, line=line, sets="true", **common),
        fact(f"--no-{dashed}", field, line=line, sets="false", **common),
    ]


def fields(*names: str, defaults: dict[str, str] | None = None) -> Facts:
    """A dataclass's bool fields in this order, each a BooleanOptionalAction pair."""
    out = Facts()
    for line, name in enumerate(names, 1):
        for f in bool_pair(name, line, default=(defaults or {}).get(name, "False")):
            out.add(f)
    return out


def test_the_changes_own_rewrites_name_the_successor_of_each_half_of_a_pair():
    base = fields("fp16", "keep_master")
    head = fields("fp16", "master_weights")
    rewrites = swapped("keep_master", "master_weights", "tests/test_policy.py", "pkg/policy.py")
    found = deltas(base, head, rewrites)
    [off] = found["--no-keep-master"]
    [on] = found["--keep-master"]
    assert (off.kind, off.new.token, on.new.token) == ("renamed", "--no-master-weights", "--master-weights")
    assert off.because.kind == "replaced"
    assert (off.because.old, off.because.new) == ("keep_master", "master_weights")
    assert off.because.files == ("pkg/policy.py", "tests/test_policy.py")


def test_the_file_defining_the_fact_is_no_evidence_of_its_own_rename():
    base = facts(fact("--old-name", "old_name", type="int"))
    head = facts(fact("--unrelated", "unrelated", type="float"))
    [delta] = deltas(base, head, swapped("old_name", "unrelated", CLI))["--old-name"]
    assert delta.kind == "removed"
    [delta] = deltas(base, head, swapped("old_name", "unrelated", "run.sh"))["--old-name"]
    assert (delta.kind, delta.new.token) == ("renamed", "--unrelated")


def test_rewrites_never_name_a_switch_pointing_the_other_way():
    # The launchers swapped `--no-keep-master` for `--master-weights`, the opposite switch of
    # what the page's line means; the new field has no negative half. No successor is better
    # than the wrong one.
    base = fields("keep_master")
    head = facts(fact("--master-weights", "master_weights", sets="true"))
    found = deltas(base, head, swapped("--no-keep-master", "--master-weights", "run.sh"))
    assert [d.kind for d in found["--no-keep-master"]] == ["removed"]


def test_rewrites_never_name_a_flag_of_another_program():
    base = facts(fact("--old-flag", "old_flag", type="int", programs="train.py"))
    head = facts(
        fact("--new-flag", "new_flag", type="int", source="serve", path="serve.py", programs="serve.py")
    )
    found = deltas(base, head, swapped("--old-flag", "--new-flag", "run.sh"))
    assert [d.kind for d in found["--old-flag"]] == ["removed"]


def test_the_same_destination_comes_before_any_rewrite():
    base = facts(fact("--disable-x", "x", sets="false"))
    head = facts(fact("--no-x", "x", sets="false"), fact("--x-off", "x_off", sets="false"))
    [delta] = deltas(base, head, swapped("--disable-x", "--x-off", "run.sh"))["--disable-x"]
    assert delta.new.token == "--no-x" and delta.because.kind == "same-dest"


def test_files_that_disagree_are_no_evidence():
    base = facts(fact("--old", "old", type="int"))
    head = facts(fact("--new-a", "new_a", type="int"), fact("--new-b", "new_b", type="int"))
    evidence = ChangeEvidence(
        MemoryTree({"a.sh": "run --old 1\n", "b.sh": "run --old 1\n"}),
        MemoryTree({"a.sh": "run --new-a 1\n", "b.sh": "run --new-b 1\n"}),
        [("a.sh", "a.sh"), ("b.sh", "b.sh")],
    )
    assert [d.kind for d in deltas(base, head, evidence)["--old"]] == ["removed"]


def test_one_field_gone_and_one_new_at_the_same_place_alike_in_all_is_a_rename():
    base = fields("fp16", "keep_master", "seed_all", defaults={"keep_master": "True"})
    head = fields("fp16", "master_weights", "seed_all", defaults={"master_weights": "True"})
    [delta] = deltas(base, head)["--no-keep-master"]
    assert (delta.kind, delta.new.token) == ("renamed", "--no-master-weights")
    assert delta.because.kind == "same-place"
    # Another default, or other neighbours: not the same field.
    other_default = fields("fp16", "master_weights", "seed_all")
    assert [d.kind for d in deltas(base, other_default)["--no-keep-master"]] == ["removed"]
    moved = fields("master_weights", "fp16", "seed_all", defaults={"master_weights": "True"})
    assert [d.kind for d in deltas(base, moved)["--no-keep-master"]] == ["removed"]


def test_two_fields_renamed_side_by_side_are_not_guessed_by_place():
    base = fields("fp16", "aaa", "bbb")
    head = fields("fp16", "ccc", "ddd")
    assert [d.kind for d in deltas(base, head)["--aaa"]] == ["removed"]


def test_a_moved_file_whose_one_lost_name_and_one_new_name_are_a_rename():
    old_path, new_path = "pkg/old_utils.py", "pkg/new_utils.py"
    base = facts(Fact("symbol", "load_old", "load_old", "api", old_path, 3, (("kind", "function"),)))
    head = facts(Fact("symbol", "fetch_new", "fetch_new", "api", new_path, 3, (("kind", "function"),)))
    assert [d.kind for d in deltas(base, head)["load_old"]] == ["removed"]
    [delta] = deltas(base, head, swapped("a", "b", renames={old_path: new_path}))["load_old"]
    assert (delta.kind, delta.new.token) == ("renamed", "fetch_new")
    assert (delta.because.kind, delta.because.old, delta.because.new) == ("git-rename", old_path, new_path)


def test_name_similarity_never_crosses_polarity():
    base = facts(fact("--no-cuda-graphs", "cuda_graphs", sets="false"))
    head = facts(fact("--cuda-graph", "cuda_graph", sets="true"))
    assert [d.kind for d in deltas(base, head)["--no-cuda-graphs"]] == ["removed"]
    negative = facts(fact("--no-cuda-graph", "cuda_graph", sets="false"))
    [delta] = deltas(base, negative)["--no-cuda-graphs"]
    assert (delta.new.token, delta.because.kind) == ("--no-cuda-graph", "similar")
