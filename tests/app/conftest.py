"""Fixtures the App's tests share."""

import pytest

from bot.testing import postgres as pgserver


@pytest.fixture(scope="session")
def postgres():
    """One throwaway PostgreSQL cluster for the session; each test gets a database of its own
    (`new_database()`). Skipped where PostgreSQL is not installed, unless CI requires it."""
    pgserver.skip_unless_available()
    cluster = pgserver.Cluster()
    yield cluster
    cluster.stop()
