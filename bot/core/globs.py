"""Globs and pairing in rule paths, expanded against the repository (the syntax is documented at
the top of bot/core/rules.py).

A rule whose paths are all plain is returned as it is. Otherwise each pattern becomes the files
it matches at base or at head, and a rule with `{name}` becomes one rule per value: the
doc paths that pair say which values there are, and a value stays only when every path that
uses it matches a file (`docs/models/{name}.md` with `scripts/run_{name}.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache

from bot.core.model import Tree
from bot.core.rules import DocTarget, Origin, Rule, Source

_SPECIAL = frozenset("*?[{}]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class PatternError(ValueError):
    """A path pattern that cannot be read; the message says what is wrong with it."""


@dataclass(frozen=True)
class Pattern:
    text: str
    regex: re.Pattern[str]
    names: tuple[str, ...]  # the `{name}` placeholders, in order of first use

    def match(self, path: str) -> dict[str, str] | None:
        """The placeholders' values when `path` matches, else None."""
        m = self.regex.fullmatch(path)
        return None if m is None else {k: v for k, v in m.groupdict().items() if v is not None}

    def bind(self, values: Mapping[str, str]) -> str:
        """The pattern with its placeholders replaced by `values` (the other wildcards stay)."""
        out = self.text
        for name in self.names:
            out = out.replace("{" + name + "}", _escape(values[name]))
        return out


def is_pattern(path: str) -> bool:
    return any(c in _SPECIAL for c in path)


def _escape(value: str) -> str:
    """A value put back into a pattern must match only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in value)


@cache
def compile_pattern(text: str) -> Pattern:
    """Raises PatternError for a pattern that cannot mean anything."""
    parts = text.split("/")
    pieces: list[str] = []
    names: list[str] = []
    for i, segment in enumerate(parts):
        last = i == len(parts) - 1
        if segment == "**":
            # Zero or more whole folders; at the end, at least one more segment (a file).
            pieces.append("(?:[^/]+/)*[^/]+" if last else "(?:[^/]+/)*")
            continue
        if "**" in segment:
            raise PatternError("'**' must be a whole path segment (docs/**/*.md)")
        pieces.append(_segment(segment, names) + ("" if last else "/"))
    try:
        regex = re.compile("".join(pieces))
    except re.error as e:  # a character class the segment scanner let through
        raise PatternError(f"cannot be read: {e}") from None
    return Pattern(text, regex, tuple(names))


def _segment(segment: str, names: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        c = segment[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
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
            out.append(f"[{'^/' if negate else ''}{escaped}]")
            i = end
        elif c == "{":
            end = segment.find("}", i)
            if end < 0:
                raise PatternError(f"'{{' at {segment!r} has no closing '}}'")
            name = segment[i + 1 : end]
            if not _NAME.match(name):
                raise PatternError(f"'{{{name}}}' is not a placeholder: write a name, like {{name}}")
            out.append(f"(?P={name})" if name in names else f"(?P<{name}>[^/]+)")
            if name not in names:
                names.append(name)
            i = end
        elif c in "]}":
            raise PatternError(f"{c!r} in {segment!r} closes nothing")
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


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
        found = [p for p in self.paths if compiled.regex.fullmatch(p)]
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
            if any(compile_pattern(x).regex.fullmatch(path) for x in d.exclude):
                continue
            docs[path] = _merged(docs[path], d) if path in docs else replace(d, path=path, exclude=())
    sources = tuple(_source(s, values, listing) for s in rule.sources)
    return replace(rule, docs=tuple(docs.values()), sources=sources)


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
