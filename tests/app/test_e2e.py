"""The App end to end over real HTTP both ways: signed recorded payloads POSTed to the running bot,
its worker talking to the GitHub stand-in, and assertions on what the stand-in recorded."""

from __future__ import annotations

import functools
import itertools
import json
import socket
import threading
import time

import httpx
import pytest

from bot.app.intake.web import sign
from bot.app.jobs.handler import make_handler
from bot.app.main import build_server
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.worker import RetryableError, Worker
from bot.render.comments import SUMMARY_MARKER, marked_fingerprint
from bot.testing.appkit import (
    ARGS,
    DOC,
    BotServer,
    check_run_payload,
    check_suite_payload,
    comment_payload,
    pull_request_payload,
    requested_action_payload,
    settings_for,
)
from bot.testing.standin import GitHubStandIn
from tests.appkit import Clock, Scrape


@pytest.fixture(scope="module")
def bot(server, tmp_path_factory):
    clock = Clock()
    settings = settings_for(server, tmp_path_factory.mktemp("bot") / "queue.db")
    queue, metrics = SQLiteQueue(settings.db_path, clock=clock), Metrics()
    handler = make_handler(settings, queue, metrics, write_interval_s=0)
    with BotServer(settings, queue, handler, metrics) as running:
        running.clock = clock  # type: ignore[attr-defined]
        yield running
    queue.close()


class PR:
    """One pull request of the fixture repository, with the deliveries GitHub would send for it."""

    def __init__(
        self, bot: BotServer, standin: GitHubStandIn, shas: dict, number: int, head: str, base="main"
    ):
        self.bot, self.standin, self.shas = bot, standin, shas
        self.number, self.base = number, base
        self.head_sha = shas[head]
        standin.open_pull(number, base, head)

    def push(self, head: str) -> None:
        self.head_sha = self.shas[head]
        self.standin.update_pull(self.number, head=head)

    def deliver(self, action: str = "opened", delivery: str | None = None):
        payload = pull_request_payload(
            self.standin, action, self.number, self.head_sha, self.shas[self.base], self.base
        )
        return self.bot.deliver("pull_request", payload, delivery)

    def comment(self, body: str, user: str) -> dict:
        comment = self.standin.add_issue_comment(self.number, body, user=user)
        assert (
            self.bot.deliver("issue_comment", comment_payload(self.standin, self.number, comment)).status_code
            == 202
        )
        return comment


_NUMBERS = itertools.count(100)  # the bot's kv state outlives the stand-in's reset: never reuse one


@pytest.fixture
def pr(bot, standin, repo_and_shas):
    def make(head: str, base: str = "main") -> PR:
        return PR(bot, standin, repo_and_shas[1], next(_NUMBERS), head, base)

    return make


def bot_comments(standin: GitHubStandIn) -> list[dict]:
    return [c for c in standin.issue_comments if c["user"]["login"] == standin.bot_login]


def summaries(standin: GitHubStandIn) -> list[dict]:
    return [c for c in bot_comments(standin) if c["body"].startswith(SUMMARY_MARKER)]


# -- a pull request, start to finish ----------------------------------------------------------------


def test_a_signed_delivery_becomes_a_check_run_a_review_and_a_summary(bot, standin, pr, repo_and_shas):
    p = pr("pr")
    answer = p.deliver()
    assert answer.status_code == 202 and answer.json() == {"ok": True, "queued": 1}
    assert bot.deliver("pull_request", {"action": "opened"}, None).status_code in (200, 202)  # not ours
    bot.drain()
    (run,) = standin.check_runs
    assert (run["head_sha"], run["status"], run["conclusion"]) == (p.head_sha, "completed", "failure")
    assert run["output"]["title"] == "3 doc lines out of date"
    assert [(a["start_line"], a["annotation_level"], a["title"]) for a in run["output"]["annotations"]] == [
        (28, "failure", "unresolved: --fsdp-cpu-ofload"),
        (32, "failure", "renamed: --disable-fp32-master"),
        (34, "failure", "changed: --attn-implementation"),
    ]
    (review,) = standin.reviews
    assert (review["state"], review["commit_id"]) == ("COMMENTED", p.head_sha)
    by_line = {(c["path"], c["line"]): c["body"] for c in standin.review_comments}
    assert set(by_line) == {(DOC, 28), (ARGS, 10), (ARGS, 33)}
    assert "```suggestion\n| `--fsdp-cpu-offload` with `--offload-train` |" in by_line[(DOC, 28)]
    assert f"```diff\ndiff --git a/{DOC} b/{DOC}\n" in by_line[(ARGS, 10)]  # a patch `git apply` takes
    assert (
        "\n-- `--attn-implementation` picks the attention backend: `flash_attention_2` by default.\n+"
        in (by_line[(ARGS, 10)])
    )
    (summary,) = summaries(standin)
    assert "❌ docs-sync: failure — 3 errors" in summary["body"]
    assert f"/blob/{p.head_sha}/{DOC}#L32-L32" in summary["body"]


