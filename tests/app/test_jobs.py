"""The check job: constructed jobs fed to the handler, the stand-in recording what reached GitHub;
and the pure planning underneath (diff lines, titles, inline comments, waivers)."""

from __future__ import annotations

import json

import pytest

from bot.app.analysis import apply_waivers, repo_html_url
from bot.app.checkruns import finish, start
from bot.app.context import Context
from bot.app.events import route
from bot.app.github import GitHubApp
from bot.app.handler import make_handler
from bot.app.metrics import Metrics
from bot.app.queue import SQLiteQueue
from bot.app.review import plan_inline, right_lines
from bot.app.snapshot import BasePatch, PullRevisions, base_patches, changes_from_files, unapply
from bot.app.store import Store, Waiver
from bot.app.worker import RetryableError, Worker
from bot.core.check import check
from bot.core.model import Change, CodeLocation, DocLocation, Finding, Report, Suggestion
from bot.core.packs import parse_repo_config
from bot.render.comments import (
    NOT_CONFIGURED,
    SUMMARY_MARKER,
    CheckOutcome,
    Links,
    check_title,
    finding_annotations,
    fixed_body,
    marked_fingerprint,
    summary_comment,
    summary_text,
)
from bot.testing.standin import GitHubStandIn, add_commit, make_repo, run_git
from bot.trees.git import GitRepo
from bot.trees.memory import MemoryTree
from tests.appkit import (
    ARGS,
    DOC,
    Clock,
    check_run_payload,
    pull_request_payload,
    settings_for,
)

# -- pure planning ---------------------------------------------------------------------------------

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


def finding(
    symbol="--old", *, doc_line=3, code=("src/cli.py", 7), replacement="new line", kind="renamed", **kw
):
    suggestion = (
        Suggestion("docs/page.md", doc_line, doc_line, replacement) if replacement is not None else None
    )
    return Finding(
        kind=kind,
        severity=kw.pop("severity", "error"),
        symbol=symbol,
        message=f"`{symbol}` is gone",
        rule="page",
        doc=DocLocation("docs/page.md", doc_line, "Title", "title") if doc_line else None,
        code=CodeLocation(*code) if code else None,
        suggestion=suggestion if doc_line else None,
        **kw,
    )


LINKS = Links("https://github.com/o/r", "a" * 40)
PAGE = "\n".join(f"line {i}" for i in range(1, 41))


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
    assert "```diff\n-line 3\n+new line\n```" in c.body


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


def test_fixed_comments_keep_their_marker():
    body = fixed_body("**renamed** `--old`: gone", "b" * 40, "0123456789abcdef")
    assert body.startswith("✅ **Fixed in bbbbbbbbbbbb.** ~~**renamed** `--old`: gone~~")
    assert marked_fingerprint(body) == "0123456789abcdef"


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


class MergeBaseOnly:
    """A blob reader that knows only the merge base, and counts how often it was asked."""

    def __init__(self, sha: str):
        self.sha, self.asked = sha, 0

    def merge_base(self, base_sha: str, head_sha: str) -> str:
        self.asked += 1
        return self.sha


