"""`docs-sync register`: the App registered from its manifest, as Probot does it.

A page on 127.0.0.1 posts the manifest (app.yml, its `redirect_url` pointed back at the page) to
GitHub's "new App from a manifest" form; after *Create GitHub App* GitHub sends the browser back
with `?code=` (and the `state` the page sent, checked), the code is exchanged within its hour
(POST /app-manifests/{code}/conversions) and the App's id, key and webhook secret are written to
a `.env` file readable by its owner only. Nothing secret is printed.
"""

from __future__ import annotations

import html
import json
import os
import secrets
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx

ENV_KEYS = ("APP_ID", "PRIVATE_KEY", "WEBHOOK_SECRET")


class RegisterError(Exception):
    pass


def new_app_url(github_url: str, org: str | None, state: str) -> str:
    where = f"/organizations/{quote(org)}/settings/apps/new" if org else "/settings/apps/new"
    return f"{github_url.rstrip('/')}{where}?state={quote(state)}"


def _page(action: str, manifest: dict[str, Any]) -> bytes:
    value = html.escape(json.dumps(manifest), quote=True)
    return (
        "<!doctype html><meta charset=utf-8><title>Register docs-sync</title>"
        f'<form id=f method=post action="{html.escape(action, quote=True)}">'
        f'<input type=hidden name=manifest value="{value}">'
        "<button>Register the App on GitHub</button></form>"
        "<script>document.getElementById('f').submit()</script>"
    ).encode()


def _env_lines(app: dict[str, Any]) -> str:
    pem = str(app["pem"]).strip().replace("\n", "\\n")  # one line; the App reads the escapes as the PEM
    return f'APP_ID={int(app["id"])}\nPRIVATE_KEY="{pem}"\nWEBHOOK_SECRET={app["webhook_secret"]}\n'


def write_env(path: Path, app: dict[str, Any]) -> None:
    """Append the App's settings to `path` (created 0600), never over settings it already has."""
    existing = path.read_text() if path.exists() else ""
    taken = [k for k in ENV_KEYS if any(line.startswith(f"{k}=") for line in existing.splitlines())]
    if taken:
        raise RegisterError(f"{path} already sets {', '.join(taken)}; move it away to register another App")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "a") as f:
        f.write(("\n" if existing and not existing.endswith("\n") else "") + _env_lines(app))


def register(
    manifest: dict[str, Any],
    env_file: Path,
    *,
    org: str | None = None,
    port: int = 0,
    github_url: str = "https://github.com",
    api_url: str = "https://api.github.com",
    open_page: Callable[[str], object] | None = None,
    say: Callable[[str], None] = print,
    timeout: float = 3600.0,
) -> dict[str, Any]:
    """Serve the page, wait for GitHub's redirect, exchange the code, write `env_file`; returns
    the App as GitHub describes it (its key and secret removed)."""
    existing = env_file.read_text() if env_file.exists() else ""
    if any(line.startswith(f"{k}=") for k in ENV_KEYS for line in existing.splitlines()):
        raise RegisterError(f"{env_file} already sets the App's settings; move it away first")
    state = secrets.token_urlsafe(16)
    done = threading.Event()
    outcome: dict[str, Any] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # the code must not reach a log
            pass

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/":
                self._send(200, _page(new_app_url(github_url, org, state), dict(posted)))
            elif url.path == "/callback" and "code" in query:
                if not secrets.compare_digest(query.get("state", ""), state):
                    self._send(400, b"This redirect is not the one this page asked for.")
                    return
                try:
                    outcome["app"] = _convert(api_url, query["code"])
                    write_env(env_file, outcome["app"])
                    self._send(200, b"docs-sync is registered; you may close this page.")
                except (RegisterError, httpx.HTTPError, KeyError, ValueError) as e:
                    outcome["error"] = e
                    self._send(500, html.escape(f"docs-sync could not finish: {e}").encode())
                done.set()
            else:
                self._send(404, b"Not found")

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    page = f"http://127.0.0.1:{server.server_address[1]}/"
    posted = {**manifest, "redirect_url": page + "callback"}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        say(f"docs-sync: open {page} to register the App on GitHub (waiting for its redirect)")
        if open_page is not None:
            open_page(page)
        if not done.wait(timeout):
            raise RegisterError("GitHub did not send the browser back within the hour the code lasts")
    finally:
        server.shutdown()
        server.server_close()
    if "error" in outcome:
        raise RegisterError(str(outcome["error"]))
    app = {k: v for k, v in outcome["app"].items() if k not in ("pem", "webhook_secret", "client_secret")}
    say(
        f"docs-sync: registered {app.get('html_url') or app.get('slug')}; APP_ID, PRIVATE_KEY and "
        f"WEBHOOK_SECRET are in {env_file} (mode 0600)"
    )
    return app


def _convert(api_url: str, code: str) -> dict[str, Any]:
    """The code GitHub redirected with, exchanged for the App's id, key and webhook secret."""
    response = httpx.post(
        f"{api_url.rstrip('/')}/app-manifests/{quote(code, safe='')}/conversions",
        headers={"accept": "application/vnd.github+json", "x-github-api-version": "2022-11-28"},
        timeout=30,
    )
    if response.status_code != 201:
        raise RegisterError(
            f"GitHub answered {response.status_code} to the code's exchange (codes last an hour)"
        )
    app: dict[str, Any] = response.json()
    for key in ("id", "pem", "webhook_secret"):
        if not app.get(key):
            raise RegisterError(f"GitHub's answer has no {key}")
    return app
