"""What the command line keeps between runs: the facts cache (`~/.cache/docs-sync`, or
`$DOCS_SYNC_CACHE`) and the keys of what it holds besides facts: parsed rules, by the text of
every file they could come from, and the reports of checks and audits, by their rules, commits
and other projects. Every key holds a digest of docs-sync's own code, so an entry another
version made is never read back.
"""

from __future__ import annotations

import atexit
import functools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.core.model import Report, Tree
    from bot.trees.factcache import FactsCache

# Bumped whenever the rule dataclasses gain a field, so a cached pack never comes back without it.
RULES_FORMAT = 2


def rules_key(values: Sequence[str] | None, repo_config: str | None) -> str | None:
    """The key of the packs `--rules` names (else the repository's config): the text of every
    file they could come from; None when one cannot be read."""
    import hashlib

    from bot.core.packfiles import builtin_pack_names, builtin_pack_path

    digest = hashlib.sha1(repr((RULES_FORMAT, code_digest(), values, repo_config)).encode())
    try:
        for name in builtin_pack_names():
            digest.update(name.encode() + b"\0" + builtin_pack_path(name).read_bytes())
        for value in values or ():
            if os.path.isfile(value):
                with open(value, "rb") as f:
                    digest.update(os.path.abspath(value).encode() + b"\0" + f.read())
    except OSError:
        return None
    return f"rules:{digest.hexdigest()}"


def report_key(
    what: str, rules_key: str, commits: Sequence[str], history: bool, others: Sequence[Tree] = ()
) -> str:
    """A report depends on the rules (`rules_key`: the text of every file they come from, and
    docs-sync's code), the commits checked (their files, and their history when it is read) and
    the files of the rules' other projects, and on nothing else: commits do not change, so a
    check or an audit made before with all of these the same is not made again."""
    import hashlib

    digest = hashlib.sha1(f"{rules_key} {what} {' '.join(commits)} history={history}".encode())
    for each in others:
        for path in sorted(each.paths()):
            digest.update(f"{path}\0{each.blob_id(path)}\n".encode())
        digest.update(b"\0")
    return f"{what}:{digest.hexdigest()}"


@functools.cache
def code_digest() -> str:
    """docs-sync's own code: a cached result made by other code is never used. All of it, not
    only the analysis: how the command line reads git and composes a check decides a report too."""
    import bot
    from bot.trees.factcache import code_digest

    return code_digest(os.path.dirname(bot.__file__))


def open_cache(disabled: bool) -> FactsCache | None:
    if disabled:
        return None
    import sqlite3

    from bot.trees.factcache import FactsCache

    try:
        cache = FactsCache(namespace=code_digest())
    except (OSError, sqlite3.Error):
        return None  # a read-only home directory, or a damaged cache file, only costs speed
    atexit.register(cache.close)  # before `run`'s quick exit, which skips the finalizers
    return cache


def kept_report(cache: FactsCache | None, key: str | None) -> Report | None:
    """The report kept under `key`, if any."""
    from bot.core.model import Report

    hit = cache.get(key) if cache is not None and key is not None else None
    return hit if isinstance(hit, Report) else None
