"""The job queue on one SQLite file: one process, nothing to install.

The semantics are bot.app.queue.protocol's (the module docstring there).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from bot.app.queue.protocol import (
    _TALLY,
    CACHE_NAMESPACES,
    CACHES_KEPT_S,
    JOBS_KEPT_S,
    STATES,
    TALLIES_KEPT_S,
    DatabaseGone,
    Job,
    NewJob,
    repository_of,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL,
    key         TEXT,
    payload     TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'queued'
                CHECK (state IN ('queued', 'running', 'done', 'failed', 'superseded')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    not_before  REAL NOT NULL,
    last_error  TEXT,
    created_at  REAL NOT NULL,
    claimed_at  REAL,
    interrupted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs (state, not_before, id);
CREATE INDEX IF NOT EXISTS jobs_key ON jobs (key, state);
CREATE TABLE IF NOT EXISTS kv (
    ns         TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (ns, key)
);
CREATE TABLE IF NOT EXISTS blobs (
    sha        TEXT PRIMARY KEY,
    text       TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS lanes (
    lane    TEXT PRIMARY KEY,
    next_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tallies (
    bucket TEXT PRIMARY KEY,
    since  REAL NOT NULL,
    n      INTEGER NOT NULL
);
"""

_COLUMNS = (
    "id, delivery_id, kind, key, payload, state, attempts, not_before, last_error, created_at, claimed_at, "
    "interrupted"
)


