"""The HTTP side of the App: the webhook endpoint, health and metrics (bot.app.main serves them).

The webhook endpoint answers within milliseconds and never calls GitHub: it checks the size,
verifies the HMAC signature over the raw bytes before parsing anything, routes the event
(events.py), stores the jobs (bot.app.queue) and wakes the worker. Answers:

    202  jobs queued                      200  ping, acknowledged, ignored, or a redelivery
    400  no delivery id / event header, an id over 200 characters, or a body that is not a
         JSON object (nested too deeply to parse included)
    401  signature missing or wrong       413  body over 25 MB (GitHub never sends those)
    408  the body took over 10 s to arrive, or was arriving too slowly to be in by then
    503  busy: 256 bodies, or 100 MB of them, were being read (GitHub shows the delivery as
         failed, and it can be redelivered)

A body is read before anyone knows who sent it, so reading is bounded: the declared size is
checked first, the bytes go into one buffer of that size, at most 256 bodies are read at once
and at most 100 MB of them (their declared sizes; an undeclared one counts 25 MB), and each
must arrive in 10 s; one still short after a second, at a pace that cannot make the 10 s (a
byte a second of a declared megabyte), is cut then. Slow clients hold a slot a second or two
each, and GitHub's deliveries (tens of kilobytes, sent at once) find a free one among 256.

Deliveries that arrive together are stored together: one transaction, one flush to disk, for
all that came while the previous one was being written (group commit), so the answer time
stays flat when GitHub sends many at once.

A delivery that routes to several jobs (a check suite naming two pull requests) stores them
under "<delivery id>", "<delivery id>/1", ... so a redelivery is still recognised. A command is
stored under its comment ("comment:<id>@<updated_at>"), so the same comment delivered again
under another delivery id is a duplicate too.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import hmac
import http.server
import json
import logging
import sys
import threading
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Generic, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.app.config import ConfigError, Settings
from bot.app.intake.events import JobSpec, route
from bot.app.logs import delivery_context
from bot.app.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from bot.app.metrics import Metrics, QueueFigures
from bot.app.queue.protocol import DatabaseGone, JobQueue, NewJob
from bot.app.queue.worker import Worker

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 25 * 1024 * 1024
MAX_DELIVERY_ID = 200  # GitHub's are UUIDs (36); a longer one is refused, never cut
MAX_BODY_READS = 256  # bodies read at once, before their signature can be checked
MAX_READING_BYTES = 100 * 1024 * 1024  # their declared sizes together (an undeclared one: 25 MB)
READ_WAIT_S = 5.0  # how long a request waits for a reading slot before "busy"
BODY_TIMEOUT_S = 10.0  # GitHub gives up on an answer after 10 s; so does the body read
BODY_GRACE_S = 1.0  # past this, a body arriving too slowly to be in by the deadline is cut
SIGNATURE_HEADER = "X-Hub-Signature-256"

T = TypeVar("T")


def sign(secret: str, body: bytes | bytearray) -> str:
    """The X-Hub-Signature-256 value GitHub sends for `body`."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, body: bytes | bytearray, header: str | None) -> bool:
    """True when `header` is GitHub's HMAC-SHA256 signature of the raw `body` under `secret`."""
    if not header or not header.startswith("sha256="):
        return False
    # compare_digest on equal-length ASCII bytes: the comparison time says nothing about the key.
    return hmac.compare_digest(sign(secret, body).encode("ascii"), header.strip().encode("ascii", "replace"))


