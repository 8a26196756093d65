import logging
import sqlite3
import threading
import time

import pytest

from bot.app.logs import DeliveryFilter
from bot.app.metrics import Metrics
from bot.app.queue.protocol import Job
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.worker import RetryableError, Worker


class Clock:
    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class Recorder:
    """A job handler that records the jobs it sees and fails the first `failures` of them."""

    def __init__(self, failures: list[Exception] | None = None):
        self.failures = list(failures or [])
        self.seen: list[Job] = []

    def __call__(self, job: Job) -> None:
        self.seen.append(job)
        if self.failures:
            raise self.failures.pop(0)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def queue(tmp_path, clock):
    q = SQLiteQueue(str(tmp_path / "queue.db"), clock=clock)
    yield q
    q.close()


def make_worker(queue, handler, **kw) -> Worker:
    return Worker(queue, handler, Metrics(), base_delay_s=10, **kw)


def test_completes_a_job(queue):
    handler = Recorder()
    worker = make_worker(queue, handler)
    queue.enqueue("d-1", "check", {"pr": 1}, key="o/r#1")
    job = worker.run_once()
    assert job is not None and [j.payload for j in handler.seen] == [{"pr": 1}]
    assert queue.get(job.id).state == "done"
    assert worker.run_once() is None
    assert worker.metrics.value("docs_sync_jobs_total", outcome="done") == 1


def test_retryable_error_retries_later_then_completes(queue, clock):
    handler = Recorder([RetryableError(5, "GitHub answered 502")])
    worker = make_worker(queue, handler)
    queue.enqueue("d-1", "check", {"pr": 1}, key="o/r#1")
    job = worker.run_once()
    waiting = queue.get(job.id)
    # The first backoff step (10 s) is longer than the 5 s GitHub asked for.
    assert (waiting.state, waiting.not_before, waiting.last_error) == (
        "queued",
        clock.now + 10,
        "GitHub answered 502",
    )
    assert worker.run_once() is None  # not due yet
    clock.now += 10
    assert worker.run_once().id == job.id
    assert queue.get(job.id).state == "done"
    assert [j.attempts for j in handler.seen] == [1, 2]
    assert worker.metrics.value("docs_sync_jobs_total", outcome="retried") == 1
    assert worker.metrics.value("docs_sync_jobs_total", outcome="done") == 1


def test_retry_after_longer_than_backoff_is_honoured(queue, clock):
    worker = make_worker(queue, Recorder([RetryableError(900)]))
    queue.enqueue("d-1", "check", {}, key=None)
    job = worker.run_once()
    assert queue.get(job.id).not_before == clock.now + 900


def test_backoff_grows_with_attempts_and_is_capped(queue):
    worker = make_worker(queue, Recorder(), max_delay_s=100)
    assert [worker.retry_delay(n, 1) for n in range(1, 6)] == [10, 20, 40, 80, 100]
    assert worker.retry_delay(6, 250) == 250


def test_gives_up_after_max_attempts(queue, clock):
    handler = Recorder([RetryableError(1) for _ in range(10)])
    worker = make_worker(queue, handler, max_attempts=3)
    queue.enqueue("d-1", "check", {}, key=None)
    for _ in range(3):
        job = worker.run_once()
        clock.now += 1000
    assert worker.run_once() is None
    failed = queue.get(job.id)
    assert failed.state == "failed" and failed.last_error.startswith("gave up after 3 attempts")
    assert len(handler.seen) == 3


def test_other_errors_fail_the_job_and_are_logged(queue, caplog):
    worker = make_worker(queue, Recorder([KeyError("head_sha")]))
    queue.enqueue("d-1", "check", {}, key=None)
    with caplog.at_level(logging.ERROR, logger="bot.app.queue.worker"):
        job = worker.run_once()
    assert (queue.get(job.id).state, queue.get(job.id).last_error) == ("failed", "KeyError: 'head_sha'")
    assert any(r.exc_info and "failed" in r.getMessage() for r in caplog.records)
    assert worker.run_once() is None


def test_async_handler(queue):
    seen = []

    async def handler(job: Job) -> None:
        seen.append(job.payload)

    worker = make_worker(queue, handler)
    queue.enqueue("d-1", "command", {"command": "help"}, key="o/r#1")
    try:
        worker.run_once()
    finally:
        worker.stop()
    assert seen == [{"command": "help"}]
    assert queue.counts()["done"] == 1


