"""code -> doc: page lines still citing what the change removed, renamed or changed."""

from __future__ import annotations

from bot.core.check.code_to_doc import code_to_doc
from bot.core.check.deltas import deltas
from bot.core.check.findings import Findings
from bot.core.model import Finding
from bot.core.rules import DocTarget, Rule, Source
from tests.core.check.checkkit import CLI, DOC, cli, flags_source, kinds, line_of, prepare, rule


def judge(rule_: Rule, base: dict[str, str], head: dict[str, str]) -> list[Finding]:
    inputs = prepare(rule_, base, head)
    out = Findings(rule_)
    found = deltas(inputs.base_facts, inputs.head_facts)
    for page in inputs.pages:
        code_to_doc(inputs, page, found, out)
    return out.finish()


def code_change(page: str, base_cli: str, head_cli: str) -> list[Finding]:
    return judge(rule(), {DOC: page, CLI: base_cli}, {DOC: page, CLI: head_cli})


def test_a_renamed_flag_suggests_the_new_name_on_each_citing_line():
    page = "Run with `--disable-x`.\n\nOr not: `--lr`.\n"
    base_cli = cli("'--disable-x', dest='x', action='store_false'", "'--lr'")
    head_cli = cli("'--no-x', dest='x', action='store_false'", "'--lr'")
    [f] = code_change(page, base_cli, head_cli)
    assert (f.kind, f.symbol, f.doc.line) == ("renamed", "--disable-x", 1)
    assert f.suggestion.replacement == "Run with `--no-x`."
    assert f.code.line == line_of(head_cli, "--no-x")
    assert f.why.startswith("Both flags set `x` to false")


def test_an_option_in_plain_text_goes_stale_with_its_flag_but_says_nothing_of_its_meaning():
    page = "Run `python tool/cli.py --amp --lr 1`.\n\nNote: --amp defaults to native AMP, --lr to 0.1.\n"
    base_cli = cli("'--amp', action='store_true'", "'--lr', default=0.1")
    head_cli = cli("'--mixed-precision', dest='amp', action='store_true'", "'--lr', default=0.5")
    found = code_change(page, base_cli, head_cli)
    assert [(f.kind, f.symbol, f.doc.line) for f in found] == [
        ("renamed", "--amp", 1),
        ("renamed", "--amp", 3),
    ]
    assert found[1].suggestion.replacement == "Note: --mixed-precision defaults to native AMP, --lr to 0.1."


def test_a_removed_flag_in_prose_has_no_suggestion_and_its_own_table_row_is_deleted():
    page = "Use `--seed` for repeatable runs.\n\n| Flag | Meaning |\n|---|---|\n| `--seed` | the seed |\n"
    [prose, row] = code_change(page, cli("'--seed'", "'--lr'"), cli("'--lr'"))
    assert kinds([prose, row]) == [("removed", "--seed")] * 2
    assert prose.suggestion is None
    assert row.doc.line == 5 and row.suggestion.replacement == ""
    assert "Rule `cli-page` reads tool/cli.py" in row.why


def test_a_flag_another_source_still_defines_is_not_gone():
    launcher = "tool/launch.py"
    two = rule(flags_source(CLI), flags_source(launcher, id="launcher"))
    page = "Use `--seed`.\n"
    base = {DOC: page, CLI: cli("'--seed'", "'--lr'"), launcher: cli("'--seed'")}
    head = dict(base, **{CLI: cli("'--lr'")})
    assert judge(two, base, head) == []


def test_a_choice_the_flag_dropped_is_flagged_where_a_line_passes_it():
    page = "Run `--backend fsdp` or `--backend megatron`.\n"
    base_cli = cli("'--backend', choices=['fsdp', 'megatron']")
    head_cli = cli("'--backend', choices=['megatron']")
    found = code_change(page, base_cli, head_cli)
    assert kinds(found) == [("changed", "--backend fsdp")]
    assert found[0].message == "`fsdp` is no longer a choice of `--backend` (choices: megatron)"
    # choices no longer read (a Literal moved behind an alias) or dropped: every value is taken
    assert code_change(page, base_cli, cli("'--backend', type=str")) == []


