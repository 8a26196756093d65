import json
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from bot.core.model import Report
from bot.render.rdjson import to_rdjson
from tests.render.sample import PAGE, finding, page

SCHEMA = json.loads((Path(__file__).parents[1] / "fixtures/rdjson/DiagnosticResult.json").read_text())


def rdjson(report: Report) -> dict:
    result = json.loads(to_rdjson(report))
    errors = list(Draft4Validator(SCHEMA).iter_errors(result))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    return result


def posted(lines: list[str], suggestion: dict) -> list[str]:
    """`lines` after accepting the GitHub suggestion reviewdog posts for `suggestion`: the comment
    spans the range's lines; a range without columns is replaced by the text, one with columns
    keeps what lies outside it on its first and last lines (reviewdog's service/github)."""
    start, end = suggestion["range"]["start"], suggestion["range"].get("end", suggestion["range"]["start"])
    first, last = start["line"], end.get("line", start["line"])
    if "column" in start or "column" in end:
        text = (
            lines[first - 1][: start["column"] - 1]
            + suggestion["text"]
            + lines[last - 1][end["column"] - 1 :]
        )
    else:
        text = suggestion["text"]
    return lines[: first - 1] + (text.split("\n") if text else []) + lines[last:]


def test_diagnostics_carry_location_severity_source_and_code():
    report = Report(
        (
            finding("--a", line=12, code=("pkg/args.py", 40)),
            finding("--w", severity="warning", kind="undocumented", line=13, code=None),
            finding("pkg/a.py", severity="notice", kind="parse-error", no_doc=True, code=("pkg/a.py", 3)),
            finding("--nowhere", no_doc=True, code=None, message="m"),
        ),
        ignored=((finding("--y"), "later"),),
    )
    result = rdjson(report)
    assert result["source"] == {"name": "docs-sync"}
    first, warning, note, nowhere = result["diagnostics"]
    assert first == {
        "message": "--a: renamed to --no-keep-fp32-master",
        "severity": "ERROR",
        "source": {"name": "docs-sync"},
        "code": {"value": "renamed"},
        "location": {"path": PAGE, "range": {"start": {"line": 12}}},
        "related_locations": [
            {
                "message": "the code line that made the doc line wrong",
                "location": {"path": "pkg/args.py", "range": {"start": {"line": 40}}},
            }
        ],
    }
    assert (warning["severity"], warning["code"]["value"]) == ("WARNING", "undocumented")
    assert "related_locations" not in warning
    assert (note["severity"], note["location"]) == (
        "INFO",
        {"path": "pkg/a.py", "range": {"start": {"line": 3}}},
    )
    assert "location" not in nowhere
    assert len(result["diagnostics"]) == 4  # ignored findings are not posted


@pytest.mark.parametrize(
    ("span", "replacement", "expected"),
    [
        ((3, 3), "line three", ["line 1", "line 2", "line three", "line 4", "line 5"]),
        ((2, 4), "two to four", ["line 1", "two to four", "line 5"]),
        ((3, 3), "a\nb", ["line 1", "line 2", "a", "b", "line 4", "line 5"]),
        ((3, 3), "", ["line 1", "line 2", "line 4", "line 5"]),
        ((3, 2), "inserted", ["line 1", "line 2", "inserted", "line 3", "line 4", "line 5"]),
    ],
)
def test_a_suggestion_posts_as_a_github_suggestion_of_the_lines(span, replacement, expected):
    f = finding(line=span[0], replacement=replacement, span=span)
    (diagnostic,) = rdjson(Report((f,)))["diagnostics"]
    (suggestion,) = diagnostic["suggestions"]
    assert posted(page(5).splitlines(), suggestion) == expected


def test_a_suggestion_for_another_file_is_left_out():
    f = finding(no_doc=True, code=("pkg/args.py", 40), replacement="x")  # suggests for PAGE
    (diagnostic,) = rdjson(Report((f,)))["diagnostics"]
    assert diagnostic["location"]["path"] == "pkg/args.py"
    assert "suggestions" not in diagnostic


def test_the_schema_check_has_teeth():
    result = json.loads(to_rdjson(Report((finding(replacement="x"),))))
    result["diagnostics"][0]["severity"] = "FATAL"
    result["diagnostics"][0]["suggestions"][0]["range"]["start"]["line"] = "12"
    assert len(list(Draft4Validator(SCHEMA).iter_errors(result))) == 2
