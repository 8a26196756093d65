"""What the GitHub App costs: GitHub calls per event, webhook intake speed, worker memory, the
analysis' memory per MB of source, and how long a pull request waits behind a hostile one.

Builds the job tests' trainer repository (bot/testing/appkit.py) behind the GitHub stand-in
(bot/testing/standin/) and measures, in one run:

  1. GitHub calls per pull request event, counted from the stand-in's recorded requests: a pull
     request with findings (first on its base branch, then with the config cached), a clean
     one, a push that fixes the doc, a redelivery, the same push announced by its check suite,
     and `/docs-sync explain`; target: at most 6 for a typical pull request;
  2. webhook intake: deliveries per second and the p50/p99 time to the answer of POST /webhook
     at 20 concurrent connections, the App served by uvicorn on loopback in a process of its
     own with its SQLite queue and no worker, next to a bare starlette route answering 202,
     served the same way; target: p99 under 50 ms;
  3. worker memory: a process running the worker over N check jobs against the stand-in, its
     peak RSS (getrusage ru_maxrss, measured inside that process) and how it grows from job 10
     to job N;
  4. the analysis' memory per MB of source: one check of a pull request that rewrites an
     argparse module of several MB, the peak RSS of the worker's process and of the analysis
     process it runs the check in;
  5. a normal pull request queued right behind a hostile one (thousands of bogus flag
     mentions) of another repository: how long the normal one waits for its check run.

Prints figures; asserts nothing about time. See bench/README.md.

    python bench/bench_app.py [--quick] [--requests N] [--connections C] [--jobs N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import hmac
import json
import math
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The issue's target: GitHub calls for a typical pull request, check run and review included.
TARGET_CALLS = 6

SECRET = "webhook secret of the benchmark"
WEBHOOK_PATH = "/webhook"
# The heads the memory run cycles through: findings with a review, one finding, clean, fixed.
JOB_HEADS = ("pr", "one", "clean", "pr-fixed")
LEAK_FROM = 10  # growth is measured from this job on: caches and clients are warm by then


TARGET_P99_S = 0.050  # the issue's target for the intake at 20 connections


@dataclass(frozen=True)
class Scale:
    requests: int  # deliveries per intake measurement
    warmup: int  # deliveries before each measurement, not counted
    connections: int  # keep-alive client connections sending at once
    jobs: int  # check jobs of the memory run
    source_mb: float  # size of the argparse module of the analysis memory run
    mentions: int  # bogus flag mentions of the hostile pull request
    write_interval_s: float  # the App's write spacing in the hostile run (production: 1 s)


FULL = Scale(
    requests=200, warmup=50, connections=20, jobs=400, source_mb=1.0, mentions=5000, write_interval_s=1.0
)
QUICK = Scale(
    requests=100, warmup=10, connections=20, jobs=20, source_mb=0.25, mentions=600, write_interval_s=0.0
)


# ---------------------------------------------------------------------------------------------
# 1. GitHub calls per event


@dataclass(frozen=True)
class EventCalls:
    event: str
    calls: tuple[tuple[str, str, int], ...]  # (method, path, status), token exchanges left out
    tokens: int  # installation token exchanges during the event (one an hour on github.com)
    answer: str  # what the webhook endpoint answered
    outcome: str  # what the stand-in shows afterwards
    target: int | None = None

    def count(self, kind: str) -> int:
        if kind == "graphql":
            return sum(1 for m, p, _ in self.calls if p == "/graphql")
        if kind == "get":
            return sum(1 for m, p, _ in self.calls if m == "GET")
        return sum(1 for m, p, _ in self.calls if m != "GET" and p != "/graphql")  # writes


def _is_token(request: tuple[str, str, int]) -> bool:
    return request[1].endswith("/access_tokens")


def run_event(bot, s, name: str, deliver, target: int | None = None) -> EventCalls:
    """Deliver one event to the served bot (`s` its stand-in), run its jobs, and say what it cost."""
    before = len(s.requests)
    runs, reviews = len(s.check_runs), len(s.reviews)
    review_comments, comments = len(s.review_comments), len(s.issue_comments)
    response = deliver()
    jobs = bot.drain()
    recorded = s.requests[before:]
    said = response.json()
    flags = [k for k in ("queued", "duplicate", "ignored") if k in said]
    answer = f"{response.status_code} " + ", ".join(f"{k} {said[k]}" if k == "queued" else k for k in flags)
    outcome = []
    for run in s.check_runs[runs:]:
        outcome.append(f"check run {run['conclusion']}: {run['output']['title']}")
    if len(s.reviews) > reviews:
        k = len(s.review_comments) - review_comments
        outcome.append(f"{k} review comment{'s' if k != 1 else ''}")
    fixed = sum(1 for c in s.review_comments if c["body"].startswith("✅ **Fixed in"))
    if fixed and any(m == "PATCH" and "/pulls/comments/" in p for m, p, _ in recorded):
        outcome.append(f"{fixed} comments marked fixed")
    if len(s.issue_comments) > comments:
        outcome.append(f"{len(s.issue_comments) - comments} new comment")
    if any(m == "PATCH" and "/issues/comments/" in p for m, p, _ in recorded):
        outcome.append("summary edited")
    refused = [r for r in recorded if r[2] >= 400]
    if refused:
        outcome.append(f"REFUSED {refused}")
    outcome.append(f"{len(jobs)} job(s) run")
    return EventCalls(
        name,
        tuple(r for r in recorded if not _is_token(r)),
        sum(1 for r in recorded if _is_token(r)),
        answer.strip(),
        "; ".join(outcome),
        target,
    )


def measure_calls(standin, shas: dict[str, str], scratch: Path) -> list[EventCalls]:
    from bot.app.jobs.handler import make_handler
    from bot.app.metrics import Metrics
    from bot.app.queue.sqlite import SQLiteQueue
    from bot.testing.appkit import (
        BotServer,
        check_suite_payload,
        comment_payload,
        pull_request_payload,
        settings_for,
    )

    settings = settings_for(standin, scratch / "calls.db")
    queue, metrics = SQLiteQueue(settings.db_path), Metrics()
    handler = make_handler(settings, queue, metrics, write_interval_s=0)

    def opened(number: int, head: str):
        standin.open_pull(number, "main", head)
        payload = pull_request_payload(standin, "opened", number, shas[head], shas["main"], "main")
        return lambda: bot.deliver("pull_request", payload)

    rows = []
    with BotServer(settings, queue, handler, metrics) as bot:

        def event(name: str, deliver, target: int | None = None) -> None:
            rows.append(run_event(bot, standin, name, deliver, target))

        # Different heads: a second pull request on the same head would find its blobs stored
        # already and skip the GraphQL read, which a typical pull request does not.
        event("PR opened, 1 finding; first PR on main", opened(1, "one"))
        event("PR opened, 3 findings; config cached", opened(2, "pr"), TARGET_CALLS)
        event("PR opened, clean", opened(3, "clean"))
        standin.update_pull(2, head="pr-fixed")
        sync = pull_request_payload(standin, "synchronize", 2, shas["pr-fixed"], shas["main"], "main")
        delivery = str(uuid.uuid4())
        event("push that fixes the doc (synchronize)", lambda: bot.deliver("pull_request", sync, delivery))
        event("redelivery of that push", lambda: bot.deliver("pull_request", sync, delivery))
        suite = check_suite_payload(standin, shas["pr-fixed"], (2, shas["main"]))
        event("the same push's check_suite.requested", lambda: bot.deliver("check_suite", suite))
        comment = standin.add_issue_comment(1, "/docs-sync explain", user="reviewer")
        explain = comment_payload(standin, 1, comment)
        event("/docs-sync explain", lambda: bot.deliver("issue_comment", explain))
    queue.close()
    return rows


def print_calls(rows: Sequence[EventCalls], prefix: str) -> None:
    print("GitHub calls per event (the stand-in's recorded requests; the installation token exchange,")
    print("once an hour on github.com, is counted apart)")
    header = f"{'event':<44} {'calls':>5} {'GET':>4} {'GraphQL':>7} {'writes':>6} {'token':>5} {'target':>7}"
    print(header)
    for r in rows:
        target = f"<= {r.target}" if r.target is not None else ""
        verdict = "" if r.target is None else ("ok" if len(r.calls) <= r.target else "MISS")
        print(
            f"{r.event:<44} {len(r.calls):>5} {r.count('get'):>4} {r.count('graphql'):>7} "
            f"{r.count('writes'):>6} {r.tokens:>5} {target:>7} {verdict}"
        )
        sequence = ", ".join(f"{m} {p.removeprefix(prefix)}" for m, p, _ in r.calls) or "no call"
        print(f"    answer {r.answer}; {r.outcome}")
        print(f"    {sequence}")


# ---------------------------------------------------------------------------------------------
# 2. Webhook intake


def bare_app(path: str):
    """The least a webhook receiver can do: the same route answering 202 without reading the body."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def accept(request) -> JSONResponse:
        return JSONResponse({"ok": True, "queued": 1}, status_code=202)

    return Starlette(routes=[Route(path, accept, methods=["POST"])])


