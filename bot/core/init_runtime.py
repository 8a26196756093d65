"""`docs-sync init` for a tyro command line whose class is chosen at run time: a config manager
looks a config function up by the name it is given and hands `tyro.cli` the type of what it
returns (`tyro.cli(type(config), default=config)`). No file names the class, so it is found
from what the pages cite: the dataclass of the repository whose nested fields make the most of
the dotted flags the pages cite (`--training.steps` is the field `steps` of the class its field
`training` holds), with the classes deriving from it (a config function may return one of
those), each followed to the files of its groups (bot/core/typed_clis.py). The source also lists
the module of the call: its `runtime-root` fact makes the classes' flags that call's, taken by
the programs reaching it, and open (bot/core/facts.py). Pure: it reads the tree it is given.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Mapping

from bot.core.extract import parsed
from bot.core.extract.constants import dotted
from bot.core.extract.imports import Modules
from bot.core.extract.runtime_root import RUNTIME_ROOT
from bot.core.extract.typed_fields import is_dataclass, nested_classes
from bot.core.model import Tree
from bot.core.rules import Source
from bot.core.runtime_follow import spelt
from bot.core.typed_clis import Root, TypedCli, definition, follow

MIN_CITED = 3  # distinct dotted flags of the pages a class must make to be taken for the root
MAX_CANDIDATES = 5  # classes followed through their groups, the likeliest first
MAX_SUBCLASSES = 30
MAX_GROUPS = 200  # groups whose subclasses are looked for


def found(tree: Tree, sources: Iterable[str], cited: set[str], max_text: int) -> list[TypedCli]:
    """One command line per module handing `tyro.cli` a type made at run time, when a class of
    the repository makes at least MIN_CITED of the dotted flags `cited` (the pages' flags)."""
    dotted_cited = {_plain(f) for f in cited if "." in f and f.startswith("--")}
    if len(dotted_cited) < MIN_CITED:
        return []
    texts = {p: t for p in sources if (t := tree.read(p)) is not None and len(t) <= max_text}
    callers = [p for p, t in texts.items() if "tyro" in t and _calls_at_run_time(p, t)]
    if not callers:
        return []
    cited_groups = Counter(f[2:].split(".", 1)[0] for f in dotted_cited)
    modules = Modules(tree)
    classes = _classes(texts)
    ranked = sorted(
        (
            (score, path, name)
            for path, name, fields in classes
            if (score := _groups_met(fields, cited_groups)) >= 2
        ),
        key=lambda x: (-x[0], x[1], x[2]),
    )[:MAX_CANDIDATES]
    best: tuple[int, str, str, dict[str, set[str]], frozenset[str]] | None = None
    for _, path, name in ranked:
        names: dict[str, set[str]] = {}
        follow(modules, "tyro", Root("tyro", "", path, name), names, max_text)
        flags = _flags(tree, names)
        met = len({_plain(f) for f in flags} & dotted_cited)
        if met >= MIN_CITED and (best is None or met > best[0]):
            best = (met, path, name, names, flags)
    if best is None:
        return []
    _, path, name, names, flags = best
    groups: list[tuple[str, str, str]] = []
    for sub_path, sub_name in [(path, name), *_subclasses(modules, classes, path, name, max_text)]:
        follow(modules, "tyro", Root("tyro", "", sub_path, sub_name), names, max_text, groups)
    # The config function's instance may hold a subclass of a group's class (a text data
    # loader's config for `dataloader: BaseDataLoader.Config`): tyro reads that one's fields.
    done: set[tuple[str, str, str]] = set()
    while groups and len(done) < MAX_GROUPS:
        prefix, group_path, group = groups.pop()
        if (prefix, group_path, group) in done:
            continue
        done.add((prefix, group_path, group))
        for sub_path, sub_name in _subclasses(modules, classes, group_path, group, max_text):
            follow(modules, "tyro", Root("tyro", prefix, sub_path, sub_name), names, max_text, groups)
            groups.append((prefix, sub_path, sub_name))  # and the classes deriving from it
    flags = _flags(tree, names)
    separator = _separator(flags, cited)
    every = tuple(sorted({spelt(n, separator) for entries in names.values() for n in entries}))
    return [
        TypedCli(
            callers[0],
            "tyro",
            frozenset(_spelt(f, separator) for f in flags),
            tuple(sorted({callers[0], *names})),
            every,
            separator=separator,
        )
    ]


def _calls_at_run_time(path: str, text: str) -> bool:
    from bot.core.extract.tyro_flags import runtime_roots

    module = _parse(text)
    return module is not None and any(f.kind == RUNTIME_ROOT for f in runtime_roots(module, "cli", path))


def _classes(texts: Mapping[str, str]) -> list[tuple[str, str, list[str]]]:
    """(path, dotted name, field names of a class type) of each dataclass of the modules."""
    out = []
    for path, text in texts.items():
        if "dataclass" not in text:
            continue
        module = _parse(text)
        for name, cls in nested_classes(module).items() if module is not None else ():
            if not is_dataclass(cls):
                continue
            fields = [
                s.target.id
                for s in cls.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and _is_class(s.annotation)
            ]
            out.append((path, name, fields))
    return out


def _is_class(annotation: ast.expr) -> bool:
    """`Profiler.Config`, `TrainingConfig`: a name a class may have (capitalised)."""
    name = dotted(annotation) or ""
    return name.rsplit(".", 1)[-1][:1].isupper()


def _groups_met(fields: list[str], groups: Counter[str]) -> int:
    return sum(1 for f in fields if f.replace("_", "-") in groups)


def _subclasses(
    modules: Modules, classes: list[tuple[str, str, list[str]]], path: str, name: str, max_text: int
) -> list[tuple[str, str]]:
    """The classes of the repository deriving from `name` of `path`."""
    out: list[tuple[str, str]] = []
    outer = name.split(".")[0]
    for other_path, other, _ in classes:
        text = modules.tree.read(other_path) or ""
        if (other_path, other) == (path, name) or outer not in text or len(out) >= MAX_SUBCLASSES:
            continue
        module = _parse(text)
        cls = nested_classes(module).get(other) if module is not None else None
        for base in cls.bases if cls is not None else ():
            spelt = dotted(base)
            where = definition(modules, other_path, spelt, max_text) if spelt else None
            if where is not None and where[:2] == (path, name):
                out.append((other_path, other))
    return out


def _flags(tree: Tree, names: dict[str, set[str]]) -> frozenset[str]:
    from bot.core.extract import extract

    every = tuple(sorted({n for entries in names.values() for n in entries}))
    out: set[str] = set()
    for file in sorted(names):
        content = tree.read(file)
        if content is not None:
            source = Source(id="cli", kind="tyro", paths=(file,), names=every)
            out |= {f.token for f in extract(source, file, content).facts if f.kind == "flag"}
    return frozenset(out)


def _separator(flags: Iterable[str], cited: set[str]) -> str:
    """How the pages spell the words of these flags: `_` when more of the cited ones use it."""
    known = {_plain(f) for f in flags}
    under = sum(1 for f in cited if _plain(f) in known and "_" in f)
    dashed = sum(1 for f in cited if _plain(f) in known and "_" not in f and "-" in f[2:])
    return "_" if under > dashed else "-"


def _spelt(flag: str, separator: str) -> str:
    return "--" + flag[2:].replace("-", separator).replace("_", separator)


def _plain(flag: str) -> str:
    return "--" + flag[2:].replace("_", "-")


def _parse(text: str) -> ast.Module | None:
    try:
        return parsed.module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
