import json
import sqlite3
import threading
import time

import pytest

from bot.app.queue.database import open_queue as open_location
from bot.app.queue.protocol import JobQueue
from bot.app.queue.sqlite import SQLiteQueue


class Clock:
    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


# Every test of the queue's semantics runs against both backends: the same calls, the same answers.
@pytest.fixture(params=["sqlite", "postgres"])
def path(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "queue.db")
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def clock():
    return Clock()


def open_queue(path: str, clock: Clock) -> JobQueue:
    return open_location(path, clock=clock)


PAYLOAD = {"owner": "octo", "repo": "docs", "pr": 12, "head_sha": "a" * 40}


def finish(q: JobQueue):
    """Claim the next job and complete it, as a worker does before its repository's next job."""
    job = q.claim()
    q.complete(job.id)
    return job


def test_enqueue_claim_complete(path, clock):
    with open_queue(path, clock) as q:
        assert q.enqueue("d-1", "check", PAYLOAD, key="octo/docs#12")
        job = q.claim(clock.now)
        assert job is not None
        assert (job.delivery_id, job.kind, job.key, job.payload) == ("d-1", "check", "octo/docs#12", PAYLOAD)
        assert (job.state, job.attempts, job.claimed_at) == ("running", 1, clock.now)
        assert q.claim(clock.now) is None  # a running job is not handed out twice
        q.complete(job.id)
        assert q.get(job.id).state == "done"
        assert q.counts() == {"queued": 0, "running": 0, "done": 1, "failed": 0, "superseded": 0}


def test_claims_in_arrival_order(path, clock):
    with open_queue(path, clock) as q:
        for i in range(3):
            q.enqueue(f"d-{i}", "check", {"n": i}, key=None)
        assert [q.claim().payload["n"] for _ in range(3)] == [0, 1, 2]


def test_redelivery_is_refused(path, clock):
    with open_queue(path, clock) as q:
        assert q.enqueue("d-1", "check", PAYLOAD, key="octo/docs#12") is True
        assert q.enqueue("d-1", "check", {"other": True}, key="octo/docs#12") is False
        job = q.claim()
        q.complete(job.id)
        # Still refused once the first one is done: the Redeliver button must not run it again.
        assert q.enqueue("d-1", "check", PAYLOAD, key="octo/docs#12") is False
        assert q.counts()["queued"] == 0 and q.counts()["done"] == 1
    with open_queue(path, clock) as q:
        assert q.enqueue("d-1", "check", PAYLOAD, key="octo/docs#12") is False


def test_queued_and_running_jobs_survive_a_restart(path, clock):
    q = open_queue(path, clock)
    q.enqueue("d-1", "check", {"n": 1}, key="octo/docs#1")
    q.enqueue("d-2", "check", {"n": 2}, key="octo/docs#2")
    running = q.claim()
    assert running.payload == {"n": 1}
    q.close()  # the process dies with job 1 running and job 2 waiting

    q = open_queue(path, clock)
    assert q.recovered == 1
    assert q.counts()["queued"] == 2 and q.counts()["running"] == 0
    again = q.claim()
    assert (again.id, again.payload, again.attempts) == (running.id, {"n": 1}, 2)
    assert "interrupted" in again.last_error
    q.complete(again.id)
    assert q.claim().payload == {"n": 2}
    q.close()

    # Job 2 was running at this close; job 1 is done and stays done.
    q = open_queue(path, clock)
    assert q.recovered == 1
    assert q.get(running.id).state == "done"
    job = q.claim()
    assert job.payload == {"n": 2}
    q.complete(job.id)
    assert q.claim() is None
    q.close()

    with open_queue(path, clock) as q:
        assert q.recovered == 0
        assert q.claim() is None


