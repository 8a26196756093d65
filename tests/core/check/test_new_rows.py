"""A new flag or value on a page that lists its siblings gets its line in the page's own format:
the row of a table (with or without a default column) or a bullet, beside the sibling declared
next to it, described by `help=` or a dataclass field's comments. A page that does not say how
gets no suggestion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.core.check.findings import Findings
from bot.core.check.new_rows import escaped, one_line
from bot.core.check.undocumented import undocumented
from bot.core.model import Finding
from bot.core.rules import Rule, Source
from tests.core.check.checkkit import CLI, DOC, cli, line_of, prepare, rule


def judge(rule_: Rule, base: dict[str, str], head: dict[str, str]) -> list[Finding]:
    inputs = prepare(rule_, base, head)
    out = Findings(rule_)
    for page in inputs.pages:
        undocumented(inputs, page, set(), out)  # nothing is renamed here: every new flag is new
    return out.finish()


def only(rule_: Rule, page: str, base_cli: str, head_cli: str, path: str = CLI) -> Finding:
    [f] = judge(rule_, {DOC: page, path: base_cli}, {DOC: page, path: head_cli})
    return f


def added(page: str, f: Finding) -> list[str]:
    """The page's lines once the suggestion is applied."""
    assert f.suggestion is not None and f.doc is not None
    s = f.suggestion
    assert (s.path, s.start_line, s.end_line) == (DOC, f.doc.line, f.doc.line)
    lines = page.splitlines()
    return lines[: s.start_line - 1] + s.replacement.split("\n") + lines[s.end_line :]


DEFAULTS_TABLE = """\
# Options

| Flag | Default | Description |
|---|---|---|
| `--lr` | `0.001` | Learning rate. |
| `--seed` | `42` | Random seed. |
| `--warmup` | `0` | Warmup steps. |
"""


def test_a_table_with_defaults_in_backticks_gets_the_row_after_the_flag_declared_before():
    base = cli("'--lr', default=0.001", "'--seed', default=42", "'--warmup', default=0")
    head = cli(
        "'--lr', default=0.001",
        "'--seed', default=42",
        "'--max-tokens', type=int, default=4096, help='Longest sequence, in tokens'",
        "'--warmup', default=0",
    )
    f = only(rule(), DEFAULTS_TABLE, base, head)
    assert (f.kind, f.symbol, f.doc.line) == ("new-flag", "--max-tokens", line_of(DEFAULTS_TABLE, "`--seed`"))
    assert f.suggestion.replacement == (
        "| `--seed` | `42` | Random seed. |\n| `--max-tokens` | `4096` | Longest sequence, in tokens. |"
    )


def test_a_switch_and_a_missing_default_are_written_as_the_table_writes_them():
    page = """\
| Flag | Default | Description |
|---|---|---|
| `--offload` | `false` | Offload to CPU. |
| `--name` | `None` | Run name. |
"""
    base = cli("'--offload', action='store_true'", "'--name'")
    head = cli(
        "'--offload', action='store_true'", "'--pin', action='store_true', help='Pin memory'", "'--name'"
    )
    f = only(rule(), page, base, head)
    assert added(page, f)[3] == "| `--pin` | `false` | Pin memory. |"  # the page's spelling of False
    head = cli("'--offload', action='store_true'", "'--tag', help='A label'", "'--name'")
    assert added(page, only(rule(), page, base, head))[3] == "| `--tag` | `None` | A label. |"


MEMORY_TABLE = """\
Memory:

| Flag | Effect |
|---|---|
| `--offload` | Offload parameters to CPU. |
| `--cpu-backend gloo` | Process group backend for the offload. |
"""


