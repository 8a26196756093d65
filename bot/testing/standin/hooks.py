"""The App's webhook as GitHub keeps it: the log of deliveries and their redelivery, for the stand-in.

GitHub records every attempt to deliver a webhook to the App's URL and lets the App read that
log and ask for a delivery again ("Handling failed webhook deliveries"):

    GET  /app/hook/deliveries                        App JWT; newest first; `per_page` (default
                                                     30, at most 100) and `cursor`, the next page
                                                     named by the `Link` header's rel="next"
    POST /app/hook/deliveries/{id}/attempts          App JWT; 202 `{}`, and the delivery is sent
                                                     again with the same `guid`, `redelivery: true`;
                                                     404 for an unknown id, 422 past 3 days

Each entry has GitHub's documented fields: id, guid, delivered_at, redelivery, duration, status,
status_code, event, action, installation_id, repository_id, throttled_at. An attempt that could
not connect is recorded with status_code 0, as GitHub shows "failed to connect".

Test side (`HookLog`, mixed into GitHubStandIn): set `hook_url` and `hook_secret`, then
`send_hook(event, payload)` signs and POSTs the delivery as GitHub would and records the
attempt; `hook_deliveries` is the log; `redelivered` the ids the App asked to redeliver.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from datetime import datetime, timezone
from urllib.parse import urlencode

import httpx

from bot.app.intake.web import sign
from bot.testing.standin.protocol import JSON, Answer, Req, endpoint
from bot.testing.standin.state import State

REDELIVER_WITHIN_S = 3 * 86400  # GitHub redelivers only deliveries of the past 3 days


class HookLog(State):
    """The webhook's delivery log of one App."""

    def _init_hooks(self) -> None:
        self.hook_url: str | None = None
        self.hook_secret = ""
        self.hook_deliveries: list[JSON] = []  # oldest first; the API lists them newest first
        self.redelivered: list[int] = []
        self._hook_payloads: dict[str, tuple[str, bytes]] = {}  # guid -> (event, body)
        self._hook_ids = iter(range(90_000_001, 2**31))
        self._hook_threads: list[threading.Thread] = []

    def _reset_hooks(self) -> None:
        self.wait_for_hooks()
        self.hook_deliveries.clear()
        self.redelivered.clear()
        self._hook_payloads.clear()

    # -- test side ----------------------------------------------------------------------------

    def send_hook(
        self, event: str, payload: JSON, *, guid: str | None = None, at: float | None = None
    ) -> JSON:
        """Deliver `payload` to `hook_url` as GitHub does and record the attempt (its entry).
        `at` dates the attempt (epoch seconds; default now). Without a `hook_url` the attempt is
        recorded as one that could not connect."""
        guid = guid or str(uuid.uuid4())
        body = json.dumps(payload).encode()
        with self._lock:
            self._hook_payloads[guid] = (event, body)
        return self._attempt(guid, redelivery=False, at=at)

    def wait_for_hooks(self, timeout_s: float = 10.0) -> None:
        """Wait for the redeliveries the App asked for to have been sent."""
        for thread in list(self._hook_threads):
            thread.join(timeout_s)
        self._hook_threads.clear()

    def _attempt(self, guid: str, *, redelivery: bool, at: float | None = None) -> JSON:
        event, body = self._hook_payloads[guid]
        payload = json.loads(body)
        signature = sign(self.hook_secret, body)
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/standin",
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": guid,
            "X-Hub-Signature-256": signature,
        }
        started = time.monotonic()
        status_code, status = 0, "failed to connect to host"
        if self.hook_url:
            try:
                answer = httpx.post(self.hook_url, content=body, headers=headers, timeout=10)
                status_code = answer.status_code
                status = "OK" if 200 <= status_code < 300 else f"Invalid HTTP Response: {status_code}"
            except httpx.TimeoutException:
                status = "timed out"
            except httpx.HTTPError:
                pass
        when = datetime.fromtimestamp(time.time() if at is None else at, timezone.utc)
        entry = {
            "id": next(self._hook_ids),
            "guid": guid,
            "delivered_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "redelivery": redelivery,
            "duration": round(time.monotonic() - started, 3),
            "status": status,
            "status_code": status_code,
            "event": event,
            "action": payload.get("action") if isinstance(payload.get("action"), str) else None,
            "installation_id": (payload.get("installation") or {}).get("id"),
            "repository_id": (payload.get("repository") or {}).get("id"),
            "throttled_at": None,
        }
        with self._lock:
            self.hook_deliveries.append(entry)
        return entry

    # -- the API ------------------------------------------------------------------------------

    @endpoint("GET", r"/app/hook/deliveries", auth="jwt")
    def _h_hook_deliveries(self, req: Req) -> Answer:
        try:
            per_page = min(100, max(1, int(req.query.get("per_page", 30))))
        except ValueError:
            per_page = 30
        newest_first = sorted(self.hook_deliveries, key=lambda d: (d["delivered_at"], d["id"]), reverse=True)
        cursor = req.query.get("cursor")
        if cursor:
            at = next((i for i, d in enumerate(newest_first) if str(d["id"]) == cursor), len(newest_first))
            newest_first = newest_first[at:]
        page, rest = newest_first[:per_page], newest_first[per_page:]
        headers = {}
        if rest:
            query = urlencode({"per_page": per_page, "cursor": rest[0]["id"]})
            headers["link"] = f'<{self.api}/app/hook/deliveries?{query}>; rel="next"'
        return 200, page, headers

    @endpoint("POST", r"/app/hook/deliveries/(?P<id>\d+)/attempts", auth="jwt")
    def _h_redeliver(self, req: Req) -> Answer:
        docs = "https://docs.github.com/rest/apps/webhooks#redeliver-a-delivery-for-an-app-webhook"
        entry = next((d for d in self.hook_deliveries if str(d["id"]) == req.params["id"]), None)
        if entry is None:
            return 404, {"message": "Not Found", "documentation_url": docs}
        when = datetime.strptime(entry["delivered_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        if time.time() - when.timestamp() > REDELIVER_WITHIN_S:
            return 422, {"message": "Validation Failed", "documentation_url": docs}
        self.redelivered.append(int(entry["id"]))
        # GitHub answers at once and delivers afterwards.
        thread = threading.Thread(target=self._attempt, args=(entry["guid"],), kwargs={"redelivery": True})
        self._hook_threads.append(thread)
        thread.start()
        return 202, {}
