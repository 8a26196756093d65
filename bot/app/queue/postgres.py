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
  the running jobs of live processes are left alone. A recovery takes CLAIM_LOCK too: it reads
  the locks once per statement, and must not see a job claimed after that read as orphaned.
- Wake-ups. Every transaction that makes a job due (an enqueue, a release, a job finished, which
  may free its repository for the next) sends NOTIFY on CHANNEL, delivered at commit; a worker
  process LISTENs on a connection of its own (`listen`) and claims at once instead of at its
  next poll. The poll stays: a notification missed while the listening connection was down
  costs one poll interval, never a job.
- Migrations. The schema is created at open under a transaction advisory lock (MIGRATE_LOCK),
  so processes starting together do not race on it; `docs-sync migrate` is not needed. A schema
  already at SCHEMA_VERSION is only read: a process starting while others run takes no table
  lock, which a claim (reading jobs, then writing it) would otherwise deadlock with.
- Time. Every timestamp comes from the injected clock, as in SQLite, so the two backends agree
  on backoff and ordering in the tests; hosts are assumed to keep their clocks in sync (NTP).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, ClassVar

import psycopg
from psycopg_pool import ConnectionPool

from bot.app.queue.protocol import JobQueue, tables

CLAIM_LOCK = 0x0D0C5C1A  # advisory lock keys: one number each, unlikely to meet another app's
MIGRATE_LOCK = 0x0D0C5DB0
JOB_LOCK = 0x0D0C  # (JOB_LOCK, job id): held while the job runs
log = logging.getLogger(__name__)

RECOVER_EVERY_S = 5.0
CHANNEL = "docs_sync_jobs"  # NOTIFY channel: a job may be claimable now
LISTEN_RETRY_S = 1.0  # the listening connection is opened again this long after it failed

# What the tables need beyond bot.app.queue.protocol's: a column databases made before it lack,
# and the claim's repository of a job key (SQLite's is bot.app.queue.protocol.repository_of).
_MIGRATIONS = (
    "ALTER TABLE jobs ADD COLUMN IF NOT EXISTS interrupted INTEGER NOT NULL DEFAULT 0",
    "CREATE OR REPLACE FUNCTION docs_sync_repository(k TEXT) RETURNS TEXT "
    "LANGUAGE SQL IMMUTABLE AS $$ SELECT lower(substring(k from '^[^#@]*')) $$",
)

# The schema's version, kept as the jobs table's comment. Raise it with every change to the
# tables or to _MIGRATIONS: a database at an older one (or none, made before it was kept) is
# migrated at open; one at this version or newer is not touched.
SCHEMA_VERSION = 1
_VERSION_MARK = "docs-sync schema "
MIGRATE_ATTEMPTS = 3


def _version(db: psycopg.Connection) -> int:
    """The version the database's schema is at: 0 when it has no jobs table or no mark."""
    row = db.execute("SELECT obj_description(to_regclass('jobs'), 'pg_class')").fetchone()
    mark = row[0] if row else None
    if not isinstance(mark, str) or not mark.startswith(_VERSION_MARK):
        return 0
    number = mark.removeprefix(_VERSION_MARK)
    return int(number) if number.isdigit() else 0


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

# Running jobs whose claiming connection is gone (its process died).
_ORPHANED = (
    "state = 'running' AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' "
    f"AND l.classid = {JOB_LOCK} AND l.objid::bigint = jobs.id AND l.objsubid = 2 AND l.granted)"
)