def serve_child(kind: str, db: str) -> int:
    """The intake server process: the App (no worker) or the bare route, until stdin closes.

    Served as `bot.app.main.serve` serves the App: JSON log lines at INFO on stderr (the parent
    sends them to a file), uvicorn's default HTTP stack with build_server's options.
    """
    import uvicorn

    from bot.app.config import Settings
    from bot.app.intake.web import build_app
    from bot.app.logs import configure_logging
    from bot.app.metrics import Metrics
    from bot.app.queue.sqlite import SQLiteQueue

    settings = Settings(app_id=1, private_key="unused", webhook_secret=SECRET, db_path=db)
    configure_logging(settings.log_level)
    queue = SQLiteQueue(db) if kind == "app" else None
    app = build_app(settings, queue, Metrics()) if queue else bare_app(settings.webhook_path)
    # uvicorn binds the port itself, as in build_server: a socket handed to it would lack the
    # TCP_NODELAY asyncio sets on the ones it makes, and every answer would wait 40 ms for an ACK.
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, ws="none", lifespan="on")
    server = uvicorn.Server(config)

    def announce_then_wait() -> None:
        while not server.started:
            time.sleep(0.01)
        print(server.servers[0].sockets[0].getsockname()[1], flush=True)
        sys.stdin.read()  # until the parent closes it, or dies
        server.should_exit = True

    threading.Thread(target=announce_then_wait, daemon=True).start()
    server.run()
    if queue is not None:
        print(json.dumps(queue.counts()), flush=True)
        queue.close()
    return 0


