"""Many processes on one PostgreSQL, running the real check against a GitHub of many repositories.

    python3 bench/bench_scale.py [--deliveries 1000] [--repos 50] [--quick] [--write-interval 0]

The GitHub side is the stand-in's GitHubHost (bot/testing/standin/) in a process of its own:
`--repos` git repositories (5 to an installation, as organisations have them), each with a
config, an argparse module and the doc page citing its flags, and a pull request per delivery
(a third rename a documented flag, a third change its documented default, a third only a help
string), each with its own check runs, reviews and comments. One pull request is huge (it
changes `--huge-files` modules a rule reads, 500 by default); the next delivery is a small pull
request of another repository.

The App is the real one: 2 web processes (`docs-sync serve --no-worker`) verify each signed
delivery and store it; 3 worker processes (`docs-sync worker`'s loop, 4 threads each) run the
real check job, analysis sandbox included, against the stand-in, with GitHub writes spaced
`--write-interval` seconds per installation (GitHub asks for 1 s; 0 here by default, so the
figures are the App's and not GitHub's write budget, and the stand-in's content-creation limit
is lifted to match). During the intake one web process is restarted (SIGTERM; deliveries go to
the other meanwhile) and one worker is SIGKILLed in the middle of its jobs and restarted.

It prints: deliveries acknowledged (p50/p99 from the sender's side); jobs by state and how many
ran more than once (the SIGKILLed worker's, recovered); duplicates on GitHub counted from the
stand-in's own records (check runs per head commit, reviews and summary comments per pull
request, review comments per line and text); the drain of the same load queued ahead, with 3
worker processes and with 1 (a ratio, same run, same machine); and the wait of the small pull
request queued right behind the huge one. Exit status 1 when a delivery was not acknowledged, a
job did not end `done`, or anything was posted twice.

Needs PostgreSQL's binaries (initdb, pg_ctl) and the postgres extra; `--quick` (40 deliveries,
8 repositories) takes about a minute on an idle machine.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SECRET = "bench-secret"
REPOS_PER_INSTALLATION = 5
HUGE = ("org00", "repo00", 1)  # the huge pull request
SMALL = ("org00", "repo01", 1)  # queued right behind it, in another repository

CONFIG = """\
rules:
  - id: cli-page
    docs:
      - path: docs/cli.md
    sources:
      - id: cli
        kind: argparse
        paths: ["tool/*.py"]
"""
# The huge pull request's repository documents its generated modules on a page of their own, so
# its other pull requests (tool/cli.py) do not reach them.
GEN_RULE = """\
  - id: generated-page
    docs:
      - path: docs/generated.md
    sources:
      - id: generated
        kind: argparse
        paths: ["gen/**/*.py"]
"""
CLI = """\
import argparse


