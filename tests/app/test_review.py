"""Inline review comments: which finding goes on which diff line, the suggestions and links in
their bodies, GitHub's limits, the 30-comment cap, and a lost review found instead of doubled."""

from __future__ import annotations

from bot.app.github.review import plan_inline, right_lines
from bot.app.intake.events import route
from bot.app.queue.store import PullRef, Store
from bot.core.model import DocLocation, Finding, Report, Suggestion
from bot.render.comments import finding_annotations, marked_fingerprint
from bot.testing.appkit import ARGS, DOC, check_run_payload
from tests.appkit import LINKS, PAGE, finding

PATCH = """\
@@ -1,4 +1,5 @@
 # Title
-old line
+new line
+another
 context
 end
@@ -20,2 +21,3 @@ section
 twenty
+added
 last
\\ No newline at end of file"""


def test_right_lines_are_added_and_context_lines_by_head_number():
    assert right_lines(PATCH) == {1, 2, 3, 4, 5, 21, 22, 23}
    assert right_lines(PATCH + "\n") == right_lines(PATCH)  # nothing past a hunk's announced length
    assert right_lines("@@ -0,0 +1,2 @@\n+a\n+b") == {1, 2} and right_lines("@@ -3 +3 @@\n-a\n+b") == {3}
    assert right_lines(None) == frozenset() and right_lines("") == frozenset()


def test_a_doc_line_in_the_diff_gets_a_suggestion():
    comments, over = plan_inline(
        Report((finding(),)), {"docs/page.md": frozenset({2, 3})}, lambda p: PAGE, LINKS
    )
    (c,) = comments
    assert (c.path, c.line, c.start_line, over) == ("docs/page.md", 3, None, 0)
    assert "```suggestion\nnew line\n```" in c.body
    assert marked_fingerprint(c.body) == finding().fingerprint() and c.body.endswith("-->")
    deleting = plan_inline(
        Report((finding(replacement=""),)), {"docs/page.md": frozenset({3})}, lambda p: PAGE, LINKS
    )
    # GitHub deletes the lines for a block with no line in it; "```suggestion\n\n```" would
    # replace them with one blank line.
    assert "```suggestion\n```\n\n<!--" in deleting[0][0].body
    blank = plan_inline(
        Report((finding(replacement="\n"),)), {"docs/page.md": frozenset({3})}, lambda p: PAGE, LINKS
    )
    assert "```suggestion\n\n\n```" in blank[0][0].body  # "\n": two empty lines, as asked
    fenced = plan_inline(
        Report((finding(replacement="```py"),)), {"docs/page.md": frozenset({3})}, lambda p: PAGE, LINKS
    )
    assert "````suggestion\n```py\n````" in fenced[0][0].body


def test_a_suggestion_over_several_lines_spans_them():
    f = finding()
    f = Finding(**{**f.__dict__, "suggestion": Suggestion("docs/page.md", 3, 5, "a\nb")})
    (c,), _ = plan_inline(Report((f,)), {"docs/page.md": frozenset({3, 4, 5})}, lambda p: PAGE, LINKS)
    assert (c.start_line, c.line) == (3, 5)
    assert c.as_review_comment() == {
        "path": "docs/page.md",
        "line": 5,
        "side": "RIGHT",
        "body": c.body,
        "start_line": 3,
        "start_side": "RIGHT",
    }
    (half,), _ = plan_inline(Report((f,)), {"docs/page.md": frozenset({3, 4})}, lambda p: PAGE, LINKS)
    assert half.start_line is None and "suggestion" not in half.body  # never past the diff


def test_a_code_line_in_the_diff_gets_the_doc_link_and_patch():
    (c,), _ = plan_inline(Report((finding(),)), {"src/cli.py": frozenset({7})}, lambda p: PAGE, LINKS)
    assert (c.path, c.line) == ("src/cli.py", 7)
    assert f"[docs/page.md line 3]({LINKS.html_url}/blob/{'a' * 40}/docs/page.md#L3-L3)" in c.body
    assert "```diff\ndiff --git a/docs/page.md b/docs/page.md\n" in c.body  # a patch `git apply` takes
    assert "\n line 2\n-line 3\n+new line\n line 4\n" in c.body


def test_findings_outside_the_diff_the_cap_and_what_was_posted():
    outside, _ = plan_inline(Report((finding(),)), {"other.md": frozenset({3})}, lambda p: PAGE, LINKS)
    assert outside == []
    many = Report(tuple(finding(f"--f{i}", doc_line=i + 1) for i in range(35)))
    diff = {"docs/page.md": frozenset(range(1, 40))}
    planned, over = plan_inline(many, diff, lambda p: PAGE, LINKS)
    assert len(planned) == 30 and over == 5
    posted = {f.fingerprint() for f in many.findings[:33]}
    planned, over = plan_inline(many, diff, lambda p: PAGE, LINKS, skip=posted)
    assert [c.line for c in planned] == [34, 35] and over == 0
    twice = Report((finding(doc_line=3), finding(doc_line=4)))  # one fingerprint, two lines
    assert len(plan_inline(twice, diff, lambda p: PAGE, LINKS)[0]) == 1


