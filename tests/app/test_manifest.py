"""app.yml and the Procfile: a manifest GitHub accepts, with the narrowest permissions that work.

The stand-in grants an installation exactly `APP_PERMISSIONS` and refuses (403) every call those
do not cover, so the App's other tests all run under the manifest's permissions; here, each
permission is also shown to be needed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.app.intake.events import route
from bot.app.jobs.handler import make_handler
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.worker import Worker
from bot.testing.appkit import comment_payload, pull_request_payload, settings_for
from bot.testing.standin import APP_PERMISSIONS, GitHubStandIn, run_git
from tests.appkit import Clock

ROOT = Path(__file__).resolve().parents[2]

# GitHub's "GitHub App Manifest parameters" (registering-a-github-app-from-a-manifest).
MANIFEST_KEYS = {
    "name",
    "url",
    "hook_attributes",
    "redirect_url",
    "callback_urls",
    "setup_url",
    "description",
    "public",
    "default_events",
    "default_permissions",
    "request_oauth_on_install",
    "setup_on_update",
}
# The permission each subscribed event needs ("To subscribe to this event, a GitHub App must have
# at least read-level access for the ... permission").
EVENT_NEEDS = {
    "pull_request": "pull_requests",
    "issue_comment": "issues",
    "check_run": "checks",
    "check_suite": "checks",
}


@pytest.fixture(scope="module")
def manifest() -> dict:
    return yaml.safe_load((ROOT / "app.yml").read_text())


def test_the_manifest_has_only_githubs_keys(manifest):
    assert set(manifest) <= MANIFEST_KEYS, set(manifest) - MANIFEST_KEYS
    assert manifest["url"] and manifest["name"] == "docs-sync" and manifest["public"] is False
    assert set(manifest["hook_attributes"]) <= {"url", "active"}
    assert manifest["hook_attributes"]["url"].endswith("/webhook")  # WEBHOOK_PATH's default


def test_events_are_the_ones_routed_and_their_permissions_are_granted(manifest):
    events, permissions = manifest["default_events"], manifest["default_permissions"]
    assert sorted(events) == sorted(EVENT_NEEDS)
    for event in events:
        assert route(event, {"action": "no-such-action"}) is None  # routed by name, actions filtered
        assert permissions.get(EVENT_NEEDS[event]) in ("read", "write"), event
    assert set(permissions.values()) <= {"read", "write"}
    assert "single_file" not in permissions  # contents: read covers the config; no path in a manifest


def test_the_stand_in_grants_the_manifests_permissions_and_write_for_apply(manifest):
    # The manifest asks for contents: read; the README says how to grant write for `/docs-sync
    # apply`, and the stand-in's installations have it (test_contents_write_is_what_lets_apply_...).
    assert manifest["default_permissions"] == {**APP_PERMISSIONS, "contents": "read"}


def test_the_procfile_serves_on_the_platforms_port():
    lines = [line for line in (ROOT / "Procfile").read_text().splitlines() if not line.startswith("#")]
    assert lines == [
        "web: docs-sync serve --no-worker --host 0.0.0.0 --port $PORT",
        "worker: docs-sync worker",
    ]


# -- each permission is needed -----------------------------------------------------------------------


def run_pull_request_and_command(standin: GitHubStandIn, shas: dict, db: Path, number: int) -> None:
    """A pull request with findings, then `/docs-sync ignore` from a writer, start to finish."""
    settings = settings_for(standin, db)
    queue = SQLiteQueue(settings.db_path, clock=Clock())
    worker = Worker(queue, make_handler(settings, queue, Metrics(), write_interval_s=0), max_attempts=1)
    standin.open_pull(number, "main", "pr")
    standin.set_permission("writer", "write")
    (check,) = route(
        "pull_request", pull_request_payload(standin, "opened", number, shas["pr"], shas["main"], "main")
    )
    queue.enqueue("d-1", check.kind, check.payload, key=check.key)
    comment = standin.add_issue_comment(number, "/docs-sync ignore --attn-implementation", user="writer")
    (command,) = route("issue_comment", comment_payload(standin, number, comment))
    queue.enqueue("d-2", command.kind, command.payload, key=command.key)
    while worker.run_once() is not None:
        pass
    queue.close()


def test_the_manifests_permissions_cover_every_call(server, repo_and_shas, tmp_path):
    server.reset()
    run_pull_request_and_command(server, repo_and_shas[1], tmp_path / "q.db", 1)
    assert [r for r in server.requests if r[2] == 403] == []
    assert [r["conclusion"] for r in server.check_runs] == ["failure", "failure"]
    assert server.reviews and server.reactions


@pytest.mark.parametrize("dropped", ["checks", "pull_requests", "contents"])
def test_without_any_one_permission_the_app_cannot_work(server, repo_and_shas, tmp_path, dropped):
    server.reset()
    server.app_permissions = {k: v for k, v in APP_PERMISSIONS.items() if k != dropped}
    try:
        run_pull_request_and_command(server, repo_and_shas[1], tmp_path / "q.db", 2)
    finally:
        server.app_permissions = dict(APP_PERMISSIONS)
    assert [r for r in server.requests if r[2] == 403]
    assert not any(r.get("conclusion") == "failure" and r["output"]["annotations"] for r in server.check_runs)


def test_contents_write_is_what_lets_apply_commit_the_fix(server, repo_and_shas, tmp_path):
    """With contents: read the check and its comments work, but `/docs-sync apply` cannot push."""
    repo, shas = repo_and_shas
    for granted in ("read", "write"):
        server.reset()
        server.app_permissions = {**APP_PERMISSIONS, "contents": granted}
        branch = f"manifest-apply-{granted}"
        run_git(repo, "branch", branch, shas["one"])
        settings = settings_for(server, tmp_path / f"{granted}.db")
        queue = SQLiteQueue(settings.db_path, clock=Clock())
        worker = Worker(queue, make_handler(settings, queue, Metrics(), write_interval_s=0), max_attempts=1)
        try:
            server.open_pull(3, "main", branch)
            server.set_permission("writer", "write")
            payload = pull_request_payload(server, "opened", 3, shas["one"], shas["main"], "main")
            comment = server.add_issue_comment(3, "/docs-sync apply", user="writer")
            for i, (event, body) in enumerate(
                [("pull_request", payload), ("issue_comment", comment_payload(server, 3, comment))]
            ):
                (spec,) = route(event, body)
                queue.enqueue(f"d-{i}", spec.kind, spec.payload, key=spec.key)
                while worker.run_once() is not None:
                    pass
        finally:
            server.app_permissions = dict(APP_PERMISSIONS)
            queue.close()
        pushed = server.pull(3)["head"]["sha"] != shas["one"]
        refused = [r for r in server.requests if r[2] == 403]
        assert server.check_runs[0]["conclusion"] == "failure"  # the check itself needs no write
        if granted == "read":
            assert not pushed and refused and all("/git/" in r[1] for r in refused)
            assert "Resource not accessible by integration" in server.issue_comments[-1]["body"]
        else:
            assert pushed and not refused