def build(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--alpha", type=int, default=1, help="How many alphas.")
    parser.add_argument("--beta", type=str, default="fast", choices=["fast", "slow"], help="The mode.")
    parser.add_argument("--gamma", action="store_true", help="Turn gamma on.")
"""
DOC = """\
# Command line

- `--alpha` sets how many alphas run. Default: `1`.
- `--beta` picks the mode: `fast` (the default) or `slow`.
- `--gamma` turns gamma on.
"""


def generated(i: int, default: int) -> str:
    """One of the huge pull request's modules: a flag of its own, every 7th cited by its page."""
    return (
        "import argparse\n\n\ndef build(parser: argparse.ArgumentParser) -> None:\n"
        f'    parser.add_argument("--gen-{i}", type=int, default={default}, help="Generated {i}.")\n'
    )


def pull_change(k: int) -> str:
    """Pull request k's tool/cli.py: a rename, a new default, or a help string (no finding)."""
    if k % 3 == 0:
        return CLI.replace('"--alpha"', f'"--alpha-{k}"')
    if k % 3 == 2:
        return CLI.replace("default=1,", f"default={k + 1},")
    return CLI.replace("Turn gamma on.", f"Turn gamma on ({k}).")


# -- the GitHub side ------------------------------------------------------------------------------


def build_repository(root: Path, owner: str, name: str, pulls: int, huge_files: int) -> dict:
    from bot.testing.standin import add_commit, make_repo

    files = {".github/docs-sync.yml": CONFIG, "tool/cli.py": CLI, "docs/cli.md": DOC}
    huge = (owner, name, 1)[:2] == HUGE[:2]
    if huge:
        files[".github/docs-sync.yml"] = CONFIG + GEN_RULE
        files["docs/generated.md"] = "# Generated\n\n" + "".join(
            f"- `--gen-{i}`\n" for i in range(0, huge_files, 7)
        )
        files.update({f"gen/m{i:04}.py": generated(i, i) for i in range(huge_files)})
    repo_dir, (base,) = make_repo(root / owner, [files], name=name)
    heads = []
    for k in range(1, pulls + 1):
        change = {"tool/cli.py": pull_change(k)}
        if huge and k == HUGE[2]:
            change = {f"gen/m{i:04}.py": generated(i, i + 1) for i in range(huge_files)}
        heads.append(add_commit(repo_dir, change, parent="main", branch=f"pr-{k}"))
    return {"dir": str(repo_dir), "owner": owner, "name": name, "base": base, "heads": heads}


def serve_github(conn, repositories: list[dict], private_key_pem: str) -> None:
    """The stand-in's process: serve every repository, answer the bench's requests on `conn`."""
    from bot.testing.standin import GitHubHost

    host = GitHubHost(1, private_key_pem, content_limit_per_minute=10**6, content_limit_per_hour=10**7)
    for n, r in enumerate(repositories):
        host.add_repository(Path(r["dir"]), r["owner"], r["name"], 100 + n // REPOS_PER_INSTALLATION)

    def open_pulls() -> list[tuple[tuple[str, str, int], dict]]:
        deliveries = []
        for r, standin in zip(repositories, host.repositories, strict=True):
            for k in range(1, len(r["heads"]) + 1):
                pull = standin.open_pull(k, "main", f"pr-{k}", title=f"Change {k}")
                payload = {
                    "action": "opened",
                    "number": k,
                    "pull_request": pull,
                    "repository": pull["base"]["repo"],
                    "installation": {"id": standin.installation_id},
                    "sender": pull["user"],
                }
                deliveries.append(((r["owner"], r["name"], k), payload))
        return deliveries

    with host:
        conn.send((host.url, open_pulls()))
        while True:
            command = conn.recv()
            if command == "tally":
                conn.send(tally(host))
            elif command == "reset":
                for standin in host.repositories:
                    standin.reset()
                open_pulls()
                conn.send("ok")
            else:
                return


def tally(host) -> dict:
    """What GitHub now holds, from the stand-in's own records, and what was posted twice."""
    t: Counter[str] = Counter()
    for s in host.repositories:
        bot = s.bot_login
        runs = Counter(r["head_sha"] for r in s.check_runs)
        t["check runs"] += len(s.check_runs)
        t["check runs twice"] += sum(n - 1 for n in runs.values())
        t["pulls without a completed run"] += sum(
            1
            for number in s._pulls
            if not any(
                r["head_sha"] == s.pull(number)["head"]["sha"] and r["status"] == "completed"
                for r in s.check_runs
            )
        )
        for r in s.check_runs:
            t[f"conclusion {r.get('conclusion')}"] += 1
        reviews = Counter(r["pull_request_url"] for r in s.reviews if r["user"]["login"] == bot)
        t["reviews"] += sum(reviews.values())
        t["reviews twice"] += sum(n - 1 for n in reviews.values())
        lines = Counter(
            (c["pull_request_url"], c["path"], c.get("line"), c["body"])
            for c in s.review_comments
            if c["user"]["login"] == bot
        )
        t["review comments"] += sum(lines.values())
        t["review comments twice"] += sum(n - 1 for n in lines.values())
        summaries = Counter(c["issue_url"] for c in s.issue_comments if c["user"]["login"] == bot)
        t["summary comments"] += sum(summaries.values())
        t["summary comments twice"] += sum(n - 1 for n in summaries.values())
        t["calls"] += len(s.requests)
        t["refused (422)"] += sum(1 for r in s.requests if r[2] == 422)
        t["stand-in faults"] += len(s.server_errors)
        for method, path, _ in s.requests:
            t["call " + method + " " + re.sub(r"/\d+|/[0-9a-f]{40}|/(org|repo)\d+", "/N", path)] += 1
    t["stand-in cpu s"] = int(time.process_time())
    return dict(t)


# -- the App's processes --------------------------------------------------------------------------


def worker_main() -> None:
    """One worker process: `docs-sync worker` (bot.app.main.work) with the real job handler."""
    from bot.app import main
    from bot.app.jobs.handler import make_handler

    interval = float(os.environ["BENCH_WRITE_INTERVAL"])
    main.work(os.environ, functools.partial(make_handler, write_interval_s=interval))


class App:
    """The environment every process of one run shares, and its processes."""

    def __init__(self, url: str, github_url: str, key: str, write_interval: float, logs: Path):
        self.env = {
            **os.environ,
            "APP_ID": "1",
            "PRIVATE_KEY": key,
            "WEBHOOK_SECRET": SECRET,
            "DATABASE_URL": url,
            "GITHUB_API_URL": github_url,
            "DOCS_SYNC_WORKERS": "4",
            "LOG_LEVEL": "WARNING",
            "BENCH_WRITE_INTERVAL": str(write_interval),
            # The load test counts the jobs of its deliveries: no recovery sweep adds its own.
            "DOCS_SYNC_RECOVER_EVERY_S": "0",
        }
        self.url, self.logs = url, logs

    def _log(self, name: str):
        return open(self.logs / f"{name}.log", "a")  # noqa: SIM115 (the child keeps it)

    def web(self, port: int) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve", "--no-worker", "--port", str(port)],
            env=self.env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=self._log(f"web-{port}"),
        )
        import httpx

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"web process on {port} exited with {proc.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    return proc
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError(f"web process on {port} did not start")

    def worker(self, n: int) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            env={**self.env, "PGAPPNAME": f"bench-worker-{n}"},  # its connections, named
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=self._log(f"worker-{n}"),
        )


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(40)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Sender:
    """POSTs signed deliveries as GitHub does, to the other web process when one does not answer."""

    def __init__(self, ports: list[int]):
        self.ports = ports
        self._local = threading.local()

    def send(self, n: int, payload: dict) -> tuple[float, int]:
        """(seconds until acknowledged, tries)."""
        import httpx

        from bot.app.intake.web import sign

        client = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = httpx.Client(timeout=10)
        body = json.dumps(payload).encode()
        headers = {
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(SECRET, body),
            "Content-Type": "application/json",
        }
        started = time.monotonic()
        for attempt in range(100):
            port = self.ports[(n + attempt) % len(self.ports)]
            try:
                r = client.post(f"http://127.0.0.1:{port}/webhook", content=body, headers=headers)
                if r.status_code == 202:
                    return time.monotonic() - started, attempt + 1
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("a delivery was never acknowledged")


