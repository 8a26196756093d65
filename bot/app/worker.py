"""The worker: claims jobs from the queue and runs the job handler on them, one at a time.

It runs in its own thread with its own event loop, so a long analysis never delays a webhook
answer, and an async handler can keep one GitHub client (bound to that loop) across jobs.

Outcomes of one run:
    handler returns          -> complete
    handler raises RetryableError(delay_s)
                             -> retry after max(delay_s, base * 2**(attempts-1) capped at
                                max_delay); after max_attempts claims -> fail
    any other exception      -> fail, with the traceback in the log
A job claimed more than max_attempts times (it crashed the process every time) is failed
without running it again.

Whenever the worker fails a job it tells the handler, if the handler has a method
`abandon(job, error)`: the job will not run again, so whatever it left in progress on GitHub
(a check run that a branch protection rule waits for) must be finished now. `error` is what the
queue records, "gave up after N attempts: <last error>" when the attempts ran out. The job is
failed in the queue first, so an `abandon` that crashes the process cannot bring it back.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import time
from collections.abc import Awaitable, Callable

from bot.app.logs import delivery_context
from bot.app.metrics import Metrics
from bot.app.queue import Job, JobQueue

log = logging.getLogger(__name__)

Handler = Callable[[Job], Awaitable[object] | object]


class RetryableError(Exception):
    """A failure worth trying again later: GitHub 5xx, a timeout, a rate limit.

    `delay_s` is the least wait before the retry (GitHub's retry-after when it sent one).
    """

    def __init__(self, delay_s: float = 60.0, message: str = ""):
        self.delay_s = float(delay_s)
        super().__init__(message or f"retry in {self.delay_s:g}s")


class Worker:
    def __init__(
        self,
        queue: JobQueue,
        handler: Handler,
        metrics: Metrics | None = None,
        *,
        poll_interval: float = 1.0,
        max_attempts: int = 8,
        base_delay_s: float = 10.0,
        max_delay_s: float = 3600.0,
    ):
        self.queue = queue
        self.handler = handler
        self.metrics = metrics or Metrics()
        self.poll_interval = poll_interval
        self.max_attempts = max_attempts
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("worker already started")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="docs-sync-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Let the current job finish (up to `timeout`), then end the thread and its loop.

        A job still running after the timeout stays `running` in the queue and is picked up
        again when the queue is next opened.
        """
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("worker still busy after %.0fs; its job resumes at the next start", timeout)
                return  # the thread owns the loop; closing it under a running job would break it
            self._thread = None
        if self._loop is not None:
            self._loop.close()
            self._loop = None

    def wake(self) -> None:
        """Look at the queue now instead of at the next poll (called after an enqueue)."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                job = self.run_once()
            except Exception:  # the queue itself failed (disk full, locked file): wait, retry
                log.exception("worker could not read the queue")
                job = None
            if job is None:
                self._wake.wait(self.poll_interval)
                self._wake.clear()

    # -- one job ----------------------------------------------------------------------------

    def run_once(self) -> Job | None:
        """Claim one due job and run it to an outcome; the job as claimed, or None if idle."""
        job = self.queue.claim()
        if job is None:
            return None
        with delivery_context(job.delivery_id):
            self._run_job(job)
        return job

    def _run_job(self, job: Job) -> None:
        if job.attempts > self.max_attempts:
            error = f"gave up after {job.attempts - 1} attempts: {job.last_error}"
            self.queue.fail(job.id, error)
            self.metrics.job("failed")
            log.error(
                "job %s (%s %s) given up after %d attempts", job.id, job.kind, job.key, job.attempts - 1
            )
            self._abandon(job, error)
            return
        log.info("job %s (%s %s) attempt %d", job.id, job.kind, job.key, job.attempts)
        started = time.monotonic()
        try:
            result = self.handler(job)
            if inspect.isawaitable(result):
                self._event_loop().run_until_complete(result)
        except RetryableError as exc:
            seconds = time.monotonic() - started
            if job.attempts >= self.max_attempts:
                error = f"gave up after {job.attempts} attempts: {exc}"
                self.queue.fail(job.id, error)
                self.metrics.job("failed", seconds)
                log.error("job %s failed for good after %d attempts: %s", job.id, job.attempts, exc)
                self._abandon(job, error)
                return
            delay = self.retry_delay(job.attempts, exc.delay_s)
            self.queue.retry(job.id, delay, str(exc))
            self.metrics.job("retried", seconds)
            log.warning("job %s will retry in %.0fs: %s", job.id, delay, exc)
            return
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            self.queue.fail(job.id, error)
            self.metrics.job("failed", time.monotonic() - started)
            log.exception("job %s failed", job.id)
            self._abandon(job, error)
            return
        self.queue.complete(job.id)
        seconds = time.monotonic() - started
        self.metrics.job("done", seconds)
        log.info("job %s done in %.2fs", job.id, seconds)

    def _abandon(self, job: Job, error: str) -> None:
        abandon = getattr(self.handler, "abandon", None)
        if abandon is None:
            return
        try:
            result = abandon(job, error)
            if inspect.isawaitable(result):
                self._event_loop().run_until_complete(result)
        except Exception:  # GitHub is down as well: the log and the queue keep the original error
            log.exception("job %s: could not clean up after giving up", job.id)

    def retry_delay(self, attempts: int, delay_s: float) -> float:
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** max(0, attempts - 1))
        return max(delay_s, backoff)

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop
