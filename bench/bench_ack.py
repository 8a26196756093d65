"""The webhook's acknowledgement from a freshly started App: p50 and p99 of the time to the answer
of POST /webhook over 50 sequential deliveries on one connection, and over 20 connections
sending at once; no warm-up, so the first delivery after a start counts, as GitHub's does.

Each row starts its own intake server (bench_app.IntakeServer: the App served by uvicorn in a
process of its own, its SQLite queue, no worker) and sends signed pull_request.opened
deliveries of the job tests' repository; the last row sends the same 200 to a bare starlette
route answering 202 unread, served the same way: the floor the machine sets. Prints figures;
asserts nothing about time. See bench/README.md.

    python bench/bench_ack.py [--runs N] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_app import TARGET_P99_S, IntakeServer, _ms, deliveries, nearest_rank, send_all  # noqa: E402

ROWS = (
    ("50 sequential, 1 connection", 50, 1, "app"),
    ("200 from 20 connections at once", 200, 20, "app"),
    ("200 at once, bare starlette route", 200, 20, "bare"),
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh servers per row (default 3)")
    parser.add_argument("--quick", action="store_true", help="one run of each row")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else max(1, args.runs)

    from bot.testing.appkit import build_repo
    from bot.testing.standin import GitHubStandIn

    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        repo, shas = build_repo(scratch / "repo")
        with GitHubStandIn(repo) as standin:
            print("Acknowledgement from a fresh App (SQLite queue, no worker), no warm-up")
            print(f"{'deliveries':<34} {'run':>3} {'first':>8} {'p50':>8} {'p99':>8} {'max':>8}  answers")
            first = 1
            for name, count, connections, kind in ROWS:
                worst = 0.0
                for run in range(1, runs + 1):
                    requests = deliveries(standin, shas, first, count, f"ack{first}")
                    first += count
                    fresh = scratch / f"server-{first}"
                    fresh.mkdir()
                    server = IntakeServer(kind, fresh)
                    try:
                        load = send_all(server.port, requests, connections)
                    finally:
                        server.stop()
                    lat = load.latencies
                    p99 = nearest_rank(lat, 0.99)
                    worst = max(worst, p99)
                    answers = ", ".join(f"{n} x {status}" for status, n in sorted(load.statuses.items()))
                    print(
                        f"{name:<34} {run:>3} {_ms(lat[0]):>8} {_ms(nearest_rank(lat, 0.5)):>8} "
                        f"{_ms(p99):>8} {_ms(max(lat)):>8}  {answers}"
                    )
                verdict = "ok" if worst < TARGET_P99_S else "MISS"
                print(f"    worst p99 {_ms(worst)} against the target of {_ms(TARGET_P99_S)}: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
