"""Many processes on one PostgreSQL: 2 web and 3 worker processes, 1,000 signed deliveries across
50 repositories, one worker SIGKILLed mid-job and restarted, one web process restarted.

    python3 bench/bench_scale.py [--deliveries 1000] [--repos 50]

The web processes are the real `docs-sync serve --no-worker`; the workers are the real
`docs-sync worker` loop (bot.app.web.work) with a job handler that stands for the check: it
sleeps as long as the pull request is big (one huge pull request takes HUGE_S) and records each
finished run in the database, so the figures are the queue's, not the analysis's. It prints:
deliveries acknowledged (p50/p99), jobs done exactly once (finished handler runs per job),
drain time against one worker on the same load, and the wait of a small pull request queued
just behind a huge one of another repository. Needs PostgreSQL's binaries (initdb, pg_ctl)
and the postgres extra.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HUGE_S = 8.0
SECRET = "bench-secret"


def job_seconds(payload: dict) -> float:
    if payload.get("repo") == "repo00" and payload.get("pr") == 1:
        return HUGE_S
    digest = hashlib.sha256(f"{payload.get('repo')}#{payload.get('pr')}".encode()).digest()
    return 0.05 + digest[0] / 255 * 0.15  # 50-200 ms: a small pull request


def worker_main(url: str) -> None:
    """One worker process: the real worker loop, the stand-in handler."""
    import psycopg

    from bot.app import web

    local = threading.local()

    def factory(settings, queue, metrics):
        def handle(job):
            conn = getattr(local, "conn", None)
            if conn is None:
                conn = local.conn = psycopg.connect(url, autocommit=True)
            record = "INSERT INTO bench_runs (job_id, pid, done) VALUES (%s, %s, %s)"
            conn.execute(record, (job.id, os.getpid(), False))
            time.sleep(job_seconds(job.payload))
            conn.execute(record, (job.id, os.getpid(), True))

        return handle

    web.work(app_env(url), factory)


def app_env(url: str) -> dict[str, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    return {
        **os.environ,
        "APP_ID": "1",
        "PRIVATE_KEY": pem,
        "WEBHOOK_SECRET": SECRET,
        "DATABASE_URL": url,
        "DOCS_SYNC_WORKERS": "4",
        "LOG_LEVEL": "WARNING",
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_web(url: str, port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--no-worker", "--port", str(port)],
        env=app_env(url),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    import httpx

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"web process on {port} did not start")


def start_worker(url: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, "--worker", url], cwd=ROOT, stdout=subprocess.DEVNULL)


def delivery(i: int, repos: int) -> tuple[str, bytes]:
    repo, pr = f"repo{i % repos:02}", i // repos + 1
    payload = {
        "action": "opened",
        "number": pr,
        "pull_request": {
            "number": pr,
            "head": {"sha": hashlib.sha1(f"{repo}-{pr}".encode()).hexdigest()},
            "base": {"sha": "0" * 40, "ref": "main"},
        },
        "repository": {"name": repo, "owner": {"login": "bench-org"}, "full_name": f"bench-org/{repo}"},
        "installation": {"id": 100 + i % repos % 5},
    }
    return str(uuid.uuid4()), json.dumps(payload).encode()


def send(ports: list[int], n: int, body: bytes, delivery_id: str) -> tuple[float, int]:
    """POST one delivery, to the other web process when one does not answer; (seconds, tries)."""
    import httpx

    from bot.app.web import sign

    headers = {
        "X-GitHub-Event": "pull_request",
        "X-GitHub-Delivery": delivery_id,
        "X-Hub-Signature-256": sign(SECRET, body),
        "Content-Type": "application/json",
    }
    started = time.monotonic()
    for attempt in range(40):
        port = ports[(n + attempt) % len(ports)]
        try:
            r = httpx.post(f"http://127.0.0.1:{port}/webhook", content=body, headers=headers, timeout=10)
            if r.status_code in (200, 202):
                return time.monotonic() - started, attempt + 1
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"delivery {delivery_id} never acknowledged")


def drain(url: str, total: int, timeout: float = 600) -> float:
    import psycopg

    started = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() - started < timeout:
            (done,) = conn.execute("SELECT COUNT(*) FROM jobs WHERE state = 'done'").fetchone()
            if done >= total:
                return time.monotonic()
            time.sleep(0.05)
    raise RuntimeError("the queue did not drain")


def wait_connected(url: str, processes: int) -> None:
    """Until every process has its database connection (a worker opens its queue once started)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            (n,) = conn.execute(
                "SELECT COUNT(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
            if n >= processes:
                return
            time.sleep(0.1)
    raise RuntimeError("the processes did not connect")


def drain_only(cluster, deliveries: int, repos: int, workers: int) -> float:
    """Seconds `workers` worker processes take to run the same jobs, queued before they start."""
    from bot.app.database import open_queue
    from bot.app.events import route
    from bot.app.queue import NewJob

    url = cluster.new_database()
    with open_queue(url) as q:
        jobs = []
        for i in range(deliveries):
            delivery_id, body = delivery(i, repos)
            (spec,) = route("pull_request", json.loads(body))
            jobs.append(NewJob(delivery_id, spec.kind, spec.payload, spec.key, True))
        q.enqueue_many(jobs)
        with q._tx() as db:
            db.execute("CREATE TABLE bench_runs (job_id BIGINT, pid INT, done BOOLEAN)")
    started = time.monotonic()
    pool = [start_worker(url) for _ in range(workers)]
    try:
        return drain(url, deliveries) - started
    finally:
        for p in pool:
            p.send_signal(signal.SIGTERM)
        for p in pool:
            p.wait(40)


def busy_worker(url: str, pool: list[subprocess.Popen]) -> int:
    """The index of a worker process running a job now (waits for one)."""
    import psycopg

    pids = {p.pid: i for i, p in enumerate(pool)}
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            rows = conn.execute(
                "SELECT pid FROM bench_runs s WHERE NOT done AND NOT EXISTS "
                "(SELECT 1 FROM bench_runs d WHERE d.done AND d.job_id = s.job_id AND d.pid = s.pid)"
            ).fetchall()
            for (pid,) in rows:
                if pid in pids:
                    return pids[pid]
            time.sleep(0.005)


def run(cluster, deliveries: int, repos: int, workers: int, chaos: bool) -> dict:
    import psycopg

    from bot.app.database import open_queue

    url = cluster.new_database()
    open_queue(url).close()  # the schema, before the processes race for it
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE bench_runs (job_id BIGINT, pid INT, done BOOLEAN)")
    ports = [free_port(), free_port()]
    webs = [start_web(url, p) for p in ports]
    pool = [start_worker(url) for _ in range(workers)]
    wait_connected(url, len(webs) + len(pool))
    loads = [delivery(i, repos) for i in range(deliveries)]
    # The huge pull request of repo00 first, then a small one of repo01 right behind it.
    loads.sort(
        key=lambda d: json.loads(d[1])["number"] != 1 or json.loads(d[1])["repository"]["name"] > "repo01"
    )
    latencies: list[float] = []
    retried = 0
    events: list[str] = []
    lock = threading.Lock()

    def one(n: int) -> None:
        nonlocal retried
        delivery_id, body = loads[n]
        seconds, tries = send(ports, n, body, delivery_id)
        with lock:
            latencies.append(seconds)
            retried += tries > 1

    started = time.monotonic()
    with ThreadPoolExecutor(4) as ex:  # GitHub sends deliveries a few at a time
        futures = []
        for n in range(deliveries):
            futures.append(ex.submit(one, n))
            if n < 2:
                futures[-1].result()  # the huge one, then the small one, in that order
            if chaos and n == deliveries * 3 // 10:
                webs[0].send_signal(signal.SIGTERM)
                webs[0].wait(30)
                webs[0] = start_web(url, ports[0])
                events.append(f"web 1 restarted (SIGTERM) at delivery {n}")
            if chaos and n == deliveries // 2:
                victim = busy_worker(url, pool)
                pool[victim].kill()  # SIGKILL, in the middle of a job
                pool[victim].wait(10)
                pool[victim] = start_worker(url)
                events.append(f"worker {victim + 1} SIGKILLed mid-job and restarted at delivery {n}")
            time.sleep(0.002)
        for f in futures:
            f.result()
    acked = time.monotonic()
    finished = drain(url, deliveries)
    with psycopg.connect(url, autocommit=True) as conn:
        counts = dict(conn.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall())
        runs = conn.execute("SELECT job_id, COUNT(*) FROM bench_runs WHERE done GROUP BY job_id").fetchall()
        small = conn.execute(
            "SELECT claimed_at - created_at FROM jobs WHERE key = 'bench-org/repo01#1'"
        ).fetchone()[0]
        interrupted = conn.execute(
            "SELECT COUNT(*) FROM jobs WHERE last_error LIKE 'interrupted%%'"
        ).fetchone()[0]
    for p in webs + pool:
        p.send_signal(signal.SIGTERM)
    for p in webs + pool:
        try:
            p.wait(40)
        except subprocess.TimeoutExpired:
            p.kill()
    latencies.sort()
    return {
        "acked": len(latencies),
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
        "retried": retried,
        "ack_s": acked - started,
        "drain_s": finished - started,
        "counts": counts,
        "jobs_run": len(runs),
        "run_twice": sum(1 for _, n in runs if n > 1),
        "never_run": deliveries - len(runs),
        "small_wait_s": small,
        "interrupted": interrupted,
        "events": events,
    }


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--repos", type=int, default=50)
    args = parser.parse_args()
    from tests.app.pgserver import Cluster

    cluster = Cluster()
    try:
        many = run(cluster, args.deliveries, args.repos, workers=3, chaos=True)
        drain3 = drain_only(cluster, args.deliveries, args.repos, 3)
        drain1 = drain_only(cluster, args.deliveries, args.repos, 1)
    finally:
        cluster.stop()
    print(
        f"{args.deliveries} deliveries across {args.repos} repositories;"
        " 2 web, 3 worker processes (4 threads)"
    )
    for event in many["events"]:
        print(f"  {event}")
    print(
        f"acknowledged: {many['acked']}/{args.deliveries}"
        f" (p50 {many['p50_ms']:.1f} ms, p99 {many['p99_ms']:.1f} ms;"
        f" {many['retried']} sent again to the other web process while one restarted)"
    )
    print(
        f"jobs: {many['counts']}; handler finished {many['jobs_run']} jobs, {many['never_run']} never,"
        f" {many['run_twice']} twice (re-run after the SIGKILL: {many['interrupted']} job(s) recovered)"
    )
    print(
        f"intake and drain with the restarts: all {args.deliveries} done"
        f" {many['drain_s']:.1f} s after the first"
    )
    print(
        f"drain of the same {args.deliveries} jobs queued ahead: {drain3:.1f} s with 3 workers,"
        f" {drain1:.1f} s with 1 (1 worker takes {drain1 / drain3:.2f}x as long)"
    )
    print(
        f"a small pull request queued right behind a huge one ({HUGE_S:g} s) of another repository"
        f" waited {many['small_wait_s'] * 1000:.0f} ms to start"
    )
    ok = (
        many["acked"] == args.deliveries
        and many["never_run"] == 0
        and many["counts"].get("done") == args.deliveries
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
