"""The digest of the code the facts cache is kept under: computed from the files' content, and
kept beside the cache so that a start with no file changed reads none of them. The cache is
shared by every process of the user: another one writing never ends a run."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from bot.trees import factcache
from bot.trees.factcache import FactsCache, code_digest


def _code(root: Path) -> Path:
    (root / "code" / "check").mkdir(parents=True)
    (root / "code" / "__init__.py").write_text("")
    (root / "code" / "check" / "rules.py").write_text("LIMIT = 1\n")
    (root / "code" / "notes.txt").write_text("not code\n")
    return root / "code"


def test_the_digest_is_of_the_content_and_kept_for_the_next_start(tmp_path: Path):
    code, cache = _code(tmp_path), tmp_path / "cache"
    first = code_digest(code, cache)
    assert (cache / "code-digests").read_text().split()[-1] == first
    assert code_digest(code, cache) == first
    # The same content elsewhere (another checkout) has the same digest: they share entries.
    other = _code(tmp_path / "elsewhere")
    assert code_digest(other, tmp_path / "cache2") == first
    (code / "notes.txt").write_text("still not code\n")
    assert code_digest(code, cache) == first


def test_a_file_written_since_is_read_again_even_with_its_old_size_and_time(tmp_path: Path):
    code, cache = _code(tmp_path), tmp_path / "cache"
    rules = code / "check" / "rules.py"
    before = rules.stat()
    first = code_digest(code, cache)
    rules.write_text("LIMIT = 2\n")  # same size
    os.utime(rules, ns=(before.st_atime_ns, before.st_mtime_ns))  # same modification time
    second = code_digest(code, cache)
    assert second != first
    rules.write_text("LIMIT = 1\n")
    assert code_digest(code, cache) == first


def test_an_unwritable_or_damaged_memo_only_costs_the_reads(tmp_path: Path):
    code = _code(tmp_path)
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    first = code_digest(code, blocked / "cache")  # the memo cannot be written
    damaged = tmp_path / "cache"
    damaged.mkdir()
    (damaged / "code-digests").write_bytes(b"\xff\xfe garbage\nno-space-line\n")
    assert code_digest(code, damaged) == first


def test_a_cache_another_process_holds_locked_is_a_miss_and_skips_the_write(tmp_path: Path):
    path = tmp_path / "facts.sqlite"
    cache = FactsCache(path, namespace="code", timeout=0.01)
    cache["blob:a.py"] = "facts of a.py"
    cache.flush()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another run's write in progress, past the busy timeout
    other.execute("INSERT OR REPLACE INTO facts (key, value) VALUES ('x', x'00')")
    cache["blob:b.py"] = "facts of b.py"
    cache.flush()  # not kept, and no "database is locked" raised
    assert FactsCache(path, namespace="code", timeout=0.01).get("blob:a.py") == "facts of a.py"  # WAL
    other.execute("COMMIT")
    other.close()
    assert "blob:b.py" not in FactsCache(path, namespace="code")
    assert cache["blob:b.py"] == "facts of b.py"  # this run still has what it wrote


def test_writes_are_committed_together_when_flushed_or_closed(tmp_path: Path):
    path = tmp_path / "facts.sqlite"
    cache = FactsCache(path, namespace="code")
    cache["blob:a.py"] = ["facts of a.py"]
    reader = FactsCache(path, namespace="code")
    assert "blob:a.py" not in reader  # pending: one transaction for the run's writes
    cache.close()
    assert FactsCache(path, namespace="code")["blob:a.py"] == ["facts of a.py"]
    many = FactsCache(path, namespace="many")
    last = factcache.MAX_PENDING - 1
    for n in range(last + 1):
        many[f"blob:{n}"] = n
    assert FactsCache(path, namespace="many")[f"blob:{last}"] == last  # committed when that many wait


def test_a_cache_over_its_size_starts_empty_and_stops_growing(tmp_path: Path):
    path = tmp_path / "facts.sqlite"
    cache = FactsCache(path, max_bytes=64 * 1024)
    for n in range(200):
        cache[f"blob{n}"] = "x" * 1000  # about 200 KB of entries, over the limit
    cache.close()
    kept = FactsCache(path, max_bytes=10**9)
    assert len(kept) == 200  # under its own limit: nothing dropped
    kept.close()
    again = FactsCache(path, max_bytes=64 * 1024)
    assert len(again) == 0 and "blob0" not in again  # over it: emptied on opening
    size = path.stat().st_size
    for n in range(200):
        again[f"next{n}"] = "x" * 1000
    again.close()
    assert path.stat().st_size <= size * 1.5  # the freed pages were used again
