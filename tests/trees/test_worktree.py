"""Reading the work tree as a revision: staged, unstaged and untracked edits, renames."""

from __future__ import annotations

import os
import subprocess

import pytest

from bot.trees.git import GitError, GitRepo
from bot.trees.memory import MemoryTree
from bot.trees.worktree import WorkTree


def git(repo, *args, env=None):
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    (path / "pkg").mkdir()
    (path / "pkg" / "args.py").write_text("".join(f"x{i} = {i}\n" for i in range(30)))
    (path / "pkg" / "gone.py").write_text("y = 1\n")
    (path / "docs.md").write_text("# Doc\n")
    (path / "staged.md").write_text("one\n")
    (path / ".gitignore").write_text("*.log\nbuild/\n")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "base")
    return path


def changes(path):
    with GitRepo(path) as r:
        tree = WorkTree(r)
        return tree, {(c.status, c.path, c.old_path) for c in tree.changes(r.resolve("HEAD"))}


def test_a_clean_work_tree_has_no_changes_and_reads_the_committed_files(repo):
    tree, found = changes(repo)
    assert found == set()
    assert tree.paths() == {"pkg/args.py", "pkg/gone.py", "docs.md", "staged.md", ".gitignore"}
    with GitRepo(repo) as r:
        head = r.tree("HEAD")
        # The same content gets the id git gives it, so the facts cache is shared with commits.
        assert tree.blob_id("pkg/args.py") == head.blob_id("pkg/args.py")
        assert tree.read("docs.md") == head.read("docs.md")


def test_staged_unstaged_untracked_and_removed_edits_are_all_seen(repo):
    (repo / "docs.md").write_text("# Doc\n\nunstaged edit\n")
    (repo / "staged.md").write_text("two\n")
    git(repo, "add", "staged.md")
    (repo / "new.md").write_text("untracked\n")
    (repo / "pkg" / "gone.py").unlink()
    (repo / "debug.log").write_text("ignored\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.md").write_text("ignored\n")
    status_before = git(repo, "status", "--porcelain=v1")  # may refresh the index: read it after
    index_before = (repo / ".git" / "index").read_bytes()

    tree, found = changes(repo)
    assert found == {
        ("modified", "docs.md", None),
        ("modified", "staged.md", None),
        ("added", "new.md", None),
        ("removed", "pkg/gone.py", None),
    }
    assert tree.read("docs.md") == "# Doc\n\nunstaged edit\n"
    assert tree.read("new.md") == "untracked\n"
    assert tree.read("pkg/gone.py") is None and not tree.exists("pkg/gone.py")
    # Ignored files are no more part of the revision than of a commit; nor is anything outside.
    assert tree.read("debug.log") is None and not tree.exists("build")
    assert tree.read("../r/docs.md") is None
    assert tree.blob_id("new.md") == MemoryTree({"a": "untracked\n"}).blob_id("a")
    assert tree.exists("pkg") and tree.exists("pkg/") and not tree.exists("nope")
    # Reading changed nothing: the index and what git status says are as they were.
    assert (repo / ".git" / "index").read_bytes() == index_before
    assert git(repo, "status", "--porcelain=v1") == status_before


def test_renames_staged_or_not_are_renames(repo):
    git(repo, "mv", "docs.md", "guide.md")  # staged rename
    os.rename(repo / "pkg" / "args.py", repo / "pkg" / "arguments.py")  # a plain mv, unstaged
    _, found = changes(repo)
    assert found == {
        ("renamed", "guide.md", "docs.md"),
        ("renamed", "pkg/arguments.py", "pkg/args.py"),
    }
    assert "?? pkg/arguments.py" in git(repo, "status", "--porcelain=v1")  # still untracked


def test_odd_file_names_are_literal_paths(repo):
    (repo / "*.md").write_text("star\n")
    (repo / ":(top)x.md").write_text("magic\n")
    (repo / "with space.md").write_text("space\n")
    tree, found = changes(repo)
    assert found == {("added", p, None) for p in ("*.md", ":(top)x.md", "with space.md")}
    assert tree.read("*.md") == "star\n"


def test_a_commit_in_progress_reads_the_index_git_hands_the_hook(repo, monkeypatch):
    # git runs a pre-commit hook with GIT_INDEX_FILE set (to a temporary index for
    # `git commit PATH`); the work tree is compared through that index.
    (repo / "new.md").write_text("untracked\n")
    other = repo / ".git" / "other-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(other))
    git(repo, "read-tree", "HEAD", env=env)
    git(repo, "rm", "-q", "--cached", "staged.md", env=env)
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    tree, found = changes(repo)
    # staged.md is untracked in that index but still on disk, unchanged: neither gone nor new.
    assert found == {("added", "new.md", None)}
    assert tree.read("staged.md") == "one\n"
    assert "staged.md" in tree.paths()


def test_a_bare_repository_has_no_work_tree(tmp_path, repo):
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    with GitRepo(bare) as r, pytest.raises(GitError, match="no work tree"):
        WorkTree(r)


def test_a_subfolder_reads_the_whole_work_tree(repo):
    (repo / "new.md").write_text("untracked\n")
    with GitRepo(repo / "pkg") as r:
        tree = WorkTree(r)
        assert "new.md" in tree.paths() and tree.read("docs.md") == "# Doc\n"
        assert {c.path for c in tree.changes(r.resolve("HEAD"))} == {"new.md"}