def test_async_handler_raising_retryable(queue, clock):
    async def handler(job: Job) -> None:
        if job.attempts == 1:
            raise RetryableError(1, "timeout")

    worker = make_worker(queue, handler)
    queue.enqueue("d-1", "check", {}, key=None)
    try:
        job = worker.run_once()
        assert queue.get(job.id).state == "queued"
        clock.now += 60
        worker.run_once()
    finally:
        worker.stop()
    assert queue.get(job.id).state == "done"


def test_a_job_interrupted_by_a_crash_resumes_once(tmp_path, clock):
    path = str(tmp_path / "queue.db")
    q = SQLiteQueue(path, clock=clock)
    q.enqueue("d-1", "check", {"pr": 1}, key="o/r#1")
    q.claim()  # the worker took it, then the process died
    q.close()

    q = SQLiteQueue(path, clock=clock)
    handler = Recorder()
    worker = make_worker(q, handler)
    try:
        assert worker.run_once() is not None
        assert worker.run_once() is None
        assert [(j.delivery_id, j.attempts) for j in handler.seen] == [("d-1", 2)]
        assert q.counts()["done"] == 1
    finally:
        q.close()


def test_a_job_that_stopped_its_process_twice_is_not_run_a_third_time(tmp_path, clock):
    path = str(tmp_path / "queue.db")
    for i in range(2):  # two processes took the job and died with it (killed, or frozen and restarted)
        q = SQLiteQueue(path, clock=clock)
        if i == 0:
            q.enqueue("d-1", "check", {}, key=None)
        q.claim()
        q.close()
    q = SQLiteQueue(path, clock=clock)
    handler = Recorder()
    worker = make_worker(q, handler, max_attempts=8)
    try:
        job = worker.run_once()
        assert handler.seen == [] and job.interrupted == 2
        assert q.get(job.id).state == "failed"
        assert q.get(job.id).last_error == (
            "not run again: its worker process stopped under it 2 times (killed, or frozen and restarted)"
        )
    finally:
        q.close()


def test_a_job_given_up_after_its_attempts_is_failed(tmp_path, clock):
    path = str(tmp_path / "queue.db")
    q = SQLiteQueue(path, clock=clock)
    q.enqueue("d-1", "check", {}, key=None)
    for _ in range(3):  # claimed and put back three times, its process alive
        q.retry(q.claim().id, 0, "GitHub answered 502")
    handler = Recorder()
    try:
        job = make_worker(q, handler, max_attempts=2).run_once()
        assert handler.seen == []
        assert q.get(job.id).last_error == "gave up after 3 attempts: GitHub answered 502"
    finally:
        q.close()


def test_log_records_carry_the_delivery_id(queue):
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    keep = Keep(logging.INFO)
    keep.addFilter(DeliveryFilter())
    job_log = logging.getLogger("tests.job")
    logging.getLogger().addHandler(keep)
    try:
        worker = make_worker(queue, lambda job: job_log.warning("working on %s", job.key))
        queue.enqueue("72d3162e-cc78-11e3-81ab-4c9367dc0958", "check", {}, key="o/r#1")
        worker.run_once()
    finally:
        logging.getLogger().removeHandler(keep)
    mine = [r for r in records if r.name == "tests.job"]
    assert [r.delivery_id for r in mine] == ["72d3162e-cc78-11e3-81ab-4c9367dc0958"]


def test_thread_start_wake_stop(queue):
    done = threading.Event()
    handled: list[int] = []

    def handler(job: Job) -> None:
        handled.append(job.payload["n"])
        if len(handled) == 2:
            done.set()

    worker = make_worker(queue, handler, poll_interval=30)  # only wake() can make it look soon
    worker.start()
    try:
        queue.enqueue("d-1", "check", {"n": 1}, key=None)
        queue.enqueue("d-2", "check", {"n": 2}, key=None)
        worker.wake()
        assert done.wait(5)
    finally:
        worker.stop(timeout=5)
    assert handled == [1, 2]
    with pytest.raises(RuntimeError):
        worker.start()
        worker.start()
    worker.stop(timeout=5)


class Abandoning(Recorder):
    """A handler that also hears, through `abandon`, which jobs the worker gave up."""

    def __init__(self, failures: list[Exception] | None = None, abandon_error: Exception | None = None):
        super().__init__(failures)
        self.abandoned: list[tuple[int, str]] = []
        self.abandon_error = abandon_error

    def abandon(self, job: Job, error: str) -> None:
        self.abandoned.append((job.id, error))
        if self.abandon_error is not None:
            raise self.abandon_error


