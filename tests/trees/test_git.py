"""Reading revisions straight from git."""

from __future__ import annotations

import subprocess

import pytest

from bot.trees.git import GitError, GitRepo, Scanned, folders
from bot.trees.memory import MemoryTree


def git(repo, *args):
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    (path / "pkg").mkdir()
    (path / "pkg" / "args.py").write_text("x = 1\n" * 20)
    (path / "docs.md").write_text("# Doc with spaces in name\n")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "base")
    git(path, "mv", "pkg/args.py", "pkg/arguments.py")
    (path / "docs.md").write_text("# Doc\n\nchanged\n")
    git(path, "commit", "-qam", "head")
    return path


def test_trees_read_files_ids_and_folders_without_a_checkout(repo):
    with GitRepo(repo) as r:
        base, head = r.tree("HEAD~1"), r.tree("HEAD")
        assert base.read("pkg/args.py") == "x = 1\n" * 20
        assert head.read("pkg/args.py") is None
        # Blob ids are git's own, the same the in-memory tree computes from the content.
        assert head.blob_id("pkg/arguments.py") == MemoryTree({"a": "x = 1\n" * 20}).blob_id("a")
        assert head.exists("pkg") and head.exists("pkg/") and not head.exists("nope")
        assert head.paths() == {"pkg/arguments.py", "docs.md"}
        assert head.exists("pkg/arguments.py")
        statuses = {(c.status, c.path, c.old_path) for c in r.changes(base.sha, head.sha)}
        assert statuses == {("renamed", "pkg/arguments.py", "pkg/args.py"), ("modified", "docs.md", None)}


def test_unknown_revision_is_a_clear_error(repo):
    with GitRepo(repo) as r, pytest.raises(GitError, match="no-such"):
        r.tree("no-such")


def test_a_listed_file_whose_content_the_clone_lacks_is_named(repo):
    # A filtered mirror lists a large file but holds no blob for it: say which file, never skip it.
    blob = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD:docs.md"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    with GitRepo(repo) as r:
        head = r.tree("HEAD")
        assert "docs.md" in head.paths()  # listed
        with pytest.raises(GitError, match=r"cannot read docs.md at .*: blob .* missing"):
            head.read("docs.md")
        # A scan of the whole revision (init's) reads it as no text, and keeps its name to say.
        scanned = Scanned(head)
        assert scanned.read("docs.md") is None and scanned.read("docs.md") is None
        assert scanned.read("pkg/arguments.py") == "x = 1\n" * 20
        assert list(scanned.absent) == ["docs.md"]
        assert scanned.paths() == head.paths() and scanned.exists("docs.md")


def test_changes_are_listed_when_rename_detection_meets_a_file_the_clone_lacks(repo):
    # The commit renames a script (with an edit, so git compares contents) and adds a large data
    # file whose blob the filtered mirror lacks: git's rename detection stops on it.
    (repo / "pkg" / "arguments.py").unlink()
    (repo / "pkg" / "cli.py").write_text("x = 1\n" * 19 + "y = 2\n")
    (repo / "data.parquet").write_text("rows\n" * 50)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "data")
    blob = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD:data.parquet"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    with GitRepo(repo) as r:
        statuses = {(c.status, c.path, c.old_path) for c in r.changes("HEAD~1", "HEAD")}
        assert statuses == {("renamed", "pkg/cli.py", "pkg/arguments.py"), ("added", "data.parquet", None)}
        # A revision that does not exist is still an error, not an empty change.
        with pytest.raises(GitError):
            r.changes("HEAD~1", "no-such")


def test_a_folder_that_is_no_repository_and_a_repository_with_no_commit_say_so(tmp_path):
    (tmp_path / "plain").mkdir()
    with GitRepo(tmp_path / "plain") as r, pytest.raises(GitError, match="is not a git repository"):
        r.resolve("HEAD")
    git(tmp_path, "init", "-q", str(tmp_path / "empty"))
    with GitRepo(tmp_path / "empty") as r, pytest.raises(GitError, match="has no commit yet"):
        r.resolve("HEAD")


def test_deepen_fetches_the_history_a_shallow_clone_lacks(repo, tmp_path):
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    with GitRepo(shallow) as r:
        with pytest.raises(GitError, match="a shallow clone: .*fetch-depth: 0"):
            r.resolve("HEAD~1")
        r.deepen()
        assert r.tree("HEAD~1").read("pkg/args.py") == "x = 1\n" * 20
        r.deepen()  # a full clone: nothing to do


def test_deepen_without_a_reachable_origin_says_what_to_do(repo, tmp_path):
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    git(shallow, "remote", "set-url", "origin", str(tmp_path / "gone"))
    with GitRepo(shallow) as r, pytest.raises(GitError, match="fetch-depth: 0"):
        r.deepen()


def test_sources_are_decoded_as_python_decodes_them(tmp_path):
    path = tmp_path / "enc"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    (path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nname = 'd\xe9j\xe0'\n")
    (path / "bom.py").write_bytes(b"\xef\xbb\xbfx = 1\n")
    (path / "broken.py").write_bytes(b"# caf\xe9\nx = 1\n")
    (path / "notes.md").write_bytes(b"caf\xe9 \xef\xbb\xbf\n")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "encodings")
    with GitRepo(path) as r:
        head = r.tree("HEAD")
        assert head.read("latin.py") == "# -*- coding: latin-1 -*-\nname = 'déjà'\n"  # its cookie
        assert head.read("bom.py") == "x = 1\n"  # the BOM says UTF-8 and is no part of the text
        broken = head.read("broken.py")
        assert broken is not None and broken.endswith("\nx = 1\n")  # read, not taken for missing
        with pytest.raises((SyntaxError, ValueError)):
            compile(broken, "broken.py", "exec")  # as Python refuses the file, so does the parser
        assert head.read("notes.md") == "caf\ufffd \ufeff\n"  # a page: UTF-8, what fails replaced


def test_the_folders_of_a_listing_are_every_level_of_every_file():
    assert folders(["a/b/c.py", "a/e/f", "top.md"]) == {"a", "a/b", "a/e"}
    assert folders([]) == frozenset()
