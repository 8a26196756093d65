import json

import pytest

from bot.core.model import Report
from bot.render.data import to_json
from tests.render.sample import PAGE, finding


def test_json_shape_is_exact():
    f = finding(replacement="  --no-keep-fp32-master \\")
    bare = finding("--x", kind="parse-error", no_doc=True, code=None, message="bad")
    report = Report((f, bare), ignored=((finding("--y", kind="new-flag"), "planned for next release"),))

    data = json.loads(to_json(report))

    assert list(data) == ["conclusion", "findings", "ignored"]
    assert data["conclusion"] == "failure"
    assert data["findings"][0] == {
        "kind": "renamed",
        "severity": "error",
        "symbol": "--disable-fp32-master",
        "message": "renamed to --no-keep-fp32-master",
        "doc": {"path": PAGE, "line": 12, "section": "FSDP > 3. Precision", "anchor": "3-precision"},
        "code": {"path": "pkg/args.py", "line": 40},
        "suggestion": {
            "path": PAGE,
            "start_line": 12,
            "end_line": 12,
            "replacement": "  --no-keep-fp32-master \\",
        },
    }
    assert data["findings"][1]["doc"] is None
    assert data["findings"][1]["code"] is None
    assert data["findings"][1]["suggestion"] is None
    assert data["ignored"] == [{"symbol": "--y", "reason": "planned for next release", "kind": "new-flag"}]


def test_json_keeps_report_order_unicode_and_empty_ignored():
    report = Report((finding("--b", line=30), finding("--a", line=3, message="précision › fp32")))
    text = to_json(report)
    data = json.loads(text)
    assert [f["symbol"] for f in data["findings"]] == ["--b", "--a"]
    assert data["ignored"] == []
    assert "précision › fp32" in text  # ensure_ascii=False
    assert text.startswith('{\n  "conclusion"')  # indent=2


def test_json_clean_report_is_success():
    assert json.loads(to_json(Report(()))) == {"conclusion": "success", "findings": [], "ignored": []}


@pytest.mark.parametrize(
    ("severity", "blocking", "fail_on", "conclusion"),
    [
        ("error", True, "never", "neutral"),
        ("warning", False, "warning", "failure"),
        ("warning", False, "error", "neutral"),
        ("notice", False, "notice", "failure"),
        # fail_on None: the rule decided, through Finding.blocking
        ("error", True, None, "failure"),
        ("error", False, None, "neutral"),
        ("notice", True, None, "failure"),
    ],
)
def test_json_conclusion_follows_fail_on(severity, blocking, fail_on, conclusion):
    report = Report((finding(severity=severity, blocking=blocking),))
    assert json.loads(to_json(report, fail_on))["conclusion"] == conclusion
