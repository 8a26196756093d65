import json
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

import bot
from bot.core.model import Report
from bot.render.sarif import DESCRIPTIONS, KINDS, to_sarif
from tests.render.sample import PAGE, finding, page

SCHEMA = json.loads((Path(__file__).parents[1] / "fixtures/sarif/sarif-schema-2.1.0.json").read_text())


def github_problems(log: dict) -> list[str]:
    """What GitHub code scanning requires of an upload beyond the schema ("SARIF support for code
    scanning"): a driver name; every rule an id, short and full descriptions and help text; every
    result a rule id, a message text, partialFingerprints, and locations (at most 10), each a
    physical location with a relative URI and a start line."""
    problems = []
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    if not driver.get("name"):
        problems.append("driver: no name")
    ids = set()
    for rule in driver["rules"]:
        ids.add(rule["id"])
        for field in ("shortDescription", "fullDescription", "help"):
            if not rule.get(field, {}).get("text"):
                problems.append(f"rule {rule['id']}: no {field}.text")
    for i, result in enumerate(run["results"]):
        if result.get("ruleId") not in ids or not result.get("message", {}).get("text"):
            problems.append(f"result {i}: no ruleId of the rules, or no message")
        if not result.get("partialFingerprints"):
            problems.append(f"result {i}: no partialFingerprints")
        for location in result.get("locations", [])[:11] if "locations" in result else [None]:
            physical = (location or {}).get("physicalLocation", {})
            uri = physical.get("artifactLocation", {}).get("uri", "")
            if (
                not uri
                or uri.startswith("/")
                or "://" in uri
                or physical.get("region", {}).get("startLine", 0) < 1
            ):
                problems.append(f"result {i}: a location without a relative uri and a start line")
        if len(result.get("locations", [])) > 10:
            problems.append(f"result {i}: more than 10 locations")
    return problems


def sarif(report: Report, doc_text=None, located: bool = True) -> dict:
    log = json.loads(to_sarif(report, doc_text))
    errors = sorted(Draft4Validator(SCHEMA).iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    if located:
        assert github_problems(log) == []
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
    results = sarif(report, located=False)["runs"][0]["results"]
    rules = sarif(report, located=False)["runs"][0]["tool"]["driver"]["rules"]
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


def test_fingerprints_follow_the_line_text_not_its_number_and_tell_two_lines_apart():
    text = "# Page\n\nPass `--a` here.\n\nIntro.\n\nAlso `--a` there.\n"
    moved = text.replace("# Page\n\n", "# Page\n\nNew paragraph.\n\n")

    def prints(page_text: str, *lines: int) -> list[str]:
        report = Report(tuple(finding("--a", line=n) for n in lines))
        results = sarif(report, {PAGE: page_text}.get)["runs"][0]["results"]
        return [r["partialFingerprints"]["docsSync/v2"] for r in results]

    one, other = prints(text, 3, 7)
    assert one != other  # the same flag, on two lines of one page: two alerts
    assert prints(moved, 5, 9) == [one, other]  # both moved down two lines: still the same two
    edited = text.replace("Pass `--a` here.", "Pass `--a` here, and more.")
    assert prints(edited, 3, 7)[0] != one and prints(edited, 3, 7)[1] == other
    # Identical lines with identical neighbours are told apart by their rank on the page.
    twice = "`--a`\n\n`--a`\n\n`--a`\n"
    first, second, third = prints(twice, 1, 3, 5)
    assert len({first, second, third}) == 3


def test_every_rule_has_help_with_an_example_and_the_driver_says_its_version():
    log = json.loads(to_sarif(Report(()), version=bot.__version__))
    assert github_problems(log) == []
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["version"] == bot.__version__
    assert driver["informationUri"].startswith("https://")
    for rule in driver["rules"]:
        assert rule["help"]["text"].startswith(DESCRIPTIONS[rule["id"]])
        assert f"**{rule['id']}**" in rule["help"]["markdown"] and "For example" in rule["help"]["markdown"]
        assert "```" in rule["help"]["markdown"]


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


def test_the_github_check_has_teeth():
    log = json.loads(to_sarif(Report((finding(),))))
    del log["runs"][0]["tool"]["driver"]["rules"][1]["help"]
    del log["runs"][0]["results"][0]["partialFingerprints"]
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "/abs.md"
    assert len(github_problems(log)) == 3