class IntakeServer:
    """One intake server process on a loopback port; `stop()` returns what its queue holds."""

    def __init__(self, kind: str, scratch: Path):
        self.log = open(scratch / f"intake-{kind}.log", "wb")  # noqa: SIM115 (closed in stop)
        db = scratch / f"intake-{kind}.db"
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", kind, "--db", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            cwd=ROOT,
            text=True,
        )
        line = self.proc.stdout.readline()
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError(f"the {kind} intake server did not start; see {self.log.name}")
        self.port = int(line)

    def stop(self) -> dict | None:
        try:
            out, _ = self.proc.communicate(timeout=15)  # closes stdin: the server stops
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        self.log.close()
        last = (out or "").strip().splitlines()
        return json.loads(last[-1]) if last and last[-1].startswith("{") else None


def deliveries(standin, shas: dict[str, str], first: int, count: int, tag: str) -> list[bytes]:
    """Signed pull_request.opened deliveries as raw HTTP/1.1 requests, each for its own pull
    request (numbers from `first` on): no delivery supersedes another's job."""
    from bot.testing.appkit import pull_request_payload

    template = pull_request_payload(standin, "opened", 1, shas["pr"], shas["main"], "main")
    out = []
    for i in range(count):
        template["number"] = template["pull_request"]["number"] = first + i
        body = json.dumps(template).encode()
        signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        head = (
            f"POST {WEBHOOK_PATH} HTTP/1.1\r\n"
            "Host: 127.0.0.1\r\n"
            "Accept: */*\r\n"
            "User-Agent: GitHub-Hookshot/bench\r\n"
            "Content-Type: application/json\r\n"
            "X-GitHub-Event: pull_request\r\n"
            f"X-GitHub-Delivery: {tag}-{uuid.uuid4()}\r\n"
            "X-GitHub-Hook-ID: 1\r\n"
            f"X-Hub-Signature-256: {signature}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        out.append(head.encode() + body)
    return out


@dataclass(frozen=True)
class Load:
    seconds: float
    latencies: list[float]
    statuses: Counter

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:\s*(\d+)")


def _exchange(sock: socket.socket, request: bytes) -> int:
    """Send one request on a keep-alive connection and read its whole answer; the status."""
    sock.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    m = _CONTENT_LENGTH.search(head)
    length = int(m.group(1)) if m else 0
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        rest += chunk
    return int(head[9:12])


def send_all(port: int, requests: Sequence[bytes], connections: int) -> Load:
    """Send `requests` over `connections` keep-alive connections, one request at a time on each.

    A plain socket client, so the client's own Python work stays small next to the server's.
    """
    shares = [requests[i::connections] for i in range(connections)]
    latencies: list[list[float]] = [[] for _ in shares]
    statuses: list[Counter] = [Counter() for _ in shares]
    errors: list[BaseException] = []
    ready = threading.Barrier(len(shares) + 1)

    def client(i: int) -> None:
        try:
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                ready.wait()
                for request in shares[i]:
                    start = time.perf_counter()
                    status = _exchange(sock, request)
                    latencies[i].append(time.perf_counter() - start)
                    statuses[i][status] += 1
        except BaseException as exc:  # reported by the caller
            errors.append(exc)
            ready.abort()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(len(shares))]
    for t in threads:
        t.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        ready.wait()  # broken when a client could not connect; its error is raised below
    start = time.perf_counter()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    if errors:
        raise RuntimeError(f"a client connection failed: {errors[0]!r}")
    return Load(seconds, [x for part in latencies for x in part], sum(statuses, Counter()))


