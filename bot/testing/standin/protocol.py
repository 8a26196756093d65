"""What every area of the stand-in speaks: requests, answers, GitHub's errors, and `endpoint`,
the mark that registers a handler on the router (`dispatch.Dispatch`)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, TypeVar

from starlette.datastructures import Headers

JSON = dict[str, Any]  # an object as GitHub's JSON has it


def iso(value: str | datetime | None = None) -> str:
    if value is None:
        value = datetime.now(timezone.utc)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def b64(data: bytes) -> str:
    # GitHub wraps base64 content at 60 characters a line, newline-terminated
    encoded = base64.b64encode(data).decode()
    return "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:8000]


def utf8(data: bytes) -> str | None:
    # GraphQL's Blob.text is UTF-8 text: a file in another encoding (latin-1, say) has none,
    # and is not binary either.
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class HTTPError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        errors: list[Any] | None = None,
        headers: dict[str, str] | None = None,
        docs: str = "https://docs.github.com/rest",
    ):
        super().__init__(message)
        self.status = status
        self.body: dict[str, Any] = {"message": message, "documentation_url": docs, "status": str(status)}
        if errors is not None:
            self.body["errors"] = errors
        self.headers = headers or {}


def invalid(message: str) -> HTTPError:
    return HTTPError(422, f"Invalid request.\n\n{message}")


def unprocessable(*errors: str) -> HTTPError:
    return HTTPError(422, "Unprocessable Entity", list(errors))


def refused(message: str) -> HTTPError:
    """422 with GitHub's message alone, as the git data API gives it."""
    return HTTPError(422, message)


def too_long(supplied: int, allowed: int = 65535) -> HTTPError:
    return invalid(f"Only {allowed} characters are allowed; {supplied} were supplied.")


SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach "
    "out to GitHub Support for help, please include the request ID {rid}."
)
API_VERSIONS = ("2022-11-28", "2026-03-10")
TREE_LIMIT = 100_000  # entries of a recursive tree listing; GitHub sets "truncated" past them
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
# A collaborator's role -> the permission the collaborator API names for it.
PERMISSIONS = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}


@dataclass
class Req:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    headers: Headers
    body: bytes
    version: str
    rid: str

    def json(self) -> JSON:
        if not self.body:
            return {}
        try:
            data = json.loads(self.body)
        except ValueError:
            raise HTTPError(400, "Problems parsing JSON") from None
        if not isinstance(data, dict):
            raise HTTPError(400, "Body should be a JSON object")
        return data

    def accepts(self, media_types: tuple[str, ...]) -> bool:
        accept = self.headers.get("accept", "")
        return any(m in accept for m in media_types)


class Raw:
    """A non-JSON answer from a handler."""

    def __init__(self, status: int, body: bytes, media_type: str, headers: dict[str, str] | None = None):
        self.status, self.body, self.media_type, self.headers = status, body, media_type, headers or {}


# A handler's answer: (status, JSON payload), (status, payload, extra headers), or a raw body.
Answer = tuple[int, Any] | tuple[int, Any, dict[str, str]] | Raw
H = TypeVar("H", bound=Callable[..., Answer])

# The path of a repository's endpoints; its owner and name must be the stand-in's (404 elsewhere).
REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"


@dataclass(frozen=True)
class Endpoint:
    name: str  # the handler's, the same on every stand-in
    method: str
    pattern: str  # fullmatched against the path, a trailing slash allowed
    auth: str  # "token" (an installation token), "jwt" (the App's JWT) or "any"
    # What the endpoint needs of an installation token, as GitHub's "Permissions required for
    # GitHub Apps" lists it; any one of the alternatives is enough, and write includes read.
    needs: tuple[tuple[str, str], ...]


def endpoint(
    method: str, pattern: str, auth: str = "token", needs: tuple[tuple[str, str], ...] = ()
) -> Callable[[H], H]:
    """Serve the decorated handler for `method` on paths that fullmatch `pattern`."""

    def mark(handler: H) -> H:
        setattr(handler, "endpoint", Endpoint(handler.__name__, method, pattern, auth, needs))  # noqa: B010
        return handler

    return mark
