"""The job handler: from a queued job to what reviewers see on GitHub.

handler.py hands it the jobs the worker runs. A check job goes:

    check run "docs-sync" in_progress on the head SHA (reused when the job is retried)
    -> the pull request (from the payload; by head SHA for a fork's check suite)
    -> its file list -> the rules: `.github/docs-sync.yml` at the BASE commit, else the
       App's DOCS_SYNC_RULES, else a neutral "not configured" run
    -> the blobs those rules read at head, in one GraphQL query (with the config); their base
       side is the merge base, as in GitHub's diff, derived from the file list's patches
       (snapshot.py)
    -> `bot.core.check.check`, then `/docs-sync ignore` waivers
    -> a newer push (a queued or later job for another head, or a file list made for another
       head)? then a neutral "Superseded" run and nothing else
    -> one review with inline comments, "Fixed in" edits, the summary comment, and last the
       check run's conclusion and annotations.

Nothing from the pull request is ever executed: files are only read as text, and the rules
come from the base branch, so a pull request cannot change what it is judged by.

A typical pull request costs 6 GitHub calls with findings (check run create and complete,
file list, one GraphQL query, the review, the summary comment) and 4 when clean; the first
pull request on a base branch adds one GraphQL query for the config, and a watched file whose
patch GitHub left out (a diff too large to show) adds one compare call for the merge base.
Kv state, all JSON:

    ns "config",  "owner/repo@base_ref"  {"oid"}: the config blob last seen on that branch
    ns "waivers", "owner/repo#12"        [{"symbol", "reason", "user"}]
    ns "report",  "owner/repo#12"        the last report, for `/docs-sync explain`
    ns "checked", "owner/repo@<head sha>" {"pr", "base_sha"}: that commit was checked and published
    (and the stores of snapshot.py and publish.py)

Errors: a RetryableError is left to the worker (the check run stays in progress until the
retry); on any other error the check run is completed as a failure titled "docs-sync could not
run". When the worker gives a job up (its attempts ran out, or it crashed the process every
time and is not run again) it calls the handler's `abandon`, which completes the job's check
run the same way, so a required check never blocks a merge forever.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from bot.app.config import Settings
from bot.app.github import MAX_FILE_PAGES, PER_PAGE, GitHubApp, Repo
from bot.app.metrics import Metrics
from bot.app.publish import (
    MAX_INLINE,
    CheckRun,
    PullState,
    check_run_started,
    finish_check_run,
    known_check_run,
    mark_fixed,
    plan_inline,
    post_review,
    recover_review,
    right_lines,
    start_check_run,
    upsert_summary,
)
from bot.app.queue import Job, JobQueue
from bot.app.snapshot import BlobReader, PullRevisions, base_patches, changes_from_files, head_oids
from bot.app.worker import RetryableError
from bot.core.check import check
from bot.core.model import Change, Finding, Report
from bot.core.packs import parse_repo_config
from bot.core.rules import REPO_CONFIG, Rule, RulePack, RulesError
from bot.render.comments import (
    CheckOutcome,
    Links,
    failed,
    files_cut_note,
    invalid_config,
    not_configured,
    over_cap_note,
    report_outcome,
    summary_comment,
    superseded,
)

log = logging.getLogger(__name__)

FACTS_CACHE_SIZE = 5000  # extracted facts and parsed pages kept in memory, by blob id


@dataclass(frozen=True)
class Pull:
    number: int
    head_sha: str
    base_sha: str
    base_ref: str | None


@dataclass(frozen=True)
class Deps:
    """What every job needs, built once per process."""

    settings: Settings
    queue: JobQueue
    metrics: Metrics
    app: GitHubApp
    facts: dict = field(default_factory=dict, compare=False)


def abandon(deps: Deps, job: Job, error: str) -> None:
    """Complete the check run a given-up job left in progress, as a failure that says why.

    A check job and a `/docs-sync` recheck record their run under the job id; a job that never
    started one, or whose run is already complete, needs no call.
    """
    key = str(job.id)
    if not check_run_started(deps.queue, key):
        return
    raw = deps.queue.kv_get("check-run", key)
    if raw is not None and CheckRun(**json.loads(raw)).done:
        return
    repo, installation = repo_for(deps, job.payload)
    with deps.app.session(installation):
        run = known_check_run(repo, deps.queue, key, job.delivery_id)  # one created unanswered too
        if run is None or run.done:
            return
        _finish_failed(deps, job, repo, run, error)
    log.info("job %s: check run %s completed as failed (%s)", job.id, run.id, error)


# ---------------------------------------------------------------------------------------------
# the check job


def repo_for(deps: Deps, payload: dict) -> tuple[Repo, int]:
    owner, name = payload["owner"], payload["repo"]
    installation = payload.get("installation_id") or deps.app.installation_id(owner, name)
    return deps.app.repo(installation, owner, name), installation


def run_check(deps: Deps, job: Job, pull: Pull | None = None) -> Report | None:
    """Check one pull request and publish the result; returns the report (None if not checked)."""
    repo, installation = repo_for(deps, job.payload)
    with deps.app.session(installation):
        if pull is None:
            pull = find_pull(repo, job.payload)  # no call when the payload names the pull request
            if pull is None:
                # A push with no open pull request (check suites come for every push): nothing to say.
                log.info("no open pull request has head %s; nothing to check", job.payload.get("head_sha"))
                return None
            if already_checked(deps.queue, job, repo, pull):
                log.info("job %s: %s was checked already; nothing new to say", job.id, pull.head_sha)
                return None
        started = check_run_started(deps.queue, str(job.id))
        run = start_check_run(repo, deps.queue, str(job.id), pull.head_sha, job.delivery_id)
        if run.done:
            log.info("check run %s of job %s is already complete", run.id, job.id)
            return None
        try:
            if started and newer_push(deps.queue, job, repo, pull):
                # A retry overtaken by a newer push (the queue made it due at once): close the
                # run its first attempt left in progress, without checking anything.
                _finish_superseded(deps, job, repo, pull, run)
                return None
            return _check_and_publish(deps, job, repo, pull, run)
        except RetryableError:
            raise  # the run stays in progress for the retry; the worker abandons the job if none comes
        except Exception as exc:
            _fail(deps, job, repo, run, exc)
            raise


# A push to a pull request brings both pull_request.synchronize and check_suite.requested; the
# queue folds them into one job only while the first is still queued. These automatic triggers
# skip a head commit that was already checked against the same base; a person asking (re-run
# button, check_run.rerequested, check_suite.rerequested, /docs-sync) always gets a new run.
AUTOMATIC_TRIGGERS = ("pull_request.", "check_suite.requested")


def already_checked(store: JobQueue, job: Job, repo: Repo, pull: Pull) -> bool:
    trigger = str(job.payload.get("trigger") or "")
    if not trigger.startswith(AUTOMATIC_TRIGGERS) or check_run_started(store, str(job.id)):
        return False  # asked for by a person, or a retry of a job that already started
    raw = store.kv_get("checked", f"{repo.full_name}@{pull.head_sha}")
    return raw is not None and json.loads(raw) == {"pr": pull.number, "base_sha": pull.base_sha}


def _mark_checked(store: JobQueue, repo: Repo, pull: Pull) -> None:
    value = {"pr": pull.number, "base_sha": pull.base_sha}
    store.kv_put("checked", f"{repo.full_name}@{pull.head_sha}", json.dumps(value))


def _finish(deps: Deps, job: Job, repo: Repo, run: CheckRun, outcome: CheckOutcome) -> None:
    finish_check_run(
        repo,
        deps.queue,
        str(job.id),
        run,
        conclusion=outcome.conclusion,
        title=outcome.title,
        summary=outcome.summary,
        notes=outcome.annotations,
    )


def _finish_failed(deps: Deps, job: Job, repo: Repo, run: CheckRun, error: BaseException | str) -> None:
    _finish(deps, job, repo, run, failed(error))


def _fail(deps: Deps, job: Job, repo: Repo, run: CheckRun, exc: BaseException) -> None:
    try:
        _finish_failed(deps, job, repo, run, exc)
    except Exception:  # GitHub is down too: the worker's log keeps the original error
        log.exception("could not mark check run %s as failed", run.id)


def _finish_superseded(deps: Deps, job: Job, repo: Repo, pull: Pull, run: CheckRun) -> None:
    log.info("job %s: a newer push replaces %s; publishing nothing", job.id, pull.head_sha)
    _finish(deps, job, repo, run, superseded(pull.head_sha))


def find_pull(repo: Repo, payload: dict) -> Pull | None:
    """The pull request a job is about, asking GitHub only for what the payload lacks."""
    number, head, base = payload.get("pr"), payload.get("head_sha"), payload.get("base_sha")
    if number is not None and head and base:
        return Pull(number, head, base, payload.get("base_ref"))
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


def pull_from_json(data: dict) -> Pull:
    return Pull(int(data["number"]), data["head"]["sha"], data["base"]["sha"], data["base"].get("ref"))


def _check_and_publish(deps: Deps, job: Job, repo: Repo, pull: Pull, run: CheckRun) -> Report | None:
    result = analyze(deps, repo, pull)
    if result.problem is not None:
        _finish(deps, job, repo, run, result.problem)
        _mark_checked(deps.queue, repo, pull)
        return None
    if result.moved or newer_push(deps.queue, job, repo, pull):
        _finish_superseded(deps, job, repo, pull, run)
        return None
    report = result.report
    assert report is not None and result.links is not None
    deps.metrics.findings(len(report.findings))
    notes = publish(deps, repo, pull, result)
    save_report(deps.queue, repo, pull, report, result.links)
    _finish(deps, job, repo, run, report_outcome(report, result.links, notes, _gone_at_head(result.files)))
    _mark_checked(deps.queue, repo, pull)
    return report


# ---------------------------------------------------------------------------------------------
# analysis


@dataclass(frozen=True)
class Analysis:
    report: Report | None = None
    problem: CheckOutcome | None = None  # the check run when the rules cannot be used
    revisions: PullRevisions | None = None
    files: tuple[dict, ...] = ()
    links: Links | None = None
    notes: tuple[str, ...] = ()
    moved: bool = False  # the pull request's head is no longer the commit this job checks


def _config_key(repo: Repo, pull: Pull) -> str:
    return f"{repo.full_name}@{pull.base_ref or pull.base_sha}"


def _rules(deps: Deps, oid: str | None) -> tuple[list[Rule] | None, RulesError | None]:
    """The rules of a config blob (oid None: no config), or why they cannot be used.

    (None, None) means not configured at all; an empty rule list is a config that checks nothing.
    """
    if oid is None:
        packs: Sequence[RulePack] = deps.settings.rule_packs
        if not packs:
            return None, None
    else:
        text = deps.queue.blob_get(oid)
        if text is None:
            return None, RulesError(REPO_CONFIG, None, "file", "not UTF-8 text")
        try:
            packs = parse_repo_config(text, REPO_CONFIG)
        except RulesError as exc:
            return None, exc
    return [rule for pack in packs for rule in pack.rules], None


def _config_problem(error: RulesError | None, pull: Pull) -> CheckOutcome:
    return not_configured() if error is None else invalid_config(error, pull.base_ref, pull.base_sha)


def analyze(deps: Deps, repo: Repo, pull: Pull) -> Analysis:
    """Fetch what the rules need and run the check; no GitHub writes."""
    store = deps.queue
    reader = BlobReader(repo, store)
    config_at = (pull.base_sha, REPO_CONFIG)
    key = _config_key(repo, pull)
    cached = store.kv_get("config", key)
    oid = json.loads(cached)["oid"] if cached else None
    rules, error = _rules(deps, oid)
    if cached is None or rules is None:
        # Nothing known, or the known config is unusable: look at the base commit before
        # telling anyone the repository is misconfigured (usually a cached read, no call).
        oid = _config_oid(reader.fetch([config_at])[config_at])
        store.kv_put("config", key, json.dumps({"oid": oid}))
        rules, error = _rules(deps, oid)
        if rules is None:
            return Analysis(problem=_config_problem(error, pull))

    files = repo.pull_files(pull.number)
    if listed_head(files) not in (None, pull.head_sha):
        # Pushed again, even if that delivery has not arrived: the file list (and its patches)
        # belongs to the newer head, and this job's result would be thrown away.
        return Analysis(moved=True)
    changes = changes_from_files(files)
    revisions = PullRevisions(
        reader, pull.base_sha, pull.head_sha, changes, head_oids(files), base_patches(files)
    )
    # The config is fetched again with the blobs, so a config changed on the base branch is
    # noticed in the same query; only then are the rules (and perhaps their blobs) redone.
    seen = _config_oid(revisions.prefetch(_watched(rules, changes), extra=[config_at])[config_at])
    if seen != oid:
        store.kv_put("config", key, json.dumps({"oid": seen}))
        rules, error = _rules(deps, seen)
        if rules is None:
            return Analysis(problem=_config_problem(error, pull))
        revisions.prefetch(_watched(rules, changes))

    report = check(rules, revisions.base, revisions.head, changes, deps.facts)
    report = apply_waivers(report, load_waivers(store, _pr_key(repo, pull.number)))
    notes = []
    if len(files) >= MAX_FILE_PAGES * PER_PAGE:
        notes.append(files_cut_note(len(files)))
    links = Links(repo_html_url(files, repo, deps.settings.github_api_url), pull.head_sha)
    return Analysis(report, None, revisions, tuple(files), links, tuple(notes))


def _config_oid(blob) -> str | None:
    return blob.oid if blob is not None else None


def _watched(rules: Iterable[Rule], changes: Sequence[Change]) -> set[str]:
    """The files the check will read: those of every rule the change touches."""
    changed = {c.path for c in changes} | {c.old_path for c in changes if c.old_path}
    moved = any(c.status in ("renamed", "removed") for c in changes)
    paths: set[str] = set()
    for rule in rules:
        watched = rule.watched_paths()
        if watched & changed or (moved and any(s.kind == "paths" for s in rule.sources)):
            paths |= watched
    return paths


def _gone_at_head(files: Sequence[dict]) -> set[str]:
    """Paths the pull request removed or renamed away: the head commit has nothing there."""
    gone = {str(f.get("filename")) for f in files if f.get("status") == "removed"}
    gone |= {str(f["previous_filename"]) for f in files if f.get("previous_filename")}
    return gone - {str(f.get("filename")) for f in files if f.get("status") != "removed"}


def listed_head(files: Sequence[dict]) -> str | None:
    """The commit GitHub listed the files at (from its file links): the pull request's head *now*."""
    for f in files:
        url = f.get("blob_url")
        if isinstance(url, str) and "/blob/" in url:
            return url.split("/blob/", 1)[1].split("/", 1)[0]
    return None