@dataclass(frozen=True)
class Intake:
    name: str
    load: Load
    queued: dict | None  # the App's queue counts after the run


def measure_intake(standin, shas: dict[str, str], scratch: Path, scale: Scale) -> list[Intake]:
    warm = deliveries(standin, shas, 10_000, scale.warmup, "warmup")
    measured = deliveries(standin, shas, 10_000 + scale.warmup, scale.requests, "bench")
    rows = []
    for kind, name in (
        ("bare", "bare starlette route answering 202"),
        ("app", "docs-sync POST /webhook (SQLite queue, no worker)"),
    ):
        server = IntakeServer(kind, scratch)
        try:
            send_all(server.port, warm, scale.connections)
            load = send_all(server.port, measured, scale.connections)
        finally:
            queued = server.stop()
        rows.append(Intake(name, load, queued))
    return rows


def nearest_rank(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def print_intake(rows: Sequence[Intake], scale: Scale) -> None:
    print(
        f"Webhook intake: {scale.requests:,} signed pull_request.opened deliveries (28 kB each, a new "
        f"X-GitHub-Delivery each) over {scale.connections} keep-alive connections to uvicorn on 127.0.0.1, "
        f"after {scale.warmup} not counted"
    )
    print(f"{'server':<52} {'deliv/s':>8} {'p50':>8} {'p99':>8} {'max':>8} {'ratio':>14}  answers")
    base = rows[0]
    for r in rows:
        lat = r.load.latencies
        ratio = f"{base.load.rate / r.load.rate:.1f}x bare" if r is not base else ""
        answers = ", ".join(f"{n} x {status}" for status, n in sorted(r.load.statuses.items()))
        print(
            f"{r.name:<52} {r.load.rate:>8.0f} {_ms(nearest_rank(lat, 0.5)):>8} "
            f"{_ms(nearest_rank(lat, 0.99)):>8} {_ms(max(lat)):>8} {ratio:>14}  {answers}"
        )
    app = rows[-1]
    p99 = nearest_rank(app.load.latencies, 0.99)
    verdict = "ok" if p99 < TARGET_P99_S else "MISS"
    print(f"    the App's p99 {_ms(p99)} against the target of {_ms(TARGET_P99_S)}: {verdict}")
    p50 = nearest_rank(app.load.latencies, 0.5) / nearest_rank(base.load.latencies, 0.5)
    print(
        f"    ratio = time per delivery against the bare route ({base.load.rate / app.load.rate:.1f}x); "
        f"p50 answer time {p50:.1f}x the bare route's"
    )
    if app.queued is not None:
        print(
            f"    the App's queue afterwards: {app.queued.get('queued', 0):,} jobs queued (warm-up included)"
        )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}ms" if seconds < 1 else f"{seconds:.2f}s"


# ---------------------------------------------------------------------------------------------
# 3. Worker memory