def test_a_table_without_a_default_column_writes_the_default_where_its_rows_do():
    base = cli("'--offload', action='store_true'", "'--cpu-backend', default='gloo'")
    switch = cli(
        "'--offload', action='store_true'",
        "'--pin', action='store_true', help='pin host memory'",
        "'--cpu-backend', default='gloo'",
    )
    f = only(rule(), MEMORY_TABLE, base, switch)
    # A switch has no value; the sentence case and final period are the rows'.
    assert added(MEMORY_TABLE, f)[5] == "| `--pin` | Pin host memory. |"
    valued = cli(
        "'--offload', action='store_true'",
        "'--threads', type=int, default=4, help='CPU threads for the optimizer step.'",
        "'--cpu-backend', default='gloo'",
    )
    f = only(rule(), MEMORY_TABLE, base, valued)
    # `--cpu-backend gloo` writes its default after the flag: so does the new row.
    assert added(MEMORY_TABLE, f)[5] == "| `--threads 4` | CPU threads for the optimizer step. |"
    small = cli(
        "'--offload', action='store_true'",
        "'--eps', type=float, default=1e-5, help='Epsilon.'",
        "'--cpu-backend', default='gloo'",
    )
    assert added(MEMORY_TABLE, only(rule(), MEMORY_TABLE, base, small))[5] == "| `--eps 1e-5` | Epsilon. |"


def test_a_pipe_and_markup_in_the_help_text_are_escaped():
    base = cli("'--offload', action='store_true'", "'--cpu-backend', default='gloo'")
    head = cli(
        "'--offload', action='store_true'",
        "'--dir', default='/tmp', help='Where to spill: <dir> | {auto}, default %(default)s.'",
        "'--cpu-backend', default='gloo'",
    )
    f = only(rule(), MEMORY_TABLE, base, head)
    row = added(MEMORY_TABLE, f)[5]
    assert row == r"| `--dir /tmp` | Where to spill: \<dir> \| \{auto\}, default /tmp. |"
    assert row.count("|") - row.count(r"\|") == 3  # still two cells
    assert one_line("a\n   b  %(default)s 50%%", "4") == "a b 4 50%"


def test_escapes_follow_markdown_in_a_cell_and_in_a_bullet():
    text = "Use `a|b` or <dir> | {x}, `<kept>`; \\| stays one"
    # In a cell GFM splits on every pipe, code spans too, and drops the backslash there.
    assert escaped(text, cell=True) == r"Use `a\|b` or \<dir> \| \{x\}, `<kept>`; \| stays one"
    # In a bullet a pipe is text, and a code span is shown exactly as written.
    assert escaped(text, cell=False) == r"Use `a|b` or \<dir> | \{x\}, `<kept>`; \| stays one"
    assert escaped("an `unclosed <span", cell=False) == r"an `unclosed \<span"


BULLETS = """\
## Options

- `--lr`: Learning rate.
- `--seed`: Random seed, used by
  every worker.
- `--warmup`: Warmup steps.
"""


def test_a_bullet_list_gets_a_bullet_after_the_whole_item_of_its_neighbour():
    base = cli("'--lr'", "'--seed'", "'--warmup'")
    head = cli("'--lr'", "'--seed'", "'--max-tokens', help='longest sequence'", "'--warmup'")
    f = only(rule(), BULLETS, base, head)
    assert f.doc.line == line_of(BULLETS, "every worker")  # the item's last line
    assert added(BULLETS, f)[4:7] == [
        "  every worker.",
        "- `--max-tokens`: Longest sequence.",
        "- `--warmup`: Warmup steps.",
    ]


def test_a_flag_declared_first_goes_before_the_first_row():
    base = cli("'--lr'", "'--seed'", "'--warmup'")
    head = cli("'--device', help='Where to run.'", "'--lr'", "'--seed'", "'--warmup'")
    f = only(rule(), BULLETS, base, head)
    assert f.doc.line == line_of(BULLETS, "`--lr`")
    assert f.suggestion.replacement == "- `--device`: Where to run.\n- `--lr`: Learning rate."


CHOICES = """\
| Value | Class | What it is | Default |
|---|---|---|---|
| [`megatron`](#megatron) | `MegatronActor` | Megatron-LM | ✅ |
| [`fsdp`](#fsdp) | `FSDPActor` | PyTorch FSDP2 | |
"""


