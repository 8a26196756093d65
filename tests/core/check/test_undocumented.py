"""New facts a page does not mention: new members of the sets it lists, new flags beside the
ones it documents."""

from __future__ import annotations

from bot.core.check.deltas import deltas, renamed_to
from bot.core.check.findings import Findings
from bot.core.check.undocumented import undocumented
from bot.core.model import Finding
from bot.core.rules import Rule, Source
from tests.core.check.checkkit import (
    CLI,
    DOC,
    cli,
    flags_source,
    kinds,
    line_of,
    mesh,
    mesh_source,
    prepare,
    rule,
)

MESH = "tool/mesh.py"
MESH_TABLE = "| Dimension | Meaning |\n|---|---|\n| `dp` | data |\n| `tp` | tensor |\n\nAbove: the mesh.\n"


def judge(rule_: Rule, base: dict[str, str], head: dict[str, str]) -> list[Finding]:
    inputs = prepare(rule_, base, head)
    out = Findings(rule_)
    successors = renamed_to(deltas(inputs.base_facts, inputs.head_facts))
    for page in inputs.pages:
        undocumented(inputs, page, successors, out)
    return out.finish()


def test_a_new_member_of_an_enumerated_set_is_reported_on_the_table_that_lists_it():
    base = {DOC: MESH_TABLE, MESH: mesh("dp", "tp")}
    head = dict(base, **{MESH: mesh("dp", "tp", "ep")})
    [f] = judge(rule(mesh_source()), base, head)
    assert (f.kind, f.symbol, f.severity) == ("undocumented", "ep", "warning")
    assert f.doc.line == line_of(MESH_TABLE, "`tp`")  # the table's last row, where a new one goes
    assert f.message.startswith("`ep` is new in mesh dimensions (tool/mesh.py:1); the doc lists `dp`, `tp`")
    assert f.code.path == MESH


def test_a_rename_is_not_also_a_new_member():
    base = {DOC: MESH_TABLE, MESH: mesh("dp", "tp")}
    head = dict(base, **{MESH: mesh("dp", "etp")})
    rule_ = rule(mesh_source())
    inputs = prepare(rule_, base, head)
    assert renamed_to(deltas(inputs.base_facts, inputs.head_facts)) == {"etp"}
    assert judge(rule_, base, head) == []


def test_a_flags_choices_count_as_listed_when_the_page_cites_every_one():
    all_listed = "`--backend` takes `fsdp` or `megatron`.\n"
    base_cli = cli("'--backend', choices=['fsdp', 'megatron']")
    head_cli = cli("'--backend', choices=['fsdp', 'megatron', 'jax']")
    found = judge(rule(), {DOC: all_listed, CLI: base_cli}, {DOC: all_listed, CLI: head_cli})
    assert kinds(found) == [("undocumented", "jax")]
    one_of_two = "`--backend` takes `fsdp`, among others.\n"
    assert judge(rule(), {DOC: one_of_two, CLI: base_cli}, {DOC: one_of_two, CLI: head_cli}) == []


def test_a_new_flag_beside_documented_ones_is_a_notice_without_a_doc_line():
    page = "Use `--lr` and `--seed`.\n"
    base_cli = cli("'--lr'", "'--seed'", "'--warmup'")
    head_cli = base_cli + "p.add_argument('--max-tokens')\n"
    [f] = judge(rule(), {DOC: page, CLI: base_cli}, {DOC: page, CLI: head_cli})
    assert (f.kind, f.symbol, f.severity, f.doc) == ("new-flag", "--max-tokens", "notice", None)
    assert f.message == f"new flag `--max-tokens` ({CLI}:7) is not mentioned in {DOC}"
    assert f.code.line == line_of(head_cli, "--max-tokens")


def test_a_flag_argparse_hides_from_help_is_no_news_and_no_share_of_the_parser():
    page = "Use `--lr` and `--seed`.\n"
    base_cli = cli("'--lr'", "'--seed'", "'--warmup'")
    hidden = base_cli + "p.add_argument('--dump-graph', help=argparse.SUPPRESS)\n"
    assert judge(rule(), {DOC: page, CLI: base_cli}, {DOC: page, CLI: hidden}) == []
    # Hidden flags do not count against the page's share of the parser: it still documents most
    # of the flags `--help` lists, and a new one shown there is news.
    many = cli("'--lr'", "'--seed'", *(f"'--debug-{i}', help=argparse.SUPPRESS" for i in range(5)))
    head_cli = many + "p.add_argument('--max-tokens')\n"
    assert kinds(judge(rule(), {DOC: page, CLI: many}, {DOC: page, CLI: head_cli})) == [
        ("new-flag", "--max-tokens")
    ]


def test_new_flags_of_a_source_the_page_barely_cites_are_not_news():
    page = "Use `--lr`.\n"
    base_cli = cli("'--lr'", *(f"'--knob-{i}'" for i in range(10)))
    head_cli = base_cli + "p.add_argument('--max-tokens')\n"
    assert judge(rule(), {DOC: page, CLI: base_cli}, {DOC: page, CLI: head_cli}) == []


def test_the_negative_half_of_a_boolean_pair_is_not_a_second_new_flag():
    page = "Use `--lr`.\n"
    base_cli = cli("'--lr'")
    head_cli = cli("'--lr'", "'--offload', action=argparse.BooleanOptionalAction")
    found = judge(rule(), {DOC: page, CLI: base_cli}, {DOC: page, CLI: head_cli})
    assert kinds(found) == [("new-flag", "--offload")]


