"""The job queue on one SQLite file (WAL mode): one process, nothing to install.

The queue's rules are bot.app.queue.protocol's; this is their connection. One connection guarded
by a lock, shared by the web and worker threads: every operation is a short transaction, so the
lock is held for well under a millisecond and the webhook endpoint never waits on a job.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from bot.app.queue.protocol import DatabaseGone, JobQueue, repository_of, tables

# Columns added since the first schema: a file made before gets them when opened.
_ADDED = {"interrupted": "INTEGER NOT NULL DEFAULT 0", "finished_at": "REAL"}


class SQLiteQueue(JobQueue):
    """JobQueue on a SQLite file in WAL mode; safe to share between the web and worker threads."""

    GREATEST: ClassVar[str] = "MAX"  # SQLite's MAX and MIN of two values
    LEAST: ClassVar[str] = "MIN"
    INSTALLATION: ClassVar[str] = "json_extract(payload, '$.installation_id')"
    CLAIM_LOCKS: ClassVar[str] = ""  # BEGIN IMMEDIATE has taken the file's write lock
    ORPHANED: ClassVar[str] = "state = 'running'"  # one process per file: at open, none is live

    def __init__(self, path: str, *, clock: Callable[[], float] = time.time):
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()
        # isolation_level=None: transactions are opened explicitly, so each one is visible here.
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # an accepted delivery survives power loss
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.create_function("docs_sync_repository", 1, repository_of, deterministic=True)
        # The file as opened: one deleted or replaced under the running App (a container restarted
        # without its volume) still takes writes through the open handle, and they are lost.
        self._identity = _identity(path)
        with self._tx() as db:
            # Statement by statement: executescript() would commit the open transaction.
            for statement in tables(serial="INTEGER PRIMARY KEY AUTOINCREMENT", real="REAL", blob="TEXT"):
                db.execute(statement)
            columns = {row[1] for row in db.execute("PRAGMA table_info(jobs)").fetchall()}
            for name, kind in _ADDED.items():
                if name not in columns:
                    db.execute(f"ALTER TABLE jobs ADD COLUMN {name} {kind}")
        self.recovered = self._recover()  # how many interrupted jobs went back to the queue

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[_Placeholders]:
        # BEGIN IMMEDIATE takes the write lock up front, so a claim cannot race another writer.
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield _Placeholders(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[_Placeholders]:
        with self._lock:
            yield _Placeholders(self._db)

    def ping(self) -> None:
        if self._identity is not None and _identity(self.path) != self._identity:
            raise DatabaseGone(f"the database file {self.path} was removed or replaced since it was opened")
        super().ping()


class _Placeholders:
    """The connection, taking the queue's %s placeholders as sqlite3's ?."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._db.execute(_qmarks(sql), params)


@functools.lru_cache(maxsize=256)
def _qmarks(sql: str) -> str:
    return sql.replace("%s", "?")


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`; None for an in-memory database, or no file."""
    if path in ("", ":memory:") or path.startswith("file:"):
        return None
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)  # gone: differs from any file's
    return (st.st_dev, st.st_ino)