def test_redelivery_and_reruns_post_nothing_twice(bot, standin, pr, repo_and_shas):
    p = pr("pr")
    assert p.deliver(delivery="same-delivery").status_code == 202
    bot.drain()
    assert p.deliver(delivery="same-delivery").json() == {"ok": True, "duplicate": True}
    assert bot.drain() == []
    first_run = standin.check_runs[0]["id"]
    rerun = check_run_payload(standin, p.head_sha, first_run)  # no pull_requests: found by head SHA
    assert bot.deliver("check_run", rerun).status_code == 202
    button = requested_action_payload(standin, p.number, p.head_sha, repo_and_shas[1]["main"], first_run)
    assert bot.deliver("check_run", button).status_code == 202
    assert len(bot.drain()) == 2
    assert [r["conclusion"] for r in standin.check_runs] == ["failure"] * 3
    assert len(standin.reviews) == 1 and len(standin.review_comments) == 3
    assert len(summaries(standin)) == 1
    assert standin.calls("PATCH", r"/issues/comments/") == []  # same findings, same summary


def test_a_push_fixing_the_doc_passes_and_marks_the_comments_fixed(bot, standin, pr, repo_and_shas):
    p = pr("pr")
    p.deliver()
    bot.drain()
    (summary,) = summaries(standin)
    p.push("pr-fixed")
    p.deliver("synchronize")
    bot.drain()
    old, new = standin.check_runs
    assert (new["head_sha"], new["conclusion"], new["output"]["title"]) == (
        repo_and_shas[1]["pr-fixed"],
        "success",
        "Docs are in sync",
    )
    assert len(standin.reviews) == 1  # nothing new to say
    fixed = repo_and_shas[1]["pr-fixed"][:12]
    for c in standin.review_comments:
        assert c["body"].startswith(f"✅ **Fixed in {fixed}.** ~~")
        assert marked_fingerprint(c["body"])
    (edited,) = summaries(standin)
    assert edited["id"] == summary["id"] and "✅ docs-sync: success — no findings" in edited["body"]


def test_a_push_announced_twice_is_checked_once(bot, standin, pr, repo_and_shas):
    p = pr("one")
    p.deliver()
    bot.drain()  # the pull_request delivery ran before the check suite's arrived
    calls = len(standin.requests)
    suite = check_suite_payload(standin, p.head_sha, (p.number, repo_and_shas[1]["main"]))
    assert bot.deliver("check_suite", suite).status_code == 202
    assert len(bot.drain()) == 1
    assert len(standin.check_runs) == 1 and len(standin.requests) == calls  # not one call more
    rerequested = check_suite_payload(standin, p.head_sha, (p.number, repo_and_shas[1]["main"]))
    rerequested["action"] = "rerequested"  # a person asked: always a new run
    bot.deliver("check_suite", rerequested)
    bot.drain()
    assert len(standin.check_runs) == 2 and len(standin.reviews) == 1


# -- failures and their retries ---------------------------------------------------------------------


