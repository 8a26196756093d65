"""The classes of a tyro command line whose class is chosen at run time, followed again in each
revision: the source names its roots (`Trainer.Config` and the classes deriving from it) and
the groups init found, but a change may move a group's class to a module the source does not
list (`components/checkpoint.py` split into `components/checkpointer/base.py` and `dcp.py`):
its flags are still the command line's. From each root the rule names (a `names` entry with no
group), its fields' classes are followed through the repository's imports
(bot/core/typed_clis.py) in this revision, and the modules they reach are read with the groups
found there. Nothing is executed.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.extract.imports import Modules
from bot.core.model import Extraction, Tree
from bot.core.rules import Source
from bot.core.typed_clis import Root, definition, follow

MAX_TEXT = 2_000_000  # a larger file is data, not a module of classes
MAX_ROOTS = 50


def followed(
    source: Source, tree: Tree, extract: Callable[[Source, str], Extraction | None]
) -> dict[str, Extraction]:
    """Path -> what the source's kind reads there with the groups followed in this revision,
    for each module the roots reach (those of the source's paths too: their groups may have
    changed). `extract(source, path)` reads one module (cached by the caller)."""
    modules = Modules(tree)
    names: dict[str, set[str]] = {}
    roots = [n for n in source.names if "=" not in n][:MAX_ROOTS]
    for path in source.paths:
        text = tree.read(path) or ""
        for name in roots:
            if f"class {name.rsplit('.', 1)[-1]}" not in text or name.split(".")[0] not in text:
                continue
            where = definition(modules, path, name, MAX_TEXT)
            if where is not None and where[0] == path:
                follow(modules, "tyro", Root("tyro", "", path, name), names, MAX_TEXT)
    separator = source.convention.separator if source.convention else "-"
    every = tuple(sorted({*source.names, *(spelt(n, separator) for v in names.values() for n in v)}))
    out: dict[str, Extraction] = {}
    for path in sorted(names):
        found = extract(
            Source(source.id, source.kind, (path,), convention=source.convention, names=every), path
        )
        if found is not None:
            out[path] = found
    return out


def spelt(entry: str, separator: str) -> str:
    """A `names` entry's group (`lr-scheduler=X`) with the separator the source spells flags with."""
    prefix, equals, name = entry.rpartition("=")
    return f"{prefix.replace('-', separator).replace('_', separator)}{equals}{name}"
