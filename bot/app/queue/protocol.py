"""A durable job queue, plus the App's own small durable state: what every backend keeps to.

A webhook delivery becomes a job row before GitHub gets its answer, so nothing is lost when
the process stops. The lifecycle of a job:

    queued --claim--> running --complete--> done
                         |----retry-------> queued (not_before = now + delay)
                         |----fail--------> failed
    queued --supersede--> superseded        (a newer job for the same key made it pointless)

Only a job that never ran is superseded. One that ran and waits for a retry may have started
something on GitHub (a check run in progress): it is made due at once instead, so its handler
can see the newer job and close what it started.

Delivery ids (X-GitHub-Delivery) are unique: a redelivery of the same event is refused by
`enqueue`, so GitHub's "Redeliver" button never runs a job twice.

One repository at a time: `claim` never hands out a job of a repository (the part of its key
before "#" or "@", case aside) while another job of that repository is running. Jobs of one
repository run in order, and several workers go on with other repositories' jobs while one
repository's is long.

Crash recovery: a job left `running` by a process that died is put back to `queued` when the
queue is opened, and is then claimed once like any other job. Its attempt count keeps the lost
run, and `interrupted` counts the runs lost so: a job whose process died under it twice (killed,
or frozen and restarted) is failed by the worker without a third run. Running
it again is safe because the job handler is idempotent: what it writes to GitHub (check runs,
review comments, the summary comment) is found again by fingerprints and updated, not
duplicated. The recovery assumes one serving process per database file.

Two backends, one set of semantics (tests/app/test_queue.py runs every test on both):
bot.app.queue.database.open_queue takes a SQLite path (bot.app.queue.sqlite.SQLiteQueue: one
process, nothing to install) or a postgresql:// URL (bot.app.queue.postgres.PostgresQueue: any
number of web and worker processes).
The PostgreSQL queue is this module's own, on `FOR UPDATE SKIP LOCKED` and advisory locks,
rather than procrastinate: procrastinate's queueing locks and per-key serial locks are close,
but not this queue's rules (a newer push supersedes only never-run checks and makes a retrying
one due; a repository, in any of its key forms, runs one job at a time; a redelivered id is
refused forever), its jobs would live in its own tables away from the kv and blob state the
store keeps in the same transactions' database, and it is async-first where the worker and
the store are synchronous. A queue of ~200 lines with the same API keeps every caller and test
unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

STATES = ("queued", "running", "done", "failed", "superseded")
JOBS_KEPT_S = 7 * 86400.0  # GitHub lets a delivery be redelivered for 3 days
CACHES_KEPT_S = 30 * 86400.0
TALLIES_KEPT_S = 86400.0  # rate limits count within minutes
# One statement on both databases: a window past its end starts again at 1 (SET reads the old row).
_TALLY = (
    "INSERT INTO tallies (bucket, since, n) VALUES (%s, %s, 1) ON CONFLICT (bucket) DO UPDATE SET "
    "n = CASE WHEN tallies.since <= %s THEN 1 ELSE tallies.n + 1 END, "
    "since = CASE WHEN tallies.since <= %s THEN %s ELSE tallies.since END RETURNING n"
)
# What can be read again from GitHub: dropped once unused for CACHES_KEPT_S. The rest ("pr",
# "waivers", "report") is what docs-sync wrote or was told, and stays.
CACHE_NAMESPACES = (
    "config",
    "checked",
    "merge-base",
    "blob-at",
    "check-run",
    "check-run-pending",
    "reply",
    "applied",
    "limit",
    "redelivery",
    "swept",
    "credential",
    "history",
)


@dataclass(frozen=True)
class Job:
    id: int
    delivery_id: str
    kind: str
    key: str | None
    payload: dict[str, Any]
    state: str
    attempts: int  # claims so far, this one included
    not_before: float
    last_error: str | None
    created_at: float
    claimed_at: float | None
    interrupted: int = 0  # runs its process did not outlive (killed, or frozen and restarted)


@dataclass(frozen=True)
class NewJob:
    """A job to store: what `enqueue` takes, as one value, for `enqueue_many`."""

    delivery_id: str
    kind: str
    payload: dict[str, Any]
    key: str | None
    supersede: bool = False


class JobQueue(Protocol):
    recovered: int  # interrupted jobs put back in the queue when it was opened

    def close(self) -> None: ...

    def __enter__(self) -> JobQueue: ...

    def __exit__(self, *exc: object) -> None: ...

    def get(self, job_id: int) -> Job | None: ...

    def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake` whenever another process may have made a job claimable, so a worker
        claims at once rather than at its next poll (PostgreSQL: LISTEN/NOTIFY). SQLite serves
        one process, whose webhook endpoint wakes its worker itself: nothing to do there."""
        ...

    def enqueue_many(self, jobs: Sequence[NewJob]) -> list[bool]:
        """`enqueue` each job, in order, in one transaction (one disk flush for all of them).

        The webhook endpoint stores the deliveries that arrive together this way.
        """
        ...

    def enqueue(
        self,
        delivery_id: str,
        kind: str,
        payload: dict[str, Any],
        *,
        key: str | None,
        supersede: bool = False,
    ) -> bool:
        """Store a job; False when `delivery_id` was seen before (nothing stored).

        With `supersede`, queued jobs of the same kind and key become `superseded` in the same
        transaction: a newer push replaces an older check that has not started yet. One that
        ran before and waits for a retry is made due now instead (see the module docstring).
        """
        ...

    def claim(self, now: float | None = None) -> Job | None:
        """The oldest queued job due at `now` whose repository has no job running, marked
        running; None when there is none."""
        ...

    def complete(self, job_id: int) -> None: ...

    def retry(self, job_id: int, delay_s: float, error: str) -> None: ...

    def fail(self, job_id: int, error: str) -> None: ...

    def supersede(self, key: str, except_job_id: int) -> int:
        """Mark queued jobs with `key`, of the kind of `except_job_id` and older than it, superseded.

        Returns how many. Safe to call from a job handler with its own job: it never touches
        newer work, running jobs, or jobs of another kind.
        """
        ...

    def has_newer(self, key: str, job_id: int, kind: str = "check", *, head_sha: str | None = None) -> bool:
        """Is a job of `kind` with `key`, newer than `job_id`, queued, running or done?

        With `head_sha`, only jobs whose payload names another head commit count: a second
        announcement of the same push is not newer work. Sees jobs enqueued while `job_id` runs.
        """
        ...

    def release(self, job_id: int) -> None:
        """Put a running job back, due now, its run not counted: the worker is shutting down."""
        ...

    def counts(self) -> dict[str, int]: ...

    def oldest_queued_s(self, now: float | None = None) -> float:
        """How long the oldest queued job has been in the queue (0 when none is)."""
        ...

    def lag(self, now: float | None = None) -> dict[str, float]:
        """By installation id ("" when the job names none): how long its longest-waiting due job
        has been due. The installations with nothing due are absent."""
        ...

    def prune(self, now: float | None = None) -> int:
        """Delete finished jobs older than JOBS_KEPT_S (their delivery ids with them: GitHub
        redelivers only recent deliveries) and caches unused for CACHES_KEPT_S; how many rows."""
        ...

    def ping(self) -> None:
        """Write and read back a row: raises when the database cannot do both (/healthz)."""
        ...

    def reserve(self, lane: str, interval_s: float) -> float:
        """When the caller may act on `lane` (a clock time, maybe now), keeping `interval_s`
        after the previous reservation on it: every process gets its own turn, in order."""
        ...

    def tally(self, bucket: str, window_s: float) -> int:
        """Count one event in `bucket`: how many it has had in its window so far, this one
        included. A window opens at a bucket's first event and lasts `window_s`; one atomic
        statement, so processes sharing the database count together."""
        ...

    def kv_get(self, ns: str, key: str) -> str | None: ...

    def kv_put(self, ns: str, key: str, value_json: str) -> None: ...

    def blob_get(self, sha: str) -> str | None: ...

    def blob_put(self, sha: str, text: str) -> None: ...


class DatabaseGone(RuntimeError):
    """The SQLite file the queue opened is no longer at its path (deleted, or another in its place)."""


def repository_of(key: str | None) -> str | None:
    """ "owner/repo" of a job key ("owner/repo#12", "owner/repo@<sha>"), lower-cased as GitHub
    compares names; None for a job about no repository."""
    if key is None:
        return None
    return re.split(r"[#@]", key, maxsplit=1)[0].lower()