def test_file_list_becomes_changes_and_reads_land_on_the_right_commit():
    files = [
        {
            "filename": "a.md",
            "status": "modified",
            "sha": "1" * 40,
            "changes": 2,
            "patch": "@@ -1 +1 @@\n-a\n+b",
        },
        {
            "filename": "new.py",
            "status": "renamed",
            "previous_filename": "old.py",
            "sha": "2" * 40,
            "changes": 0,
        },
        {"filename": "gone.py", "status": "removed", "sha": "3" * 40, "changes": 0},  # binary: no patch
        {"filename": "copy.py", "status": "copied", "sha": "4" * 40},
        {"filename": "same.py", "status": "unchanged"},
    ]
    changes = changes_from_files(files)
    assert changes == [
        Change("modified", "a.md"),
        Change("renamed", "new.py", "old.py"),
        Change("removed", "gone.py"),
        Change("added", "copy.py"),
    ]
    patches = base_patches(files)
    assert patches == {
        "a.md": BasePatch("a.md", "@@ -1 +1 @@\n-a\n+b", 2),
        "old.py": BasePatch("new.py", None, 0),
        "gone.py": BasePatch(None, None, 0),
    }
    reader = MergeBaseOnly("m" * 40)
    revs = PullRevisions(reader, "b" * 40, "h" * 40, changes, patches=patches)  # type: ignore[arg-type]
    # Changed files: derived from head and patch (a rename without edits is the same blob)...
    assert revs.derivable("a.md") and revs.derivable("old.py") and reader.asked == 0
    # ...else read at the merge base, never at the base branch's tip, which may have moved on.
    assert not revs.derivable("gone.py") and revs.where_base("gone.py") == ("m" * 40, "gone.py")
    assert revs.where_base("a.md") == ("m" * 40, "a.md") and reader.asked == 1  # asked once
    assert revs.where_head("a.md") == ("h" * 40, "a.md") and revs.where_head("old.py") is None
    assert revs.where_base("new.py") is None and revs.where_base("copy.py") is None
    assert revs.where_head("gone.py") is None
    # Untouched by the pull request: read once, at head, for both sides.
    assert revs.where_base("lib.py") == revs.where_head("lib.py") == ("h" * 40, "lib.py")
    assert not revs.derivable("lib.py")


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


def test_the_not_configured_example_is_a_valid_config():
    (pack,) = parse_repo_config(NOT_CONFIGURED.split("```yaml\n")[1].split("```")[0])
    assert [r.id for r in pack.rules] == ["usage-page"]


def test_repository_address_without_file_links():
    assert repo_html_url([], "o/r", "https://api.github.com") == "https://github.com/o/r"
    enterprise = repo_html_url([], "o/r", "https://ghe.example.com/api/v3")
    assert enterprise == "https://ghe.example.com/o/r"


# -- flows against the stand-in ------------------------------------------------------------------


class Bot:
    """A handler over a fresh queue; `check(...)` feeds it one pull_request delivery."""

    def __init__(self, standin: GitHubStandIn, shas: dict[str, str], tmp_path, **settings):
        self.standin, self.shas = standin, shas
        self.clock = Clock()
        self.settings = settings_for(standin, tmp_path / "q.db", **settings)
        self.queue = SQLiteQueue(self.settings.db_path, clock=self.clock)
        self.metrics = Metrics()
        self.handler = make_handler(self.settings, self.queue, self.metrics, write_interval_s=0)
        self.worker = Worker(self.queue, self.handler, self.metrics, base_delay_s=0, max_attempts=3)
        self.deliveries = 0
        self.opened: set[int] = set()

    def enqueue(self, number: int, base: str, head: str) -> None:
        if number not in self.opened:
            self.standin.open_pull(number, base, head)
            self.opened.add(number)
        payload = pull_request_payload(
            self.standin, "synchronize", number, self.shas[head], self.shas[base], base
        )
        (spec,) = route("pull_request", payload)
        self.deliveries += 1
        self.queue.enqueue(
            f"delivery-{self.deliveries}", spec.kind, spec.payload, key=spec.key, supersede=True
        )

    def check(self, number: int, base: str, head: str) -> None:
        self.enqueue(number, base, head)
        while self.worker.run_once() is not None:
            pass


@pytest.fixture
def bot(standin, repo_and_shas, tmp_path):
    b = Bot(standin, repo_and_shas[1], tmp_path)
    yield b
    b.queue.close()


def writes_and_reads(standin: GitHubStandIn) -> list[tuple[str, str, int]]:
    # The installation token is fetched once an hour, not per pull request.
    return [r for r in standin.requests if "/access_tokens" not in r[1]]


