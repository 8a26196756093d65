"""The pre-commit hook (.pre-commit-hooks.yaml) catches a doc edit that is not committed yet."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

CONFIG = """\
rules:
  - id: usage
    docs:
      - path: docs/usage.md
    sources:
      - id: cli
        kind: argparse
        path: tool/cli.py
"""

CLI = """\
import argparse


def parser():
    p = argparse.ArgumentParser(prog="tool")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="when to colour")
    p.add_argument("--verbose", action="store_true", help="say more")
    return p
"""

DOC = """\
# Usage

| Flag | Meaning |
|---|---|
| `--color` | when to colour the output (default `auto`) |
| `--verbose` | say more |
"""

TYPO = "\nPass `--colour never` when the output goes to a file.\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "tool"
    for name, text in {".github/docs-sync.yml": CONFIG, "tool/cli.py": CLI, "docs/usage.md": DOC}.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    git(path, "add", "-A")
    git(path, "commit", "-qm", "tool and its usage page")
    return path


def hook() -> dict:
    (only,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return only


def test_the_hook_runs_once_per_commit_on_the_whole_change():
    h = hook()
    assert h["id"] == "docs-sync" and h["language"] == "python"
    assert h["pass_filenames"] is False and h["always_run"] is True


def run_entry(repo: Path) -> subprocess.CompletedProcess:
    """The hook's entry exactly as pre-commit runs it: in the repository, no file names after it."""
    argv = shlex.split(hook()["entry"])
    assert shutil.which(argv[0]), f"{argv[0]} is not installed (pip install -e .)"
    return subprocess.run(argv, cwd=repo, capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))


def test_the_hook_entry_stops_an_uncommitted_doc_edit_citing_a_missing_flag(repo: Path):
    clean = run_entry(repo)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    with open(repo / "docs" / "usage.md", "a") as f:
        f.write(TYPO)
    typo_line = len((DOC + TYPO).splitlines())
    for staged in (False, True):
        if staged:
            git(repo, "add", "docs/usage.md")
        proc = run_entry(repo)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "docs/usage.md" in proc.stdout and "--colour" in proc.stdout and "--color" in proc.stdout
        assert re.search(rf"\b{typo_line}\b", proc.stdout), proc.stdout

    # Fixed before committing: the hook lets the commit through.
    (repo / "docs" / "usage.md").write_text(DOC + TYPO.replace("--colour", "--color"))
    assert run_entry(repo).returncode == 0


def test_the_hook_entry_sees_a_new_untracked_page_and_a_code_rename(repo: Path):
    # The flag is renamed in the code only: the page now documents a flag that is gone.
    (repo / "tool" / "cli.py").write_text(CLI.replace('"--verbose"', '"--loud"'))
    proc = run_entry(repo)
    assert proc.returncode == 1 and "--verbose" in proc.stdout, proc.stdout + proc.stderr


def snapshot(dest: Path) -> Path:
    """This checkout as it is on disk, committed in a repository of its own: pre-commit installs a
    hook repository from a commit, and a file not committed yet here would be missing."""
    files = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in files:
        if name and (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "snapshot")
    return dest


def test_pre_commit_try_repo_runs_the_hook(repo: Path, tmp_path: Path):
    """pre-commit itself installs this repository as the hook's environment and runs it."""
    if shutil.which("pre-commit") is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    if os.environ.get("DOCS_SYNC_OFFLINE"):
        pytest.skip("DOCS_SYNC_OFFLINE: pre-commit needs the package index to build the hook's environment")
    with open(repo / "docs" / "usage.md", "a") as f:
        f.write(TYPO)
    git(repo, "add", "docs/usage.md")  # pre-commit checks what is staged, as at `git commit`
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), NO_COLOR="1")
    proc = subprocess.run(
        ["pre-commit", "try-repo", str(snapshot(tmp_path / "docs-sync")), "docs-sync", "--verbose"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    out = proc.stdout + proc.stderr
    if "An unexpected error has occurred" in out and "pip" in out:
        log = tmp_path / "pre-commit-home" / "pre-commit.log"
        text = log.read_text() if log.exists() else out
        if re.search(r"(?i)connection|resolve|network is unreachable|no matching distribution", text):
            pytest.skip("the package index cannot be reached to build the hook's environment")
    assert proc.returncode == 1, out
    assert "docs-sync" in out and "Failed" in out
    assert "docs/usage.md" in out and "--colour" in out