def test_a_server_error_and_a_secondary_rate_limit_are_retried_later(bot, standin, pr):
    p = pr("pr")
    standin.fail_next("GET", rf"/pulls/{p.number}/files$", 503)
    standin.fail_next("POST", rf"/pulls/{p.number}/reviews$", 403, headers={"retry-after": "7"})
    p.deliver()
    (job, again) = bot.drain()  # the 503 retries at once (no retry-after); the 403 waits 7 s
    assert (job.id, again.id) == (job.id, job.id)
    waiting = bot.queue.get(job.id)
    assert waiting.state == "queued" and waiting.not_before == pytest.approx(bot.clock() + 7)
    assert "rate limit" in waiting.last_error
    assert standin.check_runs[0]["status"] == "in_progress"
    bot.clock.advance(7)
    assert len(bot.drain()) == 1
    assert bot.queue.get(job.id).state == "done" and bot.queue.get(job.id).attempts == 3
    (run,) = standin.check_runs
    assert run["conclusion"] == "failure" and len(run["output"]["annotations"]) == 3
    assert len(standin.reviews) == 1 and len(summaries(standin)) == 1
    assert [s for _, _, s in standin.calls("GET", rf"/pulls/{p.number}/files$")] == [503, 200, 200]


def test_a_job_killed_midway_resumes_once_without_duplicates(standin, repo_and_shas, tmp_path):
    settings = settings_for(standin, tmp_path / "queue.db")
    queue = SQLiteQueue(settings.db_path)
    handler = make_handler(settings, queue, Metrics(), write_interval_s=0)
    with BotServer(settings, queue, handler) as first_process:
        p = PR(first_process, standin, repo_and_shas[1], 1, "pr")
        p.deliver()
        job = queue.claim()
        # The process dies after the review and the summary, before completing its check run.
        standin.fail_next("PATCH", r"/check-runs/", 500)
        with pytest.raises(RetryableError):
            handler(job)
    queue.close()

    reopened = SQLiteQueue(settings.db_path)
    assert reopened.recovered == 1
    worker = Worker(reopened, make_handler(settings, reopened, Metrics(), write_interval_s=0))
    assert worker.run_once() is not None and worker.run_once() is None
    assert reopened.counts()["done"] == 1
    reopened.close()
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    assert len(run["output"]["annotations"]) == 3
    assert len(standin.reviews) == 1 and len(standin.review_comments) == 3
    assert len(summaries(standin)) == 1


# -- configuration ------------------------------------------------------------------------------------


def test_an_unconfigured_repository_is_neutral_and_a_bad_config_fails(bot, standin, pr):
    pr("noconf-pr", base="noconf").deliver()
    pr("badconf-pr", base="badconf").deliver()
    bot.drain()
    neutral, failed = standin.check_runs
    assert (neutral["conclusion"], neutral["output"]["title"]) == ("neutral", "docs-sync is not configured")
    assert (failed["conclusion"], failed["output"]["title"]) == ("failure", "Invalid .github/docs-sync.yml")
    assert ".github/docs-sync.yml:5: rules[0].sauces: unknown key 'sauces'" in failed["output"]["summary"]
    assert standin.reviews == [] and bot_comments(standin) == []


# -- forks, supersede ----------------------------------------------------------------------------------


def test_a_forks_check_suite_finds_its_pull_request_by_head_sha(bot, standin, repo_and_shas):
    number = next(_NUMBERS)
    standin.open_pull(number, "main", "one", head_repo_fork=True, user="contributor")
    head = repo_and_shas[1]["one"]
    assert bot.deliver("check_suite", check_suite_payload(standin, head)).status_code == 202
    bot.drain()
    (run,) = standin.check_runs
    assert (run["head_sha"], run["conclusion"]) == (head, "failure")
    assert standin.calls("GET", rf"/commits/{head}/pulls$") and standin.calls("GET", r"/pulls$")
    (comment,) = standin.review_comments
    assert comment["path"] == ARGS and comment["line"] == 10 and comment["pull_number"] == number


def test_two_pushes_the_older_check_ends_superseded(bot, standin, pr, repo_and_shas):
    p = pr("one")
    p.deliver()
    p.push("pr")
    p.deliver("synchronize")  # both queued: the older never runs
    bot.drain()
    assert [r["head_sha"] for r in standin.check_runs] == [repo_and_shas[1]["pr"]]

    q = pr("one")
    q.deliver()
    older = bot.queue.claim()  # the worker has started on the older push...
    q.push("pr")
    q.deliver("synchronize")  # ...when the newer one arrives
    bot.worker.handler(older)
    bot.queue.complete(older.id)
    bot.drain()
    superseded, current = standin.check_runs[1:]
    assert (superseded["head_sha"], superseded["conclusion"], superseded["output"]["title"]) == (
        repo_and_shas[1]["one"],
        "neutral",
        "Superseded by a newer push",
    )
    assert (current["head_sha"], current["conclusion"]) == (repo_and_shas[1]["pr"], "failure")
    assert {r["commit_id"] for r in standin.reviews} == {repo_and_shas[1]["pr"]}


