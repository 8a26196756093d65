"""The check job end to end against the stand-in: what it costs, what it publishes, and how it ends
when GitHub or the core fails, the process crashes, or a newer push overtakes it."""

from __future__ import annotations

import pytest

from bot.app.intake.events import route
from bot.app.jobs.handler import make_handler
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.store import PullRef, Store
from bot.app.queue.worker import RetryableError, Worker
from bot.testing.appkit import check_run_payload, pull_request_payload, settings_for
from tests.appkit import CheckBot, writes_and_reads


def test_the_calls_a_typical_pull_request_and_a_clean_one_cost(bot, standin):
    bot.check(1, "main", "one")  # the first pull request on main also reads the config once
    first = writes_and_reads(standin)
    # Each check lists the trees of base and head once: which programs a repository has (whose
    # flags a command line takes, bot/core/programs.py) is read from its file list.
    assert [r[0] for r in first].count("POST") >= 3 and len(first) == 7 + 3 + 2

    standin.reset()
    bot.check(2, "main", "pr")
    calls = writes_and_reads(standin)
    assert [(m, p.rsplit("/", 2)[-2:] if p != "/graphql" else p) for m, p, _ in calls] == [
        # A pull request's first run looks up what docs-sync wrote on it (the database may
        # have been lost): its runs on the head, its review comments, its summary.
        ("GET", [standin.pull(2)["head"]["sha"], "check-runs"]),
        ("GET", ["2", "comments"]),
        ("GET", ["2", "comments"]),
        ("POST", ["docs-repo", "check-runs"]),
        ("GET", ["2", "files"]),
        ("POST", "/graphql"),
        ("GET", ["trees", standin.pull(2)["base"]["sha"]]),
        ("GET", ["trees", standin.pull(2)["head"]["sha"]]),
        # Whose is the added line's unknown flag (bot/core/check/ownership.py): the tools the
        # repository runs (its hooks, workflows and scripts), then the flags its other modules
        # declare, each scan read ahead 100 files to a query.
        ("POST", "/graphql"),
        ("POST", "/graphql"),
        # The flag typo on an added doc line is looked up in the head's history (app/history.py):
        # the commits of the rule's two parsers, and the versions of both in one query.
        ("GET", ["docs-repo", "commits"]),
        ("GET", ["docs-repo", "commits"]),
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
    assert len(calls) == 4 + 3 + 2 and standin.check_runs[0]["conclusion"] == "success"
    assert standin.issue_comments == [] and standin.reviews == []
    assert bot.metrics.value("docs_sync_github_calls_total", status="201") >= 4


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


def test_a_job_that_keeps_crashing_the_process_still_completes_its_check_run(
    standin, repo_and_shas, tmp_path
):
    shas = repo_and_shas[1]
    settings = settings_for(standin, tmp_path / "q.db")
    standin.open_pull(18, "main", "pr")
    (spec,) = route(
        "pull_request", pull_request_payload(standin, "opened", 18, shas["pr"], shas["main"], "main")
    )
    for attempt in range(1, 3):  # two processes die in the middle of the job (killed, or frozen)
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
    job = Worker(queue, handler, Metrics(), max_attempts=8).run_once()
    assert queue.get(job.id).state == "failed"
    queue.close()
    assert len(standin.calls("GET", r"/pulls/18/files$")) == 2  # not run a third time
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "docs-sync could not run",
    )
    assert "its worker process stopped under it 2 times (killed, or frozen" in run["output"]["summary"]


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


def test_the_store_records_what_was_posted(bot, standin, repo_and_shas):
    bot.check(12, "main", "pr")
    store, pr = Store(bot.queue), PullRef("octo-org/docs-repo", 12)
    state = store.pull_state(pr)
    assert len(state.comments) == 3 and state.open_fingerprints() == set(state.comments)
    assert state.summary_id == standin.issue_comments[0]["id"] and len(state.reviews) == 1
    stored = store.last_report(pr)
    assert stored is not None and stored.head_sha == repo_and_shas[1]["pr"]
    assert [f.symbol for f in stored.report.findings] == [
        "--fsdp-cpu-ofload",
        "--disable-fp32-master",
        "--attn-implementation",
    ]
    checked = store.checked("octo-org/docs-repo", repo_and_shas[1]["pr"])
    assert checked is not None and (checked.pr, checked.base_sha) == (12, repo_and_shas[1]["main"])
    assert checked.rules.startswith("config:")
    (run,) = standin.check_runs
    saved = store.check_run(1)  # the job's id
    assert saved is not None and (saved.id, saved.head_sha, saved.sent, saved.done) == (
        run["id"],
        run["head_sha"],
        3,  # annotations sent
        True,
    )


