"""The typed store: each value round-trips through the queue database, in the JSON layout older
versions wrote (so an upgrade keeps what a running App remembered), and reads of older or partial
values fall back to defaults. Every test runs on both databases, SQLite and PostgreSQL, as the
queue's suite does: the store keeps the same values, byte for byte, on either."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError

import pytest

from bot.app.queue.database import open_queue
from bot.app.queue.protocol import JobQueue
from bot.app.queue.store import (
    BlobAt,
    Checked,
    CheckRun,
    PostedComment,
    PullRef,
    PullState,
    Reply,
    SeenConfig,
    Store,
    StoredReport,
    Waiver,
)
from bot.core.model import CodeLocation, DocLocation, Finding, Report, Suggestion

PR = PullRef("octo/docs", 12)


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, tmp_path):
    if request.param == "sqlite":
        location = str(tmp_path / "state.db")
    else:
        location = request.getfixturevalue("postgres").new_database()
    with open_queue(location) as queue:
        yield queue


def raw(db: JobQueue, ns: str, key: str):
    text = db.kv_get(ns, key)
    return None if text is None else json.loads(text)


def test_pull_refs_key_the_pull_request_as_owner_repo_number():
    assert str(PR) == "octo/docs#12"


def test_waivers_replace_an_earlier_one_for_the_same_symbol(db):
    store = Store(db)
    assert store.waivers(PR) == []
    store.add_waiver(PR, Waiver("--old", "renamed", "maint"))
    store.add_waiver(PR, Waiver("--gone", "", "maint"))
    store.add_waiver(PR, Waiver("--old", "renamed on purpose", "lead"))
    assert store.waivers(PR) == [Waiver("--gone", "", "maint"), Waiver("--old", "renamed on purpose", "lead")]
    assert raw(db, "waivers", "octo/docs#12") == [
        {"symbol": "--gone", "reason": "", "user": "maint"},
        {"symbol": "--old", "reason": "renamed on purpose", "user": "lead"},
    ]
    assert store.waivers(PullRef("octo/docs", 13)) == []  # per pull request


def test_config_tells_never_looked_from_no_config(db):
    store = Store(db)
    assert store.config("octo/docs", "main") is None
    store.save_config("octo/docs", "main", None)
    assert store.config("octo/docs", "main") == SeenConfig(None)  # looked: the branch has none
    store.save_config("octo/docs", "main", "c" * 40)
    assert store.config("octo/docs", "main") == SeenConfig("c" * 40)
    assert raw(db, "config", "octo/docs@main") == {"oid": "c" * 40}


def test_checked_commits(db):
    store = Store(db)
    assert store.checked("octo/docs", "h" * 40) is None
    store.mark_checked("octo/docs", "h" * 40, Checked(12, "b" * 40, "config:" + "c" * 40))
    assert store.checked("octo/docs", "h" * 40) == Checked(12, "b" * 40, "config:" + "c" * 40)
    assert raw(db, "checked", f"octo/docs@{'h' * 40}") == {
        "pr": 12,
        "base_sha": "b" * 40,
        "rules": "config:" + "c" * 40,
    }
    # Written before the rules were: never the same rules as any now.
    db.kv_put("checked", "octo/docs@" + "e" * 40, '{"pr": 12, "base_sha": "' + "b" * 40 + '"}')
    assert store.checked("octo/docs", "e" * 40) == Checked(12, "b" * 40, "")


def test_the_last_report_keeps_what_explaining_needs(db):
    store = Store(db)
    assert store.last_report(PR) is None
    kept = Finding(
        "renamed",
        "error",
        "--old",
        "`--old` is now `--new`",
        "cli-page",
        doc=DocLocation("docs/cli.md", 3, "Flags", "flags"),
        code=CodeLocation("cli.py", 7),
        suggestion=Suggestion("docs/cli.md", 3, 3, "`--new`"),
        why="argparse renamed it",
    )
    waived = Finding("removed", "warning", "--gone", "gone", "cli-page", code=CodeLocation("cli.py", 9))
    store.save_report(
        PR, StoredReport("h" * 40, "https://github.com/octo/docs", Report((kept,), ((waived, "ok"),)))
    )
    stored = store.last_report(PR)
    assert stored is not None and (stored.head_sha, stored.html_url) == (
        "h" * 40,
        "https://github.com/octo/docs",
    )
    (f,) = stored.report.findings
    assert (f.kind, f.severity, f.symbol, f.message, f.rule, f.why) == (
        "renamed",
        "error",
        "--old",
        "`--old` is now `--new`",
        "cli-page",
        "argparse renamed it",
    )
    assert (f.doc.path, f.doc.line, f.doc.section) == ("docs/cli.md", 3, "Flags")
    assert f.code == CodeLocation("cli.py", 7)
    assert f.suggestion == Suggestion("docs/cli.md", 3, 3, "`--new`")  # what `/docs-sync apply` commits
    ((g, reason),) = stored.report.ignored
    assert (g.symbol, g.doc, reason) == ("--gone", None, "ok")
    data = raw(db, "report", "octo/docs#12")
    assert data["findings"][0]["doc"] == {"path": "docs/cli.md", "line": 3, "section": "Flags"}
    assert data["ignored"][0]["reason"] == "ok"


def test_check_runs_and_their_pending_creation_by_job(db):
    store = Store(db)
    assert store.check_run(7) is None and not store.check_run_started(7)
    store.set_pending_check_run(7, "h" * 40)
    assert store.pending_check_run(7) == "h" * 40 and store.check_run_started(7)
    run = CheckRun(99, "h" * 40, "https://github.com/octo/docs/runs/99")
    store.save_check_run(7, run)
    store.set_pending_check_run(7, None)
    assert store.pending_check_run(7) is None and store.check_run_started(7)
    assert store.check_run(7) == run
    with pytest.raises(FrozenInstanceError):
        run.done = True  # type: ignore[misc]
    assert raw(db, "check-run", "7") == {
        "id": 99,
        "head_sha": "h" * 40,
        "html_url": "https://github.com/octo/docs/runs/99",
        "sent": 0,
        "done": False,
    }
    db.kv_put("check-run", "8", json.dumps({"id": 5, "head_sha": "a" * 40}))  # fields added later
    assert store.check_run(8) == CheckRun(5, "a" * 40, "", 0, False)


def test_pull_state_round_trips_and_changes_only_by_copy(db):
    store = Store(db)
    assert store.pull_state(PR) == PullState()
    state = PullState(reviews=(3,), summary_id=40, summary_hash="ab", review_pending=True)
    state = state.with_comment("f1", PostedComment("open", "**renamed** `--old`"))
    updated = state.with_comment("f1", PostedComment("fixed", "**renamed** `--old`", 501))
    assert state.comments["f1"].state == "open" and updated.comments["f1"].id == 501
    assert updated.open_fingerprints() == set() and state.open_fingerprints() == {"f1"}
    store.save_pull_state(PR, updated)
    assert store.pull_state(PR) == updated
    assert raw(db, "pr", "octo/docs#12") == {
        "reviews": [3],
        "comments": {"f1": {"state": "fixed", "message": "**renamed** `--old`", "id": 501}},
        "summary_id": 40,
        "summary_hash": "ab",
        "review_pending": True,
        "summary_pending": False,
        "synced": False,
    }
    db.kv_put("pr", "octo/docs#1", json.dumps({"reviews": [1], "comments": {}}))  # an older value
    assert store.pull_state(PullRef("octo/docs", 1)) == PullState(reviews=(1,))


def test_replies_by_job(db):
    store = Store(db)
    assert store.reply(4) is None
    store.save_reply(4, Reply(None))  # being sent
    assert store.reply(4) == Reply(None)
    store.save_reply(4, Reply(812))
    assert store.reply(4) == Reply(812) and raw(db, "reply", "4") == {"id": 812}


def test_revisions_read_through_the_api(db):
    store = Store(db)
    assert store.merge_base("octo/docs", "b" * 40, "h" * 40) is None
    store.save_merge_base("octo/docs", "b" * 40, "h" * 40, "m" * 40)
    assert store.merge_base("octo/docs", "b" * 40, "h" * 40) == "m" * 40
    assert raw(db, "merge-base", f"octo/docs@{'b' * 40}...{'h' * 40}") == {"sha": "m" * 40}
    assert store.blob_at("octo/docs", "h" * 40, "a.md") is None  # never read
    store.save_blob_at("octo/docs", "h" * 40, "a.md", BlobAt(None))
    assert store.blob_at("octo/docs", "h" * 40, "a.md") == BlobAt(None)  # read: nothing there
    store.save_blob_at("octo/docs", "h" * 40, "logo.png", BlobAt("o" * 40, binary=True))
    assert raw(db, "blob-at", f"octo/docs@{'h' * 40}:logo.png") == {"oid": "o" * 40, "binary": True}
    assert store.blob_text("t" * 40) is None
    store.save_blob_text("t" * 40, "# Title\n")
    assert store.blob_text("t" * 40) == "# Title\n"


def test_text_with_a_nul_byte_and_characters_beyond_the_bmp_round_trips(db):
    # A file is kept as text when its bytes are UTF-8, and a NUL byte is UTF-8; PostgreSQL's
    # TEXT refuses NUL characters, so the store must keep them another way there.
    store = Store(db)
    text = "a\x00b — 🚀 \U0010ffff\n"
    store.save_blob_text("n" * 40, text)
    assert store.blob_text("n" * 40) == text
    store.add_waiver(PR, Waiver("--x\x00y", "🚀", "maint"))
    assert store.waivers(PR) == [Waiver("--x\x00y", "🚀", "maint")]


def test_a_postgresql_database_made_with_text_blobs_is_converted_and_keeps_them(postgres):
    import psycopg

    url = postgres.new_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE blobs (sha TEXT PRIMARY KEY, text TEXT NOT NULL, created_at DOUBLE PRECISION)"
        )
        conn.execute("INSERT INTO blobs VALUES (%s, %s, 1.0)", ("o" * 40, "# Kept — 🚀\n"))
    with open_queue(url) as queue:
        store = Store(queue)
        assert store.blob_text("o" * 40) == "# Kept — 🚀\n"
        store.save_blob_text("n" * 40, "a\x00b\n")
        assert store.blob_text("n" * 40) == "a\x00b\n"
