"""What a pull request's check finds, before anything is written to GitHub.

    the rules (repoconfig.py) -> the file list (past GitHub's 3,000 files: completed from the
    trees of the merge base and the head) -> the blobs those rules read at head, in one
    GraphQL query with the config; their base side is the merge base, as in GitHub's diff,
    derived from the file list's patches (snapshot.py) -> `bot.core.check.check` (asking the
    head's history, history.py, what replaced a token the docs cite and head lacks; handed
    the files of the rules' sister projects, others.py) -> the pull request's `/docs-sync
    ignore` waivers

The only calls are reads: the file list and the GraphQL query (one more for the config the
first time a base branch is seen, and a compare call when GitHub left a watched file's patch
out; a compare call and two trees for a pull request of 3,000 files or more; a tree and a
query for a rule's sister project the first time its ref is seen). A change too
large for the trees API as well fails the check saying so: files left unchecked never pass.
A token the docs cite that head lacks costs a few reads of the head's history (history.py:
commits of the rule's sources, each commit once, at most 40 calls), kept in the store.
`/docs-sync explain` runs it too, before any check has published.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from bot.app.github.client import MAX_FILE_PAGES, PER_PAGE
from bot.app.github.context import Context
from bot.app.github.shapes import ChangedFile
from bot.app.jobs.history import ApiHistory
from bot.app.jobs.others import read_others
from bot.app.jobs.repoconfig import (
    config_at,
    edited_config,
    known_rules,
    seen_again,
    stale,
    unmatched_problem,
    watched,
)
from bot.app.jobs.sandbox import BudgetExceeded, Sandbox
from bot.app.jobs.snapshot import (
    BlobReader,
    PullRevisions,
    ReadLimit,
    base_patches,
    changes_from_files,
    head_oids,
    unlisted,
)
from bot.app.queue.store import Waiver
from bot.core.model import Finding, Report
from bot.render.comments import CheckOutcome, Links, failed, files_cut_note

MAX_LISTED_FILES = MAX_FILE_PAGES * PER_PAGE  # GitHub lists no more of a pull request's files


@dataclass(frozen=True)
class Analysis:
    report: Report | None = None
    problem: CheckOutcome | None = None  # the check run, when the rules cannot be used
    revisions: PullRevisions | None = None
    files: tuple[ChangedFile, ...] = ()  # GitHub's file list of the pull request
    links: Links | None = None
    notes: tuple[str, ...] = ()  # for the summaries: what was not checked
    moved: bool = False  # the pull request's head is no longer the commit this job checks
    config: bool = False  # a note on the config the pull request edits: worth a summary comment
    rules: str | None = None  # the digest of the rules it was checked under (repoconfig.Rules)


def analyze(ctx: Context) -> Analysis:
    """Fetch what the rules need and run the check on `ctx.pull`; no GitHub writes. Past a
    budget (the reads' here, the analysis's in the sandbox), the check run names it."""
    reader = BlobReader(ctx.repo, ctx.store, ReadLimit.of(ctx.settings.budget))
    try:
        return _analyze(ctx, reader)
    except BudgetExceeded as exc:
        return Analysis(problem=exc.outcome)


def _analyze(ctx: Context, reader: BlobReader) -> Analysis:
    pull = ctx.pull
    rules = known_rules(ctx, reader)
    if rules.rules is None:
        return Analysis(problem=rules.problem(pull), rules=rules.digest)

    files = ctx.repo.pull_files(pull.number)
    if listed_head(files) not in (None, pull.head_sha):
        # Pushed again, even if that delivery has not arrived: the file list (and its patches)
        # belongs to the newer head, and this job's result would be thrown away.
        return Analysis(moved=True)
    if len(files) >= MAX_LISTED_FILES:
        rest = _unlisted_files(reader, files, pull.base_sha, pull.head_sha)
        if rest is None:
            return Analysis(problem=failed(_too_large(len(files))), rules=rules.digest)
        files = [*files, *rest]
    changes = changes_from_files(files)
    revisions = PullRevisions(
        reader, pull.base_sha, pull.head_sha, changes, head_oids(files), base_patches(files)
    )
    # The config is fetched again with the blobs, so a config changed on the base branch is
    # noticed in the same query; only then are the rules (and perhaps their blobs) redone.
    at = config_at(pull)
    again = seen_again(
        ctx,
        rules,
        revisions.prefetch(watched(rules.rules, changes, revisions.base, revisions.head), extra=[at])[at],
    )
    if again.rules is None:  # the config changed on the base branch and cannot be used
        return Analysis(problem=again.problem(pull), rules=again.digest)
    if again is not rules:
        revisions.prefetch(watched(again.rules, changes, revisions.base, revisions.head))

    # A file the config lists that an earlier change deleted: a finding on its entry, the rest checked.
    again, gone = stale(ctx, again, revisions.base, revisions.head, changes)
    assert again.rules is not None  # `stale` keeps rules as rules
    others, unread = read_others(ctx, reader, again.rules, changes)  # the rules' sister projects
    history = ApiHistory(ctx.repo, reader, pull.head_sha)  # what replaced a stale token
    budget = ctx.settings.budget
    try:  # in a process of its own, within the App's budgets (sandbox.py)
        with Sandbox(revisions.base, revisions.head, ctx.facts, budget, history, revisions.prefetch) as box:
            problem = unmatched_problem(ctx, again, box, changes)
            if problem is not None:  # the config names what the repository lacks: said on its line
                return Analysis(problem=problem, rules=again.digest)
            config = edited_config(ctx, revisions, box, changes)  # when the pull request edits it
            report = box.check(again.rules, changes, others)
        report = replace(report, findings=(*gone, *unread, *report.findings))
    except BudgetExceeded as exc:
        return Analysis(problem=exc.outcome, rules=again.digest)
    report = apply_waivers(report, ctx.store.waivers(ctx.pr))
    links = Links(repo_html_url(files, ctx.repo.full_name, ctx.settings.github_api_url), pull.head_sha)
    notes = (config,) if config is not None else ()
    return Analysis(
        report, None, revisions, tuple(files), links, notes, config=config is not None, rules=again.digest
    )


def _unlisted_files(
    reader: BlobReader, files: list[ChangedFile], base_sha: str, head_sha: str
) -> list[ChangedFile] | None:
    """What GitHub's file list left out, from the trees of the merge base and the head; None when
    a tree is too large for GitHub to list whole."""
    base_tree, base_cut = reader.tree(reader.merge_base(base_sha, head_sha))
    head_tree, head_cut = reader.tree(head_sha)
    if base_cut or head_cut:
        return None
    return unlisted(files, base_tree, head_tree)


def _too_large(listed: int) -> str:
    return (
        f"{files_cut_note(listed)} The rest of the change could not be found another way either: "
        "the commits' trees are too large for GitHub to list whole."
    )


def _waiver_for(f: Finding, by_symbol: dict[str, Waiver]) -> Waiver | None:
    # "--fsdp-cpu-backend gloo" is waived by its flag too: commands take one word as the symbol.
    return by_symbol.get(f.symbol) or by_symbol.get(f.symbol.split(" ", 1)[0])


def apply_waivers(report: Report, waivers: Sequence[Waiver]) -> Report:
    """Move findings whose symbol was ignored into `report.ignored`, with the reason and who said so."""
    if not waivers:
        return report
    by_symbol = {w.symbol: w for w in waivers}
    kept: list[Finding] = []
    ignored = list(report.ignored)
    for f in report.findings:
        w = _waiver_for(f, by_symbol)
        if w is None:
            kept.append(f)
        else:
            ignored.append((f, f"{w.reason or 'no reason given'} (@{w.user})"))
    return replace(report, findings=tuple(kept), ignored=tuple(ignored))


def gone_at_head(files: Sequence[ChangedFile]) -> set[str]:
    """Paths the pull request removed or renamed away: the head commit has nothing there."""
    gone = {str(f.get("filename")) for f in files if f.get("status") == "removed"}
    gone |= {str(f["previous_filename"]) for f in files if f.get("previous_filename")}
    return gone - {str(f.get("filename")) for f in files if f.get("status") != "removed"}


def listed_head(files: Sequence[ChangedFile]) -> str | None:
    """The commit GitHub listed the files at (from its file links): the pull request's head *now*."""
    for f in files:
        url = f.get("blob_url")
        if isinstance(url, str) and "/blob/" in url:
            return url.split("/blob/", 1)[1].split("/", 1)[0]
    return None


def repo_html_url(files: Sequence[ChangedFile], full_name: str, api_url: str) -> str:
    """The repository's web address: from GitHub's own file links, else from the API address."""
    for f in files:
        url = f.get("blob_url")
        if isinstance(url, str) and "/blob/" in url:
            return url.split("/blob/", 1)[0]
    parts = urlsplit(api_url)
    host = parts.netloc.removeprefix("api.")
    root = parts.path.removesuffix("/").removesuffix("/api/v3")
    return f"{parts.scheme}://{host}{root}/{full_name}"
