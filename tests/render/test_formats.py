import json
import re
from dataclasses import replace

import pytest

from bot.core.model import CodeLocation, DocLocation, Finding, Report, Suggestion
from bot.render.formats import md_code, md_escape, suggestion_diff, to_github, to_json, to_markdown, to_text

PAGE = "docs/user-guide/backend.md"


def finding(
    symbol="--disable-fp32-master",
    *,
    kind="renamed",
    severity="error",
    message="renamed to --no-keep-fp32-master",
    line=12,
    section="FSDP > 3. Precision",
    doc_path=PAGE,
    code=("pkg/args.py", 40),
    replacement=None,
    blocking=True,
    no_doc=False,
):
    return Finding(
        kind=kind,
        severity=severity,
        symbol=symbol,
        message=message,
        rule="backend-page",
        doc=None if no_doc else DocLocation(doc_path, line, section, "3-precision"),
        code=CodeLocation(*code) if code else None,
        suggestion=Suggestion(doc_path, line, line, replacement) if replacement is not None else None,
        blocking=blocking,
    )


# ---------------------------------------------------------------- JSON


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


# ---------------------------------------------------------------- text


def test_text_clean_report_is_one_line():
    report = Report((), rules_checked=("a", "b", "c"))
    assert to_text(report) == "docs-sync: success, no findings (3 rules checked)"
    assert to_text(Report((), rules_checked=("a",))) == "docs-sync: success, no findings (1 rule checked)"


def test_text_groups_by_section_in_first_appearance_order_and_sorts_by_line():
    report = Report(
        (
            finding("--late", line=40, section="FSDP > 3. Precision"),
            finding("--other", line=7, section="Megatron", severity="warning", kind="undocumented"),
            finding("--early", line=20, section="FSDP > 3. Precision", severity="notice", kind="new-flag"),
            finding(
                "miles/args.py", kind="parse-error", no_doc=True, code=("miles/args.py", 9), message="bad"
            ),
        ),
        rules_checked=("backend-page",),
    )
    text = to_text(report)
    lines = text.splitlines()

    assert lines[0] == "docs-sync: failure, 2 errors, 1 warning, 1 notice (1 rule checked)"
    headers = [line for line in lines if line and not line.startswith(" ")][1:]
    assert headers == [f"{PAGE} › FSDP > 3. Precision", f"{PAGE} › Megatron", "miles/args.py"]
    assert text.index("--early") < text.index("--late") < text.index("--other") < text.index("parse-error")
    assert "  line 20  notice  new-flag  --early: renamed to --no-keep-fp32-master" in lines
    assert "    code: pkg/args.py:40" in lines
    # A finding with only a code location is placed by its code line, not repeated as "code:".
    assert "  line 9  error  parse-error  miles/args.py: bad" in lines
    assert "    code: miles/args.py:9" not in lines


def test_text_suggestion_shows_first_line_truncated():
    short = finding(replacement="use `--no-keep-fp32-master`\nsecond line")
    long = finding("--long", line=13, replacement="x" * 300)
    lines = to_text(Report((short, long))).splitlines()
    assert "    suggest: use `--no-keep-fp32-master` …" in lines
    suggest = [line for line in lines if line.startswith("    suggest: x")][0]
    assert suggest == "    suggest: " + "x" * 99 + "…"


def test_text_lists_ignored_with_reasons():
    report = Report((), ignored=((finding("--y", kind="new-flag"), "on purpose"),))
    text = to_text(report)
    assert text.splitlines()[0] == "docs-sync: success, no findings, 1 ignored (0 rules checked)"
    assert "  --y  new-flag: on purpose" in text


def test_text_colour_only_when_asked():
    report = Report(
        (
            finding(),
            finding("--w", severity="warning", line=13),
            finding("--n", severity="notice", line=14),
        )
    )
    plain = to_text(report)
    assert "\x1b" not in plain
    coloured = to_text(report, color=True)
    assert "\x1b[31merror\x1b[0m" in coloured
    assert "\x1b[33mwarning\x1b[0m" in coloured
    assert "\x1b[36mnotice\x1b[0m" in coloured
    assert coloured.startswith("\x1b[1mdocs-sync: failure")
    # Stripping the codes gives back exactly the plain text.
    assert re.sub(r"\x1b\[\d+m", "", coloured) == plain


# ---------------------------------------------------------------- markdown


def permalink(path, start, end):
    return f"https://github.com/o/r/blob/abc123/{path}#L{start}-L{end}"


def test_markdown_title_groups_and_links():
    report = Report(
        (
            finding("--b", line=30, replacement="  --no-keep-fp32-master \\"),
            finding("--a", line=12, severity="warning", kind="undocumented", code=None),
        ),
        rules_checked=("backend-page",),
    )
    md = to_markdown(report, doc_url=permalink)

    assert md.splitlines()[0] == "## ❌ docs-sync: failure — 1 error, 1 warning"
    header = f"### [{PAGE} › FSDP \\> 3. Precision](https://github.com/o/r/blob/abc123/{PAGE}#L12-L30)"
    assert header in md.splitlines()
    assert md.index("`--a`") < md.index("`--b`")
    assert (
        f"- 🟡 **undocumented** `--a`: renamed to --no-keep-fp32-master "
        f"([line 12](https://github.com/o/r/blob/abc123/{PAGE}#L12-L12))"
    ) in md
    assert "  - code: `pkg/args.py:40`" in md
    assert (
        "  <details><summary>Suggested doc change</summary>\n\n"
        "  ```diff\n"
        "  +  --no-keep-fp32-master \\\n"
        "  ```\n\n"
        "  </details>"
    ) in md
    assert "Ignored" not in md