def test_a_choice_rewritten_in_another_case_is_still_taken_when_click_folds_case():
    page = "Pass `--kind POLYGON` for an area.\n"
    module = (
        "import click\n\n@click.command()\n"
        "@click.option('--kind', type=click.Choice([{}]{}))\ndef shape(kind):\n    pass\n"
    )
    clicked = rule(Source(id="cli", kind="click", paths=(CLI,)))
    base = {DOC: page, CLI: module.format("'POINT', 'POLYGON'", ", case_sensitive=False")}
    head = {DOC: page, CLI: module.format("'point', 'polygon'", ", case_sensitive=False")}
    assert judge(clicked, base, head) == []
    # Matched case-sensitively (click's default), `POLYGON` is no longer taken.
    base = {DOC: page, CLI: module.format("'POINT', 'POLYGON'", "")}
    head = {DOC: page, CLI: module.format("'point', 'polygon'", "")}
    assert kinds(judge(clicked, base, head)) == [("changed", "--kind POLYGON")]


def test_an_option_every_subcommand_shares_renamed_is_stale_in_each_subcommand_s_listing():
    # One option a decorator gives two subcommands, renamed: each subcommand's help listing
    # (a row after another row's wrapped help) is stale, and a line naming neither hears once.
    module = (
        "import click\n\n\ndef output_options(fn):\n"
        "    for d in reversed((click.option('--nl', is_flag=True),\n"
        "                       click.option('--json-cols', is_flag=True))):\n"
        "        fn = d(fn)\n    return fn\n\n\n@click.group()\ndef cli():\n    pass\n\n\n"
        "@cli.command()\n@output_options\ndef query():\n    pass\n\n\n"
        "@cli.command()\n@output_options\ndef rows():\n    pass\n"
    )
    listing = (
        "::\n\n    Usage: tool {} [OPTIONS]\n\n    Options:\n"
        "      --nl         Lines of\n                   JSON\n      --json-cols  Detect\n\n"
    )
    page = "Query\n=====\n\n" + listing.format("query") + "Rows\n====\n\n" + listing.format("rows")
    page += "Also\n====\n\nPass ``--json-cols`` to detect.\n"
    doc = "docs/ref.rst"
    clicked = rule(Source(id="cli", kind="click", paths=(CLI,)), docs=(DocTarget(doc),))
    project = {"pyproject.toml": '[project]\nname = "tool"\n[project.scripts]\ntool = "tool.cli:cli"\n'}
    base = {doc: page, CLI: module, **project}
    found = judge(clicked, base, dict(base, **{CLI: module.replace("'--json-cols'", "'--json-columns'")}))
    assert [(f.kind, f.doc.line) for f in found] == [
        ("renamed", line_of(page, "--json-cols  Detect")),
        ("renamed", page.splitlines().index("      --json-cols  Detect", 12) + 1),
        ("renamed", line_of(page, "Pass ``--json-cols``")),
    ]


def test_a_value_that_no_longer_fits_the_flags_type_is_flagged():
    page = "Pass `--ratio 0.5`, or `--steps 10`.\n"
    base_cli = cli("'--ratio', type=float", "'--steps', type=int")
    head_cli = cli("'--ratio', type=int", "'--steps', type=float")
    assert kinds(code_change(page, base_cli, head_cli)) == [("changed", "--ratio 0.5")]


def test_a_flipped_switch_is_flagged_where_the_page_cites_it():
    page = "Pass `--offload` to save memory.\n"
    base_cli = cli("'--offload', action=argparse.BooleanOptionalAction, default=False")
    head_cli = cli("'--offload', action=argparse.BooleanOptionalAction, default=True")
    [f] = code_change(page, base_cli, head_cli)
    assert (f.kind, f.symbol) == ("changed", "--offload")
    assert "passing it no longer changes anything" in f.message


