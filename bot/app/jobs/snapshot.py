"""The two revisions of a pull request, read through the GitHub API, as `bot.core.model.Tree`s.

The check reads a handful of files (each rule's doc pages and sources) at the base and at the
head. The base side is the merge base, as in GitHub's own diff of the pull request: the base
branch may have moved on since the branch point, and its newer edits are not the pull
request's. `PullRevisions.prefetch` fetches all of them, plus anything else the caller names
(the repository's config at the base branch's tip), in one GraphQL query. Nothing is fetched
twice:

- a file the pull request did not change is the same at the merge base and at head, so it is
  read once, at the head;
- a file it changed is read at the head only: its base side is the head file with the patch
  from GitHub's file list taken back out, or the head file itself for a rename without edits
  or a mode change. Where GitHub sent no patch otherwise (a diff too large to show; a file
  that is binary on one side, which GitHub reports as "0 changes" too) the file is read at the
  merge base, which costs one compare call per job;
- (commit, path) -> blob oid is remembered in the store (`Store.blob_at`: a commit never
  changes), and blob texts by oid, so a re-run of the same commits needs no query;
- the head oid of every changed file comes with GitHub's file list, so a blob seen in an
  earlier push is not fetched again.
- a changed file the check reads beyond the rule's own (the change's other edits, read to
  believe a rename) is fetched with the next changed files GitHub showed a text diff of, in
  one query, since the check reads them in path order.

Files are read as bytes and decoded as the command line decodes them (`bot.core.source`:
Python sources as Python does, PEP 263). GraphQL's `text` is those bytes only when it hashes to
the blob's oid; a binary file, one in another encoding (GitHub gives no text) or a truncated one
is fetched whole with the git blobs API. A source no encoding reads is a parse error in the
check, never an empty or missing file.

`exists()` and `paths()` (for doc lines citing repository paths) list the commit's tree with
the git trees API, once, and only when the check asks.

GitHub lists at most 3,000 files of a pull request. `unlisted` finds the rest of the change by
comparing the trees of the merge base and the head (renames: the same blob under a new path);
those files come without a patch, so their base side is read at the merge base.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.app.config import Budget
from bot.app.github import shapes
from bot.app.github.client import GRAPHQL_BATCH, Repo
from bot.app.github.shapes import ChangedFile, TreeEntry
from bot.app.jobs.sandbox import BudgetExceeded, over
from bot.app.queue.store import BlobAt, Store
from bot.core.model import Change
from bot.core.source import decode, git_blob_id

_SHA = re.compile(r"[0-9a-f]{40}")

# Changed files fetched together when the check reads one the prefetch did not plan for.
BATCH_FILES = 40

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
    text: str  # decoded as the check reads the file (bot.core.source.decode)
    binary: bool = False  # a NUL byte in its first 8,000: git and GitHub show no diff of it
    utf8: bool = True  # `text` is the bytes read as UTF-8, the text GitHub's patches are made of


def _blob(path: str, oid: str, data: bytes) -> Blob:
    text = decode(path, data)
    return Blob(oid, text, b"\0" in data[:8000], _utf8(data) == text)


def changes_from_files(files: Sequence[ChangedFile]) -> list[Change]:
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


def head_oids(files: Sequence[ChangedFile]) -> dict[str, str]:
    """path -> blob oid at head, for every file the pull request added or changed."""
    return {
        f["filename"]: f["sha"]
        for f in files
        if f.get("status") != "removed"
        and isinstance(f.get("sha"), str)
        and isinstance(f.get("filename"), str)
    }


def unlisted(
    files: Sequence[ChangedFile], base_tree: Sequence[TreeEntry], head_tree: Sequence[TreeEntry]
) -> list[ChangedFile]:
    """The changed files a truncated file list left out, as file-list entries without a patch.

    `base_tree` and `head_tree` are the git trees API's recursive listings of the merge base and
    the head. A path GitHub listed (or named as a rename's old path) is left as GitHub has it;
    of the rest, a blob at the base that reappears unchanged at a new head path is a rename.
    """
    listed = {f.get("filename") for f in files} | {f.get("previous_filename") for f in files}
    base = {str(e["path"]): str(e["sha"]) for e in base_tree if e.get("type") == "blob"}
    head = {str(e["path"]): str(e["sha"]) for e in head_tree if e.get("type") == "blob"}
    removed = sorted(p for p in base.keys() - head.keys() if p not in listed)
    added = sorted(p for p in head.keys() - base.keys() if p not in listed)
    out: list[ChangedFile] = []
    moved_to: dict[str, list[str]] = {}
    for path in added:
        moved_to.setdefault(head[path], []).append(path)
    for path in removed:
        new = moved_to.get(base[path])
        if new:
            target = new.pop(0)
            out.append(
                {"filename": target, "status": "renamed", "previous_filename": path, "sha": head[target]}
            )
        else:
            out.append({"filename": path, "status": "removed", "sha": base[path]})
    renamed = {f["filename"] for f in out if f["status"] == "renamed"}
    out += [{"filename": p, "status": "added", "sha": head[p]} for p in added if p not in renamed]
    out += [
        {"filename": p, "status": "modified", "sha": head[p]}
        for p in sorted(base.keys() & head.keys())
        if base[p] != head[p] and p not in listed
    ]
    return out


@dataclass(frozen=True)
class BasePatch:
    """How one file at the merge base became a file at head, as GitHub's file list says."""

    head_path: str | None  # None: the pull request removed the file
    patch: str | None  # None when GitHub left it out (a binary file, or a diff too large)
    changes: int | None  # changed lines, as GitHub counts them
    status: str = "modified"  # GitHub's: modified, renamed, changed (the mode), removed


def base_patches(files: Sequence[ChangedFile]) -> dict[str, BasePatch]:
    """Merge-base path -> its patch, for every file the pull request modified, renamed or removed."""
    out = {}
    for f in files:
        status, path = _STATUS.get(str(f.get("status"))), f.get("filename")
        if status not in ("modified", "renamed", "removed") or not isinstance(path, str):
            continue
        old = f.get("previous_filename") if status == "renamed" else path
        if not isinstance(old, str):
            continue
        patch, changes = f.get("patch"), f.get("changes")
        out[old] = BasePatch(
            None if status == "removed" else path,
            patch if isinstance(patch, str) else None,
            changes if isinstance(changes, int) else None,
            str(f.get("status")),
        )
    return out


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

Line = tuple[str, bool]  # text, and whether a newline ends it


def _lines(text: str) -> list[Line]:
    parts = text.split("\n")
    lines = [(part, True) for part in parts[:-1]]
    if parts[-1]:
        lines.append((parts[-1], False))
    return lines


def unapply(head_text: str, patch: str) -> str | None:
    """The file that `patch` turned into `head_text`, or None when the patch does not fit it.

    Every context and added line of the patch, and where each hunk starts on both sides, is
    checked against the head text, so an answer is the exact old file, never a guess.
    """
    head = _lines(head_text)
    base: list[Line] = []
    at = 0  # head lines used so far
    old_left = new_left = 0
    after_line = False  # may a "\ No newline at end of file" come next
    rows = patch.split("\n")
    for i, text in enumerate(rows):
        m = _HUNK.match(text)
        if m:
            if old_left or new_left:
                return None  # the previous hunk was cut short
            old_left, new_left = int(m.group(2) or 1), int(m.group(4) or 1)
            # "+5,0" adds nothing: the hunk sits after line 5, not at it.
            start = int(m.group(3)) - (1 if new_left else 0)
            if start < at or start > len(head):
                return None
            base.extend(head[at:start])
            at, after_line = start, False
            if len(base) != int(m.group(1)) - (1 if old_left else 0):
                return None
            continue
        if text.startswith("\\"):  # "\ No newline at end of file", said of the line before
            if not after_line:
                return None
            after_line = False
            continue
        newline = not (i + 1 < len(rows) and rows[i + 1].startswith("\\"))
        kind, body = (text[:1], text[1:]) if text else (" ", "")  # "": a context line lost its space
        if not text and old_left <= 0 and new_left <= 0:
            continue  # the newline after the last hunk
        if kind == "-" and old_left > 0:
            base.append((body, newline))
            old_left -= 1
        elif kind in ("+", " ") and new_left > 0 and at < len(head) and head[at] == (body, newline):
            if kind == " ":
                if old_left <= 0:
                    return None
                base.append(head[at])
                old_left -= 1
            at, new_left = at + 1, new_left - 1
        else:
            return None
        after_line = True
    if old_left or new_left:
        return None
    base.extend(head[at:])
    return "".join(text + ("\n" if newline else "") for text, newline in base)


def git_blob_oid(text: str) -> str:
    """The blob id git gives `text` as UTF-8 (undecodable bytes kept as surrogates go back as
    they came)."""
    return git_blob_id(text.encode("utf-8", errors="surrogateescape"))


@dataclass(frozen=True)
class ReadLimit:
    """What one job may read from GitHub: bytes of files (each blob once), and GraphQL queries.

    Counted as the files come, and before they come where their sizes are known (from a tree
    listed already, or GraphQL's `byteSize` before a truncated blob is fetched whole), so a
    pull request past it costs the worker at most one answer, never every file it names."""

    bytes: int
    queries: int

    @classmethod
    def of(cls, budget: Budget) -> ReadLimit:
        # Both sides of every file the rules read, their history and the config's pages: more
        # than the check's own budget counts, in the same proportion for every pull request.
        return cls(4 * budget.source_bytes + (1 << 20), MAX_QUERIES)

    def over_bytes(self, read: int) -> BudgetExceeded:
        return over("source", f"more than {_mb(read)} of files fetched", f"{_mb(self.bytes)} fetched")

    def over_queries(self) -> BudgetExceeded:
        return over("source", f"more than {self.queries} queries for files", f"{self.queries} queries")


MAX_QUERIES = 100  # GraphQL queries for files a job (100 files each); a typical job makes 1 to 4


def _mb(n: int) -> str:
    return f"{n / (1 << 20):,.1f} MB" if n >= 1 << 20 else f"{n / 1024:,.1f} kB"


class BlobReader:
    """Files at commits of one repository: GraphQL for what is new, the store for the rest;
    within `limit` (BudgetExceeded past it)."""

    def __init__(self, repo: Repo, store: Store, limit: ReadLimit | None = None):
        self.repo, self.store, self.limit = repo, store, limit
        self.queries = 0  # GraphQL round trips made, for logs and tests
        self.fetched = 0  # bytes of the blobs fetched, each once
        self._counted: set[str] = set()  # their oids
        self._trees: dict[str, tuple[list[TreeEntry], bool]] = {}
        self._sizes: dict[Where, int] = {}  # blob sizes the trees listed

    def tree(self, sha: str) -> tuple[list[TreeEntry], bool]:
        """Every entry of the commit's tree and whether GitHub truncated the list: one call per commit."""
        if sha not in self._trees:
            entries, cut = self.repo.tree(sha)
            self._trees[sha] = (entries, cut)
            for e in entries:
                if e.get("type") == "blob" and isinstance(e.get("size"), int):
                    self._sizes[(sha, str(e.get("path")))] = int(e["size"])
        return self._trees[sha]

    def _count(self, oid: str, size: int) -> None:
        if oid in self._counted:
            return
        self._counted.add(oid)
        self.fetched += size
        if self.limit is not None and self.fetched > self.limit.bytes:
            raise self.limit.over_bytes(self.fetched)

    def _plan(self, missing: Sequence[Where]) -> None:
        """Refuse a fetch the limit cannot take, before it is made: its queries, and the sizes
        the trees listed."""
        limit = self.limit
        if limit is None:
            return
        queries = -(-len(missing) // GRAPHQL_BATCH)
        if self.queries + queries > limit.queries:
            raise limit.over_queries()
        known = sum(self._sizes.get(where, 0) for where in missing)
        if self.fetched + known > limit.bytes:
            raise limit.over_bytes(self.fetched + known)

    def merge_base(self, base_sha: str, head_sha: str) -> str:
        """The merge base of two commits: one compare call, then remembered (commits never change)."""
        known = self.store.merge_base(self.repo.full_name, base_sha, head_sha)
        if known is not None:
            return known
        sha = self.repo.merge_base(base_sha, head_sha)
        if _SHA.fullmatch(base_sha) and _SHA.fullmatch(head_sha):
            self.store.save_merge_base(self.repo.full_name, base_sha, head_sha, sha)
        return sha

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
            self._plan(missing)
            self.queries += -(-len(missing) // GRAPHQL_BATCH)
            answers = self.repo.blobs([f"{sha}:{path}" for sha, path in missing])
            for obj in answers:  # counted before any is kept, or fetched whole when truncated
                if obj is not None:
                    size = obj.get("byteSize")
                    text = obj.get("text")
                    self._count(str(obj["oid"]), size if isinstance(size, int) else len(text or ""))
            for where, obj in zip(missing, answers, strict=True):
                result[where] = self._store(where, obj)
        return result

    def _cached(self, where: Where, oid: str | None) -> Blob | None | object:
        if oid is None:
            at = self.store.blob_at(self.repo.full_name, *where) if _SHA.fullmatch(where[0]) else None
            if at is None:
                return _MISS
            if at.oid is None:
                return None  # the commit has no such file
            oid = at.oid
        content = self.store.blob_text(oid)  # kept only for bytes that are UTF-8
        return _MISS if content is None else _blob(where[1], oid, content.encode("utf-8"))

    def _store(self, where: Where, obj: shapes.Blob | None) -> Blob | None:
        blob, kept = None, False
        if obj is not None:
            oid = str(obj["oid"])
            data = _given_bytes(obj)
            if data is None:  # binary, another encoding, truncated: the blob itself
                data = self.repo.blob_bytes(oid)
            content = _utf8(data)
            if content is not None:
                self.store.save_blob_text(oid, content)
                kept = True
            blob = _blob(where[1], oid, data)
        if _SHA.fullmatch(where[0]):
            at = BlobAt(blob.oid if blob else None, binary=blob is not None and not kept)
            self.store.save_blob_at(self.repo.full_name, *where, at)
        return blob


_MISS = object()


def _given_bytes(obj: shapes.Blob) -> bytes | None:
    """The blob's bytes from GraphQL's `text`, when that text is exactly them (it hashes to the oid)."""
    text = obj.get("text")
    if obj.get("isBinary") or obj.get("isTruncated") or not isinstance(text, str):
        return None
    data = text.encode("utf-8")
    return data if git_blob_id(data) == obj.get("oid") else None


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class ApiTree:
    """One side of a pull request as a `bot.core.model.Tree`.

    Reads come from what `PullRevisions.prefetch` fetched; a path nobody planned for is derived
    or fetched on its own (one more query), so a read is never wrong, only slower.
    """

    def __init__(
        self,
        reader: BlobReader,
        sha: str,
        locate: Callable[[str], Where | None],
        derive: Callable[[str], object] | None = None,
        batch: Callable[[str], None] | None = None,
    ):
        self.reader, self.sha = reader, sha
        self._locate = locate
        self._derive = derive  # a Blob (or None) made without a read, else _MISS
        self._batch = batch  # fetches a path nobody planned for along with its likely next reads
        self.files: dict[str, Blob | None] = {}
        self._entries: frozenset[str] | None = None
        self._blobs: frozenset[str] = frozenset()
        self._truncated = False

    def _blob(self, path: str) -> Blob | None:
        if path not in self.files and self._batch is not None:
            self._batch(path)
        if path not in self.files:
            blob = self._derive(path) if self._derive is not None else _MISS
            if blob is _MISS:
                where = self._locate(path)
                blob = None if where is None else self.reader.fetch([where])[where]
            self.files[path] = blob  # type: ignore[assignment]
        return self.files[path]

    def read(self, path: str) -> str | None:
        blob = self._blob(path)
        return blob.text if blob else None

    def blob_id(self, path: str) -> str | None:
        blob = self._blob(path)
        return blob.oid if blob else None

    def _list(self) -> frozenset[str]:
        if self._entries is None:
            entries, self._truncated = self.reader.tree(self.sha)
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
    """Base and head of a pull request, and where each of their files comes from.

    `patches` (from `base_patches`) lets the base side of a changed file be derived from its head
    side; without one, that file is read at the merge base.
    """

    def __init__(
        self,
        reader: BlobReader,
        base_sha: str,
        head_sha: str,
        changes: Sequence[Change],
        known_head_oids: Mapping[str, str] | None = None,
        patches: Mapping[str, BasePatch] | None = None,
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
        self.patches = dict(patches or {})
        self._merge_base: str | None = None
        self._changed = sorted(at_head | changed_at_base)
        self._batched: set[str] = set()
        self.base = ApiTree(reader, base_sha, self.where_base, self.derive_base, self.batch)
        self.head = ApiTree(reader, head_sha, self.where_head, batch=self.batch)

    def merge_base(self) -> str:
        if self._merge_base is None:
            self._merge_base = self.reader.merge_base(self.base_sha, self.head_sha)
        return self._merge_base

    def where_head(self, path: str) -> Where | None:
        return None if path in self._gone_at_head else (self.head_sha, path)

    def where_base(self, path: str) -> Where | None:
        """Where to read `path`'s base side (asks GitHub for the merge base of a changed file)."""
        if path in self._new_at_head:
            return None
        if path in self._changed_at_base:
            return (self.merge_base(), path)
        return (self.head_sha, path)  # untouched by the pull request: the same file as at head

    def derivable(self, path: str) -> bool:
        """Can `derive_base` make `path`'s base side from the head side and GitHub's patch?

        Without a patch only for a rename or a mode change of "0 changes": a modified file
        without one may have become binary (GitHub says "0 changes" of that too).
        """
        p = self.patches.get(path)
        if p is None or path not in self._changed_at_base:
            return False
        if p.patch is not None:
            return True
        return p.changes == 0 and p.head_path is not None and p.status in ("renamed", "changed")

    def derive_base(self, path: str) -> object:
        """`path` at the merge base, made from its head side and patch; _MISS when it cannot be."""
        if not self.derivable(path):
            return _MISS
        p = self.patches[path]
        head_text = ""  # a removed file: the patch holds every line it had
        if p.head_path is not None:
            head = self.head._blob(p.head_path)
            if head is None:
                return _MISS
            if p.patch is None:
                # A rename without edits, or a mode change: the same blob, unless it is binary
                # now (GitHub says "0 changes" of a binary file whatever it became).
                return _MISS if head.binary else head
            if not head.utf8:
                return _MISS  # GitHub's patch is UTF-8 text; this file is read another way
            head_text = head.text
        text = unapply(head_text, p.patch) if p.patch is not None else None
        return _MISS if text is None else Blob(git_blob_oid(text), text)

    def batch(self, path: str) -> None:
        """A changed file the prefetch did not plan for, with the next unread changed files.

        The check reads the change's other files only to find what a rename replaced
        (bot/core/check/evidence.py), in path order: one query for the next BATCH_FILES of
        them instead of one query each.
        """
        if path not in self._batched and path in self._changed:
            start = bisect.bisect_left(self._changed, path)
            # Only files GitHub showed a text diff of: a binary one would cost a call of its own.
            after = [p for p in self._changed[start + 1 :] if p not in self._batched and self._text(p)]
            chunk = [path, *after[: BATCH_FILES - 1]]
            self._batched.update(chunk)
            self.prefetch(chunk)

    def _text(self, path: str) -> bool:
        p = self.patches.get(path)
        return p is not None and p.patch is not None

    def prefetch(self, paths: Iterable[str], extra: Iterable[Where] = ()) -> dict[Where, Blob | None]:
        """Fetch `paths` on both sides (and where the pull request moved them) plus `extra`, at once.

        Returns the blobs of `extra`.
        """
        wanted = set(paths)
        wanted |= {self.renames[p] for p in wanted if p in self.renames}
        plan: dict[tuple[str, str], Where | None] = {}
        derived = []
        for path in sorted(wanted):
            if path not in self.head.files:
                plan[("head", path)] = self.where_head(path)
            if path in self.base.files:
                continue
            if self.derivable(path):
                derived.append(path)
                head_path = self.patches[path].head_path
                if head_path is not None and head_path not in self.head.files:
                    plan[("head", head_path)] = self.where_head(head_path)
            else:
                plan[("base", path)] = self.where_base(path)
        extra = list(extra)
        fetched = self.reader.fetch([w for w in plan.values() if w is not None] + extra, self._known)
        for (side, path), where in plan.items():
            tree = self.head if side == "head" else self.base
            tree.files[path] = None if where is None else fetched[where]
        unfit = []
        for path in derived:
            blob = self.derive_base(path)
            if blob is _MISS:
                unfit.append(path)  # the patch does not fit the head file: read the merge base
            else:
                self.base.files[path] = blob  # type: ignore[assignment]
        if unfit:
            at = {path: self.where_base(path) for path in unfit}
            again = self.reader.fetch([w for w in at.values() if w is not None])
            for path, where in at.items():
                self.base.files[path] = None if where is None else again[where]
        return {w: fetched[w] for w in extra}
