"""Reading and rewriting doc lines."""

from __future__ import annotations

from bot.core.doclines import (
    cited_values,
    enumerating_line,
    first_cell_token,
    flag_aliases,
    in_unit_of,
    normalize_default,
    paragraph,
    replace_token,
    same_default,
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
    assert normalize_default("[train_overall]") == normalize_default("['train_overall']")
    assert normalize_default("(0.9, 0.95)") == normalize_default("[0.9,0.95]")


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
    # A flag named in a sentence of a row about something else is no alias of it.
    env = "| Variable | Default | What |\n|---|---|---|\n| `SKIP` | `0` | Set to `1` to skip `--check` |\n"
    assert flag_aliases(parse_doc("d.md", env)) == {}


def test_the_values_a_doc_gives_a_flag_one_a_set_alternatives_or_none_for_a_placeholder():
    assert cited_values("fp16") == ["fp16"]
    assert cited_values("{no,fp16,bf16}") == cited_values("{no, fp16, bf16}") == ["no", "fp16", "bf16"]
    assert cited_values("fp16|bf16") == cited_values("[fp16|bf16]") == ["fp16", "bf16"]
    # Metavars say how to pass a value, not which: `--timeout VALUE`, `--voice-format VOICE_FORMAT`.
    assert cited_values("VALUE") == cited_values("VOICE_FORMAT") == cited_values("N") == []
    assert cited_values("<path>") == cited_values("{a,<b>}") == cited_values(None) == []
    # One word in brackets is a template's placeholder (`--dtypes {dtype_1} {dtype_2}`), not a set.
    assert cited_values("{dtype_1}", ["float32", "int8"]) == cited_values("[N]") == []
    assert cited_values("{int8}", ["float32", "int8"]) == ["int8"]
    assert cited_values("[fp8 | bf16]") == ["fp8", "bf16"]
    # ...unless the flag's choices are written in capitals.
    assert cited_values("INFO", ["DEBUG", "INFO"]) == ["INFO"]
    # Alternatives written with slashes, as prose says "or", when one of them is a choice (a
    # misspelt one is then said alone); a path is one value.
    tasks = ["train", "eval", "data"]
    assert cited_values("train/eval/data", tasks) == tasks
    assert cited_values("train/evl", tasks) == ["train", "evl"]
    assert cited_values("configs/train.yaml", tasks) == ["configs/train.yaml"]
    assert cited_values("data/train.json") == ["data/train.json"]


def test_a_size_with_a_unit_is_the_number_of_bytes_it_says():
    assert same_default("1 GB", "1073741824") and same_default("1GB", "1000000000")
    assert same_default("512MiB", str(512 * 1024**2)) and same_default("off", "False")
    assert not same_default("512 MB", "1073741824") and not same_default("fast", "1073741824")
    # a Python literal written another way: a raw string, a dict in other quotes and order
    assert same_default("r'(?P<date>\\d{4}).*'", "(?P<date>\\d{4}).*")
    assert same_default('{"b": None, "a": 1}', "{'a': 1, 'b': None}")
    assert not same_default('{"a": 2}', "{'a': 1}") and not same_default("r'x'", "y")
    assert not same_default("(1)", "True")  # a number is no switch
    # A suggested default is written in the doc's unit when the number allows it.
    assert in_unit_of("512 MB", "1073741824") == "1024 MB"
    assert in_unit_of("2G", "1073741824") == "1G"
    assert in_unit_of("512 MB", "1000") == "1 KB" and in_unit_of("fast", "3") == "3"


def test_cited_values_read_through_character_references_and_a_line_continuation():
    from bot.core.doclines import cited_values

    assert cited_values("&#123;0|1|2&#125;", ["0", "1", "2"]) == ["0", "1", "2"]
    assert cited_values("mooncake\\", ["file", "mooncake"]) == ["mooncake"]


def test_a_part_of_the_page_kept_for_history_says_so_in_its_heading_or_its_opening_note():
    from bot.core.doclines import kept_for_history
    from bot.core.page import parse_doc

    doc = parse_doc(
        "docs/rl.md",
        "# RL\n\nRun `train.py --lr 1`.\n\n"  # 3
        "## RLVR\n\n"  # 5
        "> **Note**: These commands use the legacy `old_train.py` script, which has since been "
        "removed. They are preserved here for historical reference.\n\n"  # 7
        "### 1B\n\n`python old_train.py --zpg 8`\n\n"  # 9, 11
        "## Current\n\n`python train.py --lr 2`\n\n"  # 13, 15
        "## Old examples\n\n`python older.py`\n\n"  # 17, 19
        "## Notes\n\nWe used an older version of the data.\n\n`python train.py --lr 3`\n"  # 21, 23, 25
        "## Accessing the Legacy Frontend\n\n`python train.py --frontend old`\n\n"  # 26, 28
        "## 2. Deprecated options\n\n`--zpg 8`\n\n"  # 30, 32
        "## Training (legacy)\n\n`--zpg 8`\n"  # 34, 36
        "## Migrating from the old trainer\n\n`--zpg` is gone.\n"  # 37, 39
        "## The old way\n\n`--zpg 8`\n",  # 40, 42
    )
    kept = [n for n in range(1, len(doc.lines) + 1) if kept_for_history(doc, n)]
    assert {11, 19, 32, 36, 39, 42} <= set(kept)  # under the note (a subsection too), under the headings
    # Before it, in the next section, "older version of the data"; a section about a legacy
    # thing, how to use it today.
    assert not {3, 15, 25, 28} & set(kept)


def test_a_guide_from_an_older_release_keeps_the_flags_it_tells_readers_to_drop():
    from bot.core.doclines import kept_for_history
    from bot.core.page import parse_doc

    guide = parse_doc(
        "docs/guides/v5.md",
        "# Upgrading to 5.0\n\n## Migrating CLI options\n\n### `--recursive`\n\n"  # 1, 3, 5
        "No longer needed: remove `--recursive`.\n",  # 7
    )
    assert all(kept_for_history(guide, n) for n in (5, 7))
    for title in ("Migration guide", "Upgrade notes", "2. Upgrading from 1.x", "Migration from v1"):
        doc = parse_doc("docs/a.md", f"# {title}\n\nDrop `--old`.\n")
        assert kept_for_history(doc, 3), title
    # A reference page's entry for a setting of today named "old ...": the heading is its name.
    entry = parse_doc(
        "docs/options.md",
        "# Options\n\n## Old Finders\n\nUse the old finder logic.\n\n- --old-finders\n\n"  # 3, 5, 7
        "## Old Examples\n\n`tool --old-finders`\n",  # 9, 11: the heading names no option below it
    )
    assert not kept_for_history(entry, 7) and kept_for_history(entry, 11)
    # A section about a task of today that only names a migration or an upgrade.
    for title in ("Database migrations", "Migrations", "Upgrade", "Run the upgrade"):
        doc = parse_doc("docs/a.md", f"# {title}\n\nRun `tool migrate --to head`.\n")
        assert not kept_for_history(doc, 3), title
