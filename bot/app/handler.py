"""What the worker runs: each job, parsed once into its typed payload, handed with its context to
the module of its kind (checkjob.py, commands.py).

`make_handler(settings, queue, metrics)` builds the per-process dependencies (the GitHub App's
clients among them) once. It sits on top of the App: nothing in bot/app imports it, and
web.build_server imports it lazily, so the web process alone never loads the analysis.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.app import checkjob, commands
from bot.app.config import Settings
from bot.app.context import Deps, job_context
from bot.app.github import GitHubApp
from bot.app.metrics import Metrics
from bot.app.payloads import CheckJob, parse
from bot.app.queue import Job, JobQueue

log = logging.getLogger(__name__)

FACTS_CACHE_SIZE = 5000  # extracted facts and parsed pages kept in memory, by blob id


class JobHandler:
    """What the worker runs: `handler(job)`, and `handler.abandon(job, error)` when it gives up."""

    def __init__(self, deps: Deps):
        self.deps = deps

    def __call__(self, job: Job) -> None:
        deps = self.deps
        if len(deps.facts) > FACTS_CACHE_SIZE:
            deps.facts.clear()
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
    app = GitHubApp(
        settings.app_id,
        settings.private_key,
        settings.github_api_url,
        metrics,
        write_interval_s=write_interval_s,
        clock=clock,
        sleep=sleep,
    )
    return JobHandler(Deps(settings, queue, metrics, app))
