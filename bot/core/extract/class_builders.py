"""Flags a builder class of another module makes from a dataclass: Megatron's arguments.py calls
`ArgumentGroupFactory(TransformerConfig, exclude=[...]).build_group(parser, "title")`, the class
imported from argument_utils.py, the dataclass from a third module (through a package's
`__init__.py`), its base from a fourth.

The reference (bot/core/extract/built_fields.py) names the class, the dataclass, the method and
their literal arguments. The two are found where they are defined, following the repository's
imports (re-exports a few hops); the fields are the dataclass's and its bases', wherever those
are defined. The class's `__init__` is run on its arguments (bot/core/extract/builder_run.py
`construct`), then its method, which must loop over `dataclasses.fields()` of the class it was
handed; each field is run through that loop as for a builder function. The flags are the
parser's, on the field's line of the dataclass's module. Anything not found or not understood
yields nothing, as for a builder function.
"""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from bot.core.extract import builder_values, parsed
from bot.core.extract.constants import dotted
from bot.core.model import Extraction, Fact, ParseError

if TYPE_CHECKING:
    from bot.core.extract.builder_values import FieldInfo
    from bot.core.extract.imports import Modules

MAX_HOPS = 4  # re-exports followed to the module defining a class
MAX_BASES = 8  # modules of a dataclass's bases read
_ENUMS = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})


def where(modules: Modules, path: str, name: str) -> tuple[str, ast.ClassDef, ast.Module] | None:
    """The module defining the class `path` binds to `name` (imported, re-exported, or its own)."""
    for _ in range(MAX_HOPS):
        tree = _tree(modules, path)
        if tree is None:
            return None
        node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if node is not None:
            return path, node, tree
        summary = modules.summary(path)
        if summary is None or name not in summary.imports:
            return None
        found = modules._follow(path, summary, name)
        if not found or found[0] == (path, name):
            return None
        path, name = found[0]
    return None


def _tree(modules: Modules, path: str) -> ast.Module | None:
    text = modules.tree.read(path)
    if text is None or len(text) > 2_000_000:
        return None
    try:
        return parsed.module(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def blobs(modules: Modules, ref: Fact, builder: str) -> list[str] | None:
    """The modules a resolution reads, for its cache key; None when one is not found."""
    found = where(modules, ref.path, ref.key)
    if found is None:
        return None
    return [ref.path, builder, *(p for p, _, _ in _chain(modules, found))]


def _chain(
    modules: Modules, found: tuple[str, ast.ClassDef, ast.Module]
) -> list[tuple[str, ast.ClassDef, ast.Module]]:
    """The dataclass and its bases, each where it is defined, bases first (as `fields()` orders)."""
    out: list[tuple[str, ast.ClassDef, ast.Module]] = []
    seen: set[tuple[str, str]] = set()

    def visit(item: tuple[str, ast.ClassDef, ast.Module], depth: int) -> None:
        path, node, _ = item
        if (path, node.name) in seen or depth > 20 or len(seen) > MAX_BASES:
            return
        seen.add((path, node.name))
        for base in reversed(node.bases):
            name = dotted(base)
            if name is None or "." in name:
                continue
            other = where(modules, path, name)
            if other is not None:
                visit(other, depth + 1)
        out.append(item)

    visit(found, 0)
    return out


def run(modules: Modules, ref: Fact, builder_path: str, name: str) -> Extraction:
    """The flags the builder class `name` of `builder_path` makes of the dataclass `ref` names."""
    from bot.core.extract import builder_run, field_infos
    from bot.core.extract.builder_values import Context, DataclassRef, Parser

    builder = _tree(modules, builder_path)
    found = where(modules, ref.path, ref.key)
    if builder is None or found is None:
        return Extraction(facts=())
    chain = _chain(modules, found)
    infos: list[FieldInfo] = []
    for path, node, tree in chain:
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        own = {
            i.name: replace(i, path=path)
            for i in field_infos.fields_of(tree, classes, node.name, inherited=False)
        }
        infos = [i for i in infos if i.name not in own] + list(own.values())
    dataclass_path, node, tree = found
    whole = len(infos) <= field_infos.MAX_FIELDS
    infos = infos[: field_infos.MAX_FIELDS]
    enums, others = _kinds(modules, dataclass_path, tree)
    ctx = Context(builder, tree, infos, tuple(ast.unparse(b) for b in node.bases), enums, others)
    count, cls_at = int(ref.attr("arguments") or 0), int(ref.attr("class-at") or 0)
    args: list[Any] = [DataclassRef() if i == cls_at else Parser() for i in range(count)]
    instance = builder_run.construct(ctx, name, args, json.loads(ref.attr("keywords") or "{}"))
    method_args = json.loads(ref.attr("method-arguments") or "{}")
    cls_node = ctx.builder_module.classes.get(name)
    method = next(
        (
            n
            for n in (cls_node.body if cls_node is not None else [])
            if isinstance(n, ast.FunctionDef) and n.name == ref.attr("method") and not n.decorator_list
        ),
        None,
    )
    if instance is None or method is None:
        return Extraction(facts=())
    env = builder_run.bind_builder(
        ctx,
        method,
        [instance, *(_given(a) for a in method_args.get("args", []))],
        {k: _given(v) for k, v in method_args.get("keywords", {}).items()},
    )
    loop = builder_run.prelude(ctx, method, env) if env is not None else None
    if env is None or loop is None:
        return Extraction(facts=())
    out = builder_run.field_flags(ctx, loop, env, infos, ref.source, lambda info: info.path or dataclass_path)
    if whole and ctx.spent <= builder_values.MAX_RUN_STEPS:
        return Extraction(facts=tuple(out))
    stopped = ParseError(ref.path, ref.line, field_infos.too_long(name, builder_path, ref.key))
    return Extraction(facts=tuple(out), errors=(stopped,))


def _given(found: Any) -> Any:
    from bot.core.extract.builder_values import Parser

    return found["value"] if isinstance(found, dict) and "value" in found else Parser()


def _kinds(modules: Modules, path: str, tree: ast.Module) -> tuple[frozenset[str], frozenset[str]]:
    """Names the dataclass's module binds to classes: (those that are Enums, the others), each
    read where it is defined (`from .enums import AttnBackend`)."""
    names: set[str] = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            names.update(a.asname or a.name for a in stmt.names if a.name != "*")
    enums: set[str] = set()
    others: set[str] = set()
    for name in sorted(names):
        found = where(modules, path, name)
        if found is None:
            continue
        bases = {(dotted(b) or "").rpartition(".")[2] for b in found[1].bases}
        if bases & _ENUMS:
            enums.add(name)
        elif not bases - {"object"}:
            others.add(name)  # a class deriving from another may be an Enum through it: neither
    return frozenset(enums), frozenset(others)