def test_a_new_choice_gets_a_row_where_the_page_lists_the_values():
    base = cli("'--backend', choices=['megatron', 'fsdp'], default='megatron'")
    head = cli("'--backend', choices=['megatron', 'fsdp', 'jax'], default='megatron'")
    f = only(rule(), CHOICES, base, head)
    assert (f.kind, f.symbol, f.doc.line) == ("undocumented", "jax", line_of(CHOICES, "`fsdp`"))
    # Not the default: no checkmark; the code says nothing of its class or what it is.
    assert added(CHOICES, f)[4] == "| `jax` | | | |"
    head = cli("'--backend', choices=['jax', 'megatron', 'fsdp'], default='jax'")
    f = only(rule(), CHOICES, base, head)
    assert f.doc.line == line_of(CHOICES, "`megatron`")  # declared first: the first row
    assert added(CHOICES, f)[2] == "| `jax` | | | ✅ |"


def test_a_new_flag_between_two_a_table_lists_is_news_though_the_page_cites_few_of_its_parser():
    knobs = [f"'--knob-{i}'" for i in range(10)]
    base = cli(*knobs, "'--offload', action='store_true'", "'--cpu-backend', default='gloo'")
    head = cli(
        *knobs,
        "'--offload', action='store_true'",
        "'--pin', action='store_true', help='Pin host memory.'",
        "'--cpu-backend', default='gloo'",
        "'--knob-late'",
    )
    [f] = judge(rule(), {DOC: MEMORY_TABLE, CLI: base}, {DOC: MEMORY_TABLE, CLI: head})
    assert (f.kind, f.symbol, f.severity) == ("new-flag", "--pin", "notice")
    assert added(MEMORY_TABLE, f)[5] == "| `--pin` | Pin host memory. |"
    # `--knob-late` follows a listed flag, but nothing after it is listed: the page says nothing
    # of it, as of the flags two declarations away from a listed one.


AMBIGUOUS = {
    "flags in prose": "Use `--lr` and `--seed` and `--warmup`.\n",
    "bullets in two styles": "- `--lr`: Learning rate.\n- `--seed` — Random seed.\n- `--warmup`: Warmup.\n",
    "defaults in two styles": (
        "| Flag | Default | Description |\n|---|---|---|\n"
        "| `--lr` | `0.001` | Learning rate. |\n| `--seed` | 42 | Random seed. |\n"
        "| `--warmup` | `0` | Warmup. |\n"
    ),
    "the neighbour in two lists alike": (
        "| Flag | Effect |\n|---|---|\n| `--lr` | Learning rate. |\n| `--seed` | Seed. |\n\n"
        "| Flag | Since |\n|---|---|\n| `--seed` | 0.1 |\n| `--warmup` | 0.2 |\n"
    ),
    "a flag not in the first column": (
        "| Knob | Flag | Effect |\n|---|---|---|\n"
        "| rate | `--lr` | Learning rate. |\n| seed | `--seed` | Seed. |\n"
    ),
    "rows of uneven width": (
        "| Flag | Effect |\n|---|---|\n| `--lr` | Learning rate. | x |\n| `--seed` | Seed. |\n"
    ),
    "bullets that are sentences": "- `--lr` sets the learning rate.\n- `--seed` seeds every worker.\n",
    "defaults stated in the bullets": (
        "- `--lr`: Learning rate, `0.001` by default.\n- `--seed`: Seed, default `42`.\n"
    ),
}


def test_a_page_that_does_not_say_how_gets_no_suggestion():
    base = cli("'--lr', default=0.001", "'--seed', default=42", "'--warmup', default=0")
    head = cli(
        "'--lr', default=0.001",
        "'--seed', default=42",
        "'--max-tokens', help='Longest.'",
        "'--warmup', default=0",
    )
    for name, page in AMBIGUOUS.items():
        f = only(rule(), page, base, head)
        assert (f.kind, f.symbol) == ("new-flag", "--max-tokens"), name
        assert (f.suggestion, f.doc) == (None, None), name


ARGS = "tool/args.py"


