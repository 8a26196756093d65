"""The composition root: where the App is wired together, and its two processes' entry points.

`serve` runs the webhook server (bot.app.intake.web) and, unless told not to, the worker
(bot.app.queue.worker) in the same process; `work` runs a worker process alone on the shared
PostgreSQL queue. Each reads the settings at start (bot.app.config), opens the queue they name
(bot.app.queue.database) and gives the worker its job handler (bot.app.jobs.handler), imported
only when a worker is built, so a web process never loads the analysis or GitHub's client.
Nothing in bot/app imports this module; the command line does.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping

import uvicorn
from starlette.applications import Starlette

from bot.app.config import ConfigError, Settings
from bot.app.intake import web
from bot.app.logs import configure_logging
from bot.app.metrics import Metrics
from bot.app.queue.database import open_queue_for
from bot.app.queue.protocol import JobQueue
from bot.app.queue.worker import Handler, Worker

log = logging.getLogger(__name__)

HandlerFactory = Callable[[Settings, JobQueue, Metrics], Handler]


def _shared_database(settings: Settings, what: str) -> None:
    if not settings.database_url:
        raise ConfigError(
            f"DATABASE_URL is required for {what}: processes share the queue through PostgreSQL "
            "(the SQLite file serves one process: `docs-sync serve`)"
        )


def build_server(
    settings: Settings,
    host: str,
    port: int | None = None,
    handler_factory: HandlerFactory | None = None,
    *,
    with_worker: bool = True,
) -> uvicorn.Server:
    """Queue, metrics, worker and app wired into a uvicorn server, not yet running.

    `port` None means settings.port. Without `with_worker` the server only takes deliveries (a
    web process; worker processes drain the shared PostgreSQL queue). The queue is
    `queue_of(server)`; close it after the server stops.
    """
    if not with_worker:
        _shared_database(settings, "a web process without a worker (serve --no-worker)")
    queue = open_queue_for(settings)
    metrics = Metrics()
    worker = None
    if with_worker:
        worker = _worker(settings, queue, metrics, handler_factory)
    app = web.build_app(settings, queue, metrics, worker=worker)
    config = uvicorn.Config(
        app,
        host=host,
        port=settings.port if port is None else port,
        log_config=None,  # keep configure_logging's handler: every record carries the delivery id
        ws="none",
        lifespan="on",
    )
    return uvicorn.Server(config)


def _worker(
    settings: Settings, queue: JobQueue, metrics: Metrics, handler_factory: HandlerFactory | None
) -> Worker:
    handler = _handler(settings, queue, metrics, handler_factory)
    # The handler's recurring job (bot.app.jobs.recovery's, for the App's own handler), when asked for.
    recurring = getattr(handler, "recurring", None) if settings.recover_every_s > 0 else None
    if recurring is not None:
        recurring = functools.partial(recurring, every_s=settings.recover_every_s)
    return Worker(
        queue,
        handler,
        metrics,
        threads=settings.workers,
        recurring=recurring,
        recurring_every_s=settings.recover_every_s,
    )


def _handler(
    settings: Settings, queue: JobQueue, metrics: Metrics, handler_factory: HandlerFactory | None
) -> Handler:
    if handler_factory is not None:
        return handler_factory(settings, queue, metrics)
    # Imported late: the handler pulls in the GitHub client, which the intake never needs.
    from bot.app.jobs.handler import make_handler

    return make_handler(settings, queue, metrics)


def serve(
    host: str,
    port: int | None = None,
    environ: Mapping[str, str] = os.environ,
    handler_factory: HandlerFactory | None = None,
    *,
    with_worker: bool = True,
) -> None:
    """Run the App in this process, webhook server and (unless `with_worker` is False) worker,
    until interrupted.

    Settings are read from `environ` here, at start; `port` None means the PORT setting. A bad
    setting ends the process with one line naming the variable and exit status 2, as the
    command line's other configuration errors do.
    """
    try:
        settings = Settings.from_env(environ)
        configure_logging(settings.log_level)
        server = build_server(settings, host, port, handler_factory, with_worker=with_worker)
    except ConfigError as exc:
        print(f"docs-sync: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        server.run()
    finally:
        queue_of(server).close()


def queue_of(server: uvicorn.Server) -> JobQueue:
    """The queue of a server `build_server` made."""
    app = server.config.app
    if not isinstance(app, Starlette):
        raise TypeError(f"not a server build_server made: its app is {app!r}")
    queue: JobQueue = app.state.queue
    return queue


def work(environ: Mapping[str, str] = os.environ, handler_factory: HandlerFactory | None = None) -> None:
    """Run a worker process on the shared PostgreSQL queue until SIGTERM or SIGINT.

    On the signal it claims nothing more, lets the running jobs finish for SHUTDOWN_GRACE_S,
    puts back the ones still running (another worker takes them) and exits 0.
    """
    try:
        settings = Settings.from_env(environ)
        configure_logging(settings.log_level)
        _shared_database(settings, "`docs-sync worker`")
        queue = open_queue_for(settings)
        metrics = Metrics()
        scrape = web.MetricsServer(queue, metrics, settings.metrics_port) if settings.metrics_port else None
    except ConfigError as exc:
        print(f"docs-sync: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        log.info("%s: finishing the running jobs", signal.Signals(signum).name)
        stopping.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        worker = _worker(settings, queue, metrics, handler_factory)
        worker.start()
        log.info("worker started: %d thread(s)", settings.workers)
        while not stopping.wait(1.0):
            pass
        worker.stop(web.SHUTDOWN_GRACE_S, release=True)
    finally:
        if scrape is not None:
            scrape.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        queue.close()