def test_markdown_without_doc_url_is_plain_text():
    md = to_markdown(Report((finding(),)))
    assert "](" not in md
    assert f"### {PAGE} › FSDP \\> 3. Precision" in md
    assert "(line 12)" in md


def test_markdown_clean_and_ignored():
    clean = to_markdown(Report((), rules_checked=("a", "b")))
    assert clean.startswith("## ✅ docs-sync: success — no findings\n\n2 rules checked.")

    neutral = to_markdown(
        Report((finding(blocking=False),), ignored=((finding("--y", kind="new-flag"), "see #12 *soon*"),))
    )
    assert neutral.startswith("## ⚠️ docs-sync: neutral — 1 error")
    assert "### Ignored\n\n- `--y` (new-flag): see \\#12 \\*soon\\*" in neutral


def test_markdown_escapes_code_text_but_keeps_code_spans():
    f = finding("a`b", message="field `fsdp_size` moved to <Mesh> in *dims* [x]|y")
    md = to_markdown(Report((f,)))
    assert "``a`b``" in md
    assert "field `fsdp_size` moved to \\<Mesh\\> in \\*dims\\* \\[x\\]\\|y" in md


def test_md_code_and_md_escape_edge_cases():
    assert md_code("--flag") == "`--flag`"
    assert md_code("a``b") == "```a``b```"
    assert md_code("`tick") == "`` `tick ``"
    # An unmatched backtick is escaped rather than swallowing the rest of the line.
    assert md_escape("it's a ` stray *x*") == "it's a \\` stray \\*x\\*"
    assert md_escape("``a`b`` and `c`") == "``a`b`` and `c`"
    assert md_escape("two\nlines") == "two lines"


def test_markdown_truncates_whole_findings_and_counts_the_rest():
    findings = tuple(
        finding(f"--flag-{i:03}", line=i, message="m" * 200, replacement="r" * 100) for i in range(1, 201)
    )
    full = to_markdown(Report(findings), doc_url=permalink, limit=10**9)
    limit = 5_000
    md = to_markdown(Report(findings), doc_url=permalink, limit=limit)

    assert len(full) > limit
    assert len(md) <= limit
    shown = sum(1 for i in range(1, 201) if f"`--flag-{i:03}`" in md)
    assert 0 < shown < 200
    # The kept findings are the first ones, each complete.
    assert all(f"`--flag-{i:03}`" in md for i in range(1, shown + 1))
    assert md.count("</details>") == shown
    assert md.rstrip().endswith(f"… and {200 - shown} more findings (see the check run annotations)")
    assert "### Ignored" not in md


def test_markdown_truncation_singular_and_exact_fit():
    findings = (finding("--a", line=1), finding("--b", line=2))
    full = to_markdown(Report(findings))
    assert to_markdown(Report(findings), limit=len(full)) == full
    one_short = to_markdown(Report(findings), limit=len(full) - 1)
    assert len(one_short) <= len(full) - 1
    assert one_short.rstrip().endswith("… and 1 more finding (see the check run annotations)")


# ---------------------------------------------------------------- GitHub workflow commands


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


def test_github_clean_report_is_only_the_summary():
    assert to_github(Report(())) == "docs-sync: success, no findings (0 rules checked)"


# ---------------------------------------------------------------- suggestion_diff


def test_suggestion_diff_replaces_the_range():
    doc = ["# Title\n", "\n", "use --old-a\n", "and --old-b\n", "tail\n"]
    f = finding(replacement="use --new-a\nand --new-b\nand --new-c")
    f = replace(f, suggestion=Suggestion(PAGE, 3, 4, f.suggestion.replacement))
    assert suggestion_diff(f, doc) == "-use --old-a\n-and --old-b\n+use --new-a\n+and --new-b\n+and --new-c"


def test_suggestion_diff_accepts_lines_without_newlines_and_pure_insertions():
    doc = "a\r\nb\nc".splitlines()
    single = finding(line=2, replacement="B")
    assert suggestion_diff(single, doc) == "-b\n+B"
    insert = replace(single, suggestion=Suggestion(PAGE, 3, 2, "new"))
    assert suggestion_diff(insert, doc) == "+new"


def test_an_empty_replacement_deletes_the_lines_in_every_format():
    doc = ["a\n", "gone\n", "c\n"]
    delete = finding(line=2, replacement="")
    assert suggestion_diff(delete, doc) == "-gone"  # no "+" line: nothing takes its place
    blank = finding(line=2, replacement="\n")
    assert suggestion_diff(blank, doc) == "-gone\n+\n+"  # two empty lines, as asked
    report = Report((delete,))
    assert "    suggest: (delete the line)" in to_text(report).splitlines()
    md = to_markdown(report)
    assert "  Suggested doc change: (delete the line)" in md and "```diff" not in md
    assert "suggested:%0A(delete the line)" in to_github(report)


def test_suggestion_diff_rejects_missing_or_stale_suggestions():
    with pytest.raises(ValueError, match="no suggestion"):
        suggestion_diff(finding(), ["x"])
    with pytest.raises(ValueError, match="outside"):
        suggestion_diff(finding(line=5, replacement="y"), ["only", "two"])


def test_markdown_drops_the_ignored_list_first():
    ignored = tuple((finding(f"--ign-{i}", kind="new-flag"), "r" * 100) for i in range(100))
    report = Report((finding("--a"),), ignored=ignored)
    md = to_markdown(report, limit=3_000)
    assert len(md) <= 3_000
    assert "`--a`" in md
    assert "### Ignored" not in md
    assert md.rstrip().endswith("… and 100 ignored findings not listed here")