def repo_html_url(files: Sequence[dict], repo: Repo, api_url: str) -> str:
    """The repository's web address: from GitHub's own file links, else from the API address."""
    for f in files:
        url = f.get("blob_url")
        if isinstance(url, str) and "/blob/" in url:
            return url.split("/blob/", 1)[0]
    parts = urlsplit(api_url)
    host = parts.netloc.removeprefix("api.")
    root = parts.path.removesuffix("/").removesuffix("/api/v3")
    return f"{parts.scheme}://{host}{root}/{repo.full_name}"


# ---------------------------------------------------------------------------------------------
# waivers and the stored report


def _pr_key(repo: Repo, number: int) -> str:
    return f"{repo.full_name}#{number}"


def load_waivers(store: JobQueue, pr_key: str) -> list[dict]:
    raw = store.kv_get("waivers", pr_key)
    return json.loads(raw) if raw else []


def add_waiver(store: JobQueue, pr_key: str, symbol: str, reason: str, user: str) -> None:
    waivers = [w for w in load_waivers(store, pr_key) if w["symbol"] != symbol]
    waivers.append({"symbol": symbol, "reason": reason, "user": user})
    store.kv_put("waivers", pr_key, json.dumps(waivers))


def _waiver_for(f: Finding, by_symbol: dict[str, dict]) -> dict | None:
    # "--fsdp-cpu-backend gloo" is waived by its flag too: commands take one word as the symbol.
    return by_symbol.get(f.symbol) or by_symbol.get(f.symbol.split(" ", 1)[0])


