import asyncio
import json
import logging
import socket
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from bot.app.config import Settings
from bot.app.intake.web import (
    MAX_BODY_BYTES,
    MAX_DELIVERY_ID,
    build_app,
    sign,
    verify_signature,
)
from bot.app.logs import DeliveryFilter
from bot.app.main import build_server, serve, work
from bot.app.metrics import Metrics
from bot.app.queue.protocol import Job
from bot.app.queue.sqlite import SQLiteQueue
from bot.testing.appkit import WEBHOOKS
from tests.appkit import Scrape

SECRET = "webhook secret for tests"


def test_github_test_vector():
    body = b"Hello, World!"
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert sign("It's a Secret to Everybody", body) == expected
    assert verify_signature("It's a Secret to Everybody", body, expected)
    assert not verify_signature("It's a Secret to Everybody", b"Hello, World?", expected)
    assert not verify_signature("another secret", body, expected)
    assert not verify_signature("It's a Secret to Everybody", body, expected.replace("sha256=", "sha1="))
    assert not verify_signature("It's a Secret to Everybody", body, None)
    assert not verify_signature("It's a Secret to Everybody", body, "sha256=")
    assert not verify_signature("It's a Secret to Everybody", body, "sha256=\u00e9" * 10)


def fixture_body(name: str) -> bytes:
    return (WEBHOOKS / name).read_bytes()


def headers(event: str, body: bytes, *, delivery: str | None = None, secret: str = SECRET) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(secret, body),
        "User-Agent": "GitHub-Hookshot/test",
    }


def settings_for(tmp_path: Path, **kw) -> Settings:
    return Settings(
        app_id=1, private_key="unused here", webhook_secret=SECRET, db_path=str(tmp_path / "q.db"), **kw
    )


class Client:
    """Requests straight into the ASGI app (no socket), one event loop per request."""

    def __init__(self, app):
        self.transport = httpx.ASGITransport(app=app)

    def request(self, method: str, url: str, **kw) -> httpx.Response:
        async def send() -> httpx.Response:
            async with httpx.AsyncClient(transport=self.transport, base_url="http://testserver") as client:
                response = await client.request(method, url, **kw)
                await response.aread()
                return response

        return asyncio.run(send())

    def get(self, url: str, **kw) -> httpx.Response:
        return self.request("GET", url, **kw)

    def post(self, url: str, **kw) -> httpx.Response:
        return self.request("POST", url, **kw)


@pytest.fixture
def stack(tmp_path):
    settings = settings_for(tmp_path)
    queue = SQLiteQueue(settings.db_path)
    metrics = Metrics()
    yield Client(build_app(settings, queue, metrics)), queue, metrics
    queue.close()


def post(client, event: str, body: bytes, **kw) -> httpx.Response:
    return client.post("/webhook", content=body, headers=headers(event, body, **kw))


def test_signed_pull_request_is_queued(stack):
    client, queue, _ = stack
    body = fixture_body("pull_request/opened.payload.json")
    r = post(client, "pull_request", body, delivery="d-opened")
    assert r.status_code == 202 and r.json() == {"ok": True, "queued": 1}
    job = queue.claim()
    assert (job.delivery_id, job.kind, job.key) == ("d-opened", "check", "Codertocat/Hello-World#2")
    assert job.payload["head_sha"] == "ec26c3e57ca3a959ca5aad62de7213c562f8c821"


def test_missing_signature_is_refused(stack):
    client, queue, metrics = stack
    body = fixture_body("pull_request/opened.payload.json")
    h = headers("pull_request", body)
    del h["X-Hub-Signature-256"]
    r = client.post("/webhook", content=body, headers=h)
    assert r.status_code == 401 and "X-Hub-Signature-256" in r.json()["error"]
    assert queue.counts()["queued"] == 0
    assert metrics.value("docs_sync_rejected_total", reason="signature") == 1


@pytest.mark.parametrize("trick", ["wrong secret", "body changed", "sha1 header"])
def test_wrong_signature_is_refused(stack, trick):
    client, queue, metrics = stack
    body = fixture_body("pull_request/opened.payload.json")
    h = headers("pull_request", body, secret="not the secret" if trick == "wrong secret" else SECRET)
    if trick == "body changed":
        body = body.replace(b'"number": 2', b'"number": 3')
    if trick == "sha1 header":
        h["X-Hub-Signature-256"] = h["X-Hub-Signature-256"].replace("sha256=", "sha1=")
    r = client.post("/webhook", content=body, headers=h)
    assert r.status_code == 401
    assert r.json() == {"ok": False, "error": "X-Hub-Signature-256 does not match the body and secret"}
    assert queue.counts()["queued"] == 0
    assert metrics.value("docs_sync_deliveries_total", event="pull_request") == 0


