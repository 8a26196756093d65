"""How the App proves who it is to GitHub, through githubkit's auth strategies.

The App JWT is dated by GitHub's clock (`github_time`: this machine's clock plus the offset the
last answer's Date header showed), so `iat` and `exp` stay inside what GitHub accepts however
far off the local clock is. The JWT and the installation tokens githubkit mints are cached in a
`Credentials` of the GitHubApp's own (bot.app.github.client), not process-wide, so a refused one
can be dropped at once; bot.app.github.lanes shares the tokens through the database.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import httpx
import jwt
from githubkit import AppAuthStrategy, AppInstallationAuthStrategy, GitHubCore
from githubkit.auth.app import AppAuth
from githubkit.cache import AsyncBaseCache, BaseCache, MemCacheStrategy


class Credentials(BaseCache, AsyncBaseCache):
    """githubkit's cache of the App JWT and installation tokens, one per GitHubApp, so a refused
    one can be dropped (`forget`) instead of being used until its own expiry."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[str, datetime]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            item = self._items.get(key)
            if item is None or item[1] <= datetime.now(timezone.utc):
                self._items.pop(key, None)
                return None
            return item[0]

    def set(self, key: str, value: str, ex: timedelta) -> None:
        with self._lock:
            self._items[key] = (value, datetime.now(timezone.utc) + ex)

    async def aget(self, key: str) -> str | None:
        return self.get(key)

    async def aset(self, key: str, value: str, ex: timedelta) -> None:
        self.set(key, value, ex)

    def forget(self, *keys: str) -> None:
        with self._lock:
            for key in keys:
                self._items.pop(key, None)


class CredentialsStrategy(MemCacheStrategy):
    def __init__(self) -> None:
        super().__init__()
        self.credentials = Credentials()

    def get_cache_storage(self) -> Credentials:  # type: ignore[override]
        return self.credentials

    async def get_async_cache_storage(self) -> Credentials:  # type: ignore[override]
        return self.credentials


@dataclass
class _AppAuth(AppAuth):
    """githubkit's App auth flow, with the JWT dated by GitHub's clock."""

    github_time: Callable[[], float] = time.time

    def _create_jwt(self) -> str:
        now = int(self.github_time())
        # GitHub refuses an `iat` in its future and an `exp` more than ten minutes ahead of it.
        claims = {"iss": self.issuer, "iat": now - 60, "exp": now + 540}
        return jwt.encode(claims, self.private_key, algorithm="RS256")


@dataclass
class AppStrategy(AppAuthStrategy):
    github_time: Callable[[], float] = time.time

    def get_auth_flow(self, github: GitHubCore) -> httpx.Auth:  # type: ignore[type-arg]
        return _AppAuth(github, self.app_id, self.private_key, github_time=self.github_time)


@dataclass
class InstallationStrategy(AppInstallationAuthStrategy):
    github_time: Callable[[], float] = time.time

    def get_auth_flow(self, github: GitHubCore) -> httpx.Auth:  # type: ignore[type-arg]
        return _AppAuth(
            github,
            self.app_id,
            self.private_key,
            installation_id=self.installation_id,
            github_time=self.github_time,
        )
