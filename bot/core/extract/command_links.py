"""Commands one module registers from another: huggingface_hub's `hf.py` puts `download` (defined
in `download.py`) under its app with `app.command()(download)`, the function `make_cp()` returns
with `app.command()(make_cp())`, and the commands of `cache.py`'s app under the word `cache` with
`app.add_typer(cache_cli, name="cache")`; a parameter's type may be an `Annotated[...]` alias
another module defines (`token: TokenOpt = None`, `TokenOpt = Annotated[str, typer.Option(...)]`).

Extraction reads one file, so each side says what it can (bot/core/extract/click_flags.py): the
registering module a fact of kind `command-link` (token the name as imported, key how: `command`,
`typer` or `add_command`; attributes `words` given, `called` for a factory's product, `under` the
words of the app it registers on, `root` that app's name, `root_named` the words that click group
answers to, `alone` when the app has no other command), the defining module its commands' flags
with the name of the group or app they are under (`root`) and, for a function no decorator makes a
command, the word typer would give it (`candidate`), and the options each alias declares (kind
`option-alias`). `link` joins them for one revision: the import is followed statically through the
repository (a few re-exports deep), a command gets the words of every place that registers it
(through chains of apps), a candidate nobody registers is no command, and an alias's option strings
replace the parameter's own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import replace
from typing import Final

from bot.core.extract.imports import Modules
from bot.core.model import Fact, Tree
from bot.core.rules import Source

LINK: Final = "command-link"
ALIAS: Final = "option-alias"
ALIAS_NAME = "__alias__"  # the parameter name an alias's facts are extracted under
MAX_LINKS = 2_000  # links followed in one revision of one rule
MAX_HOPS = 4  # re-exports followed to a definition
MAX_DEPTH = 8  # apps registered on apps
# What an alias says about an option; the rest (default, subcommand, ...) is the parameter's.
_ALIAS_ATTRS = frozenset({"help", "choices", "type", "envvar", "metavar", "nargs", "action", "sets"})
_OWN_ATTRS = ("root", "candidate", "named", "completion", "root_named")

Extracted = list[tuple[Source, Fact, str]]  # each with the path whose programs take it


def with_alias(fact: Fact, name: str) -> Fact:
    return replace(fact, attrs=tuple(sorted({**dict(fact.attrs), "alias": name}.items())))


def link(
    extracted: Extracted,
    tree: Tree,
    cache: MutableMapping[str, object] | None,
    more: Callable[[Source, str], Iterable[Fact]],
) -> Extracted:
    """The facts with links resolved and their own marks gone. `more(source, path)` extracts a
    module the rule's sources do not list (a registered function defined elsewhere)."""
    if not any(f.kind == LINK or f.attr("alias") or f.attr("candidate") for _, f, _ in extracted):
        return [(s, _clean(f, {}), p) for s, f, p in extracted if f.kind != ALIAS]
    resolver = _Resolver(Modules(tree, cache))
    extracted = list(extracted)
    read = {f.path for _, f, _ in extracted}

    def facts_of(source: Source, path: str) -> None:
        if path not in read:
            read.add(path)
            extracted.extend((source, f, path) for f in more(source, path))

    mounts: dict[tuple[str, str], list[Fact]] = {}
    for source, ph in [(s, f) for s, f, _ in extracted if f.kind == LINK][:MAX_LINKS]:
        target = resolver.resolve(ph.path, ph.token)
        if target is not None:
            facts_of(source, target[0])
            name = f"{target[1]}()" if ph.attr("called") else target[1]
            mounts.setdefault((target[0], name), []).append(ph)
    for source, f, _ in list(extracted):
        alias = f.attr("alias")
        if alias:
            target = resolver.resolve(f.path, alias)
            if target is not None:
                facts_of(source, target[0])
    aliases: dict[tuple[str, str], list[Fact]] = {}
    for _, f, _ in extracted:
        if f.kind == ALIAS:
            aliases.setdefault((f.path, f.key), []).append(f)
    out: Extracted = []
    for source, f, taken in extracted:
        if f.kind in (LINK, ALIAS):
            continue
        placed = _placed(f, mounts)
        if placed is not None:
            out.extend((source, fact, taken) for fact in _aliased(placed, resolver, aliases))
    return out


class _Resolver:
    def __init__(self, modules: Modules):
        self.modules = modules
        self._memo: dict[tuple[str, str], tuple[str, str] | None] = {}

    def resolve(self, path: str, name: str) -> tuple[str, str] | None:
        """(module, name) where the name `path` imports is defined, through re-exports."""
        if (path, name) not in self._memo:
            found: tuple[str, str] | None = None
            at = (path, name)
            for _ in range(MAX_HOPS):
                summary = self.modules.summary(at[0])
                if summary is None or at[1] not in summary.imports or at[1] in summary.units:
                    found = at if at != (path, name) else None
                    break
                follow = self.modules._follow(at[0], summary, at[1])
                if not follow or follow[0] == at:
                    break
                at = follow[0]
                found = at
            self._memo[(path, name)] = found
        return self._memo[(path, name)]


