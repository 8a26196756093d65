"""A disk cache of extracted facts and parsed pages, keyed by git blob id (a content hash).

A file whose content did not change is never parsed twice, across runs and across revisions.
Values are pickled `Extraction`s written by this program only; the cache lives in the user's
cache directory and is never read from a repository under check.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
from collections.abc import Iterator, MutableMapping
from pathlib import Path

# Bump when extraction output changes shape or meaning, so stale entries are ignored.
FORMAT = "facts-3"


def default_cache_path() -> Path:
    root = os.environ.get("DOCS_SYNC_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "docs-sync"
    )
    return Path(root) / "facts.sqlite"


class FactsCache(MutableMapping[str, object]):
    """`namespace` names the code that wrote the entries (the command line passes a digest of
    bot/core): facts another version extracted, from an upgrade or another checkout sharing the
    cache, are never read back as this version's."""

    def __init__(self, path: str | Path | None = None, namespace: str = ""):
        self.path = Path(path) if path else default_cache_path()
        self._prefix = f"{FORMAT}:{namespace}:" if namespace else f"{FORMAT}:"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value BLOB)")

    def __getitem__(self, key: str) -> object:
        row = self._db.execute("SELECT value FROM facts WHERE key = ?", (self._prefix + key,)).fetchone()
        if row is None:
            raise KeyError(key)
        try:
            return pickle.loads(row[0])
        except Exception:  # an unreadable entry is a miss, not an error
            raise KeyError(key) from None

    def __setitem__(self, key: str, value: object) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO facts (key, value) VALUES (?, ?)",
            (self._prefix + key, pickle.dumps(value)),
        )

    def __delitem__(self, key: str) -> None:
        self._db.execute("DELETE FROM facts WHERE key = ?", (self._prefix + key,))

    def __iter__(self) -> Iterator[str]:
        for (key,) in self._db.execute("SELECT key FROM facts"):
            if key.startswith(self._prefix):
                yield key.removeprefix(self._prefix)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def close(self) -> None:
        self._db.close()
