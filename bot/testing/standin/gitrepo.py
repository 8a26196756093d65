"""The fixture repository read through git: objects, trees, commits, and diffs as GitHub lists them."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from bot.testing.standin.fixtures import GIT_ENV, GitError, run_git
from bot.testing.standin.protocol import JSON, iso

T = TypeVar("T")


@dataclass(frozen=True)
class DiffLine:
    kind: str  # " ", "+", "-"
    old: int | None
    new: int | None
    position: int  # lines below the file's first @@ header, that header being 0


@dataclass(frozen=True)
class Hunk:
    index: int
    header_position: int
    lines: tuple[DiffLine, ...]
    text_lines: tuple[str, ...]  # the hunk as patch text, header first


@dataclass(frozen=True)
class FileDiff:
    filename: str
    previous_filename: str | None
    status: str
    old_blob: str | None
    new_blob: str | None
    additions: int
    deletions: int
    patch: str | None
    hunks: tuple[Hunk, ...]

    def find(self, side: str, line: int) -> tuple[Hunk, DiffLine] | None:
        for hunk in self.hunks:
            for dl in hunk.lines:
                if side == "RIGHT" and dl.kind != "-" and dl.new == line:
                    return hunk, dl
                if side == "LEFT" and dl.kind != "+" and dl.old == line:
                    return hunk, dl
        return None

    def at_position(self, position: int) -> tuple[Hunk, DiffLine] | None:
        for hunk in self.hunks:
            for dl in hunk.lines:
                if dl.position == position:
                    return hunk, dl
        return None


_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_STATUS = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "C": "copied", "T": "changed"}
_ZERO_SHA = "0" * 40


def _parse_hunks(patch_lines: list[str]) -> tuple[Hunk, ...]:
    hunks: list[Hunk] = []
    lines: list[DiffLine] = []
    texts: list[str] = []
    header_pos = old = new = 0
    for position, text in enumerate(patch_lines):
        m = _HUNK_HEADER.match(text)
        if m:
            if texts:
                hunks.append(Hunk(len(hunks), header_pos, tuple(lines), tuple(texts)))
            header_pos, old, new = position, int(m.group(1)), int(m.group(3))
            lines, texts = [], [text]
            continue
        texts.append(text)
        kind = text[:1]
        if kind == "+":
            lines.append(DiffLine("+", None, new, position))
            new += 1
        elif kind == "-":
            lines.append(DiffLine("-", old, None, position))
            old += 1
        elif kind == " ":
            lines.append(DiffLine(" ", old, new, position))
            old += 1
            new += 1
        # "\ No newline at end of file" belongs to the patch text but is no line of the file
    if texts:
        hunks.append(Hunk(len(hunks), header_pos, tuple(lines), tuple(texts)))
    return tuple(hunks)


class GitRepo:
    """Reads the fixture repository through git, caching what does not change."""

    _REV = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/@{}^~-]*$")

    def __init__(self, path: Path):
        self.path = Path(path)
        self._diffs: dict[tuple[str, str], tuple[list[FileDiff], str]] = {}
        self._facts: dict[tuple[str, ...], Any] = {}  # answers about immutable objects (full SHAs)

    def _fact(self, key: tuple[str, ...], compute: Callable[[], T]) -> T:
        if key not in self._facts:
            self._facts[key] = compute()
        return cast(T, self._facts[key])

    def git(self, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
        return run_git(self.path, *args, input=input, check=check)

    def resolve(self, rev: str, kind: str = "commit") -> str | None:
        if not rev or not self._REV.match(rev) or ".." in rev:
            return None

        def compute() -> str | None:
            out = self.git("rev-parse", "--verify", "-q", f"{rev}^{{{kind}}}", check=False).decode().strip()
            return out or None

        # a full SHA always names the same object; a branch name may move
        return (
            self._fact(("resolve", rev, kind), compute) if re.fullmatch(r"[0-9a-f]{40}", rev) else compute()
        )

    def is_branch(self, name: str) -> bool:
        return bool(self._REV.match(name)) and bool(
            self.git("rev-parse", "--verify", "-q", f"refs/heads/{name}", check=False).strip()
        )

    def head_branch(self) -> str:
        return self.git("symbolic-ref", "--short", "HEAD").decode().strip()

    def object_type(self, sha: str) -> str | None:
        if not re.fullmatch(r"[0-9a-f]{4,40}", sha):
            return None
        return self.git("cat-file", "-t", sha, check=False).decode().strip() or None

    def read(self, sha: str) -> bytes:
        return self.git("cat-file", "blob", sha)

    def ls_tree(self, treeish: str, paths: tuple[str, ...] = (), recursive: bool = False) -> list[JSON]:
        args = ["ls-tree", "-l", "-z"] + (["-r", "-t"] if recursive else []) + [treeish]
        if paths:
            args += ["--", *paths]
        entries = []
        for record in self.git(*args).decode(errors="surrogateescape").split("\0"):
            if not record:
                continue
            meta, path = record.split("\t", 1)
            mode, otype, sha, size = meta.split()
            entries.append(
                {
                    "mode": mode,
                    "type": otype,
                    "sha": sha,
                    "size": None if size == "-" else int(size),
                    "path": path,
                }
            )
        return entries

    def entry(self, commit: str, path: str) -> JSON | None:
        path = path.strip("/")
        if not path:
            tree = self.resolve(commit, "tree")
            return {"mode": "040000", "type": "tree", "sha": tree, "size": None, "path": ""}
        found = self.ls_tree(commit, (path,))
        return found[0] if found and found[0]["path"] == path else None

    def commit_info(self, sha: str) -> JSON:
        fmt = "%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B"
        parts = self.git("show", "-s", f"--format={fmt}", sha).decode().split("\0")
        return {
            "sha": parts[0],
            "tree": parts[1],
            "parents": parts[2].split(),
            "author": {"name": parts[3], "email": parts[4], "date": iso(parts[5])},
            "committer": {"name": parts[6], "email": parts[7], "date": iso(parts[8])},
            "message": parts[9].rstrip("\n"),
        }

    def merge_base(self, a: str, b: str) -> str:
        return self.git("merge-base", a, b).decode().strip()

    def is_ancestor(self, a: str, b: str) -> bool:
        def compute() -> bool:
            args = ["git", "-C", str(self.path), "merge-base", "--is-ancestor", a, b]
            return subprocess.run(args, env=GIT_ENV, capture_output=True).returncode == 0

        return self._fact(("is-ancestor", a, b), compute)

    def count_commits(self, base: str, head: str) -> int:
        return int(self.git("rev-list", "--count", f"{base}..{head}").decode())

    def diff(self, base: str, head: str) -> tuple[list[FileDiff], str]:
        """The files of `base...head` as GitHub lists them, and the whole diff text."""
        key = (base, head)
        if key not in self._diffs:
            self._diffs[key] = self._compute_diff(self.merge_base(base, head), head)
        return self._diffs[key]

    def _compute_diff(self, base: str, head: str) -> tuple[list[FileDiff], str]:
        opts = ["-M", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"]
        raw = self.git("diff", *opts, "--raw", "-z", "--no-abbrev", base, head).decode(errors="replace")
        text = self.git("diff", *opts, "-p", base, head).decode(errors="replace")
        tokens = raw.split("\0")
        entries: list[tuple[list[str], str | None, str]] = []
        i = 0
        while i < len(tokens) and tokens[i]:
            meta = tokens[i].lstrip(":").split()
            letter = meta[4][0]
            if letter in "RC":
                entries.append((meta, tokens[i + 1], tokens[i + 2]))
                i += 3
            else:
                entries.append((meta, None, tokens[i + 1]))
                i += 2
        chunks: list[list[str]] = []
        for line in text.split("\n"):
            if line.startswith("diff --git "):
                chunks.append([])
            if chunks:
                chunks[-1].append(line)
        if len(chunks) != len(entries):
            raise GitError(f"diff of {base}..{head}: {len(entries)} files but {len(chunks)} patches")
        files = []
        for (meta, old_path, new_path), chunk in zip(entries, chunks, strict=True):
            old_blob = None if meta[2] == _ZERO_SHA else meta[2]
            new_blob = None if meta[3] == _ZERO_SHA else meta[3]
            first = next((n for n, line in enumerate(chunk) if line.startswith("@@")), None)
            binary = any(line.startswith(("Binary files ", "GIT binary patch")) for line in chunk)
            patch_lines = [] if first is None or binary else chunk[first:]
            while patch_lines and patch_lines[-1] == "":
                patch_lines.pop()
            hunks = _parse_hunks(patch_lines)
            files.append(
                FileDiff(
                    filename=new_path,
                    previous_filename=old_path,
                    status=_STATUS.get(meta[4][0], "modified"),
                    old_blob=old_blob,
                    new_blob=new_blob,
                    additions=sum(1 for h in hunks for dl in h.lines if dl.kind == "+"),
                    deletions=sum(1 for h in hunks for dl in h.lines if dl.kind == "-"),
                    patch="\n".join(patch_lines) if patch_lines else None,
                    hunks=hunks,
                )
            )
        return files, text

    def cat_batch(self, specs: list[str]) -> list[tuple[str, str, bytes] | None]:
        """(sha, type, content) for each `rev:path` spec, None when it names nothing."""
        if not specs:
            return []
        if any("\n" in s for s in specs):
            raise ValueError("object names cannot hold newlines")
        out = self.git("cat-file", "--batch", input=("\n".join(specs) + "\n").encode())
        results: list[tuple[str, str, bytes] | None] = []
        pos = 0
        for _ in specs:
            end = out.index(b"\n", pos)
            header = out[pos:end].decode(errors="replace").split()
            pos = end + 1
            if len(header) == 3 and header[1] in ("blob", "tree", "commit", "tag"):
                size = int(header[2])
                results.append((header[0], header[1], out[pos : pos + size]))
                pos += size + 1
            else:
                results.append(None)
        return results