def apply_waivers(report: Report, waivers: Sequence[dict]) -> Report:
    """Move findings whose symbol was ignored into `report.ignored`, with the reason and who said so."""
    if not waivers:
        return report
    by_symbol = {w["symbol"]: w for w in waivers}
    kept: list[Finding] = []
    ignored = list(report.ignored)
    for f in report.findings:
        w = _waiver_for(f, by_symbol)
        if w is None:
            kept.append(f)
        else:
            ignored.append((f, f"{w.get('reason') or 'no reason given'} (@{w.get('user')})"))
    return replace(report, findings=tuple(kept), ignored=tuple(ignored))


def save_report(store: JobQueue, repo: Repo, pull: Pull, report: Report, links: Links) -> None:
    data = {
        "head_sha": pull.head_sha,
        "html_url": links.html_url,
        "findings": [finding_json(f) for f in report.findings],
        "ignored": [{**finding_json(f), "reason": reason} for f, reason in report.ignored],
    }
    store.kv_put("report", _pr_key(repo, pull.number), json.dumps(data))


def finding_json(f: Finding) -> dict:
    return {
        "rule": f.rule,
        "kind": f.kind,
        "severity": f.severity,
        "symbol": f.symbol,
        "message": f.message,
        "why": f.why,
        "doc": {"path": f.doc.path, "line": f.doc.line, "section": f.doc.section} if f.doc else None,
        "code": {"path": f.code.path, "line": f.code.line} if f.code else None,
    }