BUILDER = """

def build():
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(TrainArgs):
        flag = "--" + f.name.replace("_", "-")
        if f.type is bool:
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
        else:
            p.add_argument(flag, type=f.type, default=f.default)
    return p
"""


def dataclass_args(*fields: str) -> str:
    """A dataclass of these field lines, built into flags by a loop over its fields."""
    body = "".join(f"    {f}\n" for f in fields)
    head = "import argparse\nimport dataclasses\nfrom dataclasses import dataclass\n\n\n"
    return f"{head}@dataclass\nclass TrainArgs:\n{body}{BUILDER}"


def args_rule() -> Rule:
    return rule(
        Source(id="args", kind="dataclass-flags", paths=(ARGS,), dataclass="TrainArgs", builder="build")
    )


FIELDS = (
    "# Memory",
    "offload: bool = False  # If True, offload parameters to CPU.",
    'cpu_backend: str = "gloo"  # Process group backend for the offload.',
)


def test_a_dataclass_built_flag_is_described_by_its_fields_comment():
    base = dataclass_args(*FIELDS)
    head = dataclass_args(
        *FIELDS[:2],
        "reshard: bool = (",
        "    True  # If True, free gathered parameters | after forward",
        ")",
        FIELDS[2],
    )
    f = only(args_rule(), MEMORY_TABLE, base, head, ARGS)
    assert (f.kind, f.symbol) == ("new-flag", "--reshard")
    assert (
        added(MEMORY_TABLE, f)[5] == r"| `--reshard` | If True, free gathered parameters \| after forward. |"
    )


def test_a_comment_block_above_describes_a_field_and_a_section_title_does_not():
    base = dataclass_args(*FIELDS)
    above = dataclass_args(*FIELDS[:2], "# Worker threads for the step.", "threads: int = 4", FIELDS[2])
    f = only(args_rule(), MEMORY_TABLE, base, above, ARGS)
    assert added(MEMORY_TABLE, f)[5] == "| `--threads 4` | Worker threads for the step. |"
    titled = dataclass_args(*FIELDS[:2], "# Threads", "threads: int = 4", FIELDS[2])
    f = only(args_rule(), MEMORY_TABLE, base, titled, ARGS)
    assert added(MEMORY_TABLE, f)[5] == "| `--threads 4` | |"  # nothing to say: the cell is left to fill


def test_values_written_on_one_line_are_in_no_known_order_so_the_new_one_goes_last():
    mesh = Source(
        id="mesh",
        kind="strings",
        paths=("tool/mesh.py",),
        calls=("init_device_mesh",),
        keyword="mesh_dim_names",
        group="mesh dimensions",
        enumerated=True,
    )
    page = "| Dimension | Meaning |\n|---|---|\n| `dp` | data |\n| `tp` | tensor |\n"
    call = "init_device_mesh('cuda', (1,), mesh_dim_names={!r})\n"
    f = only(rule(mesh), page, call.format(("dp", "tp")), call.format(("ep", "dp", "tp")), "tool/mesh.py")
    assert (f.kind, f.symbol, f.doc.line) == ("undocumented", "ep", line_of(page, "`tp`"))
    assert added(page, f)[4] == "| `ep` | |"


def test_a_page_citing_the_negation_of_a_new_switch_documents_it():
    base = cli("'--lr'", "'--seed'")
    head = cli("'--lr'", "'--seed'", "'--fp32-master', action=argparse.BooleanOptionalAction, default=True")
    page = "- `--lr`: Learning rate.\n- `--seed`: Seed.\n- `--no-fp32-master`: Drop the fp32 copy.\n"
    assert judge(rule(), {DOC: page, CLI: base}, {DOC: page, CLI: head}) == []
    bare = "- `--lr`: Learning rate.\n- `--seed`: Seed.\n"
    [f] = judge(rule(), {DOC: bare, CLI: base}, {DOC: bare, CLI: head})
    assert (f.kind, f.symbol) == ("new-flag", "--fp32-master")


