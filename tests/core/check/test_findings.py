"""Emitting findings: severity and blocking from the rule, merged line edits, dedupe, order."""

from __future__ import annotations

from bot.core.check.findings import Findings, is_external, rank
from bot.core.model import CodeLocation
from bot.core.page import parse_doc
from tests.core.check.checkkit import DOC, rule

PAGE = parse_doc(DOC, "# CLI\n\nUse `--lr` with `--sed`.\n\n## More\n\nAnd `--old`.\n")


def test_severity_comes_from_the_rule_and_blocking_from_its_fail_on():
    out = Findings(rule(severity={"new-flag": "notice", "undocumented": "warning"}, fail_on="warning"))
    out.emit("new-flag", "--a", "a")
    out.emit("undocumented", "b", "b")
    out.emit("removed", "--c", "c")
    found = {f.symbol: (f.severity, f.blocking) for f in out.finish()}
    assert found == {"--a": ("notice", False), "b": ("warning", True), "--c": ("error", True)}
    never = Findings(rule(fail_on="never"))
    never.emit("removed", "--c", "c")
    assert [f.blocking for f in never.finish()] == [False]


def test_a_finding_on_a_doc_line_says_where_it_is():
    out = Findings(rule())
    out.emit("removed", "--old", "gone", doc=PAGE, line=7, code=CodeLocation("tool/cli.py", 4))
    [f] = out.finish()
    assert (f.doc.path, f.doc.line, f.doc.section, f.doc.anchor) == (DOC, 7, "CLI > More", "more")
    assert f.code == CodeLocation("tool/cli.py", 4) and f.rule == "cli-page" and f.suggestion is None


def test_every_finding_on_a_line_suggests_the_line_with_all_its_edits():
    out = Findings(rule())
    out.emit("unresolved", "--lr", "one", doc=PAGE, line=3, edit=("--lr", "--learning-rate"))
    out.emit("unresolved", "--sed", "two", doc=PAGE, line=3, edit=("--sed", "--seed"))
    both = "Use `--learning-rate` with `--seed`."
    assert [f.suggestion.replacement for f in out.finish()] == [both, both]


def test_an_edit_that_changes_nothing_suggests_nothing():
    out = Findings(rule())
    out.emit("unresolved", "--lr", "same", doc=PAGE, line=3, edit=("--nowhere", "--else"))
    assert [f.suggestion for f in out.finish()] == [None]


def test_a_replacement_is_the_whole_new_line_and_empty_deletes_it():
    out = Findings(rule())
    out.emit("removed", "--old", "gone", doc=PAGE, line=7, replacement="")
    [f] = out.finish()
    assert (f.suggestion.start_line, f.suggestion.end_line, f.suggestion.replacement) == (7, 7, "")


def test_the_same_finding_twice_is_reported_once_and_the_first_wins():
    out = Findings(rule())
    out.emit("removed", "--old", "gone", doc=PAGE, line=7, code=CodeLocation("a.py", 1))
    out.emit("removed", "--old", "gone", doc=PAGE, line=7, code=CodeLocation("b.py", 2))
    out.emit("removed", "--old", "gone, said otherwise", doc=PAGE, line=7)
    assert [(f.message, f.code) for f in out.finish()] == [
        ("gone", CodeLocation("a.py", 1)),
        ("gone, said otherwise", None),
    ]


def test_findings_are_ordered_by_page_and_line_and_those_without_a_line_come_last():
    out = Findings(rule())
    out.emit("new-flag", "--new", "no line")
    out.emit("removed", "--old", "gone", doc=PAGE, line=7)
    out.emit("unresolved", "--sed", "typo", doc=PAGE, line=3, edit=("--sed", "--seed"))
    out.emit("unresolved", "--lr", "typo", doc=PAGE, line=3)
    assert [f.symbol for f in out.finish()] == ["--lr", "--sed", "--old", "--new"]


def test_external_patterns_match_whole_tokens_as_globs():
    patterns = ("--sglang-*", "*<*>*", "/*")
    assert is_external("--sglang-mem-fraction", patterns)
    assert is_external("--load <dir>", patterns)
    assert is_external("/data/ckpt", patterns)
    assert not is_external("--lr", patterns)
    assert not is_external("x--sglang-y", patterns)
    assert not is_external("--lr", ())


def test_rank_orders_severities_and_puts_unknown_ones_above_all():
    assert rank("notice") < rank("warning") < rank("error") < rank("fatal")