def test_signature_is_checked_before_parsing(stack):
    client, _, metrics = stack
    body = b"{not json"
    h = headers("pull_request", body, secret="not the secret")
    assert client.post("/webhook", content=body, headers=h).status_code == 401
    assert metrics.value("docs_sync_rejected_total", reason="json") == 0


def test_redelivery_queues_no_second_job(stack):
    client, queue, _ = stack
    body = fixture_body("pull_request/synchronize.payload.json")
    assert post(client, "pull_request", body, delivery="d-same").status_code == 202
    r = post(client, "pull_request", body, delivery="d-same")
    assert r.status_code == 200 and r.json() == {"ok": True, "duplicate": True}
    assert queue.counts()["queued"] == 1


def test_newer_push_supersedes_the_queued_check(stack):
    client, queue, _ = stack
    body = fixture_body("pull_request/opened.payload.json")
    post(client, "pull_request", body, delivery="d-1")
    post(client, "pull_request", fixture_body("pull_request/synchronize.payload.json"), delivery="d-2")
    assert queue.counts()["queued"] == 1 and queue.counts()["superseded"] == 1
    assert queue.claim().delivery_id == "d-2"


def test_ping_answers_200_without_a_job(stack):
    client, queue, metrics = stack
    r = post(client, "ping", fixture_body("ping/with-app_id.payload.json"))
    assert r.status_code == 200 and r.json()["pong"] is True
    assert sum(queue.counts().values()) == 0
    assert metrics.value("docs_sync_deliveries_total", event="ping") == 1


@pytest.mark.parametrize(
    ("event", "name", "answer"),
    [
        ("pull_request", "pull_request/closed.payload.json", {"ok": True, "ignored": True}),
        ("issue_comment", "issue_comment/created.payload.json", {"ok": True, "ignored": True}),
        ("installation", "installation/created.payload.json", {"ok": True}),
        ("star", "ping/payload.json", {"ok": True, "ignored": True}),
    ],
)
def test_ignored_and_acknowledged_deliveries(stack, event, name, answer):
    client, queue, _ = stack
    r = post(client, event, fixture_body(name))
    assert (r.status_code, r.json()) == (200, answer)
    assert sum(queue.counts().values()) == 0


def test_check_suite_for_a_fork_is_queued_by_sha(stack):
    client, queue, _ = stack
    r = post(client, "check_suite", fixture_body("check_suite/requested.payload.json"))
    assert r.status_code == 202
    assert queue.claim().key == "Codertocat/Hello-World@f95f852bd8fca8fcc58a9a2d6c842781e32a215e"


def test_one_delivery_for_two_pull_requests(stack):
    client, queue, _ = stack
    payload = json.loads(fixture_body("check_suite/rerequested.payload.json"))
    pulls = payload["check_suite"]["pull_requests"]
    pulls.append(dict(pulls[0], number=7))
    body = json.dumps(payload).encode()
    assert post(client, "check_suite", body, delivery="d-suite").json() == {"ok": True, "queued": 2}
    assert post(client, "check_suite", body, delivery="d-suite").status_code == 200
    claimed = []
    while (job := queue.claim()) is not None:  # one at a time: the same repository
        claimed.append(job.delivery_id)
        queue.complete(job.id)
    assert claimed == ["d-suite", "d-suite/1"]


@pytest.mark.parametrize(
    ("body", "drop", "message"),
    [
        (b"{not json", None, "body is not JSON"),
        (b"[1, 2]", None, "body is not a JSON object"),
        (b'{"zen": "x"}', "X-GitHub-Delivery", "missing X-GitHub-Delivery or X-GitHub-Event header"),
        (b'{"zen": "x"}', "X-GitHub-Event", "missing X-GitHub-Delivery or X-GitHub-Event header"),
    ],
)
def test_bad_requests(stack, body, drop, message):
    client, queue, _ = stack
    h = headers("ping", body)
    if drop:
        del h[drop]
    r = client.post("/webhook", content=body, headers=h)
    assert (r.status_code, r.json()["error"]) == (400, message)
    assert sum(queue.counts().values()) == 0


def test_oversized_body_is_refused(stack):
    client, queue, metrics = stack
    body = b" " * (MAX_BODY_BYTES + 1)
    r = client.post("/webhook", content=body, headers=headers("pull_request", body))
    assert r.status_code == 413
    assert metrics.value("docs_sync_rejected_total", reason="size") == 1


