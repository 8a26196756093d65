"""What became of each fact of the base revision at head: removed, renamed, or changed in meaning.

A fact whose token is gone is renamed when a new fact takes its place: a flag with the same
destination and polarity, a close name in the same set or module, the one new method of a class
that lost one. Otherwise it is removed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.core.check.near import closest
from bot.core.doclines import normalize_default
from bot.core.facts import Facts
from bot.core.model import Fact

# Attributes of a flag whose change alters what a doc line means.
MEANING_ATTRS = ("default", "choices", "sets", "type")


@dataclass(frozen=True)
class Delta:
    """What happened to one fact the base revision had."""

    kind: Literal["removed", "renamed", "changed"]
    old: Fact
    new: Fact | None  # the successor (renamed) or the same fact at head (changed)
    attr: str | None = None  # changed: which of MEANING_ATTRS
    old_value: str | None = None
    new_value: str | None = None


# Base token -> what became of the facts it named; unchanged tokens are absent.
Deltas = Mapping[str, Sequence[Delta]]


def deltas(base: Facts, head: Facts) -> Deltas:
    """For each token the base had: what became of it at head (nothing, if unchanged)."""
    out: dict[str, list[Delta]] = defaultdict(list)
    if head.errors and not head.facts:
        return out  # an unparsable head is reported as such, not as every fact removed
    new_tokens = set(head.by_token) - set(base.by_token)
    for token, olds in base.by_token.items():
        old = olds[0]
        news = [f for f in head.by_token.get(token, ()) if f.kind == old.kind]
        if news:
            if old.kind == "flag":
                # The same flag in two command lines is two facts: each is compared with its own.
                changes = [d for one in _one_per_file(olds) for d in _changes(one, _same_program(one, news))]
                if changes:
                    out[token] = changes
            continue
        if any(e.path == old.path for e in head.errors):
            continue  # the file does not parse at head; that is the finding
        new = successor(old, base, head, new_tokens)
        out[token].append(Delta("renamed" if new else "removed", old, new))
    return out


def _one_per_file(facts: Sequence[Fact]) -> list[Fact]:
    firsts: dict[str, Fact] = {}
    for f in facts:
        if f.kind == "flag":
            firsts.setdefault(f.path, f)
    return list(firsts.values())


def _same_program(old: Fact, news: Sequence[Fact]) -> Fact:
    """The head fact of `old`'s token that stands for it: in the same file, else in a program
    that takes `old`, else the first."""
    same_file = [f for f in news if f.path == old.path]
    if same_file:
        return same_file[0]
    keys = set((old.attr("programs") or "").split())
    shared = [f for f in news if keys & set((f.attr("programs") or "").split())]
    return (shared or list(news))[0]


def _changes(old: Fact, new: Fact) -> Iterable[Delta]:
    for attr in MEANING_ATTRS:
        a, b = old.attr(attr), new.attr(attr)
        # Choices, a polarity or a type the flag lacked at base are nothing a doc line relied on;
        # a default appearing is.
        if normalize_default(a) != normalize_default(b) and not (a is None and attr != "default"):
            yield Delta("changed", old, new, attr, a, b)


def renamed_to(found: Deltas) -> set[str]:
    """The new tokens of every renamed fact."""
    return {d.new.token for ds in found.values() for d in ds if d.kind == "renamed" and d.new}


def successor(old: Fact, base: Facts, head: Facts, new_tokens: set[str]) -> Fact | None:
    """The new fact (its token absent at base) that took the place of `old`, if one did."""
    if old.kind == "flag":
        # Same dest and same polarity: `--disable-fp32-master` (sets false) -> `--no-keep-fp32-master`.
        same_key = [
            f
            for f in head.by_key.get((old.source, "flag", old.key), ())
            if f.attr("sets") == old.attr("sets") and f.token in new_tokens
        ]
        if same_key:
            best = closest(old.token, [f.token for f in same_key], 0.0)
            return next(f for f in same_key if f.token == best)
        candidates = [
            f
            for f in head.flags()
            if f.token in new_tokens and f.source == old.source and f.attr("sets") == old.attr("sets")
        ]
        return _pick(old, candidates, 0.75)
    if old.kind == "string":
        candidates = [f for f in head.group(old.group or "").values() if f.token in new_tokens]
        return _pick(old, candidates, 0.6)
    candidates = [
        f
        for f in head.facts
        if f.kind == "symbol" and f.token in new_tokens and f.attr("kind") == old.attr("kind")
    ]
    if old.attr("kind") == "method":
        # One method gone from a class and one new in it: a rename, whatever the names.
        owner = old.key.rpartition(".")[0] + "."
        gone = {f.token for f in base.facts if f.kind == "symbol" and f.key.startswith(owner)} - set(
            head.by_token
        )
        added = [f for f in candidates if f.key.startswith(owner) and f.path == old.path]
        if len(gone) == 1 and len(added) == 1:
            return added[0]
    return _pick(old, candidates, 0.7)


def _pick(old: Fact, candidates: list[Fact], cutoff: float) -> Fact | None:
    best = closest(old.token, [f.token for f in candidates], cutoff)
    return next((f for f in candidates if f.token == best), None)
