"""The analysis before anything is written: waivers, the repository's address, what GitHub's file
list says about the head, and the change GitHub's list leaves out past 3,000 files."""

from __future__ import annotations

import pytest

from bot.app.jobs.analysis import apply_waivers, gone_at_head, listed_head, repo_html_url
from bot.app.queue.store import Waiver
from bot.core.model import Report
from bot.testing.appkit import ARGS
from bot.testing.standin import GitHubStandIn, add_commit, make_repo
from bot.testing.trainer import ARGS_HEAD
from tests.appkit import CheckBot, finding

FILLER = {f"aaa/f{i:04}.md": f"filler {i}\n" for i in range(3000)}  # sorts before every real path


def test_waivers_move_findings_to_ignored():
    report = Report(
        (finding("--old"), finding("--keep"), finding("--fsdp-cpu-backend gloo")), rules_checked=("page",)
    )
    waived = apply_waivers(
        report,
        [
            Waiver("--old", "renamed on purpose", "maint"),
            Waiver("--fsdp-cpu-backend", "", "maint"),
        ],
    )
    assert [f.symbol for f in waived.findings] == ["--keep"]
    assert [(f.symbol, why) for f, why in waived.ignored] == [
        ("--old", "renamed on purpose (@maint)"),
        ("--fsdp-cpu-backend gloo", "no reason given (@maint)"),
    ]
    assert apply_waivers(report, []) is report


def test_repository_address_without_file_links():
    assert repo_html_url([], "o/r", "https://api.github.com") == "https://github.com/o/r"
    enterprise = repo_html_url([], "o/r", "https://ghe.example.com/api/v3")
    assert enterprise == "https://ghe.example.com/o/r"


def test_the_file_list_says_which_head_it_was_made_at_and_what_the_head_lacks():
    files = [
        {
            "filename": "docs/a.md",
            "status": "modified",
            "blob_url": "https://github.com/o/r/blob/" + "h" * 40 + "/docs/a.md",
        },
        {"filename": "new.py", "status": "renamed", "previous_filename": "old.py"},
        {"filename": "gone.md", "status": "removed"},
        {"filename": "back.py", "status": "added", "previous_filename": None},
        {"filename": "swap.py", "status": "renamed", "previous_filename": "back.py"},  # its old path lives on
    ]
    assert listed_head(files) == "h" * 40
    assert listed_head([{"filename": "x", "blob_url": None}]) is None  # no link: nothing to compare
    assert gone_at_head(files) == {"old.py", "gone.md"}
    assert repo_html_url(files, "ignored/name", "https://api.github.com") == "https://github.com/o/r"


@pytest.fixture
def huge(repo_and_shas) -> str:
    """main plus 3,000 files that sort first, and the flag rename of the demo pull request."""
    repo_dir, shas = repo_and_shas
    if "huge" not in shas:
        shas["huge"] = add_commit(repo_dir, {**FILLER, ARGS: ARGS_HEAD}, parent="main", branch="huge")
    return shas["huge"]


def test_a_change_past_githubs_3000_listed_files_is_still_checked(bot, standin, huge):
    bot.check(50, "main", "huge")
    assert len(standin.calls("GET", r"/pulls/50/files$")) == 30  # GitHub stops listing at 3,000
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    titles = [a["title"] for a in run["output"]["annotations"]]
    assert "renamed: --disable-fp32-master" in titles and "changed: --attn-implementation" in titles
    assert "were not checked" not in run["output"]["summary"]
    # The rest of the change came from the trees of the merge base and the head: two calls.
    assert len(standin.calls("GET", r"/git/trees/")) == 2


def test_a_change_too_large_to_find_fails_the_check_saying_why(bot, standin, huge):
    standin.tree_entry_limit = 2000  # GitHub truncates a recursive tree past 100,000 entries
    bot.check(51, "main", "huge")
    (run,) = standin.check_runs
    assert (run["status"], run["conclusion"], run["output"]["title"]) == (
        "completed",
        "failure",
        "docs-sync could not run",
    )
    assert "3,000" in run["output"]["summary"] and "not checked" in run["output"]["summary"]
    assert standin.reviews == [] and standin.issue_comments == []


GLOB_CONFIG = """\
rules:
  - id: tools
    docs:
      - path: docs/tools.md
    sources:
      - id: tools
        kind: argparse
        paths: ["tools/*.py"]
"""


def tool_source(n: int, flag: str) -> str:
    parser = 'p = argparse.ArgumentParser(prog="tool")'
    return f'import argparse\n\n{parser}\np.add_argument("{flag}", help="option {n}")\n'


def test_the_files_a_rules_glob_names_are_fetched_in_one_query(tmp_path):
    tools = {f"tools/t{n:02}.py": tool_source(n, f"--opt-{n}") for n in range(30)}
    rows = "".join(f"| `--opt-{n}` | option {n} |\n" for n in range(30))
    doc = "# Tools\n\n| Flag | Meaning |\n|---|---|\n" + rows
    files = {".github/docs-sync.yml": GLOB_CONFIG, "docs/tools.md": doc, **tools}
    repo_dir, (main,) = make_repo(tmp_path, [files])
    renamed = add_commit(repo_dir, {"tools/t07.py": tool_source(7, "--option-7")}, branch="rename")
    with GitHubStandIn(repo_dir) as standin:
        bot = CheckBot(standin, {"main": main, "rename": renamed}, tmp_path)
        try:
            bot.check(1, "main", "rename")
        finally:
            bot.queue.close()
        (run,) = standin.check_runs
        assert [a["title"] for a in run["output"]["annotations"]] == ["renamed: --opt-7"]
        # The config read once for the base branch, then the 31 files of the rule in one query
        # (the changed file's base side is its head minus the patch), not one query a file.
        assert len(standin.calls("POST", r"/graphql$")) == 2


def test_the_files_a_rename_is_believed_from_are_fetched_together(tmp_path):
    # `--keep-fp32` becomes `--master-weights`: no name alike, no destination kept. The change
    # swapped one for the other in 30 launchers, which the check reads to believe the rename.
    launchers = {f"run/l{n:02}.sh": f"tool --keep-fp32 --seed {n}\n" for n in range(30)}
    files = {
        ".github/docs-sync.yml": GLOB_CONFIG,
        "docs/tools.md": "# Tools\n\n| Flag | Meaning |\n|---|---|\n| `--keep-fp32` | option 0 |\n",
        "tools/t00.py": tool_source(0, "--keep-fp32"),
        **launchers,
    }
    repo_dir, (main,) = make_repo(tmp_path, [files])
    swapped = {path: text.replace("--keep-fp32", "--master-weights") for path, text in launchers.items()}
    head = add_commit(repo_dir, {"tools/t00.py": tool_source(0, "--master-weights"), **swapped}, branch="pr")
    with GitHubStandIn(repo_dir) as standin:
        bot = CheckBot(standin, {"main": main, "pr": head}, tmp_path)
        try:
            bot.check(1, "main", "pr")
        finally:
            bot.queue.close()
        (run,) = standin.check_runs
        (note,) = run["output"]["annotations"]
        assert note["title"] == "renamed: --keep-fp32" and "30 " in note["message"], note
        # The config, the rule's files, then the launchers in one batch (not one query each).
        assert len(standin.calls("POST", r"/graphql$")) == 3
