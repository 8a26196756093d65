import re

from bot.core.model import Report
from bot.render.text import to_text
from tests.render.sample import PAGE, finding, page


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


def test_text_says_which_line_number_is_the_doc_and_which_the_code():
    report = Report(
        (
            finding("--a", line=15, code=("pkg/args.py", 33)),
            finding(
                "miles/args.py", kind="parse-error", no_doc=True, code=("miles/args.py", 9), message="bad"
            ),
            finding("--nowhere", no_doc=True, code=None, message="m"),
        )
    )
    lines = to_text(report).splitlines()
    assert f"  doc {PAGE}:15  error  renamed  --a: renamed to --no-keep-fp32-master" in lines
    assert "    code pkg/args.py:33" in lines
    # A finding with only a code location is placed by its code line, not repeated.
    assert "  code miles/args.py:9  error  parse-error  miles/args.py: bad" in lines
    assert not any(line.startswith("    code miles/args.py") for line in lines)
    assert "  error  renamed  --nowhere: m" in lines
    # No bare numbers: every "path:line" is introduced by what it is.
    for line in lines:
        for m in re.finditer(r"(\S+):\d+\b", line):
            assert line[: m.start()].rstrip().split()[-1] in ("doc", "code"), line


def test_text_suggestion_shows_the_old_line_and_the_new_one():
    doc = page(20)
    f = finding(line=12, replacement="line twelve\nand a new line")
    lines = to_text(Report((f,)), doc_text={PAGE: doc}.get).splitlines()
    at = lines.index("    code pkg/args.py:40")
    assert lines[at + 1 :] == ["    - line 12", "    + line twelve", "    + and a new line"]


def test_text_suggestion_without_the_page_shows_the_new_lines_only():
    lines = to_text(Report((finding(replacement="use `--no-keep-fp32-master`\nsecond line"),))).splitlines()
    assert lines[-2:] == ["    + use `--no-keep-fp32-master`", "    + second line"]
    # A page that changed since the check is no better than none.
    moved = to_text(Report((finding(line=30, replacement="new"),)), doc_text={PAGE: page(3)}.get)
    assert moved.splitlines()[-1] == "    + new"


def test_text_deletions_and_insertions():
    doc = {PAGE: page(20)}.get
    gone = finding(line=12, replacement="")
    assert to_text(Report((gone,)), doc_text=doc).splitlines()[-1] == "    - line 12"
    assert to_text(Report((gone,))).splitlines()[-1] == "    suggest: (delete the line)"
    added = finding(line=12, replacement="new", span=(12, 11))
    assert to_text(Report((added,)), doc_text=doc).splitlines()[-1] == "    + new"


def test_text_cuts_long_suggestion_lines():
    f = finding(line=2, replacement="x" * 300)
    lines = to_text(Report((f,)), doc_text={PAGE: "a\n" + "y" * 300 + "\n"}.get).splitlines()
    assert lines[-2] == "    - " + "y" * 97 + "…"
    assert lines[-1] == "    + " + "x" * 97 + "…"


def test_text_lists_ignored_with_reasons():
    report = Report((), ignored=((finding("--y", kind="new-flag"), "on purpose"),))
    text = to_text(report)
    assert text.splitlines()[0] == "docs-sync: success, no findings, 1 ignored (0 rules checked)"
    assert "  --y  new-flag: on purpose" in text


def test_text_colour_only_when_asked():
    report = Report(
        (
            finding(replacement="line twelve"),
            finding("--w", severity="warning", line=13),
            finding("--n", severity="notice", line=14),
        )
    )
    doc = {PAGE: page(20)}.get
    plain = to_text(report, doc_text=doc)
    assert "\x1b" not in plain
    coloured = to_text(report, doc_text=doc, color=True)
    assert "\x1b[31merror\x1b[0m" in coloured
    assert "\x1b[33mwarning\x1b[0m" in coloured
    assert "\x1b[36mnotice\x1b[0m" in coloured
    assert "\x1b[31m- line 12\x1b[0m" in coloured
    assert "\x1b[32m+ line twelve\x1b[0m" in coloured
    assert coloured.startswith("\x1b[1mdocs-sync: failure")
    # Stripping the codes gives back exactly the plain text.
    assert re.sub(r"\x1b\[\d+m", "", coloured) == plain


def test_suggestion_lines_are_cut_at_the_width_given():
    long = "x" * 150
    f = finding(replacement=long)
    assert f"    + {'x' * 97}…" in to_text(Report((f,))).splitlines()  # 100 by default
    assert f"    + {'x' * 57}…" in to_text(Report((f,)), width=60).splitlines()
    assert f"    + {long}" in to_text(Report((f,)), width=200).splitlines()
