"""Globs and pairing in rule paths, expanded against the repository (the syntax is documented at
the top of bot/core/rules.py).

A rule whose paths are all plain is returned as it is. Otherwise each pattern becomes the files
it matches at base or at head, and a rule with `{name}` becomes one rule per value: the
doc paths that pair say which values there are, and a value stays only when every path that
uses it matches a file (`docs/models/{name}.md` with `scripts/run_{name}.py`).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from bot.core.model import Tree
from bot.core.rules import DocTarget, Origin, Rule, Source

_SPECIAL = frozenset("*?[{}]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# A pattern comes from a config, which a pull request can edit: matching is linear in the path
# for any pattern (see `Pattern`), and these caps keep the pattern's own factor small.
MAX_PATTERN_CHARS = 512
MAX_WILDCARDS = 16  # `*`, `**` and `{name}` in one pattern
# A release's frozen copy of the docs (Mintlify's `docs/v1.15.3/`, Docusaurus's
# `versioned_docs/version-2.x/`) says what that release did, and the next release's code owes
# it nothing: a doc pattern's wildcards do not match into one, a pattern naming it does. Two
# numbers at least, so an API's `v1/` is no snapshot.
_SNAPSHOT = re.compile(r"v?\d+(?:\.\d+)+(?:\.x)?|version-.+|versioned_docs", re.I)


class PatternError(ValueError):
    """A path pattern that cannot be read; the message says what is wrong with it."""


@dataclass(frozen=True)
class _Stars:
    """A segment without a placeholder: the pieces between its `*`s, each matching a fixed number
    of characters. The first piece is matched at the start, the last at the end, and each one
    between at its first place after the one before: the leftmost place is as good as any, since
    a `*` takes whatever lies between. Linear in the segment for any number of stars, where the
    regex `a.*b.*c` backtracks exponentially (and without the atomic groups Python 3.10 lacks)."""

    pieces: tuple[re.Pattern[str], ...]
    lengths: tuple[int, ...]

    def fullmatch(self, part: str) -> bool:
        first, last = self.pieces[0], self.pieces[-1]
        if len(self.pieces) == 1:
            return first.fullmatch(part) is not None
        head, tail = self.lengths[0], self.lengths[-1]
        end = len(part) - tail
        if end < head or not first.fullmatch(part, 0, head) or not last.fullmatch(part, end):
            return False
        at = head
        for piece in self.pieces[1:-1]:
            found = piece.search(part, at, end)
            if found is None:
                return False
            at = found.end()
        return True


@dataclass(frozen=True)
class _Segment:
    """One segment of a pattern, matched against one segment of a path.

    Without a placeholder, `whole` matches the segment; with one, `before` and `after` are the
    fixed-length pieces around `{name}`, which takes what is left between them."""

    whole: _Stars | None
    name: str = ""
    before: re.Pattern[str] | None = None
    after: re.Pattern[str] | None = None
    fixed: tuple[int, int] = (0, 0)  # the lengths `before` and `after` match

    def match(self, part: str, values: dict[str, str]) -> bool:
        if self.whole is not None:
            return self.whole.fullmatch(part)
        assert self.before is not None and self.after is not None
        head, tail = self.fixed
        if len(part) <= head + tail:  # a placeholder is at least one character
            return False
        if not (self.before.fullmatch(part, 0, head) and self.after.fullmatch(part, len(part) - tail)):
            return False
        value = part[head : len(part) - tail]
        return values.setdefault(self.name, value) == value  # used twice: the same value


@dataclass(frozen=True)
class Pattern:
    """A compiled glob. Matching never backtracks across the pattern: a path is cut into its
    segments, `**` splits the pattern into runs of segments, and each run is placed at the
    first segment where it fits (the leftmost fit is as good as any, since `**` takes any
    folders); within a segment, each piece between two `*` is found at its first place after
    the one before (`_Stars`). The
    cost is the path's length times the pattern's, for any pattern; a backtracking regex made
    of the same glob takes exponential time on `*a*a*a*a*b` and a path of `a`s."""

    text: str
    runs: tuple[tuple[_Segment, ...], ...]  # the segments between `**`s (one run: no `**`)
    names: tuple[str, ...]  # the `{name}` placeholders, in order of first use
    prefix: str = ""  # what every matching path starts with (a quick refusal)
    suffix: str = ""  # and what its last segment ends with

    def matches(self, path: str) -> bool:
        return self.match(path) is not None

    def match(self, path: str) -> dict[str, str] | None:
        """The placeholders' values when `path` matches, else None."""
        if not (path.startswith(self.prefix) and path.endswith(self.suffix)):
            return None
        parts = path.split("/")
        values: dict[str, str] = {}
        first, last = self.runs[0], self.runs[-1]
        if len(self.runs) == 1:
            ok = len(parts) == len(first) and _fits(first, parts, 0, values)
            return values if ok else None
        end = len(parts) - len(last)
        if end < len(first) or not _fits(first, parts, 0, values) or not _fits(last, parts, end, values):
            return None
        at = len(first)
        for run in self.runs[1:-1]:  # no placeholders here: the values cannot differ by place
            at = next((i for i in range(at, end - len(run) + 1) if _fits(run, parts, i, {})), -1)
            if at < 0:
                return None
            at += len(run)
        return values

    def bind(self, values: Mapping[str, str]) -> str:
        """The pattern with its placeholders replaced by `values` (the other wildcards stay)."""
        out = self.text
        for name in self.names:
            out = out.replace("{" + name + "}", _escape(values[name]))
        return out