def test_a_typical_pull_request_costs_six_calls_and_a_clean_one_four(bot, standin):
    bot.check(1, "main", "one")  # the first pull request on main also reads the config once
    first = writes_and_reads(standin)
    assert [r[0] for r in first].count("POST") >= 3 and len(first) == 7

    standin.reset()
    bot.check(2, "main", "pr")
    calls = writes_and_reads(standin)
    assert [(m, p.rsplit("/", 2)[-2:] if p != "/graphql" else p) for m, p, _ in calls] == [
        ("POST", ["docs-repo", "check-runs"]),
        ("GET", ["2", "files"]),
        ("POST", "/graphql"),
        ("POST", ["2", "reviews"]),
        ("POST", ["2", "comments"]),
        ("PATCH", ["check-runs", str(standin.check_runs[0]["id"])]),
    ]
    run = standin.check_runs[0]
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "3 doc lines out of date",
    )
    assert run["actions"] == [
        {"label": "Re-run", "description": "Run docs-sync again", "identifier": "rerun"}
    ]

    standin.reset()
    bot.check(3, "main", "clean")
    calls = writes_and_reads(standin)
    assert len(calls) == 4 and standin.check_runs[0]["conclusion"] == "success"
    assert standin.issue_comments == [] and standin.reviews == []
    assert bot.metrics.value("docs_sync_github_calls_total", status="201") >= 4


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
    assert "```diff\n-- An fp32 master copy" in code_comment["body"]
    assert all(marked_fingerprint(c["body"]) for c in standin.review_comments)
    run = standin.check_runs[0]
    assert [(a["path"], a["start_line"]) for a in run["output"]["annotations"]] == [
        (DOC, 28),
        (DOC, 32),
        (DOC, 34),
    ]
    (summary,) = standin.issue_comments
    assert summary["body"].startswith("<!-- docs-sync:summary -->\n## ❌ docs-sync: failure")


def test_the_apps_rules_apply_when_the_repository_has_no_config(standin, repo_and_shas, tmp_path):
    (pack,) = parse_repo_config(
        (repo_and_shas[0] / ".github" / "docs-sync.yml").read_text(), "DOCS_SYNC_RULES/demo.yml"
    )
    bot = Bot(standin, repo_and_shas[1], tmp_path, rule_packs=(pack,))
    bot.check(5, "noconf", "noconf-pr")
    run = standin.check_runs[0]
    assert run["conclusion"] == "failure" and run["output"]["title"] == "2 doc lines out of date"
    bot.queue.close()


