"""The two revisions of a pull request, read through the GitHub API, as `bot.model.Tree`s.

The check reads a handful of files (each rule's doc pages and sources) at the base and at the
head. `PullRevisions.prefetch` fetches all of them, plus anything else the caller names (the
repository's config at the base), in one GraphQL query. Nothing is fetched twice:

- a file the pull request did not change is the same at base and head, so it is read once,
  at the head (which is also right when the base branch moved on since the branch point);
- (commit, path) -> blob oid is remembered in the queue's kv store (a commit never changes),
  and blob texts in its blob store by oid, so a re-run of the same commits needs no query;
- the head oid of every changed file comes with GitHub's file list, so a blob seen in an
  earlier push is not fetched again.

`exists()` and `paths()` (for doc lines citing repository paths) list the commit's tree with
the git trees API, once, and only when the check asks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.app.queue import JobQueue
from bot.github import Repo
from bot.model import Change

_SHA = re.compile(r"[0-9a-f]{40}")

# GitHub file statuses -> the four the check knows. A copy is a new file; "changed" is a mode
# change, which for the check is a modification; "unchanged" files carry nothing to check.
_STATUS = {
    "added": "added",
    "copied": "added",
    "modified": "modified",
    "changed": "modified",
    "removed": "removed",
    "renamed": "renamed",
}

Where = tuple[str, str]  # (commit sha, path)


@dataclass(frozen=True)
class Blob:
    oid: str
    text: str | None  # None for a binary file (or one that is not UTF-8)


def changes_from_files(files: Sequence[dict]) -> list[Change]:
    """GitHub's pull request file list as the check's `Change`s."""
    changes = []
    for f in files:
        status = _STATUS.get(str(f.get("status")))
        path = f.get("filename")
        if status is None or not isinstance(path, str):
            continue
        old = f.get("previous_filename") if status == "renamed" else None
        changes.append(Change(status=status, path=path, old_path=old if isinstance(old, str) else None))  # type: ignore[arg-type]
    return changes


def head_oids(files: Sequence[dict]) -> dict[str, str]:
    """path -> blob oid at head, for every file the pull request added or changed."""
    return {
        f["filename"]: f["sha"]
        for f in files
        if f.get("status") != "removed"
        and isinstance(f.get("sha"), str)
        and isinstance(f.get("filename"), str)
    }


class BlobReader:
    """Files at commits of one repository: GraphQL for what is new, the queue's stores for the rest."""

    def __init__(self, repo: Repo, store: JobQueue):
        self.repo, self.store = repo, store
        self.queries = 0  # GraphQL round trips made, for logs and tests

    def _key(self, where: Where) -> str:
        return f"{self.repo.full_name}@{where[0]}:{where[1]}"

    def fetch(
        self, wanted: Iterable[Where], known: Mapping[Where, str] | None = None
    ) -> dict[Where, Blob | None]:
        """The blob at each (sha, path), None where the commit has no file there."""
        known = known or {}
        result: dict[Where, Blob | None] = {}
        missing: list[Where] = []
        for where in dict.fromkeys(wanted):
            hit = self._cached(where, known.get(where))
            if hit is _MISS:
                missing.append(where)
            else:
                result[where] = hit  # type: ignore[assignment]
        if missing:
            self.queries += 1
            answers = self.repo.blobs([f"{sha}:{path}" for sha, path in missing])
            for where, obj in zip(missing, answers, strict=True):
                result[where] = self._store(where, obj)
        return result

    def _cached(self, where: Where, oid: str | None) -> Blob | None | object:
        binary = False
        if oid is None:
            raw = self.store.kv_get("blob-at", self._key(where)) if _SHA.fullmatch(where[0]) else None
            if raw is None:
                return _MISS
            entry = json.loads(raw)
            if entry.get("oid") is None:
                return None  # the commit has no such file
            oid, binary = entry["oid"], bool(entry.get("binary"))
        if binary:
            return Blob(oid, None)
        text = self.store.blob_get(oid)
        return _MISS if text is None else Blob(oid, text)

    def _store(self, where: Where, obj: dict | None) -> Blob | None:
        if obj is None:
            blob = None
        else:
            text = obj.get("text") if not obj.get("isBinary") else None
            if obj.get("isTruncated") and not obj.get("isBinary"):
                text = _decode(self.repo.blob_bytes(obj["oid"]))
            blob = Blob(obj["oid"], text if isinstance(text, str) else None)
            if blob.text is not None:
                self.store.blob_put(blob.oid, blob.text)
        if _SHA.fullmatch(where[0]):
            entry = {"oid": blob.oid if blob else None, "binary": bool(blob and blob.text is None)}
            self.store.kv_put("blob-at", self._key(where), json.dumps(entry))
        return blob


