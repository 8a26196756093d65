"""Process-local counters and a job-duration histogram, exposed with prometheus_client.

    docs_sync_deliveries_total{event}       verified deliveries, by X-GitHub-Event
    docs_sync_rejected_total{reason}        deliveries refused (signature, size, json, header)
    docs_sync_jobs_total{outcome}           finished job runs: done, retried, failed
    docs_sync_findings_total                findings reported
    docs_sync_github_calls_total{status}    GitHub API calls, by HTTP status ("error" without one)
    docs_sync_job_seconds                   histogram of job run time
    docs_sync_queue_jobs{state}             jobs in the queue by state (a gauge, read at scrape)

Each `Metrics` has its own CollectorRegistry, not prometheus_client's global one: two Apps in
one process (tests, the demo) keep separate counts and never register a name twice.

Label values come from a fixed vocabulary where the sender controls them (the event header),
so a hostile sender cannot grow the series without bound.
"""

from __future__ import annotations

from collections.abc import Mapping

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

    def render(self, queue_counts: Mapping[str, int] | None = None) -> str:
        """The Prometheus text format; `queue_counts` (jobs by state) are read by the caller at scrape."""
        for state, n in (queue_counts or {}).items():
            self._queue.labels(state=state).set(n)
        return generate_latest(self.registry).decode("utf-8")
