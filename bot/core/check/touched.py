"""The files a change touched, and whether a rule cares: asked of every rule before anything of
it is read, so a change that touches no rule's files loads none of the checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.core.model import Change
from bot.core.rules import Rule


@dataclass(frozen=True)
class Touched:
    """The files a change touched, as the check asks about them."""

    renames: Mapping[str, str]  # old path -> new path
    removed: frozenset[str]
    paths: frozenset[str]  # every path the change names, the old names of renames included

    @classmethod
    def of(cls, changes: Sequence[Change]) -> Touched:
        renames = {c.old_path: c.path for c in changes if c.status == "renamed" and c.old_path}
        return cls(
            renames=renames,
            removed=frozenset(c.path for c in changes if c.status == "removed"),
            paths=frozenset(c.path for c in changes) | frozenset(renames),
        )

    def head_path(self, path: str) -> str:
        return self.renames.get(path, path)


def cites_paths(rule: Rule) -> bool:
    """Does the rule check the repository paths its pages cite?"""
    return any(s.kind == "paths" for s in rule.sources)


def touches(rule: Rule, touched: Touched) -> bool:
    if rule.watched_paths() & touched.paths:
        return True
    # A rule that checks cited paths cares about any file moved or deleted.
    return cites_paths(rule) and bool(touched.renames or touched.removed)
