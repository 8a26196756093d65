"""The facts one rule sees in one revision: extracted from its sources, cached by blob id.

Also the cached page parse, for the same reason: a file whose content did not change is never
read or parsed twice.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, MutableMapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from bot.core.blobcache import cached
from bot.core.extract.applied_options import APPLIED
from bot.core.extract.built_fields import BUILT
from bot.core.extract.handed_parsers import HANDED
from bot.core.extract.imported_rounds import IMPORTED
from bot.core.extract.option_records import RECORD
from bot.core.extract.runtime_root import RUNTIME_ROOT
from bot.core.model import CodeTokens, Extraction, Fact, ParseError, Tree
from bot.core.page import DocPage, parse_doc
from bot.core.rules import Rule, Source

if TYPE_CHECKING:
    from bot.core.programs import Programs

# Where the parses of files are kept: extractions and parsed pages, keyed by git blob id
# (content-addressed, so never stale). Any mutable mapping will do; bot/trees/factcache.py keeps
# one in SQLite across runs.
ParseCache = MutableMapping[str, object]

# Part of every cache key: bump when the extractors (or the page parser) read the same text
# differently, so that a cache on disk never hands back what an older version made of it.
EXTRACTION_FORMAT = "x39"
PAGE_FORMAT = "doc45"
TOKENS_FORMAT = "tok5"  # bot/core/extract/tokens.py


@dataclass
class Facts:
    """All facts one rule sees in one revision, indexed the ways the check asks for them."""

    facts: list[Fact] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    by_token: dict[str, list[Fact]] = field(default_factory=lambda: defaultdict(list))
    by_key: dict[tuple[str, str, str], list[Fact]] = field(default_factory=lambda: defaultdict(list))
    # group -> token -> the last string fact of that group with that token; asked once per page
    # and set, so kept rather than recomputed from every fact
    by_group: dict[str, dict[str, Fact]] = field(default_factory=lambda: defaultdict(dict))

    def add(self, fact: Fact) -> None:
        self.facts.append(fact)
        self.by_token[fact.token].append(fact)
        self.by_key[(fact.source, fact.kind, fact.key)].append(fact)
        if fact.kind == "string" and fact.group is not None:
            self.by_group[fact.group][fact.token] = fact

    def flags(self) -> Iterable[Fact]:
        return (f for f in self.facts if f.kind == "flag")

    def group(self, group: str) -> dict[str, Fact]:
        return dict(self.by_group.get(group, {}))

    def knows(self, token: str, *, flag: bool) -> bool:
        return any((f.kind == "flag") == flag for f in self.by_token.get(token, ()))

    def choice_owners(self, value: str) -> list[Fact]:
        """The flags (one per dest) that offer `value` among their choices."""
        owners: dict[str, Fact] = {}
        for f in self.flags():
            if value in (f.attr("choices") or "").split(",") and not f.token.startswith("--no-"):
                owners.setdefault(f.key, f)
        return list(owners.values())


def named_programs(rule: Rule) -> dict[str, tuple[str, ...]]:
    """Program name -> the parser paths of the rule's sources that name it (`programs: [...]`)."""
    out: dict[str, list[str]] = {}
    for source in rule.sources:
        for name in source.programs:
            out.setdefault(name, []).extend(source.paths)
    return {name: tuple(paths) for name, paths in out.items()}


def with_programs(fact: Fact, found: Programs, path: str | None = None) -> Fact:
    """The flag with its programs' keys: which process it belongs to is the tree's business, not the
    file's, so this is added after the (per-file, cached) extraction. `path` is the module whose
    programs take it, when not its own (an option a command applies from another module)."""
    return fact.with_attrs({"programs": " ".join(found.programs_of(path or fact.path))})


def _source_signature(source: Source) -> str:
    # What an extractor reads of its source: not the files it lists nor what the rest of the check
    # does with its facts, so two rules (or a glob and a list) reading one file share its facts.
    reads = replace(source, paths=(), programs=(), enumerated=False)
    return hashlib.sha1(repr(reads).encode()).hexdigest()[:12]