def test_oversized_chunked_body_is_refused_while_streaming(stack):
    client, _, metrics = stack

    async def chunks():
        for _ in range(26):
            yield b" " * (1024 * 1024)

    h = headers("pull_request", b"")
    r = client.post("/webhook", content=chunks(), headers=h)
    assert r.status_code == 413 and "content-length" not in {k.lower() for k in r.request.headers}
    assert metrics.value("docs_sync_rejected_total", reason="size") == 1


def test_only_post_on_the_webhook_path(stack):
    client, _, _ = stack
    assert client.get("/webhook").status_code == 405


def test_custom_webhook_path(tmp_path):
    settings = settings_for(tmp_path, webhook_path="/github/events")
    with SQLiteQueue(settings.db_path) as queue:
        client = Client(build_app(settings, queue, Metrics()))
        body = fixture_body("pull_request/opened.payload.json")
        assert (
            client.post("/github/events", content=body, headers=headers("pull_request", body)).status_code
            == 202
        )
        assert client.post("/webhook", content=body, headers=headers("pull_request", body)).status_code == 404


def test_healthz_reports_queue_counts(stack):
    client, _, _ = stack
    post(client, "pull_request", fixture_body("pull_request/opened.payload.json"))
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {
        "ok": True,
        "queue": {"queued": 1, "running": 0, "done": 0, "failed": 0, "superseded": 0},
    }


def test_metrics_text(stack):
    client, _, metrics = stack
    post(client, "pull_request", fixture_body("pull_request/opened.payload.json"))
    post(client, "ping", fixture_body("ping/payload.json"))
    post(client, "evil\nevent", fixture_body("ping/payload.json"))
    metrics.job("done", 0.3)
    metrics.findings(4)
    metrics.github_call(201)
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    scrape = Scrape(r.text)
    assert scrape("docs_sync_deliveries_total", event="pull_request") == 1
    assert scrape("docs_sync_deliveries_total", event="ping") == 1
    assert scrape("docs_sync_deliveries_total", event="other") == 1
    assert scrape("docs_sync_jobs_total", outcome="done") == 1
    assert scrape("docs_sync_findings_total") == 4
    assert scrape("docs_sync_github_calls_total", status="201") == 1
    assert scrape("docs_sync_job_seconds_bucket", le="0.25") == 0
    assert scrape("docs_sync_job_seconds_bucket", le="0.5") == 1
    assert scrape("docs_sync_job_seconds_bucket", le="+Inf") == 1
    assert scrape("docs_sync_job_seconds_count") == 1
    assert scrape("docs_sync_queue_jobs", state="queued") == 1
    assert scrape.types["docs_sync_job_seconds"] == "histogram"
    assert scrape.types["docs_sync_queue_jobs"] == "gauge"
    assert "evil" not in r.text


def test_log_records_of_a_request_carry_its_delivery_id(stack):
    client, _, _ = stack
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    keep = Keep(logging.INFO)
    keep.addFilter(DeliveryFilter())
    logger = logging.getLogger("bot.app")
    old_level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(keep)
    try:
        post(client, "pull_request", fixture_body("pull_request/opened.payload.json"), delivery="d-logged")
        body = fixture_body("ping/payload.json")
        client.post("/webhook", content=body, headers=headers("ping", body, delivery="d-bad", secret="wrong"))
    finally:
        logger.removeHandler(keep)
        logger.setLevel(old_level)
    by_id = {r.delivery_id for r in records}
    assert by_id == {"d-logged", "d-bad"}
    assert any("queued" in r.getMessage() for r in records if r.delivery_id == "d-logged")
    assert any("refused" in r.getMessage() for r in records if r.delivery_id == "d-bad")


# -- the real thing: uvicorn on a loopback socket, the worker running in the same process --------


class RealServer:
    def __init__(self, tmp_path: Path, handler):
        self.settings = settings_for(tmp_path)
        self.server = build_server(self.settings, "127.0.0.1", 0, handler_factory=lambda s, q, m: handler)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    @property
    def queue(self) -> SQLiteQueue:
        return self.server.config.app.state.queue

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
        self.queue.close()


