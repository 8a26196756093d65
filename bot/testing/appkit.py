"""The App's kit for its tests and the bench: the trainer repository with one branch per pull
request scenario, webhook payloads made from GitHub's recorded ones (`webhooks/`), and the bot
served over real HTTP.

The repository is `bot.testing.trainer`'s (a dataclass whose fields become flags, a doc page
written against them) plus these branches, each a pull request scenario:

    pr          the demo pull request: 3 findings (a flag typo on an added doc line, a renamed
                flag, a changed default; the last two on code lines of the diff)
    pr-fixed    pr, then a commit fixing the doc: no findings
    one         only the default change: 1 finding
    clean       a doc edit that cites nothing new: no findings
    noconf      main without .github/docs-sync.yml; noconf-pr changes the code on top
    badconf     main with a malformed config; badconf-pr changes the code on top
    many-base   main plus a module of 60 flags and a page citing each; many-head drops them all
    drift       main plus a doc line citing a flag no code defines (stale, before any pull request)
    drift-main  a base branch that moved on after drift-pr branched off: it drops that line
    drift-pr    from drift: the default change of `one` plus a doc edit that cites nothing new;
                against drift-main, only the default change is the pull request's doing
"""

from __future__ import annotations

import copy
import json
import socket
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from bot.app.config import Settings
from bot.app.intake.web import build_app, sign
from bot.app.metrics import Metrics
from bot.app.queue.protocol import Job
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.worker import Handler, Worker
from bot.testing.standin import GitHubStandIn, add_commit
from bot.testing.trainer import ARGS_BASE, ARGS_HEAD, CONFIG, DOC_BASE, DOC_HEAD, build_demo_repo

JSON = dict[str, Any]
WEBHOOKS = Path(__file__).resolve().parent / "webhooks"  # GitHub's recorded payloads, MIT
SECRET = "webhook secret of the job tests"
DOC = "docs/training-backend.md"
ARGS = "trainer/backends/fsdp/arguments.py"

DOC_FIXED = (
    DOC_HEAD.replace("`--fsdp-cpu-ofload`", "`--fsdp-cpu-offload`")
    .replace("`--disable-fp32-master`", "`--no-keep-fp32-master`")
    .replace("`flash_attention_2` by default", "`sdpa` by default")
)
ARGS_ONE = ARGS_BASE.replace(
    'attn_implementation: str = "flash_attention_2"', 'attn_implementation: str = "sdpa"'
)
STALE_LINE = "Set `--warmup-steps` to ramp the learning rate up.\n\n"
DOC_DRIFT = DOC_BASE.replace("## FSDP\n", STALE_LINE + "## FSDP\n")
BAD_CONFIG = "rules:\n  - id: broken\n    docs:\n      - path: docs/training-backend.md\n    sauces: []\n"

MANY = 60
MANY_CLI = "import argparse\n\n\ndef build(parser: argparse.ArgumentParser) -> None:\n" + "".join(
    f'    parser.add_argument("--opt-{i}", type=int, default={i})\n' for i in range(MANY)
)
MANY_CLI_HEAD = "import argparse\n\n\ndef build(parser: argparse.ArgumentParser) -> None:\n    pass\n"
MANY_DOC = "# Options\n\n" + "".join(f"- `--opt-{i}` sets option {i}.\n" for i in range(MANY))
MANY_CONFIG = (
    CONFIG
    + """  - id: many-page
    docs:
      - path: docs/many.md
    sources:
      - id: many-args
        kind: argparse
        path: many/cli.py
"""
)


def build_repo(root: Path) -> tuple[Path, dict[str, str]]:
    repo = root / "trainer"
    base, head = build_demo_repo(repo)
    shas = {"main": base, "pr": head}
    shas["pr-fixed"] = add_commit(repo, {DOC: DOC_FIXED}, parent="pr", branch="pr-fixed")
    shas["one"] = add_commit(repo, {ARGS: ARGS_ONE}, parent="main", branch="one")
    clean_doc = DOC_HEAD.replace("Under `--colocate` the trainer", "With `--colocate`, the trainer")
    clean_doc = clean_doc.replace(
        "| `--fsdp-cpu-ofload` with `--offload-train` | Both at once for the largest models. |\n", ""
    )
    shas["clean"] = add_commit(repo, {DOC: clean_doc}, parent="main", branch="clean")
    shas["noconf"] = add_commit(repo, {".github/docs-sync.yml": None}, parent="main", branch="noconf")
    shas["noconf-pr"] = add_commit(repo, {ARGS: ARGS_HEAD}, parent="noconf", branch="noconf-pr")
    shas["badconf"] = add_commit(repo, {".github/docs-sync.yml": BAD_CONFIG}, parent="main", branch="badconf")
    shas["badconf-pr"] = add_commit(repo, {ARGS: ARGS_HEAD}, parent="badconf", branch="badconf-pr")
    shas["many-base"] = add_commit(
        repo,
        {"many/cli.py": MANY_CLI, "docs/many.md": MANY_DOC, ".github/docs-sync.yml": MANY_CONFIG},
        parent="main",
        branch="many-base",
    )
    shas["many-head"] = add_commit(
        repo,
        {"many/cli.py": MANY_CLI_HEAD},
        parent="many-base",
        branch="many-head",
    )
    shas["drift"] = add_commit(repo, {DOC: DOC_DRIFT}, parent="main", branch="drift")
    shas["drift-main"] = add_commit(
        repo, {DOC: DOC_DRIFT.replace(STALE_LINE, "")}, parent="drift", branch="drift-main"
    )
    shas["drift-pr"] = add_commit(
        repo,
        {ARGS: ARGS_ONE, DOC: DOC_DRIFT.replace("Under `--colocate` the", "With `--colocate`, the")},
        parent="drift",
        branch="drift-pr",
    )
    return repo, shas