def _placed(fact: Fact, mounts: dict[tuple[str, str], list[Fact]]) -> Fact | None:
    """The fact with the words every registration of its command gives it; None for a candidate
    nobody registers, or typer's completion options of an app registered under another."""
    root = fact.attr("root")
    entries = mounts.get((fact.path, root)) if root else None
    if not entries:
        return None if fact.attr("candidate") else _clean(fact, {})
    if fact.attr("completion"):
        return None
    own = [tuple(p.split()) for p in (fact.attr("subcommand") or "").split(",") if p] or [()]
    paths: set[tuple[str, ...]] = set()
    for entry in entries:
        for prefix in _prefixes(entry, mounts, 0):
            for word in _words(entry, fact, prefix):
                paths.update((*prefix, *word, *sub) for sub in own)
    where = ",".join(sorted(" ".join(p) for p in paths if p))
    return _clean(fact, {"subcommand": where} if where else {})


def _words(entry: Fact, fact: Fact, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
    given = (entry.attr("words") or "").split(",")
    words = [w for w in given if w]
    if not words and entry.key == "command":
        if entry.attr("alone") and not prefix:
            return [()]
        words = [fact.attr("candidate") or ""]
    elif not words and entry.key == "add_command":
        words = (fact.attr("named") or "").split(",")
    kept: list[tuple[str, ...]] = [(w,) for w in words if w]
    return kept or [()]


def _prefixes(entry: Fact, mounts: dict[tuple[str, str], list[Fact]], depth: int) -> set[tuple[str, ...]]:
    """The words before the command's own: those of the app it is registered on, itself perhaps
    registered under another's."""
    under = [tuple(p.split()) for p in (entry.attr("under") or "").split(",") if p] or [()]
    root = entry.attr("root") or ""
    above = mounts.get((entry.path, root)) if depth < MAX_DEPTH else None
    bases: set[tuple[str, ...]] = set()
    for outer in above or ():
        for prefix in _prefixes(outer, mounts, depth + 1):
            given = [w for w in (outer.attr("words") or "").split(",") if w]
            if not given and outer.key == "add_command":  # the group's own words
                given = [w for w in (entry.attr("root_named") or "").split(",") if w]
            bases.update((*prefix, w) for w in given) if given else bases.add(prefix)
    return {(*b, *u) for b in (bases or {()}) for u in under}


def _aliased(fact: Fact, resolver: _Resolver, aliases: dict[tuple[str, str], list[Fact]]) -> list[Fact]:
    """A parameter typed with an alias as the alias declares it, there: its option strings (`-e`,
    `--env`), help and choices, with the parameter's default and subcommand; none for a
    `typer.Argument`."""
    name = fact.attr("alias")
    if not name:
        return [fact]
    target = resolver.resolve(fact.path, name)
    declared = aliases.get(target, []) if target is not None else []
    if not declared:
        return [_clean(fact, {}, drop=("alias",))]  # not found: the parameter's own name
    if any(d.attr("argument") for d in declared):
        return []
    if fact.token != "--" + fact.key.lower().replace("_", "-"):
        return []  # the parameter's `--no-x`: the alias's own facts stand for both
    stem = fact.key.lower().replace("_", "-")
    mine = {k: v for k, v in fact.attrs if k not in _ALIAS_ATTRS and k != "alias"}
    out = []
    for d in declared:
        theirs = {k: v for k, v in d.attrs if k in _ALIAS_ATTRS}
        if mine.get("default") == "True" and theirs.get("sets") == "true" and len(declared) == 1:
            theirs["sets"] = "false"
        token = d.token.replace(ALIAS_NAME.replace("_", "-"), stem)
        # Declared where the alias is: a rename there is a change of that file's lines.
        attrs = tuple(sorted({**mine, **theirs}.items()))
        out.append(replace(fact, token=token, path=d.path, line=d.line, attrs=attrs))
    return out


def _clean(fact: Fact, attrs: dict[str, str], drop: Iterable[str] = _OWN_ATTRS) -> Fact:
    if not attrs and not any(k in drop for k, _ in fact.attrs):
        return fact
    kept = {k: v for k, v in fact.attrs if k not in drop}
    kept.update(attrs)
    return replace(fact, attrs=tuple(sorted(kept.items())))
