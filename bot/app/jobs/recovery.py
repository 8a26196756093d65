"""Recovery (job kind "recover"): what GitHub could not deliver, and what docs-sync acknowledged
and then lost, is found again through GitHub's API.

GitHub does not redeliver a webhook on its own. Every serving worker enqueues a recovery job
when it starts and every DOCS_SYNC_RECOVER_EVERY_S (600 s), under the delivery id
"recovery:<window>" (the window is the wall-clock time divided by that interval), so all the
processes sharing a database run one recovery per window between them. A recovery

1. reads the App webhook's delivery log (`GET /app/hook/deliveries`, App JWT, newest first, at
   most MAX_DELIVERY_PAGES pages of the past REDELIVER_WITHIN_S) and asks for a new attempt
   (`POST /app/hook/deliveries/{id}/attempts`) of each delivery whose newest attempt failed (no
   2xx: a timeout, a refused connection, a 503 while the App was busy or down), at most
   MAX_REDELIVERIES a run and MAX_ASKS times per delivery (Store.redelivery). A redelivery keeps
   its guid, so one the queue holds already is refused there as a duplicate;
2. sweeps the open pull requests of every installation for a head without a docs-sync check run
   (`GET /repos/{o}/{r}/commits/{sha}/check-runs`) and queues a check of it: what GitHub
   delivered and docs-sync then lost (a database file deleted or replaced under a running App)
   and what was never delivered at all. At most SWEEP_HEADS heads a run, taken from the
   installations in turn (one repository's pull request from each, round and round), so a big
   installation cannot use up the run; a head the store knows (checked, or found with its run
   before) is passed over without a call, so the next run reaches further; the job's delivery
   id "sweep:<key>@<head>" queues each head once, and like a push it supersedes a queued check
   of the same pull request.

A recovery that GitHub refuses partway is retried by the worker like any job; what it asked for
already is remembered.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from bot.app.github.checkruns import CHECK_NAME
from bot.app.github.client import GitHubApp, GitHubError
from bot.app.github.context import Deps
from bot.app.github.shapes import Delivery, Pull, Repository, app_id
from bot.app.intake.payloads import CheckJob
from bot.app.queue.protocol import JobQueue, NewJob
from bot.app.queue.store import Store

log = logging.getLogger(__name__)

KIND = "recover"
RECOVER_EVERY_S = 600.0
REDELIVER_WITHIN_S = 3 * 86400 - 3600  # GitHub redelivers the past 3 days; an hour to spare
MAX_DELIVERY_PAGES = 10  # 1,000 deliveries, newest first
MAX_REDELIVERIES = 100
MAX_ASKS = 3  # a delivery still failing after three redeliveries is left to a person
SWEEP_HEADS = 100  # pull request heads looked up per run, over all installations
LISTED_PER_LOOKED = 20  # and at most 20 times as many listed (the rest known already)

T = TypeVar("T")


@dataclass(frozen=True)
class Recovered:
    redelivered: int  # deliveries GitHub was asked to send again
    looked: int  # open pull requests' heads looked at
    queued: int  # checks queued for heads without a docs-sync run


def recovery_job(now: float, every_s: float = RECOVER_EVERY_S) -> NewJob:
    """The recovery job of the window `now` falls in: one per window, whoever enqueues it."""
    return NewJob(f"recovery:{int(now // every_s)}", KIND, {}, None)


def run(deps: Deps, *, now: Callable[[], float] = time.time) -> Recovered:
    redelivered = redeliver_failed(deps.app, deps.store, now())
    looked, queued = sweep(deps.app, deps.queue, deps.store)
    log.info(
        "recovery: %d delivery(ies) redelivered, %d open pull request head(s) looked at, %d check(s) queued",
        redelivered,
        looked,
        queued,
    )
    return Recovered(redelivered, looked, queued)


def redeliver_failed(app: GitHubApp, store: Store, now: float) -> int:
    """Ask for each recent delivery whose newest attempt failed to be sent again; how many."""
    newest: dict[str, Delivery] = {}
    for delivery in app.hook_deliveries(MAX_DELIVERY_PAGES):
        if now - _epoch(delivery.get("delivered_at")) > REDELIVER_WITHIN_S:
            break  # newest first: the rest is older still
        newest.setdefault(str(delivery.get("guid")), delivery)  # a guid's first entry is its newest
    asked = 0
    for guid, delivery in newest.items():
        if asked >= MAX_REDELIVERIES:
            break
        if 200 <= int(delivery.get("status_code") or 0) < 300:
            continue
        if store.redelivery(guid) >= MAX_ASKS:
            continue
        app.redeliver(int(delivery["id"]))
        store.save_redelivery(guid, store.redelivery(guid) + 1)
        asked += 1
    return asked


def sweep(app: GitHubApp, queue: JobQueue, store: Store, budget: int = SWEEP_HEADS) -> tuple[int, int]:
    """Queue a check of each open pull request head with no docs-sync run: (looked, queued).

    A head the store knows (checked, or seen with its run by an earlier sweep) costs no call and
    none of the budget, so each run goes further down a long list of open pull requests."""
    looked = queued = 0
    streams = [_heads(app, i) for i in app.installations()]
    for installation, repo, pull in round_robin(streams, budget * LISTED_PER_LOOKED):
        if looked >= budget:
            break
        owner, name = repo["owner"]["login"], repo["name"]
        full, head = f"{owner}/{name}", str(pull["head"]["sha"])
        if store.checked(full, head) is not None or store.swept(full, head):
            continue
        looked += 1
        runs = app.repo(installation, owner, name).check_runs(head, CHECK_NAME)
        if any(app_id(r) in (None, app.app_id) for r in runs):
            store.save_swept(full, head)
            continue
        job = CheckJob(
            owner,
            name,
            installation,
            "recovery.sweep",
            pr=int(pull["number"]),
            head_sha=head,
            base_sha=pull["base"]["sha"],
            base_ref=pull["base"].get("ref"),
        )
        key = f"{full}#{pull['number']}"
        queued += sum(queue.enqueue_many([NewJob(f"sweep:{key}@{head}", "check", job.to_json(), key, True)]))
    return looked, queued


def round_robin(streams: Iterable[Iterator[T]], budget: int) -> Iterator[T]:
    """Up to `budget` items, one from each stream in turn until every stream is used up."""
    live = list(streams)
    given = 0
    while live and given < budget:
        for stream in list(live):
            item = next(stream, None)
            if item is None:
                live.remove(stream)
                continue
            yield item
            given += 1
            if given >= budget:
                return


def _heads(app: GitHubApp, installation: int) -> Iterator[tuple[int, Repository, Pull]]:
    """The installation's open pull requests, repository by repository, read as they are asked
    for; an installation GitHub refuses (suspended, its access gone) ends its stream."""
    try:
        page, more = 1, True
        while more:
            repos, more = app.installation_repositories(installation, page)
            page += 1
            for repo in repos:
                for pull in app.repo(installation, repo["owner"]["login"], repo["name"]).open_pulls():
                    yield installation, repo, pull
    except GitHubError as exc:
        log.warning("recovery: installation %s not swept: %s", installation, exc)


def _epoch(value: object) -> float:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0