def build_app(
    settings: Settings,
    queue: JobQueue,
    metrics: Metrics,
    *,
    worker: Worker | None = None,
    max_body_reads: int = MAX_BODY_READS,
    max_reading_bytes: int = MAX_READING_BYTES,
    read_wait_s: float = READ_WAIT_S,
    body_timeout_s: float = BODY_TIMEOUT_S,
    body_grace_s: float = BODY_GRACE_S,
) -> Starlette:
    """The ASGI app. With `worker`, the app's lifespan starts it and stops it on shutdown."""
    slots = PerLoop(lambda: asyncio.Semaphore(max_body_reads))
    reading = PerLoop(lambda: [0])  # bytes the bodies being read declared, together
    commits = PerLoop(lambda: GroupCommit(queue))

    async def webhook(request: Request) -> Response:
        delivery = (request.headers.get("x-github-delivery") or "").strip()
        with delivery_context(delivery[:MAX_DELIVERY_ID] or "-"):
            return await _webhook(request, delivery)

    async def _webhook(request: Request, delivery: str) -> Response:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return _reject(413, "size", "payload too large: GitHub never delivers more than 25 MB")
        size = int(declared) if declared.isdigit() else MAX_BODY_BYTES
        held = reading()
        if held[0] + size > max_reading_bytes:  # what the buffers would take: refused, never waited for
            return _reject(503, "busy", f"busy: {held[0] >> 20} MB of deliveries are being read; try again")
        slot = slots()
        try:
            # A free slot is taken at once; only a wait needs the timeout (and its task).
            await (asyncio.wait_for(slot.acquire(), read_wait_s) if slot.locked() else slot.acquire())
        except asyncio.TimeoutError:
            return _reject(503, "busy", f"busy: {max_body_reads} deliveries are being read; try again")
        held[0] += size
        try:
            async with _deadline(body_timeout_s):
                body = await _read_body(request, body_timeout_s, body_grace_s)
        except asyncio.TimeoutError:
            return _reject(408, "timeout", f"the body did not arrive within {body_timeout_s:g} s")
        finally:
            held[0] -= size
            slot.release()
        if body is None:
            return _reject(413, "size", "payload too large: GitHub never delivers more than 25 MB")
        signature = request.headers.get(SIGNATURE_HEADER)
        if not signature:
            return _reject(401, "signature", f"missing {SIGNATURE_HEADER} header")
        if not verify_signature(settings.webhook_secret, body, signature):
            return _reject(401, "signature", f"{SIGNATURE_HEADER} does not match the body and secret")
        event = (request.headers.get("x-github-event") or "").strip()
        if not delivery or not event:
            return _reject(400, "header", "missing X-GitHub-Delivery or X-GitHub-Event header")
        if len(delivery) > MAX_DELIVERY_ID:
            return _reject(400, "header", f"X-GitHub-Delivery is longer than {MAX_DELIVERY_ID} characters")
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return _reject(400, "json", "body is not JSON")
        except RecursionError:  # signed, yet nested deeper than the parser goes
            return _reject(400, "json", "body is not JSON: nested too deeply")
        if not isinstance(payload, dict):
            return _reject(400, "json", "body is not a JSON object")
        metrics.delivery(event)
        action = payload.get("action") if isinstance(payload.get("action"), str) else None
        label = f"{event}.{action}" if action else event
        specs = route(event, payload)
        if event == "ping":
            log.info("ping: %s", payload.get("zen") if isinstance(payload.get("zen"), str) else "")
            return JSONResponse({"ok": True, "pong": True})
        if specs is None:
            log.info("%s ignored", label)
            return JSONResponse({"ok": True, "ignored": True})
        if not specs:
            log.info("%s acknowledged", label)
            return JSONResponse({"ok": True})
        queued = sum(await commits().store(_jobs(delivery, specs)))
        if worker is not None and queued:
            worker.wake()
        log.info("%s: %d job(s) queued, %d already seen", label, queued, len(specs) - queued)
        if not queued:
            return JSONResponse({"ok": True, "duplicate": True})
        return JSONResponse({"ok": True, "queued": queued}, status_code=202)

    async def healthz(request: Request) -> Response:
        # Healthy means deliveries can be stored: the database answers a write and a read.
        try:
            await run_in_threadpool(queue.ping)
            counts = await run_in_threadpool(queue.counts)
        except DatabaseGone as exc:  # what is stored now is lost at the restart: say so
            log.error("health check: %s", exc)
            return JSONResponse({"ok": False, "error": str(exc)}, status_code=503)
        except Exception as exc:
            log.error("health check: the database cannot be written and read: %s", type(exc).__name__)
            return JSONResponse(
                {"ok": False, "error": "the database cannot be written and read"}, status_code=503
            )
        return JSONResponse({"ok": True, "queue": counts})

    async def metrics_endpoint(request: Request) -> Response:
        def read() -> QueueFigures:
            return QueueFigures(queue.counts(), queue.oldest_queued_s(), queue.lag())

        return Response(metrics.render(await run_in_threadpool(read)), media_type=METRICS_CONTENT_TYPE)

    def _reject(status: int, reason: str, message: str) -> Response:
        metrics.rejected(reason)
        log.warning("delivery refused (%d): %s", status, message)
        return JSONResponse({"ok": False, "error": message}, status_code=status)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # What start-up made (modules, settings, clients) lives as long as the process: out of
        # the collector's sight, a full collection does not pause every answer to walk it.
        gc.freeze()
        # The first run_in_threadpool imports anyio's asyncio backend and starts its first worker
        # thread: 70-95 ms that the first delivery's answer would otherwise wait (bench_ack.py).
        with contextlib.suppress(Exception):  # a database fault is /healthz's to report
            await run_in_threadpool(queue.counts)
        if worker is not None:
            worker.start()
        try:
            yield
        finally:
            if worker is not None:
                # A SIGTERM: finish the running jobs, or put them back for another process.
                await run_in_threadpool(lambda: worker.stop(SHUTDOWN_GRACE_S, release=True))

    app = Starlette(
        routes=[
            Route(settings.webhook_path, webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics_endpoint, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
    app.state.settings, app.state.queue, app.state.metrics = settings, queue, metrics
    return app


async def _read_body(request: Request, timeout_s: float, grace_s: float) -> bytearray | None:
    """The raw body in one buffer, or None once it passes MAX_BODY_BYTES (declared or sent).

    A declared size is the buffer's size, so the body is held once, never as chunks and a copy.
    Past `grace_s`, a body whose bytes so far, at their pace, cannot all be in within `timeout_s`
    is cut at once (TimeoutError): a client sending a byte a second frees its slot in a second
    or two, not at the deadline.
    """
    declared = request.headers.get("content-length", "")
    body = bytearray()
    expected = int(declared) if declared.isdigit() else 0
    if expected:
        body = bytearray(expected)
    size = 0
    loop = asyncio.get_running_loop()
    started = loop.time()
    async for chunk in request.stream():
        if size + len(chunk) > MAX_BODY_BYTES:
            return None
        body[size : size + len(chunk)] = chunk
        size += len(chunk)
        elapsed = loop.time() - started
        if elapsed > grace_s and size < expected and elapsed * expected / size > timeout_s:
            raise asyncio.TimeoutError
    del body[size:]
    return body


@contextlib.asynccontextmanager
async def _deadline(seconds: float) -> AsyncIterator[None]:
    """Cancel the block after `seconds`, raising TimeoutError (asyncio.timeout, before 3.11)."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            yield
        return
    task = asyncio.current_task()
    assert task is not None
    fired = False

    def cancel() -> None:
        nonlocal fired
        fired = True
        task.cancel()

    handle = asyncio.get_running_loop().call_later(seconds, cancel)
    try:
        yield
    except asyncio.CancelledError:
        if fired:
            raise asyncio.TimeoutError from None
        raise
    finally:
        handle.cancel()


class PerLoop(Generic[T]):
    """One `make()` per event loop: asyncio's semaphores and futures belong to the loop they
    were made on (the server has one; tests may run several)."""

    def __init__(self, make: Callable[[], T]):
        self._make = make
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = weakref.WeakKeyDictionary()

    def __call__(self) -> T:
        loop = asyncio.get_running_loop()
        value = self._by_loop.get(loop)
        if value is None:
            value = self._by_loop[loop] = self._make()
        return value


class GroupCommit:
    """Stores the jobs of deliveries that arrive together in one queue transaction.

    The first delivery starts a write; those that come while it runs wait and go together in
    the next one. Alone, a delivery is written at once, as before.
    """

    def __init__(self, queue: JobQueue):
        self.queue = queue
        self._waiting: list[tuple[list[NewJob], asyncio.Future[list[bool]]]] = []
        self._writing = False
        self._task: asyncio.Future[None] | None = None

    async def store(self, jobs: list[NewJob]) -> list[bool]:
        """Whether each job was new (False: a redelivery, nothing stored)."""
        future: asyncio.Future[list[bool]] = asyncio.get_running_loop().create_future()
        self._waiting.append((jobs, future))
        if not self._writing:
            self._writing = True
            self._task = asyncio.ensure_future(self._write())  # kept: a task nobody holds may be collected
        return await future

    async def _write(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                try:
                    stored = await run_in_threadpool(
                        self.queue.enqueue_many, [j for jobs, _ in batch for j in jobs]
                    )
                except Exception as exc:  # each request answers 500; GitHub can redeliver
                    for _, future in batch:
                        future.set_exception(exc)
                    continue
                for jobs, future in batch:
                    future.set_result(stored[: len(jobs)])
                    stored = stored[len(jobs) :]
        finally:
            self._writing = False


def _jobs(delivery: str, specs: list[JobSpec]) -> list[NewJob]:
    # A newer check for the same pull request makes a queued older one pointless;
    # commands are never dropped. A command is stored once per comment, whatever the delivery.
    return [
        NewJob(
            spec.once or (delivery if i == 0 else f"{delivery}/{i}"),
            spec.kind,
            spec.payload,
            spec.key,
            spec.kind == "check",
        )
        for i, spec in enumerate(specs)
    ]


SHUTDOWN_GRACE_S = 25.0  # SIGTERM: running jobs get this long; platforms kill at 30 s


class MetricsServer:
    """GET /metrics and /healthz of a worker process, on METRICS_PORT, from a thread of its own.

    Each worker process is scraped on its own rather than having the web processes report what
    the workers record in the database: Prometheus adds up per-process counters in the query
    (`sum(rate(docs_sync_jobs_total[5m]))`) and takes a restarted process's counters starting
    again from zero in its stride, while counters kept in the shared database would cost a write
    per job and per GitHub call and leave the rows of dead processes to reconcile. The queue's
    figures (depth, age, lag) are read from the database at scrape, as a web process does.
    """

    def __init__(self, queue: JobQueue, metrics: Metrics, port: int, host: str = "0.0.0.0"):
        def figures() -> str:
            return metrics.render(QueueFigures(queue.counts(), queue.oldest_queued_s(), queue.lag()))

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body, kind = 404, b"not found\n", "text/plain"
                try:
                    if self.path == "/metrics":
                        status, body, kind = 200, figures().encode(), METRICS_CONTENT_TYPE
                    elif self.path == "/healthz":
                        queue.ping()
                        status, body, kind = 200, b'{"ok": true}', "application/json"
                except Exception as exc:  # the database: say so, as the web's /healthz does
                    log.error("metrics: the database cannot be read: %s", type(exc).__name__)
                    status, body, kind = 503, b'{"ok": false}', "application/json"
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass  # a scrape every few seconds is not news

        try:
            self._server = http.server.ThreadingHTTPServer((host, port), Handler)
        except OSError as exc:
            raise ConfigError(f"METRICS_PORT: cannot listen on port {port}: {exc.strerror}") from None
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="docs-sync-metrics", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
