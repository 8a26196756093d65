"""Audit baselines: recorded findings stay quiet, new ones are reported, line moves change nothing."""

from __future__ import annotations

import json

import pytest

from bot.core import baseline
from bot.core.check import audit
from bot.core.packs import parse_rules_file
from bot.trees.memory import MemoryTree

CLI = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--alpha", type=int, default=1)\n'
CONFIG = """\
rules:
  - id: cli-docs
    docs: [{path: docs/tool.md}]
    sources: [{id: cli, kind: argparse, path: tool/cli.py}]
"""
PAGE = "# Tool\n\nUse `--alpah 2`.\n\nOr `--alpha 3`.\n"


def run(page: str):
    rules = [r for p in parse_rules_file(CONFIG, "cfg.yml") for r in p.rules]
    files = {"docs/tool.md": page, "tool/cli.py": CLI}
    return audit(rules, MemoryTree(files)), files.get


def test_recorded_findings_are_quiet_and_new_ones_are_reported():
    report, text = run(PAGE)
    assert [f.symbol for f in report.findings] == ["--alpah"]
    recorded = baseline.load(baseline.dump(report, text), "b.json")

    # The same debt, lines moved down by a new intro and a new mistake further on.
    moved = "# Tool\n\nAn intro.\n\nMore intro.\n\nUse `--alpah 2`.\n\nOr `--alpha 3`.\n\nAlso `--alhpa 4`.\n"
    later, text = run(moved)
    assert sorted(f.symbol for f in later.findings) == ["--alhpa", "--alpah"]
    new = baseline.new_findings(later, recorded, text)
    assert [(f.symbol, f.doc.line) for f in new.findings] == [("--alhpa", 11)]


def test_a_copy_of_a_recorded_line_is_new():
    report, text = run(PAGE)
    recorded = baseline.load(baseline.dump(report, text), "b.json")
    twice, text = run(PAGE + "\nUse `--alpah 2`.\n")
    new = baseline.new_findings(twice, recorded, text)
    assert [(f.symbol, f.doc.line) for f in new.findings] == [("--alpah", 7)]


def test_an_edited_line_is_new():
    report, text = run(PAGE)
    recorded = baseline.load(baseline.dump(report, text), "b.json")
    edited, text = run(PAGE.replace("Use `--alpah 2`.", "Use `--alpah 5` here."))
    assert len(baseline.new_findings(edited, recorded, text).findings) == 1


def test_the_file_is_stable_readable_json():
    report, text = run(PAGE)
    data = json.loads(baseline.dump(report, text))
    assert data["version"] == baseline.VERSION
    (entry,) = data["findings"]
    assert entry["kind"] == "unresolved" and entry["symbol"] == "--alpah"
    assert (entry["path"], entry["line"]) == ("docs/tool.md", 3)
    assert baseline.dump(report, text) == baseline.dump(report, text)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("not json", "invalid JSON"),
        ('{"version": 99, "findings": []}', "expected version 1"),
        ('{"version": 1, "findings": [{"kind": "x"}]}', "needs a string 'key'"),
        ("[]", "expected version 1"),
    ],
)
def test_a_damaged_baseline_is_an_error_naming_the_file(text, problem):
    with pytest.raises(baseline.BaselineError, match=problem) as err:
        baseline.load(text, "audit-baseline.json")
    assert str(err.value).startswith("audit-baseline.json: ")
