import copy
import json

import pytest

from bot.app.intake.events import JobSpec, parse_command, route
from bot.testing.appkit import WEBHOOKS

HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"


def load(name: str) -> dict:
    return json.loads((WEBHOOKS / name).read_text())


def only(specs: list[JobSpec] | None) -> JobSpec:
    assert specs is not None and len(specs) == 1
    return specs[0]


def pr_comment(body: str, **user: str) -> dict:
    """A recorded issue comment, moved onto a pull request, with `body`."""
    payload = copy.deepcopy(load("issue_comment/created.with-installation.payload.json"))
    payload["issue"]["pull_request"] = {"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}
    payload["comment"]["body"] = body
    payload["comment"]["user"].update(user)
    return payload


@pytest.mark.parametrize(
    "name",
    [
        "pull_request/opened.payload.json",
        "pull_request/opened.with-null-body.json",
        "pull_request/opened.with-organization.payload.json",
        "pull_request/synchronize.payload.json",
        "pull_request/reopened.payload.json",
        "pull_request/ready_for_review.with-installation.payload.json",
    ],
)
def test_pull_request_triggers_a_check(name):
    spec = only(route("pull_request", load(name)))
    action = load(name)["action"]
    assert spec == JobSpec(
        "check",
        "Codertocat/Hello-World#2",
        {
            "trigger": f"pull_request.{action}",
            "installation_id": 1,
            "owner": "Codertocat",
            "repo": "Hello-World",
            "pr": 2,
            "head_sha": HEAD,
            "base_sha": "f95f852bd8fca8fcc58a9a2d6c842781e32a215e",
            "base_ref": "master",
            "check_run_id": None,  # every check job carries every key
        },
    )


def test_payload_without_installation_still_routes():
    # Older recordings carry no installation; the handler then looks it up by repository.
    spec = only(route("pull_request", load("pull_request/ready_for_review.payload.json")))
    assert spec.payload["installation_id"] is None and spec.key == "Codertocat/Hello-World#2"


def test_draft_pull_requests_are_checked():
    payload = load("pull_request/opened.payload.json")
    payload["pull_request"]["draft"] = True
    assert only(route("pull_request", payload)).kind == "check"


def test_edited_only_when_the_base_changed():
    payload = load("pull_request/opened.payload.json")
    payload["action"] = "edited"
    payload["changes"] = {"title": {"from": "Update the README"}}
    assert route("pull_request", payload) is None
    payload["changes"] = {"base": {"ref": {"from": "main"}, "sha": {"from": "0" * 40}}}
    spec = only(route("pull_request", payload))
    assert spec.payload["trigger"] == "pull_request.edited" and spec.payload["base_ref"] == "master"


@pytest.mark.parametrize(
    "name",
    [
        "pull_request/closed.payload.json",
        "pull_request/labeled.payload.json",
        "pull_request/assigned.payload.json",
        "pull_request/converted_to_draft.payload.json",
        "pull_request/review_requested.payload.json",
        "pull_request/locked.payload.json",
    ],
)
def test_other_pull_request_actions_are_ignored(name):
    assert route("pull_request", load(name)) is None


def test_check_run_rerequested_for_a_fork_carries_the_sha():
    spec = only(route("check_run", load("check_run/rerequested.payload.json")))
    sha = "d6fde92930d4715a2b49857d24b940956b26d2d3"
    assert spec.kind == "check"
    assert spec.key == f"github/hello-world@{sha}"
    assert spec.payload == {
        "trigger": "check_run.rerequested",
        "installation_id": 1,
        "owner": "github",
        "repo": "hello-world",
        "pr": None,
        "head_sha": sha,
        "base_sha": None,
        "base_ref": None,
        "check_run_id": 4,
    }


def test_check_run_rerequested_with_a_pull_request():
    payload = load("check_run/completed.payload.json")  # a run that names its pull request
    payload["action"] = "rerequested"
    spec = only(route("check_run", payload))
    assert spec.key == "Codertocat/Hello-World#2"
    assert (spec.payload["pr"], spec.payload["check_run_id"], spec.payload["base_ref"]) == (
        2,
        128620228,
        "master",
    )


def test_check_run_requested_action_rerun_only():
    payload = load("check_run/requested_action.payload.json")
    assert route("check_run", payload) is None  # another App's button ("lgtm|26764")
    payload["requested_action"]["identifier"] = "rerun"
    spec = only(route("check_run", payload))
    assert spec.payload["trigger"] == "check_run.requested_action"
    assert spec.payload["installation_id"] == 690857 and spec.key.startswith("electron/electron#")


@pytest.mark.parametrize("name", ["check_run/created.payload.json", "check_run/completed.payload.json"])
def test_check_run_created_and_completed_are_ignored(name):
    assert route("check_run", load(name)) is None


def test_check_suite_requested_with_empty_pull_requests():
    payload = load("check_suite/requested.payload.json")
    assert payload["check_suite"]["pull_requests"] == []
    spec = only(route("check_suite", payload))
    sha = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
    assert spec.key == f"Codertocat/Hello-World@{sha}"
    assert spec.payload["pr"] is None and spec.payload["head_sha"] == sha
    assert spec.payload["installation_id"] == 957387


def test_check_suite_rerequested_names_the_pull_request():
    spec = only(route("check_suite", load("check_suite/rerequested.payload.json")))
    assert spec.key == "Codertocat/Hello-World#2"
    assert spec.payload["base_sha"] == "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"


def test_check_suite_with_two_pull_requests_and_a_foreign_one():
    payload = load("check_suite/rerequested.payload.json")
    pulls = payload["check_suite"]["pull_requests"]
    second = copy.deepcopy(pulls[0]) | {"number": 7}
    foreign = copy.deepcopy(pulls[0]) | {"number": 99}
    foreign["base"] = copy.deepcopy(foreign["base"]) | {"repo": {"id": 1, "name": "elsewhere"}}
    pulls += [second, foreign]
    specs = route("check_suite", payload)
    assert [s.key for s in specs] == ["Codertocat/Hello-World#2", "Codertocat/Hello-World#7"]


def test_check_suite_completed_is_ignored():
    assert route("check_suite", load("check_suite/completed.payload.json")) is None


def test_comment_without_command_is_ignored():
    assert (
        route("issue_comment", pr_comment("You are totally right! I'll get this fixed right away.")) is None
    )


def test_recorded_comments_are_not_commands():
    for name in (
        "created.payload.json",
        "created.1.payload.json",
        "edited.payload.json",
        "deleted.payload.json",
    ):
        assert route("issue_comment", load(f"issue_comment/{name}")) is None


def test_command_on_a_pull_request():
    spec = only(route("issue_comment", pr_comment("/docs-sync explain")))
    assert spec == JobSpec(
        "command",
        "Codertocat/Hello-World#1",
        {
            "trigger": "issue_comment.created",
            "installation_id": 1,
            "owner": "Codertocat",
            "repo": "Hello-World",
            "pr": 1,
            "head_sha": None,
            "base_sha": None,
            "base_ref": None,
            "comment_id": 492700400,
            "user": "Codertocat",
            "command": "explain",
            "args": [],
            "note": None,
        },
        "comment:492700400@2019-05-15T15:20:21Z",  # the comment as written: once, whatever the delivery
    )


def test_command_on_a_plain_issue_is_ignored():
    payload = pr_comment("/docs-sync recheck")
    del payload["issue"]["pull_request"]
    assert route("issue_comment", payload) is None


@pytest.mark.parametrize("user", [{"type": "Bot", "login": "docs-sync"}, {"login": "docs-sync[bot]"}])
def test_bot_comments_are_ignored(user):
    assert route("issue_comment", pr_comment("/docs-sync recheck", **user)) is None


@pytest.mark.parametrize("action", ["edited", "deleted"])
def test_edited_and_deleted_commands_are_ignored(action):
    payload = pr_comment("/docs-sync recheck")
    payload["action"] = action
    assert route("issue_comment", payload) is None


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/docs-sync", ("", ())),
        ("  /docs-sync  \n\nthanks", ("", ())),
        ("/docs-sync recheck", ("recheck", ())),
        ("/docs-sync RECHECK", ("RECHECK", ())),  # as written; the registry reads it
        ("/docs-sync explain", ("explain", ())),
        ("/docs-sync help", ("help", ())),
        ("/docs-sync ignore --old-flag", ("ignore", ("--old-flag",))),
        (
            "/docs-sync ignore `--old-flag` removed on purpose",
            ("ignore", ("--old-flag", "removed on purpose")),
        ),
        ("/docs-sync ignore", ("ignore", ())),
        ("/docs-sync frobnicate now", ("frobnicate", ("now",))),
        ("/docs-syncing is great", None),
        ("please /docs-sync", None),
        ("", None),
    ],
)
def test_parse_command(body, expected):
    assert parse_command(body) == expected


