"""Command lines declared with decorators, found for `docs-sync init`: the modules whose click or
typer commands declare options (bot/core/extract/click_flags.py), each with its flags, so the
pages citing them are coupled to them as a `click` or `typer` source.

Pure, and nothing executed: files are read from the tree and parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from bot.core.extract.command_links import link
from bot.core.extract.imports import Modules
from bot.core.model import Fact, Tree
from bot.core.rules import Source

KINDS = ("click", "typer")
MAX_TEXT = 2_000_000  # a file larger than this is data, not a command line
_IMPORTS = {kind: re.compile(rf"^\s*(?:import|from)\s+{kind}\b", re.M) for kind in KINDS}
_IMPORTS["click"] = re.compile(r"^\s*(?:import|from)\s+(?:click|rich_click|asyncclick|cloup)\b", re.M)


def parsers(tree: Tree, paths: Iterable[str]) -> Iterator[tuple[str, str, frozenset[str], frozenset[str]]]:
    """(path, kind, option strings, the modules declaring them) of each module declaring a click
    or typer command line, and of each module registering typer commands on an app another one
    defines (`from .main import app, Opt`: it need not import typer itself)."""
    from bot.core.extract import extract  # imported when init runs
    from bot.core.facts import file_facts

    typer_modules: set[str] = set()
    registering: list[str] = []
    extracted: list[tuple[Source, Fact, str]] = []
    for path in paths:
        text = tree.read(path)
        if text is None or len(text) > MAX_TEXT:
            continue
        kinds = [kind for kind in KINDS if _IMPORTS[kind].search(text)]
        if not kinds and ".command(" in text:
            registering.append(path)
        for kind in kinds:
            typer_modules.update([path] if kind == "typer" else [])
            source = Source(id=f"{kind}-cli", kind=kind, paths=(path,))
            # with the modules it applies options from (`@options.upgrade`)
            extracted.extend((source, f, path) for f in file_facts(source, path, tree))
    # Commands registered from another module are commands there; a function none registers is not.
    found: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    for source, fact, path in link(extracted, tree, None, lambda source, path: ()):
        if fact.kind == "flag":
            tokens, declaring = found.setdefault((path, source.kind), (set(), set()))
            tokens.add(fact.token)
            declaring.add(fact.path)
    for (path, kind), (tokens, declaring) in sorted(found.items()):
        yield path, kind, frozenset(tokens), frozenset(declaring)
    if not registering or not typer_modules:
        return
    modules = Modules(tree)
    for path in registering:
        summary = modules.summary(path)
        if summary is None:
            continue
        sources = {at for name in summary.imports for at, _ in modules._follow(path, summary, name)}
        text = tree.read(path) if sources & typer_modules else None
        if text is not None:
            registered = extract(Source(id="typer-cli", kind="typer", paths=(path,)), path, text).facts
            flags = frozenset(f.token for f in registered if f.kind == "flag")
            if flags:
                yield path, "typer", flags, frozenset({path})
