"""`GitHubHost`: many repositories and installations of one App on one port."""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.testing.standin.dispatch import json_response
from bot.testing.standin.graphql import GQL_ARG, GQL_REPO
from bot.testing.standin.keys import ISSUED_LOCK, ISSUED_TOKENS, default_app_key
from bot.testing.standin.server import GitHubStandIn
from bot.testing.standin.serving import Serving


class GitHubHost:
    """github.com for many repositories and installations of one App, on one port.

    Each repository is a `GitHubStandIn` of its own (its git fixture, pull requests, check runs,
    reviews, comments, permissions), added with `add_repository` before the host is entered;
    the host routes each request to the repository its path (or its GraphQL query) names. What
    GitHub keeps per App or per installation is shared as GitHub shares it: the App's key,
    object ids (a check run id is unique across repositories), user ids, and the secondary
    rate limit on content creation, counted per installation over all its repositories. An
    installation token reaches only its own installation's repositories (404 elsewhere, as for
    a private repository), and GET /repos/{o}/{r}/installation names the installation a
    repository belongs to.
    """

    def __init__(
        self,
        app_id: int = 1,
        private_key_pem: str | None = None,
        *,
        app_slug: str = "docs-sync",
        content_limit_per_minute: int = 80,
        content_limit_per_hour: int = 500,
    ):
        self.app_id, self.app_slug = app_id, app_slug
        self.private_key_pem = private_key_pem or default_app_key()[0]
        self.content_limit_per_minute = content_limit_per_minute
        self.content_limit_per_hour = content_limit_per_hour
        self.repositories: list[GitHubStandIn] = []
        self.url = ""
        self._by_name: dict[tuple[str, str], GitHubStandIn] = {}
        self._writes: dict[int, deque[float]] = {}  # by installation
        self._ids = iter(range(1_000_001, 2**31))
        self._user_ids: dict[str, int] = {}
        self._serving = Serving(
            Starlette(
                routes=[
                    Route("/{path:path}", self._endpoint, methods=["GET", "POST", "PATCH", "PUT", "DELETE"])
                ]
            ),
            "github-host",
        )

    def add_repository(
        self, repo_dir: Path, owner: str, name: str, installation_id: int, **options: Any
    ) -> GitHubStandIn:
        """Serve the git repository `repo_dir` as `owner/name`, in installation `installation_id`
        (created with its first repository); `options` are GitHubStandIn's other keywords."""
        if self.url:
            raise RuntimeError("add repositories before entering the host")
        key = (owner.lower(), name.lower())
        if key in self._by_name:
            raise ValueError(f"{owner}/{name} is served already")
        standin = GitHubStandIn(
            repo_dir,
            owner,
            name,
            self.app_id,
            self.private_key_pem,
            installation_id,
            app_slug=self.app_slug,
            content_limit_per_minute=self.content_limit_per_minute,
            content_limit_per_hour=self.content_limit_per_hour,
            repository_id=7000 + 10 * len(self.repositories),
            **options,
        )
        # What GitHub keeps once for the App or the installation, not per repository.
        standin._ids = self._ids
        standin._user_ids = self._user_ids
        standin._writes = self._writes.setdefault(installation_id, deque())
        self.repositories.append(standin)
        self._by_name[key] = standin
        return standin

    def repository(self, owner: str, name: str) -> GitHubStandIn:
        return self._by_name[(owner.lower(), name.lower())]

    def __enter__(self) -> GitHubHost:
        if not self.repositories:
            raise RuntimeError("a host serves at least one repository")
        self.url = self._serving.start()
        for standin in self.repositories:
            standin.url = self.url
        return self

    def __exit__(self, *exc: object) -> None:
        self._serving.stop()

    async def _endpoint(self, request: Request) -> Response:
        body = await request.body()  # kept by the request: the stand-in reads it again
        path = request.url.path
        target: GitHubStandIn | None = None
        if m := re.match(r"/repos/([^/]+)/([^/]+)", path):
            target = self._by_name.get((m.group(1).lower(), m.group(2).lower()))
            if target is None or self._other_installation(request, target):
                return json_response(404, {"message": "Not Found", "documentation_url": ""})
        elif m := re.match(r"/app/installations/(\d+)", path):
            iid = int(m.group(1))
            target = next((s for s in self.repositories if s.installation_id == iid), None)
        elif path.rstrip("/") == "/graphql":
            target = self._graphql_target(request, body)
        return await (target or self.repositories[0])._endpoint(request)

    def _other_installation(self, request: Request, target: GitHubStandIn) -> bool:
        """A live token of this App minted for another installation than the repository's."""
        installation = self._token_installation(request)
        return installation is not None and installation != target.installation_id

    def _token_installation(self, request: Request) -> int | None:
        """The installation a request's token was minted for (None: no token of this App)."""
        scheme, _, credential = request.headers.get("authorization", "").partition(" ")
        with ISSUED_LOCK:
            grant = ISSUED_TOKENS.get(credential.strip())
        if scheme.lower() not in ("token", "bearer") or grant is None or grant[0] != self.app_id:
            return None
        return grant[1]

    def _graphql_target(self, request: Request, body: bytes) -> GitHubStandIn | None:
        """The repository a query names; when it is unknown or not the token's to see, one of the
        token's installation, which answers "Could not resolve to a Repository" as GitHub does."""
        target = None
        try:
            data = json.loads(body)
            query, variables = data["query"], data.get("variables") or {}
            m = GQL_REPO.search(query)
            args = {}
            for k, v in GQL_ARG.findall(m.group(1) if m else ""):
                args[k] = variables.get(v[1:]) if v.startswith("$") else json.loads(v)
            target = self._by_name.get((str(args["owner"]).lower(), str(args["name"]).lower()))
        except (ValueError, KeyError, TypeError, AttributeError):
            pass  # a malformed query: any repository answers it as github.com would
        installation = self._token_installation(request)
        if target is not None and installation in (None, target.installation_id):
            return target
        return next((s for s in self.repositories if s.installation_id == installation), None)
