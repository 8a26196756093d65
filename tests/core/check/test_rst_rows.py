"""reStructuredText tables of options: a new flag gets a row in the table's own syntax (a
list-table's `* -` cells, a grid table's bars and borders), a changed default its cell, and a
flag cited in a row that the code lacks is unresolved."""

from __future__ import annotations

from bot.core.check import check
from bot.core.model import Change, Finding
from bot.core.packs import parse_repo_config
from bot.trees.memory import MemoryTree

CONFIG = """
rules:
  - id: opts
    docs:
      - path: docs/options.rst
    sources:
      - id: train
        kind: argparse
        paths: [train.py]
"""
PARSER = """\
import argparse

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.001, help="Learning rate.")
p.add_argument("--steps", type=int, default=100, help="Training steps.")
p.parse_args()
"""
ADDED = PARSER.replace(
    'help="Training steps.")\n',
    'help="Training steps.")\np.add_argument("--seed", type=int, default=7, help="random seed")\n',
)
LIST = """\
Options
=======

.. list-table::
   :header-rows: 1

   * - Option
     - Default
     - Description
   * - ``--lr``
     - ``0.001``
     - Learning rate.
   * - ``--steps``
     - ``100``
     - Training steps.
"""
GRID = """\
Options
=======

+-------------+-----------+-----------------+
| Option      | Default   | Description     |
+=============+===========+=================+
| ``--lr``    | ``0.001`` | Learning rate.  |
+-------------+-----------+-----------------+
| ``--steps`` | ``100``   | Training steps. |
+-------------+-----------+-----------------+
"""


def run(doc: str, edits: dict[str, str]) -> list[Finding]:
    base = {"train.py": PARSER, "docs/options.rst": doc}
    rules = [r for pack in parse_repo_config(CONFIG) for r in pack.rules]
    changes = [Change("modified", p) for p in edits]
    return list(check(rules, MemoryTree(base), MemoryTree({**base, **edits}), changes).findings)


def suggested(findings: list[Finding]) -> list[tuple[str, str, int | None, str | None]]:
    return [
        (f.kind, f.symbol, f.doc.line if f.doc else None, f.suggestion.replacement if f.suggestion else None)
        for f in findings
    ]


def test_a_new_flag_gets_a_list_table_row():
    assert suggested(run(LIST, {"train.py": ADDED})) == [
        (
            "new-flag",
            "--seed",
            15,
            "     - Training steps.\n   * - ``--seed``\n     - ``7``\n     - Random seed.",
        )
    ]


def test_a_new_flag_gets_a_grid_row_between_borders():
    border = "+-------------+-----------+-----------------+"
    assert suggested(run(GRID, {"train.py": ADDED})) == [
        ("new-flag", "--seed", 10, f"{border}\n| ``--seed``  | ``7``     | Random seed.    |\n{border}")
    ]


def test_a_new_flag_before_its_next_sibling():
    first = PARSER.replace(
        'p.add_argument("--lr"', 'p.add_argument("--seed", type=int, default=7)\np.add_argument("--lr"'
    )
    [finding] = run(LIST, {"train.py": first})
    assert finding.suggestion is not None and finding.doc is not None and finding.doc.line == 10
    assert finding.suggestion.replacement == "   * - ``--seed``\n     - ``7``\n     -\n   * - ``--lr``"


def test_no_row_where_the_table_cannot_take_it():
    wide = ADDED.replace('"--seed"', '"--random-seed-value"')
    assert suggested(run(GRID, {"train.py": wide})) == [("new-flag", "--random-seed-value", None, None)]
    spanning = LIST.replace("     - Learning rate.\n", "     - Learning rate,\n       of the optimizer.\n")
    assert [f.suggestion for f in run(spanning, {"train.py": ADDED})] == [None]


def test_a_changed_default_rewrites_its_cell():
    changed = {"train.py": PARSER.replace("default=100", "default=200")}
    assert suggested(run(LIST, changed)) == [("changed", "--steps", 14, "     - ``200``")]
    assert suggested(run(GRID, changed)) == [
        ("changed", "--steps", 9, "| ``--steps`` | ``200``   | Training steps. |")
    ]


def test_a_row_citing_a_flag_the_code_lacks_is_unresolved():
    edited = LIST + "   * - ``--stepz``\n     - ``1``\n     - Oops.\n"
    assert [(f.kind, f.symbol) for f in run(LIST, {"docs/options.rst": edited})] == [
        ("unresolved", "--stepz")
    ]
    fine = LIST.replace("Training steps.", "How many steps to train.")
    assert run(LIST, {"docs/options.rst": fine}) == []
    assert run(GRID, {"train.py": PARSER.replace("Learning rate.", "Peak learning rate.")}) == []
