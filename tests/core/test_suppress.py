"""`docs-sync: ignore` written in a page, in each format: what it covers, what it matches, the
reason shown with the ignored finding, and the notice an audit gives one that covers nothing."""

from __future__ import annotations

import pytest

from bot.core.check import audit, check
from bot.core.rules import DocTarget
from bot.core.suppress import suppressions
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, changes_between, cli, rule

CODE = cli("'--seed', type=int, default=0", "'--backend', default='fsdp'")


def unresolved(path: str, page: str):
    """The check of a change that adds `page`, which cites flags the code lacks."""
    base = {CLI: CODE}
    head = {CLI: CODE, path: page}
    rules = [rule(docs=(DocTarget(path),))]
    return check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head))


PAGES = {
    "docs/a.md": "Pass `--gpus 8`. <!-- docs-sync: ignore unresolved --gpus -- the launcher's flag -->\n\n"
    "And `--nodes 2`.\n",
    "docs/a.qmd": "<!-- docs-sync: ignore --gpus -- the launcher's flag -->\n```{bash}\n"
    "python tool/cli.py --gpus 8\n```\n\nAnd `--nodes 2`.\n",
    "docs/a.mdx": "import X from './x'\n\n{/* docs-sync: ignore unresolved -- the launcher's flag */}\n"
    "Pass `--gpus 8`\nor `--gpus 4`.\n\nAnd `--nodes 2`.\n",
    "docs/a.rst": ".. docs-sync: ignore --gpus -- the launcher's flag\n\n.. code-block:: bash\n\n"
    "   python tool/cli.py --gpus 8\n\nAnd ``--nodes 2``.\n",
}


@pytest.mark.parametrize("path", sorted(PAGES))
def test_a_suppression_moves_what_it_covers_to_ignored_with_its_reason(path: str):
    report = unresolved(path, PAGES[path])
    assert [(f.kind, f.symbol) for f in report.findings] == [("unresolved", "--nodes")]
    assert report.ignored
    for f, reason in report.ignored:
        assert (f.kind, f.symbol.split()[0]) == ("unresolved", "--gpus")
        assert reason.startswith("the launcher's flag (" + path + ":")


def test_kind_and_symbol_narrow_what_is_suppressed():
    page = "<!-- docs-sync: ignore wrong-default -->\nPass `--gpus 8` and `--nodes 2`.\n"
    assert len(unresolved("docs/a.md", page).findings) == 2
    page = "<!-- docs-sync: ignore --gpus -->\nPass `--gpus 8` and `--nodes 2`.\n"
    report = unresolved("docs/a.md", page)
    assert [f.symbol for f in report.findings] == ["--nodes"]
    assert [reason for _, reason in report.ignored] == ["no reason given (docs/a.md:1)"]


def test_a_comment_alone_covers_the_block_below_and_no_further():
    page = "<!-- docs-sync: ignore -->\nPass `--gpus 8`\nand `--nodes 2`.\n\nThen `--cpus 1`.\n"
    report = unresolved("docs/a.md", page)
    assert [f.symbol for f in report.findings] == ["--cpus"]
    [s] = suppressions("docs/a.md", page)
    assert (s.line, s.first, s.last, s.kind, s.symbol) == (1, 2, 3, None, None)


def test_mdx_takes_html_comments_only_where_they_are_mdx_and_rst_only_its_own():
    md_in_rst = "<!-- docs-sync: ignore -->\n``--gpus``\n"
    assert suppressions("docs/a.rst", md_in_rst) == []
    assert suppressions("docs/a.md", "{/* docs-sync: ignore */}\n`--gpus`\n") == []
    [s] = suppressions("docs/a.mdx", "Text {/* docs-sync: ignore --gpus */}\n")
    assert (s.first, s.last, s.symbol) == (1, 1, "--gpus")


def test_audit_reports_a_suppression_that_covers_nothing():
    page = "Pass `--seed 1`. <!-- docs-sync: ignore --seed -- stale -->\n\n"
    page += "<!-- docs-sync: ignore -->\n`--x`\n"
    tree = MemoryTree({CLI: CODE, "docs/a.md": page})
    report = audit([rule(docs=(DocTarget("docs/*.md"),))], tree)
    assert [(f.kind, f.severity, f.symbol, f.doc.line) for f in report.findings] == [
        ("unused-ignore", "notice", "--seed", 1)
    ]
    message = "this `docs-sync: ignore` (`--seed`) suppresses no finding; it can go"
    assert report.findings[0].message == message
    assert [(f.symbol, reason) for f, reason in report.ignored] == [("--x", "no reason given (docs/a.md:3)")]