def test_real_server_accepts_signed_delivery_and_runs_the_job(tmp_path):
    ran = threading.Event()
    seen: list[Job] = []

    def handler(job: Job) -> None:
        seen.append(job)
        ran.set()

    with RealServer(tmp_path, handler) as real, httpx.Client(base_url=real.url, timeout=5) as http:
        body = fixture_body("pull_request/synchronize.payload.json")
        started = time.monotonic()
        r = http.post("/webhook", content=body, headers=headers("pull_request", body, delivery="d-real"))
        assert r.status_code == 202
        assert time.monotonic() - started < 1.0  # answered long before GitHub's 10 s limit
        assert ran.wait(5), "the worker never ran the job"
        assert [(j.delivery_id, j.payload["pr"]) for j in seen] == [("d-real", 2)]

        bad = http.post("/webhook", content=body, headers=headers("pull_request", body, secret="guess"))
        assert bad.status_code == 401

        deadline = time.monotonic() + 5
        while http.get("/healthz").json()["queue"]["done"] != 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        health = http.get("/healthz").json()
        assert health == {
            "ok": True,
            "queue": {"queued": 0, "running": 0, "done": 1, "failed": 0, "superseded": 0},
        }
        assert Scrape(http.get("/metrics").text)("docs_sync_jobs_total", outcome="done") == 1


# -- hostile intake: nesting, long delivery ids, many bodies at once, slow bodies ----------------


def test_signed_but_deeply_nested_json_is_a_400(stack):
    client, queue, metrics = stack
    body = b'{"a": ' * 100_000 + b"1" + b"}" * 100_000
    r = post(client, "pull_request", body)
    assert r.status_code == 400 and r.json()["error"] == "body is not JSON: nested too deeply"
    assert sum(queue.counts().values()) == 0
    assert metrics.value("docs_sync_rejected_total", reason="json") == 1


def test_delivery_ids_are_stored_whole_or_refused_saying_why(stack):
    client, queue, _ = stack
    body = fixture_body("pull_request/opened.payload.json")
    first, second = "d" * 150 + "-1", "d" * 150 + "-2"  # the same first 100 characters
    assert post(client, "pull_request", body, delivery=first).status_code == 202
    r = post(client, "pull_request", fixture_body("pull_request/synchronize.payload.json"), delivery=second)
    assert r.status_code == 202, r.json()  # a different delivery, not a redelivery of the first
    assert {queue.get(i).delivery_id for i in (1, 2)} == {first, second}
    too_long = post(client, "pull_request", body, delivery="x" * (MAX_DELIVERY_ID + 1))
    assert too_long.status_code == 400
    assert too_long.json()["error"] == f"X-GitHub-Delivery is longer than {MAX_DELIVERY_ID} characters"


def _one_loop(app, scenario):
    """Run `scenario(client)` with every request on one event loop, as uvicorn serves them."""

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=30) as client:
            return await scenario(client)

    return asyncio.run(main())


def test_bodies_read_at_once_are_capped_and_the_rest_wait_then_are_told_busy(tmp_path):
    settings = settings_for(tmp_path)
    with SQLiteQueue(settings.db_path) as queue:
        app = build_app(settings, queue, Metrics(), max_body_reads=2, read_wait_s=0.3, body_timeout_s=30)
        body = fixture_body("pull_request/opened.payload.json")

        async def scenario(client):
            release = asyncio.Event()

            async def slow():
                yield b"{"
                await release.wait()
                yield b"}"

            unsigned = {"X-GitHub-Event": "ping", "X-GitHub-Delivery": "slow"}
            holding = [asyncio.create_task(client.post("/webhook", content=slow(), headers=unsigned))]
            holding.append(asyncio.create_task(client.post("/webhook", content=slow(), headers=unsigned)))
            await asyncio.sleep(0.1)
            started = time.monotonic()
            busy = await client.post("/webhook", content=body, headers=headers("pull_request", body))
            waited = time.monotonic() - started
            release.set()
            slow_answers = [r.status_code for r in await asyncio.gather(*holding)]
            after = await client.post("/webhook", content=body, headers=headers("pull_request", body))
            return busy, waited, slow_answers, after

        busy, waited, slow_answers, after = _one_loop(app, scenario)
        assert busy.status_code == 503 and "busy" in busy.json()["error"] and waited >= 0.3
        assert slow_answers == [401, 401]  # read whole, then refused: unsigned
        assert after.status_code == 202  # the slots are free again


def test_a_body_that_does_not_arrive_in_time_is_refused_and_frees_its_slot(tmp_path):
    settings = settings_for(tmp_path)
    with SQLiteQueue(settings.db_path) as queue:
        app = build_app(settings, queue, Metrics(), max_body_reads=1, read_wait_s=5, body_timeout_s=0.3)
        body = fixture_body("pull_request/opened.payload.json")

        async def scenario(client):
            async def never():
                yield b"{"
                await asyncio.sleep(60)

            h = headers("pull_request", body)
            stuck = await client.post("/webhook", content=never(), headers=h)
            after = await client.post("/webhook", content=body, headers=headers("pull_request", body))
            return stuck, after

        stuck, after = _one_loop(app, scenario)
        assert stuck.status_code == 408 and after.status_code == 202