# ---------------------------------------------------------------------------------------------
# publishing


def publish(deps: Deps, repo: Repo, pull: Pull, result: Analysis) -> list[str]:
    """The review, the "fixed" edits and the summary comment (the check run comes after).

    Returns the notes for the summaries (what was skipped, what is not commented inline).
    """
    report, links, revisions = result.report, result.links, result.revisions
    assert report is not None and links is not None and revisions is not None
    store, key = deps.queue, _pr_key(repo, pull.number)
    state = PullState.load(store, key)
    recover_review(repo, store, key, state, pull.number)
    current = {f.fingerprint() for f in report.findings} | {f.fingerprint() for f, _ in report.ignored}
    diff = {f["filename"]: right_lines(f.get("patch")) for f in result.files if "filename" in f}
    # The cap is on the pull request, not the run: comments still open count against it.
    room = MAX_INLINE - len(state.open_fingerprints() & current)
    inline, over = plan_inline(
        report, diff, revisions.head.read, links, skip=state.open_fingerprints(), limit=max(0, room)
    )
    post_review(repo, store, key, state, pull.number, pull.head_sha, inline)
    mark_fixed(repo, store, key, state, pull.number, pull.head_sha, current)
    notes = list(result.notes)
    if over:
        notes.append(over_cap_note(over, MAX_INLINE))
    body = summary_comment(report, links, notes)
    upsert_summary(repo, store, key, state, pull.number, body, wanted=bool(report.findings or report.ignored))
    return notes


# ---------------------------------------------------------------------------------------------
# supersede


def newer_push(queue: JobQueue, job: Job, repo: Repo, pull: Pull) -> bool:
    """Is a check of another head commit of this pull request queued, running or done after `job`?

    Asked of the queue: no GitHub call, and it sees deliveries that arrived while this job ran.
    A fork's check suite is keyed by its head SHA, but the push after it comes as a
    pull_request delivery, keyed by the pull request: that key is the one to look under.
    """
    return queue.has_newer(_pr_key(repo, pull.number), job.id, "check", head_sha=pull.head_sha)
