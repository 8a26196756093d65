"""A rule's sister project in the App: its parser files read through the API (a public
repository of the stand-in), its flags a known other's in the check run; kept for the next pull
request; one that cannot be read is a config finding naming it, and the rest is checked."""

from __future__ import annotations

from bot.testing.appkit import DOC
from bot.testing.standin import add_commit, make_repo, run_git
from bot.testing.trainer import CONFIG, DOC_BASE

CONFIG_FILE = ".github/docs-sync.yml"
SERVER_ARGS = (
    "import argparse\n\np = argparse.ArgumentParser()\n"
    "p.add_argument('--mem-fraction-static', type=float)\np.add_argument('--tp-size', type=int)\n"
)
# A line the pull request writes: our flag, and the sister's server's.
LINE = "\nServe with `--tp-size 2` and `--mem-fraction-static 0.8` next to `--fsdp-cpu-backend`.\n"


def _sister(tmp_path):
    repo, _ = make_repo(
        tmp_path, [{"python/server_args.py": SERVER_ARGS, "README.md": "# sister\n"}], name="sister"
    )
    run_git(repo, "tag", "v1.0")
    return repo


def _branches(repo_and_shas, name: str, ref: str) -> None:
    repo, shas = repo_and_shas
    others = f'    others:\n      - {{repo: sgl/sister, ref: {ref}, paths: ["python/*_args.py"]}}\n'
    config = CONFIG.replace("    sources:\n", others + "    sources:\n", 1)
    if name not in shas:
        shas[name] = add_commit(repo, {CONFIG_FILE: config, DOC: DOC_BASE}, branch=name)
        shas[f"{name}-pr"] = add_commit(repo, {DOC: DOC_BASE + LINE}, parent=name, branch=f"{name}-pr")


def _said(run: dict) -> list[tuple[str, str]]:
    return [(n["path"], n["title"]) for n in run["output"]["annotations"]]


def test_a_sister_repositorys_flags_are_read_through_the_api_and_kept(bot, standin, repo_and_shas, tmp_path):
    standin.publish(_sister(tmp_path), "sgl", "sister")
    _branches(repo_and_shas, "sister", "v1.0")
    bot.check(31, "sister", "sister-pr")
    (run,) = standin.check_runs
    assert run["conclusion"] == "success", _said(run)
    assert len(standin.calls("GET", r"/repos/sgl/sister/git/trees/v1\.0$")) == 1
    # The next pull request reads the sister's files from the store: no call for them (the
    # sister is no longer served at all).
    standin.reset()
    bot.check(32, "sister", "sister-pr")
    assert standin.check_runs[0]["conclusion"] == "success"
    assert standin.calls("GET", r"/repos/sgl/sister/") == []


def test_a_sister_that_cannot_be_read_is_a_config_finding_and_the_rest_is_checked(
    bot, standin, repo_and_shas, tmp_path
):
    standin.publish(_sister(tmp_path), "sgl", "sister")
    _branches(repo_and_shas, "sister-gone", "v9.9")
    bot.check(33, "sister-gone", "sister-gone-pr")
    (run,) = standin.check_runs
    notes = run["output"]["annotations"]
    (config,) = [n for n in notes if n["path"] == CONFIG_FILE]
    assert config["annotation_level"] == "warning" and config["start_line"] == 7  # the entry's line
    assert "other project sgl/sister@v9.9 could not be read (GitHub answered 404)" in config["message"]
    # Its flags are nobody's for this run: reported, as before a rule named the sister.
    assert [n["path"] for n in notes if "--mem-fraction-static" in n["message"]] == [DOC]
    assert run["conclusion"] == "failure"