def test_a_click_flag_whose_default_flips_is_said_once_to_set_the_other_value():
    # click's `is_flag=True` sets the opposite of its default: with default=True, passing
    # `--reload` sets False, so the line passing it now does the opposite, not nothing.
    page = "Pass `--reload` while developing.\n"
    module = (
        "import click\n\n@click.command()\n@click.option('--reload', is_flag=True, default={})\n"
        "def main(reload):\n    pass\n"
    )
    clicked = rule(Source(id="cli", kind="click", paths=(CLI,)))
    [f] = judge(clicked, {DOC: page, CLI: module.format(False)}, {DOC: page, CLI: module.format(True)})
    assert (f.kind, f.symbol) == ("changed", "--reload")
    assert (
        f.message == "`--reload` now sets `reload` to false (it set true); the doc describes the old polarity"
    )


def test_a_default_claim_true_at_base_and_false_at_head_is_rewritten():
    page = "`--backend` defaults to `fsdp`.\n"
    base_cli = cli("'--backend', choices=['fsdp', 'megatron'], default='fsdp'")
    head_cli = cli("'--backend', choices=['fsdp', 'megatron'], default='megatron'")
    [f] = code_change(page, base_cli, head_cli)
    assert (f.kind, f.symbol) == ("changed", "--backend")
    assert f.suggestion.replacement == "`--backend` defaults to `megatron`."
    # A claim that was already wrong at base is not this change's doing.
    assert code_change("`--backend` defaults to `ddp`.\n", base_cli, head_cli) == []


def test_a_bare_value_is_a_claim_only_when_one_flag_offers_it():
    page = "Training uses `fsdp` by default.\n"
    one = cli("'--backend', choices=['fsdp', 'megatron'], default='fsdp'")
    moved = cli("'--backend', choices=['fsdp', 'megatron'], default='megatron'")
    [f] = code_change(page, one, moved)
    assert f.suggestion.replacement == "Training uses `megatron` by default."
    two = one + "p.add_argument('--fallback', choices=['fsdp', 'ddp'])\n"
    assert code_change(page, two, moved + "p.add_argument('--fallback', choices=['fsdp', 'ddp'])\n") == []


def test_a_dropped_choice_counts_only_where_it_is_cited_as_that_flags_choice():
    base_cli = cli("'--backend', choices=['fsdp', 'megatron']")
    head_cli = cli("'--backend', choices=['megatron']")
    in_passing = "The `fsdp` paper explains sharding.\n"
    assert code_change(in_passing, base_cli, head_cli) == []
    beside_its_flag = "`--backend` accepts `fsdp`\nand `megatron`.\n"
    assert kinds(code_change(beside_its_flag, base_cli, head_cli)) == [("removed", "fsdp")]
    table = "| Backend | Notes |\n|---|---|\n| `fsdp` | sharded |\n| `megatron` | parallel |\n"
    [row] = code_change(table, base_cli, head_cli)
    assert (row.kind, row.symbol, row.suggestion.replacement) == ("removed", "fsdp", "")


def test_a_choice_dropped_from_a_set_the_doc_writes_is_named():
    page = "Pass `--mixed_precision {no,fp16,bf16}`.\n"
    base_cli = cli("'--mixed_precision', choices=['no', 'fp16', 'bf16']")
    head_cli = cli("'--mixed_precision', choices=['no', 'fp16']")
    assert kinds(code_change(page, base_cli, head_cli)) == [("changed", "--mixed_precision bf16")]
    # The line as the pull request fixed it says nothing wrong.
    assert code_change("Pass `--mixed_precision {no,fp16}`.\n", base_cli, head_cli) == []


def test_a_metavar_after_a_flag_is_no_value_claim():
    page = "### `--timeout VALUE`\n\n### `--voice-format VOICE_FORMAT`\n"
    base_cli = cli("'--timeout', type=int", "'--voice-format', choices=['wav', 'mp3']")
    head_cli = cli("'--timeout', type=float", "'--voice-format', choices=['wav', 'webm']")
    assert code_change(page, base_cli, head_cli) == []


