"""The README's first section, "Use it on your repository", followed as written: its commands run
by bash in a fresh virtualenv on a small repository of the test's own, then its pre-commit config
installed and a commit that makes a doc line wrong stopped by the hook.

Only where docs-sync is published changes: `https://github.com/OWNER/docs-sync` becomes a
snapshot of this checkout (a git repository tagged v0.1.0), and `path/to/your-repository` the
repository built here. HOME is a temporary folder, so the virtualenv, pre-commit's environments
and docs-sync's cache are made from nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_precommit import snapshot

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = "https://github.com/OWNER/docs-sync"

CLI = """\
import argparse

p = argparse.ArgumentParser(prog="train")
p.add_argument("--epochs", type=int, default=3, help="passes over the data")
p.add_argument("--learning-rate", type=float, default=0.1, help="step size")
"""
DOC = """\
# Training

| Flag | Meaning |
|---|---|
| `--epochs` | passes over the data (default `3`) |
| `--learning-rate` | step size |

Old advice: pass `--warmup-steps`.
"""


def section() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Use it on your repository")
    return readme[start : readme.index("\n## ", start + 1)]


def blocks(text: str, lang: str) -> list[str]:
    return [re.sub(r"(?m)^ {3}", "", b) for b in re.findall(rf"(?ms)^ *```{lang}\n(.*?)^ *```", text)]


def run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_first_section_of_the_readme_works_on_a_new_repository(tmp_path: Path):
    if os.environ.get("DOCS_SYNC_OFFLINE"):
        pytest.skip("DOCS_SYNC_OFFLINE: the fresh virtualenv needs the package index")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "DOCS_SYNC"))}
    env.update(
        HOME=str(home),
        GIT_AUTHOR_NAME="u",
        GIT_AUTHOR_EMAIL="u@example.com",
        GIT_COMMITTER_NAME="u",
        GIT_COMMITTER_EMAIL="u@example.com",
        NO_COLOR="1",
    )
    published = snapshot(tmp_path / "docs-sync")
    git(published, "tag", "v0.1.0")
    repo = tmp_path / "tool"
    for name, text in {"train/cli.py": CLI, "docs/usage.md": DOC}.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=u", "-c", "user.email=u@e", "commit", "-qm", "a tool and its page")

    text = section().replace(PUBLISHED, f"file://{published}")
    (commands,) = blocks(text, "bash")
    commands = commands.replace("path/to/your-repository", str(repo))
    proc = run("set -euo pipefail\n" + commands, tmp_path, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # init wrote the config, validate and audit read it before it was committed, and the baseline
    # recorded the page's stale flag.
    assert "read from the working tree (not committed yet)" in proc.stderr
    assert "records 1 finding: 1 unresolved" in proc.stdout
    assert git(repo, "ls-files", ".github").split() == [
        ".github/docs-sync-baseline.json",
        ".github/docs-sync.yml",
    ]

    (config,) = blocks(text, "yaml")
    (repo / ".pre-commit-config.yaml").write_text(config)
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "-c", "user.name=u", "-c", "user.email=u@e", "commit", "-qm", "pre-commit")
    hook = re.search(r"then `(pip install pre-commit && pre-commit install)`", " ".join(text.split()))
    assert hook is not None
    venv = ". ~/.venvs/docs-sync/bin/activate\n"
    proc = run(venv + hook.group(1), repo, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    # A commit that makes a doc line wrong is stopped; the fixed one goes through.
    (repo / "docs" / "usage.md").write_text(DOC + "\nPass `--epoch 5` for a longer run.\n")
    proc = run(venv + "git add -A && git commit -qm 'a typo'", repo, env)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0 and re.search(r"(?i)connection|no matching distribution", out):
        pytest.skip("the package index cannot be reached to build the hook's environment")
    assert proc.returncode == 1, out
    assert "docs-sync" in out and "Failed" in out and "--epoch" in out
    (repo / "docs" / "usage.md").write_text(DOC + "\nPass `--epochs 5` for a longer run.\n")
    proc = run(venv + "git add -A && git commit -qm 'the flag as the code has it'", repo, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
