"""Which rules judge a pull request: `.github/docs-sync.yml` at the base commit, else the App's
DOCS_SYNC_RULES, else none (a neutral "not configured" run).

The config is read from the base branch, never from the pull request, so a pull request cannot
change what it is judged by. Its blob id is remembered per base branch (`Store.config`) and its
text in the blob store, so a known config costs no call: the analysis fetches the config again
with the pull request's files, in the same query, and only a config changed since is parsed
again (`seen_again`).

A config that names a page, source, glob or section the pull request's revisions lack fails
the check on its line (`unmatched_problem`), except a file an earlier change deleted: that
entry is a `config` finding in the check run and the rest is checked (`stale`), as the command
line does. A pull request that edits the config is still
checked with the base branch's, and gets the new one validated against its head in a note
(`edited_config`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from bot.app.github.client import GitHubError
from bot.app.github.context import Context, Pull
from bot.app.jobs.sandbox import Sandbox
from bot.app.jobs.snapshot import Blob, BlobReader, PullRevisions, Where
from bot.core.check.touched import Touched, touches
from bot.core.globs import compile_pattern, expand_all, is_pattern, rule_has_patterns
from bot.core.model import Change, Finding, Tree
from bot.core.packfiles import REPO_CONFIG, config_text
from bot.core.packs import parse_repo_config
from bot.core.rules import Rule, RulePack, RulesError
from bot.render.comments import CheckOutcome, invalid_config, not_configured
from bot.render.confignote import config_invalid, config_removed, config_valid


@dataclass(frozen=True)
class Rules:
    """The rules a config gives, or why there are none.

    `rules` None with no `error`: not configured at all; an empty tuple is a config that checks
    nothing.
    """

    oid: str | None  # the config blob they come from (None: the base branch has no config)
    rules: tuple[Rule, ...] | None
    error: RulesError | None = None

    @property
    def digest(self) -> str:
        """The rules in a word, for telling whether a head was checked under these: the config
        blob they come from (the base commit's), else a hash of the App's own, else "none"."""
        if self.oid is not None:
            return f"config:{self.oid}"
        if self.rules is None:
            return "none"
        return "app:" + hashlib.sha256(repr(self.rules).encode()).hexdigest()[:16]

    def problem(self, pull: Pull) -> CheckOutcome | None:
        """The check run to finish with when there are no rules to check with, else None."""
        if self.rules is not None:
            return None
        if self.error is None:
            return not_configured()
        return invalid_config(self.error, pull.base_ref, pull.base_sha)


def config_at(pull: Pull) -> Where:
    """Where the config is read: the base commit (the base branch's tip when the job was queued)."""
    return (pull.base_sha, REPO_CONFIG)


def rules_of(ctx: Context, oid: str | None) -> Rules:
    """The rules of the config blob `oid` (None: the branch has no config, so the App's own)."""
    if oid is None:
        packs: Sequence[RulePack] = ctx.settings.rule_packs
        if not packs:
            return Rules(None, None)
    else:
        text = ctx.store.blob_text(oid)  # kept only when the blob is UTF-8
        try:
            if text is None:  # its bytes say where it is not, as the command line does
                text = config_text(ctx.repo.blob_bytes(oid), REPO_CONFIG)
            packs = parse_repo_config(text, REPO_CONFIG)
        except RulesError as exc:
            return Rules(oid, None, exc)
    return Rules(oid, tuple(rule for pack in packs for rule in pack.rules))


def known_rules(ctx: Context, reader: BlobReader) -> Rules:
    """The rules of the config last seen on the pull request's base branch.

    When none was seen, or the one seen cannot be used, the base commit is read before anyone is
    told the repository is misconfigured (usually a cached read, no call).
    """
    repo, ref = ctx.repo.full_name, _ref(ctx.pull)
    seen = ctx.store.config(repo, ref)
    rules = rules_of(ctx, seen.oid if seen is not None else None)
    if seen is None or rules.rules is None:
        at = config_at(ctx.pull)
        oid = _oid(reader.fetch([at])[at])
        ctx.store.save_config(repo, ref, oid)
        rules = rules_of(ctx, oid)
    return rules


def seen_again(ctx: Context, rules: Rules, blob: Blob | None) -> Rules:
    """`rules`, when `blob` (the config fetched again with the files) is the config they came
    from; else the rules of the config the base branch has now."""
    oid = _oid(blob)
    if oid == rules.oid:
        return rules
    ctx.store.save_config(ctx.repo.full_name, _ref(ctx.pull), oid)
    return rules_of(ctx, oid)


# Paths asked of the history in one job, each one call: a config that lost more files than this
# at once is held to the strict reading for the rest (an error on their lines, never a pass).
MAX_STALE_ASKS = 10


def stale(
    ctx: Context, rules: Rules, base: Tree, head: Tree, changes: Sequence[Change]
) -> tuple[Rules, tuple[Finding, ...]]:
    """`rules` without the files they list that neither revision has but the base's history
    had (deleted by an earlier pull request, not misspelt), and a `config` finding on each such
    entry (bot.core.validate.stale_entries). Asked of the rules `unmatched_problem` judges; a
    path matching nothing costs one call (`GET commits?sha=&path=`), its answer kept."""
    if rules.oid is None or not rules.rules:
        return rules, ()
    from bot.core.validate import stale_entries

    touched = Touched.of(changes)
    wanted = [r for r in rules.rules if rule_has_patterns(r) or touches(r, touched)]
    existed = _History(ctx, base, head)
    if not stale_entries(wanted, base, head, touched.renames, existed)[1]:
        return rules, ()  # the usual case: every entry matches
    rest: list[Rule] = []
    found: list[Finding] = []
    for rule in rules.rules:  # one by one, to know which rule each is left of (ids may repeat)
        if rule not in wanted:
            rest.append(rule)
            continue
        kept, said = stale_entries([rule], base, head, touched.renames, existed)
        rest.extend(kept)
        found.extend(said)
    return replace(rules, rules=tuple(rest)), tuple(found)


class _History:
    """Did a commit up to the pull request's base hold this path? A glob's answer is its fixed
    folder's (`scripts/*.py`: `scripts`), and only when neither revision has that folder: the
    API's history takes no pattern, and a folder still there with nothing matching is a typo."""

    def __init__(self, ctx: Context, base: Tree, head: Tree):
        self.ctx, self.base, self.head = ctx, base, head
        self.asks = MAX_STALE_ASKS

    def __call__(self, path: str) -> bool:
        if is_pattern(path):
            fixed = compile_pattern(path).prefix.rpartition("/")[0]
            if not fixed or self.base.exists(fixed) or self.head.exists(fixed):
                return False
            path = fixed
        repo, sha = self.ctx.repo, self.ctx.pull.base_sha
        key = f"ever:{sha}:{path}"
        known = self.ctx.store.history(repo.full_name, key)
        if isinstance(known, bool):
            return known
        if self.asks <= 0:
            return False
        self.asks -= 1
        try:
            had = bool(repo.commits(sha, path, 1))
        except GitHubError:
            return False  # refused: the entry stays an error on its line
        self.ctx.store.save_history(repo.full_name, key, had)
        return had


def unmatched_problem(
    ctx: Context, rules: Rules, box: Sandbox, changes: Sequence[Change]
) -> CheckOutcome | None:
    """The check run to finish with when the repository's config names a page, source, glob or
    section that matches nothing at base or head: a rule that reads nothing would pass silently.

    Asked of the rules with a glob (the check lists the trees for them anyway) and of the rules
    the change touches (their files are fetched already), so a clean config costs no call. The
    App's own default rules (DOCS_SYNC_RULES) are for many repositories and are not held to it.
    Asked in the job's analysis process (`box`): what it reads is the pull request's.
    """
    if rules.oid is None or not rules.rules:
        return None
    touched = Touched.of(changes)
    wanted = [r for r in rules.rules if rule_has_patterns(r) or touches(r, touched)]
    problems = box.validate(wanted, touched.renames)
    if not problems:
        return None
    return invalid_config(problems[0], ctx.pull.base_ref, ctx.pull.base_sha)


def edited_config(
    ctx: Context, revisions: PullRevisions, box: Sandbox, changes: Sequence[Change]
) -> str | None:
    """The note on the config a pull request edits (None when it does not): the new file's
    schema, and whether everything it names matches the pull request's head. The schema is read
    here (bounded: its size, nesting and patterns are capped); the matching runs in the job's
    analysis process (`box`), within its budgets, since the pull request wrote both the
    patterns and the files. Its examples are left to `docs-sync validate`: they are checks of
    their own."""
    edit = next((c for c in changes if REPO_CONFIG in (c.path, c.old_path)), None)
    if edit is None:
        return None
    if edit.path != REPO_CONFIG or edit.status == "removed":
        return config_removed(fallback=bool(ctx.settings.rule_packs))
    text = revisions.head.read(REPO_CONFIG)
    if text is None:
        return config_invalid([RulesError(REPO_CONFIG, None, "file", "not UTF-8 text")])
    try:
        packs = parse_repo_config(text, REPO_CONFIG)
    except RulesError as exc:
        return config_invalid([exc])
    rules = [rule for pack in packs for rule in pack.rules]
    problems = box.validate(rules, {}, head_only=True)
    if problems:
        return config_invalid(problems)
    return config_valid(len(rules), sum(len(r.examples) for r in rules))


def watched(rules: Iterable[Rule], changes: Sequence[Change], base: Tree, head: Tree) -> set[str]:
    """The files the check will read: those of every rule the change touches. A rule's globs
    are matched against the trees first (as the check matches them), so the files they name
    are fetched with the rest rather than one query each."""
    touched = Touched.of(changes)
    concrete = list(rules)
    if any(rule_has_patterns(r) for r in concrete):
        concrete = expand_all(concrete, base, head, touched.renames)
    return {path for rule in concrete if touches(rule, touched) for path in rule.watched_paths()}


def _ref(pull: Pull) -> str:
    return pull.base_ref or pull.base_sha


def _oid(blob: Blob | None) -> str | None:
    return blob.oid if blob is not None else None
