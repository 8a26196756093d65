"""`docs-sync demo --app`: the whole GitHub App loop on this machine, with no GitHub account.

1. builds the demo trainer repository (bot/testing/trainer.py) with its pull request branch;
2. starts the GitHub stand-in of bot/testing/standin/ (a local HTTP server that answers the
   REST and GraphQL calls the App makes, from that repository, and enforces GitHub's rules);
3. starts `docs-sync serve` as a separate process, configured through the environment exactly
   as a deployment is (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, GITHUB_API_URL, ...);
4. opens the pull request on the stand-in and delivers GitHub's signed `pull_request.opened`
   webhook to the App;
5. waits for the App's worker to finish and prints the check run, the review comments and the
   summary comment as a reviewer would see them on the pull request.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from bot.testing.standin import GitHubStandIn, sign
from bot.testing.trainer import build_demo_repo

SECRET = "demo webhook secret"
NUMBER = 7


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(url: str, proc: subprocess.Popen[bytes], seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"docs-sync serve exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {seconds:.0f} s")


def _opened_payload(standin: GitHubStandIn, pull: dict[str, Any]) -> dict[str, Any]:
    """A `pull_request.opened` delivery as GitHub shapes it (the fields the App reads, and more)."""
    repo = {
        "id": 7000,
        "name": standin.name,
        "full_name": f"{standin.owner}/{standin.name}",
        "owner": {"login": standin.owner, "id": 9000, "type": "Organization"},
        "html_url": f"https://github.com/{standin.owner}/{standin.name}",
        "default_branch": "main",
        "private": False,
    }
    return {
        "action": "opened",
        "number": pull["number"],
        "pull_request": pull,
        "repository": repo,
        "installation": {"id": standin.installation_id},
        "sender": pull.get("user") or {"login": "octocat", "type": "User"},
    }


def _show(standin: GitHubStandIn) -> None:
    run = standin.check_runs[-1]
    output = run.get("output") or {}
    status = f"{run['status']}, conclusion {run.get('conclusion')}"
    print(f"Check run `{run['name']}` on {run['head_sha'][:9]}: {status}")
    print(f"  title: {output.get('title')}")
    for a in output.get("annotations") or []:
        where = f"{a['path']}:{a['start_line']}"
        print(f"  annotation {a['annotation_level']:<8} {where}  {a['message'].splitlines()[0]}")
    print()
    for review in standin.reviews:
        comments = review.get("comments") or []
        print(f"Review by {review['user']['login']} ({len(comments)} inline comments):")
        for c in comments:
            print(f"\n  --- {c['path']} line {c.get('line')} ---")
            for line in c["body"].splitlines():
                if not line.startswith("<!--"):
                    print(f"  | {line}")
    print()
    for comment in standin.issue_comments:
        if comment["user"]["login"] == standin.bot_login:
            print("Summary comment on the pull request:")
            for line in comment["body"].splitlines():
                if not line.startswith("<!--"):
                    print(f"  | {line}")


def main(keep: str | None = None) -> int:

    with tempfile.TemporaryDirectory(prefix="docs-sync-app-demo-") as tmp:
        work = Path(keep) if keep else Path(tmp)
        repo = work / "trainer"
        build_demo_repo(repo)
        with GitHubStandIn(repo, owner="acme", name="trainer") as standin:
            port = _free_port()
            env = dict(
                os.environ,
                APP_ID=str(standin.app_id),
                PRIVATE_KEY=standin.private_key_pem,
                WEBHOOK_SECRET=SECRET,
                GITHUB_API_URL=standin.url,
                DOCS_SYNC_DB=str(work / "docs-sync.db"),
                PORT=str(port),
                LOG_LEVEL="WARNING",
            )
            print(f"GitHub stand-in at {standin.url}; starting `docs-sync serve` on port {port}")
            app = subprocess.Popen(
                [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(port)],
                env=env,
            )
            try:
                _wait_for(f"http://127.0.0.1:{port}/healthz", app)
                pull = standin.open_pull(NUMBER, "main", "pr", title="fsdp: BooleanOptionalAction for bools")
                body = json.dumps(_opened_payload(standin, pull)).encode()
                answer = httpx.post(
                    f"http://127.0.0.1:{port}/webhook",
                    content=body,
                    headers={
                        "Content-Type": "application/json",
                        "X-GitHub-Event": "pull_request",
                        "X-GitHub-Delivery": str(uuid.uuid4()),
                        "X-Hub-Signature-256": sign(SECRET, body),
                    },
                    timeout=10,
                )
                print(f"Opened pull request #{NUMBER} (pr -> main); webhook answered {answer.status_code}")
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    runs = standin.check_runs
                    if runs and runs[-1]["status"] == "completed" and standin.issue_comments:
                        break
                    time.sleep(0.2)
                else:
                    print("the App did not finish within 60 s", file=sys.stderr)
                    return 1
                time.sleep(0.3)  # let the last write land
                print()
                _show(standin)
            finally:
                app.terminate()
                app.wait(10)
    return 0
