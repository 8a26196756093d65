"""A repository revision held in memory: for rule examples, tests and the demo."""

from __future__ import annotations

from bot.core.source import git_blob_id


class MemoryTree:
    def __init__(self, files: dict[str, str]):
        self._files = dict(files)

    def read(self, path: str) -> str | None:
        return self._files.get(path)

    def blob_id(self, path: str) -> str | None:
        text = self._files.get(path)
        if text is None:
            return None
        data = text.encode()
        # The same id git gives the blob, so caches keyed by it are shared with the git reader.
        return git_blob_id(data)

    def exists(self, path: str) -> bool:
        if path in self._files:
            return True
        folder = path.rstrip("/") + "/"
        return any(p.startswith(folder) for p in self._files)

    def paths(self) -> frozenset[str]:
        return frozenset(self._files)
