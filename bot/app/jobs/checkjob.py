"""The check job: from a queued check to what reviewers see on GitHub.

    the pull request (from the payload; by head SHA for a fork's check suite)
    -> skipped when an automatic trigger names a head already checked against the same base
       under the same rules
    -> a pull request the database does not know (new, or the database was lost): what
       docs-sync wrote on it is looked up on GitHub and adopted, once (its runs on the head,
       its review comments, its summary); a head with a completed run whose summary names the
       same base and rules is not checked again by an automatic trigger
    -> check run "docs-sync" in_progress on the head SHA (reused when the job is retried)
    -> the analysis (analysis.py: rules, files, blobs, the check, waivers)
    -> a newer push (a queued or later job for another head, or a file list made for another
       head)? then a neutral "Superseded" run and nothing else
    -> one review with inline comments, "Fixed in" edits, the summary comment (review.py,
       summary.py), the report kept for `/docs-sync explain`, and last the check run's
       conclusion and annotations (checkruns.py)

Nothing from the pull request is ever executed: files are only read as text, and the rules
come from the base branch (repoconfig.py).

A typical pull request costs 6 GitHub calls with findings (check run create and complete,
file list, one GraphQL query, the review, the summary comment) and 4 when clean; its first
run adds the three look-ups above, the first pull request on a base branch one GraphQL query
for the config, and a watched file whose patch GitHub left out (a diff too large to show) one
compare call for the merge base.

Errors: a RetryableError is left to the worker (the check run stays in progress until the
retry); on any other error the check run is completed as a failure titled "docs-sync could not
run". When GitHub refuses that completion too, the job is retried (the worker's policy) rather
than failed with its run in progress. When the worker gives a job up (its attempts ran out, or
it crashed the process every time and is not run again) the handler calls `abandon`, which
completes the job's check run the same way, so a required check never blocks a merge forever.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.app.github import checkruns
from bot.app.github.client import Repo
from bot.app.github.context import Context, Deps, Pull, job_context
from bot.app.github.review import (
    MAX_INLINE,
    adopt_comments,
    mark_fixed,
    plan_inline,
    post_review,
    recover_review,
    right_lines,
)
from bot.app.github.summary import adopt_summary, upsert_summary
from bot.app.intake.payloads import CheckJob, parse
from bot.app.jobs.analysis import Analysis, analyze, gone_at_head
from bot.app.jobs.repoconfig import known_rules
from bot.app.jobs.snapshot import BlobReader
from bot.app.queue.protocol import Job
from bot.app.queue.store import Checked, CheckRun, StoredReport
from bot.app.queue.worker import RetryableError
from bot.core.model import Report
from bot.render.comments import over_cap_note, report_outcome, summary_comment, superseded

log = logging.getLogger(__name__)

# A push to a pull request brings both pull_request.synchronize and check_suite.requested; the
# queue folds them into one job only while the first is still queued. These automatic triggers
# skip a head commit that was already checked against the same base; a person asking (re-run
# button, check_run.rerequested, check_suite.rerequested, /docs-sync) always gets a new run.
AUTOMATIC_TRIGGERS = ("pull_request.", "check_suite.requested")


def run(ctx: Context, job: CheckJob) -> Report | None:
    """The check job: find the pull request, check it, publish; the report (None if not checked)."""
    pull = find_pull(ctx.repo, job)  # no call when the payload names the pull request
    if pull is None:
        # A push with no open pull request (check suites come for every push): nothing to say.
        log.info("no open pull request has head %s; nothing to check", job.head_sha)
        return None
    ctx = ctx.with_pull(pull)
    if already_checked(ctx, job.trigger):
        log.info("job %s: %s was checked already; nothing new to say", ctx.job_id, pull.head_sha)
        return None
    # A base branch changed (pull_request.edited) is checked again whatever GitHub holds.
    automatic = job.trigger.startswith(AUTOMATIC_TRIGGERS) and job.trigger != "pull_request.edited"
    return check_pull(ctx, automatic=automatic)


def find_pull(repo: Repo, job: CheckJob) -> Pull | None:
    """The pull request a job is about, asking GitHub only for what the payload lacks."""
    number, head, base = job.pr, job.head_sha, job.base_sha
    if number is not None and head and base:
        return Pull(number, head, base, job.base_ref)
    if number is not None:
        data = repo.pull(number)
        return Pull(number, head or data["head"]["sha"], data["base"]["sha"], data["base"].get("ref"))
    if not head:
        return None
    # A fork's check suite names no pull request: GitHub finds commits of the base repository
    # only, so look through the open pull requests when the commit lookup comes back empty.
    candidates = [p for p in repo.pulls_of_commit(head) if p.get("state", "open") == "open"]
    match = [p for p in candidates if p.get("head", {}).get("sha") == head]
    if not match:
        match = [p for p in repo.open_pulls() if p.get("head", {}).get("sha") == head]
    if not match:
        return None
    data = match[0]
    return Pull(int(data["number"]), head, data["base"]["sha"], data["base"].get("ref"))


def already_checked(ctx: Context, trigger: str) -> bool:
    """Was the pull request's head checked against its base already, and nobody asked again?"""
    if not trigger.startswith(AUTOMATIC_TRIGGERS) or checkruns.started(ctx):
        return False  # asked for by a person, or a retry of a job that already started
    pull = ctx.pull
    checked = ctx.store.checked(ctx.repo.full_name, pull.head_sha)
    if checked is None or (checked.pr, checked.base_sha) != (pull.number, pull.base_sha):
        return False
    return checked.rules == rules_digest(ctx)


