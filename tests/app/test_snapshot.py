"""The pull request's revisions over the API: the file list as changes, the base side as the merge
base (derived from GitHub's patches, read at the merge base only without one)."""

from __future__ import annotations

import pytest

from bot.app.jobs.snapshot import (
    BasePatch,
    PullRevisions,
    base_patches,
    changes_from_files,
    unapply,
    unlisted,
)
from bot.app.queue.store import Store
from bot.core.check import check
from bot.core.model import Change
from bot.core.packs import parse_repo_config
from bot.testing.standin import add_commit, make_repo, run_git
from bot.trees.git import GitRepo
from bot.trees.memory import MemoryTree
from tests.appkit import writes_and_reads


class MergeBaseOnly:
    """A blob reader that knows only the merge base, and counts how often it was asked."""

    def __init__(self, sha: str):
        self.sha, self.asked = sha, 0

    def merge_base(self, base_sha: str, head_sha: str) -> str:
        self.asked += 1
        return self.sha


def test_file_list_becomes_changes_and_reads_land_on_the_right_commit():
    files = [
        {
            "filename": "a.md",
            "status": "modified",
            "sha": "1" * 40,
            "changes": 2,
            "patch": "@@ -1 +1 @@\n-a\n+b",
        },
        {
            "filename": "new.py",
            "status": "renamed",
            "previous_filename": "old.py",
            "sha": "2" * 40,
            "changes": 0,
        },
        {"filename": "gone.py", "status": "removed", "sha": "3" * 40, "changes": 0},  # binary: no patch
        {"filename": "copy.py", "status": "copied", "sha": "4" * 40},
        {"filename": "same.py", "status": "unchanged"},
    ]
    changes = changes_from_files(files)
    assert changes == [
        Change("modified", "a.md"),
        Change("renamed", "new.py", "old.py"),
        Change("removed", "gone.py"),
        Change("added", "copy.py"),
    ]
    patches = base_patches(files)
    assert patches == {
        "a.md": BasePatch("a.md", "@@ -1 +1 @@\n-a\n+b", 2, "modified"),
        "old.py": BasePatch("new.py", None, 0, "renamed"),
        "gone.py": BasePatch(None, None, 0, "removed"),
    }
    reader = MergeBaseOnly("m" * 40)
    revs = PullRevisions(reader, "b" * 40, "h" * 40, changes, patches=patches)  # type: ignore[arg-type]
    # Changed files: derived from head and patch (a rename without edits is the same blob)...
    assert revs.derivable("a.md") and revs.derivable("old.py") and reader.asked == 0
    # ...else read at the merge base, never at the base branch's tip, which may have moved on.
    assert not revs.derivable("gone.py") and revs.where_base("gone.py") == ("m" * 40, "gone.py")
    assert revs.where_base("a.md") == ("m" * 40, "a.md") and reader.asked == 1  # asked once
    assert revs.where_head("a.md") == ("h" * 40, "a.md") and revs.where_head("old.py") is None
    assert revs.where_base("new.py") is None and revs.where_base("copy.py") is None
    assert revs.where_head("gone.py") is None
    # "0 changes" and no patch is a rename without edits, but of a modified file it may be one
    # that became binary: its base side is read at the merge base.
    binary = base_patches([{"filename": "tool.py", "status": "modified", "sha": "5" * 40, "changes": 0}])
    both = PullRevisions(reader, "b" * 40, "h" * 40, [Change("modified", "tool.py")], patches=binary)  # type: ignore[arg-type]
    assert not both.derivable("tool.py")
    # Untouched by the pull request: read once, at head, for both sides.
    assert revs.where_base("lib.py") == revs.where_head("lib.py") == ("h" * 40, "lib.py")
    assert not revs.derivable("lib.py")


