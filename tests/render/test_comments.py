"""The App's words on GitHub: check run titles, outcomes and annotations, summaries within GitHub's
limits, "Fixed in" edits, the not-configured example, and the replies to commands."""

from __future__ import annotations

import json
import re

from bot.core.model import Finding, Report
from bot.core.packs import parse_repo_config
from bot.core.rules import RulesError
from bot.render.comments import (
    COMMENT_LIMIT,
    NOT_CONFIGURED,
    SUMMARY_MARKER,
    check_title,
    command_reply,
    explain_text,
    failed,
    finding_annotations,
    fixed_body,
    ignoring,
    invalid_config,
    marked_fingerprint,
    needs_permission,
    reply_marker,
    report_outcome,
    summary_comment,
    summary_text,
)
from tests.appkit import LINKS, finding


def test_titles_count_doc_lines():
    assert check_title(Report(())) == "Docs are in sync"
    two = Report((finding("--a", doc_line=3), finding("--b", doc_line=3), finding("--c", doc_line=9)))
    assert check_title(two) == "2 doc lines out of date"
    mixed = Report((finding("--a"), finding("--n", doc_line=None, kind="new-flag")))
    assert check_title(mixed) == "1 doc line out of date, 1 more finding"
    waived = Report((), ignored=((finding(), "on purpose"),))
    assert check_title(waived) == "Docs are in sync (1 finding ignored)"


def test_annotations_carry_level_place_and_suggestion():
    notes = finding_annotations(
        Report(
            (finding(), finding("--n", doc_line=None, kind="new-flag", severity="notice"), finding(code=None))
        )
    )
    assert [(a["path"], a["start_line"], a["annotation_level"]) for a in notes] == [
        ("docs/page.md", 3, "failure"),
        ("src/cli.py", 7, "notice"),
        ("docs/page.md", 3, "failure"),
    ]
    assert (
        notes[0]["raw_details"] == "Suggested text:\nnew line" and "code: src/cli.py:7" in notes[0]["message"]
    )


def test_fixed_comments_keep_their_marker():
    body = fixed_body("**renamed** `--old`: gone", "b" * 40, "0123456789abcdef")
    assert body.startswith("✅ **Fixed in bbbbbbbbbbbb.** ~~**renamed** `--old`: gone~~")
    assert marked_fingerprint(body) == "0123456789abcdef"


def test_summaries_stay_within_githubs_limits():
    huge = Report(
        tuple(finding(f"--flag-{i:04}", doc_line=i + 1, replacement="x" * 200) for i in range(3000))
    )
    text = summary_text(huge, LINKS, ["a note"])
    assert len(text) <= 65_535 and "more findings (see the check run annotations)" in text
    body = summary_comment(huge, LINKS, ["a note"])
    assert len(body) <= 65_536 and body.startswith(SUMMARY_MARKER)
    # GitHub counts the check run summary in bytes: badges and CJK text take 3-4 bytes a character.
    wide = Report(tuple(finding(f"--旗-{i:04}", doc_line=i + 1, replacement="文" * 200) for i in range(3000)))
    text = summary_text(wide, LINKS, ["a note"])
    assert len(text.encode()) <= 65_535 and text.endswith("> a note\n")
    assert len(text.encode()) > 60_000  # cut at whole findings, not to a fraction of the room


def test_the_not_configured_example_is_a_valid_config():
    (pack,) = parse_repo_config(NOT_CONFIGURED.split("```yaml\n")[1].split("```")[0])
    assert [r.id for r in pack.rules] == ["usage-page"]


def test_a_reports_outcome_is_its_conclusion_title_summary_and_annotations():
    report = Report((finding(), finding("--n", doc_line=None, kind="new-flag", severity="notice")))
    outcome = report_outcome(report, LINKS, ["a note"], gone={"src/cli.py"})
    assert (outcome.conclusion, outcome.title) == ("failure", "1 doc line out of date, 1 more finding")
    assert outcome.summary.endswith("> a note\n")
    assert [a["path"] for a in outcome.annotations] == ["docs/page.md"]  # the code path is gone at head


def test_a_config_that_cannot_be_used_names_its_line_and_a_failure_says_what_broke():
    error = RulesError(".github/docs-sync.yml", 5, "rules[0].sauces", "unknown key")
    outcome = invalid_config(error, "main", "b" * 40)
    assert (outcome.conclusion, outcome.title) == ("failure", "Invalid .github/docs-sync.yml")
    assert f"from the base branch (`main` at {'b' * 12})" in outcome.summary
    (note,) = outcome.annotations
    assert (note["start_line"], note["title"], note["message"]) == (
        5,
        "rules[0].sauces: invalid",
        "unknown key",
    )
    broke = failed(RuntimeError("```the core tripped```"))
    assert broke.title == "docs-sync could not run" and "````\n```the core tripped```\n````" in broke.summary