def _extract_cached(source: Source, path: str, tree: Tree, cache: ParseCache | None) -> Extraction | None:
    blob = tree.blob_id(path)
    key = f"{EXTRACTION_FORMAT}:{blob}:{path}:{_source_signature(source)}" if blob else None

    def extracted() -> Extraction | None:  # not called on a hit: the file is not even read
        text = tree.read(path)
        if text is None:
            return None
        from bot.core.extract import extract  # only a cache miss needs the extractors

        return extract(source, path, text)

    return cached(cache, key, Extraction, extracted)


def code_tokens_cached(
    path: str, tree: Tree, cache: ParseCache | None, mentions: Collection[str] = ()
) -> CodeTokens | None:
    """The names `path` uses in code in this revision (None: no such file, or no language read).
    With `mentions`, a file whose text names none of them is not tokenized (nor cached): it uses
    none of them, which is all the caller asks."""
    blob = tree.blob_id(path)
    key = f"{TOKENS_FORMAT}:{blob}:{path}" if blob else None
    if cache is not None and key is not None and key in cache:
        hit = cache[key]
        return hit if isinstance(hit, CodeTokens) else None
    text = tree.read(path)
    if text is None:
        return None
    if mentions and not any(name in text for name in mentions):
        return CodeTokens()
    from bot.core.extract.tokens import code_tokens

    result = code_tokens(path, text)
    if cache is not None and key is not None:
        cache[key] = result  # None too: a file in no language we read is not read again
    return result


def parse_doc_cached(path: str, text: str, blob: str | None, cache: ParseCache | None) -> DocPage:
    key = f"{PAGE_FORMAT}:{blob}:{path}" if blob else None
    return cached(cache, key, DocPage, lambda: parse_doc(path, text))


def _choice_facts(flag: Fact) -> Iterable[Fact]:
    """A flag's literal choices are facts too: the doc cites them as bare values (`fsdp`)."""
    choices = flag.attr("choices")
    if not choices or flag.token.startswith("--no-"):
        return ()
    return (
        Fact(
            kind="string",
            token=c,
            key=f"{flag.key}:{c}",
            source=flag.source,
            path=flag.path,
            line=flag.line,
            group=f"choices of {flag.token}",
        )
        for c in choices.split(",")
        if c
    )


def gather(
    rule: Rule,
    tree: Tree,
    cache: ParseCache | None = None,
    renames: dict[str, str] | None = None,
    found: Programs | None = None,
) -> Facts:
    """Extract every fact the rule's sources yield in this revision.

    `renames` maps a source path to where the change moved it, so a moved module keeps its facts.
    Flags carry the programs that take them (attribute `programs`, bot/core/programs.py): `found`,
    or the programs of `tree` with the ones the rule's sources name.
    """
    out = Facts()
    extracted: list[tuple[Source, Fact, str]] = []  # each with the path whose programs take it
    for source in rule.sources:
        if source.kind in ("paths", "tokens"):  # facts of no file (tokens: code_tokens_cached)
            continue
        for path in source.paths:
            actual = (renames or {}).get(path, path)
            result = _extract_cached(source, actual, tree, cache)
            if result is None:
                continue
            out.errors.extend(result.errors)
            extracted.extend((source, fact, actual) for fact in result.facts)
    if any(fact.kind == APPLIED for _, fact, _ in extracted):
        extracted = _applied(extracted, tree, cache)
    if any(fact.kind == BUILT for _, fact, _ in extracted):
        extracted = _built(extracted, tree, cache, out.errors)
    if any(fact.kind == IMPORTED for _, fact, _ in extracted):
        extracted = _imported(extracted, tree, cache)
    if any(fact.kind == RECORD for _, fact, _ in extracted):
        extracted = _recorded(extracted, tree, cache)
    if any(source.kind in _LINKED_KINDS for source, _, _ in extracted):
        extracted = _linked(extracted, tree, cache)
    if any(fact.kind == RUNTIME_ROOT for _, fact, _ in extracted):
        extracted = _run_time_rooted(extracted, tree, cache)
    if any(fact.kind == HANDED for _, fact, _ in extracted):
        from bot.core.extract.handed_parsers import resolve

        extracted = resolve(extracted, tree, cache)
    if any(source.kind == "argparse" for source, _, _ in extracted):
        from bot.core.extract.class_commands import place

        extracted = place(extracted, tree, cache)
    for _, fact, path in extracted:
        if fact.kind == "flag":
            if found is None:
                from bot.core.programs import programs  # it reads the extractors' modules

                found = programs(tree, cache, named_programs(rule))
            fact = with_programs(fact, found, path)
        out.add(fact)
        if fact.kind == "flag":
            for choice in _choice_facts(fact):
                out.add(choice)
    return out


