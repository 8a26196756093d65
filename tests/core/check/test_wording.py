"""Wording: the replacement text of a line, and the sentences findings say."""

from __future__ import annotations

from bot.core.check import wording
from bot.core.model import Fact
from bot.core.page import parse_doc
from tests.core.check.checkkit import fact


def test_fixed_line_replaces_whole_tokens_only():
    line = "Pass `--lr` (not `--lr-decay`, nor `--min-lr`) to set it."
    assert wording.fixed_line(line, [("--lr", "--learning-rate")]) == (
        "Pass `--learning-rate` (not `--lr-decay`, nor `--min-lr`) to set it."
    )


def test_fixed_line_applies_every_edit_in_order():
    line = "| `--disable-fp32-master` | `fsdp` |"
    edits = [("--disable-fp32-master", "--no-keep-fp32-master"), ("fsdp", "fsdp2")]
    assert wording.fixed_line(line, edits) == "| `--no-keep-fp32-master` | `fsdp2` |"
    assert wording.fixed_line(line, []) == line


def test_fixed_line_keeps_backslashes_of_the_new_text():
    assert wording.fixed_line("see `dir`", [("dir", r"C:\dir")]) == r"see `C:\dir`"


def test_claim_edit_rewrites_only_the_claimed_value():
    page = parse_doc("d.md", "`--backend` defaults to `fsdp`, see `fsdp_utils`.\n")
    [claim] = page.claims
    edit = wording.claim_edit(claim, "megatron", page.lines[0])
    assert edit == ("`fsdp`", "`megatron`")
    fixed = wording.fixed_line(page.lines[0], [edit])
    assert fixed == "`--backend` defaults to `megatron`, see `fsdp_utils`."


def test_claim_edit_of_a_value_written_twice_widens_to_be_the_lines_only_one():
    line = "`--backend` defaults to `fsdp` (`fsdp` or `megatron`)."
    page = parse_doc("d.md", line + "\n")
    [claim] = page.claims
    edit = wording.claim_edit(claim, "megatron", line)
    assert edit is not None
    assert wording.fixed_line(line, [edit]) == "`--backend` defaults to `megatron` (`fsdp` or `megatron`)."


def test_row_deletion_drops_a_table_row_that_exists_for_the_token_alone():
    page = parse_doc(
        "d.md",
        "| Name | Meaning |\n|---|---|\n| `cp` | context parallel |\n"
        "| `dp` | like `cp` but data |\n\nUse `cp`.\n",
    )
    cp_row, dp_row_mention, prose = (r for r in page.refs if r.token == "cp")
    assert wording.row_deletion(page.lines[cp_row.line - 1], cp_row) == ""
    assert wording.row_deletion(page.lines[dp_row_mention.line - 1], dp_row_mention) is None
    assert wording.row_deletion(page.lines[prose.line - 1], prose) is None


def test_a_fact_is_named_by_its_kind():
    method = Fact("symbol", "train", "Actor.train", "contract", "a.py", 3, (("kind", "method"),))
    dim = fact("cp", "mesh:cp", kind="string", group="fsdp mesh dimensions")
    choice = fact("fsdp", kind="string", group="choices of --backend")
    assert wording.subject(fact("--seed")) == "flag `--seed`"
    assert wording.subject(method) == "method `train`"
    assert wording.subject(dim) == "`cp` (one of the fsdp mesh dimensions)"
    assert wording.gone_subject(method) == "method `train` no longer exists"
    assert wording.gone_subject(choice) == "`fsdp` is no longer one of the choices of --backend"


def test_renamed_and_removed_say_where_the_fact_was_and_is():
    old = fact("--disable-x", "x", line=12, sets="false")
    new = fact("--no-x", "x", line=30, sets="false")
    assert wording.renamed(old, new) == (
        "flag `--disable-x` is now `--no-x` (defined at tool/cli.py:30); the doc still says `--disable-x`"
    )
    assert "Both flags set `x` to false" in wording.why_renamed(old, new)
    assert wording.removed(old) == (
        "flag `--disable-x` no longer exists (defined at tool/cli.py:12 before this change); "
        "the doc still cites it"
    )
    assert "Rule `page` reads tool/cli.py with source `cli`" in wording.why_removed(old, "page")


def test_did_you_mean_appears_only_with_a_candidate():
    assert wording.unknown_flag("--sed", "--seed") == "`--sed` is not a flag at head; did you mean `--seed`?"
    assert wording.unknown_flag("--sed", None) == "`--sed` is not a flag at head"
    assert wording.path_missing("a/b.py", None) == "`a/b.py` does not exist at head"


def test_a_wrong_default_quotes_the_doc_unless_it_is_a_check_mark():
    assert wording.wrong_default("--backend", "fsdp", "megatron", mark=False) == (
        "the default of `--backend` is `fsdp`; the doc says `megatron`"
    )
    assert wording.wrong_default("--backend", "fsdp", "megatron", mark=True) == (
        "the default of `--backend` is `fsdp`, not `megatron`"
    )


def test_a_flipped_switch_says_what_passing_it_now_does():
    assert wording.switch_flipped("offload", "False", "True", noop=True) == (
        "`offload` now defaults to True (was False): passing it no longer changes anything; "
        "the doc describes the old default"
    )
    assert "the only way to get the old default" in wording.switch_flipped(
        "offload", "True", "False", noop=False
    )