def drain(url: str, total: int, timeout: float = 1800) -> float:
    """Wait until `total` jobs exist and none is queued or running; the monotonic time then."""
    import psycopg

    started = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() - started < timeout:
            (n, open_) = conn.execute(
                "SELECT COUNT(*), COUNT(*) FILTER (WHERE state IN ('queued', 'running')) FROM jobs"
            ).fetchone()
            if n >= total and open_ == 0:
                return time.monotonic()
            time.sleep(0.05)
    raise RuntimeError("the queue did not drain")


def listening(url: str, workers: int, timeout: float = 120) -> None:
    """Until `workers` worker processes listen for new jobs (started, queue open)."""
    import psycopg

    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            (n,) = conn.execute(
                "SELECT COUNT(DISTINCT application_name) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN %%'"
            ).fetchone()
            if n >= workers:
                return
            time.sleep(0.05)
    raise RuntimeError("the worker processes did not start")


def busy_worker(url: str) -> int:
    """A worker process running a job now (it holds the job's advisory lock); waits for one."""
    import psycopg

    from bot.app.queue.postgres import JOB_LOCK

    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            row = conn.execute(
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.classid::bigint = %s AND l.granted "
                "AND a.application_name LIKE 'bench-worker-%%' LIMIT 1",
                (JOB_LOCK,),
            ).fetchone()
            if row is not None:
                return int(row[0].rsplit("-", 1)[1])
            time.sleep(0.005)