_LINKED_KINDS = frozenset({"click", "typer"})


def _linked(
    extracted: list[tuple[Source, Fact, str]], tree: Tree, cache: ParseCache | None
) -> list[tuple[Source, Fact, str]]:
    """The click and typer facts joined across modules (bot/core/extract/command_links.py): a
    command registered from another module, a sub-app's words, an alias's option strings."""
    from bot.core.extract.command_links import link

    def more(source: Source, path: str) -> tuple[Fact, ...]:
        result = _extract_cached(replace(source, paths=(path,)), path, tree, cache)
        return result.facts if result is not None else ()

    return link(extracted, tree, cache, more)


def file_facts(source: Source, path: str, tree: Tree, cache: ParseCache | None = None) -> list[Fact]:
    """The facts one file of a source yields in this revision, the options its commands apply
    from other modules (`@options.upgrade`) resolved: what `docs-sync init` reads of a module."""
    result = _extract_cached(source, path, tree, cache)
    extracted = [(source, fact, path) for fact in (result.facts if result else ())]
    if any(fact.kind == APPLIED for _, fact, _ in extracted):
        extracted = _applied(extracted, tree, cache)
    if any(fact.kind == BUILT for _, fact, _ in extracted):
        extracted = _built(extracted, tree, cache, [])
    if any(fact.kind == IMPORTED for _, fact, _ in extracted):
        extracted = _imported(extracted, tree, cache)
    if any(fact.kind == RECORD for _, fact, _ in extracted):
        extracted = _recorded(extracted, tree, cache)
    return [fact for _, fact, _ in extracted if fact.kind != HANDED]


def _run_time_rooted(
    extracted: list[tuple[Source, Fact, str]], tree: Tree, cache: ParseCache | None
) -> list[tuple[Source, Fact, str]]:
    """A source one of whose modules hands `tyro.cli` a type made at run time: its flags (those
    of the classes it names: the root's, its subclasses', and each group's classes, followed
    again in this revision by bot/core/runtime_follow.py) are that call's, taken by the programs
    reaching that module."""
    from bot.core.runtime_follow import followed

    rooted = {source.id: (source, path) for source, fact, path in extracted if fact.kind == RUNTIME_ROOT}
    again: dict[str, dict[str, Extraction]] = {
        sid: followed(source, tree, lambda s, p: _extract_cached(s, p, tree, cache))
        for sid, (source, _) in rooted.items()
    }
    out: list[tuple[Source, Fact, str]] = []
    for source, fact, path in extracted:
        if fact.kind == RUNTIME_ROOT or (source.id in again and fact.path in again[source.id]):
            continue  # a marker, or a module read again with the groups of this revision
        out.append(
            (source, fact, rooted[source.id][1] if source.id in rooted and fact.kind == "flag" else path)
        )
    for sid, found in again.items():
        source, root = rooted[sid]
        for result in found.values():
            out += [
                (source, f, root if f.kind == "flag" else f.path)
                for f in result.facts
                if f.kind != RUNTIME_ROOT
            ]
    return out


def _built(
    extracted: list[tuple[Source, Fact, str]], tree: Tree, cache: ParseCache | None, errors: list[ParseError]
) -> list[tuple[Source, Fact, str]]:
    """The facts with each dataclass handed to a builder of another module (`add_cli_args_from_
    dataclass(parser, ServerArgs)`) replaced by the flags that builder makes of its fields, where
    it is read and understood (bot/core/extract/field_builders.py); by nothing otherwise."""
    from bot.core.extract.field_builders import Resolver

    resolver = Resolver(tree, cache)
    out = _replaced(extracted, BUILT, lambda _source, fact: resolver.flags(fact))
    errors.extend(resolver.errors)  # a builder that took more steps than it is given
    return out


