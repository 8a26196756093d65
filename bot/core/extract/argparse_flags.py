"""Flags declared with argparse: every `<anything>.add_argument(...)` call in a module.

Each option string becomes one Fact; `BooleanOptionalAction` adds the `--no-` twin argparse
synthesizes. Option strings or choices held in variables are resolved when the variable is
assigned exactly once, to a literal, in an enclosing scope; anything else is skipped quietly.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import NamedTuple, TypeGuard

from bot.core.model import Fact
from bot.core.rules import Source

BOOLEAN_OPTIONAL = frozenset({"argparse.BooleanOptionalAction", "BooleanOptionalAction"})

# A lookup maps an expression to what it stands for: its final text (str), the literal node a
# variable holds (ast.expr), or None when it knows nothing about it.
Lookup = Callable[[ast.expr], "str | ast.expr | None"]


class Flag(NamedTuple):
    token: str
    dest: str
    line: int
    attrs: tuple[tuple[str, str], ...]


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    out: list[Fact] = []
    # A rule may name wrappers that declare flags too, e.g. miles' `reset_arg(parser, "--load", ...)`.
    names = frozenset(source.calls) or DECLARING_CALLS
    for call, lookup in add_argument_calls(tree, names=names):
        out.extend(call_facts(call, source.id, path, lookup))
    return out


def call_facts(call: ast.Call, source_id: str, path: str, lookup: Lookup) -> list[Fact]:
    """Facts of one add_argument call; `lookup` resolves variables in option strings, dest, choices."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    return [
        Fact(kind="flag", token=f.token, key=f.dest, source=source_id, path=path, line=f.line, attrs=f.attrs)
        for f in flags(option_strings(call, lookup), keywords, lookup)
    ]


DECLARING_CALLS = frozenset({"add_argument"})


def is_add_argument(node: ast.AST, names: frozenset[str] = DECLARING_CALLS) -> TypeGuard[ast.Call]:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name in names


def option_strings(call: ast.Call, lookup: Lookup) -> list[tuple[str, int]]:
    """The call's option strings (those starting with "-") with the line each is written on."""
    out = []
    for arg in call.args:
        value = string_value(arg, lookup)
        if value is not None and value.startswith("-"):
            out.append((value, arg.lineno))
    return out


def flags(
    options: list[tuple[str, int]],
    keywords: dict[str, ast.expr],
    literals: Lookup,
    values: Lookup | None = None,
) -> list[Flag]:
    """What argparse makes of one add_argument call, given its option strings and keywords.

    `literals` resolves `dest` and `choices`; `values` resolves `default`, `type`, `action` and
    `help`, which are otherwise quoted as written (a default of `MY_DEFAULT` stays that).
    """
    values = values or _nothing
    if not options:
        return []
    attrs: dict[str, str] = {}
    if "default" in keywords:
        attrs["default"] = text(keywords["default"], values)
    if "choices" in keywords:
        attrs["choices"] = choices_text(keywords["choices"], literals)
    if "type" in keywords:
        attrs["type"] = text(keywords["type"], values)
    if "help" in keywords:
        attrs["help"] = text(keywords["help"], values)
    action = text(keywords["action"], values) if "action" in keywords else None
    if action is not None:
        attrs["action"] = action

    dest = keywords.get("dest")
    dest_text = string_value(dest, literals) if dest is not None else None
    key = dest_text or derived_dest([o for o, _ in options])

    out: list[Flag] = []
    if action in BOOLEAN_OPTIONAL:
        for option, line in options:
            out.append(Flag(option, key, line, _sorted({**attrs, "sets": "true"})))
            if option.startswith("--"):
                out.append(Flag("--no-" + option[2:], key, line, _sorted({**attrs, "sets": "false"})))
        return out
    if action == "store_true":
        attrs.setdefault("default", "False")
        attrs["sets"] = "true"
    elif action == "store_false":
        attrs.setdefault("default", "True")
        attrs["sets"] = "false"
    return [Flag(option, key, line, _sorted(attrs)) for option, line in options]


def derived_dest(options: list[str]) -> str:
    """argparse's rule: the first long option, else the first short one, dashes to underscores."""
    longs = [o for o in options if o.startswith("--") and len(o) > 2]
    chosen = longs[0] if longs else options[0]
    return chosen.lstrip("-").replace("-", "_")


def text(node: ast.expr, lookup: Lookup) -> str:
    """An argument as a doc would quote it: strings unquoted, other constants by repr, else source."""
    found = lookup(node)
    if isinstance(found, str):
        return found
    if found is not None:
        node = found
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else repr(node.value)
    return ast.unparse(node)


def choices_text(node: ast.expr, lookup: Lookup) -> str:
    found = lookup(node)
    if isinstance(found, str):
        return found
    if found is not None:
        node = found
    if _is_literal(node) and not isinstance(node, ast.Constant):
        return ",".join(text(e, _nothing) for e in node.elts)
    return ast.unparse(node)


def string_value(node: ast.expr, lookup: Lookup) -> str | None:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    found = lookup(node)
    if isinstance(found, str):
        return found
    if isinstance(found, ast.Constant) and isinstance(found.value, str):
        return found.value
    return None


def _sorted(attrs: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(attrs.items()))


def _nothing(node: ast.expr) -> None:
    return None


# --- scopes: which names hold a literal ----------------------------------------------------------

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# The nodes whose bodies are scopes: a module and the _SCOPES.
ScopeNode = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
_OWN_SCOPE = (*_SCOPES, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_AMBIGUOUS = object()


class Scope:
    """Names bound in one function, class or module body; computed only when a lookup needs it."""

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

    def lookup(self, node: ast.expr) -> ast.expr | None:
        return self.resolve(node.id) if isinstance(node, ast.Name) else None


def _collect_bindings(node: ast.AST, bound: dict[str, object]) -> None:
    assigned: tuple[ast.expr, ast.expr] | None = None  # (target, value)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        assigned = (node.targets[0], node.value)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        assigned = (node.target, node.value)
    if assigned is not None and isinstance(assigned[0], ast.Name):
        target, value = assigned[0], assigned[1]
        literal = value if _is_literal(value) else _AMBIGUOUS
        bound[target.id] = literal if target.id not in bound else _AMBIGUOUS
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
    for child in ast.iter_child_nodes(node):
        _collect_bindings(child, bound)


def _is_literal(node: ast.expr) -> TypeGuard[ast.Constant | ast.List | ast.Tuple | ast.Set]:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    return False


def add_argument_calls(
    tree: ScopeNode, scope: Scope | None = None, names: frozenset[str] = DECLARING_CALLS
) -> Iterator[tuple[ast.Call, Lookup]]:
    """Every add_argument call under `tree`, with a lookup for the names visible where it is."""
    if scope is None:
        scope = Scope(tree, None)
    stack: list[tuple[ast.AST, Scope]] = [(tree, scope)]
    while stack:
        node, scope = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, _SCOPES):
                # Names bound in a class body are not visible from scopes nested in it.
                parent: Scope | None = scope
                while parent is not None and isinstance(parent.node, ast.ClassDef):
                    parent = parent.parent
                inner = Scope(child, parent)
            if is_add_argument(child, names):
                yield child, inner.lookup
            stack.append((child, inner))