def job_figures(url: str) -> dict:
    import psycopg

    def key(t: tuple[str, str, int]) -> str:
        return f"{t[0]}/{t[1]}#{t[2]}"

    with psycopg.connect(url, autocommit=True) as conn:
        q = conn.execute
        return {
            "states": dict(q("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall()),
            "ran twice": q("SELECT COUNT(*) FROM jobs WHERE attempts > 1").fetchone()[0],
            "interrupted": q("SELECT COUNT(*) FROM jobs WHERE last_error LIKE 'interrupted%%'").fetchone()[0],
            "errors": dict(
                q("SELECT last_error, COUNT(*) FROM jobs WHERE state <> 'done' GROUP BY 1").fetchall()
            ),
            "huge": q(
                "SELECT claimed_at - created_at, finished_at - claimed_at FROM jobs WHERE key = %s",
                (key(HUGE),),
            ).fetchone(),
            "small": q(
                "SELECT claimed_at - created_at, finished_at - created_at, "
                "(SELECT created_at FROM jobs WHERE key = %s) < created_at FROM jobs WHERE key = %s",
                (key(HUGE), key(SMALL)),
            ).fetchone(),
        }


def with_chaos(cluster, github, deliveries: list, write_interval: float, logs: Path) -> dict:
    """2 web and 3 worker processes take the deliveries; one web restarted, one worker SIGKILLed."""
    from bot.app.queue.database import open_queue

    url = cluster.new_database()
    open_queue(url).close()  # the schema, before the processes start
    app = App(url, github.url, github.key, write_interval, logs)
    ports = [free_port(), free_port()]
    webs = [app.web(p) for p in ports]
    workers = [app.worker(n) for n in range(3)]
    listening(url, len(workers))
    sender = Sender(ports)
    latencies: list[float] = []
    resent = 0
    events: list[str] = []
    lock = threading.Lock()

    def one(n: int) -> None:
        nonlocal resent
        seconds, tries = sender.send(n, deliveries[n][1])
        with lock:
            latencies.append(seconds)
            resent += tries > 1

    started = time.monotonic()
    try:
        with ThreadPoolExecutor(8) as ex:  # GitHub sends deliveries several at a time
            futures = []
            for n in range(len(deliveries)):
                futures.append(ex.submit(one, n))
                if n < 2:
                    futures[-1].result()  # the huge pull request, then the small one, in that order
                if n == len(deliveries) * 3 // 10:
                    webs[0].send_signal(signal.SIGTERM)
                    webs[0].wait(30)
                    webs[0] = app.web(ports[0])
                    events.append(f"web 1 restarted (SIGTERM) after delivery {n}")
                if n == len(deliveries) // 2:
                    victim = busy_worker(url)
                    workers[victim].kill()  # SIGKILL, in the middle of a job
                    workers[victim].wait(10)
                    workers[victim] = app.worker(victim)
                    events.append(f"worker {victim + 1} SIGKILLed mid-job and restarted after delivery {n}")
                time.sleep(0.002)
            for f in futures:
                f.result()
        acked = time.monotonic()
        finished = drain(url, len(deliveries))
    finally:
        stop(webs + workers)
    latencies.sort()
    return {
        "acked": len(latencies),
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000,
        "resent": resent,
        "ack_s": acked - started,
        "done_s": finished - started,
        "events": events,
        **job_figures(url),
    }


def queued_ahead(cluster, github, deliveries: list, workers: int, write_interval: float, logs: Path) -> dict:
    """Seconds `workers` worker processes take to run the whole load, stored before they start."""
    url = cluster.new_database()
    app = App(url, github.url, github.key, write_interval, logs)
    port = free_port()
    web = app.web(port)
    sender = Sender([port])
    try:
        with ThreadPoolExecutor(8) as ex:
            list(ex.map(lambda n: sender.send(n, deliveries[n][1]), range(len(deliveries))))
    finally:
        stop([web])
    started = time.monotonic()
    pool = [app.worker(n) for n in range(workers)]
    try:
        finished = drain(url, len(deliveries))
    finally:
        stop(pool)
    return {"seconds": finished - started, **job_figures(url)}


class GitHub:
    """The stand-in's process, seen from the bench."""

    def __init__(self, repositories: list[dict]):
        from bot.testing.standin import make_app_key

        self.key = make_app_key()[0]
        ctx = multiprocessing.get_context("fork")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=serve_github, args=(child, repositories, self.key), daemon=True)
        self._proc.start()
        self.url, self.deliveries = self._conn.recv()

    def tally(self) -> dict:
        self._conn.send("tally")
        return self._conn.recv()

    def reset(self) -> None:
        self._conn.send("reset")
        self._conn.recv()

    def close(self) -> None:
        self._conn.send("stop")
        self._proc.join(10)


def ordered(deliveries: list) -> list:
    """The huge pull request first, the small one of another repository right behind it, then
    the rest, repositories interleaved as an organisation's activity is."""
    rest = [d for d in deliveries if d[0] not in (HUGE, SMALL)]
    rest.sort(key=lambda d: (d[0][2], d[0][0], d[0][1]))
    first = {d[0]: d for d in deliveries}
    return [first[HUGE], first[SMALL], *rest]


def main() -> int:
    if sys.argv[1:] == ["--worker"]:
        worker_main()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--repos", type=int, default=50)
    parser.add_argument("--huge-files", type=int, default=500)
    parser.add_argument("--write-interval", type=float, default=0.0)
    parser.add_argument("--quick", action="store_true", help="40 deliveries, 8 repositories")
    args = parser.parse_args()
    if args.quick:
        args.deliveries, args.repos, args.huge_files = 40, 8, 100
    pulls = -(-args.deliveries // args.repos)
    from bot.testing.postgres import Cluster

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        root, logs = Path(tmp), Path(tmp) / "logs"
        logs.mkdir()
        ok = False
        try:
            t0 = time.monotonic()
            names = [(f"org{n // REPOS_PER_INSTALLATION:02}", f"repo{n:02}") for n in range(args.repos)]
            with ThreadPoolExecutor(4) as ex:
                repositories = list(
                    ex.map(lambda on: build_repository(root, on[0], on[1], pulls, args.huge_files), names)
                )
            args.built = time.monotonic() - t0
            github = GitHub(repositories)
            cluster = Cluster()
            try:
                deliveries = ordered(github.deliveries)[: args.deliveries]
                if (deliveries[0][0], deliveries[1][0]) != (HUGE, SMALL):
                    raise RuntimeError("the huge and the small pull request are not first")
                runs = {"chaos": with_chaos(cluster, github, deliveries, args.write_interval, logs)}
                seen = {"chaos": github.tally()}
                for workers in (3, 1):
                    github.reset()
                    runs[workers] = queued_ahead(
                        cluster, github, deliveries, workers, args.write_interval, logs
                    )
                    seen[workers] = github.tally()
            finally:
                cluster.stop()
                github.close()
            ok = report(args, len(deliveries), runs, seen)
        finally:
            if not ok:  # what the App's processes said
                for log in sorted(logs.iterdir()):
                    tail = log.read_text()[-3000:]
                    if tail.strip():
                        print(f"--- {log.name}\n{tail}", file=sys.stderr)
    return 0 if ok else 1


def report(args: argparse.Namespace, total: int, runs: dict, seen: dict) -> bool:
    """Print the figures; True when nothing was lost, failed or posted twice."""
    many, github = runs["chaos"], seen["chaos"]
    installations = -(-args.repos // REPOS_PER_INSTALLATION)
    print(
        f"{total} signed pull_request deliveries across {args.repos} repositories"
        f" ({installations} installations; fixtures built in {args.built:.0f} s); 2 web, 3 worker processes"
        f" (4 threads each) on one PostgreSQL; writes spaced {args.write_interval:g} s per installation"
    )
    for event in many["events"]:
        print(f"  {event}")
    print(
        f"acknowledged: {many['acked']}/{total} (p50 {many['p50_ms']:.1f} ms,"
        f" p99 {many['p99_ms']:.1f} ms; {many['resent']} sent again to the other web process"
        f" while one restarted)"
    )
    print(
        f"jobs: {many['states']}; {many['ran twice']} ran a second time"
        f" ({many['interrupted']} recovered from the SIGKILLed worker); all done"
        f" {many['done_s']:.1f} s after the first delivery"
    )
    g = github.get
    print(
        f"on GitHub (the stand-in's records): {g('check runs', 0)} check runs"
        f" ({g('conclusion failure', 0)} failure, {g('conclusion success', 0)} success),"
        f" {g('reviews', 0)} reviews, {g('review comments', 0)} review comments,"
        f" {g('summary comments', 0)} summary comments, {g('calls', 0)} API calls"
        f" ({g('refused (422)', 0)} refused)"
    )
    print(
        f"posted twice: {g('check runs twice', 0)} check runs, {g('reviews twice', 0)} reviews,"
        f" {g('review comments twice', 0)} review comments, {g('summary comments twice', 0)} summary"
        f" comments; {g('pulls without a completed run', 0)} pull requests without a completed check run"
    )
    three, one = runs[3]["seconds"], runs[1]["seconds"]
    print(
        f"drain of the same {total} jobs queued ahead: {three:.1f} s with 3 worker processes,"
        f" {one:.1f} s with 1: 1 worker takes {one / three:.2f}x as long ({os.cpu_count()} CPUs)"
    )
    huge_wait, huge_run = many["huge"]
    small_wait, small_done, behind = many["small"]
    print(
        f"a small pull request queued right behind a huge one of another repository ({args.huge_files}"
        f" files; its job ran {huge_run:.1f} s): waited {small_wait * 1000:.0f} ms to start, done"
        f" {small_done:.1f} s after it was queued{'' if behind else ' (NOT queued behind it)'}"
    )
    problems = []
    if many["acked"] != total:
        problems.append(f"{total - many['acked']} deliveries not acknowledged")
    for name, run in runs.items():
        if run["states"] != {"done": total}:
            problems.append(f"run {name}: jobs {run['states']}: {run['errors']}")
    for name, t in seen.items():
        twice = {k: v for k, v in t.items() if k.endswith("twice") and v}
        if twice or t.get("pulls without a completed run") or t.get("refused (422)"):
            problems.append(
                f"run {name}: on GitHub {twice}, {t.get('pulls without a completed run')} unchecked"
            )
    if not behind:
        problems.append("the small pull request was not queued behind the huge one")
    for problem in problems:
        print(f"FAILED: {problem}")
    return not problems


if __name__ == "__main__":
    sys.exit(main())
