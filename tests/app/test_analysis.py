"""The analysis before anything is written: waivers, the repository's address, what GitHub's file
list says about the head."""

from __future__ import annotations

from bot.app.analysis import apply_waivers, gone_at_head, listed_head, repo_html_url
from bot.app.store import Waiver
from bot.core.model import Report
from tests.appkit import finding


def test_waivers_move_findings_to_ignored():
    report = Report(
        (finding("--old"), finding("--keep"), finding("--fsdp-cpu-backend gloo")), rules_checked=("page",)
    )
    waived = apply_waivers(
        report,
        [
            Waiver("--old", "renamed on purpose", "maint"),
            Waiver("--fsdp-cpu-backend", "", "maint"),
        ],
    )
    assert [f.symbol for f in waived.findings] == ["--keep"]
    assert [(f.symbol, why) for f, why in waived.ignored] == [
        ("--old", "renamed on purpose (@maint)"),
        ("--fsdp-cpu-backend gloo", "no reason given (@maint)"),
    ]
    assert apply_waivers(report, []) is report


def test_repository_address_without_file_links():
    assert repo_html_url([], "o/r", "https://api.github.com") == "https://github.com/o/r"
    enterprise = repo_html_url([], "o/r", "https://ghe.example.com/api/v3")
    assert enterprise == "https://ghe.example.com/o/r"


def test_the_file_list_says_which_head_it_was_made_at_and_what_the_head_lacks():
    files = [
        {
            "filename": "docs/a.md",
            "status": "modified",
            "blob_url": "https://github.com/o/r/blob/" + "h" * 40 + "/docs/a.md",
        },
        {"filename": "new.py", "status": "renamed", "previous_filename": "old.py"},
        {"filename": "gone.md", "status": "removed"},
        {"filename": "back.py", "status": "added", "previous_filename": None},
        {"filename": "swap.py", "status": "renamed", "previous_filename": "back.py"},  # its old path lives on
    ]
    assert listed_head(files) == "h" * 40
    assert listed_head([{"filename": "x", "blob_url": None}]) is None  # no link: nothing to compare
    assert gone_at_head(files) == {"old.py", "gone.md"}
    assert repo_html_url(files, "ignored/name", "https://api.github.com") == "https://github.com/o/r"