def test_not_configured_is_neutral_and_says_how(bot, standin):
    bot.check(6, "noconf", "noconf-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("neutral", "docs-sync is not configured")
    assert ".github/docs-sync.yml" in run["output"]["summary"] and "```yaml" in run["output"]["summary"]
    assert standin.calls("GET", r"/files$") == [] and standin.issue_comments == []


def test_a_bad_config_fails_with_file_line_and_key(bot, standin):
    bot.check(7, "badconf", "badconf-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "Invalid .github/docs-sync.yml")
    assert ".github/docs-sync.yml:5: rules[0].sauces: unknown key" in run["output"]["summary"]
    (note,) = run["output"]["annotations"]
    assert (note["path"], note["start_line"], note["annotation_level"]) == (
        ".github/docs-sync.yml",
        5,
        "failure",
    )


def test_sixty_findings_make_two_annotation_batches_and_thirty_comments(bot, standin):
    bot.check(8, "many-base", "many-head")
    (run,) = standin.check_runs
    assert len(run["output"]["annotations"]) == 60
    assert len(standin.calls("PATCH", r"/check-runs/")) == 2
    assert len(standin.review_comments) == 30
    assert "30 more findings are not commented inline" in standin.issue_comments[0]["body"]
    assert "30 more findings are not commented inline" in run["output"]["summary"]


def test_an_error_github_will_not_fix_fails_the_check_run(bot, standin):
    standin.fail_next("GET", r"/pulls/9/files$", 404)
    bot.check(9, "main", "pr")
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "docs-sync could not run",
    )
    assert "GitHub answered 404 to GET /repos/octo-org/docs-repo/pulls/9/files" in run["output"]["summary"]
    assert bot.queue.counts()["failed"] == 1
    assert len(standin.calls("PATCH", r"/check-runs/")) == 1  # abandoning the job finds it complete


def test_retries_reuse_the_check_run_and_the_last_one_fails_it(bot, standin):
    standin.fail_next("POST", r"/graphql$", 502, times=5)
    bot.enqueue(10, "main", "pr")
    for attempt in range(1, 4):
        job = bot.worker.run_once()
        assert job is not None and job.attempts == attempt
    (run,) = standin.check_runs  # one run across three attempts
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    assert run["output"]["title"] == "docs-sync could not run"
    assert "gave up after 3 attempts: GitHub answered 502" in run["output"]["summary"]
    assert bot.queue.counts()["failed"] == 1 and len(standin.calls("PATCH", r"/check-runs/")) == 1


def test_a_job_that_keeps_crashing_the_process_still_completes_its_check_run(
    standin, repo_and_shas, tmp_path
):
    shas = repo_and_shas[1]
    settings = settings_for(standin, tmp_path / "q.db")
    standin.open_pull(18, "main", "pr")
    (spec,) = route(
        "pull_request", pull_request_payload(standin, "opened", 18, shas["pr"], shas["main"], "main")
    )
    for attempt in range(1, 4):  # three processes die in the middle of the job
        queue = SQLiteQueue(settings.db_path)
        if attempt == 1:
            queue.enqueue("crashing", spec.kind, spec.payload, key=spec.key)
        job = queue.claim()
        assert job is not None and job.attempts == attempt
        standin.fail_next("GET", r"/pulls/18/files$", 500)  # stands for what killed the process
        with pytest.raises(RetryableError):
            make_handler(settings, queue, Metrics(), write_interval_s=0)(job)
        queue.close()  # no outcome recorded: the next process finds the job interrupted
    (run,) = standin.check_runs
    assert run["status"] == "in_progress"  # what a required check would wait on forever

    queue = SQLiteQueue(settings.db_path)
    handler = make_handler(settings, queue, Metrics(), write_interval_s=0)
    job = Worker(queue, handler, Metrics(), max_attempts=3).run_once()
    assert queue.get(job.id).state == "failed"
    queue.close()
    assert len(standin.calls("GET", r"/pulls/18/files$")) == 3  # not run a fourth time
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "docs-sync could not run",
    )
    assert "gave up after 3 attempts: interrupted" in run["output"]["summary"]


def test_a_running_job_superseded_by_a_newer_push_posts_nothing(bot, standin, repo_and_shas):
    shas = repo_and_shas[1]
    bot.enqueue(11, "main", "one")
    old = bot.queue.claim()
    standin.update_pull(11, head="pr")
    bot.enqueue(11, "main", "pr")  # arrives while the old job runs
    assert bot.queue.counts()["superseded"] == 0  # the queue supersedes queued jobs only
    bot.handler(old)
    bot.queue.complete(old.id)
    assert len(standin.check_runs) == 1
    run = standin.check_runs[0]
    assert (run["head_sha"], run["conclusion"], run["output"]["title"]) == (
        shas["one"],
        "neutral",
        "Superseded by a newer push",
    )
    assert standin.reviews == [] and standin.issue_comments == []
    bot.worker.run_once()
    assert (
        standin.check_runs[1]["head_sha"] == shas["pr"] and standin.check_runs[1]["conclusion"] == "failure"
    )


def test_a_job_whose_pull_request_moved_on_posts_nothing(bot, standin, repo_and_shas):
    bot.enqueue(14, "main", "one")
    standin.update_pull(14, head="pr")  # pushed; the delivery has not arrived yet
    bot.worker.run_once()
    (run,) = standin.check_runs
    assert (run["head_sha"], run["conclusion"]) == (repo_and_shas[1]["one"], "neutral")
    assert run["output"]["title"] == "Superseded by a newer push" and standin.reviews == []


def test_the_kv_state_records_what_was_posted(bot, standin):
    bot.check(12, "main", "pr")
    state = json.loads(bot.queue.kv_get("pr", "octo-org/docs-repo#12"))
    assert len(state["comments"]) == 3 and state["summary_id"] == standin.issue_comments[0]["id"]
    report = json.loads(bot.queue.kv_get("report", "octo-org/docs-repo#12"))
    assert [f["symbol"] for f in report["findings"]] == [
        "--fsdp-cpu-ofload",
        "--disable-fp32-master",
        "--attn-implementation",
    ]


