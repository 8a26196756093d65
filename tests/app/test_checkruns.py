"""The job's check run: annotations in batches before the conclusion, outputs cut to GitHub's
byte limits, one run across retries, and a creation whose answer was lost found, not doubled."""

from __future__ import annotations

import pytest

from bot.app.github.checkruns import finish, start
from bot.app.github.client import GitHubApp
from bot.app.github.context import Context
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.store import Store
from bot.app.queue.worker import RetryableError, Worker
from bot.render.comments import CheckOutcome
from bot.testing.appkit import DOC, settings_for


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


def test_sixty_findings_make_two_annotation_batches_and_thirty_comments(bot, standin):
    bot.check(8, "many-base", "many-head")
    (run,) = standin.check_runs
    assert len(run["output"]["annotations"]) == 60
    assert len(standin.calls("PATCH", r"/check-runs/")) == 2
    assert len(standin.review_comments) == 30
    assert "30 more findings are not commented inline" in standin.issue_comments[0]["body"]
    assert "30 more findings are not commented inline" in run["output"]["summary"]


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


def test_a_check_run_created_without_an_answer_is_found_not_doubled(bot, standin):
    standin.fail_next("POST", r"/check-runs$", 502, after=True)  # created; the answer is lost
    bot.check(27, "main", "one")
    (run,) = standin.check_runs  # the retry found it by its external id
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    # looked up twice: on the pull request's first run, and for the unanswered creation
    assert len(standin.calls("GET", r"/commits/[0-9a-f]+/check-runs$")) == 2
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
