"""The check of a pull request in a process of its own, within the App's budgets: past any of them
the check run fails naming the budget and its value, nothing else is posted, and the worker and
the intake go on."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from bot.app.config import Budget
from bot.app.jobs import sandbox
from bot.app.jobs.handler import make_handler
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.store import Store
from bot.testing.appkit import BotServer, build_repo, pull_request_payload, settings_for
from bot.testing.standin import add_commit, run_git
from tests.appkit import CheckBot

ARGS = "trainer/arguments.py"  # an `argparse` source of the demo's rule


def big_argparse_module(megabytes: float) -> str:
    lines = ["import argparse", "", "", "def add_args(parser: argparse.ArgumentParser) -> None:"]
    size, i = 0, 0
    while size < megabytes * 1024 * 1024:
        line = f'    parser.add_argument("--opt-{i}", type=int, default={i}, help="Option {i} of many.")'
        lines.append(line)
        size, i = size + len(line) + 1, i + 1
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def repo_and_shas(tmp_path_factory):
    repo, shas = build_repo(tmp_path_factory.mktemp("sandbox"))
    shas["big"] = add_commit(repo, {ARGS: big_argparse_module(4)}, parent="main", branch="big")
    return repo, shas


def checked(standin, shas, tmp_path, number: int, head: str, budget: Budget) -> dict:
    bot = CheckBot(standin, shas, tmp_path, budget=budget)
    try:
        bot.check(number, "main", head)
        assert bot.queue.counts()["done"] == 1  # the job ended; nothing is retried
    finally:
        bot.queue.close()
    (run,) = standin.check_runs
    assert run["status"] == "completed" and run["conclusion"] == "failure"
    assert standin.reviews == [] and standin.issue_comments == []  # nothing else was posted
    return run


@pytest.mark.parametrize(
    ("head", "budget", "title"),
    [
        ("pr", Budget(findings=2), "Over the findings budget: 3 findings (limit 2 findings)"),
        ("pr", Budget(rules=0), "Over the rules budget: 1 rule (limit 0 rules)"),
        (
            "pr",
            Budget(source_mb=0.001),
            r"Over the source budget: more than \d\.\d kB of files to read \(limit 1\.0 kB\)",
        ),
        (
            "big",
            Budget(seconds=0.5, memory_mb=4096),
            "Over the time budget: the analysis ran past 0.5 s (limit 0.5 s)",
        ),
        (
            "big",
            Budget(memory_mb=200),
            "Over the memory budget: the analysis needed more than 200 MB (limit 200 MB)",
        ),
    ],
    ids=["findings", "rules", "source", "time", "memory"],
)
def test_a_pull_request_past_a_budget_fails_its_check_naming_it(
    standin, repo_and_shas, tmp_path, head, budget, title
):
    run = checked(standin, repo_and_shas[1], tmp_path, 1, head, budget)
    assert re.fullmatch(title, run["output"]["title"]) or run["output"]["title"] == title
    setting = {"findings": "DOCS_SYNC_MAX_FINDINGS", "rules": "DOCS_SYNC_MAX_RULES"}
    assert "does not say they are in sync" in run["output"]["summary"]
    for word, name in setting.items():
        if word in title:
            assert name in run["output"]["summary"]


def test_an_analysis_out_of_memory_ends_its_job_not_the_app(standin, repo_and_shas, tmp_path):
    shas = repo_and_shas[1]
    settings = settings_for(standin, tmp_path / "q.db", budget=Budget(memory_mb=200))
    with (
        SQLiteQueue(settings.db_path) as queue,
        BotServer(settings, queue, make_handler(settings, queue, Metrics(), write_interval_s=0)) as bot,
    ):
        bot.worker.start()
        try:
            for number, head in ((1, "big"), (2, "one")):
                standin.open_pull(number, "main", head)
                payload = pull_request_payload(standin, "opened", number, shas[head], shas["main"], "main")
                assert bot.deliver("pull_request", payload).status_code == 202
            deadline = time.monotonic() + 60
            while sum(1 for r in standin.check_runs if r["status"] == "completed") < 2:
                assert bot._http.get("/healthz").status_code == 200  # the intake answers all along
                assert time.monotonic() < deadline, standin.check_runs
                time.sleep(0.05)
        finally:
            bot.worker.stop(timeout=30)
        titles = {standin.pull(n)["head"]["sha"]: None for n in (1, 2)}
        for run in standin.check_runs:
            titles[run["head_sha"]] = run["output"]["title"]
        assert titles[shas["big"]].startswith("Over the memory budget")
        assert titles[shas["one"]] == "1 doc line out of date"  # the next job went on as usual
        assert queue.counts()["done"] == 2


SECRETS = {
    "PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----\nkey-material\n-----END RSA PRIVATE KEY-----",
    "WEBHOOK_SECRET": "the-webhook-secret",
    "DATABASE_URL": "postgresql://docs:the-db-password@db:5432/docs",
}


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_the_analysis_has_none_of_the_apps_secrets_and_its_limits_before_any_read(
    standin, repo_and_shas, tmp_path, monkeypatch
):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    bot = CheckBot(standin, repo_and_shas[1], tmp_path, budget=Budget(memory_mb=300, seconds=7))
    try:
        bot.check(1, "main", "pr")  # a real job; it starts the next job's process ahead
    finally:
        bot.queue.close()
    assert standin.check_runs[0]["output"]["title"] == "3 doc lines out of date"
    limits, spare = sandbox._SPARES._ready[threading.get_ident()]
    assert limits == (300 << 20, 7)
    environ = Path(f"/proc/{spare.pid}/environ").read_bytes()
    names = {entry.split(b"=", 1)[0].decode() for entry in environ.split(b"\0") if entry}
    assert names <= {*sandbox.CHILD_ENVIRONMENT, "PYTHONPATH"} and "PATH" in names
    assert not any(value.encode() in environ for value in SECRETS.values())
    # Not sent a frame yet, the process has its address space and CPU time limited already.
    deadline = time.monotonic() + 30
    while str(300 << 20) not in (text := Path(f"/proc/{spare.pid}/limits").read_text()):
        assert spare.poll() is None and time.monotonic() < deadline, text
        time.sleep(0.01)
    (memory,) = [line.split()[3:5] for line in text.splitlines() if line.startswith("Max address space")]
    (cpu,) = [line.split()[3:5] for line in text.splitlines() if line.startswith("Max cpu time")]
    assert memory == [str(300 << 20)] * 2 and cpu == ["12", "17"]


def test_a_page_past_the_reads_budget_is_refused_before_it_is_fetched(standin, repo_and_shas, tmp_path):
    from bot.testing.trainer import CONFIG

    repo, shas = repo_and_shas
    globbed = CONFIG.replace("path: docs/training-backend.md", 'path: "docs/*.md"')
    shas.setdefault("globbed", add_commit(repo, {".github/docs-sync.yml": globbed}, branch="globbed"))
    huge = "# Huge\n\n" + "A line of a page that goes on. " * 70_000 + "\n"  # 2.2 MB
    shas.setdefault("huge", add_commit(repo, {"docs/huge.md": huge}, parent="globbed", branch="huge"))
    bot = CheckBot(standin, shas, tmp_path, budget=Budget(source_mb=0.1))  # reads: 1.4 MB
    try:
        bot.check(3, "globbed", "huge")
        oid = run_git(repo, "rev-parse", "huge:docs/huge.md").decode().strip()
        assert Store(bot.queue).blob_text(oid) is None  # never fetched: the tree gave its size
    finally:
        bot.queue.close()
    (run,) = standin.check_runs
    assert run["conclusion"] == "failure"
    assert (
        run["output"]["title"]
        == "Over the source budget: more than 2.1 MB of files fetched (limit 1.4 MB fetched)"
    )
    assert "DOCS_SYNC_MAX_SOURCE_MB" in run["output"]["summary"]


def test_a_jobs_reads_stop_at_their_count_of_queries_and_bytes(bot, standin, repo_and_shas):
    from bot.app.github.client import GitHubApp
    from bot.app.jobs.sandbox import BudgetExceeded
    from bot.app.jobs.snapshot import BlobReader, ReadLimit

    app = GitHubApp(standin.app_id, standin.private_key_pem, standin.url, write_interval_s=0)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    head = repo_and_shas[1]["pr"]
    reader = BlobReader(repo, Store(bot.queue), ReadLimit(bytes=1 << 20, queries=2))
    reader.fetch([(head, "docs/training-backend.md")])
    reader.fetch([(head, ARGS)])
    with pytest.raises(BudgetExceeded, match="more than 2 queries for files"):
        reader.fetch([(head, "trainer/backends/fsdp/arguments.py")])
    assert len(standin.calls("POST", r"/graphql$")) == 2  # the third is refused, not made
    small = BlobReader(repo, Store(bot.queue), ReadLimit(bytes=100, queries=10))
    limit = r"more than 4\.0 MB of files fetched \(limit 0\.1 kB fetched\)"
    with pytest.raises(BudgetExceeded, match=limit):
        small.fetch([(repo_and_shas[1]["big"], ARGS)])  # counted as it comes, before it is kept
    (answer,) = repo.blobs([f"{repo_and_shas[1]['big']}:{ARGS}"])
    assert Store(bot.queue).blob_text(answer["oid"]) is None


def test_a_hostile_edited_config_leaves_the_app_answering(standin, repo_and_shas, tmp_path):
    # The pull request's own config and file name: a glob a backtracking regex took hours on
    # (tests/core/test_globs.py), matched in the analysis process and in linear time, while the
    # intake answers and the next job goes on.
    from bot.testing.trainer import CONFIG

    repo, shas = repo_and_shas
    glob = "docs/" + "*a" * 14 + "*b.md"
    files = {".github/docs-sync.yml": CONFIG.replace("path: docs/training-backend.md", f'path: "{glob}"')}
    files["docs/" + "a" * 44 + ".txt"] = "a\n"
    shas.setdefault("freeze", add_commit(repo, files, branch="freeze"))
    settings = settings_for(standin, tmp_path / "q.db")
    with (
        SQLiteQueue(settings.db_path) as queue,
        BotServer(settings, queue, make_handler(settings, queue, Metrics(), write_interval_s=0)) as bot,
    ):
        bot.worker.start()
        try:
            for number, head in ((4, "freeze"), (5, "one")):
                standin.open_pull(number, "main", head)
                payload = pull_request_payload(standin, "opened", number, shas[head], shas["main"], "main")
                assert bot.deliver("pull_request", payload).status_code == 202
            deadline = time.monotonic() + 60
            while sum(1 for r in standin.check_runs if r["status"] == "completed") < 2:
                assert bot._http.get("/healthz").status_code == 200
                assert time.monotonic() < deadline, standin.check_runs
                time.sleep(0.05)
        finally:
            bot.worker.stop(timeout=30)
    runs = {r["head_sha"]: r for r in standin.check_runs}
    assert f"pattern '{glob}' matches no file at base or head" in runs[shas["freeze"]]["output"]["summary"]
    assert runs[shas["one"]]["output"]["title"] == "1 doc line out of date"
