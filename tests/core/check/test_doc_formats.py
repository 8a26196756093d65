"""The check on reStructuredText, MDX and Quarto pages: a flag renamed in code is reported on
the stale line with a suggestion in the page's own syntax; a doc edit citing an unknown flag is
unresolved; a table keeps its layout or gets no suggestion."""

from __future__ import annotations

import pytest

from bot.core.check import audit, check
from bot.core.rules import DocTarget
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, changes_between, cli, rule

BASE = cli("'--lr', type=float, default=0.1", "'--epochs', type=int, default=3")
HEAD = cli("'--learning-rate', dest='lr', type=float, default=0.1", "'--epochs', type=int, default=3")

PAGES = {
    "docs/train.rst": "Training\n========\n\nSet ``--lr 0.1`` and ``--epochs``.\n",
    "docs/train.mdx": "import X from './x'\n\n# Training\n\nSet `--lr 0.1` and `--epochs`. {/* x */}\n",
    "docs/train.qmd": "## Training {#sec-train}\n\n```{bash}\npython tool/cli.py --lr 0.1 --epochs 3\n```\n",
}
STALE = {
    "docs/train.rst": (4, "Set ``--learning-rate 0.1`` and ``--epochs``."),
    "docs/train.mdx": (5, "Set `--learning-rate 0.1` and `--epochs`. {/* x */}"),
    "docs/train.qmd": (4, "python tool/cli.py --learning-rate 0.1 --epochs 3"),
}
SECTIONS = {"docs/train.rst": "training", "docs/train.mdx": "training", "docs/train.qmd": "sec-train"}


LR = cli("'--lr', type=float, default=0.1")


def run(path: str, base_page: str, head_page: str, base_cli: str = BASE, head_cli: str = HEAD):
    base = {CLI: base_cli, path: base_page}
    head = {CLI: head_cli, path: head_page}
    rules = [rule(docs=(DocTarget(path),))]
    return check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head))


@pytest.mark.parametrize("path", sorted(PAGES))
def test_a_renamed_flag_is_reported_on_the_stale_line_in_the_pages_syntax(path: str):
    report = run(path, PAGES[path], PAGES[path])
    [f] = report.findings
    line, fixed = STALE[path]
    assert (f.kind, f.symbol, f.doc.line, f.doc.anchor) == ("renamed", "--lr", line, SECTIONS[path])
    assert (f.suggestion.start_line, f.suggestion.end_line, f.suggestion.replacement) == (line, line, fixed)


@pytest.mark.parametrize("path", sorted(PAGES))
def test_a_doc_edit_citing_an_unknown_flag_is_unresolved(path: str):
    head_page = PAGES[path].replace("--epochs", "--epocs")
    report = run(path, PAGES[path], head_page, base_cli=BASE, head_cli=BASE)
    assert [(f.kind, f.symbol) for f in report.findings] == [("unresolved", "--epocs")]
    assert "--epochs" in report.findings[0].suggestion.replacement


GRID = """\
Flags
=====

+------------+---------+
| Flag       | Default |
+============+=========+
| ``--lr``   | ``0.1`` |
+------------+---------+
"""


def test_a_grid_row_keeps_its_column_widths():
    head_cli = cli("'--rate', dest='lr', type=float, default=0.1")
    [f] = run("docs/f.rst", GRID, GRID, base_cli=LR, head_cli=head_cli).findings
    assert f.suggestion.replacement == "| ``--rate`` | ``0.1`` |"


def test_a_grid_row_too_narrow_for_the_new_name_gets_no_suggestion():
    head_cli = cli("'--learning-rate', dest='lr', type=float, default=0.1")
    [f] = run("docs/f.rst", GRID, GRID, base_cli=LR, head_cli=head_cli).findings
    assert (f.kind, f.symbol, f.doc.line) == ("renamed", "--lr", 7)
    assert f.suggestion is None


