"""The history of a pull request's head through the GitHub API, as the check asks it what
replaced a token (bot/core/check/history.py); the App has no clone to run git's pickaxe in.

- `touching`: the newest commits of each path (`GET commits?sha=&path=`, one page), and the
  file as each of them left it, all read in one GraphQL query: a commit changed how often the
  token occurs when its version and the one before differ (git's `-S`, on a file's versions);
- `moves`: the newest commit of the path's history that removed or renamed it (or a file under
  it, `GET commits/{sha}`), with every rename GitHub lists for it;
- `trees`: the commit and its first parent as API trees, the paths asked about read in one
  GraphQL query.

Bounded: `per_path` commits of each path and `max_calls` calls for a whole check; past that it
answers nothing, which only costs a suggestion. What it reads is kept in the store (a path's
commits at a head, a commit's renames, files by commit and path): none of it ever changes.
A stale token costs one call per source path the first time a head is checked, and a query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.app.github.client import Repo
from bot.app.github.shapes import GitActor
from bot.app.jobs.snapshot import ApiTree, BlobReader
from bot.core.check.history import Commit, Move
from bot.core.model import Tree

_WORD = "A-Za-z0-9_-"


class ApiHistory:
    """bot.core.check.history.History of the commits at or before `head_sha`."""

    def __init__(
        self,
        repo: Repo,
        reader: BlobReader,
        head_sha: str,
        *,
        limit: int = 8,
        per_path: int = 30,
        max_calls: int = 40,
    ):
        self.repo, self.reader, self.head_sha = repo, reader, head_sha
        self.store = reader.store
        self.limit, self.per_path = limit, per_path
        self.calls_left = max_calls
        self._summaries: dict[str, dict[str, Any] | None] = {}
        self._parents: dict[str, str | None] = {}
        self._paths: list[str] = []  # the source paths asked about: read together at old commits

    # --- bot.core.check.history.History -----------------------------------------------------------

    def touching(self, strings: Sequence[str], paths: Sequence[str]) -> Sequence[Commit]:
        self._paths = list(dict.fromkeys([*self._paths, *paths]))
        whole = re.compile(f"(?<![{_WORD}])(?:{'|'.join(re.escape(s) for s in strings)})(?![{_WORD}])")
        logs = self._logs(paths)
        found: dict[str, tuple[str, Commit]] = {}
        for path in paths:
            log = logs.get(path, [])
            # A file's versions along its own history: a commit changed how often the token
            # occurs when its version and the one before it (the next older listed) differ.
            # The oldest listed commit has nothing older to compare with.
            counts = [self._count(whole, sha, path) for sha, _, _, _ in log]
            for i, (sha, _, subject, date) in enumerate(log[:-1]):
                if counts[i] is None or counts[i + 1] is None:
                    break  # a version not read: what is older is unknown
                if counts[i] != counts[i + 1]:
                    found.setdefault(sha, (date, Commit(sha, subject)))
        newest = sorted(found.values(), key=lambda entry: entry[0], reverse=True)
        return [commit for _, commit in newest[: self.limit]]

    def prefetch(self, questions: Sequence[Sequence[str]], paths: Sequence[str]) -> None:
        pass  # every question reads the same commits, each fetched once

    def never(self, strings: Sequence[str], paths: Sequence[str]) -> bool:
        """Every version of every path read, none holding the token: only when each path's
        whole history fits in the one page of commits listed."""
        if not strings or not paths:
            return False
        self._paths = list(dict.fromkeys([*self._paths, *paths]))
        whole = re.compile(f"(?<![{_WORD}])(?:{'|'.join(re.escape(s) for s in strings)})(?![{_WORD}])")
        logs = self._logs(paths)
        for path in paths:
            log = logs.get(path, [])
            if not log or len(log) >= self.per_path:
                return False  # not listed (out of calls), or older commits not listed
            if any(self._count(whole, sha, path) != 0 for sha, _, _, _ in log):
                return False  # it held the token once, or a version was not read
        return True

    def never_had(self, paths: Sequence[str]) -> frozenset[str]:
        """A path whose listing of commits, read, is empty: no commit of the head's history
        changed it (a file or a folder), so none ever had it."""
        never = set()
        for path in paths:
            path = path.strip("/")
            if not path or not self._spend():
                break
            if not self.repo.commits(self.head_sha, path, 1):
                never.add(path)
        return frozenset(never)

    def trees(self, commit: Commit) -> tuple[Tree, Tree] | None:
        parent = self._parents.get(commit.id)
        if not parent:
            return None
        wanted = [(sha, path) for sha in (parent, commit.id) for path in self._paths]
        if wanted:
            self.reader.fetch(wanted)  # one query for both sides of every source
        return self._tree(parent), self._tree(commit.id)

    def moves(self, path: str) -> Sequence[Move]:
        path = path.strip("/")
        for sha, _, _, _ in self._log(path):
            summary = self._summary(sha)
            if summary is None:
                return []
            gone = [
                f
                for f in summary["files"]
                if f[1] in ("removed", "renamed") and _under(f[2] if f[1] == "renamed" else f[0], path)
            ]
            if gone:
                renames = {f[2]: f[0] for f in summary["files"] if f[1] == "renamed" and f[2]}
                return [Move(Commit(sha, summary["subject"]), renames)]
        return []

    # --- the API ------------------------------------------------------------------------------------

    def _tree(self, sha: str) -> ApiTree:
        return ApiTree(self.reader, sha, lambda p: (sha, p))

    def _logs(self, paths: Sequence[str]) -> dict[str, list[tuple[str, str | None, str, str]]]:
        """Each path's newest commits, with every version of it they made read in one query."""
        logs = {path: self._log(path) for path in paths}
        wanted = [(sha, path) for path, log in logs.items() for sha, _, _, _ in log]
        if wanted and self._spend():
            self.reader.fetch(wanted)  # kept in the store by commit and path, texts by blob
        return logs

    def _count(self, whole: re.Pattern[str], sha: str, path: str) -> int | None:
        """How often the token occurs in the file at `sha`; None when that version was not read."""
        blob = self.reader.fetch([(sha, path)]) if self._known(sha, path) else None
        if blob is None:
            return None
        found = blob[(sha, path)]
        return 0 if found is None else len(whole.findall(found.text))

    def _known(self, sha: str, path: str) -> bool:
        return self.store.blob_at(self.repo.full_name, sha, path) is not None

    def _log(self, path: str) -> list[tuple[str, str | None, str, str]]:
        """The newest commits of `path` at the head: (sha, first parent, subject, committer date)."""
        key = f"log:{self.head_sha}:{self.per_path}:{path}"
        known = self.store.history(self.repo.full_name, key)
        if isinstance(known, list):
            out = [(str(a), None if b is None else str(b), str(c), str(d)) for a, b, c, d in known]
        elif not self._spend():
            return []
        else:
            out = []
            for entry in self.repo.commits(self.head_sha, path, self.per_path):
                sha = entry.get("sha")
                commit = entry.get("commit") or {}
                parents = entry.get("parents") or []
                if isinstance(sha, str):
                    out.append(
                        (
                            sha,
                            parents[0].get("sha") if parents else None,
                            str(commit.get("message") or "").split("\n", 1)[0],
                            _date(commit.get("committer")),
                        )
                    )
            self.store.save_history(self.repo.full_name, key, [list(entry) for entry in out])
        for sha, parent, _, _ in out:
            self._parents[sha] = parent
        return out

    def _summary(self, sha: str) -> dict[str, Any] | None:
        """The commit's subject and files: (path, status, previous path)."""
        if sha in self._summaries:
            return self._summaries[sha]
        summary = self.store.history(self.repo.full_name, f"commit:{sha}")
        if not isinstance(summary, dict):
            if not self._spend():
                return None
            data = self.repo.commit(sha)
            message = str((data.get("commit") or {}).get("message") or "")
            files = [
                [str(f.get("filename")), str(f.get("status")), f.get("previous_filename")]
                for f in data.get("files") or []
            ]
            summary = {"subject": message.split("\n", 1)[0], "files": files}
            self.store.save_history(self.repo.full_name, f"commit:{sha}", summary)
        self._summaries[sha] = summary
        return summary

    def _spend(self) -> bool:
        if self.calls_left <= 0:
            return False
        self.calls_left -= 1
        return True


def _date(actor: GitActor | None) -> str:
    return str(actor.get("date") or "") if actor else ""


def _under(path: str | None, folder: str) -> bool:
    return path is not None and (path == folder or path.startswith(folder + "/"))