# -- commands --------------------------------------------------------------------------------------


def test_commands_over_http(bot, standin, pr, repo_and_shas):
    p = pr("one")
    p.deliver()
    bot.drain()
    standin.set_permission("writer", "write")
    standin.set_permission("reader", "read")
    asked = [
        p.comment("/docs-sync help", "reader"),
        p.comment("/docs-sync explain", "reader"),
        p.comment("/docs-sync ignore --attn-implementation", "reader"),
        p.comment("/docs-sync ignore --attn-implementation sdpa is the intended default", "writer"),
    ]
    bot.drain()
    assert all(
        any(r["comment_id"] == c["id"] and r["content"] == "eyes" for r in standin.reactions) for c in asked
    )
    help_reply, explain, refused, accepted = [
        c["body"] for c in bot_comments(standin) if c["body"].startswith(">")
    ]
    assert "`/docs-sync ignore <symbol> [reason]`" in help_reply
    assert "**1. changed `--attn-implementation`** (error, rule `training-backend-page`)" in explain
    assert "needs write access to the repository (you have read access)" in refused
    assert "Docs are in sync (1 finding ignored)" in accepted
    first, second = standin.check_runs
    assert first["conclusion"] == "failure" and second["conclusion"] == "success"
    (summary,) = summaries(standin)
    assert "sdpa is the intended default (@writer)" in summary["body"]


# -- metrics ---------------------------------------------------------------------------------------


def test_metrics_after_a_job_count_the_delivery_the_job_its_findings_and_github_calls(
    standin, repo_and_shas, tmp_path
):
    settings = settings_for(standin, tmp_path / "metrics.db")
    queue, metrics = SQLiteQueue(settings.db_path), Metrics()
    handler = make_handler(settings, queue, metrics, write_interval_s=0)
    with BotServer(settings, queue, handler, metrics) as running:
        PR(running, standin, repo_and_shas[1], 1, "pr").deliver()
        running.drain()
        text = httpx.get(f"{running.url}/metrics").text
    queue.close()
    scrape = Scrape(text)
    assert scrape("docs_sync_deliveries_total", event="pull_request") == 1
    assert scrape("docs_sync_jobs_total", outcome="done") == 1
    assert scrape("docs_sync_findings_total") == 3
    assert scrape("docs_sync_job_seconds_count") == 1
    assert scrape("docs_sync_job_seconds_bucket", le="+Inf") == 1
    assert scrape("docs_sync_queue_jobs", state="done") == 1
    assert scrape("docs_sync_queue_jobs", state="queued") == 0
    by_status: dict[str, int] = {}
    for _, _, status in standin.requests:
        by_status[str(status)] = by_status.get(str(status), 0) + 1
    counted = {
        dict(labels)["status"]: v for labels, v in scrape.series("docs_sync_github_calls_total").items()
    }
    assert counted == by_status  # every call the stand-in saw, by status, and nothing else


# -- the served App ------------------------------------------------------------------------------


def test_the_served_app_runs_jobs_on_its_worker_thread(standin, repo_and_shas, tmp_path):
    settings = settings_for(standin, tmp_path / "served.db")
    server = build_server(
        settings, "127.0.0.1", 0, handler_factory=functools.partial(make_handler, write_interval_s=0)
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        standin.open_pull(1, "main", "one")
        payload = pull_request_payload(
            standin, "opened", 1, repo_and_shas[1]["one"], repo_and_shas[1]["main"], "main"
        )
        body = json.dumps(payload).encode()
        headers = {
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": "served-1",
            "X-Hub-Signature-256": sign(settings.webhook_secret, body),
        }
        url = f"http://127.0.0.1:{sock.getsockname()[1]}{settings.webhook_path}"
        assert httpx.post(url, content=body, headers=headers).status_code == 202
        deadline = time.monotonic() + 10
        while not (standin.check_runs and standin.check_runs[0]["status"] == "completed"):
            assert time.monotonic() < deadline, "the worker thread did not finish the job"
            time.sleep(0.02)
        assert standin.check_runs[0]["conclusion"] == "failure" and len(standin.review_comments) == 1
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        server.config.app.state.queue.close()
