"""The workers: threads that claim jobs from the queue and run the job handler on them.

Each thread has its own event loop, so a long job never delays a webhook answer, and an async
handler can keep one GitHub client (bound to that loop) across jobs. Several threads run at
once (DOCS_SYNC_WORKERS, 4 by default), and the queue never hands out two jobs of one
repository at the same time: one repository's pull requests are checked in order, and a
hostile or unlucky one holds a single thread while the others go on with the rest.

Outcomes of one run:
    handler returns          -> complete
    handler raises RetryableError(delay_s)
                             -> retry after max(delay_s, base * 2**(attempts-1) capped at
                                max_delay); after max_attempts claims -> fail
    any other exception      -> fail, with the traceback in the log
A job claimed more than max_attempts times is failed without running it again, and so is a job
whose process died under it MAX_INTERRUPTED times (killed, by the kernel's OOM killer or by
hand; or frozen, and restarted): a pull request that brings the worker down would otherwise
bring down each worker that takes it next, for good.

An outcome the queue could not write (a full disk, a locked file) is kept and written again
before the worker claims anything new, so the job does not stay `running` until a restart,
and it is never run a second time for it.

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
from bot.app.queue.protocol import Job, JobQueue, NewJob

log = logging.getLogger(__name__)

Handler = Callable[[Job], Awaitable[object] | object]

MAX_INTERRUPTED = 2  # runs lost with their process, after which a job is not run again


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
        threads: int = 1,
        poll_interval: float = 1.0,
        prune_every_s: float = 3600.0,
        max_attempts: int = 8,
        base_delay_s: float = 10.0,
        max_delay_s: float = 3600.0,
        recurring: Callable[[float], NewJob] | None = None,
        recurring_every_s: float = 600.0,
    ):
        self.queue = queue
        self.handler = handler
        self.metrics = metrics or Metrics()
        self.threads = max(1, threads)
        self.poll_interval = poll_interval
        self.prune_every_s = prune_every_s
        self._next_prune = time.monotonic() + 60.0  # not in the rush of a start
        # A job enqueued at start and every `recurring_every_s` (the App's recovery): made from
        # the wall time, so processes sharing the database make the same one, stored once.
        self.recurring, self.recurring_every_s = recurring, recurring_every_s
        self._next_recurring = 0.0
        self.max_attempts = max_attempts
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self._stop = threading.Event()
        self._wake = threading.Condition()
        self._wakes = 0  # wake() calls so far: a thread that saw the count change looks again
        self._threads: list[threading.Thread] = []
        self._loops: dict[int, asyncio.AbstractEventLoop] = {}  # by thread id
        self._unsettled: list[tuple[int, Callable[[], None]]] = []  # outcomes not written yet
        self._running: dict[int, Job] = {}  # by thread id: the job each thread is running
        self._lock = threading.Lock()

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        if self._threads:
            raise RuntimeError("worker already started")
        self._stop.clear()
        self._threads = [
            threading.Thread(target=self._run, name=f"docs-sync-worker-{i + 1}", daemon=True)
            for i in range(self.threads)
        ]
        for thread in self._threads:
            thread.start()
        # Jobs enqueued by other processes wake the threads at once; the poll stays the fallback.
        self.queue.listen(self.wake)

    def stop(self, timeout: float = 30.0, *, release: bool = False) -> None:
        """Let the current jobs finish (up to `timeout` in all), then end the threads and their loops.

        A job still running after the timeout stays `running` in the queue and is picked up
        again when the queue is next opened; with `release` (a SIGTERM: the process is about to
        end) it is put back in the queue at once, its run not counted, for another worker.
        """
        self._stop.set()
        self.wake()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        busy = [t for t in self._threads if t.is_alive()]
        if busy:
            with self._lock:
                unfinished = list(self._running.values())
            if release:
                for job in unfinished:
                    try:
                        self.queue.release(job.id)
                        log.warning(
                            "job %s released unfinished after %.0fs: another worker takes it", job.id, timeout
                        )
                    except Exception:
                        log.exception("job %s could not be released; it is recovered as interrupted", job.id)
                return
            log.warning("worker still busy after %.0fs; its jobs resume at the next start", timeout)
            return  # a thread owns its loop; closing it under a running job would break it
        self._threads = []
        with self._lock:
            loops, self._loops = list(self._loops.values()), {}
        for loop in loops:
            loop.close()

    def wake(self) -> None:
        """Look at the queue now instead of at the next poll (called after an enqueue)."""
        with self._wake:
            self._wakes += 1
            self._wake.notify_all()

    def _prune_if_due(self) -> None:
        """Drop old finished jobs and stale caches (JobQueue.prune) once per `prune_every_s`."""
        with self._lock:
            if time.monotonic() < self._next_prune:
                return
            self._next_prune = time.monotonic() + self.prune_every_s
        try:
            log.info("pruned %d old row(s) from the queue database", self.queue.prune())
        except Exception:
            log.exception("pruning the queue database failed; trying again in %.0fs", self.prune_every_s)

    def _recurring_if_due(self) -> None:
        if self.recurring is None:
            return
        with self._lock:
            if time.monotonic() < self._next_recurring:
                return
            self._next_recurring = time.monotonic() + self.recurring_every_s
        try:
            self.queue.enqueue_many([self.recurring(time.time())])
        except Exception:
            log.exception(
                "the recurring job could not be queued; trying again in %.0fs", self.recurring_every_s
            )

    def _run(self) -> None:
        while not self._stop.is_set():
            self._prune_if_due()
            self._recurring_if_due()
            seen = self._wakes
            try:
                job = self.run_once()
            except Exception:  # the queue itself failed (disk full, locked file): wait, retry
                log.exception("worker could not read the queue")
                job = None
            if job is None:
                with self._wake:
                    if self._wakes == seen and not self._stop.is_set():
                        self._wake.wait(self.poll_interval)

    # -- one job ----------------------------------------------------------------------------

    def run_once(self) -> Job | None:
        """Claim one due job and run it to an outcome; the job as claimed, or None if idle.

        Outcomes the queue could not write before are written first; while one still cannot
        be, nothing new is claimed (None).
        """
        if not self._settle_pending():
            return None
        job = self.queue.claim()
        if job is None:
            return None
        me = threading.get_ident()
        with self._lock:
            self._running[me] = job
        try:
            with delivery_context(job.delivery_id):
                self._run_job(job)
        finally:
            with self._lock:
                self._running.pop(me, None)
        return job

    def _run_job(self, job: Job) -> None:
        if job.interrupted >= MAX_INTERRUPTED or job.attempts > self.max_attempts:
            if job.interrupted >= MAX_INTERRUPTED:
                error = (
                    f"not run again: its worker process stopped under it {job.interrupted} times "
                    "(killed, or frozen and restarted)"
                )
            else:
                error = f"gave up after {job.attempts - 1} attempts: {job.last_error}"
            self._settle(job.id, lambda: self.queue.fail(job.id, error))
            self.metrics.job("failed")
            log.error("job %s (%s %s) given up: %s", job.id, job.kind, job.key, error)
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
                self._settle(job.id, lambda: self.queue.fail(job.id, error))
                self.metrics.job("failed", seconds)
                log.error("job %s failed for good after %d attempts: %s", job.id, job.attempts, exc)
                self._abandon(job, error)
                return
            delay, reason = self.retry_delay(job.attempts, exc.delay_s), str(exc)
            self._settle(job.id, lambda: self.queue.retry(job.id, delay, reason))
            self.metrics.job("retried", seconds)
            log.warning("job %s will retry in %.0fs: %s", job.id, delay, exc)
            return
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            self._settle(job.id, lambda: self.queue.fail(job.id, error))
            self.metrics.job("failed", time.monotonic() - started)
            log.exception("job %s failed", job.id)
            self._abandon(job, error)
            return
        self._settle(job.id, lambda: self.queue.complete(job.id))
        seconds = time.monotonic() - started
        self.metrics.job("done", seconds)
        log.info("job %s done in %.2fs", job.id, seconds)

    def _settle(self, job_id: int, write: Callable[[], None]) -> None:
        """Write a job's outcome to the queue; one the queue refuses is kept to write again."""
        try:
            write()
        except Exception:
            log.exception("job %s: could not record its outcome; trying again before the next job", job_id)
            with self._lock:
                self._unsettled.append((job_id, write))

    def _settle_pending(self) -> bool:
        """Write the outcomes kept from earlier; True when none is left."""
        with self._lock:
            pending, self._unsettled = self._unsettled, []
        for n, (job_id, write) in enumerate(pending):
            try:
                write()
            except Exception as exc:
                log.warning("job %s: its outcome still cannot be recorded: %s", job_id, exc)
                with self._lock:
                    self._unsettled[:0] = pending[n:]
                return False
            log.info("job %s: its outcome is recorded now", job_id)
        return True

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
        backoff = min(self.max_delay_s, self.base_delay_s * 2.0 ** max(0, attempts - 1))
        return max(delay_s, backoff)

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        """This thread's loop (one per thread: a loop runs in the thread that made it)."""
        me = threading.get_ident()
        with self._lock:
            loop = self._loops.get(me)
            if loop is None:
                loop = self._loops[me] = asyncio.new_event_loop()
        return loop