def _replaced(
    extracted: list[tuple[Source, Fact, str]], kind: str, flags: Callable[[Source, Fact], list[Fact]]
) -> list[tuple[Source, Fact, str]]:
    """The facts with each reference of `kind` replaced by the flags it resolves to."""
    out: list[tuple[Source, Fact, str]] = []
    for source, fact, path in extracted:
        if fact.kind != kind:
            out.append((source, fact, path))
            continue
        out.extend((source, flag, path) for flag in flags(source, fact))
    return out


def _imported(
    extracted: list[tuple[Source, Fact, str]], tree: Tree, cache: ParseCache | None
) -> list[tuple[Source, Fact, str]]:
    """The facts with each loop over another module's constant (`for name in
    sorted(defaults.REPORTER_NAMES):`) replaced by the flags its rounds declare, where that module
    spells the constant out (bot/core/extract/imported_values.py); by nothing otherwise."""
    from bot.core.extract.imported_values import Resolver

    return _replaced(extracted, IMPORTED, Resolver(tree, cache).flags)


def _recorded(
    extracted: list[tuple[Source, Fact, str]], tree: Tree, cache: ParseCache | None
) -> list[tuple[Source, Fact, str]]:
    """The facts with each module's calls of another module's option records (`_option_set.Option(
    "sessions", "-s", ...)`) read as the flags that module's parser makes of them
    (bot/core/extract/option_records.py), and the references dropped."""
    from bot.core.extract.recorded_flags import Resolver

    refs: dict[tuple[str, str], tuple[Source, str, list[Fact]]] = {}
    out: list[tuple[Source, Fact, str]] = []
    for source, fact, path in extracted:
        if fact.kind != RECORD:
            out.append((source, fact, path))
            continue
        refs.setdefault((source.id, fact.path), (source, path, []))[2].append(fact)
    resolver = Resolver(tree, cache)
    for (_, module), (source, path, found) in refs.items():
        out.extend((source, flag, path) for flag in resolver.flags(source, module, found))
    return out


def _applied(
    extracted: list[tuple[Source, Fact, str]], tree: Tree, cache: ParseCache | None
) -> list[tuple[Source, Fact, str]]:
    """The facts with each option a command applies from another module (`@options.upgrade`) in
    place of its reference: the command's flag, taken by the command's programs
    (bot/core/extract/applied_options.py). The shared options of a module the rule's commands
    apply options from are flags of the commands that apply them, and of no command otherwise."""
    from bot.core.extract.applied_options import Resolver, as_command_flags
    from bot.core.extract.nested_flags import opened

    resolver = Resolver(tree, cache)
    applied: set[str] = set()  # the modules commands apply options from
    unread: set[tuple[str, str | None]] = set()  # (module, subcommand) of commands applying what is no option
    out: list[tuple[Source, Fact, str]] = []
    for source, ref, path in extracted:
        if ref.kind != APPLIED:
            continue
        target = resolver.target(ref)
        if target is None:
            continue
        result = _extract_cached(source, target[0], tree, cache)
        options = (
            [f for f in result.facts if f.kind == "flag" and f.attr("assigned") == target[1]]
            if result
            else []
        )
        if not options:
            if resolver.is_function(target):
                # A decorator of another kind (mergekit's `@add_merge_options`, adding a click
                # option for each field of a model): the command may take options no file shows.
                unread.add((ref.path, ref.attr("subcommand")))
            continue
        applied.add(target[0])
        out.extend((source, f, path) for f in as_command_flags(options, ref))
    kept = [
        (s, f, p)
        for s, f, p in extracted
        if f.kind != APPLIED and not (f.attr("assigned") and f.path in applied)
    ]
    return [
        (s, opened(f) if f.kind == "flag" and (p, f.attr("subcommand")) in unread else f, p)
        for s, f, p in kept + out
    ]
