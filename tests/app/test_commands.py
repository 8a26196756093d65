"""`/docs-sync` commands: comment jobs fed to the handler, the stand-in recording the answers; and
the registry the verbs, their permissions and the help come from."""

from __future__ import annotations

import pytest

from bot.app.config import CommandLimits
from bot.app.intake.events import route
from bot.app.intake.payloads import CommandJob
from bot.app.jobs.commands import COMMANDS, Registry
from bot.app.jobs.handler import make_handler
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.store import PullRef, Store
from bot.app.queue.worker import Worker
from bot.render.comments import SUMMARY_MARKER as SUMMARY
from bot.testing.appkit import comment_payload, pull_request_payload, settings_for
from bot.testing.standin import GitHubStandIn
from tests.appkit import Clock
from tests.render.test_comments import TYPED, assert_inert


class Bot:
    def __init__(self, standin: GitHubStandIn, shas: dict[str, str], tmp_path, **settings_kw):
        self.standin, self.shas = standin, shas
        settings = settings_for(standin, tmp_path / "q.db", **settings_kw)
        self.clock = Clock()
        self.queue = SQLiteQueue(settings.db_path, clock=self.clock)
        self.worker = Worker(
            self.queue, make_handler(settings, self.queue, Metrics(), write_interval_s=0), base_delay_s=0
        )
        self.n = 0

    def _enqueue(self, event: str, payload: dict) -> None:
        for spec in route(event, payload) or []:
            self.n += 1
            self.queue.enqueue(
                f"d{self.n}", spec.kind, spec.payload, key=spec.key, supersede=spec.kind == "check"
            )

    def run(self) -> None:
        while self.worker.run_once() is not None:
            pass

    def open_and_check(self, number: int, head: str, base: str = "main") -> None:
        self.standin.open_pull(number, base, head)
        self._enqueue(
            "pull_request",
            pull_request_payload(self.standin, "opened", number, self.shas[head], self.shas[base], base),
        )
        self.run()

    def comment(self, number: int, body: str, user: str = "alice") -> dict:
        comment = self.standin.add_issue_comment(number, body, user=user)
        self._enqueue("issue_comment", comment_payload(self.standin, number, comment))
        self.run()
        return comment


@pytest.fixture
def bot(standin, repo_and_shas, tmp_path):
    b = Bot(standin, repo_and_shas[1], tmp_path)
    yield b
    b.queue.close()


def replies(standin: GitHubStandIn) -> list[str]:
    return [c["body"] for c in standin.issue_comments if c["user"]["login"] == standin.bot_login]


def eyes_on(standin: GitHubStandIn, comment: dict) -> bool:
    return any(r["comment_id"] == comment["id"] and r["content"] == "eyes" for r in standin.reactions)


def test_help_is_answered_with_eyes_and_a_reply(bot, standin):
    standin.open_pull(1, "main", "clean")
    comment = bot.comment(1, "/docs-sync help")
    assert eyes_on(standin, comment)
    (reply,) = replies(standin)
    assert reply.startswith("> `/docs-sync help`\n\n@alice ") and COMMANDS.help_text() in reply
    bot.comment(1, "/docs-sync frobnicate")
    assert "(unknown command `frobnicate`)" in replies(standin)[1]


def test_explain_lists_rule_why_code_and_doc_lines(bot, standin, repo_and_shas):
    bot.open_and_check(2, "pr")
    bot.comment(2, "/docs-sync explain")
    reply = replies(standin)[-1]
    head = repo_and_shas[1]["pr"]
    assert f"at {head[:12]}" in reply
    assert "**2. renamed `--disable-fp32-master`** (error, rule `training-backend-page`)" in reply
    assert f"/blob/{head}/docs/training-backend.md#L32)" in reply
    assert f"/blob/{head}/trainer/backends/fsdp/arguments.py#L33)" in reply
    assert "- Why: Both flags set `keep_fp32_master`" in reply


def test_explain_before_any_check_analyses_without_publishing(bot, standin):
    standin.open_pull(3, "main", "one")
    bot.comment(3, "/docs-sync explain")
    assert "**1. changed `--attn-implementation`**" in replies(standin)[-1]
    assert standin.check_runs == [] and standin.reviews == []


def test_ignore_by_a_writer_waives_the_finding_and_passes_the_check(bot, standin):
    bot.open_and_check(4, "one")
    assert standin.check_runs[0]["conclusion"] == "failure"
    standin.set_permission("maint", "maintain")
    comment = bot.comment(4, "/docs-sync ignore --attn-implementation sdpa is the new default", user="maint")
    assert eyes_on(standin, comment)
    assert standin.calls("GET", r"/collaborators/maint/permission$")
    run = standin.check_runs[-1]
    assert (run["conclusion"], run["output"]["title"]) == ("success", "Docs are in sync (1 finding ignored)")
    summary = next(c for c in standin.issue_comments if c["body"].startswith("<!-- docs-sync:summary -->"))
    assert "### Ignored" in summary["body"] and "sdpa is the new default (@maint)" in summary["body"]
    assert len([c for c in standin.issue_comments if c["body"].startswith("<!-- docs-sync:summary")]) == 1
    reply = replies(standin)[-1]
    assert "now ignores findings about `--attn-implementation`" in reply and "1 finding ignored" in reply
    assert len(standin.review_comments) == 1  # the waived finding's comment is not posted again


