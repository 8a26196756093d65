"""The intake of a real `docs-sync serve` process under clients that hold connections open: slow
unsigned bodies must not starve GitHub's signed deliveries, and are cut before their deadline."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from bot.app.intake.web import sign
from bot.testing.appkit import WEBHOOKS
from bot.testing.standin import default_app_key

ROOT = Path(__file__).resolve().parents[2]
SECRET = "webhook secret of the intake tests"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path):
    """`docs-sync serve` in a process of its own; its GitHub is a closed port (no job is run here)."""
    port = _free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "APP_ID": "1",
        "PRIVATE_KEY": default_app_key()[0],
        "WEBHOOK_SECRET": SECRET,
        "DOCS_SYNC_DB": str(tmp_path / "q.db"),
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "LOG_LEVEL": "WARNING",
    }
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def _slow_client(port: int, stop: threading.Event, answers: list[bytes]) -> None:
    """Declares 1 MB, then sends a byte a second until answered or told to stop."""
    with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
        sock.sendall(
            b"POST /webhook HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: ping\r\n"
            b"X-GitHub-Delivery: slow\r\nContent-Length: 1048576\r\n\r\n"
        )
        for _ in range(40):  # bounded: at most 40 bytes, ~8 s
            if stop.is_set():
                return
            try:
                sock.sendall(b" ")
                got = sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            answers.append(got)
            return


def test_slow_unsigned_bodies_do_not_starve_signed_deliveries(served):
    port = served
    stop, answers = threading.Event(), []
    slow = [threading.Thread(target=_slow_client, args=(port, stop, answers)) for _ in range(12)]
    for t in slow:
        t.start()
    time.sleep(0.3)  # every slow client has declared its megabyte and is sending
    payload = json.loads((WEBHOOKS / "pull_request/opened.payload.json").read_text())
    results: list[tuple[int, float]] = []

    def deliver(n: int) -> None:
        payload["number"] = n
        body = json.dumps(payload).encode()
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(SECRET, body),
        }
        started = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        conn.request("POST", "/webhook", body, headers)
        status = conn.getresponse().status
        conn.close()
        results.append((status, time.monotonic() - started))

    signed = [threading.Thread(target=deliver, args=(n,)) for n in range(10)]
    for t in signed:
        t.start()
    for t in signed:
        t.join(20)
    try:
        assert sorted(status for status, _ in results) == [202] * 10, results
        assert max(took for _, took in results) < 2.0, results
        for t in slow:
            t.join(10)  # each is cut once its pace cannot make the deadline: within ~2 s
        assert len(answers) == 12 and all(a.startswith(b"HTTP/1.1 408") for a in answers), answers
    finally:
        stop.set()
