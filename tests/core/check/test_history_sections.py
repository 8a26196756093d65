"""Sections a page keeps for history, judged on a change: what a guide from an older release
tells readers to drop is no stale citation; a list of deprecated things follows the code."""

from __future__ import annotations

from bot.core.check import audit, check
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, DOC, changes_between, cli, rule

PAGE = (
    "# Options\n\n"  # 1
    "## Line Length\n\n- `--line-length`\n\n"  # 3, 5
    "## Old Finders\n\nUse the older finder.\n\n- `--old-finders`\n\n"  # 7, 9, 11
    "## Deprecated Flags\n\n- -k\n- `--keep-direct`\n\n"  # 13, 15, 16
    "## Upgrading to 5.0\n\n### `--recursive`\n\n"  # 18, 20
    "Simply remove `--recursive`: it is the default.\n"  # 22
)
FLAGS = ("'--line-length'", "'--old-finders'", "'-k', '--keep-direct'", "'--recursive'")


def _removed(*gone: str) -> set[tuple[str, str, int]]:
    base = {CLI: cli(*FLAGS), DOC: PAGE}
    head = {CLI: cli(*(f for f in FLAGS if f.split(", ")[-1].strip("'") not in gone)), DOC: PAGE}
    report = check((rule(),), MemoryTree(base), MemoryTree(head), changes_between(base, head))
    return {(f.kind, f.symbol, f.doc.line) for f in report.findings if f.doc is not None}


def test_an_entry_named_old_is_an_option_of_today():
    # "Old Finders" names the option below it, not a section kept from an older version.
    assert _removed("--old-finders") == {("removed", "--old-finders", 11)}


def test_a_deprecated_flag_the_code_takes_out_leaves_its_list_stale():
    # Its short spelling too, alone on its list item.
    assert _removed("--keep-direct") == {("removed", "-k", 15), ("removed", "--keep-direct", 16)}


def test_an_upgrade_guide_tells_readers_to_drop_what_the_code_no_longer_has():
    assert _removed("--recursive") == set()
    # Nor does the audit say the guide's flags are missing. A deprecated flag the code lacks
    # with no change to say when it went may be one the list says was dropped: left alone.
    tree = MemoryTree({CLI: cli("'--line-length'"), DOC: PAGE})
    found = {(f.symbol, f.doc.line) for f in audit((rule(),), tree).findings if f.doc is not None}
    assert found == {("--old-finders", 11)}
