"""What replaced a stale token, read through the GitHub API: the App has no clone, so the head's
history is read as commits and their patches (bot/app/jobs/history.py), in the sandbox's parent."""

from __future__ import annotations

import pytest

from bot.app.github.client import GitHubApp, GitHubError
from bot.app.jobs.history import ApiHistory
from bot.app.jobs.snapshot import BlobReader
from bot.app.queue.store import Store
from bot.core.check.history import Commit
from bot.testing.appkit import ARGS
from bot.testing.standin import add_commit
from bot.testing.trainer import ARGS_HEAD, DOC_BASE

DOC = "docs/training-backend.md"
STALE = "\n- `--disable-fp32-master` drops the fp32 master copy.\n"


def branches(repo_and_shas) -> dict[str, str]:
    """hist: the flag renamed in a commit of its own (#2384); hist-doc: a doc line citing the old name."""
    repo_dir, shas = repo_and_shas
    if "hist" not in shas:
        shas["hist"] = add_commit(
            repo_dir,
            {ARGS: ARGS_HEAD},
            parent="main",
            branch="hist",
            message="fix(fsdp): stop store_true from shadowing bool defaults (#2384)",
        )
        shas["hist-doc"] = add_commit(repo_dir, {DOC: DOC_BASE + STALE}, parent="hist", branch="hist-doc")
    return shas


def test_a_stale_flag_in_a_doc_edit_is_answered_from_the_history(bot, standin, repo_and_shas):
    shas = branches(repo_and_shas)
    bot.check(70, "hist", "hist-doc")
    (run,) = standin.check_runs
    messages = [a["message"] for a in run["output"]["annotations"]]
    said = f"`--disable-fp32-master` became `--no-keep-fp32-master` in {shas['hist'][:7]} (#2384)"
    assert any(said in m for m in messages), messages
    # One list of commits for each parser's file (the rule has two), their versions read with
    # the rest of the files, and no commit read on its own.
    assert len(standin.calls("GET", r"/commits$")) == 2
    assert standin.calls("GET", r"/commits/[0-9a-f]{40}$") == []
    # Run again on the same head: every answer comes from the store.
    standin.reset()
    bot.check(71, "hist", "hist-doc")
    assert standin.calls("GET", r"/commits(/[0-9a-f]{40})?$") == []


def api_history(bot, standin, head: str, **kw) -> ApiHistory:
    app = GitHubApp(standin.app_id, standin.private_key_pem, standin.url, write_interval_s=0)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    return ApiHistory(repo, BlobReader(repo, Store(bot.queue)), head, **kw)


def test_the_api_history_answers_as_git_does(bot, standin, repo_and_shas):
    shas = branches(repo_and_shas)
    history = api_history(bot, standin, shas["hist-doc"])
    found = history.touching(["--disable-fp32-master"], [ARGS])
    assert [c.id for c in found][0] == shas["hist"]
    assert found[0].subject.endswith("(#2384)")
    before, after = history.trees(found[0])
    assert "--disable-fp32-master" in before.read(ARGS) and "--disable-fp32-master" not in after.read(ARGS)
    assert history.touching(["--never-a-flag"], [ARGS]) == []
    assert history.moves("trainer/nowhere") == []


def test_the_history_stops_at_its_budget(bot, standin, repo_and_shas):
    shas = branches(repo_and_shas)
    history = api_history(bot, standin, shas["hist-doc"], max_calls=0)
    assert history.touching(["--disable-fp32-master"], [ARGS]) == []
    assert history.trees(Commit(shas["hist"], "x")) is None
    assert standin.calls("GET", r"/commits") == []


def test_a_refusal_is_github_s_error_for_the_sandbox_to_turn_into_no_answer(bot, standin, repo_and_shas):
    shas = branches(repo_and_shas)
    standin.fail_next("GET", r"/commits$", 404, body={"message": "Not Found"})
    history = api_history(bot, standin, shas["hist-doc"], per_path=7)
    with pytest.raises(GitHubError):
        history.touching(["--disable-fp32-master"], [ARGS])


