"""Recovery: failed deliveries redelivered through GitHub's API, open pull requests whose head has
no docs-sync run swept and checked, and /healthz saying when the SQLite file is no longer the one
the App opened; against the stand-in's delivery log and the App served over real HTTP."""

from __future__ import annotations

import itertools
import os
import sqlite3
import time

import httpx

from bot.app.intake.web import build_app
from bot.app.jobs.handler import make_handler
from bot.app.jobs.recovery import KIND, recovery_job, round_robin
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.testing.appkit import BotServer, pull_request_payload, settings_for
from tests.app.test_web import _one_loop
from tests.app.test_web import settings_for as web_settings
from tests.appkit import Clock

_numbers = itertools.count(300)


class Served:
    """The App over HTTP on a queue at `path`; GitHub's webhook pointed at it."""

    def __init__(self, standin, path):
        self.standin = standin
        self.settings = settings_for(standin, path)
        self.queue = SQLiteQueue(str(path), clock=Clock())
        handler = make_handler(self.settings, self.queue, Metrics(), write_interval_s=0)
        self.server = BotServer(self.settings, self.queue, handler)

    def __enter__(self) -> Served:
        self.server.__enter__()
        self.standin.hook_url = self.server.url + self.settings.webhook_path
        self.standin.hook_secret = self.settings.webhook_secret
        return self

    def __exit__(self, *exc: object) -> None:
        self.standin.hook_url = None
        self.server.__exit__(*exc)
        self.queue.close()

    def recover(self) -> None:
        """Run one recovery as a worker would (the job of a window of its own), then what it queued."""
        job = recovery_job(time.time() + next(_numbers) * 600)
        self.queue.enqueue_many([job])
        self.server.drain()
        self.standin.wait_for_hooks()
        self.server.drain()


def _runs_on(standin, head: str) -> list[dict]:
    return [r for r in standin.check_runs if r["head_sha"] == head]


def test_a_delivery_that_failed_is_redelivered_and_checked_once(standin, repo_and_shas, tmp_path):
    _, shas = repo_and_shas
    number = next(_numbers)
    standin.open_pull(number, "main", "one")
    payload = pull_request_payload(standin, "opened", number, shas["one"], shas["main"], "main")
    failed = standin.send_hook("pull_request", payload)  # the App was down: nobody answered
    assert failed["status_code"] == 0
    with Served(standin, tmp_path / "q.db") as app:
        ok = standin.send_hook("ping", {"zen": "hi", "hook_id": 1})
        assert ok["status_code"] == 200
        app.recover()
        assert standin.redelivered == [failed["id"]]  # the failed one only
        (run,) = _runs_on(standin, shas["one"])
        assert run["conclusion"] == "failure"
        redelivery = standin.hook_deliveries[-1]
        assert (redelivery["guid"], redelivery["redelivery"], redelivery["status_code"]) == (
            failed["guid"],
            True,
            202,
        )
        app.recover()  # its newest attempt succeeded: nothing more to ask, nothing checked twice
        assert standin.redelivered == [failed["id"]] and len(_runs_on(standin, shas["one"])) == 1
        jobs = [j for j in map(app.queue.get, range(1, 10)) if j is not None]
        assert [j.kind for j in jobs].count(KIND) == 2
        # The sweep of the same run queued the head too; the redelivery superseded it, or it ran
        # first and the redelivery found its run: one check either way.
        assert len([j for j in jobs if j.kind == "check" and j.state == "done"]) >= 1


def test_heads_acknowledged_then_lost_with_the_database_are_swept_and_checked(
    standin, repo_and_shas, tmp_path
):
    """The SQLite file removed under a running App: /healthz says so; after the restart, the
    sweep finds the open pull request whose head has no docs-sync run and checks it."""
    _, shas = repo_and_shas
    lost, checked = next(_numbers), next(_numbers)
    standin.open_pull(lost, "main", "one")
    standin.open_pull(checked, "main", "clean")
    path = tmp_path / "q.db"
    with Served(standin, path) as app:
        payload = pull_request_payload(standin, "opened", checked, shas["clean"], shas["main"], "main")
        assert app.server.deliver("pull_request", payload).status_code == 202
        app.server.drain()
        assert len(_runs_on(standin, shas["clean"])) == 1
        assert httpx.get(f"{app.server.url}/healthz").status_code == 200
        os.remove(path)  # a container restarted without its volume
        payload = pull_request_payload(standin, "opened", lost, shas["one"], shas["main"], "main")
        assert app.server.deliver("pull_request", payload).status_code == 202  # acknowledged...
        health = httpx.get(f"{app.server.url}/healthz")
        assert health.status_code == 503 and "removed or replaced" in health.json()["error"]
    with Served(standin, path) as app:  # ...and lost: the new file knows nothing of it
        assert sum(app.queue.counts().values()) == 0
        app.recover()
        (run,) = _runs_on(standin, shas["one"])
        assert run["conclusion"] == "failure"
        assert len(_runs_on(standin, shas["clean"])) == 1  # it had its run: not checked again
        app.recover()
        assert len(_runs_on(standin, shas["one"])) == 1 and app.queue.counts()["done"] == 3


def test_healthz_reports_a_database_file_replaced_by_another(tmp_path):
    settings = web_settings(tmp_path)
    with SQLiteQueue(settings.db_path) as queue:
        app = build_app(settings, queue, Metrics())

        async def scenario(client):
            before = await client.get("/healthz")
            other = tmp_path / "other.db"
            sqlite3.connect(other).close()
            os.replace(other, settings.db_path)
            return before, await client.get("/healthz")

        before, after = _one_loop(app, scenario)
    assert before.status_code == 200
    assert after.status_code == 503 and "was removed or replaced" in after.json()["error"]


def test_the_sweep_takes_heads_from_every_installation_in_turn():
    big = iter([("big", i) for i in range(50)])
    small = iter([("small", 0), ("small", 1)])
    other = iter([("other", 0), ("other", 1), ("other", 2)])
    assert list(round_robin([big, small, other], 7)) == [
        ("big", 0),
        ("small", 0),
        ("other", 0),
        ("big", 1),
        ("small", 1),
        ("other", 1),
        ("big", 2),
    ]
