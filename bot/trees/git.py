"""Read revisions straight from a git repository: no checkout, no work tree touched.

One `git ls-tree` per revision lists every path with its blob id; file contents come through a
single long-lived `git cat-file --batch` process, so reading a dozen files costs one process.
Contents are decoded by `bot.core.source.decode`, as the App decodes what it reads from GitHub:
Python sources as Python does (PEP 263), other files as UTF-8.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterable
from pathlib import Path

from bot.core.model import Change
from bot.core.source import decode


class GitError(RuntimeError):
    pass


class BlobMissing(GitError):
    """A file the tree lists whose content the clone lacks (a mirror filtered by size)."""


class GitRepo:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._batch: subprocess.Popen[bytes] | None = None
        self._check: subprocess.Popen[bytes] | None = None
        self._blobs: dict[str, bytes] = {}
        # Commit ids `resolve` returned: a run hands them back (the history of its head), and
        # a commit id, unlike a ref, always resolves to itself, so git is not asked again.
        self._commits: set[str] = set()

    def _git(self, *args: str, env: dict[str, str] | None = None, input: str | None = None) -> str:
        proc = subprocess.run(
            ["git", "-C", str(self.path), *args],
            capture_output=True,
            text=True,
            check=False,
            env=env,
            input=input,
        )
        if proc.returncode != 0:
            raise GitError(proc.stderr.strip() or f"git {' '.join(args)} failed")
        return proc.stdout

    def resolve(self, rev: str) -> str:
        if rev in self._commits:
            return rev
        # Through the long-lived `cat-file --batch` that reads the files too (it names objects as
        # rev-parse does): resolving the two sides of a check starts no process of its own.
        try:
            found = self._object(f"{rev}^{{commit}}")
        except GitError:
            found = None
        if found is None:
            raise GitError(self._unknown(rev))
        sha = found[1]
        self._commits.add(sha)
        return sha

    def _unknown(self, rev: str) -> str:
        """Why `rev` does not resolve, in the words that say what to do."""
        try:
            shallow = self._git("rev-parse", "--is-shallow-repository").strip() == "true"
        except GitError:
            return f"{self.path} is not a git repository (pass --repo DIR, the folder of one)"
        if shallow:
            return (
                f"unknown revision {rev!r} in {self.path}, a shallow clone: its history stops before "
                "it; fetch the history (`git fetch --unshallow`, or actions/checkout with fetch-depth: 0)"
            )
        if rev == "HEAD":
            return f"{self.path} has no commit yet (HEAD names none)"
        return f"unknown revision {rev!r} in {self.path}"

    def merge_base(self, base: str, head: str) -> str:
        """Where `head` forked from `base`: what GitHub compares a pull request against."""
        if base == head and base in self._commits:
            return base  # a commit is its own merge base
        try:
            return self._git("merge-base", base, head).strip()
        except GitError:
            return self.resolve(base)

    def remote_default(self) -> str | None:
        """The remote's default branch as this clone knows it: origin/HEAD, else origin/main or
        origin/master; None when it has none of them."""
        try:
            ref = self._git("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD").strip()
        except GitError:
            ref = ""
        for name in (ref, "origin/main", "origin/master"):
            if name and self._git_ok("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"):
                return name
        return None

    def exists(self, rev: str) -> bool:
        """Whether `rev` names a commit here."""
        return self._git_ok("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")

    def _git_ok(self, *args: str) -> bool:
        try:
            self._git(*args)
        except GitError:
            return False
        return True

    def deepen(self) -> None:
        """Fetch the whole history of a shallow clone (a CI checkout's default): merge bases need it."""
        if self._git("rev-parse", "--is-shallow-repository").strip() != "true":
            return
        try:
            self._git("fetch", "--quiet", "--no-tags", "--unshallow", "origin")
        except GitError as exc:
            raise GitError(
                f"{self.path} is a shallow clone and fetching its history failed ({exc}); "
                "check out with fetch-depth: 0"
            ) from None
        self.close()  # a running cat-file read the shallow boundary when it started: start anew

    def ever_had(self, rev: str, path: str) -> bool:
        """Did any commit up to `rev` hold `path`, or a file the glob `path` matches (files since
        deleted, not a name misspelt)?"""
        glob = any(c in path for c in "*?[")
        spec = [f":(glob){path}"] if glob else ["--literal-pathspecs"]
        args = (
            ["log", "-1", "--format=%H", rev, "--", spec[0]]
            if glob
            else [spec[0], "log", "-1", "--format=%H", rev, "--", path]
        )
        try:
            return bool(self._git(*args).strip())
        except GitError:
            return False

    def tree(self, rev: str) -> GitTree:
        is_sha = len(rev) == 40 and all(c in "0123456789abcdef" for c in rev)
        return GitTree(self, rev if is_sha else self.resolve(rev))

    def changes(self, base: str, head: str) -> list[Change]:
        try:
            return parse_name_status(self._git("diff", "--name-status", "-M", "-z", base, head))
        except GitError as exc:
            stopped = exc
        # Rename detection reads every added and removed file, and git stops on one whose content
        # the clone lacks (a mirror filtered by size lists its large files without them). Those
        # are said as added or removed, and renames are still found among the other files.
        plain = parse_name_status(self._git("diff", "--name-status", "--no-renames", "-z", base, head))
        side = {"added": head, "removed": base}
        lacking = [
            c for c in plain if c.status in side and self.object_info(f"{side[c.status]}:{c.path}") is None
        ]
        if not lacking:
            raise stopped
        others = [f":(exclude,literal){c.path}" for c in lacking]
        found = self._git("diff", "--name-status", "-M", "-z", base, head, "--", ".", *others)
        return parse_name_status(found) + lacking

    def object_info(self, name: str) -> tuple[str, str] | None:
        """(type, id) of `rev:path` or any object name, through one long-lived batch-check process."""
        if self._check is None:
            self._check = self._cat_file("--batch-check")
        header = _ask(self._check, name)
        return None if header is None else (header[1].decode(), header[0].decode())

    def read_blob(self, sha: str) -> bytes:
        """The content of blob `sha` (remembered)."""
        if sha in self._blobs:
            return self._blobs[sha]
        found = self._object(sha)
        if found is None:
            raise GitError(f"blob {sha} missing")
        self._blobs[sha] = found[2]
        return found[2]

    def _object(self, name: str) -> tuple[str, str, bytes] | None:
        """(type, id, content) of any object name (`sha`, `rev^{commit}`, `rev:path`) through one
        long-lived `cat-file --batch`; None when git has no such object, or names it ambiguously."""
        if self._batch is None:
            self._batch = self._cat_file("--batch")
        header = _ask(self._batch, name)
        if header is None:
            return None
        assert self._batch.stdout
        data = self._batch.stdout.read(int(header[2]))
        self._batch.stdout.read(1)  # the newline after each object
        return header[1].decode(), header[0].decode(), data

    def _cat_file(self, mode: str) -> subprocess.Popen[bytes]:
        """A long-lived `git cat-file` (`--batch`, `--batch-check`) reading object names from its stdin."""
        # Its stderr is kept for the error that names the object it stopped on (_stopped), not
        # printed above docs-sync's own message. Git writes there only for a fatal error or a
        # warning about a ref name, and names here are object ids but for the revisions the user
        # gave: far below what the pipe holds, so the process never blocks on it.
        return subprocess.Popen(
            ["git", "-C", str(self.path), "cat-file", mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def close(self) -> None:
        for proc in (self._batch, self._check):
            if proc is not None:
                if proc.stdin:
                    # The process may already have ended; its exit is reported where it failed.
                    with contextlib.suppress(BrokenPipeError):
                        proc.stdin.close()
                proc.wait()
                for stream in (proc.stdout, proc.stderr):
                    if stream:
                        stream.close()
        self._batch = self._check = None

    def __enter__(self) -> GitRepo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GitTree:
    """One revision, implementing bot.core.model.Tree."""

    def __init__(self, repo: GitRepo, sha: str):
        self.repo = repo
        self.sha = sha
        self._entries: dict[str, str] | None = None
        self._ids: dict[str, str | None] = {}
        self._dirs: frozenset[str] | None = None

    def _listing(self) -> dict[str, str]:
        if self._entries is None:
            out = self.repo._git("ls-tree", "-r", "-z", "--full-tree", self.sha)
            entries = {}
            for record in out.split("\0"):
                if not record:
                    continue
                meta, _, path = record.partition("\t")
                _mode, kind, blob = meta.split()
                if kind == "blob":
                    entries[path] = blob
            self._entries = entries
        return self._entries

    def read(self, path: str) -> str | None:
        if self._entries is not None or path in self._ids or not _asks_in_tree(path):
            blob = self.blob_id(path)
            if blob is None:
                return None
            try:
                return decode(path, self.repo.read_blob(blob))
            except GitError as e:  # listed, yet its content is not in this clone
                raise BlobMissing(f"cannot read {path} at {self.sha[:9]}: {e} from this clone") from e
        # Not asked for before: read it by name, which gives its blob id with its content.
        found = self.repo._object(f"{self.sha}:{path}")
        if found is None or found[0] != "blob":
            self._ids[path] = None
            return None
        _, blob, data = found
        self._ids[path] = blob
        self.repo._blobs.setdefault(blob, data)
        return decode(path, data)

    def blob_id(self, path: str) -> str | None:
        # The files a check reads are few: ask for each rather than list the whole tree.
        if self._entries is not None:
            return self._entries.get(path)
        if path not in self._ids:
            info = self.repo.object_info(f"{self.sha}:{path}") if _asks_in_tree(path) else None
            self._ids[path] = info[1] if info and info[0] == "blob" else None
        return self._ids[path]

    def exists(self, path: str) -> bool:
        path = path.rstrip("/")
        if not _asks_in_tree(path):
            return False
        if self._entries is None:
            return self.repo.object_info(f"{self.sha}:{path}") is not None
        if path in self._listing():
            return True
        if self._dirs is None:
            self._dirs = folders(self._listing())
        return path in self._dirs

    def paths(self) -> frozenset[str]:
        return frozenset(self._listing())


class Scanned:
    """A revision read whole, as `docs-sync init` reads it: a file whose content the clone lacks
    reads as no text, and is kept in `absent` to be said. A check, which reads the files its
    rules name, fails on one instead (`GitTree.read`)."""

    def __init__(self, tree: GitTree):
        self.tree = tree
        self.absent: dict[str, None] = {}  # in the order met, each once

    def read(self, path: str) -> str | None:
        try:
            return self.tree.read(path)
        except BlobMissing:
            self.absent[path] = None
            return None

    def blob_id(self, path: str) -> str | None:
        return self.tree.blob_id(path)

    def exists(self, path: str) -> bool:
        return self.tree.exists(path)

    def paths(self) -> frozenset[str]:
        return self.tree.paths()


def folders(paths: Iterable[str]) -> frozenset[str]:
    """Every folder the files at `paths` lie in, at any depth (`a` and `a/b` for `a/b/c.py`)."""
    out = set()
    for p in paths:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]))
    return frozenset(out)