def test_a_job_given_up_without_running_is_abandoned(tmp_path, clock):
    path = str(tmp_path / "queue.db")
    for i in range(2):  # two processes took the job and died with it
        q = SQLiteQueue(path, clock=clock)
        if i == 0:
            q.enqueue("d-1", "check", {}, key=None)
        q.claim()
        q.close()
    q = SQLiteQueue(path, clock=clock)
    handler = Abandoning()
    try:
        job = make_worker(q, handler, max_attempts=3).run_once()
        assert handler.seen == []  # not run a third time...
        (abandoned,) = handler.abandoned  # ...but told, so it can finish what the job started
        assert abandoned == (job.id, q.get(job.id).last_error)
        assert abandoned[1].startswith("not run again: its worker process stopped under it 2 times")
        assert q.get(job.id).state == "failed"
    finally:
        q.close()


def test_jobs_failed_after_their_last_retry_or_for_good_are_abandoned(queue, clock):
    handler = Abandoning([RetryableError(1, "GitHub answered 502")] * 2 + [KeyError("head_sha")])
    worker = make_worker(queue, handler, max_attempts=2)
    queue.enqueue("d-1", "check", {}, key=None)
    first = worker.run_once()
    assert handler.abandoned == []  # a retry is coming
    clock.now += 1000
    worker.run_once()
    queue.enqueue("d-2", "check", {}, key=None)
    second = worker.run_once()
    assert handler.abandoned == [
        (first.id, "gave up after 2 attempts: GitHub answered 502"),
        (second.id, "KeyError: 'head_sha'"),
    ]
    assert queue.get(first.id).state == queue.get(second.id).state == "failed"


def test_a_failing_abandon_is_logged_and_the_job_stays_failed(queue, caplog):
    handler = Abandoning([KeyError("x")], abandon_error=RuntimeError("GitHub is down"))
    worker = make_worker(queue, handler)
    queue.enqueue("d-1", "check", {}, key=None)
    with caplog.at_level(logging.ERROR, logger="bot.app.queue.worker"):
        job = worker.run_once()
    assert queue.get(job.id).state == "failed" and len(handler.abandoned) == 1
    assert any("could not clean up" in r.getMessage() for r in caplog.records)
    assert worker.run_once() is None


def test_an_async_abandon_is_awaited(queue):
    abandoned = []

    class Handler:
        async def __call__(self, job: Job) -> None:
            raise KeyError("x")

        async def abandon(self, job: Job, error: str) -> None:
            abandoned.append(error)

    worker = make_worker(queue, Handler())
    queue.enqueue("d-1", "check", {}, key=None)
    try:
        worker.run_once()
    finally:
        worker.stop()
    assert abandoned == ["KeyError: 'x'"]


class FlakyQueue(SQLiteQueue):
    """The real queue, whose disk refuses the next `failures` writes of a job's outcome."""

    def __init__(self, *args, failures: int = 0, **kw):
        super().__init__(*args, **kw)
        self.failures = failures

    def _refuse(self) -> None:
        if self.failures:
            self.failures -= 1
            raise sqlite3.OperationalError("database or disk is full")

    def complete(self, job_id: int) -> None:
        self._refuse()
        super().complete(job_id)

    def fail(self, job_id: int, error: str) -> None:
        self._refuse()
        super().fail(job_id, error)

    def retry(self, job_id: int, delay_s: float, error: str) -> None:
        self._refuse()
        super().retry(job_id, delay_s, error)


@pytest.mark.parametrize(
    ("failure", "state"), [(None, "done"), (KeyError("x"), "failed"), (RetryableError(1, "502"), "queued")]
)
def test_a_job_whose_outcome_cannot_be_written_is_settled_once_the_disk_takes_it(
    tmp_path, clock, failure, state
):
    q = FlakyQueue(str(tmp_path / "queue.db"), clock=clock, failures=2)
    try:
        handler = Recorder([failure] if failure else [])
        worker = make_worker(q, handler)
        q.enqueue("d-1", "check", {}, key=None)
        job = worker.run_once()  # the job ran; writing its outcome failed
        assert q.get(job.id).state == "running"
        assert worker.run_once() is None  # the write is tried again before any new work; fails
        q.enqueue("d-2", "check", {}, key=None)
        assert worker.run_once().delivery_id == "d-2"  # the outcome is written, then new work
        assert q.get(job.id).state == state
        assert [j.delivery_id for j in handler.seen] == ["d-1", "d-2"]  # d-1 never ran twice
    finally:
        q.close()


def test_the_worker_thread_settles_an_outcome_it_could_not_write(tmp_path, clock):
    q = FlakyQueue(str(tmp_path / "queue.db"), clock=clock, failures=3)
    worker = make_worker(q, Recorder(), poll_interval=0.05)
    try:
        q.enqueue("d-1", "check", {}, key=None)
        worker.start()
        deadline = time.monotonic() + 10
        while q.counts()["done"] != 1:
            assert time.monotonic() < deadline, q.counts()
            time.sleep(0.02)
    finally:
        worker.stop(timeout=5)
        q.close()


