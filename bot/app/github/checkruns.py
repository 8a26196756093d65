"""The job's check run: created once per job, completed with its annotations, failed rather than
left in progress.

A pull request the database does not know (new, or the database was lost) is looked up first
(`adopt`): a run docs-sync left in progress on the head becomes the job's run, and a completed
one tells an automatic trigger that the head was checked already.

Each job keeps its run in the store under its job id (`Store.check_run`), so a retried or
resumed job reuses it. The run is named on GitHub by the job's delivery id (`external_id`): a
creation whose answer was lost (a crash, a timeout, a 502 after GitHub did the work) is marked
pending before the call (`Store.pending_check_run`), and the next attempt finds the run by that
id instead of leaving a second one in progress (once.py's protocol; `_RunSlot`).

Completing sends the annotations 50 a request, the last batch with the conclusion: a job
interrupted between batches is still in progress, and progress is saved after each request, so
its retry sends the rest and no annotation goes twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bot.app.github.context import Context
from bot.app.github.once import recover, write
from bot.app.github.shapes import (
    CheckRunAction,
    CheckRunOutput,
    CheckRunUpdate,
    NewCheckRun,
    app_id,
    output_of,
)
from bot.app.intake.events import RERUN_ACTION
from bot.app.queue.store import CheckRun
from bot.render.comments import (
    FAILED_TITLE,
    IN_PROGRESS_SUMMARY,
    IN_PROGRESS_TITLE,
    RERUN_DESCRIPTION,
    RERUN_LABEL,
    SUPERSEDED_TITLE,
    TEXT_LIMIT,
    TITLE_LIMIT,
    CheckOutcome,
    checked_against,
    checked_marker,
    clip,
    failed,
    left_behind,
)

CHECK_NAME = "docs-sync"
ANNOTATION_BATCH = 50  # GitHub takes at most 50 annotations per request
ACTIONS = [CheckRunAction(label=RERUN_LABEL, description=RERUN_DESCRIPTION, identifier=RERUN_ACTION)]


def started(ctx: Context) -> bool:
    """Has the job created its check run, or sent the creation (answered or not)?"""
    return ctx.store.check_run_started(ctx.job_id)


class _RunSlot:
    """The job's check run (once.Slot): kept by job id, its creation marked with the head SHA
    it was sent for, found on GitHub by the job's delivery id (`external_id`)."""

    def __init__(self, ctx: Context, head_sha: str | None = None):
        self.ctx, self.head_sha = ctx, head_sha  # the head a creation is for

    def result(self) -> CheckRun | None:
        return self.ctx.store.check_run(self.ctx.job_id)

    def pending(self) -> bool:
        head = self.ctx.store.pending_check_run(self.ctx.job_id)
        saved = self.result()
        return head is not None and (saved is None or saved.head_sha != head)

    def mark(self) -> None:
        if self.head_sha is None:
            raise ValueError("a check run is created on a head commit")
        self.ctx.store.set_pending_check_run(self.ctx.job_id, self.head_sha)

    def keep(self, run: CheckRun) -> None:
        self.ctx.store.save_check_run(self.ctx.job_id, run)
        self.ctx.store.set_pending_check_run(self.ctx.job_id, None)

    def find(self) -> CheckRun | None:
        ctx = self.ctx
        head = ctx.store.pending_check_run(ctx.job_id)
        if head is None:
            return None
        found = [r for r in ctx.repo.check_runs(head, CHECK_NAME) if r.get("external_id") == ctx.delivery_id]
        if not found:
            return None  # the creation never happened
        data = max(found, key=lambda r: int(r["id"]))
        return CheckRun(
            id=int(data["id"]),
            head_sha=head,
            html_url=str(data.get("html_url") or ""),
            done=data.get("status") == "completed",
        )

    def forget(self) -> None:
        self.ctx.store.set_pending_check_run(self.ctx.job_id, None)


def known(ctx: Context) -> CheckRun | None:
    """The check run the job created, from the store, or found on GitHub when its creation went
    unanswered."""
    return recover(_RunSlot(ctx))