def _ask(proc: subprocess.Popen[bytes], name: str) -> list[bytes] | None:
    """Ask a long-lived cat-file about `name`: the header of its answer (`_header`), None when git
    has no such object (or `name` holds a newline, which would ask for a second one)."""
    if "\n" in name:
        return None
    assert proc.stdin and proc.stdout
    try:
        proc.stdin.write(name.encode() + b"\n")
        proc.stdin.flush()
    except BrokenPipeError:
        raise _stopped(proc, name) from None
    line = proc.stdout.readline()
    if not line:  # the process died: never read as "missing", which would pass silently
        raise _stopped(proc, name)
    return _header(line)


def _stopped(proc: subprocess.Popen[bytes], name: str) -> GitError:
    """A long-lived cat-file that ended before answering for `name`, with what git said."""
    proc.wait()
    said = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
    mode = proc.args[-1] if isinstance(proc.args, list) else "cat-file"
    why = f": {said}" if said else ""
    return GitError(f"git cat-file {mode} stopped before {name!r} could be read{why}")


def _header(line: bytes) -> list[bytes] | None:
    """`<id> <type> <size>` of a `cat-file --batch(-check)` answer; None for `<name> missing` or
    `<name> ambiguous` (read from the end: the name may hold spaces)."""
    line = line.rstrip(b"\n")
    if line.endswith((b" missing", b" ambiguous")):
        return None
    header = line.split()
    if len(header) != 3 or not header[2].isdigit():
        raise GitError(f"git cat-file answered {line[:200]!r}")
    return header


def _asks_in_tree(path: str) -> bool:
    """Can `rev:path` only name a path inside the tree? git reads `rev:./x` and `rev:../x` from
    the working directory and exits on them in a bare repository."""
    return (
        bool(path)
        and "\n" not in path
        and not path.startswith("/")
        and not ({".", ".."} & set(path.split("/")))
    )


def parse_name_status(out: str) -> list[Change]:
    """The changes in `git diff --name-status -M -z` output."""
    fields = out.split("\0")
    changes: list[Change] = []
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i]
        if status.startswith("R"):
            changes.append(Change("renamed", fields[i + 2], fields[i + 1]))
            i += 3
            continue
        path = fields[i + 1]
        kind = {"A": "added", "D": "removed"}.get(status[0], "modified")
        changes.append(Change(kind, path))  # type: ignore[arg-type]
        i += 2
    return changes
