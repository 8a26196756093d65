"""The flags a module's calls of another module's option records declare
(bot/core/extract/option_records.py): the records read where they are defined, the calls read
again with them as argparse_flags reads a module's own. A name that module does not define as a
record declares nothing.
"""

from __future__ import annotations

from collections.abc import MutableMapping

from bot.core.blobcache import cached
from bot.core.extract import argparse_flags, parsed
from bot.core.extract.option_records import Helper, Record, records
from bot.core.model import Extraction, Fact, Tree
from bot.core.rules import Source

_FORMAT = "records-2"  # cache key prefix: bump when a resolution changes shape or meaning


class Resolver:
    """Resolves a module's references to the records of other modules, by the blob ids of all."""

    def __init__(self, tree: Tree, cache: MutableMapping[str, object] | None):
        from bot.core.extract.imports import Modules

        self.tree = tree
        self.cache = cache
        self.modules = Modules(tree, cache)

    def flags(self, source: Source, path: str, refs: list[Fact]) -> list[Fact]:
        defining: dict[str, set[str]] = {}  # module path -> the names called
        summary = self.modules.summary(path)
        if summary is None:
            return []
        for ref in refs:
            # through the module's imports, relative ones and re-exports included
            for found, name in self.modules.follow(path, summary, ref.token):
                if found != path:
                    defining.setdefault(found, set()).add(name)
        if not defining:
            return []
        blobs = [self.tree.blob_id(p) for p in (path, *sorted(defining))]
        names = ",".join(f"{p}:{'+'.join(sorted(n))}" for p, n in sorted(defining.items()))
        key = f"{_FORMAT}:{':'.join(str(b) for b in blobs)}:{path}:{names}:{source.id}"
        result = cached(
            self.cache, key if all(blobs) else None, Extraction, lambda: self._run(source, path, defining)
        )
        return [] if result is None else list(result.facts)

    def _run(self, source: Source, path: str, defining: dict[str, set[str]]) -> Extraction:
        text = self.tree.read(path)
        if text is None:
            return Extraction(facts=())
        declaring = frozenset(source.calls) or argparse_flags.DECLARING_CALLS
        foreign: dict[str, Record | Helper] = {}
        for other, names in defining.items():
            held = self.tree.read(other)
            if held is None:
                continue
            try:
                found = records(parsed.module(held, other), declaring)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            foreign.update({n: found[n] for n in names if n in found})
        if not foreign:
            return Extraction(facts=())
        try:
            tree = parsed.module(text, path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return Extraction(facts=())
        return Extraction(facts=tuple(argparse_flags.recorded(source, path, tree, foreign)))