def test_retryable_errors_reach_the_worker(bot, standin):
    standin.fail_next("GET", r"/pulls/13/files$", 403, headers={"retry-after": "30"})
    bot.enqueue(13, "main", "clean")
    with pytest.raises(RetryableError):
        bot.handler(bot.queue.claim())
    assert standin.check_runs[0]["status"] == "in_progress"  # left for the retry to finish


def test_an_exception_in_the_core_fails_the_check_run_with_the_error(bot, standin, monkeypatch):
    def broken_check(*args, **kwargs):
        raise ValueError("the core tripped over assets/blob.bin")

    monkeypatch.setattr("bot.app.jobs.sandbox.Sandbox.check", broken_check)
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


def test_a_pull_request_delivered_after_its_token_was_revoked_still_gets_a_check_run(bot, standin):
    bot.check(30, "main", "one")
    standin.revoke_tokens()  # the token the App holds is refused from now on
    bot.check(31, "main", "pr")
    assert [(r["status"], r["conclusion"]) for r in standin.check_runs] == [
        ("completed", "failure"),
        ("completed", "failure"),
    ]
    assert standin.check_runs[1]["output"]["title"] == "3 doc lines out of date"
    assert bot.queue.counts()["done"] == 2


def test_a_token_revoked_in_the_middle_of_a_job_costs_one_new_token(bot, standin):
    bot.enqueue(32, "main", "pr")
    standin.fail_next("GET", r"/pulls/32/files$", 401, body={"message": "Bad credentials"})
    standin.revoke_tokens()
    bot.worker.run_once()
    (run,) = standin.check_runs
    assert (run["status"], run["output"]["title"]) == ("completed", "3 doc lines out of date")
    assert bot.queue.counts()["done"] == 1


def test_a_check_run_whose_completion_github_refuses_is_retried_until_it_is_complete(bot, standin):
    refused = {"message": "Resource not accessible by integration"}
    standin.fail_next("PATCH", r"/check-runs/\d+$", 403, times=3, body=refused)
    bot.check(33, "main", "one")
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "docs-sync could not run",
    )
    assert "Resource not accessible by integration" in run["output"]["summary"]
    # attempt 1: the conclusion and the failure both refused; attempt 2: the failure goes through
    assert [s for _, _, s in standin.calls("PATCH", r"/check-runs/")] == [403, 403, 403, 200]
    assert bot.queue.counts()["failed"] == 1


def test_a_head_checked_against_another_base_is_checked_again(bot, standin, repo_and_shas):
    # Pull request A puts a head on a branch with no config: neutral, "not configured". B puts
    # the same head against main: a run on that head does not pass B's required check.
    bot.check(15, "noconf", "noconf-pr")
    (first,) = standin.check_runs
    assert first["conclusion"] == "neutral"
    bot.check(16, "main", "noconf-pr")
    assert [r["head_sha"] for r in standin.check_runs] == [repo_and_shas[1]["noconf-pr"]] * 2
    second = standin.check_runs[1]
    assert (second["conclusion"], second["output"]["title"]) == ("failure", "2 doc lines out of date")


def test_a_head_checked_against_the_same_base_and_rules_is_adopted(bot, standin, repo_and_shas, tmp_path):
    bot.check(17, "main", "pr")
    (run,) = standin.check_runs
    marker = f"<!-- docs-sync:checked base={repo_and_shas[1]['main']} rules=config:"
    assert run["output"]["summary"].startswith(marker)
    # The database is lost: the same head delivered again is GitHub's run, not a new one.
    (tmp_path / "again").mkdir()
    again = CheckBot(standin, repo_and_shas[1], tmp_path / "again")
    again.opened = set(bot.opened)
    again.check(17, "main", "pr")
    assert [r["id"] for r in standin.check_runs] == [run["id"]]
    again.queue.close()
