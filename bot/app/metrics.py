"""Process-local counters and a job-duration histogram, rendered in Prometheus' text format.

    docs_sync_deliveries_total{event}       verified deliveries, by X-GitHub-Event
    docs_sync_rejected_total{reason}        deliveries refused (signature, size, json, header)
    docs_sync_jobs_total{outcome}           finished job runs: done, retried, failed
    docs_sync_findings_total                findings reported
    docs_sync_github_calls_total{status}    GitHub API calls, by HTTP status ("error" without one)
    docs_sync_job_seconds                   histogram of job run time
    docs_sync_queue_jobs{state}             jobs in the queue by state (a gauge, read at scrape)

Label values come from a fixed vocabulary where the sender controls them (the event header),
so a hostile sender cannot grow the series without bound.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Mapping

JOB_SECONDS_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)

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

_HELP = {
    "docs_sync_deliveries_total": ("counter", "Verified webhook deliveries by event."),
    "docs_sync_rejected_total": ("counter", "Webhook deliveries refused, by reason."),
    "docs_sync_jobs_total": ("counter", "Job runs by outcome."),
    "docs_sync_findings_total": ("counter", "Findings reported."),
    "docs_sync_github_calls_total": ("counter", "GitHub API calls by HTTP status."),
}


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
        self._buckets = [0] * len(JOB_SECONDS_BUCKETS)
        self._seconds_sum = 0.0
        self._seconds_count = 0

    def delivery(self, event: str) -> None:
        self._inc("docs_sync_deliveries_total", event=event if event in KNOWN_EVENTS else "other")

    def rejected(self, reason: str) -> None:
        self._inc("docs_sync_rejected_total", reason=reason)

    def job(self, outcome: str, seconds: float | None = None) -> None:
        """A job run ended with `outcome` (done, retried, failed) after `seconds`."""
        self._inc("docs_sync_jobs_total", outcome=outcome)
        if seconds is not None:
            with self._lock:
                i = bisect.bisect_left(JOB_SECONDS_BUCKETS, seconds)
                if i < len(self._buckets):
                    self._buckets[i] += 1
                self._seconds_sum += seconds
                self._seconds_count += 1

    def findings(self, n: int = 1) -> None:
        self._inc("docs_sync_findings_total", n)

    def github_call(self, status: int | str) -> None:
        self._inc("docs_sync_github_calls_total", status=str(status))

    def value(self, name: str, **labels: str) -> float:
        """A counter's current value (0 when never incremented)."""
        with self._lock:
            return self._counters.get((name, tuple(sorted(labels.items()))), 0)

    def _inc(self, name: str, n: float = 1, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            self._counters[key] = self._counters.get(key, 0) + n

    def render(self, queue_counts: Mapping[str, int] | None = None) -> str:
        with self._lock:
            counters = dict(self._counters)
            buckets = list(self._buckets)
            total, count = self._seconds_sum, self._seconds_count
        lines: list[str] = []
        for name, (kind, text) in _HELP.items():
            lines += [f"# HELP {name} {text}", f"# TYPE {name} {kind}"]
            series = sorted((labels, v) for (n, labels), v in counters.items() if n == name)
            if not series and name == "docs_sync_findings_total":
                series = [((), 0)]  # an unlabelled counter exists from the start
            for labels, v in series:
                lines.append(f"{name}{_labels(labels)} {_num(v)}")
        name = "docs_sync_job_seconds"
        lines += [f"# HELP {name} Job run time in seconds.", f"# TYPE {name} histogram"]
        cumulative = 0
        for bound, n in zip(JOB_SECONDS_BUCKETS, buckets, strict=True):
            cumulative += n
            lines.append(f'{name}_bucket{{le="{_num(bound)}"}} {cumulative}')
        lines += [f'{name}_bucket{{le="+Inf"}} {count}', f"{name}_sum {_num(total)}", f"{name}_count {count}"]
        if queue_counts is not None:
            name = "docs_sync_queue_jobs"
            lines += [f"# HELP {name} Jobs in the queue by state.", f"# TYPE {name} gauge"]
            for state, n in sorted(queue_counts.items()):
                lines.append(f"{name}{_labels((('state', state),))} {n}")
        return "\n".join(lines) + "\n"


def _labels(labels: tuple[tuple[str, str], ...]) -> str:
    if not labels:
        return ""
    parts = (f'{k}="{_escape(v)}"' for k, v in labels)
    return "{" + ",".join(parts) + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))