@pytest.fixture
def root_logging():
    """`serve` and `work` configure the process's logging: a handler writing to stderr, which in
    a test is the test's captured stream. Put the root logger back, or a later test's threads log
    into that stream after it closed ("--- Logging error ---")."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.parametrize(
    "call",
    [
        lambda env: serve("127.0.0.1", 0, env, with_worker=False),
        lambda env: work(env),
    ],
    ids=["serve --no-worker", "worker"],
)
def test_split_processes_need_the_shared_database(call, tmp_path, capsys, root_logging):
    env = {
        "APP_ID": "1",
        "PRIVATE_KEY": _pem(),
        "WEBHOOK_SECRET": SECRET,
        "DOCS_SYNC_DB": str(tmp_path / "q.db"),
    }
    with pytest.raises(SystemExit) as info:
        call(env)
    assert info.value.code == 2
    assert "DATABASE_URL is required" in capsys.readouterr().err


def test_an_unreachable_database_is_named_without_its_password(tmp_path, capsys, root_logging):
    pytest.importorskip("psycopg")

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    url = f"postgresql://app:s3cret-pw@127.0.0.1:{port}/docs?connect_timeout=2"
    env = {"APP_ID": "1", "PRIVATE_KEY": _pem(), "WEBHOOK_SECRET": SECRET, "DATABASE_URL": url}
    with pytest.raises(SystemExit) as info:
        serve("127.0.0.1", 0, env)
    err = capsys.readouterr().err
    assert info.value.code == 2 and "docs-sync: DATABASE_URL: cannot open postgresql://app:***@" in err
    assert "s3cret-pw" not in err


def _pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()


def test_healthz_fails_when_the_database_cannot_be_written(tmp_path):
    settings = settings_for(tmp_path)
    queue = SQLiteQueue(settings.db_path)
    try:
        client = Client(build_app(settings, queue, Metrics()))
        assert client.get("/healthz").status_code == 200
        # The disk the database is on went away under the process (a lost volume, a full disk).
        queue._db.execute("PRAGMA query_only = ON")
        r = client.get("/healthz")
        assert r.status_code == 503 and r.json() == {
            "ok": False,
            "error": "the database cannot be written and read",
        }
    finally:
        queue.close()


def test_metrics_show_depth_age_and_lag_by_installation(stack):
    client, queue, _ = stack
    post(client, "pull_request", fixture_body("pull_request/opened.payload.json"))
    time.sleep(0.05)
    scrape = Scrape(client.get("/metrics").text)
    assert scrape("docs_sync_queue_depth") == 1
    assert scrape("docs_sync_queue_oldest_job_seconds") > 0
    (installation,) = queue.lag()
    assert scrape("docs_sync_installation_lag_seconds", installation=installation) > 0
    queue.complete(queue.claim().id)
    after = Scrape(client.get("/metrics").text)
    assert after("docs_sync_queue_depth") == 0 and after("docs_sync_queue_oldest_job_seconds") == 0
    assert "docs_sync_installation_lag_seconds{" not in client.get("/metrics").text


def test_bodies_past_the_reading_budget_are_told_busy_at_once_and_a_slow_one_is_cut(tmp_path):
    """What the buffers being filled would take is bounded by their declared sizes together; a
    body arriving too slowly to make its deadline is cut after the grace, not at the deadline."""
    settings = settings_for(tmp_path)
    with SQLiteQueue(settings.db_path) as queue:
        body = fixture_body("pull_request/opened.payload.json")
        app = build_app(
            settings,
            queue,
            Metrics(),
            max_reading_bytes=len(body) + 1000,
            body_timeout_s=5,
            body_grace_s=0.2,
        )

        async def scenario(client):
            async def trickle():
                for _ in range(20):  # bounded: at most 20 chunks, 2 s
                    yield b" "
                    await asyncio.sleep(0.1)

            slow_headers = {**headers("pull_request", body), "Content-Length": str(len(body))}
            slow = asyncio.create_task(client.post("/webhook", content=trickle(), headers=slow_headers))
            await asyncio.sleep(0.05)
            started = time.monotonic()
            busy = await client.post("/webhook", content=body, headers=headers("pull_request", body))
            waited = time.monotonic() - started
            cut = await slow
            after = await client.post("/webhook", content=body, headers=headers("pull_request", body))
            return busy, waited, cut, after

        busy, waited, cut, after = _one_loop(app, scenario)
    assert busy.status_code == 503 and "MB of deliveries are being read" in busy.json()["error"]
    assert waited < 0.2  # refused at once, not after a wait
    assert cut.status_code == 408 and after.status_code == 202
