"""Which names a change took out of the code a page is coupled to: the names its pages cite in
code style that the rule's sources used in code at base and use nowhere at head.

Only names that look like a program's own are considered (`PERF_ARGS`, `dp_shard`,
`FSDPTrainRayActor`, `$HOME` written as a variable); a plain word (`python`, `ray`) never is: a
page says those for reasons of its own. The work follows the change: nothing is tokenized unless
a source the change touched may have lost a name a page cites, and the sources it did not touch
are read only for the names that left the touched ones.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from bot.core.facts import ParseCache, code_tokens_cached, page_index, page_index_cached, parse_doc_cached
from bot.core.model import Tree
from bot.core.rules import Rule

# How a code span writes a name: `NAME`, `$NAME`, `${NAME}`.
_SPAN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$?([A-Za-z_][A-Za-z0-9_]*)")
_INNER_UNDERSCORE = re.compile(r"_?[A-Za-z0-9]+_[A-Za-z0-9_]*[A-Za-z0-9]")  # snake_case, UPPER_CASE
_CAMEL = re.compile(
    r"[A-Z][A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*"
)  # FSDPArgs, TrainRayActor


def cited_name(token: str) -> str | None:
    """The program name a code-style token cites, or None when it does not look like one."""
    m = _SPAN.fullmatch(token)
    if m is None:
        return None
    name = m.group(1) or m.group(2)
    if keyword.iskeyword(name) or (name.startswith("__") and name.endswith("__")):
        return None
    if token.startswith("$"):
        return name if len(name) > 1 else None  # written as a variable: `$HOME` is one
    if _INNER_UNDERSCORE.fullmatch(name) or _CAMEL.fullmatch(name):
        return name
    return None


def spellings(name: str) -> tuple[str, ...]:
    """The code spans that cite `name` (what a page's index holds)."""
    return (name, f"${name}", f"${{{name}}}")


@dataclass(frozen=True)
class Gone:
    """A name the change took out of the rule's sources: where the base used it."""

    name: str
    path: str
    line: int
    env: bool  # the base read it from the environment (os.environ, os.getenv)
    files: int = 1  # how many of the touched sources used it at base


def vanished_names(
    rule: Rule,
    base: Tree,
    head: Tree,
    touched_paths: Collection[str],
    renames: Mapping[str, str],
    cache: ParseCache | None,
    facts: Collection[str] = (),
) -> dict[str, Gone]:
    """Name -> where the base used it, for every name a page of the rule cites that the rule's
    sources used in code at base and no longer use at head. `facts`: tokens the rule's other
    checks own (its flags, symbols and values)."""
    pairs = list(
        dict.fromkeys(
            (path, renames.get(path, path)) for s in rule.sources if s.kind != "paths" for path in s.paths
        )
    )
    changed = [(p, h) for p, h in pairs if p in touched_paths or h in touched_paths]
    if not changed:
        return {}
    cited = _cited(rule, head, renames, cache)
    if cited is not None and not cited:
        return {}
    lost: dict[str, Gone] = {}
    for path, _ in changed:
        tokens = code_tokens_cached(path, base, cache)
        if tokens is None or tokens.error is not None:
            continue
        for name, line in tokens.names.items():
            if name in lost:
                first = lost[name]
                lost[name] = replace(first, env=first.env or name in tokens.env, files=first.files + 1)
                continue
            if name in facts or (cited is not None and name not in cited):
                continue
            if cited is None and cited_name(name) is None:
                continue
            lost[name] = Gone(name, path, line, name in tokens.env)
    # Still used anywhere at head (the touched sources first: they are read already)?
    for _, head_path in [*changed, *(pair for pair in pairs if pair not in changed)]:
        if not lost:
            break
        tokens = code_tokens_cached(head_path, head, cache)
        if tokens is None:
            continue
        if tokens.error is not None:
            return {}  # a file read in part may use any of them past where it stopped
        for name in [n for n in lost if tokens.uses(n)]:
            del lost[name]
    return lost


_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def env_name(token: str) -> str | None:
    """The environment variable a code-style token may name (`MILES_DEBUG`, `$MILES_DEBUG`)."""
    name = cited_name(token)
    return name if name is not None and _ENV_NAME.fullmatch(name) else None


@dataclass(frozen=True)
class Environment:
    """What the rule's sources read from the environment at head, and every name they use."""

    read: frozenset[str]
    used: frozenset[str]


def environment(
    rule: Rule, head: Tree, renames: Mapping[str, str], cache: ParseCache | None
) -> Environment | None:
    """None when a source could not be read whole: then any name may be used past where it stopped."""
    read: set[str] = set()
    used: set[str] = set()
    for path in dict.fromkeys(renames.get(p, p) for s in rule.sources if s.kind != "paths" for p in s.paths):
        tokens = code_tokens_cached(path, head, cache)
        if tokens is None:
            continue
        if tokens.error is not None:
            return None
        read |= tokens.env
        used |= tokens.names.keys() | tokens.literals
    return Environment(frozenset(read), frozenset(used))


def _cited(rule: Rule, head: Tree, renames: Mapping[str, str], cache: ParseCache | None) -> set[str] | None:
    """The names the rule's pages cite at head, from their indexes (kept by blob id); None when
    there is no cache to keep them in: reading every page twice would cost more than the filter
    saves."""
    if cache is None:
        return None
    out: set[str] = set()
    for target in rule.docs:
        path = renames.get(target.path, target.path)
        index = page_index_cached(path, head, cache)
        if index is None:  # a page with no blob id (laid over a revision): read it
            text = head.read(path)
            if text is None:
                continue
            index = page_index(parse_doc_cached(path, text, head.blob_id(path), cache))
        out.update(_names(index.tokens))
    return out


def _names(tokens: Iterable[str]) -> Iterable[str]:
    for token in tokens:
        name = cited_name(token)
        if name is not None:
            yield name