def _fits(run: Sequence[_Segment], parts: Sequence[str], at: int, values: dict[str, str]) -> bool:
    return all(segment.match(parts[at + i], values) for i, segment in enumerate(run))


def is_pattern(path: str) -> bool:
    return any(c in _SPECIAL for c in path)


def _escape(value: str) -> str:
    """A value put back into a pattern must match only itself."""
    return "".join(f"[{c}]" if c in "*?[]{}" else c for c in value)


@lru_cache(maxsize=4096)  # bounded: a worker compiles the patterns of every pull request's config
def compile_pattern(text: str) -> Pattern:
    """Raises PatternError for a pattern that cannot mean anything, or one past the caps."""
    if len(text) > MAX_PATTERN_CHARS:
        raise PatternError(f"is {len(text):,} characters long; a pattern has at most {MAX_PATTERN_CHARS}")
    parts = text.split("/")
    if parts[-1] == "**":  # at the end, at least one more segment (a file)
        parts.append("*")
    runs: list[list[_Segment]] = [[]]
    names: list[str] = []
    wildcards = 0
    for segment in parts:
        if segment == "**":
            runs.append([])
            wildcards += 1
            continue
        if "**" in segment:
            raise PatternError("'**' must be a whole path segment (docs/**/*.md)")
        compiled, stars = _segment(segment, names)
        runs[-1].append(compiled)
        wildcards += stars + (compiled.whole is None)
    if wildcards > MAX_WILDCARDS:
        limit = f"a pattern has at most {MAX_WILDCARDS}"
        raise PatternError(f"has {wildcards} wildcards ('*', '**', '{{name}}'); {limit}")
    if names and len(runs) > 2:
        raise PatternError("a pattern with a '{name}' placeholder has at most one '**'")
    cut = [i for i, c in enumerate(text) if c in _SPECIAL]
    prefix, suffix = (text[: cut[0]], text[cut[-1] + 1 :].rsplit("/", 1)[-1]) if cut else (text, "")
    return Pattern(text, tuple(tuple(run) for run in runs), tuple(names), prefix, suffix)


