"""The files on disk as a revision: what `git add -A && git commit` would record, uncommitted.

A pre-commit hook has to see edits that are not in any commit yet: staged and unstaged changes
to tracked files, and new files git does not ignore. Files are read from the work tree; the
change list comes from git, comparing a base commit with the work tree, renames included.
Neither the repository's index nor its work tree is changed: untracked files are marked
"intent to add" in a throwaway copy of the index, so that git's rename detection sees them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from bot.core.model import Change
from bot.core.source import decode, git_blob_id
from bot.trees.git import GitError, GitRepo, folders, parse_name_status


class WorkTree:
    """The work tree of a git repository, implementing bot.core.model.Tree."""

    def __init__(self, repo: GitRepo):
        self.repo = repo
        try:  # one process for both: the work tree's root and where its index is
            top, _, index = repo._git("rev-parse", "--show-toplevel", "--git-path", "index").partition("\n")
        except GitError:
            top = index = ""
        if not top.strip():
            raise GitError(f"{repo.path} has no work tree to read (a bare repository?)")
        self.root = Path(top.strip())
        index = index.strip()
        self._index = Path(index) if os.path.isabs(index) else repo.path / index
        self._files: frozenset[str] | None = None
        self._dirs: frozenset[str] | None = None
        self._data: dict[str, bytes | None] = {}

    def _git(self, *args: str, env: dict[str, str] | None = None, input: str | None = None) -> str:
        return self.repo._git("-C", str(self.root), *args, env=env, input=input)

    def paths(self) -> frozenset[str]:
        if self._files is None:
            # Tracked and untracked-but-not-ignored; a tracked file deleted on disk is gone, and a
            # submodule is a folder, not a file.
            out = self._git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
            self._files = frozenset(p for p in out.split("\0") if p and (self.root / p).is_file())
        return self._files

    def _bytes(self, path: str) -> bytes | None:
        # Only listed paths are read: an ignored file, or `../x`, is no more part of the revision
        # than it would be of a commit.
        if path not in self._data:
            data = None
            if path in self.paths():
                try:
                    data = (self.root / path).read_bytes()
                except OSError:
                    data = None
            self._data[path] = data
        return self._data[path]

    def read(self, path: str) -> str | None:
        data = self._bytes(path)
        return None if data is None else decode(path, data)  # as git.py reads a commit's files

    def blob_id(self, path: str) -> str | None:
        data = self._bytes(path)
        if data is None:
            return None
        # The id git gives this content, so caches keyed by blob id are shared with committed
        # revisions: a file the change left alone hits the entry its commit made.
        return git_blob_id(data)

    def exists(self, path: str) -> bool:
        path = path.rstrip("/")
        if path in self.paths():
            return True
        if self._dirs is None:
            self._dirs = folders(self.paths())
        return path in self._dirs

    def changes(self, base: str) -> list[Change]:
        """Every file that differs between commit `base` and the work tree, renames included."""
        index_path = self._index
        untracked = self._git("ls-files", "-z", "--others", "--exclude-standard")
        with tempfile.TemporaryDirectory(prefix="docs-sync-index-") as tmp:
            scratch = Path(tmp) / "index"
            if index_path.is_file():
                shutil.copyfile(index_path, scratch)
            env = dict(os.environ, GIT_INDEX_FILE=str(scratch))
            if untracked:
                self._git(
                    "--literal-pathspecs",
                    "add",
                    "--intent-to-add",
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                    env=env,
                    input=untracked,
                )
            out = self._git("diff", "--name-status", "-M", "-z", base, env=env)
        return parse_name_status(out)