def test_one_repositorys_long_job_does_not_hold_another_repositorys(queue):
    release, finished = threading.Event(), threading.Event()
    order: list[str] = []

    def handler(job: Job) -> None:
        if job.key.startswith("hostile/"):
            assert release.wait(10)  # the hostile pull request's job takes its time
        order.append(job.delivery_id)
        if job.delivery_id == "n-1":
            finished.set()

    worker = make_worker(queue, handler, threads=2, poll_interval=0.05)
    queue.enqueue("h-1", "check", {}, key="hostile/repo#1")
    queue.enqueue("h-2", "check", {}, key="hostile/repo#2")
    queue.enqueue("n-1", "check", {}, key="octo/docs#7")
    worker.start()
    try:
        assert finished.wait(5), "the other repository's job waited behind the hostile one"
        assert order == ["n-1"] and queue.counts()["running"] == 1  # h-2 waits for h-1, not beside it
        release.set()
        deadline = time.monotonic() + 5
        while queue.counts()["done"] < 3:
            assert time.monotonic() < deadline, queue.counts()
            time.sleep(0.02)
    finally:
        release.set()
        worker.stop(timeout=5)
    assert order == ["n-1", "h-1", "h-2"]


def test_stop_with_release_puts_a_still_running_job_back(queue):
    started, let_go = threading.Event(), threading.Event()

    def slow(job: Job) -> None:
        started.set()
        let_go.wait(10)

    queue.enqueue("d-1", "check", {}, key="octo/docs#1")
    worker = make_worker(queue, slow)
    worker.start()
    assert started.wait(5)
    worker.stop(0.2, release=True)
    job = queue.get(1)
    assert (job.state, job.attempts) == ("queued", 0)  # another worker takes it, as if never run
    let_go.set()


# -- `docs-sync worker` as a process on PostgreSQL --------------------------------------------------

WORKER_PROCESS = """
import sys, time
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from bot.app import main
from bot.app.intake import web

key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
).decode()

web.SHUTDOWN_GRACE_S = float(sys.argv[1])

def factory(settings, queue, metrics):
    def handle(job):
        print("start", job.delivery_id, flush=True)
        time.sleep(job.payload["seconds"])
    return handle

env = {"APP_ID": "1", "PRIVATE_KEY": key, "WEBHOOK_SECRET": "s", "DATABASE_URL": sys.argv[2],
       "DOCS_SYNC_WORKERS": "2"}
if len(sys.argv) > 3:
    env["METRICS_PORT"] = sys.argv[3]
main.work(env, factory)
"""


def _worker_process(url: str, grace: float, *more: str):
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-c", WORKER_PROCESS, str(grace), url, *more],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_started(proc, n: int) -> list[str]:
    lines = []
    while len(lines) < n:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        lines.append(line.split()[1])
    return lines


def test_sigterm_lets_a_short_job_finish_and_releases_a_long_one(postgres):
    import signal

    from bot.app.queue.database import open_queue

    url = postgres.new_database()
    with open_queue(url) as q:
        q.enqueue("short", "check", {"seconds": 0.5}, key="octo/a#1")
        q.enqueue("long", "check", {"seconds": 60}, key="octo/b#1")
        with _worker_process(url, grace=2.0) as proc:
            try:
                assert sorted(_wait_started(proc, 2)) == ["long", "short"]
                proc.send_signal(signal.SIGTERM)
                assert proc.wait(20) == 0
            finally:
                proc.kill()
        short, long = q.get(1), q.get(2)
        assert short.state == "done"
        assert (long.state, long.attempts) == ("queued", 0)


def test_sigkill_mid_job_hands_the_job_to_another_worker(postgres):
    from bot.app.queue import postgres as backend
    from bot.app.queue.database import open_queue

    url = postgres.new_database()
    with open_queue(url) as q:
        q.enqueue("doomed", "check", {"seconds": 60}, key="octo/a#1")
        with _worker_process(url, grace=1.0) as killed:
            try:
                assert _wait_started(killed, 1) == ["doomed"]
            finally:
                killed.kill()
        assert q.get(1).state == "running"  # no process says otherwise until one looks
        with q._tx() as db:  # the job now takes a second to redo, not a minute
            db.execute("UPDATE jobs SET payload = '{\"seconds\": 0.2}' WHERE id = 1")
        with _worker_process(url, grace=1.0) as heir:
            try:
                assert _wait_started(heir, 1) == ["doomed"]  # recovered when the heir opens the queue
                deadline = time.monotonic() + 10 + backend.RECOVER_EVERY_S
                while q.get(1).state != "done" and time.monotonic() < deadline:
                    time.sleep(0.1)
            finally:
                heir.kill()
        job = q.get(1)
        assert (job.state, job.attempts) == ("done", 2) and "interrupted" in job.last_error


