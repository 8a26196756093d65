"""Which rules judge a pull request: the base branch's config, else the App's, else a neutral run
that says how to add one; a config that cannot be used fails with its file, line and key."""

from __future__ import annotations

import pytest

from bot.app.config import Budget
from bot.core.packs import parse_repo_config
from bot.testing.appkit import ARGS, DOC
from bot.testing.trainer import ARGS_HEAD, CONFIG, DOC_HEAD
from tests.appkit import CheckBot


def test_the_apps_rules_apply_when_the_repository_has_no_config(standin, repo_and_shas, tmp_path):
    (pack,) = parse_repo_config(
        (repo_and_shas[0] / ".github" / "docs-sync.yml").read_text(), "DOCS_SYNC_RULES/demo.yml"
    )
    bot = CheckBot(standin, repo_and_shas[1], tmp_path, rule_packs=(pack,))
    bot.check(5, "noconf", "noconf-pr")
    run = standin.check_runs[0]
    assert run["conclusion"] == "failure" and run["output"]["title"] == "2 doc lines out of date"
    bot.queue.close()


def test_not_configured_is_neutral_and_says_how(bot, standin):
    bot.check(6, "noconf", "noconf-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("neutral", "docs-sync is not configured")
    assert ".github/docs-sync.yml" in run["output"]["summary"] and "```yaml" in run["output"]["summary"]
    assert standin.calls("GET", r"/files$") == [] and standin.issue_comments == []


def test_a_bad_config_fails_with_file_line_and_key(bot, standin):
    bot.check(7, "badconf", "badconf-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "Invalid .github/docs-sync.yml")
    assert ".github/docs-sync.yml:5: rules[0].sauces: unknown key" in run["output"]["summary"]
    (note,) = run["output"]["annotations"]
    assert (note["path"], note["start_line"], note["annotation_level"]) == (
        ".github/docs-sync.yml",
        5,
        "failure",
    )


# -- a config that names what the repository lacks; a pull request that edits the config ---------

CONFIG_FILE = ".github/docs-sync.yml"


def _branch(repo_and_shas, name: str, files: dict, parent: str = "main") -> None:
    from bot.testing.standin import add_commit

    repo, shas = repo_and_shas
    if name not in shas:
        shas[name] = add_commit(repo, files, parent=parent, branch=name)


def test_a_config_naming_a_missing_source_fails_on_its_line(bot, standin, repo_and_shas):
    config = CONFIG.replace("path: trainer/arguments.py", "path: trainer/argumnets.py")
    line = next(i for i, text in enumerate(config.splitlines(), 1) if "argumnets" in text)
    _branch(repo_and_shas, "typo", {CONFIG_FILE: config})
    _branch(repo_and_shas, "typo-pr", {ARGS: ARGS_HEAD}, parent="typo")
    bot.check(21, "typo", "typo-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "Invalid .github/docs-sync.yml")
    assert "'trainer/argumnets.py' is not in the repository at base or head" in run["output"]["summary"]
    (note,) = run["output"]["annotations"]
    assert (note["path"], note["start_line"]) == (CONFIG_FILE, line)
    assert note["title"] == "rules[0].sources[1].path: invalid"


@pytest.mark.parametrize("listed", ["trainer/old_arguments.py", '"trainer/old/*.py"'])
def test_a_listed_file_deleted_earlier_is_a_finding_and_the_rest_is_checked(
    bot, standin, repo_and_shas, listed
):
    # A file by name, or a glob whose folder an earlier change deleted.
    old = listed.strip('"')
    file = old.replace("*", "args")
    entry = "      - id: cluster-args\n"
    source = f"      - id: old-args\n        kind: argparse\n        path: {listed}\n"
    config = CONFIG.replace(entry, source + entry)
    line = next(i for i, text in enumerate(config.splitlines(), 1) if old in text)
    parser = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--old-flag")\n'
    name = "glob" if "*" in old else "file"
    _branch(repo_and_shas, f"listed-{name}", {CONFIG_FILE: config, file: parser})
    _branch(repo_and_shas, f"deleted-{name}", {file: None}, parent=f"listed-{name}")
    _branch(repo_and_shas, f"deleted-{name}-pr", {ARGS: ARGS_HEAD, DOC: DOC_HEAD}, parent=f"deleted-{name}")
    bot.check(28, f"deleted-{name}", f"deleted-{name}-pr")
    (run,) = standin.check_runs
    summary = run["output"]["summary"]
    # Checked as before, with the config's stale entry said on its line among the findings.
    assert run["conclusion"] == "failure" and "Invalid" not in run["output"]["title"]
    notes = run["output"]["annotations"]
    (stale,) = [n for n in notes if n["path"] == CONFIG_FILE]
    assert stale["start_line"] == line and stale["annotation_level"] == "warning"
    assert f"`old-args` source '{old}' was deleted before this change" in stale["message"]
    assert any(n["path"] == DOC for n in notes) and "deleted before this change" in summary


def test_a_file_never_in_the_history_is_still_an_invalid_config(bot, standin, repo_and_shas):
    config = CONFIG.replace("path: trainer/arguments.py", "path: trainer/never_there.py")
    _branch(repo_and_shas, "never", {CONFIG_FILE: config})
    _branch(repo_and_shas, "never-pr", {ARGS: ARGS_HEAD}, parent="never")
    bot.check(29, "never", "never-pr")
    (run,) = standin.check_runs
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "Invalid .github/docs-sync.yml")
    assert "'trainer/never_there.py' is not in the repository at base or head" in run["output"]["summary"]


def test_a_glob_that_matches_nothing_fails_too(bot, standin, repo_and_shas):
    config = CONFIG.replace("path: docs/training-backend.md", 'path: "docs/**/*.rst"')
    _branch(repo_and_shas, "glob", {CONFIG_FILE: config})
    _branch(repo_and_shas, "glob-pr", {DOC: DOC_HEAD}, parent="glob")
    bot.check(22, "glob", "glob-pr")
    (run,) = standin.check_runs
    assert run["conclusion"] == "failure"
    assert "pattern 'docs/**/*.rst' matches no file at base or head" in run["output"]["summary"]
    assert run["output"]["annotations"][0]["start_line"] == 5


def test_a_glob_config_checks_like_the_list_it_stands_for(bot, standin, repo_and_shas):
    config = CONFIG.replace("path: docs/training-backend.md", 'path: "docs/*.md"')
    _branch(repo_and_shas, "globbed", {CONFIG_FILE: config})
    _branch(repo_and_shas, "globbed-pr", {ARGS: ARGS_HEAD, DOC: DOC_HEAD}, parent="globbed")
    bot.check(23, "globbed", "globbed-pr")
    (run,) = standin.check_runs
    assert run["conclusion"] == "failure" and run["output"]["title"] == "3 doc lines out of date"


def test_an_edited_config_is_validated_and_the_check_uses_the_bases(bot, standin, repo_and_shas):
    # The pull request switches its own rule off (a page nobody has) and breaks the code: the
    # base's config still judges it, and the note says the new config will not work.
    broken = CONFIG.replace("path: docs/training-backend.md", "path: docs/training-backends.md")
    _branch(repo_and_shas, "edit-bad", {CONFIG_FILE: broken, ARGS: ARGS_HEAD})
    bot.check(24, "main", "edit-bad")
    (run,) = standin.check_runs
    assert run["conclusion"] == "failure" and run["output"]["title"] == "2 doc lines out of date"
    summary = run["output"]["summary"]
    assert (
        "This pull request edits `.github/docs-sync.yml`; it was checked with the base branch's config."
        in summary
    )
    assert (
        "The new one cannot be used once merged: `.github/docs-sync.yml:5: rules[0].docs[0].path: "
        "doc page 'docs/training-backends.md' is not in the repository at base or head`." in summary
    )
    (comment,) = standin.issue_comments
    assert "cannot be used once merged" in comment["body"]


def test_a_valid_edited_config_is_said_to_be_valid_even_with_nothing_to_report(bot, standin, repo_and_shas):
    valid = CONFIG.replace("# docs-sync configuration", "# docs-sync configuration, reworded")
    _branch(repo_and_shas, "edit-ok", {CONFIG_FILE: valid})
    bot.check(25, "main", "edit-ok")
    (run,) = standin.check_runs
    assert run["conclusion"] == "success"
    assert "The new one is valid: 1 rule, every page, source, glob and section" in run["output"]["summary"]
    (comment,) = standin.issue_comments  # posted although there is no finding
    assert "The new one is valid" in comment["body"]


def test_a_broken_edited_config_is_quoted_inert(bot, standin, repo_and_shas):
    page = "docs/@everyone <img src=x>.md"
    hostile = CONFIG.replace("path: docs/training-backend.md", f'path: "{page}"')
    _branch(repo_and_shas, "edit-hostile", {CONFIG_FILE: hostile})
    bot.check(26, "main", "edit-hostile")
    summary = standin.check_runs[0]["output"]["summary"]
    # The path is shown only inside a code span: no mention, no image.
    span = f"`.github/docs-sync.yml:5: rules[0].docs[0].path: doc page '{page}' is not in the repository"
    assert span in summary and summary.count("@everyone") == 1


def test_a_deleted_config_is_noted(bot, standin, repo_and_shas):
    bot.check(27, "main", "noconf")
    summary = standin.check_runs[0]["output"]["summary"]
    assert "This pull request deletes `.github/docs-sync.yml`" in summary
    assert "Once it is merged, docs-sync checks nothing here." in summary


def test_an_edited_config_with_a_hostile_glob_is_validated_in_linear_time(bot, standin, repo_and_shas):
    # A backtracking regex of this glob took hours on this name (tests/core/test_globs.py runs
    # the matcher apart, under a timeout); the App must answer as for any config.
    glob = "docs/" + "*a" * 14 + "*b.md"
    hostile = CONFIG.replace("path: docs/training-backend.md", f'path: "{glob}"')
    _branch(repo_and_shas, "edit-glob", {CONFIG_FILE: hostile, "docs/" + "a" * 400 + ".txt": "x\n"})
    bot.check(28, "main", "edit-glob")
    (run,) = standin.check_runs
    assert run["conclusion"] == "success"
    assert f"pattern '{glob}' matches no file at base or head" in run["output"]["summary"]


PAGES_RULE = """
  - id: every-page
    docs:
      - path: "docs/pages/**/*.md"
        sections: ["Page > Usage"]
    sources:
      - {id: cli, kind: argparse, path: trainer/arguments.py}
"""


def test_an_edited_configs_pages_are_read_in_a_few_queries(bot, standin, repo_and_shas):
    pages = {f"docs/pages/p{i:03}.md": "# Page\n\n## Usage\n\nRun it.\n" for i in range(150)}
    _branch(repo_and_shas, "pages", pages)
    _branch(repo_and_shas, "edit-pages", {CONFIG_FILE: CONFIG + PAGES_RULE}, parent="pages")
    bot.check(29, "pages", "edit-pages")
    (run,) = standin.check_runs
    assert "The new one is valid: 2 rules" in run["output"]["summary"]
    # Every page is read for its headings (pages the pull request did not change): 150 pages
    # in batches, not a query each.
    assert len(standin.calls("POST", r"/graphql$")) <= 6


def test_an_edited_configs_reads_count_against_the_source_budget(standin, repo_and_shas, tmp_path):
    # The pages the new config names are the pull request's: read in the analysis process and
    # counted there, they fail the check by the budget, not the worker by its memory.
    big = "# Page\n\n## Usage\n\n" + "Words of a page. " * 2000 + "\n"
    rule = PAGES_RULE.replace("docs/pages/**/*.md", "docs/big.md")
    _branch(repo_and_shas, "edit-big", {CONFIG_FILE: CONFIG + rule, "docs/big.md": big})
    bot = CheckBot(standin, repo_and_shas[1], tmp_path, budget=Budget(source_mb=0.02))
    try:
        bot.check(30, "main", "edit-big")
    finally:
        bot.queue.close()
    (run,) = standin.check_runs
    assert run["conclusion"] == "failure"
    assert run["output"]["title"].startswith("Over the source budget: more than 33.")