def check_pull(ctx: Context, *, automatic: bool = False) -> Report | None:
    """Check `ctx.pull` under the job's check run and publish the result (the `/docs-sync`
    recheck and ignore commands come here too); the report, None if nothing was published.

    `automatic`: nobody asked for this run; a head GitHub shows checked is not checked again."""
    pull = ctx.pull
    started = checkruns.started(ctx)
    if not started and adopt_from_github(ctx) and automatic:
        log.info("job %s: GitHub shows %s checked already; nothing new to say", ctx.job_id, pull.head_sha)
        _mark_checked(ctx, rules_digest(ctx))
        return None
    run = checkruns.start(ctx, pull.head_sha)
    if run.done:
        log.info("check run %s of job %s is already complete", run.id, ctx.job_id)
        return None
    try:
        if started and newer_push(ctx):
            # A retry overtaken by a newer push (the queue made it due at once): close the
            # run its first attempt left in progress, without checking anything.
            _finish_superseded(ctx, run)
            return None
        return _check_and_publish(ctx, run)
    except RetryableError:
        raise  # the run stays in progress for the retry; the worker abandons the job if none comes
    except Exception as exc:
        _fail(ctx, run, exc)
        raise


def _check_and_publish(ctx: Context, run: CheckRun) -> Report | None:
    result = analyze(ctx)
    if result.problem is not None:
        checkruns.finish(ctx, run, result.problem, result.rules)
        _mark_checked(ctx, result.rules)
        return None
    if result.moved or newer_push(ctx):
        _finish_superseded(ctx, run)
        return None
    report, links = result.report, result.links
    assert report is not None and links is not None
    ctx.metrics.findings(len(report.findings))
    notes = publish(ctx, result)
    ctx.store.save_report(ctx.pr, StoredReport(ctx.pull.head_sha, links.html_url, report))
    assert result.revisions is not None
    outcome = report_outcome(report, links, notes, gone_at_head(result.files), result.revisions.head.read)
    checkruns.finish(ctx, run, outcome, result.rules)
    _mark_checked(ctx, result.rules)
    return report


def adopt_from_github(ctx: Context) -> bool:
    """Once per pull request and database: adopt what docs-sync wrote on it before this database
    knew it (its run in progress on the head, its review comments, its summary comment), so
    nothing is written twice after the database was lost. True when GitHub shows the head
    checked against the same base under the same rules (a completed run saying so)."""
    state = ctx.store.pull_state(ctx.pr)
    if state.synced:
        return False
    checked = checkruns.adopt(ctx, lambda: rules_digest(ctx))
    state = adopt_summary(ctx, adopt_comments(ctx, state))
    ctx.store.save_pull_state(ctx.pr, replace(state, synced=True))
    return checked


