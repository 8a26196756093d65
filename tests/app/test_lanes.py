"""Write spacing and installation tokens shared by processes on one PostgreSQL database, checked
with two App clients (two worker processes' worth) against the GitHub stand-in."""

import threading
import time

import pytest

from bot.app.database import open_queue
from bot.app.lanes import SharedGitHubApp
from bot.app.metrics import Metrics
from tests.app import pgserver


@pytest.fixture(scope="module")
def postgres():
    pgserver.skip_unless_available()
    cluster = pgserver.Cluster()
    yield cluster
    cluster.stop()


def two_apps(standin, url, interval):
    queues = [open_queue(url), open_queue(url)]
    apps = [
        SharedGitHubApp(
            standin.app_id,
            standin.private_key_pem,
            standin.url,
            Metrics(),
            queue=q,
            write_interval_s=interval,
        )
        for q in queues
    ]
    return queues, apps


def test_two_processes_share_one_installation_token(standin, postgres):
    standin.open_pull(7, "main", "clean")
    queues, apps = two_apps(standin, postgres.new_database(), 0.0)
    try:
        for app in apps:
            app.repo(standin.installation_id, standin.owner, standin.name).pull(7)
        assert len(standin.calls("POST", r"/access_tokens$")) == 1  # the second used the first's
        for app in apps:
            app.forget_credentials(standin.installation_id)  # refused: dropped everywhere
        apps[1].repo(standin.installation_id, standin.owner, standin.name).pull(7)
        assert len(standin.calls("POST", r"/access_tokens$")) == 2
    finally:
        for q in queues:
            q.close()


def test_writes_of_one_installation_are_spaced_across_processes(standin, postgres):
    standin.open_pull(7, "main", "clean")
    queues, apps = two_apps(standin, postgres.new_database(), 0.3)
    sent: list[float] = []
    lock = threading.Lock()

    def comment(app, n):
        repo = app.repo(standin.installation_id, standin.owner, standin.name)
        for i in range(3):
            repo.create_issue_comment(7, f"process {n}, comment {i}")
            with lock:
                sent.append(time.time())

    try:
        threads = [threading.Thread(target=comment, args=(app, n)) for n, app in enumerate(apps)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        sent.sort()
        gaps = [b - a for a, b in zip(sent, sent[1:], strict=False)]
        assert len(sent) == 6 and min(gaps) > 0.2, gaps  # 0.3 s turns, less the calls' own jitter
        assert len(standin.calls("POST", r"/issues/7/comments$")) == 6
    finally:
        for q in queues:
            q.close()
