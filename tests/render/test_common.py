import pytest

from bot.core.model import Report, Suggestion
from bot.render.common import (
    RenderError,
    counts,
    grouped,
    md_code,
    md_escape,
    old_lines,
    split_lines,
    suggestion_diff,
    summary_line,
)
from tests.render.sample import PAGE, finding


def test_counts_and_summary_line_name_only_present_severities():
    findings = (finding(), finding(severity="notice"), finding(severity="error"))
    assert counts(findings) == "2 errors, 1 notice"
    assert counts(()) == ""
    report = Report(findings, ignored=((finding("--y"), "later"),), rules_checked=("a",))
    assert summary_line(report) == "docs-sync: failure, 2 errors, 1 notice, 1 ignored (1 rule checked)"
    assert summary_line(report, "never").startswith("docs-sync: neutral")


def test_grouped_by_section_in_first_appearance_then_by_line():
    late = finding("--late", line=40)
    other = finding("--other", line=7, section="Megatron")
    early = finding("--early", line=20)
    code_only = finding("a.py", no_doc=True, code=("a.py", 9))
    nowhere = finding("x", no_doc=True, code=None)
    groups = grouped((late, other, early, code_only, nowhere))
    assert [key for key, _ in groups] == [
        (PAGE, "FSDP > 3. Precision"),
        (PAGE, "Megatron"),
        ("a.py", None),
        ("", None),
    ]
    assert groups[0][1] == [early, late]


def test_md_code_and_md_escape_edge_cases():
    assert md_code("--flag") == "`--flag`"
    assert md_code("a``b") == "```a``b```"
    assert md_code("`tick") == "`` `tick ``"
    # An unmatched backtick is escaped rather than swallowing the rest of the line.
    assert md_escape("it's a ` stray *x*") == "it's a \\` stray \\*x\\*"
    assert md_escape("``a`b`` and `c`") == "``a`b`` and `c`"
    assert md_escape("two\nlines") == "two lines"


def test_split_lines_numbers_lines_as_the_check_does():
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\r\nb") == ["a", "b"]
    assert split_lines("a\rb\n\n") == ["a", "b", ""]
    assert split_lines("") == []


def test_old_lines_reads_the_page_and_gives_up_quietly_when_it_changed():
    s = Suggestion(PAGE, 2, 3, "new")
    pages = {PAGE: "one\ntwo\r\nthree\nfour\n"}
    assert old_lines(s, pages.get) == ["two", "three"]
    assert old_lines(Suggestion(PAGE, 3, 2, "ins"), pages.get) == []  # an insertion replaces nothing
    assert old_lines(Suggestion(PAGE, 5, 5, "x"), pages.get) is None  # past the end: the page moved on
    assert old_lines(s, {}.get) is None
    assert old_lines(s, None) is None


def test_suggestion_diff_replaces_the_range():
    doc = ["# Title\n", "\n", "use --old-a\n", "and --old-b\n", "tail\n"]
    f = finding(replacement="use --new-a\nand --new-b\nand --new-c", span=(3, 4))
    assert suggestion_diff(f, doc) == "-use --old-a\n-and --old-b\n+use --new-a\n+and --new-b\n+and --new-c"


def test_suggestion_diff_accepts_lines_without_newlines_and_pure_insertions():
    doc = "a\r\nb\nc".splitlines()
    assert suggestion_diff(finding(line=2, replacement="B"), doc) == "-b\n+B"
    assert suggestion_diff(finding(line=3, replacement="new", span=(3, 2)), doc) == "+new"


def test_suggestion_diff_of_deletions_and_blank_lines():
    doc = ["a\n", "gone\n", "c\n"]
    assert suggestion_diff(finding(line=2, replacement=""), doc) == "-gone"  # nothing takes its place
    assert suggestion_diff(finding(line=2, replacement="\n"), doc) == "-gone\n+\n+"  # two empty lines


def test_suggestion_diff_rejects_missing_or_stale_suggestions():
    with pytest.raises(RenderError, match="no suggestion"):
        suggestion_diff(finding(), ["x"])
    with pytest.raises(RenderError, match="outside"):
        suggestion_diff(finding(line=5, replacement="y"), ["only", "two"])
    with pytest.raises(ValueError):  # callers that catch ValueError keep working
        suggestion_diff(finding(line=1, replacement="y", span=(1, -1)), ["x"])