def test_explain_lists_each_finding_and_the_waived_ones():
    f = finding()
    f = Finding(**{**f.__dict__, "why": "argparse renamed it"})
    gone = Finding("removed", "warning", "--x", "gone", "page")
    text = explain_text(Report((f,), ((gone, "gone on purpose (@m)"),)), "https://github.com/o/r", "c" * 40)
    assert text.startswith(f"here is why docs-sync reported each finding at {'c' * 12}:\n")
    assert "**1. renamed `--old`** (error, rule `page`)" in text
    assert (
        f"- Doc: [docs/page.md line 3](https://github.com/o/r/blob/{'c' * 40}/docs/page.md#L3) (Title)"
        in text
    )
    assert "- Code: [src/cli.py line 7]" in text and "- Why: argparse renamed it" in text
    assert text.endswith("Ignored on this pull request:\n- `--x` (removed): `gone on purpose (@m)`")
    empty = explain_text(Report(()), "https://github.com/o/r", "c" * 40)
    assert empty == f"docs-sync found nothing out of date at {'c' * 12}."
    assert json.dumps(text)  # plain text, ready for a comment body


def test_command_replies_quote_the_command_and_stay_within_a_comment():
    body = command_reply("/docs-sync ignore --old", "alice", "done.", 77)
    assert body == "> `/docs-sync ignore --old`\n\n@alice done.\n\n" + reply_marker(77)
    long = command_reply("/docs-sync explain", "alice", "x" * 70_000, 77)
    assert len(long) == COMMENT_LIMIT and long.endswith("…\n\n<!-- docs-sync:reply-to=77 -->")
    refused = needs_permission("ignore", "changes what this pull request is checked against", "write", "none")
    assert "it needs write access to the repository (you have no access)" in refused
    assert "(you have read access)" in needs_permission("ignore", "x", "write", "read")


def test_the_answer_to_ignore_says_whether_a_finding_was_waived():
    waived = Report((), ((finding("--fsdp-cpu-backend gloo"), "ok (@m)"),))
    answer = ignoring("--fsdp-cpu-backend", "on purpose", "h" * 40, waived)
    assert answer == (
        "docs-sync now ignores findings about `--fsdp-cpu-backend` on this pull request (`on purpose`). "
        f"Checked {'h' * 12} again: Docs are in sync (1 finding ignored)."
    )
    none = ignoring("--nothing", "", "h" * 40, Report(()))
    assert "No current finding is about `--nothing`; the waiver applies if one appears." in none
    assert ignoring("--x", "", "h" * 40, None).endswith("on this pull request.")  # nothing published


# -- what a commenter typed is shown as inert text -----------------------------------------------

# Each is live markdown on GitHub: a team or user mention, a link, an image, a comment that hides
# the rest of the body, raw HTML, a bare URL GitHub links by itself.
TYPED = (
    "@org/team",
    "@someone",
    "[x](https://evil.example/x)",
    "![p](https://evil.example/p.png)",
    "<!--",
    "<img src=https://evil.example/i.png>",
    "https://evil.example/bare",
    "`@org/team` ``",
)


# docs-sync's own hidden markers: `summary`, `fp=<hex>`, `checked base=<sha> rules=<digest>`
MARKER = re.compile(r"<!-- docs-sync:[a-z-]+(=[0-9a-f]+)?( [a-z]+=[\w:]+)* -->")


def live_parts(markdown: str) -> tuple[str, list[str]]:
    """The text GitHub would render as live (outside code), and every link, image and HTML piece."""
    from markdown_it import MarkdownIt

    live, active = [], []
    for block in MarkdownIt("commonmark").enable("table").parse(markdown):
        if block.type == "html_block" and not MARKER.fullmatch(block.content.strip()):
            active.append(block.content)
        for t in block.children or []:
            if t.type == "text":
                live.append(t.content)
            elif t.type == "link_open":
                active.append(str(t.attrs.get("href")))
            elif t.type in ("image", "html_inline"):
                active.append(str(t.attrs.get("src") or t.content))
    return " ".join(live), active


def assert_inert(markdown: str, typed: str) -> None:
    """`typed` appears in `markdown` only as code: no mention, link, image or HTML comes of it."""
    from markdown_it import MarkdownIt

    live, active = live_parts(markdown)
    for word in ("@org", "@someone", "evil.example", "<!--", "<img"):
        assert word not in live, (word, markdown)
    assert not [a for a in active if "evil.example" in a or "<!--" in a], markdown
    code = [
        c.content
        for block in MarkdownIt("commonmark").parse(markdown)
        for c in block.children or []
        if c.type == "code_inline"
    ]
    assert any(typed.strip() in c for c in code), (typed, markdown)  # shown, not dropped


def test_an_ignore_reason_is_inert_in_every_place_it_is_shown():
    for reason in TYPED:
        said = f"because {reason} (@maint)"
        report = Report((finding("--a"),), ((finding("--y", kind="new-flag"), said),))
        places = {
            "reply": ignoring("--y", f"because {reason}", "h" * 40, report),
            "explain": explain_text(report, "https://github.com/o/r", "c" * 40),
            "summary comment": summary_comment(report, LINKS),
            "check run": report_outcome(report, LINKS).summary,
        }
        for place, markdown in places.items():
            assert_inert(markdown, reason), place


def test_a_typed_symbol_is_inert_in_the_answer_to_ignore():
    for symbol in TYPED:
        assert_inert(ignoring(symbol, "", "h" * 40, Report(())), symbol)
