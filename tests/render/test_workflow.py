from bot.core.model import Report
from bot.render.workflow import to_github
from tests.render.sample import PAGE, finding


def test_github_one_command_per_finding_and_summary():
    report = Report(
        (
            finding("--x", line=12, code=None),
            finding("--w", severity="warning", line=13, code=None),
            finding(
                "pkg/a.py",
                severity="notice",
                kind="parse-error",
                no_doc=True,
                code=("pkg/a.py", 3),
                message="m",
            ),
            finding("--bare", no_doc=True, code=None, message="m"),
        ),
        rules_checked=("r",),
    )
    lines = to_github(report).splitlines()
    assert lines[0] == (
        f"::error file={PAGE},line=12,title=docs-sync renamed --x::renamed to --no-keep-fp32-master"
    )
    assert lines[1].startswith(f"::warning file={PAGE},line=13,title=")
    assert lines[2] == "::notice file=pkg/a.py,line=3,title=docs-sync parse-error pkg/a.py::m"
    assert lines[3] == "::error title=docs-sync renamed --bare::m"
    assert lines[4] == "docs-sync: failure, 2 errors, 1 warning, 1 notice (1 rule checked)"
    assert len(lines) == 5


def test_github_escapes_data_and_properties():
    f = finding(
        "--a,b:c",
        message="100% wrong\r\nsee: a, b",
        doc_path="docs/we,ird:name.md",
        code=None,
    )
    (line, summary) = to_github(Report((f,))).splitlines()
    assert line == (
        "::error file=docs/we%2Cird%3Aname.md,line=12,title=docs-sync renamed --a%2Cb%3Ac"
        "::100%25 wrong%0D%0Asee: a, b"
    )
    assert summary.startswith("docs-sync: failure")


def test_github_message_carries_code_location_and_suggestion():
    f = finding(replacement="new line one\nnew line two")
    (line, _) = to_github(Report((f,))).splitlines()
    assert line.endswith(
        "::renamed to --no-keep-fp32-master%0Acode: pkg/args.py:40%0Asuggested:%0Anew line one%0Anew line two"
    )
    (delete, _) = to_github(Report((finding(replacement=""),))).splitlines()
    assert delete.endswith("suggested:%0A(delete the line)")


def test_github_clean_report_is_only_the_summary():
    assert to_github(Report(())) == "docs-sync: success, no findings (0 rules checked)"