def settings_for(standin: GitHubStandIn, db_path: Path, **kw: Any) -> Settings:
    return Settings(
        app_id=standin.app_id,
        private_key=standin.private_key_pem,
        webhook_secret=SECRET,
        github_api_url=standin.url,
        db_path=str(db_path),
        **kw,
    )


# -- payloads --------------------------------------------------------------------------------------


def _fixture(name: str) -> JSON:
    payload: JSON = json.loads((WEBHOOKS / name).read_text())
    return payload


def _point_at(payload: JSON, standin: GitHubStandIn) -> JSON:
    repo = payload["repository"]
    repo["owner"]["login"], repo["name"] = standin.owner, standin.name
    repo["full_name"] = f"{standin.owner}/{standin.name}"
    repo["id"] = 7000
    payload["installation"] = {**(payload.get("installation") or {}), "id": standin.installation_id}
    return payload


def pull_request_payload(
    standin: GitHubStandIn, action: str, number: int, head: str, base: str, ref: str
) -> JSON:
    p = _point_at(_fixture(f"pull_request/{action}.payload.json"), standin)
    p["number"] = number
    pr = p["pull_request"]
    pr["number"] = number
    pr["head"]["sha"], pr["base"]["sha"], pr["base"]["ref"] = head, base, ref
    if action == "synchronize":
        p["after"] = head
    return p


def check_suite_payload(standin: GitHubStandIn, head: str, pull: tuple[int, str] | None = None) -> JSON:
    """check_suite.requested for `head`; `pull` (number, base sha) names the pull request, as
    GitHub does for one from the same repository (a fork's gets an empty list)."""
    p = _point_at(_fixture("check_suite/requested.payload.json"), standin)
    p["check_suite"]["head_sha"] = head
    p["check_suite"]["pull_requests"] = []
    if pull is not None:
        entry = _fixture("check_run/requested_action.payload.json")["check_run"]["pull_requests"][0]
        entry["number"] = pull[0]
        entry["head"]["sha"], entry["base"]["sha"], entry["base"]["ref"] = head, pull[1], "main"
        entry["head"]["repo"]["id"] = entry["base"]["repo"]["id"] = 7000
        p["check_suite"]["pull_requests"] = [entry]
    return p


def check_run_payload(standin: GitHubStandIn, head: str, run_id: int) -> JSON:
    p = _point_at(_fixture("check_run/rerequested.payload.json"), standin)
    p["check_run"]["head_sha"], p["check_run"]["id"] = head, run_id
    return p


def requested_action_payload(standin: GitHubStandIn, number: int, head: str, base: str, run_id: int) -> JSON:
    p = _point_at(_fixture("check_run/requested_action.payload.json"), standin)
    p["requested_action"]["identifier"] = "rerun"
    run = p["check_run"]
    run["head_sha"], run["id"] = head, run_id
    pulls = copy.deepcopy(run["pull_requests"][:1])
    pulls[0]["number"] = number
    pulls[0]["head"]["sha"], pulls[0]["base"]["sha"], pulls[0]["base"]["ref"] = head, base, "main"
    pulls[0]["head"]["repo"]["id"] = pulls[0]["base"]["repo"]["id"] = 7000
    run["pull_requests"] = pulls
    run["check_suite"]["pull_requests"] = pulls
    return p


def comment_payload(standin: GitHubStandIn, number: int, comment: JSON) -> JSON:
    """issue_comment.created for a comment the stand-in holds (its id, author and body)."""
    p = _point_at(_fixture("issue_comment/created.with-installation.payload.json"), standin)
    p["issue"]["number"] = number
    p["issue"]["pull_request"] = {"url": f"{standin.url}/repos/{standin.owner}/{standin.name}/pulls/{number}"}
    p["comment"]["id"], p["comment"]["body"] = comment["id"], comment["body"]
    p["comment"]["user"]["login"], p["comment"]["user"]["type"] = comment["user"]["login"], "User"
    return p


class BotServer:
    """The App's ASGI app under uvicorn on a loopback port; the test thread drives the worker."""

    def __init__(
        self, settings: Settings, queue: SQLiteQueue, handler: Handler, metrics: Metrics | None = None
    ):
        self.settings, self.queue = settings, queue
        self.metrics = metrics or Metrics()
        self.app = build_app(settings, queue, self.metrics)
        # base_delay_s=0: a retry waits exactly what GitHub asked for, on the queue's clock.
        self.worker = Worker(queue, handler, self.metrics, base_delay_s=0.0)
        self.url = ""

    def __enter__(self) -> BotServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._socket = sock
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        config = uvicorn.Config(
            self.app, log_config=None, access_log=False, lifespan="on", ws="none", http="h11"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the bot did not start")
            time.sleep(0.005)
        self._http = httpx.Client(base_url=self.url, timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.close()
        self._server.should_exit = True
        self._thread.join(10)
        self._socket.close()

    def deliver(self, event: str, payload: JSON, delivery: str | None = None) -> httpx.Response:
        body = json.dumps(payload).encode()
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(self.settings.webhook_secret, body),
            "User-Agent": "GitHub-Hookshot/test",
        }
        return self._http.post(self.settings.webhook_path, content=body, headers=headers)

    def drain(self) -> list[Job]:
        """Run every job that is due, as the worker thread would; returns them in order."""
        done: list[Job] = []
        while (job := self.worker.run_once()) is not None:
            done.append(job)
        return done
