"""What the worker runs: each job, parsed once into its typed payload, handed with its context to
the module of its kind (checkjob.py, commands.py).

`make_handler(settings, queue, metrics)` builds the per-process dependencies (the GitHub App's
clients among them) once. It sits on top of the jobs: nothing in bot/app imports it but the
composition root (bot.app.main), lazily, so the web process alone never loads the analysis.
"""

from __future__ import annotations

import logging
import pickle
import threading
import time
from collections.abc import Callable

from bot.app.config import Settings
from bot.app.github.context import Deps, job_context
from bot.app.github.lanes import github_app
from bot.app.intake.payloads import CheckJob, parse
from bot.app.jobs import checkjob, commands, recovery
from bot.app.metrics import Metrics
from bot.app.queue.protocol import Job, JobQueue

log = logging.getLogger(__name__)

FACTS_CACHE_BYTES = 64 << 20  # extracted facts and parsed pages kept in memory, by blob id


class FactsMemo(dict[str, object]):
    """The analyses' facts cache, kept under `max_bytes` (each entry weighed as the pickle the
    analysis process sends it as), the oldest entries dropped first. Shared by the worker threads."""

    def __init__(self, max_bytes: int = FACTS_CACHE_BYTES):
        super().__init__()
        self.max_bytes = max_bytes
        self.sizes: dict[str, int] = {}  # in the order the entries came
        self.total = 0
        self._lock = threading.Lock()

    def __setitem__(self, key: str, value: object) -> None:
        size = len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        if size > self.max_bytes:
            return  # it would push out everything else
        with self._lock:
            self._drop(key)
            while self.sizes and self.total + size > self.max_bytes:
                self._drop(next(iter(self.sizes)))
            self.sizes[key] = size
            self.total += size
            super().__setitem__(key, value)

    def _drop(self, key: str) -> None:
        self.total -= self.sizes.pop(key, 0)
        super().pop(key, None)


class JobHandler:
    """What the worker runs: `handler(job)`, and `handler.abandon(job, error)` when it gives up.

    The worker's threads share one handler: what it holds (the GitHub clients, the facts cache,
    the store) is safe to use from several threads.
    """

    def __init__(self, deps: Deps):
        self.deps = deps

    # The job a serving worker enqueues at start and every DOCS_SYNC_RECOVER_EVERY_S.
    recurring = staticmethod(recovery.recovery_job)

    def __call__(self, job: Job) -> None:
        deps = self.deps
        if job.kind == recovery.KIND:
            recovery.run(deps)
            return
        payload = parse(job.kind, job.payload)
        if payload is None:
            log.warning("job %s has unknown kind %r; nothing to do", job.id, job.kind)
            return
        with job_context(deps, job, payload) as ctx:
            if isinstance(payload, CheckJob):
                checkjob.run(ctx, payload)
            else:
                commands.run(ctx, payload)

    def abandon(self, job: Job, error: str) -> None:
        checkjob.abandon(self.deps, job, error)


def make_handler(
    settings: Settings,
    queue: JobQueue,
    metrics: Metrics,
    *,
    write_interval_s: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> JobHandler:
    """The worker's handler. `write_interval_s`, `sleep` and `clock` pace GitHub writes (tests: 0)."""
    # With DATABASE_URL, write spacing and installation tokens hold across processes (lanes.py).
    app = github_app(settings, queue, metrics, write_interval_s=write_interval_s, clock=clock, sleep=sleep)
    return JobHandler(Deps(settings, queue, metrics, app, facts=FactsMemo()))