def _rss_kb() -> int | None:
    """This process's resident set now, from /proc (Linux); None elsewhere."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def _maxrss_kb() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # bytes on macOS, KiB on Linux


@dataclass(frozen=True)
class Sample:
    job: int  # jobs run so far
    seconds: float  # the last job's wall time
    peak_kb: int  # ru_maxrss so far
    rss_kb: int | None  # resident now
    blocks: int  # sys.getallocatedblocks(): the Python objects' memory blocks alive now


def _sample(job: int, seconds: float) -> Sample:
    return Sample(job, seconds, _maxrss_kb(), _rss_kb(), sys.getallocatedblocks())


def worker_child(config_path: str) -> int:
    """The worker process: one job at a time, as the worker thread runs them; prints JSON samples."""
    from bot.app.config import Settings
    from bot.app.jobs.handler import make_handler
    from bot.app.logs import configure_logging
    from bot.app.metrics import Metrics
    from bot.app.queue.sqlite import SQLiteQueue
    from bot.app.queue.worker import Worker

    cfg = json.loads(Path(config_path).read_text())
    settings = Settings(
        app_id=cfg["app_id"],
        private_key=cfg["private_key"],
        webhook_secret=SECRET,
        github_api_url=cfg["api_url"],
        db_path=cfg["db"],
    )
    configure_logging(settings.log_level)
    queue, metrics = SQLiteQueue(settings.db_path), Metrics()
    worker = Worker(queue, make_handler(settings, queue, metrics, write_interval_s=0), metrics)
    samples = [_sample(0, 0.0)]
    for i, spec in enumerate(cfg["jobs"], 1):
        queue.enqueue(f"job-{i}", spec["kind"], spec["payload"], key=spec["key"], supersede=True)
        start = time.perf_counter()
        while worker.run_once() is not None:
            pass
        samples.append(_sample(i, time.perf_counter() - start))
    print(json.dumps({"samples": [vars(s) for s in samples], "counts": queue.counts()}), flush=True)
    queue.close()
    return 0


# A spawned process's ru_maxrss starts at the peak RSS of the process that spawned it (Linux
# keeps it across exec), and this script holds every delivery of the intake run. A small fresh
# interpreter spawns the worker instead; the floor is then that launcher's own few MB.
LAUNCHER = "import subprocess, sys\nsys.exit(subprocess.call(sys.argv[1:]))\n"


@dataclass(frozen=True)
class Memory:
    samples: list[Sample]  # one before the first job, then one after each
    counts: dict[str, int]
    refused: int  # stand-in answers of 4xx/5xx during the run
    seconds: float


def measure_memory(standin, shas: dict[str, str], scratch: Path, jobs: int) -> Memory:
    from bot.app.intake.events import route
    from bot.testing.appkit import pull_request_payload

    standin.reset()
    specs = []
    for i in range(jobs):
        number, head = 1000 + i, JOB_HEADS[i % len(JOB_HEADS)]
        standin.open_pull(number, "main", head)
        payload = pull_request_payload(standin, "opened", number, shas[head], shas["main"], "main")
        (spec,) = route("pull_request", payload)
        specs.append({"kind": spec.kind, "key": spec.key, "payload": spec.payload})
    config = scratch / "worker.json"
    config.write_text(
        json.dumps(
            {
                "app_id": standin.app_id,
                "private_key": standin.private_key_pem,
                "api_url": standin.url,
                "db": str(scratch / "worker.db"),
                "jobs": specs,
            }
        )
    )
    start = time.perf_counter()
    with open(scratch / "worker.log", "wb") as log:
        worker = [sys.executable, str(Path(__file__).resolve()), "--worker", str(config)]
        proc = subprocess.run(
            [sys.executable, "-S", "-c", LAUNCHER, *worker],
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=ROOT,
            text=True,
            timeout=600,
        )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"the worker process failed; see {scratch / 'worker.log'}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    refused = sum(1 for r in standin.requests if r[2] >= 400)
    return Memory([Sample(**s) for s in result["samples"]], result["counts"], refused, seconds)


def print_memory(m: Memory) -> None:
    n = len(m.samples) - 1
    print(
        f"Worker memory: one process runs {n} check jobs against the stand-in, one after another "
        f"(heads cycling {', '.join(JOB_HEADS)}; a new pull request each). Peak RSS is that process's "
        "own getrusage ru_maxrss, RSS now /proc/self/statm, Python blocks sys.getallocatedblocks()."
    )
    print(f"{'measurement':<52} {'peak RSS':>10} {'RSS now':>10} {'Py blocks':>10}")
    points = [(0, "before the first job (imports, queue, handler)"), (1, "after job 1"), (LEAK_FROM, "")]
    points += [(LEAK_FROM + (n - LEAK_FROM) * k // 4, "") for k in (1, 2, 3, 4)]
    seen = set()
    for job, label in points:
        if job > n or job in seen:
            continue
        seen.add(job)
        s = m.samples[job]
        print(f"{label or f'after job {job}':<52} {_mb(s.peak_kb):>10} {_mb(s.rss_kb):>10} {s.blocks:>10,}")
    if n > LEAK_FROM:
        half = (LEAK_FROM + n) // 2
        last = m.samples[n]
        for label, a, jobs in (
            (f"growth from job {LEAK_FROM} to job {n}", LEAK_FROM, 0),
            ("  per job", LEAK_FROM, n - LEAK_FROM),
            (f"  per job, second half (job {half} to job {n})", half, n - half),
        ):
            first = m.samples[a]
            rss = _delta(last.rss_kb - first.rss_kb, jobs) if None not in (first.rss_kb, last.rss_kb) else ""
            blocks = last.blocks - first.blocks
            blocks_text = f"{blocks:+,}" if jobs == 0 else f"{blocks / jobs:+,.0f}"
            print(f"{label:<52} {_delta(last.peak_kb - first.peak_kb, jobs):>10} {rss:>10} {blocks_text:>10}")
    times = [s.seconds for s in m.samples[1:]]
    print(
        f"    job time median {_ms(statistics.median(times))}, p90 {_ms(nearest_rank(times, 0.9))}, "
        f"first {_ms(times[0])}; {m.seconds:.1f}s for the process in all; queue: "
        + ", ".join(f"{k} {v}" for k, v in m.counts.items() if v)
        + (f"; stand-in REFUSED {m.refused} calls" if m.refused else "")
    )


def _mb(kib: int | None) -> str:
    return "" if kib is None else f"{kib / 1024:.1f} MB"


def _delta(kib: int, jobs: int) -> str:
    """A growth in all (jobs 0) or per job."""
    return f"{kib / 1024:+.1f} MB" if jobs == 0 else f"{kib / jobs:+.1f} kB"


# ---------------------------------------------------------------------------------------------
# 4. The analysis' memory per MB of source

BIG_SOURCE = "trainer/arguments.py"  # an `argparse` source of the trainer's rule


def big_argparse_module(megabytes: float) -> str:
    """An argparse module of about `megabytes` MB: one function adding a flag per line."""
    lines = ["import argparse", "", "", "def add_args(parser: argparse.ArgumentParser) -> None:"]
    size, i = 0, 0
    while size < megabytes * 1024 * 1024:
        line = f'    parser.add_argument("--opt-{i}", type=int, default={i}, help="Option {i} of many.")'
        lines.append(line)
        size, i = size + len(line) + 1, i + 1
    return "\n".join(lines) + "\n"


def analysis_child(config_path: str) -> int:
    """The worker process of the analysis memory run: a small check, then the big one; prints JSON."""
    from bot.app.config import Budget, Settings
    from bot.app.jobs.handler import make_handler
    from bot.app.logs import configure_logging
    from bot.app.metrics import Metrics
    from bot.app.queue.sqlite import SQLiteQueue
    from bot.app.queue.worker import Worker

    cfg = json.loads(Path(config_path).read_text())
    # Budgets out of the way: this run measures what the analysis costs, not where it stops.
    budget = Budget(source_mb=1024, findings=10**6, seconds=3600, memory_mb=64 * 1024)
    settings = Settings(
        app_id=cfg["app_id"],
        private_key=cfg["private_key"],
        webhook_secret=SECRET,
        github_api_url=cfg["api_url"],
        db_path=cfg["db"],
        budget=budget,
    )
    configure_logging("INFO")  # the analysis logs its own peak memory: the parent reads it there
    queue, metrics = SQLiteQueue(settings.db_path), Metrics()
    worker = Worker(queue, make_handler(settings, queue, metrics, write_interval_s=0), metrics)
    samples = [(_maxrss_kb(), 0.0)]
    for i, spec in enumerate(cfg["jobs"], 1):
        queue.enqueue(f"job-{i}", spec["kind"], spec["payload"], key=spec["key"])
        start = time.perf_counter()
        while worker.run_once() is not None:
            pass
        samples.append((_maxrss_kb(), time.perf_counter() - start))
    print(json.dumps({"samples": samples, "counts": queue.counts()}), flush=True)
    queue.close()
    return 0


@dataclass(frozen=True)
class AnalysisMemory:
    source_bytes: int
    flags: int
    worker_kb: list[int]  # the worker's peak RSS: at start, after the small job, after the big one
    analysis_kb: list[int]  # the analysis process's own peak (VmHWM), of each job
    seconds: float  # the big job's
    title: str


_ANALYSIS_PEAK = re.compile(r"^analysis: .* peak memory ([\d,.]+) (MB|kB)$")


def _analysis_peaks_kb(log: Path) -> list[int]:
    """The analysis processes' peaks, in the order of the jobs, from the worker's JSON log lines."""
    peaks = []
    for line in log.read_text().splitlines():
        with contextlib.suppress(ValueError):
            m = _ANALYSIS_PEAK.match(json.loads(line).get("message", ""))
            if m:
                peaks.append(int(float(m.group(1).replace(",", "")) * (1024 if m.group(2) == "MB" else 1)))
    return peaks


def measure_analysis_memory(
    repo: Path, standin, shas: dict[str, str], scratch: Path, mb: float
) -> AnalysisMemory:
    from bot.app.intake.events import route
    from bot.testing.appkit import pull_request_payload
    from bot.testing.standin import add_commit

    text = big_argparse_module(mb)
    shas["big"] = add_commit(repo, {BIG_SOURCE: text}, parent="main", branch="big")
    standin.reset()
    specs = []
    for number, head in ((1, "one"), (2, "big")):
        standin.open_pull(number, "main", head)
        payload = pull_request_payload(standin, "opened", number, shas[head], shas["main"], "main")
        (spec,) = route("pull_request", payload)
        specs.append({"kind": spec.kind, "key": spec.key, "payload": spec.payload})
    config = scratch / "analysis.json"
    config.write_text(
        json.dumps(
            {
                "app_id": standin.app_id,
                "private_key": standin.private_key_pem,
                "api_url": standin.url,
                "db": str(scratch / "analysis.db"),
                "jobs": specs,
            }
        )
    )
    with open(scratch / "analysis.log", "wb") as log:
        child = [sys.executable, str(Path(__file__).resolve()), "--analysis", str(config)]
        proc = subprocess.run(
            [sys.executable, "-S", "-c", LAUNCHER, *child],
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=ROOT,
            text=True,
            timeout=1800,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"the analysis memory run failed; see {scratch / 'analysis.log'}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    run = next(r for r in standin.check_runs if r["head_sha"] == shas["big"])
    title = f"{run['conclusion']}: {run['output']['title']}"
    worker_kb = [kb for kb, _ in result["samples"]]
    peaks = _analysis_peaks_kb(scratch / "analysis.log")
    if len(peaks) != 2:
        raise RuntimeError(f"expected the two analyses' peaks in {scratch / 'analysis.log'}, found {peaks}")
    seconds = result["samples"][-1][1]
    return AnalysisMemory(len(text.encode()), text.count("add_argument"), worker_kb, peaks, seconds, title)


def print_analysis_memory(m: AnalysisMemory) -> None:
    mb = m.source_bytes / (1 << 20)
    print(
        f"Analysis memory per MB of source: a check of a pull request that rewrites {BIG_SOURCE} as "
        f"a {mb:.2f} MB argparse module ({m.flags:,} flags), after a small one. The worker's peak RSS "
        "(ru_maxrss); the analysis runs in a process of its own per job, whose own peak (VmHWM) it logs"
    )
    print(f"{'process':<44} {'small PR':>10} {'big PR':>10} {'per MB of source':>17}")
    for name, before, after in (
        ("worker (intake, queue, GitHub calls)", m.worker_kb[1], m.worker_kb[2]),
        ("analysis (python -m bot.app.jobs.sandbox)", m.analysis_kb[0], m.analysis_kb[1]),
    ):
        per_mb = (after - before) / 1024 / mb
        print(f"{name:<44} {_mb(before):>10} {_mb(after):>10} {per_mb:>+14.0f} MB")
    print(f"    the big pull request's job took {m.seconds:.1f}s; check run {m.title}")


# ---------------------------------------------------------------------------------------------
# 5. A normal pull request queued behind a hostile one


HOSTILE_OWNER, HOSTILE_NAME = "hostile-org", "hostile"


class ByOwner:
    """The worker's handler for two repositories served by two stand-ins: each job goes to the
    handler made for its repository's stand-in."""

    def __init__(self, handlers: dict):
        self.handlers = handlers

    def __call__(self, job):
        return self.handlers[job.payload["owner"]](job)

    def abandon(self, job, error: str):
        return self.handlers[job.payload["owner"]].abandon(job, error)


