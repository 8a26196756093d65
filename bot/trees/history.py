"""The history of one revision of a git repository, as the check asks it what replaced a token
(bot/core/check/history.py): git's pickaxe (-G) over a few files, and git's renames of a path.

Every answer is bounded: at most `limit` commits, each git call at most `call_seconds`, all calls
of a run at most `total_seconds`; past that the history answers nothing, which only costs a
suggestion. A shallow clone (a CI checkout's `fetch-depth: 1`) has no history to read and answers
nothing rather than what its cut-off history would wrongly say. Answers depend only on the
revision and the question, so they are kept in the facts cache, keyed by commit id.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from bot.trees.git import GitError, GitRepo, parse_name_status

if TYPE_CHECKING:
    from bot.core.check.history import Commit, Move
    from bot.core.model import Tree

# bot.core.check.history (Commit, Move) is imported by the first question: a run whose change
# asks the history nothing loads none of the check's modules for it.

# Part of every cache key: bump when what is stored changes.
CACHE_FORMAT = "history1"
# Characters a POSIX extended regular expression gives a meaning (git's -G).
_ERE_SPECIAL = set(".[]()*+?{}|^$\\")
# What a token's neighbours may not be, for it to be the whole token.
_WORD = "A-Za-z0-9_-"


class GitHistory:
    """bot.core.check.history.History for the commits at or before `rev`."""

    def __init__(
        self,
        repo: GitRepo,
        rev: str,
        cache: MutableMapping[str, object] | None = None,
        *,
        limit: int = 8,
        call_seconds: float = 10.0,
        total_seconds: float = 30.0,
    ):
        self.repo = repo
        self.rev = repo.resolve(rev)
        self.cache = cache
        self.limit = limit
        self.call_seconds = call_seconds
        self.deadline = time.monotonic() + total_seconds
        self.calls = 0  # git processes started: what a benchmark or a test counts
        self.timed_out = False
        self._parents: dict[str, str | None] = {}
        self._shallow: bool | None = None
        self._memo: dict[str, list[Any]] = {}  # answers of this run, with or without a cache

    # --- bot.core.check.history.History -----------------------------------------------------------

    def touching(self, strings: Sequence[str], paths: Sequence[str]) -> Sequence[Commit]:
        if not strings or not paths or self.shallow():
            return []
        key = self._touching_key(strings, paths)
        found = self._cached(key)
        if found is None:
            # A line holding the token whole (`--warmup-steps` is not in `--num-warmup-steps`) that
            # the commit added or removed: git's -G greps the diff, where -S would count the
            # token in every version of the files, ten times slower on a large module.
            out = self._git(
                "log", f"-G{_ere_whole(strings)}", "--format=%H%x1f%P%x1f%s", f"-n{self.limit}", self.rev,
                "--", *paths,
            )  # fmt: skip
            if out is None:
                return []
            found = [tuple(line.split("\x1f", 2)) for line in out.splitlines() if line.count("\x1f") == 2]
            self._store(key, found)
        return [self._commit(*entry) for entry in found]

    def prefetch(self, questions: Sequence[Sequence[str]], paths: Sequence[str]) -> None:
        """Answer every question `touching` will be asked in one pass over the history: the diffs
        of the commits that add or remove a line holding any of the tokens, read once. Each
        `git log` over a large module's history costs about as much whatever it looks for."""
        todo = [q for q in questions if q and self._cached(self._touching_key(q, paths)) is None]
        if len(todo) < 2 or not paths or self.shallow():
            return
        cap = self.limit * len(todo)
        out = self._git(
            "log", f"-G{_ere_whole([s for q in todo for s in q])}", "-p", "-U0", "--no-color",
            "--no-ext-diff", "--format=%x1e%H%x1f%P%x1f%s", f"-n{cap}", self.rev, "--", *paths,
        )  # fmt: skip
        if out is None:
            return
        commits = []
        for chunk in out.split("\x1e")[1:]:
            header, _, diff = chunk.partition("\n")
            if header.count("\x1f") != 2:
                return
            lines = [
                line[1:]
                for line in diff.splitlines()
                if line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- "))
            ]
            commits.append((tuple(header.split("\x1f", 2)), lines))
        complete = len(commits) < cap  # else the oldest answers may be missing
        for question in todo:
            whole = re.compile(f"(?<![{_WORD}])(?:{'|'.join(re.escape(s) for s in question)})(?![{_WORD}])")
            hits = [entry for entry, lines in commits if any(whole.search(line) for line in lines)]
            if complete or len(hits) >= self.limit:
                self._store(self._touching_key(question, paths), hits[: self.limit])

    def never(self, strings: Sequence[str], paths: Sequence[str]) -> bool:
        # Only a git call that succeeded (or a complete prefetch) stores an answer: an empty one
        # read the whole history of the paths.
        if not strings or not paths or self.shallow():
            return False
        key = self._touching_key(strings, paths)
        if self._cached(key) is None:
            self.touching(strings, paths)
        return self._cached(key) == []

    def never_had(self, paths: Sequence[str]) -> frozenset[str]:
        wanted = [p.strip("/") for p in paths if p.strip("/")]
        if not wanted or self.shallow():
            return frozenset()
        # Every path any commit changed among these (a folder's files under it): one walk of
        # the history for all of them.
        out = self._git("log", "--format=", "--name-only", "--no-renames", self.rev, "--", *wanted)
        if out is None:
            return frozenset()
        had = set(out.split("\n"))
        folders = {"/".join(p.split("/")[:i]) for p in had for i in range(1, p.count("/") + 1)}
        return frozenset(p for p in wanted if p not in had and p not in folders)

    def _touching_key(self, strings: Sequence[str], paths: Sequence[str]) -> str:
        return f"{CACHE_FORMAT}:S:{self.rev}:{self.limit}:{_joined(strings)}:{_joined(paths)}"

    def trees(self, commit: Commit) -> tuple[Tree, Tree] | None:
        parent = self._parents.get(commit.id)
        if parent is None:
            return None
        return self.repo.tree(parent), self.repo.tree(commit.id)

    def moves(self, path: str) -> Sequence[Move]:
        path = path.rstrip("/")
        if not path or self.shallow():
            return []
        key = f"{CACHE_FORMAT}:M:{self.rev}:{self.limit}:{path}"
        found = self._cached(key)
        if found is None:
            # Limited to the path, git sees a rename out of it as a deletion: the commit's whole diff
            # says where the files went.
            out = self._git(
                "log", "-M", "--diff-filter=RD", "--format=%H%x1f%P%x1f%s", "-n1", self.rev, "--", path
            )
            if out is None:
                return []
            found = []
            for line in out.splitlines():
                sha, parents, subject = line.split("\x1f", 2)
                parent = parents.split()[0] if parents else None
                if parent is None:
                    continue
                diff = self._git("diff-tree", "-r", "-M", "--name-status", "-z", parent, sha)
                if diff is None:
                    return []
                renames = {c.old_path: c.path for c in parse_name_status(diff) if c.old_path}
                found.append((sha, parents, subject, renames))
            self._store(key, found)
        from bot.core.check.history import Move

        moves = []
        for sha, parents, subject, renames in found:
            moves.append(Move(self._commit(sha, parents, subject), renames))
        return moves

    # --- git ----------------------------------------------------------------------------------------

    def shallow(self) -> bool:
        """A shallow clone's oldest commits look like the repository's first: nothing it says
        about when a token went is to be trusted."""
        if self._shallow is None:
            out = self._git("rev-parse", "--is-shallow-repository")
            self._shallow = out is None or out.strip() != "false"
        return self._shallow

    def _commit(self, sha: str, parents: str, subject: str) -> Commit:
        from bot.core.check.history import Commit

        first = parents.split()[0] if parents.strip() else None
        self._parents[sha] = first
        return Commit(sha, subject)

    def _git(self, *args: str) -> str | None:
        """git's output, or None when it failed or ran out of time."""
        left = min(self.call_seconds, self.deadline - time.monotonic())
        if left <= 0:
            self.timed_out = True
            return None
        self.calls += 1
        try:
            proc = subprocess.run(
                ["git", "--literal-pathspecs", "-C", str(self.repo.path), *args],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=left,
                check=False,
            )
        except subprocess.TimeoutExpired:
            self.timed_out = True
            return None
        return proc.stdout if proc.returncode == 0 else None

    def _cached(self, key: str) -> list[Any] | None:
        if key in self._memo:
            return self._memo[key]
        if self.cache is None:
            return None
        try:
            hit = self.cache.get(key)
        except Exception:  # an unreadable cache entry is a miss
            return None
        return hit if isinstance(hit, list) else None

    def _store(self, key: str, value: list[Any]) -> None:
        self._memo[key] = value
        if self.cache is not None:
            self.cache[key] = value


def _ere_whole(strings: Sequence[str]) -> str:
    """A POSIX extended regular expression matching any of `strings` as a whole token."""
    return f"(^|[^{_WORD}])({'|'.join(_ere(s) for s in strings)})([^{_WORD}]|$)"


def _ere(text: str) -> str:
    return "".join("\\" + c if c in _ERE_SPECIAL else c for c in text)


def _joined(items: Sequence[str]) -> str:
    return "\x00".join(items)


def open_history(
    repo: GitRepo, rev: str, cache: MutableMapping[str, object] | None = None
) -> GitHistory | None:
    """The history of `rev`, or None when the repository cannot say (an unknown revision)."""
    try:
        return GitHistory(repo, rev, cache)
    except GitError:
        return None
