"""The files of the rules' `others` for a pull request's check, through the API (the command
line's are fetched with git: bot/trees/others.py; bot/core/check/others.py says what they
declare).

A sister repository is public: the job's installation token reads it. Its tree at the ref
(`GET git/trees/{ref}?recursive=1`, one call), the files its `paths` match (at most 400, 1 MB
each, 16 MB in all, from the sizes the tree lists) in the GraphQL query the pull request's own
files come in (snapshot.BlobReader), counted against the job's read budget. What was chosen is
kept in the store by (repo, ref, paths) and the texts by blob id, so the next pull request reads
them with no call. An installed distribution (`package`) is the command line's alone: the App
installs nothing, and says so. One that cannot be read is a `config` finding naming it, on
its line, and the rest is checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.app.github.client import GitHubError
from bot.app.github.context import Context
from bot.app.jobs.snapshot import BlobReader, ReadLimit
from bot.core.check.touched import Touched, touches
from bot.core.globs import rule_has_patterns
from bot.core.model import Change, Finding, Tree
from bot.core.rules import Other, Rule
from bot.core.validate import unread_other
from bot.trees.memory import MemoryTree
from bot.trees.others import Unreadable, choose, within


def read_others(
    ctx: Context, reader: BlobReader, rules: Iterable[Rule], changes: Sequence[Change]
) -> tuple[dict[Other, Tree], list[Finding]]:
    """The files of the others of the rules the change may check (those it touches, and those
    with globs), each read once, and a `config` finding on each rule naming one not read."""
    touched = Touched.of(changes)
    trees: dict[Other, Tree] = {}
    why: dict[Other, str] = {}
    found: list[Finding] = []
    for rule in rules:
        if not rule.others or not (rule_has_patterns(rule) or touches(rule, touched)):
            continue
        for other in rule.others:
            if other not in trees and other not in why:
                try:
                    trees[other] = _read(ctx, reader, other)
                except Unreadable as exc:
                    why[other] = str(exc)
            if other in why:
                found.append(unread_other(rule, other, why[other]))
    return trees, found


def _read(ctx: Context, reader: BlobReader, other: Other) -> MemoryTree:
    if other.repo is None or other.ref is None:
        raise Unreadable("an installed package is read by the command line; the App installs none")
    key = f"others:{other.repo}@{other.ref}:{chr(0).join(other.paths)}"
    chosen = ctx.store.history(ctx.repo.full_name, key)
    if isinstance(chosen, list):
        texts = {str(path): ctx.store.blob_text(str(oid)) for path, oid in chosen}
        if all(text is not None for text in texts.values()):
            return MemoryTree({path: text for path, text in texts.items() if text is not None})
    owner, name = other.repo.split("/", 1)
    repo = ctx.repo.public(owner, name)
    limit = reader.limit
    left = None if limit is None else ReadLimit(limit.bytes - reader.fetched, limit.queries - reader.queries)
    theirs = BlobReader(repo, ctx.store, left)
    try:
        entries, cut = theirs.tree(other.ref)
        if cut:
            raise Unreadable(f"the tree of {other.name} is too large for GitHub to list whole")
        listed = {str(e["path"]): e for e in entries if e.get("mode") in ("100644", "100755")}
        picked = choose([(path, str(e.get("sha"))) for path, e in listed.items()], other.paths, other.name)
        sizes = {str(e.get("sha")): int(e.get("size") or 0) for e in listed.values()}
        picked = within(picked, sizes, other.name)
        blobs = theirs.fetch([(other.ref, path) for path, _ in picked])
    except GitHubError as exc:
        raise Unreadable(f"GitHub answered {exc.status}" if exc.status else str(exc)) from None
    finally:
        reader.fetched += theirs.fetched  # the job's budget counts every file it reads
        reader.queries += theirs.queries
    files = {path: blob.text for (_, path), blob in blobs.items() if blob is not None}
    ctx.store.save_history(ctx.repo.full_name, key, [[path, oid] for path, oid in picked])
    return MemoryTree(files)