def test_a_flipped_switch_is_said_once_a_section_and_not_where_the_line_names_both_halves():
    page = (
        "    [--offload | --no-offload]\n\n"
        "## `--offload`\n\nOffload the weights.\n\n- `--offload`\n- `--no-offload`\n"
    )
    base_cli = cli("'--offload', action=argparse.BooleanOptionalAction, default=False")
    head_cli = cli("'--offload', action=argparse.BooleanOptionalAction, default=True")
    [f] = code_change(page, base_cli, head_cli)
    assert (f.kind, f.symbol, f.doc.line) == ("changed", "--offload", 3)
    # `--no-offload` starts to matter: that makes no line wrong.
    assert code_change("Pass `--no-offload`.\n", base_cli, head_cli) == []


def test_a_default_claim_with_a_unit_is_compared_in_bytes_and_rewritten_in_its_unit():
    page = "`--cache-size` defaults to `512 MB`.\n"
    base_cli = cli(f"'--cache-size', type=int, default={512 * 1024**2}")
    head_cli = cli(f"'--cache-size', type=int, default={1024**3}")
    [f] = code_change(page, base_cli, head_cli)
    assert f.suggestion.replacement == "`--cache-size` defaults to `1024 MB`."


def test_flags_moved_to_a_module_the_rule_does_not_read_are_not_removed():
    page = "### `--opus`\n\n### `--seed`\n"
    moved = "def add_deprecated(parser):\n    parser.add_argument('--opus', action='store_true')\n"
    base = {DOC: page, CLI: cli("'--opus', action='store_true'", "'--seed'")}
    head = {DOC: page, CLI: cli("'--seed'"), "tool/deprecated.py": moved}
    assert judge(rule(), base, head) == []
    # Gone for good, it is reported.
    assert kinds(judge(rule(), base, dict(head, **{"tool/deprecated.py": "x = 1\n"}))) == [
        ("removed", "--opus")
    ]


def test_choices_moved_into_a_type_function_are_unknown_not_removed():
    page = "| `--cache` | `true`, `refresh` or `delete` |\n"
    base_cli = cli("'--cache', choices=['true', 'refresh', 'delete']")
    head_cli = "def mode(v):\n    return v\n\n" + cli("'--cache', type=mode")
    assert code_change(page, base_cli, head_cli) == []
    # A choice dropped from a list that is still a list is removed.
    fewer = cli("'--cache', choices=['true', 'refresh']")
    assert kinds(code_change(page, base_cli, fewer)) == [("removed", "delete")]


def _suggested(base_code: str, head_code: str, page: str) -> list[tuple[str, str, str | None]]:
    found = judge(rule(), {CLI: base_code, DOC: page}, {CLI: head_code, DOC: page})
    return [(f.kind, f.symbol, f.suggestion.replacement if f.suggestion else None) for f in found]


def test_a_changed_default_rewrites_the_rows_default_cell_and_no_other_cell():
    base = cli("'--batch-size', type=int, default=8", "'--lr', type=float, default=0.1")
    head = cli("'--batch-size', type=int, default=16", "'--lr', type=float, default=0.1")
    table = "| Flag | Default | What |\n|---|---|---|\n"
    table += "| `--batch-size` | `8` | batch |\n| `--lr` | `0.1` | rate |\n"
    assert _suggested(base, head, table) == [("changed", "--batch-size", "| `--batch-size` | `16` | batch |")]
    # A row about the old default (its key cell writes it, its prose says what it does):
    # found, not rewritten.
    prose = "| Flag | What |\n|---|---|\n| `--batch-size 8` | Default: fits one GPU |\n| `--lr` | rate |\n"
    assert _suggested(base, head, prose) == [("changed", "--batch-size", None)]


