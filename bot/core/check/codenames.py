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
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from bot.core import lazyre
from bot.core.facts import (
    TOKENS_FORMAT,
    ParseCache,
    code_tokens_cached,
    parse_doc_cached,
)
from bot.core.model import READ_AHEAD, Tree, read_ahead
from bot.core.pageindex import page_index, page_index_cached
from bot.core.rules import Rule

# How a code span writes a name: `NAME`, `$NAME`, `${NAME}`.
_SPAN = lazyre.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$?([A-Za-z_][A-Za-z0-9_]*)")
_INNER_UNDERSCORE = lazyre.compile(r"_?[A-Za-z0-9]+_[A-Za-z0-9_]*[A-Za-z0-9]")  # snake_case, UPPER_CASE
_CAMEL = lazyre.compile(
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
    removed = _removed_names(changed, base, head, facts, cache)
    if removed and cache is not None:  # only names a page cites (no cache: reading every page
        cited = _cited(rule, head, renames, cache, removed)  # again would cost more than it saves)
        removed = {name: paths for name, paths in removed.items() if name in cited}
    if not removed:
        return {}
    lost: dict[str, Gone] = {}
    # Names a base source used as its own (not only as another package's: `nn.LayerNorm`, an
    # imported `ModelOutput`), and the names of the packages the repository holds.
    own_use: set[str] = set()
    packages = _Packages(base)
    for path, _ in changed:  # used in code at base, not only named in a comment or a docstring?
        if not any(path in paths for paths in removed.values()):
            continue
        tokens = code_tokens_cached(path, base, cache)
        if tokens is None or tokens.error is not None:
            continue
        for name in [n for n, paths in removed.items() if path in paths and n in tokens.names]:
            foreign = tokens.foreign.get(name)
            if foreign is None or any(packages.holds(t) for t in foreign.split()):
                own_use.add(name)
            if name in lost:
                first = lost[name]
                lost[name] = replace(first, env=first.env or name in tokens.env, files=first.files + 1)
            else:
                lost[name] = Gone(name, path, tokens.names[name], name in tokens.env)
    # Another package's name the sources stopped using (a class of transformers, torch's
    # `LayerNorm`): a page citing it speaks of that package, which still has it.
    lost = {name: gone for name, gone in lost.items() if name in own_use}
    # Still used anywhere at head (the touched sources first: they are read already)?
    for _, head_path in [*changed, *(pair for pair in pairs if pair not in changed)]:
        if not lost:
            break
        tokens = code_tokens_cached(head_path, head, cache, mentions=lost)
        if tokens is None:
            continue
        if tokens.error is not None:
            return {}  # a file read in part may use any of them past where it stopped
        for name in [n for n in lost if tokens.uses(n)]:
            del lost[name]
    # Still used beside the sources: a name the package uses elsewhere (`from_pretrained`, a
    # field of its config class) is the package's, not only the sources'. The part of the
    # repository a source stands for is its top-level folder (`miles/`, `scripts/`).
    if lost:
        read = {h for _, h in pairs}
        tops = {_top(h) for h in read}
        beside = sorted(
            p for p in head.paths() if p not in read and _top(p) in tops and p.endswith(_CODE_FILES)
        )
        for i, path in enumerate(beside[:_MAX_BESIDE]):
            if not lost:
                break
            if i % READ_AHEAD == 0:  # in the App, one query for the next 100 files
                read_ahead(head, beside[i : min(i + READ_AHEAD, _MAX_BESIDE)])
            tokens = code_tokens_cached(path, head, cache, mentions=lost)
            if tokens is None or tokens.error is not None:
                continue
            for name in [n for n in lost if tokens.uses(n)]:
                del lost[name]
    return lost


class _Packages:
    """Which top-level packages a revision holds (a folder or a module at the top, or under
    `src/`), asked by name."""

    def __init__(self, tree: Tree):
        self._tree = tree
        self._tops: frozenset[str] | None = None

    def holds(self, top: str) -> bool:
        if self._tops is None:
            found = set()
            for path in self._tree.paths():
                parts = path.removeprefix("src/").split("/")
                found.add(parts[0].removesuffix(".py"))
            self._tops = frozenset(found)
        return top in self._tops


# Files read for names still used beside the sources: code, at most this many.
_CODE_FILES = (".py", ".sh", ".bash")
_MAX_BESIDE = 3000


def _top(path: str) -> str:
    return path.split("/", 1)[0] if "/" in path else ""


_WORD = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _removed_names(
    changed: list[tuple[str, str]],
    base: Tree,
    head: Tree,
    facts: Collection[str],
    cache: ParseCache | None,
) -> dict[str, list[str]]:
    """Name -> the touched sources from which the change removed a line holding it (a line gone
    from the file, or the whole file). A name on none of those lines is still where it was: it
    cannot have vanished, and plain text says so without tokenizing anything."""
    out: dict[str, list[str]] = {}
    for path, head_path in changed:
        for word in _removed_words(path, head_path, base, head, cache):
            if word not in facts and cited_name(word) is not None:
                out.setdefault(word, []).append(path)
    return out


def _removed_words(
    path: str, head_path: str, base: Tree, head: Tree, cache: ParseCache | None
) -> frozenset[str]:
    """The words of the lines the change took out of one file, kept by the two blob ids."""
    blobs = (base.blob_id(path), head.blob_id(head_path) or "-")
    key = f"{TOKENS_FORMAT}:removed:{blobs[0]}:{blobs[1]}" if blobs[0] else None
    if cache is not None and key is not None:
        hit = cache.get(key)
        if isinstance(hit, frozenset):
            return hit
    text = base.read(path)
    kept = set((head.read(head_path) or "").splitlines())
    words = frozenset(
        w for line in (text or "").splitlines() if line not in kept for w in _WORD.findall(line)
    )
    if cache is not None and key is not None:
        cache[key] = words
    return words


_ENV_NAME = lazyre.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def env_name(token: str) -> str | None:
    """The environment variable a code-style token may name (`MILES_DEBUG`, `$MILES_DEBUG`)."""
    name = cited_name(token)
    return name if name is not None and _ENV_NAME.fullmatch(name) else None


@dataclass(frozen=True)
class Environment:
    """What the rule's sources read from the environment at head, and every name they use or
    write of in a string."""

    read: frozenset[str]
    used: frozenset[str]


def environment(
    rule: Rule, head: Tree, renames: Mapping[str, str], cache: ParseCache | None, cited: Collection[str]
) -> Environment | None:
    """None when a source could not be read whole: then any name may be used past where it stopped.
    Of the names the sources use, only `cited` (the variables the page may name) are asked about:
    a file whose text writes none of them, nor `environ` or `getenv`, is not tokenized."""
    read: set[str] = set()
    used: set[str] = set()
    mentions = {*cited, "environ", "getenv"}
    for path in dict.fromkeys(renames.get(p, p) for s in rule.sources if s.kind != "paths" for p in s.paths):
        tokens = code_tokens_cached(path, head, cache, mentions)
        if tokens is None:
            continue
        if tokens.error is not None:
            return None
        read |= tokens.env
        used |= tokens.names.keys() | tokens.literals | tokens.mentioned
    return Environment(frozenset(read), frozenset(used))


def _cited(
    rule: Rule, head: Tree, renames: Mapping[str, str], cache: ParseCache, names: Collection[str]
) -> set[str]:
    """Those of `names` the rule's pages cite at head in code style, as their indexes (kept by
    blob id) say."""
    wanted = {spelling: name for name in names for spelling in spellings(name)}
    named = frozenset(names)
    lowered = [n.lower() for n in named]
    out: set[str] = set()
    for target in rule.docs:
        path = renames.get(target.path, target.path)
        index = page_index_cached(
            path, head, cache, lambda words: words.names(named), lambda text: any(n in text for n in lowered)
        )
        if index is None and head.blob_id(path) is None:  # a page laid over a revision: read it
            text = head.read(path)
            if text is None:
                continue
            index = page_index(parse_doc_cached(path, text, None, cache))
        if index is not None:
            out.update(wanted[t] for t in index.tokens if t in wanted)
    return out
