"""What the worker runs: a job of each kind to the module that handles it.

`make_handler(settings, queue, metrics)` builds the per-process dependencies (the GitHub App's
clients among them) once; web.build_server imports it lazily, so the web process alone never
loads the analysis.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.app.commands import run_command
from bot.app.config import Settings
from bot.app.github import GitHubApp
from bot.app.jobs import FACTS_CACHE_SIZE, Deps, abandon, run_check
from bot.app.metrics import Metrics
from bot.app.queue import Job, JobQueue

log = logging.getLogger(__name__)


class JobHandler:
    """What the worker runs: `handler(job)`, and `handler.abandon(job, error)` when it gives up."""

    def __init__(self, deps: Deps):
        self.deps = deps

    def __call__(self, job: Job) -> None:
        deps = self.deps
        if len(deps.facts) > FACTS_CACHE_SIZE:
            deps.facts.clear()
        if job.kind == "check":
            run_check(deps, job)
        elif job.kind == "command":
            run_command(deps, job)
        else:
            log.warning("job %s has unknown kind %r; nothing to do", job.id, job.kind)

    def abandon(self, job: Job, error: str) -> None:
        abandon(self.deps, job, error)


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
