"""A durable job queue, plus the App's own small durable state: what every backend keeps to.

A webhook delivery becomes a job row before GitHub gets its answer, so nothing is lost when
the process stops. The lifecycle of a job:

    queued --claim--> running --complete--> done
                         |----retry-------> queued (not_before = now + delay)
                         |----fail--------> failed
    queued --supersede--> superseded        (a newer job for the same key made it pointless)

Only a job that never ran is superseded. One that ran and waits for a retry may have started
something on GitHub (a check run in progress): it is made due at once instead, so its handler
can see the newer job and close what it started.

Delivery ids (X-GitHub-Delivery) are unique: a redelivery of the same event is refused by
`enqueue`, so GitHub's "Redeliver" button never runs a job twice.

One repository at a time: `claim` never hands out a job of a repository (the part of its key
before "#" or "@", case aside) while another job of that repository is running. Jobs of one
repository run in order, and several workers go on with other repositories' jobs while one
repository's is long.

Crash recovery: a job left `running` by a process that died is put back to `queued` when the
queue is opened, and is then claimed once like any other job. Its attempt count keeps the lost
run, and `interrupted` counts the runs lost so: a job whose process died under it twice (killed,
or frozen and restarted) is failed by the worker without a third run. Running
it again is safe because the job handler is idempotent: what it writes to GitHub (check runs,
review comments, the summary comment) is found again by fingerprints and updated, not
duplicated. The recovery assumes one serving process per database file.

Two backends, one set of semantics (tests/app/test_queue.py runs every test on both):
bot.app.queue.database.open_queue takes a SQLite path (bot.app.queue.sqlite.SQLiteQueue: one
process, nothing to install) or a postgresql:// URL (bot.app.queue.postgres.PostgresQueue: any
number of web and worker processes). The rules are written once, here (JobQueue: the tables,
every statement, the lifecycle); a backend is its connection, a few words of its SQL dialect
and its locking (which jobs a live process runs; who is told a job may be claimable).
The PostgreSQL queue is this module's own, on `FOR UPDATE SKIP LOCKED` and advisory locks,
rather than procrastinate: procrastinate's queueing locks and per-key serial locks are close,
but not this queue's rules (a newer push supersedes only never-run checks and makes a retrying
one due; a repository, in any of its key forms, runs one job at a time; a redelivered id is
refused forever), its jobs would live in its own tables away from the kv and blob state the
store keeps in the same transactions' database, and it is async-first where the worker and
the store are synchronous. A queue of ~200 lines with the same API keeps every caller and test
unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

STATES = ("queued", "running", "done", "failed", "superseded")
JOBS_KEPT_S = 7 * 86400.0  # GitHub lets a delivery be redelivered for 3 days
CACHES_KEPT_S = 30 * 86400.0
TALLIES_KEPT_S = 86400.0  # rate limits count within minutes
# One statement on both databases: a window past its end starts again at 1 (SET reads the old row).
_TALLY = (
    "INSERT INTO tallies (bucket, since, n) VALUES (%s, %s, 1) ON CONFLICT (bucket) DO UPDATE SET "
    "n = CASE WHEN tallies.since <= %s THEN 1 ELSE tallies.n + 1 END, "
    "since = CASE WHEN tallies.since <= %s THEN %s ELSE tallies.since END RETURNING n"
)
# What can be read again from GitHub: dropped once unused for CACHES_KEPT_S. The rest ("pr",
# "waivers", "report") is what docs-sync wrote or was told, and stays.
CACHE_NAMESPACES = (
    "config",
    "checked",
    "merge-base",
    "blob-at",
    "check-run",
    "check-run-pending",
    "reply",
    "applied",
    "limit",
    "redelivery",
    "swept",
    "credential",
    "history",
)


@dataclass(frozen=True)
class Job:
    id: int
    delivery_id: str
    kind: str
    key: str | None
    payload: dict[str, Any]
    state: str
    attempts: int  # claims so far, this one included
    not_before: float
    last_error: str | None
    created_at: float
    claimed_at: float | None
    interrupted: int = 0  # runs its process did not outlive (killed, or frozen and restarted)


@dataclass(frozen=True)
class NewJob:
    """A job to store: what `enqueue` takes, as one value, for `enqueue_many`."""

    delivery_id: str
    kind: str
    payload: dict[str, Any]
    key: str | None
    supersede: bool = False


# The columns of a job, in Job's order (`_job`).
_COLUMNS = (
    "id, delivery_id, kind, key, payload, state, attempts, not_before, last_error, created_at, claimed_at, "
    "interrupted"
)
# The oldest due job of a repository that has no job running (a backend may lock what it reads).
_CLAIMABLE = (
    f"SELECT {_COLUMNS} FROM jobs WHERE state = 'queued' AND not_before <= %s "
    "AND (key IS NULL OR docs_sync_repository(key) NOT IN (SELECT docs_sync_repository(key) "
    "FROM jobs WHERE state = 'running' AND key IS NOT NULL)) ORDER BY id LIMIT 1"
)
# Older queued jobs of the same key and kind as job %s.
_SAME = "key = %s AND state = 'queued' AND id < %s AND kind = (SELECT kind FROM jobs WHERE id = %s)"


Q = TypeVar("Q", bound="JobQueue")


# The tables, in a backend's types: {serial} an id that counts up, {real} a float, {blob} a file's
# text (PostgreSQL keeps its UTF-8 bytes: a NUL byte is UTF-8, and its TEXT refuses one).
_TABLES = """
CREATE TABLE IF NOT EXISTS jobs (
    id          {serial},
    delivery_id TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL,
    key         TEXT,
    payload     TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'queued'
                CHECK (state IN ('queued', 'running', 'done', 'failed', 'superseded')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    not_before  {real} NOT NULL,
    last_error  TEXT,
    created_at  {real} NOT NULL,
    claimed_at  {real},
    finished_at {real},
    interrupted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs (state, not_before, id);
CREATE INDEX IF NOT EXISTS jobs_key ON jobs (key, state);
CREATE TABLE IF NOT EXISTS kv (
    ns         TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at {real} NOT NULL,
    PRIMARY KEY (ns, key)
);
CREATE TABLE IF NOT EXISTS blobs (
    sha        TEXT PRIMARY KEY,
    text       {blob} NOT NULL,
    created_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS lanes (
    lane    TEXT PRIMARY KEY,
    next_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS tallies (
    bucket TEXT PRIMARY KEY,
    since  {real} NOT NULL,
    n      INTEGER NOT NULL
)
"""


def tables(*, serial: str, real: str, blob: str) -> list[str]:
    """The statements that make the queue's tables and indexes (where missing), in a backend's types."""
    text = _TABLES.format(serial=serial, real=real, blob=blob)
    return [statement for statement in text.split(";") if statement.strip()]


# A backend's connection, as the queue uses it: DB-API's `execute`, taking %s placeholders.
Connection = Any


class JobQueue:
    """The queue's rules, written once; a backend (sqlite.py, postgres.py) gives its connections,
    its dialect and its locking.

    Statements are written here with %s placeholders. A backend gives `_tx` (a transaction),
    `_read` (a connection to read from, outside any transaction) and `close`; it may take locks
    around a claim (`_claiming`, `_hold`), a recovery (`_recovering`) and a job's outcome
    (`_finishing`), tell other processes (`_notify`), and keep a blob's text in another type
    (`_blob_value`, `_blob_text`).
    """

    recovered: int = 0  # interrupted jobs put back in the queue when it was opened
    _clock: Callable[[], float]
    # The backend's SQL for: the larger and the smaller of two values; a job's installation id
    # as text; what the claim's query ends with (to lock the rows it reads); the running jobs
    # no live process runs.
    GREATEST: ClassVar[str]
    LEAST: ClassVar[str]
    INSTALLATION: ClassVar[str]
    CLAIM_LOCKS: ClassVar[str]
    ORPHANED: ClassVar[str]

    # -- what a backend gives -----------------------------------------------------------------

    def close(self) -> None:
        raise NotImplementedError

    def _tx(self) -> AbstractContextManager[Connection]:
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Connection]:
        raise NotImplementedError

    def _claiming(self) -> AbstractContextManager[Connection]:
        return self._tx()

    def _recovering(self) -> AbstractContextManager[Connection]:
        """The transaction `_recover` runs in (a backend that recovers while others claim
        keeps claims out of it)."""
        return self._tx()

    def _hold(self, db: Connection, job_id: int) -> None:
        """The job `db` just claimed is running here (for a backend that locks it meanwhile)."""

    def _finishing(self, job_id: int) -> AbstractContextManager[Connection]:
        return self._tx()

    def _notify(self, db: Connection) -> None:
        """A job may be claimable now: tell other processes, when the transaction commits."""

    def _blob_value(self, text: str) -> object:
        return text

    def _blob_text(self, value: Any) -> str:
        return str(value)

    # -- the queue ------------------------------------------------------------------------------

    def __enter__(self: Q) -> Q:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _recover(self) -> int:
        """Put the jobs a dead process left running back in the queue; returns how many."""
        with self._recovering() as db:
            cur = db.execute(
                "UPDATE jobs SET state = 'queued', not_before = %s, interrupted = interrupted + 1, "
                "last_error = 'interrupted: the process stopped while the job was running' "
                f"WHERE {self.ORPHANED}",
                (self._clock(),),
            )
            return int(cur.rowcount)

    def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake` whenever another process may have made a job claimable, so a worker
        claims at once rather than at its next poll (PostgreSQL: LISTEN/NOTIFY). SQLite serves
        one process, whose webhook endpoint wakes its worker itself: nothing to do there."""

    def enqueue(
        self,
        delivery_id: str,
        kind: str,
        payload: dict[str, Any],
        *,
        key: str | None,
        supersede: bool = False,
    ) -> bool:
        """Store a job; False when `delivery_id` was seen before (nothing stored).

        With `supersede`, queued jobs of the same kind and key become `superseded` in the same
        transaction: a newer push replaces an older check that has not started yet. One that
        ran before and waits for a retry is made due now instead (see the module docstring).
        """
        return self.enqueue_many([NewJob(delivery_id, kind, payload, key, supersede)])[0]

    def enqueue_many(self, jobs: Sequence[NewJob]) -> list[bool]:
        """`enqueue` each job, in order, in one transaction (one disk flush for all of them).

        The webhook endpoint stores the deliveries that arrive together this way.
        """
        rows = [(job, json.dumps(job.payload, sort_keys=True)) for job in jobs]  # outside the lock
        now = self._clock()
        with self._tx() as db:
            stored = [self._insert(db, job, body, now) for job, body in rows]
            if any(stored):
                self._notify(db)
            return stored

    def _insert(self, db: Connection, job: NewJob, body: str, now: float) -> bool:
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
        """The oldest queued job due at `now` whose repository has no job running, marked
        running; None when there is none."""
        now = self._clock() if now is None else now
        with self._claiming() as db:
            row = db.execute(_CLAIMABLE + self.CLAIM_LOCKS, (now,)).fetchone()
            if row is None:
                return None
            row = _returned(
                db.execute(
                    "UPDATE jobs SET state = 'running', attempts = attempts + 1, claimed_at = %s "
                    f"WHERE id = %s RETURNING {_COLUMNS}",
                    (now, row[0]),
                ).fetchone()
            )
            self._hold(db, row[0])
        return _job(row)

    def complete(self, job_id: int) -> None:
        self._finish(job_id, "state = 'done'", ())

    def fail(self, job_id: int, error: str) -> None:
        self._finish(job_id, "state = 'failed', last_error = COALESCE(%s, last_error)", (error,))

    def retry(self, job_id: int, delay_s: float, error: str) -> None:
        not_before = self._clock() + max(0.0, delay_s)
        self._finish(job_id, "state = 'queued', not_before = %s, last_error = %s", (not_before, error))

    def release(self, job_id: int) -> None:
        """Put a running job back, due now, its run not counted: the worker is shutting down."""
        attempts = f"{self.GREATEST}(attempts - 1, 0)"
        self._finish(job_id, f"state = 'queued', attempts = {attempts}, not_before = %s", (self._clock(),))

    def _finish(self, job_id: int, assignments: str, params: tuple[Any, ...]) -> None:
        with self._finishing(job_id) as db:
            db.execute(
                f"UPDATE jobs SET {assignments}, finished_at = %s WHERE id = %s AND state = 'running'",
                (*params, self._clock(), job_id),
            )
            self._notify(db)  # the job's repository may have a next job

    def supersede(self, key: str, except_job_id: int) -> int:
        """Mark queued jobs with `key`, of the kind of `except_job_id` and older than it, superseded.

        Returns how many. Safe to call from a job handler with its own job: it never touches
        newer work, running jobs, or jobs of another kind.
        """
        with self._tx() as db:
            return self._supersede(db, key, except_job_id)

    def _supersede(self, db: Connection, key: str, newer_id: int) -> int:
        # Only older, not yet running jobs of the same kind: a running job finishes (its head
        # SHA gets its own check run), and a command never cancels a check or the reverse.
        cur = db.execute(
            f"UPDATE jobs SET state = 'superseded', last_error = %s WHERE {_SAME} AND attempts = 0",
            (f"superseded by job {newer_id}", key, newer_id, newer_id),
        )
        # A job that already ran may have left work in progress on GitHub: let it close it now.
        db.execute(
            f"UPDATE jobs SET not_before = {self.LEAST}(not_before, %s) WHERE {_SAME} AND attempts > 0",
            (self._clock(), key, newer_id, newer_id),
        )
        return int(cur.rowcount)

    def has_newer(self, key: str, job_id: int, kind: str = "check", *, head_sha: str | None = None) -> bool:
        """Is a job of `kind` with `key`, newer than `job_id`, queued, running or done?

        With `head_sha`, only jobs whose payload names another head commit count: a second
        announcement of the same push is not newer work. Sees jobs enqueued while `job_id` runs.
        """
        with self._read() as db:
            rows = db.execute(
                "SELECT payload FROM jobs WHERE key = %s AND kind = %s AND id > %s "
                "AND state IN ('queued', 'running', 'done')",
                (key, kind, job_id),
            ).fetchall()
        if head_sha is None:
            return bool(rows)
        return any(json.loads(payload).get("head_sha") not in (None, head_sha) for (payload,) in rows)

    def get(self, job_id: int) -> Job | None:
        with self._read() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = %s", (job_id,)).fetchone()
        return None if row is None else _job(row)

    def counts(self) -> dict[str, int]:
        with self._read() as db:
            rows = db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall()
        result = dict.fromkeys(STATES, 0)
        result.update({state: int(n) for state, n in rows})
        return result

    def oldest_queued_s(self, now: float | None = None) -> float:
        """How long the oldest queued job has been in the queue (0 when none is)."""
        now = self._clock() if now is None else now
        with self._read() as db:
            row = db.execute("SELECT MIN(created_at) FROM jobs WHERE state = 'queued'").fetchone()
        return 0.0 if row is None or row[0] is None else max(0.0, now - row[0])

    def lag(self, now: float | None = None) -> dict[str, float]:
        """By installation id ("" when the job names none): how long its longest-waiting due job
        has been due. The installations with nothing due are absent."""
        now = self._clock() if now is None else now
        with self._read() as db:
            rows = db.execute(
                f"SELECT COALESCE({self.INSTALLATION}, ''), MIN(not_before) FROM jobs "
                "WHERE state = 'queued' AND not_before <= %s GROUP BY 1",
                (now,),
            ).fetchall()
        return {str(installation): max(0.0, now - due) for installation, due in rows}

    def prune(self, now: float | None = None) -> int:
        """Delete finished jobs older than JOBS_KEPT_S (their delivery ids with them: GitHub
        redelivers only recent deliveries) and caches unused for CACHES_KEPT_S; how many rows."""
        now = self._clock() if now is None else now
        marks = ", ".join(["%s"] * len(CACHE_NAMESPACES))
        with self._tx() as db:
            jobs = db.execute(
                "DELETE FROM jobs WHERE state IN ('done', 'failed', 'superseded') AND created_at < %s",
                (now - JOBS_KEPT_S,),
            ).rowcount
            kv = db.execute(
                f"DELETE FROM kv WHERE ns IN ({marks}) AND updated_at < %s",
                (*CACHE_NAMESPACES, now - CACHES_KEPT_S),
            ).rowcount
            blobs = db.execute("DELETE FROM blobs WHERE created_at < %s", (now - CACHES_KEPT_S,)).rowcount
            tallies = db.execute("DELETE FROM tallies WHERE since < %s", (now - TALLIES_KEPT_S,)).rowcount
        return int(jobs + kv + blobs + tallies)

    def ping(self) -> None:
        """Write and read back a row: raises when the database cannot do both (/healthz)."""
        self.kv_put("health", "ping", json.dumps(self._clock()))
        if self.kv_get("health", "ping") is None:
            raise RuntimeError("the database lost a row it had just written")

    def reserve(self, lane: str, interval_s: float) -> float:
        """When the caller may act on `lane` (a clock time, maybe now), keeping `interval_s`
        after the previous reservation on it: every process gets its own turn, in order."""
        # One statement: the row lock orders concurrent reservations, each sees the last one's.
        now = self._clock()
        with self._tx() as db:
            row = db.execute(
                "INSERT INTO lanes (lane, next_at) VALUES (%s, %s) ON CONFLICT (lane) DO UPDATE "
                f"SET next_at = {self.GREATEST}(lanes.next_at, %s) + %s RETURNING next_at",
                (lane, now + interval_s, now, interval_s),
            ).fetchone()
        return float(_returned(row)[0]) - interval_s

    def tally(self, bucket: str, window_s: float) -> int:
        """Count one event in `bucket`: how many it has had in its window so far, this one
        included. A window opens at a bucket's first event and lasts `window_s`; one atomic
        statement, so processes sharing the database count together."""
        now = self._clock()
        with self._tx() as db:
            row = db.execute(_TALLY, (bucket, now, now - window_s, now - window_s, now)).fetchone()
        return int(_returned(row)[0])

    # -- the App's state ------------------------------------------------------------------------

    def kv_get(self, ns: str, key: str) -> str | None:
        """The JSON text stored under (ns, key), or None."""
        with self._read() as db:
            row = db.execute("SELECT value FROM kv WHERE ns = %s AND key = %s", (ns, key)).fetchone()
        return None if row is None else str(row[0])

    def kv_put(self, ns: str, key: str, value_json: str) -> None:
        """Store JSON text under (ns, key), replacing what was there."""
        json.loads(value_json)  # refuse to store what kv_get's callers could not decode
        with self._tx() as db:
            db.execute(
                "INSERT INTO kv (ns, key, value, updated_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (ns, key) DO UPDATE "
                "SET value = excluded.value, updated_at = excluded.updated_at",
                (ns, key, value_json, self._clock()),
            )

    def blob_get(self, sha: str) -> str | None:
        with self._read() as db:
            row = db.execute("SELECT text FROM blobs WHERE sha = %s", (sha,)).fetchone()
        return None if row is None else self._blob_text(row[0])

    def blob_put(self, sha: str, text: str) -> None:
        # A blob SHA names its content, so a second put of the same SHA has nothing new to say.
        with self._tx() as db:
            db.execute(
                "INSERT INTO blobs (sha, text, created_at) VALUES (%s, %s, %s) ON CONFLICT (sha) DO NOTHING",
                (sha, self._blob_value(text), self._clock()),
            )


class DatabaseGone(RuntimeError):
    """The SQLite file the queue opened is no longer at its path (deleted, or another in its place)."""


def repository_of(key: str | None) -> str | None:
    """ "owner/repo" of a job key ("owner/repo#12", "owner/repo@<sha>"), lower-cased as GitHub
    compares names; None for a job about no repository."""
    if key is None:
        return None
    return re.split(r"[#@]", key, maxsplit=1)[0].lower()


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
