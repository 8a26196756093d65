"""The job queue and the App's state on PostgreSQL, shared by any number of web and worker processes.

Chosen with DATABASE_URL=postgresql://...; the queue's semantics are those of bot.app.queue.protocol
(the module docstring there), proven by one test suite run against both backends. What changes
with many processes on one database:

- Claiming. A claim runs under one transaction-scoped advisory lock (CLAIM_LOCK), so the rule
  "no two jobs of one repository run at once" is checked against every process's committed
  claims, then takes the oldest due row with FOR UPDATE SKIP LOCKED, so it never waits for a
  row another transaction is finishing or superseding. A claim is a millisecond of work; the
  serialisation costs nothing next to a job, and makes the per-repository rule exact.
- Crash recovery. The process that claims a job holds a session advisory lock on its id
  (JOB_LOCK, id) on a connection kept for the job until its outcome is written. A process that
  dies loses its connections, and PostgreSQL drops their locks: a `running` job whose lock
  nobody holds is put back in the queue (at open, and by claims every RECOVER_EVERY_S), while
  the running jobs of live processes are left alone.
- Wake-ups. Every transaction that makes a job due (an enqueue, a release, a job finished, which
  may free its repository for the next) sends NOTIFY on CHANNEL, delivered at commit; a worker
  process LISTENs on a connection of its own (`listen`) and claims at once instead of at its
  next poll. The poll stays: a notification missed while the listening connection was down
  costs one poll interval, never a job.
- Migrations. The schema is created at open under a transaction advisory lock (MIGRATE_LOCK),
  so processes starting together do not race on it; `docs-sync migrate` is not needed.
- Time. Every timestamp comes from the injected clock, as in SQLite, so the two backends agree
  on backoff and ordering in the tests; hosts are assumed to keep their clocks in sync (NTP).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from bot.app.queue.protocol import (
    _TALLY,
    CACHE_NAMESPACES,
    CACHES_KEPT_S,
    JOBS_KEPT_S,
    STATES,
    TALLIES_KEPT_S,
    Job,
    NewJob,
)

CLAIM_LOCK = 0x0D0C5C1A  # advisory lock keys: one number each, unlikely to meet another app's
MIGRATE_LOCK = 0x0D0C5DB0
JOB_LOCK = 0x0D0C  # (JOB_LOCK, job id): held while the job runs
log = logging.getLogger(__name__)

RECOVER_EVERY_S = 5.0
CHANNEL = "docs_sync_jobs"  # NOTIFY channel: a job may be claimable now
LISTEN_RETRY_S = 1.0  # the listening connection is opened again this long after it failed

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id          BIGSERIAL PRIMARY KEY,
    delivery_id TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL,
    key         TEXT,
    payload     TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'queued'
                CHECK (state IN ('queued', 'running', 'done', 'failed', 'superseded')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    not_before  DOUBLE PRECISION NOT NULL,
    last_error  TEXT,
    created_at  DOUBLE PRECISION NOT NULL,
    claimed_at  DOUBLE PRECISION,
    finished_at DOUBLE PRECISION,
    interrupted INTEGER NOT NULL DEFAULT 0
);
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS interrupted INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS jobs_due ON jobs (state, not_before, id);
CREATE INDEX IF NOT EXISTS jobs_key ON jobs (key, state);
CREATE OR REPLACE FUNCTION docs_sync_repository(k TEXT) RETURNS TEXT
    LANGUAGE SQL IMMUTABLE AS $$ SELECT lower(substring(k from '^[^#@]*')) $$;
CREATE TABLE IF NOT EXISTS kv (
    ns         TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (ns, key)
);
CREATE TABLE IF NOT EXISTS blobs (
    sha        TEXT PRIMARY KEY,
    text       BYTEA NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS lanes (
    lane    TEXT PRIMARY KEY,
    next_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS tallies (
    bucket TEXT PRIMARY KEY,
    since  DOUBLE PRECISION NOT NULL,
    n      INTEGER NOT NULL
)
"""

# A file's text is kept when its bytes are UTF-8, and a NUL byte is UTF-8, which PostgreSQL's TEXT
# refuses: blobs are kept as their UTF-8 bytes. Databases made with a TEXT column are converted.
_BLOBS_AS_BYTES = """
DO $$ BEGIN
    IF (SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema()
        AND table_name = 'blobs' AND column_name = 'text') = 'text' THEN
        ALTER TABLE blobs ALTER COLUMN text TYPE BYTEA USING convert_to(text, 'UTF8');
    END IF;
END $$
"""

_COLUMNS = (
    "id, delivery_id, kind, key, payload, state, attempts, not_before, last_error, created_at, claimed_at, "
    "interrupted"
)