def test_a_simple_table_row_keeps_its_columns():
    simple = "========== =======\nFlag       Default\n========== =======\n"
    simple += "``--lr``   ``0.1``\n========== =======\n"
    head_cli = cli("'--rate', dest='lr', type=float, default=0.1")
    [f] = run("docs/s.rst", simple, simple, base_cli=LR, head_cli=head_cli).findings
    assert f.suggestion.replacement == "``--rate`` ``0.1``"
    head_cli = cli("'--learning-rate', dest='lr', type=float, default=0.1")
    [wide] = run("docs/s.rst", simple, simple, base_cli=LR, head_cli=head_cli).findings
    assert wide.suggestion is None  # ``--learning-rate`` would run into the next column


def test_a_title_that_grows_gets_a_longer_underline():
    text = "``--lr``\n========\n\nText.\n"
    [f] = run("docs/t.rst", text, text).findings
    s = f.suggestion
    assert (s.start_line, s.end_line, s.replacement) == (1, 2, "``--learning-rate``\n===================")


def test_audit_reads_rst_pages():
    page = "Use ``--lr`` and :option:`--nope`.\n"
    tree = MemoryTree({CLI: BASE, "docs/a.rst": page})
    report = audit([rule(docs=(DocTarget("docs/*.rst"),))], tree)
    assert [(f.kind, f.symbol, f.doc.path) for f in report.findings] == [
        ("unresolved", "--nope", "docs/a.rst")
    ]


SIBLINGS = cli("'--lr', default=0.001", "'--seed', default=42", "'--warmup', default=0")
WITH_NEW = cli(
    "'--lr', default=0.001",
    "'--seed', default=42",
    "'--max-tokens', type=int, default=4096, help='Longest {n} tokens'",
    "'--warmup', default=0",
)


def test_a_new_flag_gets_its_row_in_an_mdx_table_with_mdx_escapes():
    page = "# Options\n\n| Flag | Default | Description |\n|---|---|---|\n"
    page += "| `--lr` | `0.001` | Learning rate. |\n| `--seed` | `42` | Random seed. |\n"
    page += "| `--warmup` | `0` | Warmup steps. |\n"
    [f] = run("docs/o.mdx", page, page, base_cli=SIBLINGS, head_cli=WITH_NEW).findings
    assert (f.kind, f.symbol, f.doc.line) == ("new-flag", "--max-tokens", 6)
    assert f.suggestion.replacement.split("\n")[1] == "| `--max-tokens` | `4096` | Longest \\{n\\} tokens. |"


def test_a_new_flag_beside_an_rst_grid_table_gets_no_row_that_would_break_it():
    page = "+--------------+-----------+\n| Flag         | Default   |\n+==============+===========+\n"
    for flag, default in (("--lr", "0.001"), ("--seed", "42"), ("--warmup", "0")):
        page += f"| ``{flag}``".ljust(15) + f"| ``{default}``".ljust(12) + "|\n+--------------+-----------+\n"
    findings = run("docs/o.rst", page, page, base_cli=SIBLINGS, head_cli=WITH_NEW).findings
    assert [(f.kind, f.symbol, f.suggestion) for f in findings] == [("new-flag", "--max-tokens", None)]


def test_a_changed_default_of_an_rst_option_is_found_in_its_description():
    page = ".. program:: tool\n\n.. option:: -s SUFFIX, --suffix SUFFIX\n\n"
    page += "   Suffix of the generated files.\n   Defaults to ``rst``.\n\n   More text, default ``1``.\n\n"
    page += ".. option:: --cache-dir=cache\n\n   By default, the cache is kept.\n"
    base_cli = cli("'-s', '--suffix', default='rst'", "'--cache-dir', default='.cache'")
    [f] = run(
        "docs/man.rst", page, page, base_cli=base_cli, head_cli=base_cli.replace("'rst'", "'txt'")
    ).findings
    assert (f.kind, f.symbol, f.doc.line) == ("changed", "--suffix", 6)
    assert f.suggestion.replacement == "   Defaults to ``txt``."
    rules = [rule(docs=(DocTarget("docs/man.rst"),))]
    assert audit(rules, MemoryTree({CLI: base_cli, "docs/man.rst": page})).findings == ()


