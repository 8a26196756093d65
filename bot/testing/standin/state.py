"""What one stand-in holds: its configuration, what it recorded, and the finders every area uses.

`State` declares the attributes `GitHubStandIn.__init__` sets, so that each API area (a mixin
of its own module) reads them typed; the recorded lists are public, a test reads them.
"""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from bot.testing.standin.gitrepo import GitRepo
from bot.testing.standin.protocol import JSON, HTTPError, iso

# The installation's permissions unless a test says otherwise: app.yml's (a test keeps them equal).
APP_PERMISSIONS = {
    "checks": "write",
    "contents": "write",
    "issues": "read",
    "metadata": "read",
    "pull_requests": "write",
}


@dataclass
class Pull:
    number: int
    id: int
    title: str
    body: str
    user: str
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    fork: bool
    draft: bool
    state: str = "open"
    created_at: str = field(default_factory=iso)
    updated_at: str = field(default_factory=iso)
    closed_at: str | None = None


@dataclass
class Injection:
    method: str
    pattern: re.Pattern[str]
    status: int
    times: int
    headers: dict[str, str]
    body: JSON | None
    after: bool = False
    skip: int = 0  # matching requests to let through first


class State:
    """The stand-in's attributes, as `GitHubStandIn.__init__` sets them."""

    # configuration
    repo: GitRepo
    owner: str
    name: str
    repository_id: int  # a fork of it is repository_id + 1
    app_id: int
    installation_id: int
    app_slug: str
    app_permissions: dict[str, str]
    private_key_pem: str
    _public_key: RSAPublicKey  # the key the App's JWT is checked with
    default_branch: str
    content_limit_per_minute: int
    content_limit_per_hour: int
    clock_offset_s: float  # GitHub's clock minus this machine's
    tree_entry_limit: int  # entries of a recursive tree before it is truncated
    bot_login: str
    html: str
    url: str

    # recorded, for the test to read
    check_runs: list[JSON]
    reviews: list[JSON]
    review_comments: list[JSON]
    issue_comments: list[JSON]
    reactions: list[JSON]
    requests: list[tuple[str, str, int]]
    deliveries: list[tuple[str, JSON]]  # webhooks GitHub would send the App
    server_errors: list[str]  # tracebacks of the stand-in's own faults
    # Other public repositories any token reads (GET calls and GraphQL): full name -> stand-in.
    public: dict[str, State]

    # GitHub's own tables
    _lock: threading.RLock
    _ids: Iterator[int]  # object ids (shared by a host's repositories)
    _user_ids: dict[str, int]
    _permissions: dict[str, str]  # user -> role
    _pulls: dict[int, Pull]
    _injections: list[Injection]
    _no_patch: list[re.Pattern[str]]
    _revoked: set[str]  # installation tokens revoked here
    _writes: deque[float]  # monotonic times of content-creating requests
    _suites: dict[str, int]  # head sha -> check suite id
    _used: int  # requests answered, for the rate limit headers
    _created_at: str
    _manifest_codes: dict[str, tuple[JSON, float]]  # manifest_code() -> (manifest, expiry)

    @property
    def api(self) -> str:
        return self.url

    def now(self) -> float:
        """The time on GitHub's clock: this machine's plus `clock_offset_s`."""
        return time.time() + self.clock_offset_s

    def _next_id(self) -> int:
        return next(self._ids)

    def _commit_or_fail(self, rev: str) -> str:
        sha = self.repo.resolve(rev)
        if sha is None:
            raise ValueError(f"{rev!r} is no commit of {self.repo.path}")
        return sha

    def _pull(self, number: str | int) -> Pull:
        pr = self._pulls.get(int(number))
        if pr is None:
            raise HTTPError(404, "Not Found")
        return pr

    def _check_run(self, run_id: str) -> JSON:
        return _by_id(self.check_runs, run_id)

    def _review_comment(self, cid: str | int) -> JSON:
        return _by_id(self.review_comments, cid)

    def _issue_comment(self, cid: str | int) -> JSON:
        return _by_id(self.issue_comments, cid)


def _by_id(recorded: list[JSON], wanted: str | int) -> JSON:
    for item in recorded:
        if item["id"] == int(wanted):
            return item
    raise HTTPError(404, "Not Found")