def test_a_history_github_refuses_costs_the_suggestion_not_the_check(bot, standin, repo_and_shas):
    branches(repo_and_shas)
    standin.fail_next("GET", r"/commits$", 404, body={"message": "Not Found"})
    bot.check(72, "hist", "hist-doc")
    (run,) = standin.check_runs
    assert run["status"] == "completed"
    messages = [a["message"] for a in run["output"]["annotations"]]
    assert any("--disable-fp32-master" in m for m in messages)
    assert not any("#2384" in m for m in messages)


def test_a_moved_file_is_followed_through_the_api(bot, standin, repo_and_shas):
    repo_dir, shas = repo_and_shas
    if "moved-doc" not in shas:
        add_commit(repo_dir, {"trainer/utils/helpers.py": "X = 1\n"}, parent="main", branch="moved")
        shas["moved"] = add_commit(
            repo_dir,
            {"trainer/utils/helpers.py": None, "trainer/common/helpers.py": "X = 1\n"},
            parent="moved",
            branch="moved",
            message="refactor: one home for helpers (#31)",
        )
        shas["moved-doc"] = add_commit(
            repo_dir, {DOC: DOC_BASE + "\nHelpers live in `trainer/utils/helpers.py`.\n"}, parent="moved",
            branch="moved-doc",
        )  # fmt: skip
    (move,) = api_history(bot, standin, shas["moved-doc"]).moves("trainer/utils/helpers.py")
    assert move.commit.id == shas["moved"]
    assert move.renames == {"trainer/utils/helpers.py": "trainer/common/helpers.py"}
    standin.reset()
    bot.check(73, "moved", "moved-doc")
    (run,) = standin.check_runs
    messages = [a["message"] for a in run["output"]["annotations"]]
    said = f"`trainer/utils/helpers.py` moved to `trainer/common/helpers.py` in {shas['moved'][:7]} (#31)"
    assert any(said in m for m in messages), messages


def test_the_api_history_says_never_only_of_a_history_it_read_whole(bot, standin, repo_and_shas):
    shas = branches(repo_and_shas)
    history = api_history(bot, standin, shas["hist-doc"])
    assert history.never(["--num-experts"], [ARGS])
    assert not history.never(["--disable-fp32-master"], [ARGS])  # the file had it before #2384
    assert history.never_had(["examples/pretrain.sh", ARGS]) == {"examples/pretrain.sh"}
    # A path's commits past the one page listed: older versions unread, so nothing is "never".
    assert not api_history(bot, standin, shas["hist-doc"], per_path=1).never(["--num-experts"], [ARGS])
    # Out of calls, with nothing of the path in the store: unknown.
    broke = api_history(bot, standin, shas["hist-doc"], max_calls=0)
    assert not broke.never(["--num-experts"], ["README.md"])
    assert broke.never_had(["examples/pretrain.sh"]) == frozenset()


def test_a_page_about_another_projects_flags_is_answered_through_the_sandbox(bot, standin, repo_and_shas):
    repo_dir, shas = repo_and_shas
    if "sibling" not in shas:
        page = "# Mixture of experts\n\nThe sibling repository's scripts take `--num-experts`.\n"
        title = "# Mixture of experts\n"
        shas["sibling"] = add_commit(repo_dir, {DOC: title}, parent="main", branch="sibling")
        shas["sibling-doc"] = add_commit(repo_dir, {DOC: page}, parent="sibling", branch="sibling-doc")
    standin.reset()
    bot.check(74, "sibling", "sibling-doc")
    (run,) = standin.check_runs
    # The analysis asked the history (in the sandbox's parent) whether the parsers ever had the
    # flag: never, on a page citing none of theirs, so it is another project's and the run passes.
    assert run["status"] == "completed" and run["conclusion"] == "success", run["output"]
    assert standin.calls("GET", r"/commits$")