def test_annotations_and_comments_are_cut_to_githubs_limits():
    long = finding("--long", replacement="文" * 70_000)
    long = Finding(**{**long.__dict__, "message": "é" * 70_000})
    (note,) = finding_annotations(Report((long,)))
    assert len(note["message"].encode()) <= 65_535 and note["message"].endswith("…")
    assert len(note["raw_details"].encode()) <= 65_535
    (c,), _ = plan_inline(Report((long,)), {"docs/page.md": frozenset({3})}, lambda p: PAGE, LINKS)
    assert len(c.body) <= 65_536 and "suggestion" not in c.body and "too long for a comment" in c.body
    assert marked_fingerprint(c.body) == long.fingerprint()
    wide = Finding(**{**finding().__dict__, "suggestion": Suggestion("docs/page.md", 3, 4, "x" * 70_000)})
    (c,), _ = plan_inline(Report((wide,)), {"docs/page.md": frozenset({3, 4})}, lambda p: PAGE, LINKS)
    assert (c.line, c.start_line) == (3, None) and "`--old` is gone" in c.body  # the line alone
    (code,), _ = plan_inline(Report((wide,)), {"src/cli.py": frozenset({7})}, lambda p: PAGE, LINKS)
    assert len(code.body) <= 65_536 and "This change makes [docs/page.md line 3]" in code.body
    moved = finding(code=("src/old.py", 7))
    assert finding_annotations(Report((moved,)), gone={"docs/page.md"})[0]["path"] == "src/old.py"
    nowhere_left = {"docs/page.md", "src/old.py"}
    assert finding_annotations(Report((moved,)), gone=nowhere_left) == []  # nowhere to point
    deleting = finding_annotations(Report((finding(replacement=""),)))
    assert deleting[0]["raw_details"] == "Suggested: delete these lines."
    nowhere = Finding(
        **{**finding(code=None, replacement=None).__dict__, "doc": DocLocation("docs/page.md", 0, None, None)}
    )
    assert finding_annotations(Report((nowhere,))) == []  # line 0 would make GitHub refuse every annotation


def test_inline_comments_land_on_diff_lines_with_suggestions(bot, standin, repo_and_shas):
    bot.check(4, "main", "pr")
    (review,) = standin.reviews
    assert review["state"] == "COMMENTED" and review["commit_id"] == repo_and_shas[1]["pr"]
    placed = sorted((c["path"], c["line"]) for c in standin.review_comments)
    assert placed == [(DOC, 28), (ARGS, 10), (ARGS, 33)]
    doc_comment = next(c for c in standin.review_comments if c["path"] == DOC)
    assert "```suggestion\n| `--fsdp-cpu-offload` with `--offload-train` |" in doc_comment["body"]
    code_comment = next(c for c in standin.review_comments if c["line"] == 33)
    assert f"/blob/{repo_and_shas[1]['pr']}/{DOC}#L32-L32" in code_comment["body"]
    assert f"```diff\ndiff --git a/{DOC} b/{DOC}\n" in code_comment["body"]  # a patch `git apply` takes
    assert "\n-- An fp32 master copy" in code_comment["body"] and "`/docs-sync apply`" in code_comment["body"]
    assert all(marked_fingerprint(c["body"]) for c in standin.review_comments)
    run = standin.check_runs[0]
    assert [(a["path"], a["start_line"]) for a in run["output"]["annotations"]] == [
        (DOC, 28),
        (DOC, 32),
        (DOC, 34),
    ]
    (summary,) = standin.issue_comments
    assert summary["body"].startswith("<!-- docs-sync:summary -->\n## ❌ docs-sync: failure")


def test_answers_lost_after_the_review_and_the_summary_post_nothing_twice(bot, standin, repo_and_shas):
    # GitHub did the writes, but the answers never arrived (a 502 from a proxy): the retry
    # finds the review comments and the summary comment instead of posting them again.
    standin.fail_next("POST", r"/pulls/23/reviews$", 502, after=True)
    standin.fail_next("POST", r"/issues/23/comments$", 502, after=True)
    bot.check(23, "main", "pr")
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    assert len(standin.reviews) == 1 and len(standin.review_comments) == 3
    assert len(standin.issue_comments) == 1 and bot.queue.counts()["done"] == 1
    # looked at on the pull request's first run (nothing yet), and once after each loss
    assert len(standin.calls("GET", r"/pulls/23/comments$")) == 2
    assert len(standin.calls("GET", r"/issues/23/comments$")) == 2
    # What was adopted is tracked like what was posted: the fix edits the same comments.
    standin.update_pull(23, head="pr-fixed")
    bot.check(23, "main", "pr-fixed")
    assert len(standin.reviews) == 1 and len(standin.issue_comments) == 1
    assert all(c["body"].startswith("✅ **Fixed in") for c in standin.review_comments)
    assert "✅ docs-sync: success" in standin.issue_comments[0]["body"]
    # A finding comes back and its new review's answer is lost again: the new comment is adopted,
    # the first review's comments stay fixed, and nothing is posted a third time.
    standin.fail_next("POST", r"/pulls/23/reviews$", 502, after=True)
    standin.update_pull(23, head="one")
    bot.check(23, "main", "one")
    assert len(standin.reviews) == 2 and len(standin.review_comments) == 4
    state = Store(bot.queue).pull_state(PullRef("octo-org/docs-repo", 23))
    assert sorted(c.state for c in state.comments.values()) == ["fixed", "fixed", "open"]
    assert len(state.reviews) == 2 and not state.review_pending


def test_the_inline_cap_holds_for_the_pull_request_not_each_run(bot, standin, repo_and_shas):
    bot.check(24, "many-base", "many-head")
    assert len(standin.review_comments) == 30
    first = standin.check_runs[0]["id"]
    (spec,) = route("check_run", check_run_payload(standin, repo_and_shas[1]["many-head"], first))
    bot.queue.enqueue("rerun", spec.kind, spec.payload, key=spec.key)  # a person asks again
    while bot.worker.run_once() is not None:
        pass
    assert [r["conclusion"] for r in standin.check_runs] == ["failure", "failure"]
    assert len(standin.reviews) == 1 and len(standin.review_comments) == 30
    note = "30 more findings are not commented inline: docs-sync keeps at most 30 comments open"
    assert note in standin.issue_comments[0]["body"] and note in standin.check_runs[1]["output"]["summary"]
