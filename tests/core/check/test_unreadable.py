"""Findings about a rule's own inputs: sources that do not parse, files an audit cannot find."""

from __future__ import annotations

from bot.core.check import unreadable
from bot.core.check.findings import Findings
from bot.core.check.inputs import RuleInputs
from bot.core.model import Finding
from tests.core.check.checkkit import CLI, DOC, cli, kinds, prepare, rule

BROKEN = "import argparse\n\np = argparse.ArgumentParser(\n"


def parse_errors(inputs: RuleInputs) -> list[Finding]:
    out = Findings(inputs.rule)
    unreadable.parse_errors(inputs, out)
    return out.finish()


def test_a_source_that_stops_parsing_is_a_parse_error_at_its_line():
    [f] = parse_errors(prepare(rule(), {CLI: cli("'--lr'")}, {CLI: BROKEN}))
    assert (f.kind, f.symbol, f.doc) == ("parse-error", CLI, None)
    assert (f.code.path, f.code.line) == (CLI, 3)
    assert f.message.startswith(f"{CLI}:3: cannot parse (")
    assert f.message.endswith("); the facts it defines were not checked")


def test_a_source_already_broken_at_base_is_reported_only_when_the_change_touches_it():
    untouched = prepare(rule(), {CLI: BROKEN, DOC: "a\n"}, {CLI: BROKEN, DOC: "b\n"})
    assert parse_errors(untouched) == []
    touched = prepare(rule(), {CLI: BROKEN}, {CLI: BROKEN + "\n"})
    assert kinds(parse_errors(touched)) == [("parse-error", CLI)]


def test_missing_files_names_each_page_and_source_the_revision_lacks():
    inputs = prepare(rule(), {}, {DOC: "# CLI\n"})
    out = Findings(inputs.rule)
    unreadable.missing_files(inputs, out)
    [f] = out.finish()
    assert (f.kind, f.symbol, f.code.path, f.code.line) == ("unresolved", CLI, CLI, 1)
    assert f.message == f"{CLI} (`cli` source of rule `cli-page`) does not exist in this revision"
    out = Findings(inputs.rule)
    unreadable.missing_files(prepare(rule(), {}, {}), out)
    assert [f.message.split(" (")[1] for f in out.finish()] == [
        "doc page of rule `cli-page`) does not exist in this revision",
        "`cli` source of rule `cli-page`) does not exist in this revision",
    ]