def test_ignore_below_write_is_refused_politely(bot, standin):
    bot.open_and_check(5, "one")
    standin.set_permission("reader", "read")
    comment = bot.comment(5, "/docs-sync ignore --attn-implementation", user="reader")
    assert eyes_on(standin, comment)
    reply = replies(standin)[-1]
    assert "needs write access to the repository (you have read access)" in reply
    bot.comment(5, "/docs-sync ignore --attn-implementation", user="passer-by")  # not a collaborator: 404
    assert "(you have no access)" in replies(standin)[-1]
    assert len(standin.check_runs) == 1 and Store(bot.queue).waivers(PullRef("octo-org/docs-repo", 5)) == []


def test_recheck_runs_a_new_check_and_says_so(bot, standin, repo_and_shas):
    bot.open_and_check(6, "clean")
    bot.comment(6, "/docs-sync")
    assert len(standin.check_runs) == 2 and standin.check_runs[1]["conclusion"] == "success"
    assert f"checked {repo_and_shas[1]['clean'][:12]} again: Docs are in sync." in replies(standin)[-1]


def test_a_retried_command_answers_once(bot, standin):
    standin.open_pull(7, "main", "clean")
    standin.fail_next("POST", r"/issues/7/comments$", 502)
    comment = bot.comment(7, "/docs-sync help")
    assert len(replies(standin)) == 1 and eyes_on(standin, comment)
    assert len([r for r in standin.reactions if r["comment_id"] == comment["id"]]) == 1
    assert bot.queue.counts()["done"] == 1


def test_a_reply_whose_answer_was_lost_is_not_posted_again(bot, standin):
    standin.open_pull(8, "main", "clean")
    standin.fail_next("POST", r"/issues/8/comments$", 502, after=True)  # posted, answer lost
    comment = bot.comment(8, "/docs-sync help")
    (reply,) = replies(standin)
    assert reply.endswith(f"<!-- docs-sync:reply-to={comment['id']} -->")
    assert bot.queue.counts()["done"] == 1 and len(standin.calls("GET", r"/issues/8/comments$")) == 1


def test_a_command_github_refuses_is_answered_with_why(bot, standin):
    standin.open_pull(9, "main", "clean")
    standin.fail_next(
        "POST", r"/check-runs$", 403, body={"message": "Resource not accessible by integration"}
    )
    comment = bot.comment(9, "/docs-sync recheck")
    assert eyes_on(standin, comment)
    reply = replies(standin)[-1]
    assert "docs-sync could not do that: GitHub answered 403 to POST" in reply
    assert "Resource not accessible by integration" in reply and "may lack a permission" in reply
    assert bot.queue.counts()["done"] == 1


def test_a_recheck_retried_after_a_push_completes_the_run_it_left_on_the_old_head(
    bot, standin, repo_and_shas
):
    shas = repo_and_shas[1]
    standin.open_pull(10, "main", "one")
    standin.fail_next("POST", r"/graphql$", 502)  # the first attempt stops after its check run
    comment = standin.add_issue_comment(10, "/docs-sync recheck")
    bot._enqueue("issue_comment", comment_payload(standin, 10, comment))
    bot.worker.run_once()
    (waiting,) = standin.check_runs
    assert (waiting["head_sha"], waiting["status"]) == (shas["one"], "in_progress")
    standin.update_pull(10, head="pr")  # pushed before the retry
    bot.run()
    old, new = standin.check_runs
    assert (old["status"], old["conclusion"], old["output"]["title"]) == (
        "completed",
        "neutral",
        "Superseded by a newer push",
    )
    assert (new["head_sha"], new["conclusion"]) == (shas["pr"], "failure")
    assert f"checked {shas['pr'][:12]} again" in replies(standin)[-1]


# -- the registry ------------------------------------------------------------------------------------


def ask(command: str, *args: str, note: str | None = None) -> CommandJob:
    return CommandJob("octo", "docs", 1, 99, "alice", command, args, note)


def test_the_help_is_generated_from_the_registry_in_its_order():
    assert COMMANDS.help_text() == (
        "docs-sync keeps this repository's docs in step with its code. Commands (first line of a comment):\n"
        "\n"
        "- `/docs-sync` or `/docs-sync recheck`: check this pull request again\n"
        "- `/docs-sync explain`: why each finding was reported (rule, code line, doc line)\n"
        "- `/docs-sync ignore <symbol> [reason]`: accept the findings about `<symbol>` on this pull "
        'request (needs write access); they move to the summary\'s "Ignored" list\n'
        "- `/docs-sync apply`: commit the suggested doc changes of the last check to this branch, in one "
        "commit (needs write access; branches of this repository only)\n"
        "- `/docs-sync help`: this list"
    )
    assert list(COMMANDS.commands) == ["recheck", "explain", "ignore", "apply", "help"]
    assert (
        COMMANDS.commands["ignore"].permission == "write" and COMMANDS.commands["explain"].permission is None
    )
    assert COMMANDS.commands["apply"].permission == "write"