def escaped_table(rows: list[tuple[str, str, str]]) -> str:
    """A list-table of options written in plain text, each hyphen escaped (`\\--lr`)."""
    page = "Options\n=======\n\n.. list-table::\n   :header-rows: 1\n\n"
    page += "   * - Flag\n     - Default\n     - About\n"
    for flag, default, about in rows:
        page += f"   * - \\{flag}\n     - {default}\n     - {about}\n"
    return page


ESCAPED = escaped_table(
    [("--lr", "0.001", "Learning rate."), ("--seed", "42", "Seed."), ("--warmup", "0", "Steps.")]
)


def test_a_renamed_flag_escaped_in_a_plain_cell_is_rewritten_behind_its_escape():
    [f] = run("docs/o.rst", ESCAPED, ESCAPED).findings
    assert (f.kind, f.symbol, f.doc.line) == ("renamed", "--lr", 10)
    assert f.suggestion.replacement == "   * - \\--learning-rate"
    grid = GRID.replace("| ``--lr``   |", "| \\--lr      |")
    head_cli = cli("'--rate', dest='lr', type=float, default=0.1")
    [g] = run("docs/f.rst", grid, grid, base_cli=LR, head_cli=head_cli).findings
    assert g.suggestion.replacement == "| \\--rate    | ``0.1`` |"  # the grid keeps its widths


def test_a_new_flag_beside_escaped_siblings_gets_an_escaped_row():
    [f] = run("docs/o.rst", ESCAPED, ESCAPED, base_cli=SIBLINGS, head_cli=WITH_NEW).findings
    assert (f.kind, f.symbol) == ("new-flag", "--max-tokens")
    assert f.suggestion.replacement.split("\n")[1:] == [
        "   * - \\--max-tokens",
        "     - 4096",
        "     - Longest {n} tokens.",
    ]


def test_audit_finds_an_escaped_flag_the_parser_lost_and_a_choice_it_no_longer_has():
    page = "Use it\n======\n\n.. list-table::\n\n   * - \\-f, \\--force\n     - Overwrite.\n"
    page += "   * - \\--hub {local,cloud}\n     - Where from.\n   * - \\--make-dirs\n     - Make folders.\n"
    code = cli("'-f', '--force', action='store_true'", "'--hub', choices=['local', 'remote']")
    report = audit([rule(docs=(DocTarget("docs/*.rst"),))], MemoryTree({CLI: code, "docs/use.rst": page}))
    assert [(f.kind, f.symbol, f.doc.line) for f in report.findings] == [
        ("unresolved", "--hub cloud", 8),
        ("unresolved", "--make-dirs", 10),
    ]


NOTEBOOK = """{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "## Training\\n",
    "\\n",
    "Set `--lr` and `--epochs`."
   ]
  },
  {
   "cell_type": "code",
   "metadata": {},
   "outputs": [],
   "source": [
    "proc = run_cmd(\\"python tool/cli.py --lr 0.1 --epochs 3\\")"
   ]
  }
 ],
 "nbformat": 4
}
"""


def test_a_flag_renamed_in_code_is_reported_on_a_notebooks_lines_with_no_suggestion_in_its_json():
    path = "docs/train.ipynb"
    found = run(path, NOTEBOOK, NOTEBOOK).findings
    assert sorted((f.kind, f.symbol, f.doc.line) for f in found) == [
        ("renamed", "--lr", 9),
        ("renamed", "--lr", 17),
    ]
    assert all(f.suggestion is None and f.doc.path == path for f in found)
    # An audit judges the command the code cell hands its helper.
    typo = NOTEBOOK.replace("--epochs 3", "--epohcs 3")
    stale = audit([rule(docs=(DocTarget(path),))], MemoryTree({CLI: BASE, path: typo})).findings
    assert [(f.kind, f.symbol, f.doc.line) for f in stale] == [("unresolved", "--epohcs", 17)]
