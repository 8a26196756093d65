"""Which names of a function, class or module body hold one expression: a name assigned exactly
once (and bound no other way) stands for it, read lazily from the enclosing scopes outwards."""

from __future__ import annotations

import ast
from typing import TypeGuard

from bot.core.extract import walk

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# The nodes whose bodies are scopes: a module and the SCOPES.
ScopeNode = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
_OWN_SCOPE = (*SCOPES, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_AMBIGUOUS = object()


class Scope:
    """Names bound in one function, class or module body; computed only when a lookup needs it.

    A name assigned exactly once (and bound no other way) stands for the expression assigned."""

    def __init__(self, node: ScopeNode, parent: Scope | None):
        self.node = node
        self.parent = parent
        self._bound: dict[str, object] | None = None

    def _bindings(self) -> dict[str, object]:
        if self._bound is None:
            bound: dict[str, object] = {}
            node = self.node
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                a = node.args
                for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                    if arg is not None:
                        bound[arg.arg] = _AMBIGUOUS
            body: list[ast.stmt] | list[ast.expr] = node.body if isinstance(node.body, list) else [node.body]
            for stmt in body:
                _collect_bindings(stmt, bound)
            self._bound = bound
        return self._bound

    def resolve(self, name: str) -> ast.expr | None:
        scope: Scope | None = self
        while scope is not None:
            bound = scope._bindings()
            if name in bound:
                value = bound[name]
                return value if isinstance(value, ast.expr) else None
            scope = scope.parent
        return None

    def binds(self, name: str) -> bool:
        """Does this scope or one around it bind `name` (once or more)?"""
        scope: Scope | None = self
        while scope is not None:
            if name in scope._bindings():
                return True
            scope = scope.parent
        return False

    def lookup(self, node: ast.expr) -> ast.expr | None:
        """The expression a name was assigned, when it was assigned exactly once."""
        return self.resolve(node.id) if isinstance(node, ast.Name) else None

    def literal(self, node: ast.expr) -> ast.expr | None:
        """The same, only when that expression is a literal."""
        found = self.lookup(node)
        return found if found is not None and _is_literal(found) else None


def _collect_bindings(node: ast.AST, bound: dict[str, object]) -> None:
    assigned: tuple[ast.expr, ast.expr] | None = None  # (target, value)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        assigned = (node.targets[0], node.value)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        assigned = (node.target, node.value)
    if assigned is not None and isinstance(assigned[0], ast.Name):
        target, value = assigned[0], assigned[1]
        bound[target.id] = value if target.id not in bound else _AMBIGUOUS
        _collect_bindings(value, bound)
        return
    if isinstance(node, ast.ExceptHandler) and node.name:
        bound[node.name] = _AMBIGUOUS
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        bound[node.name] = _AMBIGUOUS
        for d in node.decorator_list:
            _collect_bindings(d, bound)
        return
    if isinstance(node, _OWN_SCOPE):
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        bound[node.id] = _AMBIGUOUS
        return
    if isinstance(node, ast.alias):
        bound[(node.asname or node.name).split(".")[0]] = _AMBIGUOUS
        return
    for child in walk.children(node):
        _collect_bindings(child, bound)


def _is_literal(node: ast.expr) -> TypeGuard[ast.Constant | ast.List | ast.Tuple | ast.Set]:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    return False
