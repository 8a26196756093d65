"""Test-only pieces of the App's job tests: a queue clock tests move by hand, a /metrics reader,
sample findings, and `CheckBot`, the check job's handler fed pull_request deliveries. The trainer
repository, the webhook payloads and the bot over HTTP are `bot.testing.appkit`'s (the bench
uses them too)."""

from __future__ import annotations

import time

from prometheus_client.parser import text_string_to_metric_families

from bot.app.intake.events import route
from bot.app.jobs.handler import make_handler
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.worker import Worker
from bot.core.model import CodeLocation, DocLocation, Finding, Suggestion
from bot.render.comments import Links
from bot.testing.appkit import pull_request_payload, settings_for
from bot.testing.standin import GitHubStandIn


class Clock:
    """A queue clock tests move by hand, so retry delays pass without sleeping."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# -- /metrics ---------------------------------------------------------------------------------------


class Scrape:
    """A /metrics answer, read with prometheus_client's own parser: each sample by name and labels."""

    def __init__(self, text: str):
        self.text = text
        self.samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
        self.types: dict[str, str] = {}
        for family in text_string_to_metric_families(text):
            self.types[family.name] = family.type
            for s in family.samples:
                self.samples[(s.name, frozenset(s.labels.items()))] = s.value

    def __call__(self, name: str, **labels: str) -> float | None:
        """The sample's value, None when the scrape has no such series."""
        return self.samples.get((name, frozenset(labels.items())))

    def series(self, name: str) -> dict[frozenset[tuple[str, str]], float]:
        return {labels: v for (n, labels), v in self.samples.items() if n == name}


# -- findings and the check job's bot ---------------------------------------------------------------


def finding(
    symbol="--old", *, doc_line=3, code=("src/cli.py", 7), replacement="new line", kind="renamed", **kw
):
    """A finding about `symbol` on docs/page.md line `doc_line` (None: no doc line), made by the
    code line `code`, suggesting `replacement` for the doc line (None: no suggestion)."""
    suggestion = (
        Suggestion("docs/page.md", doc_line, doc_line, replacement) if replacement is not None else None
    )
    return Finding(
        kind=kind,
        severity=kw.pop("severity", "error"),
        symbol=symbol,
        message=f"`{symbol}` is gone",
        rule="page",
        doc=DocLocation("docs/page.md", doc_line, "Title", "title") if doc_line else None,
        code=CodeLocation(*code) if code else None,
        suggestion=suggestion if doc_line else None,
        **kw,
    )


LINKS = Links("https://github.com/o/r", "a" * 40)  # permalinks at a head commit
PAGE = "\n".join(f"line {i}" for i in range(1, 41))  # docs/page.md at that head


class CheckBot:
    """A handler over a fresh queue; `check(...)` feeds it one pull_request delivery."""

    def __init__(self, standin: GitHubStandIn, shas: dict[str, str], tmp_path, **settings):
        self.standin, self.shas = standin, shas
        self.clock = Clock()
        self.settings = settings_for(standin, tmp_path / "q.db", **settings)
        self.queue = SQLiteQueue(self.settings.db_path, clock=self.clock)
        self.metrics = Metrics()
        self.handler = make_handler(self.settings, self.queue, self.metrics, write_interval_s=0)
        self.worker = Worker(self.queue, self.handler, self.metrics, base_delay_s=0, max_attempts=3)
        self.deliveries = 0
        self.opened: set[int] = set()

    def enqueue(self, number: int, base: str, head: str) -> None:
        if number not in self.opened:
            self.standin.open_pull(number, base, head)
            self.opened.add(number)
        payload = pull_request_payload(
            self.standin, "synchronize", number, self.shas[head], self.shas[base], base
        )
        (spec,) = route("pull_request", payload)
        self.deliveries += 1
        self.queue.enqueue(
            f"delivery-{self.deliveries}", spec.kind, spec.payload, key=spec.key, supersede=True
        )

    def check(self, number: int, base: str, head: str) -> None:
        self.enqueue(number, base, head)
        while self.worker.run_once() is not None:
            pass


def writes_and_reads(standin: GitHubStandIn) -> list[tuple[str, str, int]]:
    # The installation token is fetched once an hour, not per pull request.
    return [r for r in standin.requests if "/access_tokens" not in r[1]]
