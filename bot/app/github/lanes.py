"""GitHub's limits kept across every worker process on one PostgreSQL database.

One process keeps them alone (bot.app.github.client.GitHubApp): writes to a repository spaced a second
apart, installation tokens cached in memory. With several worker processes, `SharedGitHubApp`
keeps them through the database instead:

- Write spacing per installation: before a write (POST, PATCH, PUT, DELETE) made with an
  installation's token, the process reserves the installation's next turn in the queue's
  `lanes` table (JobQueue.reserve: one atomic statement) and sleeps until it. Turns are
  `write_interval_s` apart whichever process takes them, so all the workers together write as
  one integration should ("at least one second between each" content-creating request), and
  no lock is held while waiting.
- Installation tokens: one minted by any process is stored (kv ns "credential", with its expiry)
  and used by the others until shortly before it expires, instead of every worker minting its
  own. A token GitHub refuses is dropped everywhere. Tokens sit in the database in clear, as
  the App's other state does; the database is as trusted as the private key's host.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from bot.app.config import Settings
from bot.app.github.auth import Credentials
from bot.app.github.client import GitHubApp
from bot.app.metrics import Metrics
from bot.app.queue.protocol import JobQueue

TOKEN_MARGIN_S = 120.0  # a shared token is not handed out this close to its expiry


class SharedCredentials(Credentials):
    """The in-memory credential cache, with installation tokens shared through the database."""

    def __init__(self, queue: JobQueue, wall_clock: Callable[[], float] = time.time):
        super().__init__()
        self._queue, self._wall = queue, wall_clock

    def get(self, key: str) -> str | None:
        value = super().get(key)
        if value is not None or ":installation:" not in key:
            return value  # the JWT is made locally, without a call: nothing to share
        raw = self._queue.kv_get("credential", key)
        data = json.loads(raw) if raw else None
        if not isinstance(data, dict) or not data.get("value"):
            return None
        left = float(data.get("expires_at") or 0) - self._wall() - TOKEN_MARGIN_S
        if left <= 0:
            return None
        super().set(key, str(data["value"]), timedelta(seconds=left))
        return str(data["value"])

    def set(self, key: str, value: str, ex: timedelta) -> None:
        super().set(key, value, ex)
        if ":installation:" in key:
            record = {"value": value, "expires_at": self._wall() + ex.total_seconds()}
            self._queue.kv_put("credential", key, json.dumps(record))

    def forget(self, *keys: str) -> None:
        super().forget(*keys)
        for key in keys:
            if ":installation:" in key:
                self._queue.kv_put("credential", key, json.dumps({"value": None, "expires_at": 0}))


class SharedGitHubApp(GitHubApp):
    """GitHubApp whose write spacing and installation tokens hold across processes."""

    def __init__(self, *args: Any, queue: JobQueue, wall_clock: Callable[[], float] = time.time, **kw: Any):
        super().__init__(*args, **kw)
        self._queue, self._wall = queue, wall_clock
        self._credentials.credentials = SharedCredentials(queue, wall_clock)
        self._installation_by_repo: dict[str, int] = {}

    def repo(self, installation_id: int, owner: str, repo: str) -> Any:
        with self._lock:
            self._installation_by_repo[f"{owner}/{repo}"] = installation_id
        return super().repo(installation_id, owner, repo)

    def _before_write(self, repo: str) -> None:
        with self._lock:
            installation = self._installation_by_repo.get(repo)
        if installation is None:
            super()._before_write(repo)
            return
        turn = self._queue.reserve(f"installation:{installation}", max(0.0, self.write_interval_s))
        wait = turn - self._wall()
        if wait > 0:
            self._sleep(wait)


def github_app(settings: Settings, queue: JobQueue, metrics: Metrics, **kw: Any) -> GitHubApp:
    """The App's GitHub clients: shared limits when processes share a database (DATABASE_URL)."""
    args = (settings.app_id, settings.private_key, settings.github_api_url, metrics)
    if settings.database_url:
        return SharedGitHubApp(*args, queue=queue, **kw)
    return GitHubApp(*args, **kw)
