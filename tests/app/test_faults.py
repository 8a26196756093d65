"""The App under faults that leave no error to catch: its database lost between two runs of a
pull request. GitHub is the source of truth: what docs-sync wrote there is found and adopted,
never written twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.comments import SUMMARY_MARKER, marked_fingerprint
from bot.testing.standin import add_commit
from tests.appkit import CheckBot


def summaries(standin) -> list[dict]:
    return [c for c in standin.issue_comments if c["body"].startswith(SUMMARY_MARKER)]


def fingerprints(standin) -> list[str]:
    return [marked_fingerprint(c["body"]) for c in standin.review_comments]


def lose_the_database(bot: CheckBot, tmp_path: Path, name: str) -> CheckBot:
    """The volume is gone: the same App, started again over an empty database."""
    bot.queue.close()
    Path(bot.settings.db_path).unlink()
    fresh = CheckBot(bot.standin, bot.shas, tmp_path / name)
    fresh.opened = set(bot.opened)
    return fresh


@pytest.fixture
def fresh_dirs(tmp_path):
    for name in ("second", "third", "fourth"):
        (tmp_path / name).mkdir()
    return tmp_path


def test_a_lost_database_posts_no_second_summary_review_or_check_run(bot, standin, repo_and_shas, fresh_dirs):
    repo_dir, shas = repo_and_shas
    bot.check(40, "main", "pr")
    (run,) = standin.check_runs
    (summary,) = summaries(standin)
    assert len(standin.reviews) == 1 and len(standin.review_comments) == 3

    again = lose_the_database(bot, fresh_dirs, "second")
    again.check(40, "main", "pr")  # the same head delivered again
    assert [r["id"] for r in standin.check_runs] == [run["id"]]  # that head has its run
    assert summaries(standin) == [summary] and len(standin.reviews) == 1
    assert len(standin.review_comments) == 3

    # A push whose findings are the same three: a run for the new head, no new comment.
    shas.setdefault(
        "pr-again", add_commit(repo_dir, {"NOTES.md": "unrelated\n"}, parent="pr", branch="pr-again")
    )
    standin.update_pull(40, head="pr-again")
    third = lose_the_database(again, fresh_dirs, "third")
    third.check(40, "main", "pr-again")
    assert [r["head_sha"] for r in standin.check_runs] == [shas["pr"], shas["pr-again"]]
    assert standin.check_runs[1]["output"]["title"] == "3 doc lines out of date"
    assert len(standin.reviews) == 1 and len(fingerprints(standin)) == len(set(fingerprints(standin))) == 3
    (edited,) = summaries(standin)
    assert edited["id"] == summary["id"] and shas["pr-again"][:12] in edited["body"]

    # The fix, after one more loss: the adopted comments are marked fixed, the summary edited.
    standin.update_pull(40, head="pr-fixed")
    fourth = lose_the_database(third, fresh_dirs, "fourth")
    fourth.check(40, "main", "pr-fixed")
    assert len(standin.reviews) == 1 and len(standin.review_comments) == 3
    assert all(c["body"].startswith("✅ **Fixed in") for c in standin.review_comments)
    (fixed,) = summaries(standin)
    assert fixed["id"] == summary["id"] and standin.check_runs[-1]["conclusion"] == "success"
    fourth.queue.close()


def test_a_run_left_in_progress_when_the_database_was_lost_is_completed_not_doubled(bot, standin, fresh_dirs):
    standin.fail_next("GET", r"/pulls/41/files$", 502)
    bot.enqueue(41, "main", "one")
    bot.worker.run_once()  # the run is created, the job waits for its retry: then the disk is gone
    (orphan,) = standin.check_runs
    assert orphan["status"] == "in_progress"
    again = lose_the_database(bot, fresh_dirs, "second")
    again.check(41, "main", "one")
    (run,) = standin.check_runs
    assert (run["id"], run["status"], run["output"]["title"]) == (
        orphan["id"],
        "completed",
        "1 doc line out of date",
    )
    again.queue.close()


def test_a_store_that_knows_the_pull_request_asks_github_nothing_more(bot, standin):
    looks = (r"/commits/[0-9a-f]+/check-runs$", r"/issues/43/comments$", r"/pulls/43/comments$")
    bot.check(43, "main", "pr")
    # The first run of a pull request looks once: docs-sync's runs on the head, its comments and
    # its review comments (none yet: a new pull request, or the database was lost).
    assert [len(standin.calls("GET", p)) for p in looks] == [1, 1, 1]
    standin.update_pull(43, head="one")
    bot.check(43, "main", "one")  # two findings fixed: their comments' ids are looked up, once
    assert [len(standin.calls("GET", p)) for p in looks] == [1, 1, 2]