def test_an_unknown_verb_is_queued_as_written_for_the_registry_to_answer():
    spec = only(route("issue_comment", pr_comment("/docs-sync frobnicate")))
    assert (spec.kind, spec.payload["command"], spec.payload["args"]) == ("command", "frobnicate", [])


def test_ignore_job_carries_symbol_and_reason():
    spec = only(route("issue_comment", pr_comment("/docs-sync ignore --fsdp-cpu-offload doc moved")))
    assert spec.payload["args"] == ["--fsdp-cpu-offload", "doc moved"]


@pytest.mark.parametrize(
    ("event", "name"),
    [
        ("ping", "ping/payload.json"),
        ("ping", "ping/with-app_id.payload.json"),
        ("ping", "ping/with-organization.payload.json"),
        ("installation", "installation/created.payload.json"),
        ("installation", "installation/deleted.payload.json"),
        ("installation_repositories", "installation_repositories/added.payload.json"),
    ],
)
def test_ping_and_installation_are_acknowledged(event, name):
    assert route(event, load(name)) == []


def test_unknown_events_are_ignored():
    assert route("star", {"action": "created"}) is None
    assert route("push", {"ref": "refs/heads/main"}) is None


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("pull_request", {"action": "opened"}),
        ("pull_request", {"action": "opened", "number": "2", "pull_request": []}),
        ("pull_request", {"action": "synchronize", "repository": None, "pull_request": {"head": {"sha": 5}}}),
        ("check_suite", {"action": "requested", "check_suite": {"pull_requests": None}}),
        ("check_run", {"action": "rerequested", "check_run": "nope"}),
        (
            "issue_comment",
            {"action": "created", "issue": {"pull_request": {}}, "comment": {"body": "/docs-sync"}},
        ),
        ("issue_comment", {"action": "created", "issue": {"pull_request": {}}, "comment": None}),
        ("pull_request", []),
    ],
)
def test_malformed_payloads_are_ignored_not_raised(event, payload):
    assert route(event, payload) is None


def test_every_recorded_payload_routes_without_error():
    for path in sorted(WEBHOOKS.glob("*/*.json")):
        result = route(path.parent.name, json.loads(path.read_text()))
        assert result is None or isinstance(result, list), path