def _segment(segment: str, names: list[str]) -> tuple[_Segment, int]:
    """The segment compiled, and how many `*` it holds."""
    pieces: list[list[str]] = [[]]  # regexes of one character each, between the `*`s
    name = ""
    i = 0
    while i < len(segment):
        c = segment[i]
        if c == "*":
            pieces.append([])
        elif c == "?":
            pieces[-1].append(".")
        elif c == "[":
            end = segment.find("]", i + 2)  # `[]]` and `[!]]` hold a literal ]
            if end < 0:
                raise PatternError(f"'[' at {segment!r} has no closing ']'")
            body = segment[i + 1 : end]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            if not body:
                raise PatternError(f"empty character class in {segment!r}")
            escaped = body.replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
            pieces[-1].append(f"[{'^/' if negate else ''}{escaped}]")
            i = end
        elif c == "{":
            end = segment.find("}", i)
            if end < 0:
                raise PatternError(f"'{{' at {segment!r} has no closing '}}'")
            name = segment[i + 1 : end]
            if not _NAME.match(name):
                raise PatternError(f"'{{{name}}}' is not a placeholder: write a name, like {{name}}")
            if "" in pieces[-1]:
                raise PatternError(f"{segment!r}: a segment holds one '{{name}}' at most")
            if len(pieces) > 1:
                raise PatternError(f"{segment!r}: a '{{name}}' is the only wildcard of its segment")
            if name not in names:
                names.append(name)
            pieces[-1].append("")  # where the placeholder stands
            i = end
        elif c in "]}":
            raise PatternError(f"{c!r} in {segment!r} closes nothing")
        else:
            pieces[-1].append(re.escape(c))
        i += 1
    stars = len(pieces) - 1
    try:
        if "" not in pieces[0]:
            compiled = tuple(re.compile("".join(p), re.DOTALL) for p in pieces)
            return _Segment(_Stars(compiled, tuple(len(p) for p in pieces))), stars
        if stars:
            raise PatternError(f"{segment!r}: a '{{name}}' is the only wildcard of its segment")
        at = pieces[0].index("")
        before, after = pieces[0][:at], pieces[0][at + 1 :]
        head, tail = (re.compile("".join(p), re.DOTALL) for p in (before, after))
        return _Segment(None, name, head, tail, (len(before), len(after))), 0
    except re.error as e:  # a character class the segment scanner let through
        raise PatternError(f"cannot be read: {e}") from None


def rule_has_patterns(rule: Rule) -> bool:
    return any(is_pattern(d.path) for d in rule.docs) or any(
        is_pattern(p) for s in rule.sources for p in s.paths
    )


def pairing_names(rule: Rule) -> tuple[str, ...]:
    """The placeholders the rule's doc paths pair on (empty: the rule is not paired)."""
    for d in rule.docs:
        if is_pattern(d.path) and compile_pattern(d.path).names:
            return compile_pattern(d.path).names
    return ()


class Listing:
    """The paths of base and head together, for matching. A file the change renamed counts once,
    under its old name (the check follows renames itself)."""

    def __init__(self, base: Tree, head: Tree, renames: Mapping[str, str]):
        self.base, self.head = base, head
        self.renames = renames
        self._paths: tuple[str, ...] | None = None

    @property
    def paths(self) -> tuple[str, ...]:
        if self._paths is None:
            self._paths = tuple(sorted(self.base.paths() | self.head.paths()))
        return self._paths

    def matches(self, pattern: str) -> list[str]:
        """The files `pattern` names, in path order; a plain path names itself when it exists."""
        if not is_pattern(pattern):
            return [pattern] if self.head.exists(pattern) or self.base.exists(pattern) else []
        compiled = compile_pattern(pattern)
        # The paths are sorted, so those starting with the pattern's fixed prefix are one run.
        paths = self.paths
        start = bisect.bisect_left(paths, compiled.prefix)
        found = []
        for p in itertools.islice(paths, start, None):
            if not p.startswith(compiled.prefix):
                break
            if compiled.matches(p):
                found.append(p)
        moved_here = {self.renames[p] for p in found if p in self.renames}
        return [p for p in found if p not in moved_here]

    def bindings(self, pattern: str) -> list[dict[str, str]]:
        compiled = compile_pattern(pattern)
        out = []
        for path in self.matches(pattern):
            values = compiled.match(path)
            if values is not None and values not in out:
                out.append(values)
        return out