# Running jobs whose claiming connection is gone (its process died).
_ORPHANED = (
    "state = 'running' AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' "
    f"AND l.classid = {JOB_LOCK} AND l.objid::bigint = jobs.id AND l.objsubid = 2 AND l.granted)"
)


class PostgresQueue:
    """JobQueue on PostgreSQL through a psycopg connection pool; safe for threads and processes."""

    def __init__(
        self, url: str, *, clock: Callable[[], float] = time.time, max_connections: int = 20
    ) -> None:
        self.url = url
        self._clock = clock
        # Once by hand first: a wrong URL fails now with the server's reason, not after the
        # pool's 30 s of retries.
        psycopg.connect(url, connect_timeout=10).close()
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            kwargs={"autocommit": True},
            open=True,
            timeout=30.0,
        )
        self._held: dict[int, psycopg.Connection] = {}  # running job id -> the connection locking it
        self._lock = threading.Lock()
        self._next_recovery = 0.0
        self._wakers: list[Callable[[], None]] = []  # called on every notification (`listen`)
        self._listener: threading.Thread | None = None
        self._closed = threading.Event()
        self.listening = threading.Event()  # set once notifications reach `listen`'s callbacks
        with self._tx() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
            for statement in _SCHEMA.split(";\n"):
                if statement.strip():
                    db.execute(statement)
            db.execute(_BLOBS_AS_BYTES)
        self.recovered = self._recover()

    def close(self) -> None:
        self._closed.set()
        if self._listener is not None:
            self._listener.join(LISTEN_RETRY_S + 2.0)
        with self._lock:
            held, self._held = list(self._held.values()), {}
        for conn in held:  # the jobs stay `running` with no lock: the next claim recovers them
            self._pool.putconn(conn)
        self._pool.close()

    def __enter__(self) -> PostgresQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Connection]:
        with self._pool.connection() as conn, conn.transaction():
            yield conn

    def _recover(self) -> int:
        with self._tx() as db:
            cur = db.execute(
                "UPDATE jobs SET state = 'queued', not_before = %s, interrupted = interrupted + 1, "
                "last_error = 'interrupted: the process stopped while the job was running' "
                f"WHERE {_ORPHANED}",
                (self._clock(),),
            )
            self._next_recovery = time.monotonic() + RECOVER_EVERY_S
            return cur.rowcount

    def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake` (from a thread of this queue's) whenever any process may have made a job
        claimable: an enqueue, a release, a job finished; and each time listening (re)starts,
        for what came while nobody listened. Until `close`."""
        with self._lock:
            self._wakers.append(wake)
            if self._listener is not None:
                return
            self._listener = threading.Thread(target=self._listen, name="docs-sync-listen", daemon=True)
        self._listener.start()

    def _listen(self) -> None:
        while not self._closed.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._wake_all()  # what was enqueued while nobody listened
                    self.listening.set()
                    while not self._closed.is_set():
                        # The timeout only bounds how long `close` waits for this thread.
                        for _ in conn.notifies(timeout=LISTEN_RETRY_S, stop_after=1):
                            self._wake_all()
            except psycopg.Error as exc:
                self.listening.clear()
                log.warning(
                    "listening for new jobs failed (%s); polling until it is back", type(exc).__name__
                )
                self._closed.wait(LISTEN_RETRY_S)

    def _wake_all(self) -> None:
        with self._lock:
            wakers = list(self._wakers)
        for wake in wakers:
            wake()

    # -- jobs -------------------------------------------------------------------------------

    def enqueue(
        self,
        delivery_id: str,
        kind: str,
        payload: dict[str, Any],
        *,
        key: str | None,
        supersede: bool = False,
    ) -> bool:
        return self.enqueue_many([NewJob(delivery_id, kind, payload, key, supersede)])[0]

    def enqueue_many(self, jobs: Sequence[NewJob]) -> list[bool]:
        rows = [(job, json.dumps(job.payload, sort_keys=True)) for job in jobs]
        now = self._clock()
        with self._tx() as db:
            stored = [self._insert(db, job, body, now) for job, body in rows]
            if any(stored):
                _notify(db)
            return stored

    def _insert(self, db: psycopg.Connection, job: NewJob, body: str, now: float) -> bool:
        row = db.execute(
            "INSERT INTO jobs (delivery_id, kind, key, payload, state, not_before, created_at) "
            "VALUES (%s, %s, %s, %s, 'queued', %s, %s) ON CONFLICT (delivery_id) DO NOTHING RETURNING id",
            (job.delivery_id, job.kind, job.key, body, now, now),
        ).fetchone()
        if row is None:
            return False
        if job.supersede and job.key is not None:
            self._supersede(db, job.key, row[0])
        return True

    def claim(self, now: float | None = None) -> Job | None:
        now = self._clock() if now is None else now
        if time.monotonic() >= self._next_recovery:
            self._recover()
        conn = self._pool.getconn()
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (CLAIM_LOCK,))
                row = conn.execute(
                    f"SELECT {_COLUMNS} FROM jobs WHERE state = 'queued' AND not_before <= %s "
                    "AND (key IS NULL OR docs_sync_repository(key) NOT IN (SELECT docs_sync_repository(key) "
                    "FROM jobs WHERE state = 'running' AND key IS NOT NULL)) "
                    "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED",
                    (now,),
                ).fetchone()
                if row is not None:
                    row = _returned(
                        conn.execute(
                            "UPDATE jobs SET state = 'running', attempts = attempts + 1, claimed_at = %s "
                            f"WHERE id = %s RETURNING {_COLUMNS}",
                            (now, row[0]),
                        ).fetchone()
                    )
                    # Session-scoped: it outlives this transaction and ends with the connection.
                    conn.execute("SELECT pg_advisory_lock(%s::int, %s::int)", (JOB_LOCK, row[0]))
        except BaseException:
            self._pool.putconn(conn)
            raise
        if row is None:
            self._pool.putconn(conn)
            return None
        with self._lock:
            self._held[row[0]] = conn
        return _job(row)

    def complete(self, job_id: int) -> None:
        self._finish(job_id, "state = 'done'", ())

    def fail(self, job_id: int, error: str) -> None:
        self._finish(job_id, "state = 'failed', last_error = COALESCE(%s, last_error)", (error,))

    def retry(self, job_id: int, delay_s: float, error: str) -> None:
        not_before = self._clock() + max(0.0, delay_s)
        self._finish(job_id, "state = 'queued', not_before = %s, last_error = %s", (not_before, error))

    def release(self, job_id: int) -> None:
        """Put a running job back in the queue, due now, without counting the run (a shutdown)."""
        self._finish(
            job_id,
            "state = 'queued', attempts = GREATEST(attempts - 1, 0), not_before = %s",
            (self._clock(),),
        )

    def _finish(self, job_id: int, assignments: str, params: tuple[Any, ...]) -> None:
        with self._lock:
            conn = self._held.get(job_id)
        if conn is None:  # claimed by an earlier queue object (a test, a restart): any connection
            with self._tx() as db:
                db.execute(
                    f"UPDATE jobs SET {assignments}, finished_at = %s WHERE id = %s AND state = 'running'",
                    (*params, self._clock(), job_id),
                )
                _notify(db)
            return
        with conn.transaction():
            conn.execute(
                f"UPDATE jobs SET {assignments}, finished_at = %s WHERE id = %s AND state = 'running'",
                (*params, self._clock(), job_id),
            )
            _notify(conn)
        # Only once the outcome is written: until then the job is still ours, not an orphan.
        conn.execute("SELECT pg_advisory_unlock(%s::int, %s::int)", (JOB_LOCK, job_id))
        with self._lock:
            self._held.pop(job_id, None)
        self._pool.putconn(conn)

    def supersede(self, key: str, except_job_id: int) -> int:
        with self._tx() as db:
            return self._supersede(db, key, except_job_id)

    def _supersede(self, db: psycopg.Connection, key: str, newer_id: int) -> int:
        same = "key = %s AND state = 'queued' AND id < %s AND kind = (SELECT kind FROM jobs WHERE id = %s)"
        cur = db.execute(
            f"UPDATE jobs SET state = 'superseded', last_error = %s WHERE {same} AND attempts = 0",
            (f"superseded by job {newer_id}", key, newer_id, newer_id),
        )
        db.execute(
            f"UPDATE jobs SET not_before = LEAST(not_before, %s) WHERE {same} AND attempts > 0",
            (self._clock(), key, newer_id, newer_id),
        )
        return cur.rowcount

    def has_newer(self, key: str, job_id: int, kind: str = "check", *, head_sha: str | None = None) -> bool:
        with self._pool.connection() as db:
            rows = db.execute(
                "SELECT payload FROM jobs WHERE key = %s AND kind = %s AND id > %s "
                "AND state IN ('queued', 'running', 'done')",
                (key, kind, job_id),
            ).fetchall()
        if head_sha is None:
            return bool(rows)
        return any(json.loads(payload).get("head_sha") not in (None, head_sha) for (payload,) in rows)

    def get(self, job_id: int) -> Job | None:
        with self._pool.connection() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = %s", (job_id,)).fetchone()
        return None if row is None else _job(row)

    def counts(self) -> dict[str, int]:
        with self._pool.connection() as db:
            rows = db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall()
        result = dict.fromkeys(STATES, 0)
        result.update({state: int(n) for state, n in rows})
        return result

    def oldest_queued_s(self, now: float | None = None) -> float:
        now = self._clock() if now is None else now
        with self._pool.connection() as db:
            row = db.execute("SELECT MIN(created_at) FROM jobs WHERE state = 'queued'").fetchone()
        return 0.0 if row is None or row[0] is None else max(0.0, now - row[0])

    def lag(self, now: float | None = None) -> dict[str, float]:
        now = self._clock() if now is None else now
        with self._pool.connection() as db:
            rows = db.execute(
                "SELECT COALESCE(payload::json->>'installation_id', ''), MIN(not_before) FROM jobs "
                "WHERE state = 'queued' AND not_before <= %s GROUP BY 1",
                (now,),
            ).fetchall()
        return {str(installation): max(0.0, now - due) for installation, due in rows}

    def prune(self, now: float | None = None) -> int:
        now = self._clock() if now is None else now
        with self._tx() as db:
            jobs = db.execute(
                "DELETE FROM jobs WHERE state IN ('done', 'failed', 'superseded') AND created_at < %s",
                (now - JOBS_KEPT_S,),
            ).rowcount
            kv = db.execute(
                "DELETE FROM kv WHERE ns = ANY(%s) AND updated_at < %s",
                (list(CACHE_NAMESPACES), now - CACHES_KEPT_S),
            ).rowcount
            blobs = db.execute("DELETE FROM blobs WHERE created_at < %s", (now - CACHES_KEPT_S,)).rowcount
            tallies = db.execute("DELETE FROM tallies WHERE since < %s", (now - TALLIES_KEPT_S,)).rowcount
        return jobs + kv + blobs + tallies

    def ping(self) -> None:
        self.kv_put("health", "ping", json.dumps(self._clock()))
        if self.kv_get("health", "ping") is None:
            raise RuntimeError("the database lost a row it had just written")

    def reserve(self, lane: str, interval_s: float) -> float:
        # One statement: the row lock orders concurrent reservations, each sees the last one's.
        now = self._clock()
        with self._tx() as db:
            row = db.execute(
                "INSERT INTO lanes (lane, next_at) VALUES (%s, %s) ON CONFLICT (lane) DO UPDATE "
                "SET next_at = GREATEST(lanes.next_at, %s) + %s RETURNING next_at",
                (lane, now + interval_s, now, interval_s),
            ).fetchone()
        return float(_returned(row)[0]) - interval_s

    def tally(self, bucket: str, window_s: float) -> int:
        now = self._clock()
        with self._tx() as db:
            row = db.execute(_TALLY, (bucket, now, now - window_s, now - window_s, now)).fetchone()
        return int(_returned(row)[0])

    # -- App state --------------------------------------------------------------------------

    def kv_get(self, ns: str, key: str) -> str | None:
        with self._pool.connection() as db:
            row = db.execute("SELECT value FROM kv WHERE ns = %s AND key = %s", (ns, key)).fetchone()
        return None if row is None else row[0]

    def kv_put(self, ns: str, key: str, value_json: str) -> None:
        json.loads(value_json)
        with self._tx() as db:
            db.execute(
                "INSERT INTO kv (ns, key, value, updated_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (ns, key) DO UPDATE "
                "SET value = excluded.value, updated_at = excluded.updated_at",
                (ns, key, value_json, self._clock()),
            )

    def blob_get(self, sha: str) -> str | None:
        with self._pool.connection() as db:
            row = db.execute("SELECT text FROM blobs WHERE sha = %s", (sha,)).fetchone()
        return None if row is None else bytes(row[0]).decode("utf-8")

    def blob_put(self, sha: str, text: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO blobs (sha, text, created_at) VALUES (%s, %s, %s) ON CONFLICT (sha) DO NOTHING",
                (sha, text.encode("utf-8"), self._clock()),
            )


def _notify(db: psycopg.Connection) -> None:
    # Sent when the transaction commits; notifications with the same payload in one transaction
    # are folded into one.
    db.execute(f"NOTIFY {CHANNEL}")


def _returned(row: tuple[Any, ...] | None) -> tuple[Any, ...]:
    """The row a statement with RETURNING (or an upsert's) always answers with."""
    if row is None:
        raise RuntimeError("the database answered no row to a statement that returns one")
    return row


def _job(row: tuple[Any, ...]) -> Job:
    return Job(
        id=row[0],
        delivery_id=row[1],
        kind=row[2],
        key=row[3],
        payload=json.loads(row[4]),
        state=row[5],
        attempts=row[6],
        not_before=row[7],
        last_error=row[8],
        created_at=row[9],
        claimed_at=row[10],
        interrupted=row[11],
    )