_MISS = object()


def _decode(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class ApiTree:
    """One side of a pull request as a `bot.model.Tree`.

    Reads come from what `PullRevisions.prefetch` fetched; a path nobody planned for is fetched
    on its own (one more query), so a read is never wrong, only slower.
    """

    def __init__(self, reader: BlobReader, sha: str, locate: Callable[[str], Where | None]):
        self.reader, self.sha = reader, sha
        self._locate = locate
        self.files: dict[str, Blob | None] = {}
        self._entries: frozenset[str] | None = None
        self._blobs: frozenset[str] = frozenset()
        self._truncated = False

    def _blob(self, path: str) -> Blob | None:
        if path not in self.files:
            where = self._locate(path)
            self.files[path] = None if where is None else self.reader.fetch([where])[where]
        return self.files[path]

    def read(self, path: str) -> str | None:
        blob = self._blob(path)
        return blob.text if blob else None

    def blob_id(self, path: str) -> str | None:
        blob = self._blob(path)
        return blob.oid if blob else None

    def _list(self) -> frozenset[str]:
        if self._entries is None:
            entries, self._truncated = self.reader.repo.tree(self.sha)
            self._entries = frozenset(str(e.get("path")) for e in entries)
            self._blobs = frozenset(str(e.get("path")) for e in entries if e.get("type") == "blob")
        return self._entries

    def exists(self, path: str) -> bool:
        bare = path.strip("/")
        if self.files.get(bare) is not None:
            return True
        # A truncated listing (over 100,000 entries) cannot prove a path missing.
        return bare in self._list() or self._truncated

    def paths(self) -> frozenset[str]:
        self._list()
        return self._blobs


class PullRevisions:
    """Base and head of a pull request, and at which commit each of their files is read."""

    def __init__(
        self,
        reader: BlobReader,
        base_sha: str,
        head_sha: str,
        changes: Sequence[Change],
        known_head_oids: Mapping[str, str] | None = None,
    ):
        self.reader = reader
        self.base_sha, self.head_sha = base_sha, head_sha
        self.renames = {c.old_path: c.path for c in changes if c.status == "renamed" and c.old_path}
        at_head = {c.path for c in changes if c.status != "removed"}
        self._gone_at_head = (
            {c.path for c in changes if c.status == "removed"} | set(self.renames)
        ) - at_head
        changed_at_base = {c.path for c in changes if c.status in ("modified", "removed")} | set(self.renames)
        new_at_head = {c.path for c in changes if c.status == "added"} | set(self.renames.values())
        self._changed_at_base = changed_at_base
        self._new_at_head = new_at_head - changed_at_base
        self._known = {(head_sha, p): oid for p, oid in (known_head_oids or {}).items()}
        self.base = ApiTree(reader, base_sha, self.where_base)
        self.head = ApiTree(reader, head_sha, self.where_head)

    def where_head(self, path: str) -> Where | None:
        return None if path in self._gone_at_head else (self.head_sha, path)

    def where_base(self, path: str) -> Where | None:
        if path in self._new_at_head:
            return None
        if path in self._changed_at_base:
            return (self.base_sha, path)
        return (self.head_sha, path)  # untouched by the pull request: the same file as at head

    def prefetch(self, paths: Iterable[str], extra: Iterable[Where] = ()) -> dict[Where, Blob | None]:
        """Fetch `paths` on both sides (and where the pull request moved them) plus `extra`, at once.

        Returns the blobs of `extra`.
        """
        wanted = set(paths)
        wanted |= {self.renames[p] for p in wanted if p in self.renames}
        plan: dict[tuple[str, str], Where | None] = {}
        for path in wanted:
            if path not in self.head.files:
                plan[("head", path)] = self.where_head(path)
            if path not in self.base.files:
                plan[("base", path)] = self.where_base(path)
        extra = list(extra)
        fetched = self.reader.fetch([w for w in plan.values() if w is not None] + extra, self._known)
        for (side, path), where in plan.items():
            tree = self.head if side == "head" else self.base
            tree.files[path] = None if where is None else fetched[where]
        return {w: fetched[w] for w in extra}
