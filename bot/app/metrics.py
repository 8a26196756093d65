"""Process-local counters and a job-duration histogram, exposed with prometheus_client.

    docs_sync_deliveries_total{event}       verified deliveries, by X-GitHub-Event
    docs_sync_rejected_total{reason}        deliveries refused (signature, size, json, header)
    docs_sync_jobs_total{outcome}           finished job runs: done, retried, failed
    docs_sync_findings_total                findings reported
    docs_sync_github_calls_total{status}    GitHub API calls, by HTTP status ("error" without one)
    docs_sync_job_seconds                   histogram of job run time
    docs_sync_queue_jobs{state}             jobs in the queue by state (a gauge, read at scrape)
    docs_sync_queue_depth                   jobs waiting (queued), the number to scale workers on
    docs_sync_queue_oldest_job_seconds      how long the oldest queued job has waited
    docs_sync_installation_lag_seconds{installation}
                                            by installation: how long its longest-waiting due
                                            job has been due (absent when nothing is due)

The queue's figures are read from the database at scrape, so every web process shows the whole
queue, whichever process took the deliveries or runs the jobs.

Each `Metrics` has its own CollectorRegistry, not prometheus_client's global one: two Apps in
one process (tests, the demo) keep separate counts and never register a name twice.

Label values come from a fixed vocabulary where the sender controls them (the event header),
so a hostile sender cannot grow the series without bound.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

JOB_SECONDS_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST  # what /metrics answers with

KNOWN_EVENTS = frozenset(
    {
        "check_run",
        "check_suite",
        "installation",
        "installation_repositories",
        "issue_comment",
        "ping",
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
        "push",
    }
)


@dataclass(frozen=True)
class QueueFigures:
    """What a scrape reads from the queue."""

    counts: Mapping[str, int]
    oldest_s: float = 0.0
    lag: Mapping[str, float] = field(default_factory=dict)  # by installation id


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self._deliveries = Counter(
            "docs_sync_deliveries_total", "Verified webhook deliveries by event.", ["event"], registry=r
        )
        self._rejected = Counter(
            "docs_sync_rejected_total", "Webhook deliveries refused, by reason.", ["reason"], registry=r
        )
        self._jobs = Counter("docs_sync_jobs_total", "Job runs by outcome.", ["outcome"], registry=r)
        self._findings = Counter("docs_sync_findings_total", "Findings reported.", registry=r)
        self._github_calls = Counter(
            "docs_sync_github_calls_total", "GitHub API calls by HTTP status.", ["status"], registry=r
        )
        self._job_seconds = Histogram(
            "docs_sync_job_seconds", "Job run time in seconds.", buckets=JOB_SECONDS_BUCKETS, registry=r
        )
        self._queue = Gauge("docs_sync_queue_jobs", "Jobs in the queue by state.", ["state"], registry=r)
        self._depth = Gauge("docs_sync_queue_depth", "Jobs waiting to run.", registry=r)
        self._oldest = Gauge(
            "docs_sync_queue_oldest_job_seconds", "How long the oldest queued job has waited.", registry=r
        )
        self._lag = Gauge(
            "docs_sync_installation_lag_seconds",
            "How long each installation's longest-waiting due job has been due.",
            ["installation"],
            registry=r,
        )

    def delivery(self, event: str) -> None:
        self._deliveries.labels(event=event if event in KNOWN_EVENTS else "other").inc()

    def rejected(self, reason: str) -> None:
        self._rejected.labels(reason=reason).inc()

    def job(self, outcome: str, seconds: float | None = None) -> None:
        """A job run ended with `outcome` (done, retried, failed) after `seconds`."""
        self._jobs.labels(outcome=outcome).inc()
        if seconds is not None:
            self._job_seconds.observe(seconds)

    def findings(self, n: int = 1) -> None:
        self._findings.inc(n)

    def github_call(self, status: int | str) -> None:
        self._github_calls.labels(status=str(status)).inc()

    def value(self, name: str, **labels: str) -> float:
        """A sample's current value (0 when never incremented)."""
        return self.registry.get_sample_value(name, labels) or 0.0

    def render(self, queue: Mapping[str, int] | QueueFigures | None = None) -> str:
        """The Prometheus text format; `queue` (jobs by state, or all the queue's figures) is
        read by the caller at scrape."""
        figures = queue if isinstance(queue, QueueFigures) else QueueFigures(queue or {})
        for state, n in figures.counts.items():
            self._queue.labels(state=state).set(n)
        if isinstance(queue, QueueFigures):
            self._depth.set(figures.counts.get("queued", 0))
            self._oldest.set(figures.oldest_s)
            self._lag.clear()  # an installation that caught up drops out
            for installation, seconds in figures.lag.items():
                self._lag.labels(installation=installation or "none").set(seconds)
        return generate_latest(self.registry).decode("utf-8")