def test_reopening_without_a_crash_changes_nothing(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", PAYLOAD, key=None)
    with open_queue(path, clock) as q:
        assert q.recovered == 0
        job = q.claim()
        assert job.attempts == 1 and job.last_error is None


def test_retry_waits_until_not_before(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", PAYLOAD, key=None)
        job = q.claim()
        q.retry(job.id, 30, "GitHub answered 502")
        waiting = q.get(job.id)
        assert (waiting.state, waiting.not_before, waiting.last_error) == (
            "queued",
            clock.now + 30,
            "GitHub answered 502",
        )
        assert q.claim(clock.now + 29.9) is None
        later = q.claim(clock.now + 30)
        assert later.id == job.id and later.attempts == 2


def test_retry_survives_a_restart(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", PAYLOAD, key=None)
        q.retry(q.claim().id, 60, "rate limited")
    with open_queue(path, clock) as q:
        assert q.claim(clock.now + 59) is None
        assert q.claim(clock.now + 61).attempts == 2


def test_fail_keeps_the_error(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", PAYLOAD, key=None)
        job = q.claim()
        q.fail(job.id, "KeyError: 'sha'")
        assert (q.get(job.id).state, q.get(job.id).last_error) == ("failed", "KeyError: 'sha'")
        assert q.claim() is None
        q.retry(job.id, 0, "late retry")  # only a running job can be sent back
        assert q.get(job.id).state == "failed"


def test_newer_check_supersedes_queued_older_one(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", {"head": "a"}, key="octo/docs#12", supersede=True)
        q.enqueue("d-2", "check", {"head": "x"}, key="octo/docs#13", supersede=True)
        q.enqueue("d-3", "command", {"command": "explain"}, key="octo/docs#12")
        q.enqueue("d-4", "check", {"head": "b"}, key="octo/docs#12", supersede=True)
        assert q.counts()["superseded"] == 1
        claimed = [finish(q).payload for _ in range(3)]
        assert claimed == [{"head": "x"}, {"command": "explain"}, {"head": "b"}]
        assert q.get(1).state == "superseded" and "job 4" in q.get(1).last_error


def test_supersede_spares_running_and_newer_jobs(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", {"head": "a"}, key="k")
        running = q.claim()
        q.enqueue("d-2", "check", {"head": "b"}, key="k")
        q.enqueue("d-3", "check", {"head": "c"}, key="k")
        q.enqueue("d-4", "check", {"head": "d"}, key="k")
        # A handler superseding for its own job 3 drops job 2 only.
        assert q.supersede("k", 3) == 1
        assert [q.get(i).state for i in (1, 2, 3, 4)] == ["running", "superseded", "queued", "queued"]
        assert running.id == 1


def test_a_retrying_check_is_made_due_by_a_new_push_not_dropped(path, clock):
    # It ran once and may have a check run in progress on GitHub: it must get to close it.
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", {"head": "a"}, key="k", supersede=True)
        q.retry(q.claim().id, 600, "502")
        q.enqueue("d-2", "check", {"head": "b"}, key="k", supersede=True)
        assert q.get(1).state == "queued" and q.get(1).not_before == clock.now
        assert [finish(q).payload, finish(q).payload] == [{"head": "a"}, {"head": "b"}]
        assert q.counts()["superseded"] == 0


def test_counts_lists_every_state(path, clock):
    with open_queue(path, clock) as q:
        assert q.counts() == {"queued": 0, "running": 0, "done": 0, "failed": 0, "superseded": 0}


def test_payload_is_stored_as_json(tmp_path, clock):
    path = str(tmp_path / "queue.db")
    with SQLiteQueue(path, clock=clock) as q:
        q.enqueue("d-1", "command", {"args": ["--flag", "reason text"], "pr": None}, key="k")
    db = sqlite3.connect(path)
    try:
        (text,) = db.execute("SELECT payload FROM jobs").fetchone()
        (mode,) = db.execute("PRAGMA journal_mode").fetchone()
    finally:
        db.close()
    assert json.loads(text) == {"args": ["--flag", "reason text"], "pr": None}
    assert mode == "wal"


def test_a_sqlite_file_made_before_the_later_columns_gains_them_and_keeps_its_jobs(tmp_path, clock):
    path = str(tmp_path / "queue.db")
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL UNIQUE, "
        "kind TEXT NOT NULL, key TEXT, payload TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'queued', "
        "attempts INTEGER NOT NULL DEFAULT 0, not_before REAL NOT NULL, last_error TEXT, "
        "created_at REAL NOT NULL, claimed_at REAL)"
    )
    db.execute(
        "INSERT INTO jobs (delivery_id, kind, key, payload, not_before, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        ("d-old", "check", "octo/docs#12", json.dumps(PAYLOAD), clock.now, clock.now),
    )
    db.commit()
    db.close()
    with SQLiteQueue(path, clock=clock) as q:
        job = q.claim()
        assert (job.delivery_id, job.interrupted) == ("d-old", 0)
        clock.now += 5
        q.complete(job.id)
        assert q.get(job.id).state == "done"
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT finished_at FROM jobs").fetchone() == (clock.now,)
    finally:
        db.close()


def test_two_threads_never_claim_the_same_job(path, clock):
    with open_queue(path, clock) as q:
        for i in range(200):
            q.enqueue(f"d-{i}", "check", {"n": i}, key=None)
        seen: list[int] = []
        lock = threading.Lock()

        def drain():
            while (job := q.claim()) is not None:
                with lock:
                    seen.append(job.id)
                q.complete(job.id)

        threads = [threading.Thread(target=drain) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(seen) == list(range(1, 201))


def test_kv_round_trip_and_durability(path, clock):
    waivers = json.dumps([{"symbol": "--old-flag", "by": "octocat", "reason": "removed on purpose"}])
    with open_queue(path, clock) as q:
        assert q.kv_get("waivers", "octo/docs#12") is None
        q.kv_put("waivers", "octo/docs#12", waivers)
        q.kv_put("waivers", "octo/docs#13", "[]")
        q.kv_put("waivers", "octo/docs#13", '["x"]')  # replaces
    with open_queue(path, clock) as q:
        assert json.loads(q.kv_get("waivers", "octo/docs#12"))[0]["symbol"] == "--old-flag"
        assert q.kv_get("waivers", "octo/docs#13") == '["x"]'
        assert q.kv_get("other", "octo/docs#12") is None


def test_kv_refuses_text_that_is_not_json(path, clock):
    with open_queue(path, clock) as q, pytest.raises(ValueError):
        q.kv_put("waivers", "k", "{not json")


def test_blob_cache(path, clock):
    sha = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    with open_queue(path, clock) as q:
        assert q.blob_get(sha) is None
        q.blob_put(sha, "def f():\n    return 1\n")
        q.blob_put(sha, "def f():\n    return 1\n")
    with open_queue(path, clock) as q:
        assert q.blob_get(sha) == "def f():\n    return 1\n"


def test_has_newer_sees_later_live_jobs_of_the_same_key_and_kind(path, clock):
    head = {**PAYLOAD, "head_sha": "a" * 40}
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", head, key="octo/docs#12")
        job = q.claim()
        assert not q.has_newer("octo/docs#12", job.id)
        q.enqueue("d-2", "command", {**head, "command": "explain"}, key="octo/docs#12")
        q.enqueue("d-3", "check", {**head, "head_sha": "c" * 40}, key="octo/docs#13")
        assert not q.has_newer("octo/docs#12", job.id)  # another kind, another pull request
        assert q.has_newer("octo/docs#12", job.id, "command")
        q.enqueue("d-4", "check", head, key="octo/docs#12")  # the same push, announced again
        assert q.has_newer("octo/docs#12", job.id)
        assert not q.has_newer("octo/docs#12", job.id, head_sha="a" * 40)
        q.enqueue("d-5", "check", {**head, "head_sha": "b" * 40}, key="octo/docs#12")
        assert q.has_newer("octo/docs#12", job.id, head_sha="a" * 40)
        assert not q.has_newer("octo/docs#12", 5)  # nothing after the last one


def test_has_newer_ignores_superseded_and_failed_jobs(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", {"head_sha": "a" * 40}, key="k")
        first = q.claim()
        q.enqueue("d-2", "check", {"head_sha": "b" * 40}, key="k")
        q.enqueue("d-3", "check", {"head_sha": "c" * 40}, key="k", supersede=True)  # d-2 superseded
        q.complete(first.id)  # one job of a repository runs at a time
        third = q.claim()
        assert (third.delivery_id, q.has_newer("k", first.id)) == ("d-3", True)  # d-3 is running
        q.fail(third.id, "boom")
        assert not q.has_newer("k", first.id)


def test_a_repository_with_a_running_job_waits_and_the_others_go_on(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("h-1", "check", {}, key="hostile/repo#1")
        q.enqueue("h-2", "check", {}, key="Hostile/Repo#2")  # GitHub's names ignore case
        q.enqueue("h-3", "command", {}, key="hostile/repo@" + "a" * 40)
        q.enqueue("n-1", "check", {}, key="octo/docs#7")
        q.enqueue("x-1", "check", {}, key=None)  # no repository: never held back
        first = q.claim()
        assert first.delivery_id == "h-1"
        # While h-1 runs, nothing else of its repository is handed out, in whatever form.
        assert [q.claim().delivery_id for _ in range(2)] == ["n-1", "x-1"]
        assert q.claim() is None
        q.complete(first.id)
        assert q.claim().delivery_id == "h-2"


def test_release_puts_a_running_job_back_without_counting_the_run(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", PAYLOAD, key="octo/docs#12")
        job = q.claim()
        q.release(job.id)
        again = q.get(job.id)
        assert (again.state, again.attempts, again.not_before) == ("queued", 0, clock.now)
        assert q.claim().attempts == 1


# -- several processes on one PostgreSQL database -------------------------------------------------


def test_a_second_process_leaves_the_running_jobs_of_a_live_one_alone(postgres, clock):
    url = postgres.new_database()
    with open_location(url, clock=clock) as first:
        first.enqueue("d-1", "check", PAYLOAD, key="octo/docs#1")
        job = first.claim()
        with open_location(url, clock=clock) as second:
            assert second.recovered == 0
            assert second.claim() is None and second.get(job.id).state == "running"
        first.complete(job.id)
        assert first.get(job.id).state == "done"


def test_a_process_starting_beside_a_live_transaction_on_jobs_neither_waits_nor_deadlocks(postgres, clock):
    """A claim reads jobs and then writes it. A process opening the queue meanwhile must not ask
    for a table lock in between (DDL does, even with nothing to change): the claim's write would
    queue behind it and PostgreSQL would end one of the two as a deadlock."""
    import psycopg

    url = postgres.new_database()
    with open_location(url, clock=clock) as first:
        first.enqueue("d-1", "check", PAYLOAD, key="octo/docs#1")
        with psycopg.connect(url) as claim:  # a transaction, as a claim's
            claim.execute("SELECT id FROM jobs WHERE state = 'queued' FOR UPDATE").fetchall()
            opened: list[JobQueue] = []
            starting = threading.Thread(target=lambda: opened.append(open_location(url, clock=clock)))
            starting.start()
            starting.join(10)
            assert opened, "a process starting beside a live claim waited for it"
            claim.execute("UPDATE jobs SET attempts = attempts + 1")
            claim.commit()
        with opened[0] as second:
            assert second.counts()["queued"] == 1


def test_the_job_of_a_dead_process_is_claimed_again_by_a_live_one(postgres, clock):
    url = postgres.new_database()
    with open_location(url, clock=clock) as survivor:
        dead = open_location(url, clock=clock)
        dead.enqueue("d-1", "check", PAYLOAD, key="octo/docs#1")
        lost = dead.claim()
        dead.close()  # its connections end as a killed process's do, and their locks with them
        again, deadline = None, time.monotonic() + 10
        while again is None and time.monotonic() < deadline:  # the server ends its backend soon after
            survivor._next_recovery = 0.0  # due now instead of within RECOVER_EVERY_S
            again = survivor.claim()
        assert (again.id, again.attempts) == (lost.id, 2) and "interrupted" in again.last_error


def _claim_recovered(q: JobQueue):
    """The next claim, once the queue has put back a job a dead process held (SQLite at open,
    PostgreSQL once the server has ended the dead connection's backend)."""
    deadline = time.monotonic() + 10
    while (job := q.claim()) is None and time.monotonic() < deadline:
        q._next_recovery = 0.0  # type: ignore[attr-defined]  # PostgreSQL: recover now
    return job


def test_a_job_lost_with_its_process_counts_the_interruption(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("d-1", "check", PAYLOAD, key="octo/docs#1")
        first = q.claim()
        assert first.interrupted == 0
    for lost in (1, 2):  # the process died with the job running: no outcome was written
        with open_queue(path, clock) as q:
            again = _claim_recovered(q)
            assert again is not None and (again.id, again.interrupted) == (first.id, lost)
            assert "interrupted" in again.last_error


def test_processes_claiming_at_once_never_run_two_jobs_of_one_repository(postgres, clock):
    url = postgres.new_database()
    queues = [open_location(url, clock=clock) for _ in range(3)]
    try:
        for i in range(60):
            queues[0].enqueue(f"d-{i}", "check", {"n": i}, key=f"octo/repo{i % 5}#{i}")
        running: dict[str, int] = {}
        seen: list[int] = []
        errors: list[str] = []
        lock = threading.Lock()

        def drain(q):
            while True:
                job = q.claim()
                if job is None:
                    with lock:
                        if not running:
                            return
                    continue
                repo = job.key.split("#")[0]
                with lock:
                    if repo in running:
                        errors.append(f"{repo}: jobs {running[repo]} and {job.id} at once")
                    running[repo] = job.id
                    seen.append(job.id)
                with lock:
                    del running[repo]
                q.complete(job.id)

        threads = [threading.Thread(target=drain, args=(q,)) for q in queues for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == []
        assert sorted(seen) == list(range(1, 61))
    finally:
        for q in queues:
            q.close()


def test_reservations_on_a_lane_are_spaced_and_lanes_are_independent(path, clock):
    with open_queue(path, clock) as q:
        assert q.reserve("installation:1", 1.0) == clock.now  # a free lane: now
        assert q.reserve("installation:1", 1.0) == clock.now + 1.0  # next turn, a second on
        assert q.reserve("installation:1", 1.0) == clock.now + 2.0
        assert q.reserve("installation:2", 1.0) == clock.now
        clock.now += 10  # a lane idle past its last turn starts again at now
        assert q.reserve("installation:1", 1.0) == clock.now


def test_reservations_from_several_processes_never_share_a_turn(postgres, clock):
    url = postgres.new_database()
    queues = [open_location(url, clock=clock) for _ in range(3)]
    try:
        turns: list[float] = []
        lock = threading.Lock()

        def reserve(q):
            for _ in range(20):
                turn = q.reserve("installation:7", 0.5)
                with lock:
                    turns.append(turn)

        threads = [threading.Thread(target=reserve, args=(q,)) for q in queues]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(turns) == [clock.now + 0.5 * i for i in range(60)]
    finally:
        for q in queues:
            q.close()


def test_job_age_and_lag_by_installation(path, clock):
    with open_queue(path, clock) as q:
        assert (q.oldest_queued_s(), q.lag()) == (0.0, {})
        q.enqueue("d-1", "check", {"installation_id": 7}, key="octo/a#1")
        clock.now += 30
        q.enqueue("d-2", "check", {"installation_id": 8}, key="octo/b#1")
        q.enqueue("d-3", "command", {"installation_id": None}, key="octo/c#1")
        clock.now += 10
        assert q.oldest_queued_s() == 40.0
        assert q.lag() == {"7": 40.0, "8": 10.0, "": 10.0}
        q.retry(q.claim().id, 600, "502")  # waiting for its retry: not late yet
        assert q.lag() == {"8": 10.0, "": 10.0}


def test_prune_drops_old_finished_jobs_and_unused_caches_only(path, clock):
    with open_queue(path, clock) as q:
        q.enqueue("old-done", "check", {}, key="octo/a#1")
        q.complete(q.claim().id)
        q.enqueue("old-queued", "check", {}, key="octo/a#2")
        q.kv_put("merge-base", "octo/a@x...y", '{"sha": "z"}')
        q.kv_put("history", "octo/a@c1:--old", '{"commit": null}')
        q.kv_put("waivers", "octo/a#1", "[]")
        q.blob_put("b" * 40, "text")
        clock.now += 40 * 86400
        q.enqueue("new-done", "check", {}, key="octo/b#1")
        assert q.prune() == 4  # the old finished job, the merge-base and history caches, the blob
        assert [q.get(i) is None for i in (1, 2, 3)] == [True, False, False]
        assert (
            q.kv_get("merge-base", "octo/a@x...y") is None and q.kv_get("history", "octo/a@c1:--old") is None
        )
        assert q.kv_get("waivers", "octo/a#1") == "[]"
        assert q.enqueue("old-done", "check", {}, key="octo/a#1")  # its id is forgotten with it


def test_ping_writes_and_reads(path, clock):
    with open_queue(path, clock) as q:
        q.ping()
        q.close()
        errors: tuple[type[Exception], ...] = (sqlite3.Error,)
        if path.startswith("postgresql://"):
            import psycopg

            errors = (psycopg.Error,)
        with pytest.raises(errors):
            q.ping()


def test_tallies_count_across_connections_and_start_again_after_their_window(path, clock):
    """A rate limit's count: two processes on one database count together; a window ends."""
    with open_queue(path, clock) as a, open_queue(path, clock) as b:
        assert [a.tally("u", 600), b.tally("u", 600), a.tally("u", 600)] == [1, 2, 3]
        assert b.tally("other", 600) == 1
        clock.now += 599
        assert b.tally("u", 600) == 4
        clock.now += 1
        assert a.tally("u", 600) == 1  # the window opened 600 s ago has closed
        clock.now += 2 * 86400
        assert a.prune() >= 2  # old tallies are deleted
        assert a.tally("other", 600) == 1


def test_a_job_claimed_while_a_recovery_runs_is_not_taken_for_an_orphan(postgres, clock):
    """A recovery reads who holds which job's lock once per statement. A job that another process
    put back and claimed again while that statement waited must not look orphaned to it: the
    recovery and claims are serialised, so it sees the claim whole or not at all."""
    import psycopg

    from bot.app.queue.postgres import CLAIM_LOCK, JOB_LOCK

    url = postgres.new_database()
    with open_location(url, clock=clock) as survivor:
        dead = open_location(url, clock=clock)
        dead.enqueue("d-1", "check", PAYLOAD, key="octo/docs#1")
        lost = dead.claim()
        dead.close()  # the job stays `running`, its lock gone with the connection
        deadline = time.monotonic() + 10
        with psycopg.connect(url, autocommit=True) as watch:
            while (
                watch.execute(
                    "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s",
                    (JOB_LOCK,),
                ).fetchone()[0]
                and time.monotonic() < deadline
            ):
                time.sleep(0.02)
            # Another process recovers the job and claims it, in one transaction held open...
            other = psycopg.connect(url)
            other.execute("SELECT pg_advisory_xact_lock(%s)", (CLAIM_LOCK,))
            other.execute("UPDATE jobs SET state = 'queued' WHERE id = %s", (lost.id,))
            recovered: list[int] = []
            sweep = threading.Thread(target=lambda: recovered.append(survivor._recover()))
            sweep.start()
            # ...while this process's recovery has started and waits for it.
            while not watch.execute(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"
            ).fetchone()[0]:
                assert time.monotonic() < deadline, "the recovery never waited"
                time.sleep(0.01)
            other.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1 WHERE id = %s", (lost.id,)
            )
            other.execute("SELECT pg_advisory_lock(%s::int, %s::int)", (JOB_LOCK, lost.id))
            other.commit()
            sweep.join(10)
            try:
                assert recovered == [0]
                assert survivor.get(lost.id).state == "running"
            finally:
                other.close()