def test_a_removed_flags_bullet_or_command_argument_is_suggested_away():
    base, head = cli("'--lr'", "'--seed'", "'--old-knob'"), cli("'--lr'", "'--seed'")
    bullets = "Flags:\n\n- `--lr`: rate\n- `--old-knob`: a knob\n- `--seed`: seed\n"
    assert _suggested(base, head, bullets) == [("removed", "--old-knob", "")]
    continued = "```bash\npython tool/cli.py --lr 1 \\\n  --old-knob 3 \\\n  --seed 2\n```\n"
    assert _suggested(base, head, continued) == [("removed", "--old-knob", "")]
    one_line = "```bash\npython tool/cli.py --lr 1 --old-knob=3 --seed 2\n```\n"
    assert _suggested(base, head, one_line) == [
        ("removed", "--old-knob", "python tool/cli.py --lr 1 --seed 2")
    ]
    # Where the page does not say where the item ends, no suggestion: a bullet that goes on, one
    # that documents another flag too, the last line of a command (its line above ends in `\`).
    goes_on = "- `--old-knob`: a knob\n  that goes on\n- `--lr`: rate\n"
    shared = "- `--old-knob` and `--lr`: both\n- `--seed`: seed\n"
    last = "```bash\npython tool/cli.py --lr 1 \\\n  --old-knob 3\n```\n"
    for page in (goes_on, shared, last):
        assert _suggested(base, head, page) == [("removed", "--old-knob", None)], page


def test_a_choice_added_or_removed_in_a_bullet_list_of_choices():
    two = cli("'--backend', choices=['fsdp', 'megatron'], default='fsdp'")
    three = cli("'--backend', choices=['fsdp', 'megatron', 'jax'], default='fsdp'")
    listed = "`--backend` takes one of:\n\n- `fsdp`: torch FSDP2\n- `megatron`: Megatron-LM\n"
    with_jax = listed + "- `jax`: JAX\n"
    assert _suggested(three, two, with_jax) == [("removed", "jax", "")]
    # A value cited in passing, in a list of something else, is no choice of the flag.
    passing = "Backends:\n\n- `jax` is not supported\n- `torch` is\n"
    assert _suggested(three, two, passing) == []


def test_a_help_option_declared_by_hand_then_left_to_argparse_is_still_there():
    page = "Pass `--help` for every option, or `-h`.\n"
    by_hand = (
        "import argparse\n\ndef parser(add_help=False):\n"
        "    p = argparse.ArgumentParser(add_help=add_help)\n"
        "    p.add_argument('-h', '--help', action='help')\n    p.add_argument('--lr')\n    return p\n"
    )
    own = "import argparse\n\ndef parser(add_help=True):\n"
    own += "    p = argparse.ArgumentParser(add_help=add_help)\n    p.add_argument('--lr')\n    return p\n"
    assert code_change(page, by_hand, own) == []
    # a parser told to add none has none
    none = own.replace("add_help=add_help", "add_help=False")
    assert kinds(code_change(page, by_hand, none)) == [("removed", "--help"), ("removed", "-h")]


def test_a_switch_renamed_for_its_opposite_is_renamed_without_putting_the_new_name_in():
    page = "With the new `--modern-ui`, the picker configures each user.\n"
    base_cli = cli("'--modern-ui', action='store_true', default=False", "'--lr'")
    head_cli = cli("'--legacy-ui', action='store_true', default=False", "'--lr'")
    [f] = code_change(page, base_cli, head_cli)
    assert (f.kind, f.symbol, f.suggestion) == ("renamed", "--modern-ui", None)
    assert "says the opposite" in f.message
    # a rename keeping the sense still puts the new name in
    [g] = code_change(page, base_cli, cli("'--modern-web-ui', action='store_true', default=False", "'--lr'"))
    assert g.suggestion is not None and "--modern-web-ui" in g.suggestion.replacement


def test_a_bullet_list_of_a_removed_flags_choices_is_about_them_only_where_the_flag_is_named():
    base = cli("'--torch-dtype', choices=['auto', 'float16', 'bfloat16']")
    head = cli("'--lr'")
    types = "## Data types\n\n- `float16`, accumulated in `float16`\n- `bfloat16`, in `float32`\n"
    assert _suggested(base, head, types) == []
    # the same list under a section naming the flag lists its choices
    choices = "## `--torch-dtype`\n\nOne of:\n\n- `float16`: half\n- `bfloat16`: brain float\n"
    assert [k for k, s, _ in _suggested(base, head, choices)].count("removed") == 3
