"""The router: every request is answered here, through GitHub's order of checks (API version, an
injected failure, the route, authentication, the token's permissions, the content-creation limit),
by the handler an area marked with `endpoint` for its method and path."""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
import time
import traceback
from collections.abc import Callable
from email.utils import formatdate
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import Response

from bot.testing.standin.auth import AppAuth
from bot.testing.standin.protocol import (
    API_VERSIONS,
    SECONDARY_MESSAGE,
    Answer,
    Endpoint,
    HTTPError,
    Raw,
    Req,
)

# A route: its method, its compiled pattern, the endpoint, the bound handler.
Route = tuple[str, re.Pattern[str], Endpoint, Callable[[Req], Answer]]


def json_response(status: int, payload: Any) -> Response:
    if status == 204:
        return Response(b"", 204)
    body = json.dumps(payload, separators=(",", ":")).encode()
    return Response(body, status, media_type="application/json; charset=utf-8")


class Dispatch(AppAuth):
    _routes: list[Route]

    def _build_routes(self) -> list[Route]:
        """Every handler an area marked with `endpoint`. No path fullmatches two patterns of one
        method, so the order they are tried in does not matter."""
        routes: list[Route] = []
        seen: set[str] = set()
        for cls in type(self).__mro__:
            for name, member in vars(cls).items():
                marked = getattr(member, "endpoint", None)
                if isinstance(marked, Endpoint) and name not in seen:
                    seen.add(name)
                    pattern = re.compile(marked.pattern + r"/?")
                    routes.append((marked.method, pattern, marked, getattr(self, name)))
        return routes

    async def _endpoint(self, request: Request) -> Response:
        body = await request.body()
        # Handlers run on the server's event loop one at a time; the lock keeps test-side
        # controls (open_pull, set_permission) from interleaving with them.
        with self._lock:
            try:
                response = self._handle(request, body)
            except Exception:
                # a fault of the stand-in itself: answer 500 and keep the traceback for the test
                self.server_errors.append(traceback.format_exc())
                response = json_response(500, {"message": "Stand-in failure", "documentation_url": ""})
            self.requests.append((request.method, request.url.path, response.status_code))
        return response

    def _handle(self, request: Request, body: bytes) -> Response:
        rid = secrets.token_hex(8).upper()
        headers = {"x-github-request-id": rid}
        version = request.headers.get("x-github-api-version", API_VERSIONS[0])
        resource = "graphql" if request.url.path == "/graphql" else "core"
        try:
            if version not in API_VERSIONS:
                raise HTTPError(400, f"API version {version} is not supported.")
            headers["x-github-api-version-selected"] = version
            injected = self._injected(request.method, request.url.path, rid)
            if injected is not None:
                return self._finish(injected, headers, resource, request)
            req, marked, handler = self._route(request, body, version, rid)
            self._authenticate(request, marked.auth)
            if marked.auth == "token":
                self._authorize(marked.needs)
            if request.method != "GET" and req.path.startswith("/repos/"):
                self._count_write(rid)
            result = handler(req)
            lost = self._injected(request.method, request.url.path, rid, after=True)
            if lost is not None:  # the call took effect; its answer is replaced by the failure
                return self._finish(lost, headers, resource, request)
        except HTTPError as err:
            headers.update(err.headers)
            return self._finish(json_response(err.status, err.body), headers, resource, request)
        if isinstance(result, Raw):
            headers.update(result.headers)
            return self._finish(
                Response(result.body, result.status, media_type=result.media_type), headers, resource, request
            )
        status, payload, extra = result if len(result) == 3 else (*result, {})
        headers.update(extra)
        return self._finish(json_response(status, payload), headers, resource, request)

    def _finish(
        self, response: Response, headers: dict[str, str], resource: str, request: Request
    ) -> Response:
        self._used += 1
        defaults = {
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": str(max(0, 5000 - self._used)),
            "x-ratelimit-reset": str(int(self.now()) + 3600),
            "x-ratelimit-used": str(self._used),
            "x-ratelimit-resource": resource,
        }
        for k, v in {**defaults, **headers}.items():
            if k not in response.headers:  # an injected failure keeps the headers it was given
                response.headers[k] = v
        response.headers["date"] = formatdate(self.now(), usegmt=True)
        if request.method == "GET" and response.status_code == 200:
            etag = 'W/"' + hashlib.sha256(response.body).hexdigest()[:40] + '"'
            response.headers["etag"] = etag
            response.headers["cache-control"] = "private, max-age=60, s-maxage=60"
            response.headers["vary"] = "Accept, Authorization, Cookie, X-GitHub-OTP"
            sent = [t.strip() for t in request.headers.get("if-none-match", "").split(",")]
            if etag in sent:
                not_modified = Response(b"", 304)
                for k in ("etag", "cache-control", "vary", "x-github-request-id", "date"):
                    not_modified.headers[k] = response.headers[k]
                return not_modified
        return response

    def _injected(self, method: str, path: str, rid: str, after: bool = False) -> Response | None:
        for inj in self._injections:
            if inj.after != after:
                continue
            if inj.times > 0 and inj.method in ("*", method) and inj.pattern.search(path):
                if inj.skip > 0:
                    inj.skip -= 1
                    continue
                inj.times -= 1
                if inj.times == 0:
                    self._injections.remove(inj)
                lower = {k.lower() for k in inj.headers}
                if inj.body is not None:
                    payload = dict(inj.body)
                elif inj.status in (403, 429) and "retry-after" in lower:
                    payload = {"message": SECONDARY_MESSAGE.format(rid=rid)}
                elif inj.status in (403, 429) and inj.headers.get("x-ratelimit-remaining") == "0":
                    payload = {
                        "message": f"API rate limit exceeded for installation ID {self.installation_id}."
                    }
                elif inj.status >= 500:
                    payload = {"message": "Server Error"}
                else:
                    payload = {"message": "Forbidden" if inj.status == 403 else "Error"}
                payload.setdefault("documentation_url", "https://docs.github.com/rest")
                response = json_response(inj.status, payload)
                for k, v in inj.headers.items():
                    response.headers[k] = v
                return response
        return None

    def _route(
        self, request: Request, body: bytes, version: str, rid: str
    ) -> tuple[Req, Endpoint, Callable[[Req], Answer]]:
        path = request.url.path
        for method, pattern, marked, handler in self._routes:
            m = pattern.fullmatch(path)
            if m and method == request.method:
                params = {k: v for k, v in m.groupdict().items() if v is not None}
                public = self.public.get(f"{params.get('owner')}/{params.get('repo')}".lower())
                if public is not None and method == "GET":
                    handler = getattr(public, marked.name)  # the same endpoint, on that repository
                elif "owner" in params and (
                    params["owner"].lower() != self.owner.lower()
                    or params["repo"].lower() != self.name.lower()
                ):
                    # an installation token only reaches the installation's repositories
                    self._authenticate(request, marked.auth)
                    raise HTTPError(404, "Not Found")
                query = dict(parse_qsl(request.url.query, keep_blank_values=True))
                return (
                    Req(request.method, path, params, query, request.headers, body, version, rid),
                    marked,
                    handler,
                )
        raise HTTPError(404, "Not Found")

    def _count_write(self, rid: str) -> None:
        now = time.monotonic()
        while self._writes and self._writes[0] <= now - 3600:
            self._writes.popleft()
        last_minute = [t for t in self._writes if t > now - 60]
        wait = None
        if len(last_minute) >= self.content_limit_per_minute:
            wait = last_minute[len(last_minute) - self.content_limit_per_minute] + 60 - now
        elif len(self._writes) >= self.content_limit_per_hour:
            wait = self._writes[len(self._writes) - self.content_limit_per_hour] + 3600 - now
        if wait is not None:
            raise HTTPError(
                403,
                SECONDARY_MESSAGE.format(rid=rid),
                headers={"retry-after": str(max(1, math.ceil(wait)))},
                docs="https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
            )
        self._writes.append(now)
