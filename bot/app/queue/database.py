"""The queue database a deployment names: a SQLite file, or PostgreSQL for many processes."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable

from bot.app.config import ConfigError, Settings, redacted_url, shown
from bot.app.queue.protocol import JobQueue
from bot.app.queue.sqlite import SQLiteQueue

log = logging.getLogger(__name__)


def open_queue(location: str, *, clock: Callable[[], float] = time.time, connections: int = 20) -> JobQueue:
    """The queue at `location`: a postgresql:// URL (bot.app.queue.postgres), else a SQLite file path."""
    if location.startswith(("postgresql://", "postgres://")):
        from bot.app.queue.postgres import PostgresQueue  # psycopg is needed only for this backend

        return PostgresQueue(location, clock=clock, max_connections=connections)
    return SQLiteQueue(location, clock=clock)


def open_queue_for(settings: Settings) -> JobQueue:
    """The queue the settings name (DATABASE_URL, else DOCS_SYNC_DB), schema applied; a queue that
    cannot be opened is a ConfigError naming the variable (the URL's password never shown)."""
    if settings.database_url:
        try:
            queue = open_queue(settings.database_url, connections=settings.workers + 8)
        except ImportError:
            raise ConfigError(
                "DATABASE_URL: PostgreSQL needs psycopg: pip install 'docs-sync[postgres]'"
            ) from None
        except Exception as exc:  # psycopg's errors: no connection, bad credentials, no database
            reason = str(exc).replace(settings.database_url, redacted_url(settings.database_url))
            raise ConfigError(
                f"DATABASE_URL: cannot open {redacted_url(settings.database_url)}: {reason}"
            ) from None
    else:
        try:
            queue = SQLiteQueue(settings.db_path)
        except (sqlite3.Error, OSError) as exc:
            raise ConfigError(
                f"DOCS_SYNC_DB: cannot open {shown(settings.db_path)} as a database: {exc}"
            ) from None
    if queue.recovered:
        log.warning("%d interrupted job(s) put back in the queue", queue.recovered)
    return queue