def test_a_base_branch_that_moved_on_is_not_the_pull_requests_doing(bot, standin, repo_and_shas):
    repo_dir, shas = repo_and_shas
    bot.check(16, "drift-main", "drift-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "1 doc line out of date")
    assert [a["title"] for a in run["output"]["annotations"]] == ["changed: --attn-implementation"]
    assert "--warmup-steps" not in standin.issue_comments[0]["body"]
    assert standin.calls("GET", r"/compare/") == []  # GitHub's patches were enough
    # the typical 6, plus the first read of this branch's config and the first run's 3 look-ups
    assert len(writes_and_reads(standin)) == 7 + 3 + 2  # + the trees of base and head, listed once
    # Read at the base branch's tip instead, the stale line the base branch dropped after the
    # branch point would count as a line this pull request added.
    base, head = tree_at(repo_dir, shas["drift-main"]), tree_at(repo_dir, shas["drift-pr"])
    (pack,) = parse_repo_config(base.read(".github/docs-sync.yml"))
    changes = GitRepo(repo_dir).changes(shas["drift"], shas["drift-pr"])  # what GitHub lists
    naive = check(pack.rules, base, head, changes)
    assert "--warmup-steps" in {f.symbol for f in naive.findings}


def tree_at(repo_dir, sha: str) -> MemoryTree:
    paths = run_git(repo_dir, "ls-tree", "-r", "--name-only", sha).decode().split()
    return MemoryTree({p: run_git(repo_dir, "show", f"{sha}:{p}").decode() for p in paths})


def test_without_a_patch_the_base_side_is_read_at_the_merge_base(bot, standin, repo_and_shas):
    shas = repo_and_shas[1]
    standin.omit_patches(r"training-backend\.md$")  # as GitHub does for a diff too large to show
    bot.check(17, "drift-main", "drift-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "1 doc line out of date")
    assert [a["title"] for a in run["output"]["annotations"]] == ["changed: --attn-implementation"]
    (compare,) = standin.calls("GET", r"/compare/")
    assert compare[1].endswith(f"/compare/{shas['drift-main']}...{shas['drift-pr']}")
    remembered = Store(bot.queue).merge_base("octo-org/docs-repo", shas["drift-main"], shas["drift-pr"])
    assert remembered == shas["drift"]
    # One compare call more than with patches: 7, plus the first read of this branch's config
    # and the first run's 3 look-ups.
    assert len(writes_and_reads(standin)) == 8 + 3 + 2


def git_patch(tmp_path, old: str, new: str | None) -> str:
    """git's patch of one file from `old` to `new` (None: removed), as GitHub's file list has it."""
    repo_dir, (base,) = make_repo(tmp_path, [{"f.txt": old}])
    head = add_commit(repo_dir, {"f.txt": new}, parent="main", branch="topic")
    diff = run_git(repo_dir, "diff", "--no-color", base, head, "--", "f.txt").decode()
    return diff[diff.index("\n@@") + 1 :].rstrip("\n")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\nd\ne\nf\ng\nh\ni\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\n"),  # two hunks, one at the end
        ("a\nb\n", "x\na\nb\n"),  # an insertion at the top
        ("a\nb", "a\nb\n"),  # a newline added at the end
        ("a\nb\n", "a\nb"),  # and taken away
        ("a\r\nb\r\n", "a\r\nc\r\n"),  # CRLF lines
        ("a\n\nb\n", "\n\nb\n"),  # empty lines as context
        ("only line\n", ""),  # emptied
        ("a\nb\n", None),  # removed: the patch holds every line
    ],
)
def test_taking_a_patch_back_out_gives_the_old_file(tmp_path, old, new):
    patch = git_patch(tmp_path, old, new)
    assert unapply(new or "", patch) == old


def test_a_patch_that_does_not_fit_is_refused(tmp_path):
    patch = git_patch(tmp_path, "a\nb\nc\n", "a\nB\nc\n")
    assert unapply("a\nB\nc\n", patch) == "a\nb\nc\n"
    assert unapply("a\nX\nc\n", patch) is None  # an added line is not in the head file
    assert unapply("z\nB\nc\n", patch) is None  # nor is a context line
    assert unapply("a\nB\nc", patch) is None  # the last line has no newline, the patch says it has
    assert unapply("a\nB\nc\n", patch.rsplit("\n", 1)[0]) is None  # a hunk cut short


def test_the_change_a_cut_file_list_left_out_comes_from_the_two_trees():
    def tree(**paths: str) -> list[dict]:
        return [{"path": p.replace("__", "/"), "type": "blob", "sha": sha * 40} for p, sha in paths.items()]

    listed = [{"filename": "a.md", "status": "modified"}, {"filename": "b2.py", "previous_filename": "b.py"}]
    base = tree(
        **{"a.md": "1", "b.py": "2", "keep.py": "3", "old__mod.py": "4", "gone.py": "5", "edit.py": "6"}
    )
    head = [
        *tree(
            **{"a.md": "7", "b2.py": "2", "keep.py": "3", "new__mod.py": "4", "edit.py": "8", "add.py": "9"}
        ),
        {"path": "new", "type": "tree", "sha": "t" * 40},
    ]
    assert unlisted(listed, base, head) == [
        {"filename": "gone.py", "status": "removed", "sha": "5" * 40},
        {"filename": "new/mod.py", "status": "renamed", "previous_filename": "old/mod.py", "sha": "4" * 40},
        {"filename": "add.py", "status": "added", "sha": "9" * 40},
        {"filename": "edit.py", "status": "modified", "sha": "8" * 40},
    ]
    assert changes_from_files(unlisted(listed, base, head))[1] == Change(
        "renamed", "new/mod.py", "old/mod.py"
    )
