"""Write spacing and installation tokens shared by processes on one PostgreSQL database, checked
with two App clients (two worker processes' worth) against the GitHub stand-in."""

import threading
import time

from bot.app.github.lanes import SharedGitHubApp
from bot.app.metrics import Metrics
from bot.app.queue.database import open_queue


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
    turns: list[float] = []  # the start each write was given by the database
    mine: dict[int, float] = {}  # thread -> the turn its current write was given
    done: list[tuple[float, float]] = []  # (a write's turn, when it returned)
    lock = threading.Lock()

    def recording(reserve):
        def wrapped(lane, interval):
            turn = reserve(lane, interval)
            with lock:
                turns.append(turn)
                mine[threading.get_ident()] = turn
            return turn

        return wrapped

    for q in queues:
        q.reserve = recording(q.reserve)

    def comment(app, n):
        repo = app.repo(standin.installation_id, standin.owner, standin.name)
        for i in range(3):
            repo.create_issue_comment(7, f"process {n}, comment {i}")
            with lock:
                done.append((mine[threading.get_ident()], time.time()))

    try:
        threads = [threading.Thread(target=comment, args=(app, n)) for n, app in enumerate(apps)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        # The turns the two processes took from one lane are the interval apart, whatever the
        # machine's load makes of the moments the requests then leave.
        turns.sort()
        assert len(turns) == 6
        assert all(b - a >= 0.3 - 1e-6 for a, b in zip(turns, turns[1:], strict=False)), turns
        assert all(returned >= turn for turn, returned in done)  # each waited for its turn
        assert len(standin.calls("POST", r"/issues/7/comments$")) == 6
    finally:
        for q in queues:
            q.close()
