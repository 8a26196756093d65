import json
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from bot.core.model import Report
from bot.render.sarif import DESCRIPTIONS, KINDS, to_sarif
from tests.render.sample import PAGE, finding, page

SCHEMA = json.loads((Path(__file__).parents[1] / "fixtures/sarif/sarif-schema-2.1.0.json").read_text())


def sarif(report: Report) -> dict:
    log = json.loads(to_sarif(report))
    errors = sorted(Draft4Validator(SCHEMA).iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    return log


def apply_fix(text: str, fix: dict) -> str:
    """Apply a SARIF fix's replacements to `text` as SARIF 3.30 defines regions: lines and columns
    from 1; a missing startColumn is 1, a missing endColumn is just past the line's last character
    (before its newline)."""
    lines = text.split("\n")  # the text after the last newline is a line too

    def offset(line: int, column: int | None) -> int:
        start = sum(len(t) + 1 for t in lines[: line - 1])
        return start + (len(lines[line - 1]) if column is None else column - 1)

    (change,) = fix["artifactChanges"]
    for r in sorted(change["replacements"], key=lambda r: -r["deletedRegion"]["startLine"]):
        region = r["deletedRegion"]
        start = offset(region["startLine"], region.get("startColumn", 1))
        end = offset(region.get("endLine", region["startLine"]), region.get("endColumn"))
        text = text[:start] + r.get("insertedContent", {}).get("text", "") + text[end:]
    return text


def test_a_clean_report_is_a_valid_log_with_one_run_and_every_rule():
    log = sarif(Report(()))
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "docs-sync"
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(KINDS)
    assert set(DESCRIPTIONS) == set(KINDS)
    assert run["results"] == []


def test_results_carry_rule_level_message_and_the_doc_line():
    report = Report(
        (
            finding("--a", line=12, code=("pkg/args.py", 40)),
            finding("--w", severity="warning", kind="undocumented", line=13, code=None),
            finding("pkg/a.py", severity="notice", kind="parse-error", no_doc=True, code=("pkg/a.py", 3)),
            finding("--nowhere", no_doc=True, code=None, message="m"),
        )
    )
    results = sarif(report)["runs"][0]["results"]
    rules = sarif(report)["runs"][0]["tool"]["driver"]["rules"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("renamed", "error"),
        ("undocumented", "warning"),
        ("parse-error", "note"),
        ("renamed", "error"),
    ]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    first = results[0]
    assert first["message"]["text"] == "--a: renamed to --no-keep-fp32-master (code pkg/args.py:40)"
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": PAGE, "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 12},
    }
    code = first["relatedLocations"][0]["physicalLocation"]
    assert (code["artifactLocation"]["uri"], code["region"]["startLine"]) == ("pkg/args.py", 40)
    # Without a doc line, the result sits on the code line.
    third = results[2]["locations"][0]["physicalLocation"]
    assert (third["artifactLocation"]["uri"], third["region"]["startLine"]) == ("pkg/a.py", 3)
    assert "locations" not in results[3]
    # Fingerprints follow the finding, not its line, so code scanning keeps one alert as lines move.
    moved = sarif(Report((finding("--a", line=30, code=("pkg/args.py", 40)),)))["runs"][0]["results"][0]
    assert moved["partialFingerprints"] == first["partialFingerprints"]


def test_paths_are_uri_references():
    f = finding(doc_path="docs/a b#c%.md")
    location = sarif(Report((f,)))["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "docs/a%20b%23c%25.md"


@pytest.mark.parametrize(
    ("span", "replacement", "expected"),
    [
        ((3, 3), "line three", ["line 1", "line 2", "line three", "line 4", "line 5"]),
        ((2, 4), "two to four", ["line 1", "two to four", "line 5"]),
        ((3, 3), "a\nb", ["line 1", "line 2", "a", "b", "line 4", "line 5"]),
        ((3, 3), "", ["line 1", "line 2", "line 4", "line 5"]),
        ((2, 3), "", ["line 1", "line 4", "line 5"]),
        ((5, 5), "", ["line 1", "line 2", "line 3", "line 4"]),
        ((3, 2), "inserted", ["line 1", "line 2", "inserted", "line 3", "line 4", "line 5"]),
        ((6, 5), "at the end", ["line 1", "line 2", "line 3", "line 4", "line 5", "at the end"]),
    ],
)
def test_the_fix_replaces_exactly_the_suggested_lines(span, replacement, expected):
    f = finding(line=span[0], replacement=replacement, span=span)
    (result,) = sarif(Report((f,)))["runs"][0]["results"]
    (fix,) = result["fixes"]
    assert fix["artifactChanges"][0]["artifactLocation"]["uri"] == PAGE
    assert apply_fix(page(5), fix) == "".join(line + "\n" for line in expected)


def test_ignored_findings_are_suppressed_results():
    report = Report((finding("--a"),), ignored=((finding("--y", kind="new-flag"), "on purpose"),))
    results = sarif(report)["runs"][0]["results"]
    assert "suppressions" not in results[0]
    assert results[1]["ruleId"] == "new-flag"
    assert results[1]["suppressions"] == [{"kind": "external", "justification": "on purpose"}]


def test_the_schema_check_has_teeth():
    log = json.loads(to_sarif(Report((finding(replacement="x"),))))
    log["runs"][0]["results"][0]["level"] = "fatal"
    del log["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]
    assert len(list(Draft4Validator(SCHEMA).iter_errors(log))) == 2