def test_a_payload_without_installation_asks_github_for_it(bot, standin, repo_and_shas):
    standin.open_pull(15, "main", "clean")
    payload = pull_request_payload(
        standin, "opened", 15, repo_and_shas[1]["clean"], repo_and_shas[1]["main"], "main"
    )
    del payload["installation"]
    (spec,) = route("pull_request", payload)
    assert spec.payload["installation_id"] is None
    bot.queue.enqueue("no-installation", spec.kind, spec.payload, key=spec.key)
    bot.worker.run_once()
    assert standin.calls("GET", r"/repos/octo-org/docs-repo/installation$")
    assert standin.check_runs[0]["conclusion"] == "success"


def test_retryable_errors_reach_the_worker(bot, standin):
    standin.fail_next("GET", r"/pulls/13/files$", 403, headers={"retry-after": "30"})
    bot.enqueue(13, "main", "clean")
    with pytest.raises(RetryableError):
        bot.handler(bot.queue.claim())
    assert standin.check_runs[0]["status"] == "in_progress"  # left for the retry to finish


def test_an_exception_in_the_core_fails_the_check_run_with_the_error(bot, standin, monkeypatch):
    def broken_check(*args, **kwargs):
        raise ValueError("the core tripped over assets/blob.bin")

    monkeypatch.setattr("bot.app.analysis.check", broken_check)
    bot.check(25, "main", "pr")
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "docs-sync could not run",
    )
    assert "the core tripped over assets/blob.bin" in run["output"]["summary"]
    assert bot.queue.counts()["failed"] == 1 and standin.reviews == [] and standin.issue_comments == []


def test_a_pull_request_closed_before_its_job_runs_still_gets_a_completed_check_run(bot, standin):
    bot.enqueue(26, "main", "one")
    standin.update_pull(26, state="closed")
    while bot.worker.run_once() is not None:
        pass
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "failure")


def test_a_pull_request_github_does_not_know_leaves_no_check_run_behind(bot, standin, repo_and_shas):
    payload = check_run_payload(standin, repo_and_shas[1]["one"], 1)
    (spec,) = route("check_run", payload)
    spec.payload.update(pr=404, base_sha=None)  # a re-run naming a pull request GitHub answers 404 for
    bot.queue.enqueue("gone", spec.kind, spec.payload, key="octo-org/docs-repo#404")
    bot.worker.run_once()
    assert standin.check_runs == []  # found out before a check run was started
    (job,) = [bot.queue.get(1)]
    assert job.state == "failed" and "GitHub answered 404 to GET /repos/octo-org/docs-repo/pulls/404" in (
        job.last_error or ""
    )


def test_a_retry_overtaken_by_a_newer_push_closes_its_check_run(bot, standin, repo_and_shas):
    shas = repo_and_shas[1]
    standin.fail_next("GET", r"/pulls/21/files$", 403, headers={"retry-after": "600"})
    bot.check(21, "main", "one")  # the check run is created, then GitHub asks for ten minutes
    (waiting,) = standin.check_runs
    assert waiting["status"] == "in_progress"
    standin.update_pull(21, head="pr")
    bot.check(21, "main", "pr")  # the newer push: the waiting job runs at once and steps aside
    old, new = standin.check_runs
    assert (old["id"], old["status"], old["conclusion"]) == (waiting["id"], "completed", "neutral")
    assert old["output"]["title"] == "Superseded by a newer push"
    assert (new["head_sha"], new["conclusion"]) == (shas["pr"], "failure")
    assert {r["commit_id"] for r in standin.reviews} == {shas["pr"]}
    assert bot.queue.counts() == {"queued": 0, "running": 0, "done": 2, "failed": 0, "superseded": 0}
    assert len(standin.calls("GET", r"/pulls/21/files$")) == 2  # the overtaken job read nothing more