@dataclass(frozen=True)
class Starvation:
    mentions: int
    threads: int
    hostile_seconds: float
    hostile_writes: int
    hostile_title: str
    normal_wait: float
    normal_title: str


def _completed(standin, sha: str) -> dict | None:
    return next((r for r in standin.check_runs if r["head_sha"] == sha and r["status"] == "completed"), None)


def measure_starvation(repo: Path, standin, shas: dict[str, str], scratch: Path, scale: Scale) -> Starvation:
    from bot.app.intake.events import route
    from bot.app.jobs.handler import make_handler
    from bot.app.metrics import Metrics
    from bot.app.queue.sqlite import SQLiteQueue
    from bot.app.queue.worker import Worker
    from bot.testing.appkit import DOC, pull_request_payload, settings_for
    from bot.testing.standin import GitHubStandIn, add_commit

    doc = run_git_show(repo, f"{shas['main']}:{DOC}")
    bogus = "".join(f"- `--bogus-flag-{i}` tunes part {i} of the trainer.\n" for i in range(scale.mentions))
    shas["hostile"] = add_commit(
        repo, {DOC: doc + "\n## Tuning\n\n" + bogus}, parent="main", branch="hostile"
    )
    limits = {"content_limit_per_minute": 10**9, "content_limit_per_hour": 10**9}
    standin.reset()
    with GitHubStandIn(repo, owner=HOSTILE_OWNER, name=HOSTILE_NAME, **limits) as hostile:
        queue, metrics = SQLiteQueue(str(scratch / "starvation.db")), Metrics()
        handlers = {}
        for s in (standin, hostile):
            settings = settings_for(s, scratch / "starvation.db")
            handlers[s.owner] = make_handler(
                settings, queue, metrics, write_interval_s=scale.write_interval_s
            )
        worker = Worker(queue, ByOwner(handlers), metrics, threads=settings.workers, poll_interval=0.05)
        hostile.open_pull(1, "main", "hostile")
        standin.open_pull(1, "main", "one")
        times = {}
        for name, s, head in (("hostile", hostile, "hostile"), ("normal", standin, "one")):
            payload = pull_request_payload(s, "opened", 1, shas[head], shas["main"], "main")
            (spec,) = route("pull_request", payload)
            queue.enqueue(f"{name}-1", spec.kind, spec.payload, key=spec.key, supersede=True)
            times[name] = time.perf_counter()
        worker.start()
        try:
            done = {}
            deadline = time.perf_counter() + 1800
            while len(done) < 2 and time.perf_counter() < deadline:
                for name, s, head in (("hostile", hostile, "hostile"), ("normal", standin, "one")):
                    if name not in done and _completed(s, shas[head]) is not None:
                        done[name] = time.perf_counter()
                time.sleep(0.02)
        finally:
            worker.stop(timeout=60)
            queue.close()
        if len(done) < 2:
            raise RuntimeError(f"the hostile run did not finish: {sorted(done)} done")
        writes = sum(
            1 for m, p, _ in hostile.requests if m != "GET" and p != "/graphql" and not _is_token((m, p, 0))
        )
        hostile_run, normal_run = _completed(hostile, shas["hostile"]), _completed(standin, shas["one"])
        return Starvation(
            scale.mentions,
            settings.workers,
            done["hostile"] - times["hostile"],
            writes,
            f"{hostile_run['conclusion']}: {hostile_run['output']['title']}",
            done["normal"] - times["normal"],
            f"{normal_run['conclusion']}: {normal_run['output']['title']}",
        )


