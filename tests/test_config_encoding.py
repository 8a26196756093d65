""".github/docs-sync.yml that is not UTF-8 (a Latin-1 comment): the command line and the App refuse
it alike, naming the file and the line of the first byte that is not UTF-8."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.testing.appkit import ARGS, ARGS_ONE
from bot.testing.standin import GitHubStandIn, add_commit
from bot.testing.trainer import CONFIG, build_demo_repo

REPO_CONFIG = ".github/docs-sync.yml"
LATIN_CONFIG = CONFIG.replace("rules:\n", "# Configur\xe9 par l'\xe9quipe docs.\nrules:\n", 1).encode(
    "latin-1"
)
LINE = CONFIG.splitlines().index("rules:") + 1  # the comment goes in above `rules:`


@pytest.fixture(scope="module")
def latin(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("latin") / "trainer"
    main, _ = build_demo_repo(repo)
    shas = {"main": main}
    shas["latin-main"] = add_commit(repo, {REPO_CONFIG: LATIN_CONFIG}, parent="main", branch="latin-main")
    shas["latin-pr"] = add_commit(repo, {ARGS: ARGS_ONE}, parent="latin-main", branch="latin-pr")
    return repo, shas


def test_the_command_line_refuses_it_naming_file_and_line(latin):
    repo, _ = latin
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "check", "--repo", str(repo), "--base", "latin-main"]
        + ["--head", "latin-pr", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.strip() == f"docs-sync: {REPO_CONFIG}:{LINE}: file: not UTF-8 text (byte 0xe9)"


def test_explicit_rules_do_not_read_it(latin):
    repo, _ = latin
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "check", "--repo", str(repo), "--base", "latin-main"]
        + ["--head", "latin-pr", "--no-cache", "--rules", str(repo / REPO_CONFIG)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr  # the work tree's config (UTF-8) judged the change


@pytest.fixture(scope="module")
def server(latin):
    with GitHubStandIn(latin[0]) as standin:
        yield standin


@pytest.fixture(scope="module")
def repo_and_shas(latin):
    return latin


def test_the_app_refuses_it_naming_file_and_line(standin, bot):
    bot.check(1, "latin-main", "latin-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", f"Invalid {REPO_CONFIG}")
    assert f"{REPO_CONFIG}:{LINE}: file: not UTF-8 text (byte 0xe9)" in run["output"]["summary"]
    (note,) = run["output"]["annotations"]
    assert (note["path"], note["start_line"]) == (REPO_CONFIG, LINE)