def test_a_missing_permission_fails_the_check_run_and_says_so(bot, standin):
    standin.fail_next(
        "POST", r"/pulls/22/reviews$", 403, body={"message": "Resource not accessible by integration"}
    )
    bot.check(22, "main", "pr")
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "docs-sync could not run",
    )
    assert (
        "GitHub answered 403 to POST /repos/octo-org/docs-repo/pulls/22/reviews" in run["output"]["summary"]
    )
    assert "may lack a permission" in run["output"]["summary"]
    assert bot.queue.counts()["failed"] == 1 and len(standin.calls("POST", r"/reviews$")) == 1  # no retry


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
    assert len(standin.calls("GET", r"/pulls/23/comments$")) == 1  # looked once, after the loss
    assert len(standin.calls("GET", r"/issues/23/comments$")) == 1
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
    state = json.loads(bot.queue.kv_get("pr", "octo-org/docs-repo#23"))
    assert sorted(c["state"] for c in state["comments"].values()) == ["fixed", "fixed", "open"]
    assert len(state["reviews"]) == 2 and not state["review_pending"]


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


def test_a_check_run_created_without_an_answer_is_found_not_doubled(bot, standin):
    standin.fail_next("POST", r"/check-runs$", 502, after=True)  # created; the answer is lost
    bot.check(27, "main", "one")
    (run,) = standin.check_runs  # the retry found it by its external id
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    assert len(standin.calls("GET", r"/commits/[0-9a-f]+/check-runs$")) == 1
    assert bot.queue.counts()["done"] == 1


def test_a_job_given_up_after_an_unanswered_creation_still_completes_that_run(bot, standin):
    standin.fail_next("POST", r"/check-runs$", 502, after=True)
    bot.enqueue(28, "main", "one")
    Worker(bot.queue, bot.handler, bot.metrics, max_attempts=1).run_once()  # no retry left
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "docs-sync could not run",
    )
    assert "gave up after 1 attempts: GitHub answered 502" in run["output"]["summary"]


def test_annotations_go_before_the_conclusion_and_outputs_fit_in_bytes(standin, repo_and_shas, tmp_path):
    # 120 annotations and a summary of 3-byte characters: GitHub measures the summary in bytes.
    app = GitHubApp(standin.app_id, standin.private_key_pem, standin.url, write_interval_s=0)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    head = repo_and_shas[1]["pr"]
    notes = [
        {
            "path": DOC,
            "start_line": i + 1,
            "end_line": i + 1,
            "annotation_level": "warning",
            "message": f"note {i}",
        }
        for i in range(120)
    ]
    with SQLiteQueue(str(tmp_path / "q.db")) as queue:
        ctx = Context(
            job_id=1,
            delivery_id="delivery-1",
            repo=repo,
            store=Store(queue),
            queue=queue,
            settings=settings_for(standin, tmp_path / "q.db"),
            metrics=Metrics(),
        )
        run = start(ctx, head)
        outcome = CheckOutcome("failure", "120 notes", "文" * 30_000, tuple(notes))
        standin.fail_next("PATCH", r"/check-runs/", 502, skip=1)  # the second batch fails
        with pytest.raises(RetryableError):
            finish(ctx, run, outcome)
        (live,) = standin.check_runs
        assert live["status"] == "in_progress" and len(live["output"]["annotations"]) == 50
        resumed = start(ctx, head)  # the job's retry
        assert (resumed.id, resumed.sent, resumed.done) == (run.id, 50, False)
        assert finish(ctx, resumed, outcome).done
    (done,) = standin.check_runs
    assert (done["status"], done["conclusion"]) == ("completed", "failure")
    assert len(done["output"]["summary"].encode()) <= 65_535 and done["output"]["summary"].endswith("…")
    assert [a["start_line"] for a in done["output"]["annotations"]] == list(range(1, 121))
    assert [s for _, _, s in standin.calls("PATCH", r"/check-runs/")] == [200, 502, 200, 200]


# -- the base side is the merge base ---------------------------------------------------------------