def test_the_worker_prunes_old_rows_on_its_schedule(tmp_path):
    clock = Clock()
    with SQLiteQueue(str(tmp_path / "q.db"), clock=clock) as queue:
        queue.enqueue("old", "check", {}, key="octo/a#1")
        queue.complete(queue.claim().id)
        clock.now += 8 * 86400  # past JOBS_KEPT_S
        worker = make_worker(queue, Recorder(), prune_every_s=3600)
        worker._next_prune = 0.0  # due now rather than a minute after start
        worker.start()
        deadline = time.monotonic() + 5
        while queue.get(1) is not None and time.monotonic() < deadline:
            time.sleep(0.02)
        worker.stop()
        assert queue.get(1) is None
        assert worker._next_prune > time.monotonic() + 3000  # next in an hour, not at every poll


def test_a_job_another_process_enqueues_notifies_the_listening_queue(postgres):
    from bot.app.queue.database import open_queue

    url = postgres.new_database()
    heard = threading.Event()
    with open_queue(url) as listening, open_queue(url) as other:
        listening.listen(heard.set)
        assert heard.wait(10) and listening.listening.wait(10)  # the call made when listening starts
        heard.clear()
        assert other.claim() is None
        assert not heard.wait(0.5)  # nothing made claimable, nothing heard
        assert other.enqueue("d-1", "check", {}, key="octo/a#1")
        assert heard.wait(10)  # the enqueue's NOTIFY, from another queue (another process)


def test_an_idle_worker_claims_a_job_another_process_enqueues_long_before_its_poll(postgres):
    """LISTEN/NOTIFY: the worker's poll is an hour, so only the notification can wake it."""
    from bot.app.queue.database import open_queue
    from bot.app.queue.postgres import PostgresQueue

    class Counting(PostgresQueue):
        def __init__(self, url):
            super().__init__(url)
            self.idle = 0  # claims that found nothing

        def claim(self, now=None):
            job = super().claim(now)
            self.idle += job is None
            return job

    url = postgres.new_database()
    ran = threading.Event()
    with Counting(url) as mine, open_queue(url) as other:
        worker = make_worker(mine, lambda job: ran.set(), poll_interval=3600.0)
        worker.start()
        try:
            deadline = time.monotonic() + 10
            while not (mine.idle >= 1 and mine.listening.is_set()) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert mine.idle >= 1 and mine.listening.is_set()
            time.sleep(0.3)  # the wake sent when listening started has been answered by now
            started = time.monotonic()
            assert other.enqueue("d-1", "check", {}, key="octo/a#1")
            assert ran.wait(10), "the worker was not woken: it would have waited for its hour-long poll"
            assert time.monotonic() - started < 10 < worker.poll_interval
        finally:
            worker.stop(5)
        assert mine.get(1).state == "done"


def test_a_worker_process_serves_its_own_metrics_on_metrics_port(postgres):
    import socket

    import httpx

    from bot.app.queue.database import open_queue
    from tests.appkit import Scrape

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = postgres.new_database()
    with open_queue(url) as q:
        q.enqueue("quick", "check", {"seconds": 0.01, "installation_id": 5}, key="octo/a#1")
        q.enqueue("later", "check", {"seconds": 0.01, "installation_id": 5}, key="octo/a#2")
        with q._tx() as db:  # due in an hour: waiting, not yet due
            db.execute("UPDATE jobs SET not_before = not_before + 3600 WHERE id = 2")
        with _worker_process(url, 1.0, str(port)) as proc:
            try:
                assert _wait_started(proc, 1) == ["quick"]
                deadline = time.monotonic() + 20
                while True:  # the job's outcome is written first, then counted
                    scrape = Scrape(httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text)
                    if scrape("docs_sync_jobs_total", outcome="done") or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
            finally:
                proc.kill()
    # What this worker ran, and the whole queue as the web processes show it.
    assert scrape("docs_sync_jobs_total", outcome="done") == 1
    assert scrape("docs_sync_job_seconds_count") == 1
    assert scrape("docs_sync_queue_jobs", state="done") == 1 and scrape("docs_sync_queue_depth") == 1
    assert health.status_code == 200 and health.json() == {"ok": True}