def publish(ctx: Context, result: Analysis) -> list[str]:
    """The review, the "fixed" edits and the summary comment (the check run comes after).

    Returns the notes for the summaries (what was skipped, what is not commented inline).
    """
    report, links, revisions = result.report, result.links, result.revisions
    assert report is not None and links is not None and revisions is not None
    state = recover_review(ctx, ctx.store.pull_state(ctx.pr))
    current = {f.fingerprint() for f in report.findings} | {f.fingerprint() for f, _ in report.ignored}
    diff = {f["filename"]: right_lines(f.get("patch")) for f in result.files if "filename" in f}
    # The cap is on the pull request, not the run: comments still open count against it.
    room = MAX_INLINE - len(state.open_fingerprints() & current)
    inline, over = plan_inline(
        report, diff, revisions.head.read, links, skip=state.open_fingerprints(), limit=max(0, room)
    )
    state = post_review(ctx, state, inline)
    state = mark_fixed(ctx, state, current)
    notes = list(result.notes)
    if over:
        notes.append(over_cap_note(over, MAX_INLINE))
    body = summary_comment(report, links, notes, revisions.head.read)  # shows the lines replaced too
    upsert_summary(ctx, state, body, wanted=bool(report.findings or report.ignored or result.config))
    return notes


def newer_push(ctx: Context) -> bool:
    """Is a check of another head commit of this pull request queued, running or done after this job?

    Asked of the queue: no GitHub call, and it sees deliveries that arrived while this job ran.
    A fork's check suite is keyed by its head SHA, but the push after it comes as a
    pull_request delivery, keyed by the pull request: that key is the one to look under.
    """
    return ctx.queue.has_newer(str(ctx.pr), ctx.job_id, "check", head_sha=ctx.pull.head_sha)


def _mark_checked(ctx: Context, rules: str | None) -> None:
    pull = ctx.pull
    checked = Checked(pull.number, pull.base_sha, rules or "")
    ctx.store.mark_checked(ctx.repo.full_name, pull.head_sha, checked)


def rules_digest(ctx: Context) -> str:
    """The digest of the rules that judge `ctx.pull` now (usually no call: the config is known)."""
    return known_rules(ctx, BlobReader(ctx.repo, ctx.store)).digest


def _finish_superseded(ctx: Context, run: CheckRun) -> None:
    log.info("job %s: a newer push replaces %s; publishing nothing", ctx.job_id, ctx.pull.head_sha)
    checkruns.finish(ctx, run, superseded(ctx.pull.head_sha))


def _fail(ctx: Context, run: CheckRun, exc: BaseException) -> None:
    try:
        checkruns.fail(ctx, run, exc)
    except Exception as refused:
        # Failing the job now would leave its run in progress: a required check waiting for
        # good. A retry completes it; when the worker gives up, `abandon` tries once more.
        log.exception("could not mark check run %s as failed", run.id)
        delay = refused.delay_s if isinstance(refused, RetryableError) else 0.0
        raise RetryableError(
            delay, f"{type(exc).__name__}: {exc}; and check run {run.id} could not be completed: {refused}"
        ) from exc


def abandon(deps: Deps, job: Job, error: str) -> None:
    """Complete the check run a given-up job left in progress, as a failure that says why.

    A check job and a `/docs-sync` recheck record their run under the job id; a job that never
    started one, or whose run is already complete, needs no call.
    """
    store = deps.store
    if not store.check_run_started(job.id):
        return
    saved = store.check_run(job.id)
    if saved is not None and saved.done:
        return
    target = parse(job.kind, job.payload)
    if target is None:
        return
    with job_context(deps, job, target) as ctx:
        run = checkruns.known(ctx)  # one created unanswered too
        if run is None or run.done:
            return
        checkruns.fail(ctx, run, error)
    log.info("job %s: check run %s completed as failed (%s)", job.id, run.id, error)