class SQLiteQueue:
    """JobQueue on a SQLite file in WAL mode; safe to share between the web and worker threads.

    One connection guarded by a lock: every operation is a short transaction, so the lock is
    held for well under a millisecond and the webhook endpoint never waits on a job.
    """

    def __init__(self, path: str, *, clock: Callable[[], float] = time.time):
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()
        # isolation_level=None: transactions are opened explicitly, so each one is visible here.
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # an accepted delivery survives power loss
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.create_function("repository", 1, repository_of, deterministic=True)
        # The file as opened: one deleted or replaced under the running App (a container restarted
        # without its volume) still takes writes through the open handle, and they are lost.
        self._identity = _identity(path)
        with self._tx() as db:
            # Statement by statement: executescript() would commit the open transaction.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            if "interrupted" not in {row[1] for row in db.execute("PRAGMA table_info(jobs)")}:
                db.execute("ALTER TABLE jobs ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0")
        self.recovered = self._recover()  # how many interrupted jobs went back to the queue

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SQLiteQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front, so a claim cannot race another writer.
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _recover(self) -> int:
        """Put jobs a dead process left running back in the queue; returns how many."""
        with self._tx() as db:
            cur = db.execute(
                "UPDATE jobs SET state = 'queued', not_before = ?, interrupted = interrupted + 1, "
                "last_error = 'interrupted: the process stopped while the job was running' "
                "WHERE state = 'running'",
                (self._clock(),),
            )
            return cur.rowcount

    def listen(self, wake: Callable[[], None]) -> None:
        pass  # one process: the webhook endpoint wakes its worker itself (bot.app.intake.web)

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
        rows = [(job, json.dumps(job.payload, sort_keys=True)) for job in jobs]  # outside the lock
        now = self._clock()
        with self._tx() as db:
            return [self._insert(db, job, body, now) for job, body in rows]

    def _insert(self, db: sqlite3.Connection, job: NewJob, body: str, now: float) -> bool:
        cur = db.execute(
            "INSERT INTO jobs (delivery_id, kind, key, payload, state, not_before, created_at) "
            "VALUES (?, ?, ?, ?, 'queued', ?, ?) ON CONFLICT (delivery_id) DO NOTHING",
            (job.delivery_id, job.kind, job.key, body, now, now),
        )
        if cur.rowcount == 0:
            return False
        if job.supersede and job.key is not None:
            assert cur.lastrowid is not None
            self._supersede(db, job.key, cur.lastrowid)
        return True

    def claim(self, now: float | None = None) -> Job | None:
        now = self._clock() if now is None else now
        with self._tx() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM jobs WHERE state = 'queued' AND not_before <= ? "
                "AND (key IS NULL OR repository(key) NOT IN "
                "(SELECT repository(key) FROM jobs WHERE state = 'running' AND key IS NOT NULL)) "
                "ORDER BY id LIMIT 1",
                (now,),
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, claimed_at = ? WHERE id = ?",
                (now, row[0]),
            )
            row = db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?", (row[0],)).fetchone()
        return _job(row)

    def complete(self, job_id: int) -> None:
        self._finish(job_id, "done", None)

    def fail(self, job_id: int, error: str) -> None:
        self._finish(job_id, "failed", error)

    def retry(self, job_id: int, delay_s: float, error: str) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE jobs SET state = 'queued', not_before = ?, last_error = ? "
                "WHERE id = ? AND state = 'running'",
                (self._clock() + max(0.0, delay_s), error, job_id),
            )

    def release(self, job_id: int) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE jobs SET state = 'queued', attempts = MAX(attempts - 1, 0), not_before = ? "
                "WHERE id = ? AND state = 'running'",
                (self._clock(), job_id),
            )

    def _finish(self, job_id: int, state: str, error: str | None) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE jobs SET state = ?, last_error = COALESCE(?, last_error) "
                "WHERE id = ? AND state = 'running'",
                (state, error, job_id),
            )

    def supersede(self, key: str, except_job_id: int) -> int:
        with self._tx() as db:
            return self._supersede(db, key, except_job_id)

    def _supersede(self, db: sqlite3.Connection, key: str, newer_id: int) -> int:
        # Only older, not yet running jobs of the same kind: a running job finishes (its head
        # SHA gets its own check run), and a command never cancels a check or the reverse.
        same = "key = ? AND state = 'queued' AND id < ? AND kind = (SELECT kind FROM jobs WHERE id = ?)"
        cur = db.execute(
            f"UPDATE jobs SET state = 'superseded', last_error = ? WHERE {same} AND attempts = 0",
            (f"superseded by job {newer_id}", key, newer_id, newer_id),
        )
        # A job that already ran may have left work in progress on GitHub: let it close it now.
        db.execute(
            f"UPDATE jobs SET not_before = MIN(not_before, ?) WHERE {same} AND attempts > 0",
            (self._clock(), key, newer_id, newer_id),
        )
        return cur.rowcount

    def has_newer(self, key: str, job_id: int, kind: str = "check", *, head_sha: str | None = None) -> bool:
        with self._lock:
            rows = self._db.execute(
                "SELECT payload FROM jobs WHERE key = ? AND kind = ? AND id > ? "
                "AND state IN ('queued', 'running', 'done')",
                (key, kind, job_id),
            ).fetchall()
        if head_sha is None:
            return bool(rows)
        return any(json.loads(payload).get("head_sha") not in (None, head_sha) for (payload,) in rows)

    def get(self, job_id: int) -> Job | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else _job(row)

    def counts(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall()
        result = dict.fromkeys(STATES, 0)
        result.update(dict(rows))
        return result

    def oldest_queued_s(self, now: float | None = None) -> float:
        now = self._clock() if now is None else now
        with self._lock:
            (oldest,) = self._db.execute("SELECT MIN(created_at) FROM jobs WHERE state = 'queued'").fetchone()
        return 0.0 if oldest is None else max(0.0, now - oldest)

    def lag(self, now: float | None = None) -> dict[str, float]:
        now = self._clock() if now is None else now
        with self._lock:
            rows = self._db.execute(
                "SELECT COALESCE(json_extract(payload, '$.installation_id'), ''), MIN(not_before) FROM jobs "
                "WHERE state = 'queued' AND not_before <= ? GROUP BY 1",
                (now,),
            ).fetchall()
        return {str(installation): max(0.0, now - due) for installation, due in rows}

    def prune(self, now: float | None = None) -> int:
        now = self._clock() if now is None else now
        marks = ",".join("?" * len(CACHE_NAMESPACES))
        with self._tx() as db:
            jobs = db.execute(
                "DELETE FROM jobs WHERE state IN ('done', 'failed', 'superseded') AND created_at < ?",
                (now - JOBS_KEPT_S,),
            ).rowcount
            kv = db.execute(
                f"DELETE FROM kv WHERE ns IN ({marks}) AND updated_at < ?",
                (*CACHE_NAMESPACES, now - CACHES_KEPT_S),
            ).rowcount
            blobs = db.execute("DELETE FROM blobs WHERE created_at < ?", (now - CACHES_KEPT_S,)).rowcount
            tallies = db.execute("DELETE FROM tallies WHERE since < ?", (now - TALLIES_KEPT_S,)).rowcount
        return jobs + kv + blobs + tallies

    def ping(self) -> None:
        if self._identity is not None and _identity(self.path) != self._identity:
            raise DatabaseGone(f"the database file {self.path} was removed or replaced since it was opened")
        self.kv_put("health", "ping", json.dumps(self._clock()))
        if self.kv_get("health", "ping") is None:
            raise RuntimeError("the database lost a row it had just written")

    def reserve(self, lane: str, interval_s: float) -> float:
        now = self._clock()
        with self._tx() as db:
            row = db.execute("SELECT next_at FROM lanes WHERE lane = ?", (lane,)).fetchone()
            turn = now if row is None else max(now, row[0])
            db.execute(
                "INSERT INTO lanes (lane, next_at) VALUES (?, ?) "
                "ON CONFLICT (lane) DO UPDATE SET next_at = excluded.next_at",
                (lane, turn + interval_s),
            )
        return turn

    def tally(self, bucket: str, window_s: float) -> int:
        now = self._clock()
        with self._tx() as db:
            (n,) = db.execute(
                _TALLY.replace("%s", "?"), (bucket, now, now - window_s, now - window_s, now)
            ).fetchone()
        return int(n)

    # -- App state --------------------------------------------------------------------------

    def kv_get(self, ns: str, key: str) -> str | None:
        """The JSON text stored under (ns, key), or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM kv WHERE ns = ? AND key = ?", (ns, key)).fetchone()
        return None if row is None else row[0]

    def kv_put(self, ns: str, key: str, value_json: str) -> None:
        """Store JSON text under (ns, key), replacing what was there."""
        json.loads(value_json)  # refuse to store what kv_get's callers could not decode
        with self._tx() as db:
            db.execute(
                "INSERT INTO kv (ns, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (ns, key, value_json, self._clock()),
            )

    def blob_get(self, sha: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT text FROM blobs WHERE sha = ?", (sha,)).fetchone()
        return None if row is None else row[0]

    def blob_put(self, sha: str, text: str) -> None:
        # A blob SHA names its content, so a second put of the same SHA has nothing new to say.
        with self._tx() as db:
            db.execute(
                "INSERT INTO blobs (sha, text, created_at) VALUES (?, ?, ?) ON CONFLICT (sha) DO NOTHING",
                (sha, text, self._clock()),
            )


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`; None for an in-memory database, or no file."""
    if path in ("", ":memory:") or path.startswith("file:"):
        return None
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)  # gone: differs from any file's
    return (st.st_dev, st.st_ino)


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