def expand(rule: Rule, base: Tree, head: Tree, renames: Mapping[str, str]) -> tuple[Rule, ...]:
    """The rule with its patterns replaced by the files they match: one rule, or one per pairing."""
    if not rule_has_patterns(rule):
        return (rule,)
    return expand_in(rule, Listing(base, head, renames))


def expand_all(rules: Iterable[Rule], base: Tree, head: Tree, renames: Mapping[str, str]) -> list[Rule]:
    listing = Listing(base, head, renames)  # listed once, for every rule with patterns
    out: list[Rule] = []
    for rule in rules:
        out.extend(expand_in(rule, listing) if rule_has_patterns(rule) else (rule,))
    return out


def expand_in(rule: Rule, listing: Listing) -> tuple[Rule, ...]:
    names = pairing_names(rule)
    if not names:
        return (_concrete(rule, {}, listing),)
    return tuple(
        replace(_concrete(rule, values, listing), id=f"{rule.id}[{','.join(values[n] for n in names)}]")
        for values in pairings(rule, listing)
    )


def pairings(rule: Rule, listing: Listing) -> list[dict[str, str]]:
    """The values of the rule's placeholders for which every path that uses them matches a file."""
    names = pairing_names(rule)
    candidates: list[dict[str, str]] = []
    for d in rule.docs:
        if is_pattern(d.path) and compile_pattern(d.path).names:
            for values in listing.bindings(d.path):
                if values not in candidates:
                    candidates.append(values)
    users = [d.path for d in rule.docs] + [p for s in rule.sources for p in s.paths]
    users = [p for p in users if is_pattern(p) and compile_pattern(p).names]
    kept = []
    for values in sorted(candidates, key=lambda v: [v[n] for n in names]):
        if all(listing.matches(compile_pattern(p).bind(values)) for p in users):
            kept.append(values)
    return kept


def _concrete(rule: Rule, values: Mapping[str, str], listing: Listing) -> Rule:
    docs: dict[str, DocTarget] = {}
    for d in rule.docs:
        for path in _paths(d.path, values, listing):
            if any(compile_pattern(x).matches(path) for x in d.exclude) or _in_snapshot(path, d.path):
                continue
            docs[path] = _merged(docs[path], d) if path in docs else replace(d, path=path, exclude=())
    sources = tuple(_source(s, values, listing) for s in rule.sources)
    return replace(rule, docs=tuple(docs.values()), sources=sources)


def is_snapshot(folder: str) -> bool:
    """Is a folder of this name a release's frozen copy of the docs?"""
    return _SNAPSHOT.fullmatch(folder) is not None


def _in_snapshot(path: str, pattern: str) -> bool:
    """Did a wildcard of `pattern` match `path` into a docs snapshot it does not name?"""
    named = pattern.split("/")
    return is_pattern(pattern) and any(is_snapshot(p) and p not in named for p in path.split("/")[:-1])


def _merged(first: DocTarget, again: DocTarget) -> DocTarget:
    """A page two doc paths name (`docs/**/*.md` and `docs/x.md` with sections) is checked once:
    whole when either path takes it whole, else in the sections of both."""
    if not first.sections or not again.sections:
        return replace(first, sections=(), section_origins=())
    sections = first.sections + tuple(s for s in again.sections if s not in first.sections)
    return replace(first, sections=sections, program=first.program or again.program)


def _paths(path: str, values: Mapping[str, str], listing: Listing) -> Sequence[str]:
    if not is_pattern(path):
        return (path,)
    return listing.matches(compile_pattern(path).bind(values) if values else path)


def _source(source: Source, values: Mapping[str, str], listing: Listing) -> Source:
    if not any(is_pattern(p) for p in source.paths):
        return source
    paths: list[str] = []
    origins: list[Origin] = []
    written: list[Origin | None] = list(source.origins) or [None] * len(source.paths)
    for pattern, origin in zip(source.paths, written, strict=True):
        for path in _paths(pattern, values, listing):
            if path not in paths:
                paths.append(path)
                if origin is not None:
                    origins.append(origin)
    return replace(source, paths=tuple(paths), origins=tuple(origins) if source.origins else ())
