"""Which rules judge a pull request: the base branch's config, else the App's, else a neutral run
that says how to add one; a config that cannot be used fails with its file, line and key."""

from __future__ import annotations

from bot.core.packs import parse_repo_config
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
