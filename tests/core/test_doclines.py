"""Reading and rewriting doc lines."""

from __future__ import annotations

from bot.core.doclines import (
    enumerating_line,
    first_cell_token,
    flag_aliases,
    normalize_default,
    paragraph,
    replace_token,
)
from bot.core.page import parse_doc


def test_replace_token_leaves_longer_flags_and_names_alone():
    line = "`--offload-train` / `--offload-train-target disk` and offload_train"
    assert replace_token(line, "--offload-train", "--offload") == (
        "`--offload` / `--offload-train-target disk` and offload_train"
    )


def test_default_values_compare_as_the_code_means_them():
    assert normalize_default("off") == normalize_default("False") == "False"
    assert normalize_default("`on`") == "True"
    assert normalize_default("'gloo'") == "gloo"
    assert normalize_default("1.0") == normalize_default("1") == "1"
    assert normalize_default("2e-5") == "2e-05"
    assert normalize_default(None) is None


def test_first_cell_holding_one_token_only():
    assert first_cell_token("| `cp` | `--context-parallel-size` |") == "cp"
    assert first_cell_token("| `sleep` / `wake_up` | Move the model |") is None
    assert first_cell_token("| Model splitting | x |") is None


PAGE = """\
# Mesh

| Dimension | How you set it |
|---|---|
| `dp_replicate` | `--dp-replicate-size` |
| `dp_shard` | derived |

The model fits under `dp_replicate` × `dp_shard`,
which is all there is.

Another paragraph.
"""


def test_paragraph_bounds_and_the_line_that_lists_a_set():
    doc = parse_doc("d.md", PAGE)
    assert paragraph(doc, 9) == (8, 9)
    refs = [r for r in doc.refs if r.token in ("dp_replicate", "dp_shard")]
    # The table column lists them one per row: a new member goes after its last row.
    assert enumerating_line(refs) == 6


def test_a_table_row_ties_a_name_to_its_flag():
    assert flag_aliases(parse_doc("d.md", PAGE)) == {"dp_replicate": "--dp-replicate-size"}
