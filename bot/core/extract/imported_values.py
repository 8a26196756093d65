"""The flags of a loop over a constant another module defines (bot/core/extract/imported_rounds.py):
the constant read where it is defined (a literal, or names assigned once to literals:
bot/core/extract/constants.py), its value written into the loop, the loop's declaring calls read
again as argparse_flags reads a loop over values the file spells out. A constant that module
does not spell out declares nothing.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import MutableMapping

from bot.core.blobcache import cached
from bot.core.extract import argparse_flags, parsed, walk
from bot.core.extract.constants import Module, dotted, value
from bot.core.extract.scopes import Scope
from bot.core.model import Extraction, Fact, Tree
from bot.core.rules import Source

MAX_ITEMS = 64  # items of the imported value: a loop over more is no list of flags
_FORMAT = "rounds-2"  # cache key prefix: bump when a resolution changes shape or meaning


class Resolver:
    """Resolves references in one revision, each by the blob ids of the two modules."""

    def __init__(self, tree: Tree, cache: MutableMapping[str, object] | None):
        from bot.core.extract.imports import Modules

        self.tree = tree
        self.cache = cache
        self.modules = Modules(tree, cache)

    def flags(self, source: Source, ref: Fact) -> list[Fact]:
        module, _, name = ref.key.partition(":")
        defining = self.modules.find(module)
        # `from pkg import mod` names a module; `from pkg.mod import NAMES` a name of `pkg/mod.py`.
        if defining is None or defining == ref.path:
            return []
        blobs = (self.tree.blob_id(ref.path), self.tree.blob_id(defining))
        key = f"{_FORMAT}:{blobs[0]}:{blobs[1]}:{ref.path}:{ref.line}:{ref.token}:{name}:{source.id}"
        result = cached(
            self.cache,
            key if all(blobs) else None,
            Extraction,
            lambda: self._run(source, ref, defining, name),
        )
        return [] if result is None else list(result.facts)

    def _run(self, source: Source, ref: Fact, defining: str, name: str) -> Extraction:
        texts = (self.tree.read(ref.path), self.tree.read(defining))
        if texts[0] is None or texts[1] is None:
            return Extraction(facts=())
        try:
            owner, other = parsed.module(texts[0], ref.path), parsed.module(texts[1], defining)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return Extraction(facts=())
        if ref.token.endswith("()"):
            return _called(source, ref, owner, other, name)
        found = value(ast.Name(id=name, ctx=ast.Load()), Scope(other, None).lookup, Module(other))
        if not isinstance(found, list | tuple | set | frozenset) or not 0 < len(found) <= MAX_ITEMS:
            return Extraction(facts=())
        if not all(isinstance(i, str | int | float | bool) for i in found):
            return Extraction(facts=())
        owner = copy.deepcopy(owner)  # the parsed tree is shared: the copy gets the value written in
        loop = next((n for n in walk.every(owner) if isinstance(n, ast.For) and n.lineno == ref.line), None)
        if loop is None:
            return Extraction(facts=())
        items: list[ast.expr] = [
            ast.Constant(i) for i in (sorted(found) if isinstance(found, set | frozenset) else found)
        ]
        loop.iter = _Written(ref.token, ast.List(elts=items, ctx=ast.Load())).visit(loop.iter)
        last = loop.end_lineno or loop.lineno
        facts = argparse_flags.facts(source, ref.path, owner)
        return Extraction(facts=tuple(f for f in facts if f.kind == "flag" and loop.lineno <= f.line <= last))


def _returned_specs(module: ast.Module, name: str) -> ast.List | None:
    """The list of option-spec dict literals a module-level function of no parameters returns
    (`def common_args(): args = [{...}, ...]; return args`), when it returns only that."""
    func = next((s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == name), None)
    if func is None or func.args.args or func.args.posonlyargs or func.args.kwonlyargs:
        return None
    returns = [n for n in walk.every(func) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return None
    held: ast.expr | None = returns[0].value
    if isinstance(held, ast.Name):
        held = Scope(func, Scope(module, None)).lookup(held)
    if not isinstance(held, ast.List) or not 0 < len(held.elts) <= MAX_ITEMS:
        return None
    return held if all(isinstance(e, ast.Dict) and None not in e.keys for e in held.elts) else None


def _called(source: Source, ref: Fact, owner: ast.Module, other: ast.Module, name: str) -> Extraction:
    """The flags the specs of another module's function add to a loop of this one (the part
    `arg_list = common_args() + arg_list` leaves unknown): that function's returned list written
    in place of its call, the loop read again; only the flags it adds are this reference's."""
    specs = _returned_specs(other, name)
    if specs is None:
        return Extraction(facts=())
    before = {f.token for f in argparse_flags.facts(source, ref.path, owner) if f.kind == "flag"}
    owner = copy.deepcopy(owner)
    called = _Called(ref.token[:-2], specs)
    owner = called.visit(owner)
    loop = next((n for n in walk.every(owner) if isinstance(n, ast.For) and n.lineno == ref.line), None)
    if loop is None or not called.replaced:
        return Extraction(facts=())
    last = loop.end_lineno or loop.lineno
    facts = argparse_flags.facts(source, ref.path, owner)
    return Extraction(
        facts=tuple(
            f for f in facts if f.kind == "flag" and loop.lineno <= f.line <= last and f.token not in before
        )
    )


class _Called(ast.NodeTransformer):
    """Each call of the imported function, without arguments, replaced by the list it returns."""

    def __init__(self, written: str, found: ast.List):
        self.written, self.found, self.replaced = written, found, False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if not node.args and not node.keywords and dotted(node.func) == self.written:
            self.replaced = True
            return copy.deepcopy(self.found)
        self.generic_visit(node)
        return node


class _Written(ast.NodeTransformer):
    """The imported name replaced by its value."""

    def __init__(self, written: str, found: ast.expr):
        self.written, self.found = written, found

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.found if node.id == self.written else node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if dotted(node) == self.written:
            return self.found
        self.generic_visit(node)
        return node
