"""What became of each fact of the base revision at head: removed, renamed, or changed in meaning.

A fact whose token is gone is renamed when a new fact takes its place, believed on the strongest
evidence there is: a flag with the same destination and polarity; the change's own rewrites in
its other files (tests, launchers, other modules swapping the old spelling for the new); one
destination gone and one new at the same place in the same parser or dataclass, alike in type,
default and action; a spelling declared with it that stays (`-V` beside `--value`, now beside
`--print-value`); git's rename of the file; the one new method of a class that lost one; a
close name in the same set or module. A switch is never succeeded by one pointing the other way.
Otherwise the fact is removed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.core.check.evidence import Because, ChangeEvidence, Replacements
from bot.core.check.near import closest, misspelt, same_polarity
from bot.core.doclines import normalize_default
from bot.core.facts import Facts
from bot.core.model import Fact
from bot.core.programs import subcommands

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
    because: Because | None = None  # renamed: why the successor is believed


# Base token -> what became of the facts it named; unchanged tokens are absent.
Deltas = Mapping[str, Sequence[Delta]]


def deltas(base: Facts, head: Facts, evidence: ChangeEvidence | None = None) -> Deltas:
    """For each token the base had: what became of it at head (nothing, if unchanged).

    `evidence` is the change's other files, read for what replaced a fact's spellings only when
    some fact lost its token and no fact with its key took its place."""
    out: dict[str, list[Delta]] = defaultdict(list)
    if head.errors and not head.facts:
        return out  # an unparsable head is reported as such, not as every fact removed
    new_tokens = set(head.by_token) - set(base.by_token)
    lost: list[tuple[str, Fact]] = []
    for token, olds in base.by_token.items():
        old = olds[0]
        news = [f for f in head.by_token.get(token, ()) if f.kind == old.kind]
        if news and old.kind == "flag":
            # The same flag in two command lines (or two subcommands of one) is two facts: each
            # is compared with its own, and one gone from `tool serve` is gone there although
            # `tool build` still has it.
            for one in _one_per_command(olds):
                same = _same_program(one, news)
                if same is not None:
                    out[token].extend(_changes(one, same))
                elif not any(e.path == one.path for e in head.errors):
                    lost.append((token, one))
            if not out[token]:
                del out[token]
            continue
        if news:
            if old.kind == "key":
                # A key of many config files has a value in each: each is compared with its own.
                changes = [d for one in olds for d in _key_changes(one, news)]
                if changes:
                    out[token] = changes
            continue
        if any(e.path == old.path for e in head.errors):
            continue  # the file does not parse at head; that is the finding
        # A flag gone from every command that had it (one option a decorator gives eight
        # subcommands): gone from each, so a help listing of each subcommand hears of it.
        lost.extend((token, one) for one in (_one_per_command(olds) if old.kind == "flag" else [old]))
    keyless = [old for _, old in lost if _same_dest(old, head, new_tokens) is None]
    replaced: Replacements = {}
    if keyless and evidence is not None:
        replaced = evidence.replacements({s for old in keyless for s in spellings(old, base)})
    renames = evidence.renames if evidence is not None else {}
    for token, old in lost:
        found = successor(old, base, head, new_tokens, replaced, renames)
        if found is None:
            out[token].append(Delta("removed", old, None))
        else:
            out[token].append(Delta("renamed", old, found[0], because=found[1]))
    return out


def _one_per_command(facts: Sequence[Fact]) -> list[Fact]:
    """The first fact of each file and subcommand."""
    firsts: dict[tuple[str, str], Fact] = {}
    for f in facts:
        if f.kind == "flag":
            firsts.setdefault((f.path, f.attr("subcommand") or ""), f)
    return list(firsts.values())


def _same_program(old: Fact, news: Sequence[Fact]) -> Fact | None:
    """The head fact of `old`'s token that stands for it: in the same file, else in a program
    that takes `old`, else the first; of a subcommand's flag, one its subcommand (or the parser
    above it) still takes, else None: the flag is gone from that subcommand."""
    if old.attr("subcommand"):
        news = [f for f in news if same_subcommand(old, f, parents=True)]
        if not news:
            return None
    same_file = [f for f in news if f.path == old.path]
    if same_file:
        return same_file[0]
    keys = set((old.attr("programs") or "").split())
    shared = [f for f in news if keys & set((f.attr("programs") or "").split())]
    if not shared and keys and all(f.attr("programs") for f in news):
        return None  # only other command lines have it (a sibling script's copy): gone from this one
    return (shared or list(news))[0]


def same_subcommand(old: Fact, new: Fact, parents: bool = False) -> bool:
    """Does `new` belong to a subcommand `old` belonged to (with `parents`, or to a parser above
    it, whose flags that subcommand's command line takes too)? A top parser's flag is anyone's."""
    if not old.attr("subcommand"):
        return True
    olds, news = set(subcommands(old)), set(subcommands(new))
    if olds & news:
        return True
    return parents and any(o[: len(n)] == n for o in olds for n in news)


def _changes(old: Fact, new: Fact) -> Iterable[Delta]:
    # What a side's file does not say (a type alias of another module's, a default made by code)
    # is not a change: it is unknown there.
    olds, news = (old.attr("unknown") or "").split(), (new.attr("unknown") or "").split()
    unknown = {*olds, *news}
    # The same meaning, or a variable one side does not say (`dest=field.name` against the one
    # argparse derived): which variable the other sets true or false is not known to be this one.
    if ("dest" in olds) != ("dest" in news) or _negated(old) == _negated(new):
        unknown.add("sets")
    for attr in MEANING_ATTRS:
        if attr in unknown:
            continue
        a, b = old.attr(attr), new.attr(attr)
        # Choices, a polarity or a type the flag lacked at base are nothing a doc line relied on;
        # a default appearing is. A polarity the flag no longer states (`--json` now a
        # `store_const` of another module's value) is unknown at head, not the other way round.
        if (
            normalize_default(a) != normalize_default(b)
            and not (a is None and attr != "default")
            and not (b is None and attr == "sets")
        ):
            yield Delta("changed", old, new, attr, a, b)


def _negated(flag: Fact) -> tuple[str, bool] | None:
    """What a switch turns on or off, a `no_` variable read as its opposite: `--no-color` setting
    `no_color` true and setting `color` false say the same (None: no switch, or no change of
    variable: the polarity is compared as it is written)."""
    sets = flag.attr("sets")
    if sets not in ("true", "false"):
        return None
    key, on = flag.key, sets == "true"
    for prefix in ("no_", "no-"):
        if key.startswith(prefix):
            return key[len(prefix) :], not on
    return key, on


def _key_changes(old: Fact, news: Sequence[Fact]) -> Iterable[Delta]:
    """A config key's change in the same file (the first of its facts there: a list's items)."""
    same = next((f for f in news if f.path == old.path and f.attr("kind") == old.attr("kind")), None)
    return _changes(old, same) if same is not None else ()


def renamed_to(found: Deltas) -> set[str]:
    """The new tokens of every renamed fact."""
    return {d.new.token for ds in found.values() for d in ds if d.kind == "renamed" and d.new}


Found = tuple[Fact, Because]


def successor(
    old: Fact,
    base: Facts,
    head: Facts,
    new_tokens: set[str],
    replaced: Replacements | None = None,
    renames: Mapping[str, str] | None = None,
) -> Found | None:
    """The new fact (its token absent at base) that took the place of `old`, if one did, and why
    it is believed: the same destination, the change's own rewrites elsewhere, the same place in
    the same class or parser, git's rename of the file, or the closest name, in that order. A
    switch's successor always points the same way (near.polarity)."""
    same = _same_dest(old, head, new_tokens)
    if same is not None:
        return same, Because("same-dest")
    for found in (
        _same_call(old, base, head, new_tokens),
        _replaced(old, base, head, new_tokens, replaced or {}),
        _same_place(old, base, head, new_tokens, renames or {}),
        _moved_file(old, base, head, new_tokens, renames or {}),
    ):
        if found is not None:
            return found
    similar = _similar(old, base, head, new_tokens)
    return (similar, Because("similar")) if similar is not None else None


def _same_dest(old: Fact, head: Facts, new_tokens: set[str]) -> Fact | None:
    """A new flag setting the same destination the same way: `--disable-fp32-master` (a
    `store_false` on keep_fp32_master) -> `--no-keep-fp32-master`. A config key: the same field
    under a new alias or environment prefix."""
    if old.kind == "key":
        same = [f for f in head.by_key.get((old.source, "key", old.key), ()) if f.token in new_tokens]
        return same[0] if len(same) == 1 else None
    if old.kind != "flag":
        return None
    same_key = [
        f
        for f in head.by_key.get((old.source, "flag", old.key), ())
        if f.attr("sets") == old.attr("sets") and f.token in new_tokens and same_subcommand(old, f)
    ]
    if not same_key:
        return None
    best = closest(old.token, [f.token for f in same_key], 0.0)
    return next(f for f in same_key if f.token == best)


def _same_call(old: Fact, base: Facts, head: Facts, new_tokens: set[str]) -> Found | None:
    """A flag renamed beside a spelling it keeps (`--value, -V` -> `--print-value, -V`): the new
    spelling declared with the kept one at head, though argparse gave it another destination."""
    if old.kind != "flag":
        return None
    same_call = [
        f
        for f in base.by_key.get((old.source, "flag", old.key), ())
        if f.path == old.path and f.token != old.token and f.attr("subcommand") == old.attr("subcommand")
    ]
    for kept in same_call:
        now = [
            f
            for f in head.by_token.get(kept.token, ())
            if f.path == old.path and f.attr("subcommand") == old.attr("subcommand") and f.key != old.key
        ]
        if len(now) != 1:
            continue
        new = [
            f
            for f in head.by_key.get((old.source, "flag", now[0].key), ())
            if f.token in new_tokens and f.path == old.path and same_polarity(f, old)
        ]
        if len(new) == 1:
            return new[0], Because("same-call", kept.token, new[0].token)
    return None


def _similar(old: Fact, base: Facts, head: Facts, new_tokens: set[str]) -> Fact | None:
    if old.kind == "flag":
        candidates = [
            f
            for f in head.flags()
            if f.token in new_tokens
            and f.source == old.source
            and same_polarity(f, old)
            and same_subcommand(old, f)
        ]
        return _pick(old, candidates, 0.75)
    if old.kind == "string":
        candidates = [f for f in head.group(old.group or "").values() if f.token in new_tokens]
        return _pick(old, candidates, 0.6)
    if old.kind == "key":  # a misspelling fixed, in the same section
        parent = old.token.rpartition(".")[0]
        candidates = [
            f
            for f in head.facts
            if f.kind == "key"
            and f.token in new_tokens
            and f.source == old.source
            and f.attr("kind") == old.attr("kind")
            and f.token.rpartition(".")[0] == parent
            and misspelt(old.token.rpartition(".")[2], f.token.rpartition(".")[2])
        ]
        return _pick(old, candidates, 0.8)
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


# -- the change's own rewrites ---------------------------------------------------------------------


def spellings(old: Fact, base: Facts) -> set[str]:
    """How other files write a fact: a flag as itself, as its twin (`--keep-x` beside
    `--no-keep-x`) and as its destination (`keep_x`, `args.keep_x`); anything else as its token."""
    if old.kind != "flag":
        return {old.token}
    name = old.key.rpartition(".")[2]
    out = {old.token, name, "--" + name.replace("_", "-")}
    out |= {f.token for f in base.by_key.get((old.source, "flag", old.key), ())}
    return {s for s in out if len(s.lstrip("-")) > 2}


def _replaced(
    old: Fact, base: Facts, head: Facts, new_tokens: set[str], replaced: Replacements
) -> Found | None:
    """The successor the change's other files name: where they swapped a spelling of `old` for a
    spelling of one new fact, the most files agreeing."""
    own = {old.path}
    votes: dict[tuple[str, str], set[str]] = defaultdict(set)  # successor's (source, key) -> files
    swaps: dict[tuple[str, str], list[tuple[int, str, str]]] = defaultdict(list)
    for spelling in sorted(spellings(old, base)):
        for new, files in sorted(replaced.get(spelling, {}).items()):
            elsewhere = files - own
            if not elsewhere:
                continue
            for named in _named(new, old, head, new_tokens):
                votes[named] |= elsewhere
                swaps[named].append((-len(elsewhere), spelling, new))
    if not votes:
        return None
    ranked = sorted(votes.items(), key=lambda kv: -len(kv[1]))
    if len(ranked) > 1 and len(ranked[1][1]) == len(ranked[0][1]):
        return None  # the change's files disagree: no rename is believed
    (source, key), agreeing = ranked[0]
    successor_ = _counterpart(old, head, source, key, new_tokens)
    if successor_ is None:
        return None
    made = [(spelled, by) for _, spelled, by in sorted(swaps[(source, key)])]  # most files first
    return successor_, Because("replaced", *made[0], tuple(sorted(agreeing)), tuple(made[1:]))


def _named(new: str, old: Fact, head: Facts, new_tokens: set[str]) -> set[tuple[str, str]]:
    """The new facts (as (source, key)) a word names, of `old`'s kind and program."""
    if old.kind == "flag":
        found = {f for f in head.by_token.get(new, ()) if f.kind == "flag"}
        found |= {f for f in head.flags() if f.key.rpartition(".")[2] == new}
        return {
            (f.source, f.key)
            for f in found
            if f.token in new_tokens and _same_command(old, f) and same_subcommand(old, f)
        }
    return {
        (f.source, f.key) for f in head.by_token.get(new, ()) if f.token in new_tokens and _same_sort(old, f)
    }


def _same_command(old: Fact, new: Fact) -> bool:
    """Is `new` a flag of a command line that took `old`? Never a name from another program."""
    if old.source == new.source:
        return True
    keys = set((old.attr("programs") or "").split())
    return bool(keys & set((new.attr("programs") or "").split()))


def _same_sort(old: Fact, new: Fact) -> bool:
    """Facts one could have been renamed into: a method into a method, a member of a set into
    a member of the same set."""
    if old.kind != new.kind:
        return False
    if old.kind == "string":
        return old.group == new.group
    return old.attr("kind") == new.attr("kind")


def _counterpart(old: Fact, head: Facts, source: str, key: str, new_tokens: set[str]) -> Fact | None:
    """The fact of (source, key) at head that stands where `old` stood: for a switch, the one
    pointing the same way (`--no-keep-x` -> `--no-x-weights`, never `--x-weights`)."""
    facts = [
        f
        for f in head.by_key.get((source, old.kind, key), ())
        if f.token in new_tokens and same_subcommand(old, f)
    ]
    if old.kind == "flag":
        facts = [f for f in facts if same_polarity(f, old)]
    if not facts:
        return None
    return _pick(old, facts, 0.0) if len(facts) > 1 else facts[0]


# -- the same place in the same class or parser ----------------------------------------------------


def _same_place(
    old: Fact, base: Facts, head: Facts, new_tokens: set[str], renames: Mapping[str, str]
) -> Found | None:
    """One destination gone from a parser (or a field from a dataclass) and one new between the
    same two neighbours, with the same type, default and action (stated: a flag that states none
    of them is like every other). Only when exactly one fits, and it fits no other gone one."""
    if old.kind not in ("flag", "key") or not any(old.attr(a) for a in ("type", "default", "action")):
        return None
    head_path = renames.get(old.path, old.path)
    sub = old.attr("subcommand")
    before = _keys_in_order(base, old, old.path, sub)
    after = _keys_in_order(head, old, head_path, sub)
    if old.key not in before or old.key in after:
        return None
    fits = [
        key
        for key in after
        if key not in before
        and _neighbours(key, after) == _neighbours(old.key, before)
        and (new := _counterpart(old, head, old.source, key, new_tokens)) is not None
        and _same_attrs(old, new)
    ]
    if len(fits) != 1:
        return None
    rivals = [k for k in before if k not in after and _neighbours(k, before) == _neighbours(fits[0], after)]
    new = _counterpart(old, head, old.source, fits[0], new_tokens)
    if len(rivals) != 1 or new is None:
        return None
    return new, Because("same-place", old.key, fits[0])


def _keys_in_order(facts: Facts, like: Fact, path: str, subcommand: str | None = None) -> list[str]:
    """The destinations of one parser (one subcommand's) in the order they are declared; for a
    config key, the keys of its section."""
    lines: dict[str, int] = {}
    for f in facts.facts:
        if (
            f.kind == like.kind
            and f.source == like.source
            and f.path == path
            and f.attr("subcommand") == subcommand
            and _same_section(f, like)
        ):
            lines[f.key] = min(lines.get(f.key, f.line), f.line)
    return sorted(lines, key=lambda k: (lines[k], k))


def _same_section(f: Fact, like: Fact) -> bool:
    if like.kind != "key":
        return True
    return f.attr("kind") == like.attr("kind") and f.key.rpartition(".")[0] == like.key.rpartition(".")[0]


def _neighbours(key: str, order: list[str]) -> tuple[str | None, str | None]:
    """The keys just before and just after `key` (None at either end)."""
    i = order.index(key)
    return (order[i - 1] if i > 0 else None, order[i + 1] if i + 1 < len(order) else None)


def _same_attrs(old: Fact, new: Fact) -> bool:
    return all(
        normalize_default(old.attr(a)) == normalize_default(new.attr(a))
        for a in ("type", "default", "action", "choices", "sets")
    )


# -- git's rename of the file ----------------------------------------------------------------------


def _moved_file(
    old: Fact, base: Facts, head: Facts, new_tokens: set[str], renames: Mapping[str, str]
) -> Found | None:
    """The file defining `old` was moved, and in the moved file exactly one fact of its sort
    appeared as exactly one disappeared: that one took its place."""
    moved = renames.get(old.path)
    if moved is None:
        return None
    gone = [
        f
        for f in base.facts
        if f.path == old.path
        and f.source == old.source
        and _same_sort(old, f)
        and not head.by_token.get(f.token)
    ]
    added = [
        f
        for f in head.facts
        if f.path == moved and f.source == old.source and _same_sort(old, f) and f.token in new_tokens
    ]
    if old.kind == "flag":
        gone = [f for f in gone if same_polarity(f, old)]
        added = [f for f in added if same_polarity(f, old)]
    if len(gone) != 1 or len(added) != 1:
        return None
    return added[0], Because("git-rename", old.path, moved)
