"""`GitHubStandIn`: the API areas composed into one server, and the controls a test drives."""

from __future__ import annotations

import re
import threading
from collections import deque
from datetime import datetime, timezone
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Route

from bot.testing.standin.checks import Checks
from bot.testing.standin.comments import Comments
from bot.testing.standin.dispatch import Dispatch
from bot.testing.standin.fixtures import EPOCH
from bot.testing.standin.gitdata import GitData
from bot.testing.standin.gitrepo import GitRepo
from bot.testing.standin.graphql import GraphQL
from bot.testing.standin.hooks import HookLog
from bot.testing.standin.keys import ISSUED_LOCK, ISSUED_TOKENS, default_app_key, load_public_key
from bot.testing.standin.protocol import API_VERSIONS, JSON, PERMISSIONS, TREE_LIMIT, iso
from bot.testing.standin.pulls import Pulls
from bot.testing.standin.reviews import Reviews
from bot.testing.standin.serving import Serving
from bot.testing.standin.state import APP_PERMISSIONS, Injection, Pull


class GitHubStandIn(HookLog, Dispatch, Pulls, GitData, GraphQL, Checks, Reviews, Comments):
    """github.com for one repository and one App installation; see the package docstring."""

    def __init__(
        self,
        repo_dir: Path,
        owner: str = "octo-org",
        name: str = "docs-repo",
        app_id: int = 1,
        private_key_pem: str | None = None,
        installation_id: int = 42,
        *,
        app_slug: str = "docs-sync",
        default_branch: str | None = None,
        content_limit_per_minute: int = 80,
        content_limit_per_hour: int = 500,
        app_permissions: dict[str, str] | None = None,
        clock_offset_s: float = 0.0,
        repository_id: int = 7000,
    ):
        self.repo = GitRepo(repo_dir)
        self.repository_id = repository_id
        self.clock_offset_s = clock_offset_s
        self.tree_entry_limit = TREE_LIMIT
        self.app_permissions = dict(APP_PERMISSIONS if app_permissions is None else app_permissions)
        self.owner, self.name = owner, name
        self.app_id, self.installation_id, self.app_slug = app_id, installation_id, app_slug
        if private_key_pem is None:
            private_key_pem = default_app_key()[0]
        self.private_key_pem = private_key_pem
        self._public_key = load_public_key(private_key_pem)
        self.default_branch = default_branch or self.repo.head_branch()
        self.content_limit_per_minute = content_limit_per_minute
        self.content_limit_per_hour = content_limit_per_hour
        self.bot_login = f"{app_slug}[bot]"
        self.html = "https://github.com"
        self.url = ""

        self.check_runs = []
        self.reviews = []
        self.review_comments = []
        self.issue_comments = []
        self.reactions = []
        self.requests = []
        self.deliveries = []
        self.server_errors = []
        self._manifest_codes = {}
        self._init_hooks()

        self._lock = threading.RLock()
        self._ids = iter(range(1_000_001, 2**31))
        self._user_ids = {}
        self._permissions = {}
        self._pulls = {}
        self._injections = []
        self._no_patch = []
        self._revoked = set()
        self._writes = deque()
        self._suites = {}
        self._used = 0
        self._created_at = iso(datetime.fromtimestamp(EPOCH, timezone.utc))
        self._routes = self._build_routes()
        self.app = Starlette(
            routes=[Route("/{path:path}", self._endpoint, methods=["GET", "POST", "PATCH", "PUT", "DELETE"])]
        )
        self._serving = Serving(self.app, "github-standin")
        self.public = {}

    def __enter__(self) -> GitHubStandIn:
        self.url = self._serving.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._serving.stop()

    def publish(self, repo_dir: Path, owner: str, name: str) -> None:
        """Serve another repository as a public one, read-only: github.com lets an installation's
        token read any public repository (a rule's sister project)."""
        self.public[f"{owner}/{name}".lower()] = GitHubStandIn(repo_dir, owner, name)

    # -- test controls --------------------------------------------------------------------------

    def open_pull(
        self,
        number: int,
        base: str,
        head: str,
        *,
        title: str = "Update the code and its docs",
        body: str = "",
        user: str = "octocat",
        head_repo_fork: bool = False,
        draft: bool = False,
    ) -> JSON:
        """Register PR `number` from `head` into `base` (branch names or SHAs); return its JSON."""
        with self._lock:
            if number in self._pulls:
                raise ValueError(f"pull request #{number} already exists")
            base_sha, head_sha = self._commit_or_fail(base), self._commit_or_fail(head)
            self._pulls[number] = Pull(
                number=number,
                id=self._next_id(),
                title=title,
                body=body,
                user=user,
                base_ref=base if self.repo.is_branch(base) else self.default_branch,
                base_sha=base_sha,
                head_ref=head if self.repo.is_branch(head) else f"topic-{number}",
                head_sha=head_sha,
                fork=head_repo_fork,
                draft=draft,
            )
            return self._pull_json(self._pulls[number], API_VERSIONS[-1])

    def update_pull(
        self,
        number: int,
        *,
        head: str | None = None,
        base: str | None = None,
        state: str | None = None,
        title: str | None = None,
    ) -> JSON:
        """Move a PR's head (a push) or base, close or reopen it, retitle it; return its JSON."""
        with self._lock:
            pr = self._pulls[number]
            if head is not None:
                pr.head_sha = self._commit_or_fail(head)
                if self.repo.is_branch(head):
                    pr.head_ref = head
            if base is not None:
                pr.base_sha = self._commit_or_fail(base)
                if self.repo.is_branch(base):
                    pr.base_ref = base
            if state is not None:
                pr.state = state
                pr.closed_at = iso() if state == "closed" else None
            if title is not None:
                pr.title = title
            pr.updated_at = iso()
            return self._pull_json(pr, API_VERSIONS[-1])

    def add_issue_comment(self, number: int, body: str, *, user: str = "octocat") -> JSON:
        """A comment on PR `number` written by `user` (not by the App); return its JSON."""
        with self._lock:
            return self._new_issue_comment(self._pull(number), body, user)

    def reset(self) -> None:
        """Forget PRs, permissions, injected failures and everything recorded; the server keeps running."""
        with self._lock:
            for recorded in (
                self.check_runs,
                self.reviews,
                self.review_comments,
                self.issue_comments,
                self.reactions,
                self.requests,
                self.deliveries,
                self.server_errors,
            ):
                recorded.clear()
            self._pulls.clear()
            self._permissions.clear()
            self._injections.clear()
            self._no_patch.clear()
            self._revoked.clear()
            self.clock_offset_s = 0.0
            self.tree_entry_limit = TREE_LIMIT
            self._writes.clear()
            self._suites.clear()
            self.public.clear()
        self._reset_hooks()

    def set_permission(self, user: str, permission: str) -> None:
        if permission not in (*PERMISSIONS, "none"):
            raise ValueError(f"unknown permission {permission!r}")
        with self._lock:
            self._permissions[user] = permission

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: JSON | None = None,
        after: bool = False,
        skip: int = 0,
    ) -> None:
        with self._lock:
            self._injections.append(
                Injection(
                    method.upper(),
                    re.compile(path_regex),
                    status,
                    times,
                    dict(headers or {}),
                    body,
                    after,
                    skip,
                )
            )

    def revoke_tokens(self) -> None:
        """Every installation token issued so far answers 401 "Bad credentials" here from now on,
        as after a revocation or a suspended and restored installation; new ones work."""
        with self._lock, ISSUED_LOCK:
            self._revoked.update(
                t for t, grant in ISSUED_TOKENS.items() if grant[:2] == (self.app_id, self.installation_id)
            )

    def omit_patches(self, path_regex: str) -> None:
        with self._lock:
            self._no_patch.append(re.compile(path_regex))

    def pull(self, number: int) -> JSON:
        """The PR's current JSON (2026-03-10 shape)."""
        with self._lock:
            return self._pull_json(self._pull(number), API_VERSIONS[-1])

    def calls(self, method: str, path_regex: str) -> list[tuple[str, str, int]]:
        """The recorded requests with this method whose path matches `path_regex`."""
        pattern = re.compile(path_regex)
        return [r for r in self.requests if r[0] == method.upper() and pattern.search(r[1])]
