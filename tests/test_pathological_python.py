"""Valid or pathological Python a pull request can add: the file is a `parse-error` finding and the
rest of the check goes on, in the command line (exit by the findings, no traceback) and in the
App (the check run completes with the same findings)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.testing.appkit import ARGS, ARGS_ONE
from bot.testing.standin import GitHubStandIn, add_commit
from bot.testing.trainer import build_demo_repo

FACTORY = "trainer/train/actor_factory.py"  # a `strings` source compared with `backend`
PARALLEL = "trainer/backends/fsdp/parallel.py"  # a `strings` source read from calls

# Valid Python: a 450-term sum compared with `backend` (ast.unparse of it recurses 450 deep).
DEEP_SUM = (
    "def build(backend, " + ", ".join(f"a{i}" for i in range(450)) + "):\n"
    "    if (" + " + ".join(f"a{i}" for i in range(450)) + ") == backend:\n"
    "        return 1\n"
)
# Not valid in any useful sense, but a file a pull request can hold: CPython's parser runs out
# of its own stack on it (MemoryError on 3.11, "too complex" on later versions).
MINUS_SIGNS = "x = " + "-" * 100_000 + "1\n"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("hostile") / "trainer"
    main, _ = build_demo_repo(repo)
    shas = {"main": main}
    # Each head also changes a documented default, which the check must still report.
    for branch, path, text in (("deep-sum", FACTORY, DEEP_SUM), ("minus-signs", PARALLEL, MINUS_SIGNS)):
        shas[branch] = add_commit(repo, {path: text, ARGS: ARGS_ONE}, parent="main", branch=branch)
    return repo, shas


def _expected(path: str) -> set[tuple[str, str]]:
    return {("parse-error", path), ("changed", "--attn-implementation")}


@pytest.mark.parametrize(("branch", "path"), [("deep-sum", FACTORY), ("minus-signs", PARALLEL)])
def test_the_command_line_reports_the_file_and_goes_on(hostile, branch, path):
    repo, _ = hostile
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "check", "--repo", str(repo), "--base", "main", "--head", branch]
        + ["--format", "json", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr  # the findings' exit code: errors were found
    findings = json.loads(proc.stdout)["findings"]
    assert {(f["kind"], f["symbol"]) for f in findings} == _expected(path)
    error = next(f for f in findings if f["kind"] == "parse-error")
    assert error["code"]["path"] == path
    assert "docs-sync" in error["message"] or "parse" in error["message"]


@pytest.fixture(scope="module")
def server(hostile):
    with GitHubStandIn(hostile[0]) as standin:
        yield standin


@pytest.fixture(scope="module")
def repo_and_shas(hostile):
    return hostile


@pytest.mark.parametrize(
    ("number", "branch", "path"), [(1, "deep-sum", FACTORY), (2, "minus-signs", PARALLEL)]
)
def test_the_app_completes_the_check_with_the_same_findings(standin, bot, number, branch, path):
    bot.check(number, "main", branch)
    (run,) = standin.check_runs
    assert run["status"] == "completed" and run["conclusion"] == "failure"
    assert run["output"]["title"] != "docs-sync could not run", run["output"]["summary"]
    assert "parse-error" in run["output"]["summary"] and path in run["output"]["summary"]
    assert "--attn-implementation" in run["output"]["summary"]
    assert bot.queue.counts()["done"] == 1