class PostgresQueue(JobQueue):
    """JobQueue on PostgreSQL through a psycopg connection pool; safe for threads and processes."""

    GREATEST: ClassVar[str] = "GREATEST"
    LEAST: ClassVar[str] = "LEAST"
    INSTALLATION: ClassVar[str] = "payload::json->>'installation_id'"
    CLAIM_LOCKS: ClassVar[str] = " FOR UPDATE SKIP LOCKED"
    ORPHANED: ClassVar[str] = _ORPHANED

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
        self._migrate()
        self.recovered = self._recover()

    def _migrate(self) -> None:
        # A schema already at SCHEMA_VERSION is left untouched. Its DDL would take table locks
        # even with nothing to change (ALTER TABLE ... IF NOT EXISTS an exclusive one), and a
        # process starting next to live ones would then deadlock with a claim that reads jobs
        # and then writes it.
        with self._read() as db:
            if _version(db) >= SCHEMA_VERSION:
                return
        for attempt in range(MIGRATE_ATTEMPTS):
            try:
                with self._tx() as db:
                    db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
                    if _version(db) >= SCHEMA_VERSION:  # another process did it meanwhile
                        return
                    for statement in (
                        *tables(serial="BIGSERIAL PRIMARY KEY", real="DOUBLE PRECISION", blob="BYTEA"),
                        *_MIGRATIONS,
                    ):
                        db.execute(statement)
                    db.execute(_BLOBS_AS_BYTES)
                    db.execute(f"COMMENT ON TABLE jobs IS '{_VERSION_MARK}{SCHEMA_VERSION}'")
                return
            except psycopg.errors.DeadlockDetected:
                # An older schema upgraded while older processes run: their transactions win.
                if attempt + 1 == MIGRATE_ATTEMPTS:
                    raise
                log.warning("schema migration deadlocked with a live process; trying again")
                time.sleep(0.2 * (attempt + 1))

    def close(self) -> None:
        self._closed.set()
        if self._listener is not None:
            self._listener.join(LISTEN_RETRY_S + 2.0)
        with self._lock:
            held, self._held = list(self._held.values()), {}
        for conn in held:  # the jobs stay `running` with no lock: the next claim recovers them
            self._pool.putconn(conn)
        self._pool.close()

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Connection]:
        with self._pool.connection() as conn, conn.transaction():
            yield conn

    def _read(self) -> AbstractContextManager[psycopg.Connection]:
        return self._pool.connection()

    def _recover(self) -> int:
        recovered = super()._recover()
        self._next_recovery = time.monotonic() + RECOVER_EVERY_S
        return recovered

    @contextmanager
    def _recovering(self) -> Iterator[psycopg.Connection]:
        # Under the claim lock: the statement reads pg_locks once, so a job another process
        # put back and claimed again while it ran would look orphaned and be run twice.
        with self._tx() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (CLAIM_LOCK,))
            yield db

    @contextmanager
    def _claiming(self) -> Iterator[psycopg.Connection]:
        if time.monotonic() >= self._next_recovery:
            self._recover()
        conn = self._pool.getconn()
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (CLAIM_LOCK,))
                yield conn
        except BaseException:
            with self._lock:  # a claim that did not commit holds nothing
                self._held = {job: c for job, c in self._held.items() if c is not conn}
            self._pool.putconn(conn)
            raise
        with self._lock:
            held = any(c is conn for c in self._held.values())
        if not held:
            self._pool.putconn(conn)

    def _hold(self, db: psycopg.Connection, job_id: int) -> None:
        # Session-scoped: it outlives the claim's transaction and ends with the connection.
        db.execute("SELECT pg_advisory_lock(%s::int, %s::int)", (JOB_LOCK, job_id))
        with self._lock:
            self._held[job_id] = db

    @contextmanager
    def _finishing(self, job_id: int) -> Iterator[psycopg.Connection]:
        with self._lock:
            conn = self._held.get(job_id)
        if conn is None:  # claimed by an earlier queue object (a test, a restart): any connection
            with self._tx() as db:
                yield db
            return
        with conn.transaction():
            yield conn
        # Only once the outcome is written: until then the job is still ours, not an orphan.
        conn.execute("SELECT pg_advisory_unlock(%s::int, %s::int)", (JOB_LOCK, job_id))
        with self._lock:
            self._held.pop(job_id, None)
        self._pool.putconn(conn)

    def _notify(self, db: psycopg.Connection) -> None:
        # Sent when the transaction commits; notifications with the same payload in one
        # transaction are folded into one.
        db.execute(f"NOTIFY {CHANNEL}")

    def _blob_value(self, text: str) -> bytes:
        return text.encode("utf-8")

    def _blob_text(self, value: Any) -> str:
        return bytes(value).decode("utf-8")

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
