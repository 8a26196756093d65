"""Typed job payloads: what events.py queues reads back as the same dataclass, once, tolerant of
keys it does not know and firm about the ones a job cannot do without."""

from __future__ import annotations

import json

import pytest

from bot.app.intake.events import route
from bot.app.intake.payloads import CheckJob, CommandJob, PayloadError, parse
from bot.testing.appkit import WEBHOOKS


def test_a_check_job_round_trips_through_the_queues_json():
    job = CheckJob("octo", "docs", 42, "pull_request.synchronize", 12, "h" * 40, "b" * 40, "main")
    data = json.loads(json.dumps(job.to_json(), sort_keys=True))  # as the queue stores it
    assert parse("check", data) == job and job.full_name == "octo/docs"
    assert set(data) == {
        "trigger",
        "installation_id",
        "owner",
        "repo",
        "pr",
        "head_sha",
        "base_sha",
        "base_ref",
        "check_run_id",
    }


def test_a_command_job_round_trips_and_keeps_its_words():
    job = CommandJob("octo", "docs", 12, 900, "alice", "ignore", ("--old", "renamed on purpose"))
    data = json.loads(json.dumps(job.to_json()))
    assert data["args"] == ["--old", "renamed on purpose"] and data["head_sha"] is None
    assert parse("command", data) == job


def test_what_events_queue_parses_for_every_recorded_delivery():
    parsed = 0
    for path in sorted(WEBHOOKS.glob("*/*.json")):
        for spec in route(path.parent.name, json.loads(path.read_text())) or []:
            job = parse(spec.kind, json.loads(json.dumps(spec.payload)))
            assert job is not None and job.to_json() == spec.payload, path
            parsed += 1
    assert parsed > 10


def test_unknown_keys_are_ignored_and_missing_ones_default():
    data = {"owner": "octo", "repo": "docs", "head_sha": "h" * 40, "added_in_a_later_version": [1, 2]}
    assert parse("check", data) == CheckJob("octo", "docs", head_sha="h" * 40)
    # Mistyped values read as unknown rather than as something else.
    odd = parse("check", {**data, "pr": "12", "installation_id": True, "base_ref": ""})
    assert odd == CheckJob("octo", "docs", head_sha="h" * 40)


def test_a_command_queued_by_an_earlier_version_still_reads():
    # Earlier versions resolved unknown verbs to help when the comment arrived, with a note.
    old = {
        "trigger": "issue_comment.created",
        "installation_id": 1,
        "owner": "octo",
        "repo": "docs",
        "pr": 3,
        "comment_id": 77,
        "user": "bob",
        "command": "help",
        "args": [],
        "note": "unknown command 'frobnicate'",
    }
    job = parse("command", old)
    assert isinstance(job, CommandJob) and (job.command, job.note) == ("help", "unknown command 'frobnicate'")


def test_a_payload_without_what_the_job_needs_is_an_error_that_says_what():
    with pytest.raises(PayloadError, match="no 'owner'"):
        parse("check", {"repo": "docs"})
    with pytest.raises(PayloadError, match="comment"):
        parse("command", {"owner": "octo", "repo": "docs", "pr": 3, "user": "bob"})
    with pytest.raises(PayloadError, match="not a JSON object"):
        parse("check", ["octo", "docs"])  # type: ignore[arg-type]
    assert parse("deploy", {"owner": "octo"}) is None  # a kind no version queued
