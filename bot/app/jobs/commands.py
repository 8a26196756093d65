"""`/docs-sync` commands in pull request comments (job kind "command"), as a registry.

Each verb is a small function registered with its name, the permission it needs and its line in
the help; `/docs-sync help` is generated from the registry, and a verb it does not hold is
answered with that help and a note. Today's verbs:

    /docs-sync, /docs-sync recheck      check the pull request's head again
    /docs-sync explain                  reply with each finding: rule, why, code line, doc line
    /docs-sync ignore <symbol> [reason] waive the findings about <symbol> on this pull request,
                                        then check again (write, maintain or admin only)
    /docs-sync apply                    commit the last check's suggested doc changes to the
                                        pull request's branch, as the App, in one commit
                                        (write, maintain or admin; not for forks: apply.py)
    /docs-sync help                     reply with this list

Every command is acknowledged with an "eyes" reaction on its comment and answered in a reply
comment; a command above the commenter's permission is refused politely, and one GitHub refuses
to carry out (a 404, a permission the App lacks) is answered with what GitHub said. events.py
has already dropped comments by bots, edits and deletions. The reply's id is kept in the store
(`Store.reply`, by job id; id None while the reply is being sent), so a retried job does not
answer twice: a reply whose answer was lost is found by its hidden marker
`<!-- docs-sync:reply-to=<comment id> -->` (bot.app.github.once's protocol). The reaction is
idempotent on GitHub's side.

Commands are counted (`JobQueue.tally`, in the database, so every worker process counts
together) per commenter and per repository (Settings.command_limits; a command its writer's
permission covers is not counted). The first command past a limit is answered with the limit;
the ones after it, until the window ends, get no reaction and no reply: a spammer's 30
`/docs-sync recheck` cost 10 checks and 11 replies, not 30 of each.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.app.config import CommandLimits
from bot.app.github.client import GitHubError, Repo
from bot.app.github.context import Context, Pull
from bot.app.github.once import recover, write
from bot.app.github.shapes import by_bot
from bot.app.intake.events import COMMAND_PREFIX
from bot.app.intake.payloads import CommandJob
from bot.app.jobs.analysis import analyze
from bot.app.jobs.apply import apply_command
from bot.app.jobs.checkjob import check_pull
from bot.app.queue.store import PullRef, Reply, StoredReport, Waiver
from bot.core.model import Report
from bot.render.comments import (
    command_reply,
    explain_text,
    help_text,
    ignoring,
    needs_permission,
    nothing_to_explain,
    over_limit,
    rechecked,
    refused_by_github,
    reply_marker,
    unknown_command,
)

log = logging.getLogger(__name__)

PREFIX = COMMAND_PREFIX
# What GitHub's collaborator permission answers (it reports maintain as write) that each
# permission a command can ask for accepts.
PERMISSIONS = {"write": ("admin", "maintain", "write")}


@dataclass(frozen=True)
class Ask:
    """One command as asked: the job, the command it resolved to, and its words."""

    job: CommandJob
    command: Command
    args: tuple[str, ...] = ()
    note: str | None = None  # why the help answers instead of what was asked

    @property
    def pr(self) -> int:
        return self.job.pr


@dataclass(frozen=True)
class Command:
    name: str
    run: Callable[[Context, Ask], str]  # the answer, in markdown, after "@user "
    help: str  # its line in the help
    usage: str = ""  # its arguments, as the help shows them; a command without takes none
    needs: str = ""  # what it cannot do without ("a symbol"): asked without arguments, help answers
    permission: str | None = None  # a key of PERMISSIONS; None: anyone who can comment
    because: str = ""  # why it needs the permission, for the refusal

    def written(self) -> str:
        return f"{PREFIX} {self.name} {self.usage}".rstrip()


class Registry:
    """The commands by name, in the order the help lists them."""

    def __init__(self) -> None:
        self.commands: dict[str, Command] = {}
        self.default: str | None = None  # what a bare `/docs-sync` does

    def command(
        self,
        name: str,
        *,
        help: str,
        usage: str = "",
        needs: str = "",
        permission: str | None = None,
        because: str = "",
        default: bool = False,
    ) -> Callable[[Callable[[Context, Ask], str]], Callable[[Context, Ask], str]]:
        """Register the decorated function as `/docs-sync <name>`."""
        if permission is not None and permission not in PERMISSIONS:
            raise ValueError(f"command {name!r}: unknown permission {permission!r}")

        def register(run: Callable[[Context, Ask], str]) -> Callable[[Context, Ask], str]:
            if name in self.commands:
                raise ValueError(f"command {name!r} is registered twice")
            self.commands[name] = Command(name, run, help, usage, needs, permission, because)
            if default:
                self.default = name
            return run

        return register

    def help_text(self) -> str:
        entries = []
        for c in self.commands.values():
            written = f"`{c.written()}`"
            if c.name == self.default:
                written = f"`{PREFIX}` or {written}"
            entries.append((written, c.help))
        return help_text(entries)

    def resolve(self, job: CommandJob) -> Ask:
        """The command a job asks for; help, with a note saying why, for what the registry lacks."""
        fallback = self.commands["help"]
        verb = job.command.lower() or self.default or "help"
        command = self.commands.get(verb)
        if command is None:
            return Ask(job, fallback, note=unknown_command(job.command))
        args = job.args if command.usage else ()
        if command.needs and not args:
            return Ask(job, fallback, note=f"{command.name} needs {command.needs}: {command.written()}")
        return Ask(job, command, args, job.note)


COMMANDS = Registry()


@COMMANDS.command("recheck", help="check this pull request again", default=True)
def recheck(ctx: Context, ask: Ask) -> str:
    pull = Pull.from_api(ctx.repo.pull(ask.pr))
    return rechecked(pull.head_sha, check_pull(ctx.with_pull(pull)))


@COMMANDS.command("explain", help="why each finding was reported (rule, code line, doc line)")
def explain(ctx: Context, ask: Ask) -> str:
    """Each finding of the last check (or of a fresh analysis when there was none)."""
    stored = ctx.store.last_report(PullRef(ctx.repo.full_name, ask.pr))
    if stored is None:
        pull = Pull.from_api(ctx.repo.pull(ask.pr))
        result = analyze(ctx.with_pull(pull))
        if result.report is None or result.links is None:
            return nothing_to_explain(result.problem.title if result.problem else "nothing to explain")
        stored = StoredReport(pull.head_sha, result.links.html_url, Report(result.report.findings))
    return explain_text(stored.report, stored.html_url, stored.head_sha)


@COMMANDS.command(
    "ignore",
    usage="<symbol> [reason]",
    needs="a symbol",
    help="accept the findings about `<symbol>` on this pull request (needs write access); they "
    'move to the summary\'s "Ignored" list',
    permission="write",
    because="changes what this pull request is checked against",
)
def ignore(ctx: Context, ask: Ask) -> str:
    symbol, reason = ask.args[0], (ask.args[1] if len(ask.args) > 1 else "")
    ctx.store.add_waiver(PullRef(ctx.repo.full_name, ask.pr), Waiver(symbol, reason, ask.job.user))
    pull = Pull.from_api(ctx.repo.pull(ask.pr))
    return ignoring(symbol, reason, pull.head_sha, check_pull(ctx.with_pull(pull)))


@COMMANDS.command(
    "apply",
    help="commit the suggested doc changes of the last check to this branch, in one commit "
    "(needs write access; branches of this repository only)",
    permission="write",
    because="pushes a commit to this pull request's branch",
)
def apply(ctx: Context, ask: Ask) -> str:
    return apply_command(ctx, ask.pr)


@COMMANDS.command("help", help="this list")
def help_(ctx: Context, ask: Ask) -> str:
    note = f"({ask.note})\n\n" if ask.note else ""
    return note + COMMANDS.help_text()


def run(ctx: Context, job: CommandJob) -> None:
    """Acknowledge the comment, answer it once (a retry finds the reply it sent), in a reply."""
    ask = COMMANDS.resolve(job)
    repo, store = ctx.repo, ctx.store
    held = None
    verdict = store.limit_verdict(ctx.job_id)  # decided once per job: a retry is not counted again
    if verdict is None:
        if ask.command.permission is not None:
            held = repo.permission(job.user)
        needs = ask.command.permission
        verdict = "run" if needs is not None and held in PERMISSIONS[needs] else _counted(ctx, job)
        store.save_limit_verdict(ctx.job_id, verdict)
    if verdict == "quiet":
        log.info("command %s by %s not answered: over its limit, said once", ask.command.name, job.user)
        return
    repo.react(job.comment_id, "eyes")
    slot = _ReplySlot(ctx, job)
    if recover(slot) is not None:
        return  # answered by an earlier attempt of this job (its answer lost or not)
    try:
        answer = (
            _over_limit(ctx.settings.command_limits, verdict) if verdict != "run" else _answer(ctx, ask, held)
        )
    except GitHubError as exc:  # GitHub will not do it: say so rather than go quiet
        log.warning("command %s failed: %s", ask.command.name, exc)
        answer = refused_by_github(str(exc))
    quoted = " ".join([f"{PREFIX} {ask.command.name}", *ask.args])
    body = command_reply(quoted, job.user, answer, job.comment_id)
    write(slot, lambda: int(repo.create_issue_comment(job.pr, body)["id"]))


class _ReplySlot:
    """A command's reply (once.Slot): its id kept by job id (`Store.reply`, id None while it is
    being sent), one sent unanswered found by its hidden marker."""

    def __init__(self, ctx: Context, job: CommandJob):
        self.ctx, self.job = ctx, job

    def result(self) -> int | None:
        reply = self.ctx.store.reply(self.ctx.job_id)
        return reply.id if reply is not None else None

    def pending(self) -> bool:
        reply = self.ctx.store.reply(self.ctx.job_id)
        return reply is not None and reply.id is None

    def mark(self) -> None:
        self.ctx.store.save_reply(self.ctx.job_id, Reply(None))

    def keep(self, reply_id: int) -> None:
        self.ctx.store.save_reply(self.ctx.job_id, Reply(reply_id))

    def find(self) -> int | None:
        return _find_reply(self.ctx.repo, self.job.pr, self.job.comment_id)

    def forget(self) -> None:
        pass  # the mark is the unanswered reply itself: the next write sets it again


def _counted(ctx: Context, job: CommandJob) -> str:
    """Count the command against its commenter's limit, then its repository's: "run", "tell:<who>"
    for the first one past a limit (its reply says so), "quiet" for the ones after it."""
    limits = ctx.settings.command_limits
    for who, bucket, limit in (
        ("commenter", f"commenter:{job.user.lower()}", limits.per_commenter),
        ("repository", f"repository:{job.full_name.lower()}", limits.per_repository),
    ):
        n = ctx.queue.tally(bucket, limits.window_s)
        if n > limit:
            return f"tell:{who}" if n == limit + 1 else "quiet"
    return "run"


def _over_limit(limits: CommandLimits, verdict: str) -> str:
    who = verdict.partition(":")[2]
    limit = limits.per_commenter if who == "commenter" else limits.per_repository
    return over_limit(who, limit, limits.window_s)


def _answer(ctx: Context, ask: Ask, held: str | None = None) -> str:
    command = ask.command
    if command.permission is not None:
        held = held or ctx.repo.permission(ask.job.user)
        if held not in PERMISSIONS[command.permission]:
            return needs_permission(command.name, command.because, command.permission, held)
    return command.run(ctx, ask)


def _find_reply(repo: Repo, number: int, comment_id: int) -> int | None:
    mark = reply_marker(comment_id)
    for c in repo.issue_comments(number):
        if mark in str(c.get("body") or "") and by_bot(c):
            return int(c["id"])
    return None
