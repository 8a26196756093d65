"""The App under faults that leave no error to catch. Its database lost between two runs of a
pull request: GitHub is the source of truth, what docs-sync wrote there is found and adopted,
never written twice. Sources that are not UTF-8 text (another encoding, a NUL byte, bytes no
encoding reads): read as Python reads them, with the same findings as the command line's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.queue.store import PullRef, Store
from bot.render.comments import SUMMARY_MARKER, marked_fingerprint
from bot.testing.standin import GitHubStandIn, add_commit, make_repo
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


# -- sources that are not UTF-8 text ----------------------------------------------------------------

ENCODED_CONFIG = """\
rules:
  - id: tool-page
    docs:
      - path: docs/tool.md
    sources:
      - {id: latin, kind: argparse, path: tool/latin.py}
      - {id: nul, kind: argparse, path: tool/nul.py}
      - {id: broken, kind: argparse, path: tool/broken.py}
"""
TOOL_DOC = (
    "# Tool\n\n- `--name` names the run.\n- `--old-flag` turns the old thing on.\n- `--keep` keeps files.\n"
)


def tool(flag: bytes, *, top: bytes = b"", dest: bytes = b"") -> bytes:
    return top + b"import argparse\n\np = argparse.ArgumentParser()\np.add_argument(" + flag + dest + b")\n"


ENCODED_CASES = {
    # A valid Python file in latin-1, as its coding cookie says: nothing to report.
    "latin1": {
        "tool/latin.py": tool(b'"--name", help="le nom d\xe9sir\xe9"', top=b"# -*- coding: latin-1 -*-\n")
    },
    # A NUL byte in a comment (git and GitHub call the file binary) and a flag renamed.
    "nul": {"tool/nul.py": tool(b'"--new-flag"', top=b"# built \x00 here\n", dest=b', dest="old_flag"')},
    # A latin-1 byte and no cookie: Python cannot decode it.
    "broken": {"tool/broken.py": tool(b'"--keep"', top=b"# caf\xe9\n")},
}


@pytest.fixture(scope="module")
def encoded(tmp_path_factory):
    """A repository whose pull requests each bring one kind of undecoded source, served by a stand-in."""
    base = {
        ".github/docs-sync.yml": ENCODED_CONFIG,
        "docs/tool.md": TOOL_DOC,
        "tool/latin.py": tool(b'"--name", help="the name"'),
        "tool/nul.py": tool(b'"--old-flag"'),
        "tool/broken.py": tool(b'"--keep"'),
    }
    repo_dir, (main,) = make_repo(tmp_path_factory.mktemp("encoded"), [base])
    shas = {"main": main}
    for name, files in ENCODED_CASES.items():
        shas[name] = add_commit(repo_dir, files, parent="main", branch=name)
    with GitHubStandIn(repo_dir) as standin:
        yield repo_dir, shas, standin


def cli_findings(repo_dir: Path, head: str) -> list[tuple]:
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "check", "--repo", str(repo_dir), "--base", "main", "--head", head]
        + ["--format", "json", "--no-cache"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return sorted(
        (f["kind"], f["symbol"], (f["code"] or {}).get("path"), (f["doc"] or {}).get("line"))
        for f in json.loads(proc.stdout)["findings"]
    )


def app_findings(bot: CheckBot, number: int) -> list[tuple]:
    stored = Store(bot.queue).last_report(PullRef("octo-org/docs-repo", number))
    assert stored is not None
    return sorted(
        (f.kind, f.symbol, f.code.path if f.code else None, f.doc.line if f.doc else None)
        for f in stored.report.findings
    )


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("latin1", []),
        ("nul", [("parse-error", "tool/nul.py")]),
        ("broken", [("parse-error", "tool/broken.py")]),
    ],
)
def test_the_app_and_the_cli_read_undecoded_sources_alike(encoded, tmp_path, case, expected):
    repo_dir, shas, standin = encoded
    standin.reset()
    number = list(ENCODED_CASES).index(case) + 60
    bot = CheckBot(standin, shas, tmp_path)
    try:
        bot.check(number, "main", case)
        app = app_findings(bot, number)
    finally:
        bot.queue.close()
    cli = cli_findings(repo_dir, case)
    assert app == cli  # the same findings on the same commits
    assert [(kind, symbol) for kind, symbol, _, _ in cli] == expected
    (run,) = standin.check_runs
    assert run["conclusion"] == ("success" if not expected else "failure")
    # Never a doc line proposed for deletion because a source could not be read.
    assert not any("```suggestion\n```" in c["body"] for c in standin.review_comments)
    assert [r for r in standin.requests if r[2] == 422] == []
