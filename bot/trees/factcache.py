"""A disk cache of extracted facts and parsed pages, keyed by git blob id (a content hash).

A file whose content did not change is never parsed twice, across runs and across revisions.
Values are pickled `Extraction`s written by this program only; the cache lives in the user's
cache directory and is never read from a repository under check.

Every process of the user shares the file (a replay's checks, a pre-commit hook, other
checkouts). SQLite lets one writer in at a time and tells the others "database is locked" after
the busy timeout: under load a run could end in a traceback because another one was writing. A
cache only saves time, so an entry that cannot be read is a miss and one that cannot be written
is not kept; the run goes on.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sqlite3
from collections.abc import Iterator, MutableMapping
from pathlib import Path

# Bump when extraction output changes shape or meaning, so stale entries are ignored.
FORMAT = "facts-3"
BUSY_TIMEOUT = 10.0  # seconds a read or write waits for another process's write
# A file over this size is emptied when opened: entries are never stale, but those of files
# nobody checks any more (older versions, other checkouts, a CI cache restored by every job)
# would only grow. Emptied, not deleted: another process may hold it open; SQLite reuses the pages.
MAX_BYTES = 512 * 1024 * 1024
# Writes are kept and committed together, in one transaction: a cold check writes hundreds of
# entries, and a transaction each cost it more than its git reads. At most this many wait.
MAX_PENDING = 500


def default_cache_path() -> Path:
    root = os.environ.get("DOCS_SYNC_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "docs-sync"
    )
    return Path(root) / "facts.sqlite"


def code_digest(root: str | Path, cache_dir: Path | None = None) -> str:
    """The digest of the Python files under `root` (path and content): what the cache's entries
    are kept under. Reading and hashing them costs a warm start more than its other reads, so
    the digest is kept in `cache_dir` under what identifies the files on disk (path, size, inode,
    modification and change time: what git's index trusts), and a start that finds it there
    reads none of them. A file written since has another change time, so its digest is not
    taken for the old one's."""
    files = sorted(_python_files(str(root)))
    stamp = hashlib.sha1(repr([(path, stat) for _, path, stat in files]).encode()).hexdigest()
    memo = (cache_dir or default_cache_path().parent) / "code-digests"
    try:
        known = dict(line.split(" ", 1) for line in memo.read_text().split("\n") if " " in line)
    except (OSError, ValueError):
        known = {}
    if stamp in known:
        return known[stamp]
    digest = hashlib.sha1()
    for relative, path, _ in files:
        with open(path, "rb") as f:
            digest.update(relative.encode() + b"\0" + f.read())
    value = digest.hexdigest()
    # A few checkouts (or versions) may share the cache; the newest stamps are kept.
    lines = [f"{s} {d}" for s, d in list(known.items())[-7:]] + [f"{stamp} {value}"]
    try:
        import tempfile

        memo.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memo.parent, prefix=".code-digests-")
        with os.fdopen(fd, "w") as out:
            out.write("\n".join(lines) + "\n")
        os.replace(tmp, memo)  # whole or not at all: another process may be reading it
    except OSError:
        pass  # a read-only cache directory only costs the reads next time
    return value


def _python_files(top: str, relative: str = "") -> Iterator[tuple[str, str, tuple[int, ...]]]:
    with os.scandir(top) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    yield from _python_files(entry.path, f"{relative}{entry.name}/")
            elif entry.name.endswith(".py"):
                st = entry.stat()
                stamp = (st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
                yield f"{relative}{entry.name}", entry.path, stamp


class FactsCache(MutableMapping[str, object]):
    """`namespace` names the code that wrote the entries (the command line passes a digest of
    the bot package): facts another version extracted, from an upgrade or another checkout sharing the
    cache, are never read back as this version's."""

    def __init__(
        self,
        path: str | Path | None = None,
        namespace: str = "",
        timeout: float = BUSY_TIMEOUT,
        max_bytes: int = MAX_BYTES,
    ):
        self.path = Path(path) if path else default_cache_path()
        self._prefix = f"{FORMAT}:{namespace}:" if namespace else f"{FORMAT}:"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=timeout)
        self._db.execute("PRAGMA journal_mode=WAL")
        # A cache: a write lost to a power cut costs its recomputation, so a write is not synced
        # to the disk (WAL with NORMAL stays consistent); a cold check writes hundreds.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value BLOB)")
        if self.path.stat().st_size > max_bytes:
            with contextlib.suppress(sqlite3.Error):  # locked by another process: next time
                self._db.execute("DELETE FROM facts")
        # What this run read or wrote: base and head mostly share their files, so the same entry
        # is asked for twice, and unpickled once.
        self._memo: dict[str, object] = {}
        self._pending: dict[str, bytes] = {}  # written, not committed yet (`flush`)

    def __getitem__(self, key: str) -> object:
        if key in self._memo:
            return self._memo[key]
        try:
            row = self._db.execute("SELECT value FROM facts WHERE key = ?", (self._prefix + key,)).fetchone()
        except sqlite3.Error:  # locked by another process past the timeout: a miss
            row = None
        if row is None:
            raise KeyError(key)
        try:
            value = pickle.loads(row[0])
        except Exception:  # an unreadable entry is a miss, not an error
            raise KeyError(key) from None
        self._memo[key] = value
        return value

    def __setitem__(self, key: str, value: object) -> None:
        # Pickled now: a caller may change the value after handing it over.
        self._pending[self._prefix + key] = pickle.dumps(value)
        self._memo[key] = value
        if len(self._pending) >= MAX_PENDING:
            self.flush()

    def flush(self) -> None:
        """Commit the pending writes in one transaction. Locked by another process past the
        timeout: they are not kept, and the run goes on."""
        rows, self._pending = list(self._pending.items()), {}
        if not rows:
            return
        # `with self._db`: COMMIT at the end of the block, ROLLBACK on an error
        with contextlib.suppress(sqlite3.Error), self._db:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO facts (key, value) VALUES (?, ?)", rows)

    def __delitem__(self, key: str) -> None:
        self._memo.pop(key, None)
        self._pending.pop(self._prefix + key, None)
        self._db.execute("DELETE FROM facts WHERE key = ?", (self._prefix + key,))

    def __iter__(self) -> Iterator[str]:
        self.flush()
        for (key,) in self._db.execute("SELECT key FROM facts"):
            if key.startswith(self._prefix):
                yield key.removeprefix(self._prefix)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def close(self) -> None:
        self.flush()
        self._db.close()