def test_two_new_flags_side_by_side_are_both_news_and_their_rows_both_apply():
    knobs = [f"'--knob-{i}'" for i in range(10)]
    base = cli(*knobs, "'--offload', action='store_true'", "'--cpu-backend', default='gloo'")
    head = cli(
        *knobs,
        "'--offload', action='store_true'",
        "'--pin', action='store_true', help='Pin host memory.'",
        "'--spill', action='store_true', help='Spill to disk.'",
        "'--cpu-backend', default='gloo'",
    )
    pin, spill = judge(rule(), {DOC: MEMORY_TABLE, CLI: base}, {DOC: MEMORY_TABLE, CLI: head})
    # The first goes after the row before it, the second before the row after it: both apply.
    assert (pin.symbol, pin.doc.line) == ("--pin", line_of(MEMORY_TABLE, "`--offload`"))
    assert (spill.symbol, spill.doc.line) == ("--spill", line_of(MEMORY_TABLE, "`--cpu-backend gloo`"))
    assert spill.suggestion.replacement.split("\n") == [
        "| `--spill` | Spill to disk. |",
        "| `--cpu-backend gloo` | Process group backend for the offload. |",
    ]


MIXED_TABLE = """\
| Flag | Type | Default | Notes |
|---|---|---|---|
| `--lr` | float | `1e-6` | Learning rate. |
| `--min-lr` | float | `0.0` | Lower bound. |
| `--cpu-adam` | flag | off | CPU Adam, another parser's flag. |
| `--rm-url` | str | – | Endpoint, another parser's flag. |
"""


def test_a_table_writing_each_kind_of_default_its_own_way_is_followed_kind_by_kind():
    base = cli("'--lr', type=float, default=1e-6", "'--min-lr', type=float, default=0.0")

    def row(new: str) -> str:
        head = cli("'--lr', type=float, default=1e-6", new, "'--min-lr', type=float, default=0.0")
        return added(MIXED_TABLE, only(rule(), MIXED_TABLE, base, head))[3]

    # A float as the code writes it (1e-8, not Python's 1e-08), its type as the siblings write theirs.
    assert (
        row("'--eps', type=float, default=1e-8, help='Adam epsilon'")
        == "| `--eps` | float | `1e-8` | Adam epsilon. |"
    )
    # A switch the way the table's other switches are written, though none of them is a sibling.
    assert (
        row("'--amsgrad', action='store_true', help='AMSGrad'") == "| `--amsgrad` | flag | off | AMSGrad. |"
    )
    # No default: the table's dash.
    assert row("'--tag', type=str, help='A label'") == "| `--tag` | str | – | A label. |"


def test_libcst_loads_only_to_describe_a_dataclass_built_flag():
    # A fresh interpreter: which modules a check imports is the point.
    script = """
import sys
from tests.core.check.test_new_rows import *
base = cli("'--offload', action='store_true'", "'--cpu-backend', default='gloo'")
head = cli("'--offload', action='store_true'", "'--pin', action='store_true', help='Pin.'",
           "'--cpu-backend', default='gloo'")
only(rule(), MEMORY_TABLE, base, head)
print("libcst" in sys.modules)
fields = dataclass_args(*FIELDS[:2], "pin: bool = False  # Pin.", FIELDS[2])
only(args_rule(), MEMORY_TABLE, dataclass_args(*FIELDS), fields, ARGS)
print("libcst" in sys.modules)
"""
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False", "True"]


def test_a_table_whose_pipes_line_up_gets_its_new_row_padded():
    page = """\
| Flag            | Effect                   |
|-----------------|--------------------------|
| `--offload`     | Offload parameters.      |
| `--cpu-backend` | Process group backend.   |
"""
    base = cli("'--offload', action='store_true'", "'--cpu-backend', default='gloo'")
    head = cli(
        "'--offload', action='store_true'", "'--pin', action='store_true', help='Pin.'", "'--cpu-backend'"
    )
    row = added(page, only(rule(), page, base, head))[3]
    assert row == "| `--pin`         | Pin.                     |"
    assert [i for i, c in enumerate(row) if c == "|"] == [
        i for i, c in enumerate(page.splitlines()[2]) if c == "|"
    ]