def test_verbs_resolve_through_the_registry():
    bare = COMMANDS.resolve(ask(""))
    assert (bare.command.name, bare.args, bare.note) == ("recheck", (), None)
    assert COMMANDS.resolve(ask("RECHECK")).command.name == "recheck"  # as written in the comment
    assert COMMANDS.resolve(ask("recheck", "please")).args == ()  # a command without arguments takes none
    assert COMMANDS.resolve(ask("Apply")).command.name == "apply"
    ignore = COMMANDS.resolve(ask("ignore", "--old", "renamed on purpose"))
    assert (ignore.command.name, ignore.args) == ("ignore", ("--old", "renamed on purpose"))


def test_what_the_registry_lacks_is_answered_with_the_help_and_why():
    unknown = COMMANDS.resolve(ask("Frobnicate", "now"))
    assert (unknown.command.name, unknown.args, unknown.note) == ("help", (), "unknown command `Frobnicate`")
    bare_ignore = COMMANDS.resolve(ask("ignore"))
    assert (bare_ignore.command.name, bare_ignore.note) == (
        "help",
        "ignore needs a symbol: /docs-sync ignore <symbol> [reason]",
    )
    # A job an earlier version queued had already fallen back to help, with its note.
    earlier = COMMANDS.resolve(ask("help", note="unknown command 'frobnicate'"))
    assert (earlier.command.name, earlier.note) == ("help", "unknown command 'frobnicate'")


def test_a_registry_takes_new_commands_once_each():
    registry = Registry()

    @registry.command("help", help="this list")
    def help_(ctx, asked):
        return registry.help_text()

    @registry.command("ping", help="answer pong", usage="[word]", default=True)
    def ping(ctx, asked):
        return "pong " + " ".join(asked.args)

    assert registry.resolve(ask("")).command.name == "ping"
    assert (
        registry.resolve(ask("ping", "x")).command.run(None, registry.resolve(ask("ping", "x"))) == "pong x"
    )  # type: ignore[arg-type]
    assert "- `/docs-sync` or `/docs-sync ping [word]`: answer pong" in registry.help_text()
    with pytest.raises(ValueError, match="registered twice"):
        registry.command("ping", help="again")(ping)
    with pytest.raises(ValueError, match="unknown permission"):
        registry.command("deploy", help="ship it", permission="admin")


def test_what_a_commenter_typed_comes_back_inert_in_every_place(bot, standin):
    bot.open_and_check(30, "one")
    standin.set_permission("maint", "maintain")
    for n, typed in enumerate(TYPED):
        bot.clock.advance(600)  # each try in a window of the command limits of its own
        bot.comment(30, f"/docs-sync {typed}")  # not a verb: the help answers, naming it
        reply = replies(standin)[-1]
        assert "unknown command" in reply
        assert_inert(reply, typed.split()[0])  # the verb is the first word
        bot.comment(30, f"/docs-sync ignore --attn-implementation {n} {typed}", user="maint")
        places = {
            "reply": replies(standin)[-1],
            "summary comment": next(
                c["body"] for c in standin.issue_comments if c["body"].startswith(SUMMARY)
            ),
            "check run": standin.check_runs[-1]["output"]["summary"],
        }
        bot.comment(30, "/docs-sync explain")
        places["explain"] = replies(standin)[-1]
        for place, markdown in places.items():
            assert f"{n} {typed}" in markdown, place  # the newest reason is the one shown
            assert_inert(markdown, typed), place


def test_commands_anyone_may_run_are_limited_per_commenter_and_per_repository(
    standin, repo_and_shas, tmp_path
):
    """30 `/docs-sync recheck` from a user with no permission: a few checks, one reply saying the
    limit, then silence; another commenter is served until the repository's limit."""
    limits = CommandLimits(per_commenter=3, per_repository=4)
    b = Bot(standin, repo_and_shas[1], tmp_path, command_limits=limits)
    try:
        b.open_and_check(20, "clean")
        standin.set_permission("mallory", "none")
        spam = [b.comment(20, "/docs-sync recheck", user="mallory") for _ in range(30)]
        assert len(standin.check_runs) == 1 + 3
        said = replies(standin)
        assert len(said) == 3 + 1 and "at most 3 commands per commenter in 10 minutes" in said[-1]
        assert sum(eyes_on(standin, c) for c in spam) == 4  # the unanswered get no reaction either
        b.comment(20, "/docs-sync help", user="bob")
        b.comment(20, "/docs-sync help", user="bob")
        b.comment(20, "/docs-sync help", user="bob")
        said = replies(standin)
        assert len(said) == 4 + 2 and "at most 4 commands per repository" in said[-1]
        standin.set_permission("writer", "write")
        b.comment(20, "/docs-sync ignore --x", user="writer")  # a writer's own command is not counted
        assert "docs-sync now ignores findings about `--x`" in replies(standin)[-1]
        assert b.queue.counts()["done"] == 1 + 30 + 3 + 1
    finally:
        b.queue.close()
