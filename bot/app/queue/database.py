"""The queue database a deployment names: a SQLite file, or PostgreSQL for many processes."""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.app.queue.protocol import JobQueue
from bot.app.queue.sqlite import SQLiteQueue


def open_queue(location: str, *, clock: Callable[[], float] = time.time, connections: int = 20) -> JobQueue:
    """The queue at `location`: a postgresql:// URL (bot.app.queue.postgres), else a SQLite file path."""
    if location.startswith(("postgresql://", "postgres://")):
        from bot.app.queue.postgres import PostgresQueue  # psycopg is needed only for this backend

        return PostgresQueue(location, clock=clock, max_connections=connections)
    return SQLiteQueue(location, clock=clock)
