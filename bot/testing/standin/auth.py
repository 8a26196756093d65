"""The App and its installation: who a request is (App JWT, installation token), what its token may
do, access tokens, the manifest flow, installations, the rate limit, collaborator permissions."""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timedelta, timezone
from typing import Any

import jwt
from starlette.requests import Request

from bot.testing.standin.keys import ISSUED_LOCK, ISSUED_TOKENS
from bot.testing.standin.protocol import (
    JSON,
    PERMISSIONS,
    REPO,
    Answer,
    HTTPError,
    Req,
    endpoint,
    iso,
)
from bot.testing.standin.shapes import Shapes


class AppAuth(Shapes):
    def _authenticate(self, request: Request, auth: str) -> None:
        header = request.headers.get("authorization", "")
        scheme, _, credential = header.partition(" ")
        scheme = scheme.lower()
        if auth == "any":
            return
        if auth == "jwt":
            if scheme != "bearer" or not credential:
                raise HTTPError(
                    401, "A JSON web token could not be decoded", docs="https://docs.github.com/rest"
                )
            self._verify_jwt(credential.strip())
            return
        if scheme not in ("token", "bearer") or not credential:
            raise HTTPError(401, "Requires authentication")
        with ISSUED_LOCK:
            grant = ISSUED_TOKENS.get(credential.strip())
        token = credential.strip()
        if (
            grant is None
            or grant[:2] != (self.app_id, self.installation_id)
            or grant[2] < self.now()
            or token in self._revoked
        ):
            raise HTTPError(401, "Bad credentials")

    def _authorize(self, needs: tuple[tuple[str, str], ...]) -> None:
        """403 as github.com answers a call the installation's permissions do not cover."""
        rank = {"read": 1, "write": 2}
        granted = self.app_permissions
        if needs and not any(rank.get(granted.get(p, ""), 0) >= rank[level] for p, level in needs):
            raise HTTPError(403, "Resource not accessible by integration")

    def _verify_jwt(self, token: str) -> JSON:
        try:
            claims = jwt.decode(
                token,
                self._public_key,
                algorithms=["RS256"],
                options={"verify_exp": False, "verify_iat": False, "verify_iss": False, "verify_aud": False},
            )
        except jwt.InvalidTokenError:
            raise HTTPError(401, "A JSON web token could not be decoded") from None
        now = self.now()
        exp, iat, iss = claims.get("exp"), claims.get("iat"), claims.get("iss")
        if not isinstance(exp, int | float) or exp <= now:
            raise HTTPError(
                401,
                "'Expiration time' claim ('exp') must be a numeric value representing the future time at "
                "which the assertion expires",
            )
        if exp > now + 600 + 30:
            raise HTTPError(401, "'Expiration time' claim ('exp') is too far in the future")
        if not isinstance(iat, int | float) or iat > now + 60:
            raise HTTPError(
                401,
                "'Issued at' claim ('iat') must be an Integer representing the time that the "
                "assertion was issued",
            )
        if str(iss) != str(self.app_id):
            raise HTTPError(401, "'Issuer' claim ('iss') must be an Integer")
        return claims

    def _check_installation(self, iid: str) -> None:
        if int(iid) != self.installation_id:
            raise HTTPError(404, "Not Found")

    @endpoint("POST", r"/app/installations/(?P<iid>\d+)/access_tokens", auth="jwt")
    def _h_access_token(self, req: Req) -> Answer:
        self._check_installation(req.params["iid"])
        token = "ghs_" + secrets.token_urlsafe(27).replace("-", "a").replace("_", "b")[:36]
        expires = datetime.fromtimestamp(self.now(), timezone.utc) + timedelta(hours=1)
        with ISSUED_LOCK:
            ISSUED_TOKENS[token] = (self.app_id, self.installation_id, expires.timestamp())
        permissions = req.json().get("permissions") or dict(self.app_permissions)
        return 201, {
            "token": token,
            "expires_at": iso(expires),
            "permissions": permissions,
            "repository_selection": "selected",
        }

    def manifest_code(self, manifest: JSON) -> str:
        """What github.com's "Create GitHub App" button does with a posted manifest: registers the
        App and hands the browser a code, good once and for an hour, to `redirect_url?code=`."""
        code = secrets.token_hex(10)
        with self._lock:
            self._manifest_codes[code] = (dict(manifest), self.now() + 3600)
        return code

    @endpoint("POST", r"/app-manifests/(?P<code>[^/]+)/conversions", auth="any")
    def _h_manifest_conversion(self, req: Req) -> Answer:
        """POST /app-manifests/{code}/conversions: no authentication, the code is the secret."""
        with self._lock:
            entry = self._manifest_codes.pop(req.params["code"], None)
        if entry is None or entry[1] < self.now():
            raise HTTPError(404, "Not Found")
        manifest = entry[0]
        slug = re.sub(r"[^a-z0-9]+", "-", str(manifest.get("name", "app")).lower()).strip("-")
        return 201, {
            "id": self.app_id,
            "slug": slug,
            "name": manifest.get("name"),
            "html_url": f"{self.html}/apps/{slug}",
            "owner": {"login": self.owner, "type": "Organization"},
            "permissions": manifest.get("default_permissions", {}),
            "events": manifest.get("default_events", []),
            "client_id": "Iv1." + secrets.token_hex(8),
            "client_secret": secrets.token_hex(20),
            "webhook_secret": secrets.token_hex(20),
            "pem": self.private_key_pem,
        }

    @endpoint("GET", r"/app", auth="jwt")
    def _h_app(self, req: Req) -> Answer:
        return 200, self._integration()

    @endpoint("GET", r"/app/installations/(?P<iid>\d+)", auth="jwt")
    def _h_installation(self, req: Req) -> Answer:
        self._check_installation(req.params["iid"])
        return 200, self._installation_json()

    @endpoint("GET", r"/app/installations", auth="jwt")
    def _h_installations(self, req: Req) -> Answer:
        return self._paginate(req, [self._installation_json()])

    @endpoint("GET", r"/installation/repositories")
    def _h_installation_repositories(self, req: Req) -> Answer:
        status, repos, headers = self._paginate(req, [self._repo_json(self.owner, False, req.version)])
        return status, {"total_count": 1, "repository_selection": "selected", "repositories": repos}, headers

    @endpoint("GET", REPO + r"/installation", auth="jwt")
    def _h_repo_installation(self, req: Req) -> Answer:
        return 200, self._installation_json()

    @endpoint("GET", r"/rate_limit", auth="any")
    def _h_rate_limit(self, req: Req) -> Answer:
        reset = int(self.now()) + 3600
        core = {"limit": 5000, "used": self._used, "remaining": max(0, 5000 - self._used), "reset": reset}
        body: dict[str, Any] = {
            "resources": {
                "core": core,
                "search": {"limit": 30, "used": 0, "remaining": 30, "reset": reset},
                "graphql": {"limit": 5000, "used": 0, "remaining": 5000, "reset": reset},
            }
        }
        if req.version == "2022-11-28":
            body["rate"] = dict(core)
        return 200, body

    @endpoint("GET", REPO + r"/collaborators/(?P<user>[^/]+)/permission", needs=(("metadata", "read"),))
    def _h_permission(self, req: Req) -> Answer:
        login = req.params["user"]
        role = self._permissions.get(login)
        if role is None:
            raise HTTPError(404, "Not Found")
        permission = PERMISSIONS.get(role, "none")
        levels = ("read", "triage", "write", "maintain", "admin")
        rank = levels.index(role) if role in levels else -1
        user = self._user(login)
        user["permissions"] = {
            "pull": rank >= 0,
            "triage": rank >= 1,
            "push": rank >= 2,
            "maintain": rank >= 3,
            "admin": rank >= 4,
        }
        user["role_name"] = role
        return 200, {"permission": permission, "role_name": role, "user": user}