def adopt(ctx: Context, rules: Callable[[], str]) -> bool:
    """Look up docs-sync's runs on the pull request's head: the newest still in progress becomes
    the job's run (unless the job has one); True when one completed with a result (neither a
    failure to run nor superseded) against the pull request's base and under its `rules` (a
    digest, asked for only then), so the head was checked. The same head pushed for another
    base, or checked under other rules, is checked again: a run of one pull request passes
    another's required check otherwise."""
    head, base = ctx.pull.head_sha, ctx.pull.base_sha
    runs = [r for r in ctx.repo.check_runs(head, CHECK_NAME) if app_id(r) in (None, ctx.settings.app_id)]
    waiting = [r for r in runs if r.get("status") != "completed"]
    if waiting and not started(ctx):
        data = max(waiting, key=lambda r: int(r["id"]))
        ctx.store.save_check_run(ctx.job_id, CheckRun(int(data["id"]), head, str(data.get("html_url") or "")))
        return False
    against = {
        checked_against(str(output_of(r).get("summary") or ""))
        for r in runs
        if r.get("status") == "completed"
        and output_of(r).get("title") not in (FAILED_TITLE, SUPERSEDED_TITLE)
    }
    return any(a is not None and a[0] == base for a in against) and (base, rules()) in against


def start(ctx: Context, head_sha: str) -> CheckRun:
    """The job's check run on `head_sha`: the one a previous attempt created, else a new one.

    A run an earlier attempt left on another head (a recheck retried after a push) is completed
    as superseded first.
    """
    run = known(ctx)
    if run is not None:
        if run.head_sha == head_sha:
            return run
        if not run.done:
            finish(ctx, run, left_behind(run.head_sha))

    def create() -> CheckRun:
        data = ctx.repo.create_check_run(
            NewCheckRun(
                name=CHECK_NAME,
                head_sha=head_sha,
                status="in_progress",
                external_id=ctx.delivery_id,
                output=CheckRunOutput(title=IN_PROGRESS_TITLE, summary=IN_PROGRESS_SUMMARY),
            )
        )
        return CheckRun(id=int(data["id"]), head_sha=head_sha, html_url=str(data.get("html_url") or ""))

    return write(_RunSlot(ctx, head_sha), create)


def finish(ctx: Context, run: CheckRun, outcome: CheckOutcome, rules: str | None = None) -> CheckRun:
    """Send the outcome's annotations 50 a request, the last batch with its conclusion, which
    completes the run; returns the run as completed. A completed run is left as it is.

    `rules`: the digest of the rules the pull request was checked under; the summary then
    starts by naming them and the base (`checked_marker`), for `adopt`."""
    store, job = ctx.store, ctx.job_id
    saved = store.check_run(job)
    if saved is not None and saved.id == run.id:
        run = saved  # the latest progress: what an earlier call (or attempt) already sent
    if run.done:
        return run
    marker = checked_marker(ctx.pull.base_sha, rules) if rules is not None else ""
    output = CheckRunOutput(
        title=outcome.title[:TITLE_LIMIT], summary=marker + clip(outcome.summary, TEXT_LIMIT - len(marker))
    )
    notes = outcome.annotations
    while len(notes) - run.sent > ANNOTATION_BATCH:
        batch = list(notes[run.sent : run.sent + ANNOTATION_BATCH])
        ctx.repo.update_check_run(run.id, CheckRunUpdate(output={**output, "annotations": batch}))
        run = replace(run, sent=run.sent + len(batch))
        store.save_check_run(job, run)
    last = list(notes[run.sent :])
    body = CheckRunUpdate(
        status="completed",
        conclusion=outcome.conclusion,
        output={**output, "annotations": last} if last else output,
        actions=ACTIONS,
    )
    ctx.repo.update_check_run(run.id, body)
    run = replace(run, done=True, sent=run.sent + len(last))
    store.save_check_run(job, run)
    return run


def fail(ctx: Context, run: CheckRun, error: BaseException | str) -> CheckRun:
    """Complete the run as a failure that says what broke: a required check never waits forever."""
    return finish(ctx, run, failed(error))
