"""Git fixtures the stand-in serves: repositories built with `git fast-import`, one commit a dict.

make_repo(root, commits, *, name="repo", branch="main") -> (repo_dir, [shas])
add_commit(repo_dir, files, *, parent="main", branch=None, message=None) -> sha
run_git(repo_dir, *args) -> bytes   git's stdout, without the machine's git configuration
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

# git

# Reads and writes must not depend on the machine's git configuration.
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "LC_ALL": "C",
}
EPOCH = 1_700_000_000  # fixture commits are dated from here, one minute apart


class GitError(RuntimeError):
    pass


def run_git(repo_dir: Path, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
    """`git -C repo_dir args...` with no user or system configuration; its stdout."""
    proc = subprocess.run(
        ["git", "-C", str(repo_dir), "-c", "core.quotePath=false", "--literal-pathspecs", *args],
        input=input,
        capture_output=True,
        env=GIT_ENV,
    )
    if check and proc.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def git_with(repo_dir: Path, env: dict[str, str], *args: str, input: bytes | None = None) -> bytes:
    """`run_git` with more environment (a scratch index, a commit's author)."""
    proc = subprocess.run(
        ["git", "-C", str(repo_dir), "--literal-pathspecs", *args],
        input=input,
        capture_output=True,
        env={**GIT_ENV, **env},
    )
    if proc.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def _fast_import_commit(
    ref: str, mark: int, parent: str | None, files: dict[str, str | bytes | None], message: str, when: int
) -> bytes:
    def data(payload: bytes) -> bytes:
        return b"data %d\n%s\n" % (len(payload), payload)

    ident = b"Fixture Author <fixture@example.com> %d +0000" % when
    out = [b"commit %s\nmark :%d\nauthor %s\ncommitter %s\n" % (ref.encode(), mark, ident, ident)]
    out.append(data(message.encode()))
    if parent:
        out.append(b"from %s\n" % parent.encode())
    for path, content in files.items():
        quoted = (
            json.dumps(path, ensure_ascii=False).encode()
            if path.startswith('"') or "\n" in path
            else path.encode()
        )
        if content is None:
            out.append(b"D %s\n" % quoted)
        else:
            raw = content.encode() if isinstance(content, str) else content
            out.append(b"M 100644 inline %s\n" % quoted)
            out.append(data(raw))
    return b"".join(out)


def _import(repo_dir: Path, stream: bytes) -> dict[int, str]:
    marks = repo_dir / ".git" / "fixture-marks"
    run_git(repo_dir, "fast-import", "--quiet", f"--export-marks={marks}", input=stream)
    result = {}
    for line in marks.read_text().splitlines():
        mark, sha = line.split()
        result[int(mark[1:])] = sha
    marks.unlink()
    return result


def make_repo(
    root: Path, commits: list[dict[str, str | bytes | None]], *, name: str = "repo", branch: str = "main"
) -> tuple[Path, list[str]]:
    """Create `root/name` with one commit per dict on `branch`; return the directory and the SHAs."""
    repo_dir = Path(root) / name
    repo_dir.mkdir(parents=True)
    run_git(repo_dir, "init", "-q", "-b", branch)
    stream = b"".join(
        _fast_import_commit(f"refs/heads/{branch}", i + 1, None, files, f"Commit {i + 1}", EPOCH + 60 * i)
        for i, files in enumerate(commits)
    )
    marks = _import(repo_dir, stream)
    if commits:
        run_git(repo_dir, "reset", "-q", "--hard", branch)
    return repo_dir, [marks[i + 1] for i in range(len(commits))]


def add_commit(
    repo_dir: Path,
    files: dict[str, str | bytes | None],
    *,
    parent: str = "main",
    branch: str | None = None,
    message: str | None = None,
) -> str:
    """Commit `files` on top of `parent`; point `branch` at it when given.

    The work tree follows when `branch` is the checked-out branch, and is left alone otherwise.
    """
    parent_sha = run_git(repo_dir, "rev-parse", "--verify", f"{parent}^{{commit}}").decode().strip()
    count = int(run_git(repo_dir, "rev-list", "--all", "--count").decode())
    ref = f"refs/heads/{branch}" if branch else "refs/fixture/scratch"
    stream = _fast_import_commit(
        ref, 1, parent_sha, files, message or f"Commit {count + 1}", EPOCH + 60 * count
    )
    sha = _import(Path(repo_dir), stream)[1]
    if not branch:
        run_git(repo_dir, "update-ref", "-d", ref)
    elif run_git(repo_dir, "symbolic-ref", "--short", "HEAD").decode().strip() == branch:
        run_git(repo_dir, "reset", "-q", "--hard", branch)
    return sha
