"""The summary comment: one per pull request, edited only when its body changes, posted again when
someone deleted it, and not posted at all while there is nothing to say."""

from __future__ import annotations

from bot.app.intake.events import route
from bot.app.queue.store import PullRef, Store
from bot.render.comments import SUMMARY_MARKER
from bot.testing.appkit import check_run_payload


def summaries(standin) -> list[dict]:
    return [c for c in standin.issue_comments if c["body"].startswith(SUMMARY_MARKER)]


def test_a_clean_pull_request_gets_no_summary(bot, standin):
    bot.check(1, "main", "clean")
    assert summaries(standin) == [] and standin.calls("POST", r"/issues/1/comments$") == []
    assert Store(bot.queue).pull_state(PullRef("octo-org/docs-repo", 1)).summary_id is None


def test_an_unchanged_summary_is_not_edited_and_a_changed_one_is(bot, standin, repo_and_shas):
    bot.check(2, "main", "pr")
    (first,) = summaries(standin)
    run_id = standin.check_runs[0]["id"]
    (spec,) = route("check_run", check_run_payload(standin, repo_and_shas[1]["pr"], run_id))
    bot.queue.enqueue("rerun", spec.kind, spec.payload, key=spec.key)  # a person asks again
    bot.worker.run_once()
    assert len(standin.check_runs) == 2  # checked and published again, with the same words
    assert standin.calls("PATCH", r"/issues/comments/\d+$") == []
    standin.update_pull(2, head="pr-fixed")
    bot.check(2, "main", "pr-fixed")
    (edited,) = summaries(standin)
    assert edited["id"] == first["id"] and len(standin.calls("PATCH", r"/issues/comments/\d+$")) == 1
    assert f"docs-sync checked {repo_and_shas[1]['pr-fixed'][:12]}" in edited["body"]


def test_a_deleted_summary_is_posted_again(bot, standin, repo_and_shas):
    bot.check(3, "main", "pr")
    (first,) = summaries(standin)
    standin.issue_comments.remove(first)  # someone deleted it on GitHub
    standin.update_pull(3, head="one")
    bot.check(3, "main", "one")
    (again,) = summaries(standin)
    assert again["id"] != first["id"] and "docs-sync checked " + repo_and_shas[1]["one"][:12] in again["body"]
    assert [s for _, _, s in standin.calls("PATCH", r"/issues/comments/\d+$")] == [404]
    assert Store(bot.queue).pull_state(PullRef("octo-org/docs-repo", 3)).summary_id == again["id"]


def test_the_summary_shows_each_suggestions_old_line_and_new_one(bot, standin):
    bot.check(4, "main", "pr")
    (summary,) = summaries(standin)
    body = summary["body"]
    assert "  -| `--fsdp-cpu-ofload` with `--offload-train` |" in body  # the doc line at head
    assert "  +| `--fsdp-cpu-offload` with `--offload-train` |" in body  # what it should say
    assert body.index("  -| `--fsdp-cpu-ofload`") < body.index("  +| `--fsdp-cpu-offload`")
    run = standin.check_runs[0]
    assert "  -| `--fsdp-cpu-ofload` with `--offload-train` |" in run["output"]["summary"]


def test_a_deleted_summary_posted_again_whose_answer_was_lost_is_posted_once(bot, standin):
    bot.check(5, "main", "pr")
    (first,) = summaries(standin)
    standin.issue_comments.remove(first)  # someone deleted it on GitHub
    standin.update_pull(5, head="one")
    standin.fail_next("POST", r"/issues/5/comments$", 502, after=True)  # posted again, answer lost
    bot.check(5, "main", "one")
    (again,) = summaries(standin)
    assert again["id"] != first["id"] and bot.queue.counts()["done"] == 2
    assert Store(bot.queue).pull_state(PullRef("octo-org/docs-repo", 5)).summary_id == again["id"]