def run_git_show(repo: Path, what: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "show", what], capture_output=True, check=True
    ).stdout.decode()


def print_starvation(r: Starvation, scale: Scale) -> None:
    pacing = f"{scale.write_interval_s:g} s" + (" as in production" if scale.write_interval_s == 1 else "")
    print(
        f"A normal pull request behind a hostile one: a pull request of {HOSTILE_OWNER}/{HOSTILE_NAME} "
        f"adding {r.mentions:,} bogus flag mentions to the doc, then a normal one (one changed default) "
        f"of another repository, queued right after it; {r.threads} worker threads; GitHub writes "
        f"spaced {pacing}"
    )
    print(
        f"    hostile pull request: {r.hostile_seconds:.1f}s to its check run's end, "
        f"{r.hostile_writes} writes; {r.hostile_title}"
    )
    print(
        f"    normal pull request: waited {r.normal_wait:.1f}s from its delivery to its check run's "
        f"end; {r.normal_title}"
    )


# ---------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 deliveries and 20 jobs (the smoke test)")
    parser.add_argument("--requests", type=int, help="deliveries per intake measurement (default 2,000)")
    parser.add_argument("--connections", type=int, help="client connections sending at once (default 4)")
    parser.add_argument("--jobs", type=int, help="check jobs of the memory run (default 400)")
    parser.add_argument("--keep", metavar="DIR", help="build everything in DIR and leave it there")
    parser.add_argument("--serve", choices=("app", "bare"), help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--worker", metavar="CONFIG", help=argparse.SUPPRESS)
    parser.add_argument("--analysis", metavar="CONFIG", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve_child(args.serve, args.db)
    if args.worker:
        return worker_child(args.worker)
    if args.analysis:
        return analysis_child(args.analysis)

    scale = QUICK if args.quick else FULL
    scale = replace(
        scale,
        requests=args.requests or scale.requests,
        connections=args.connections or scale.connections,
        jobs=max(args.jobs or scale.jobs, 1),
    )
    from bot.testing.appkit import build_repo
    from bot.testing.standin import GitHubStandIn

    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="docs-sync-bench-app-"))
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        repo, shas = build_repo(scratch)
        # github.com's secondary limit (80 content writes a minute) would turn the memory run
        # into a run of retries; the call counts stay far under it either way.
        limits = {"content_limit_per_minute": 10**9, "content_limit_per_hour": 10**9}
        with GitHubStandIn(repo, **limits) as standin:
            print(
                f"Trainer repository (bot/testing/appkit.py) behind the GitHub stand-in at {standin.url}; "
                f"scratch {scratch}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}."
            )
            print()
            calls = measure_calls(standin, shas, scratch)
            print_calls(calls, f"/repos/{standin.owner}/{standin.name}/")
            print()
            intake = measure_intake(standin, shas, scratch, scale)
            print_intake(intake, scale)
            print()
            memory = measure_memory(standin, shas, scratch, scale.jobs)
            print_memory(memory)
            print()
            analysis = measure_analysis_memory(repo, standin, shas, scratch, scale.source_mb)
            print_analysis_memory(analysis)
            print()
            starvation = measure_starvation(repo, standin, shas, scratch, scale)
            print_starvation(starvation, scale)
        print()
        print(f"{time.perf_counter() - started:.1f}s in all")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