def test_a_base_branch_that_moved_on_is_not_the_pull_requests_doing(bot, standin, repo_and_shas):
    repo_dir, shas = repo_and_shas
    bot.check(16, "drift-main", "drift-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "1 doc line out of date")
    assert [a["title"] for a in run["output"]["annotations"]] == ["changed: --attn-implementation"]
    assert "--warmup-steps" not in standin.issue_comments[0]["body"]
    assert standin.calls("GET", r"/compare/") == []  # GitHub's patches were enough
    assert len(writes_and_reads(standin)) == 7  # the typical 6, plus the first read of this branch's config
    # Read at the base branch's tip instead, the stale line the base branch dropped after the
    # branch point would count as a line this pull request added.
    base, head = tree_at(repo_dir, shas["drift-main"]), tree_at(repo_dir, shas["drift-pr"])
    (pack,) = parse_repo_config(base.read(".github/docs-sync.yml"))
    changes = GitRepo(repo_dir).changes(shas["drift"], shas["drift-pr"])  # what GitHub lists
    naive = check(pack.rules, base, head, changes)
    assert "--warmup-steps" in {f.symbol for f in naive.findings}


def tree_at(repo_dir, sha: str) -> MemoryTree:
    paths = run_git(repo_dir, "ls-tree", "-r", "--name-only", sha).decode().split()
    return MemoryTree({p: run_git(repo_dir, "show", f"{sha}:{p}").decode() for p in paths})


def test_without_a_patch_the_base_side_is_read_at_the_merge_base(bot, standin, repo_and_shas):
    shas = repo_and_shas[1]
    standin.omit_patches(r"training-backend\.md$")  # as GitHub does for a diff too large to show
    bot.check(17, "drift-main", "drift-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "1 doc line out of date")
    assert [a["title"] for a in run["output"]["annotations"]] == ["changed: --attn-implementation"]
    (compare,) = standin.calls("GET", r"/compare/")
    assert compare[1].endswith(f"/compare/{shas['drift-main']}...{shas['drift-pr']}")
    remembered = bot.queue.kv_get(
        "merge-base", f"octo-org/docs-repo@{shas['drift-main']}...{shas['drift-pr']}"
    )
    assert json.loads(remembered) == {"sha": shas["drift"]}
    # One compare call more than with patches: 7, plus the first read of this branch's config.
    assert len(writes_and_reads(standin)) == 8


def git_patch(tmp_path, old: str, new: str | None) -> str:
    """git's patch of one file from `old` to `new` (None: removed), as GitHub's file list has it."""
    repo_dir, (base,) = make_repo(tmp_path, [{"f.txt": old}])
    head = add_commit(repo_dir, {"f.txt": new}, parent="main", branch="topic")
    diff = run_git(repo_dir, "diff", "--no-color", base, head, "--", "f.txt").decode()
    return diff[diff.index("\n@@") + 1 :].rstrip("\n")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\nd\ne\nf\ng\nh\ni\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\n"),  # two hunks, one at the end
        ("a\nb\n", "x\na\nb\n"),  # an insertion at the top
        ("a\nb", "a\nb\n"),  # a newline added at the end
        ("a\nb\n", "a\nb"),  # and taken away
        ("a\r\nb\r\n", "a\r\nc\r\n"),  # CRLF lines
        ("a\n\nb\n", "\n\nb\n"),  # empty lines as context
        ("only line\n", ""),  # emptied
        ("a\nb\n", None),  # removed: the patch holds every line
    ],
)
def test_taking_a_patch_back_out_gives_the_old_file(tmp_path, old, new):
    patch = git_patch(tmp_path, old, new)
    assert unapply(new or "", patch) == old


def test_a_patch_that_does_not_fit_is_refused(tmp_path):
    patch = git_patch(tmp_path, "a\nb\nc\n", "a\nB\nc\n")
    assert unapply("a\nB\nc\n", patch) == "a\nb\nc\n"
    assert unapply("a\nX\nc\n", patch) is None  # an added line is not in the head file
    assert unapply("z\nB\nc\n", patch) is None  # nor is a context line
    assert unapply("a\nB\nc", patch) is None  # the last line has no newline, the patch says it has
    assert unapply("a\nB\nc\n", patch.rsplit("\n", 1)[0]) is None  # a hunk cut short