def test_a_new_flag_of_a_source_the_rule_says_the_page_lists_in_full_is_undocumented():
    enumerated = Source(id="cli", kind="argparse", paths=(CLI,), enumerated=True)
    page = "Use `--lr`.\n"
    base, head = cli("'--lr'"), cli("'--lr'", "'--seed'")
    found = judge(rule(enumerated), {DOC: page, CLI: base}, {DOC: page, CLI: head})
    assert kinds(found) == [("undocumented", "--seed")]
    assert kinds(judge(rule(flags_source()), {DOC: page, CLI: base}, {DOC: page, CLI: head})) == [
        ("new-flag", "--seed")
    ]


def test_new_flags_are_news_only_on_a_page_that_documents_most_of_their_parser():
    base_cli = cli("'--lr'", "'--seed'", "'--warmup'")
    head_cli = base_cli + "p.add_argument('--max-tokens')\n"
    readme = "Quick start: pass `--lr`.\n"  # one of four flags: a README, not the reference
    assert judge(rule(), {DOC: readme, CLI: base_cli}, {DOC: readme, CLI: head_cli}) == []
    # Two command lines in one rule: the page documents the first, not the second.
    other = "tool/serve.py"
    both = rule(Source(id="cli", kind="argparse", paths=(CLI, other)))
    reference = "Use `--lr`, `--seed` and `--warmup`.\n"
    serve_base, serve_head = cli("'--port'", "'--host'"), cli("'--port'", "'--host'", "'--workers'")
    base = {DOC: reference, CLI: base_cli, other: serve_base}
    found = judge(both, base, dict(base, **{CLI: head_cli, other: serve_head}))
    assert kinds(found) == [("new-flag", "--max-tokens")]


def _siblings(a_flags: tuple[str, ...], b_flags: tuple[str, ...]) -> tuple[Rule, dict[str, str]]:
    """Two example folders, each a README running its own copy of a training script, coupled by
    one rule with globs (not paired)."""
    from bot.core.rules import DocTarget

    both = Rule(
        id="examples",
        docs=(DocTarget("examples/a/README.md"), DocTarget("examples/b/README.md")),
        sources=(Source(id="cli", kind="argparse", paths=("examples/a/train.py", "examples/b/train.py")),),
    )
    files = {
        "examples/a/train.py": cli(*a_flags),
        "examples/b/train.py": cli(*b_flags),
        "examples/a/README.md": "```bash\npython examples/a/train.py --lr 1 --epochs 2\n```\n",
        "examples/b/README.md": "```bash\npython examples/b/train.py --lr 1 --epochs 2\n```\n",
    }
    return both, files


def test_a_new_flag_of_one_sibling_script_is_news_only_on_the_page_that_runs_it():
    flags = ("'--lr'", "'--epochs'", "'--batch'")
    both, base = _siblings(flags, flags)
    head = dict(base, **{"examples/a/train.py": cli(*flags, "'--warmup'")})
    found = judge(both, base, head)
    assert [(f.kind, f.symbol) for f in found] == [("new-flag", "--warmup")]
    assert "examples/a/README.md" in found[0].message


def test_a_flag_removed_from_one_sibling_is_reported_where_that_script_is_documented():
    from bot.core.check import check
    from bot.trees.memory import MemoryTree
    from tests.core.check.checkkit import changes_between

    flags = ("'--lr'", "'--epochs'", "'--batch'")
    both, base = _siblings(flags, flags)
    head = dict(base, **{"examples/b/train.py": cli("'--lr'", "'--batch'")})
    found = check([both], MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings
    assert [(f.kind, f.symbol, f.doc and f.doc.path) for f in found] == [
        ("removed", "--epochs", "examples/b/README.md")
    ]


def test_a_default_is_compared_with_the_flag_of_the_script_the_page_runs():
    from bot.core.check import check
    from bot.trees.memory import MemoryTree
    from tests.core.check.checkkit import changes_between

    both, base = _siblings(("'--lr', default=0.001", "'--epochs'"), ("'--lr', default=0.0001", "'--epochs'"))
    page = base["examples/b/README.md"] + "\n`--lr` defaults to `0.0001`.\n"
    head = dict(base, **{"examples/b/README.md": page})
    assert check([both], MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings == ()
    wrong = dict(base, **{"examples/b/README.md": page.replace("0.0001", "0.001")})
    found = check([both], MemoryTree(base), MemoryTree(wrong), changes_between(base, wrong)).findings
    assert [(f.kind, f.symbol, f.code.path) for f in found] == [
        ("wrong-default", "--lr", "examples/b/train.py")
    ]


def test_a_new_choice_gets_its_bullet_in_a_bullet_list_of_the_choices():
    two = cli("'--backend', choices=['fsdp', 'megatron'], default='fsdp'")
    three = cli("'--backend', choices=['fsdp', 'megatron', 'jax'], default='fsdp'")
    listed = "`--backend` takes one of:\n\n- `fsdp`: torch FSDP2\n- `megatron`: Megatron-LM\n"
    [f] = judge(rule(), {CLI: two, DOC: listed}, {CLI: three, DOC: listed})
    assert (f.kind, f.symbol) == ("undocumented", "jax")
    assert f.suggestion.replacement == "- `megatron`: Megatron-LM\n- `jax`"
    # Choices written in a sentence get the finding and no line to copy.
    sentence = "`--backend` is `fsdp` or `megatron`.\n"
    [f] = judge(rule(), {CLI: two, DOC: sentence}, {CLI: three, DOC: sentence})
    assert (f.kind, f.symbol, f.suggestion) == ("undocumented", "jax", None)
