"""Which subcommand each add_argument call belongs to: `sub.add_parser("run")` makes a parser
whose flags are those of `prog run`, not of `prog`.

Parsers are followed through names in a function, `self.<attr>` in a class (lm-eval's
`self._parser = subparsers.add_parser("run", ...)` in `__init__`, used by `_add_args`), a class's
own attributes, named in its body or through the class (`subparsers = parser.add_subparsers()`
in the body of `class Serve`, then `Serve.subparsers.add_parser("api")` in its static method: the
command `serve api`), argument groups, and functions of the same module called with a parser
(`add_run_args(run_parser)`).
A parser this cannot place is the top parser: its flags carry no subcommand.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from bot.core.extract import walk

Path = tuple[str, ...]  # the words of a subcommand: ("run",), ("remote", "add")
Key = tuple[int, str]  # (id of the function or class that scopes the name, the name as written)

_GROUPS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
# A parser's own methods: a call of one is no function the parser is handed to.
_PARSER_METHODS = _GROUPS | {"add_argument", "add_parser", "add_subparsers", "set_defaults", "parse_args"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def subcommands(tree: ast.Module) -> dict[int, frozenset[Path]]:
    """id(add_argument call) -> the subcommands its flags belong to, for calls on a subparser."""
    return places(tree)[0]


def places(tree: ast.Module) -> tuple[dict[int, frozenset[Path]], dict[int, frozenset[Path]]]:
    """`subcommands`, and id(call) -> the subcommands of the subparser a call of any other
    function is handed (`Helper.tp(run_parser)`: another module's helper may add flags to it)."""
    if not any(isinstance(n, ast.Attribute) and n.attr == "add_parser" for n in walk.nodes(tree)):
        return {}, {}  # no subparsers: every flag is the top parser's
    nodes = list(_walk(tree))
    classes = _classes(tree)
    bindings: dict[Key, set[Path]] = {}
    functions = _functions(tree)
    relevant = [(n, s, c) for n, s, c in nodes if isinstance(n, ast.Assign | ast.AnnAssign | ast.Call)]
    # What each assignment bound, so that `parser = parser.add_parser("default")` reads what
    # `parser` was before it (a parameter: the top), not what it makes: else it nests in itself.
    made: dict[tuple[int, Key], set[Path]] = {}
    for _ in range(6):  # assignments may come after their use in the file (methods); settle
        changed = False
        for stmt, scope, cls in relevant:
            for key, paths in _binds_before(stmt, scope, cls, bindings, functions, made, classes):
                known = bindings.setdefault(key, set())
                if not paths <= known:
                    known.update(paths)
                    changed = True
        if not changed:
            break
    out: dict[int, frozenset[Path]] = {}
    handed: dict[int, frozenset[Path]] = {}
    for node, scope, cls in nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            paths = _paths(node.func.value, scope, cls, bindings, classes)
            if paths and paths != {()}:
                out[id(node)] = frozenset(paths)
        elif isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Attribute) and node.func.attr in _PARSER_METHODS
        ):
            given = {p for a in node.args for p in _paths(a, scope, cls, bindings, classes)}
            given.discard(())
            if given:
                handed[id(node)] = frozenset(given)
    return out, handed


def _binds_before(
    stmt: ast.AST,
    scope: ast.AST,
    cls: ast.ClassDef | None,
    bindings: dict[Key, set[Path]],
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]],
    made: dict[tuple[int, Key], set[Path]],
    classes: dict[str, ast.ClassDef],
) -> list[tuple[Key, set[Path]]]:
    """`_binds` of `stmt`, with the names it assigns bound as the other statements bind them."""
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign):
        targets = [stmt.target]
    keys = [k for k in (_key(t, scope, cls, classes) for t in targets) if k is not None]
    saved = {k: bindings.get(k) for k in keys}
    for k in keys:
        mine = made.get((id(stmt), k), set())
        bindings[k] = {p for p in bindings.get(k, set()) if p not in mine} | _others(made, stmt, k)
    try:
        found = list(_binds(stmt, scope, cls, bindings, functions, classes))
    finally:
        for k, v in saved.items():
            if v is None:
                bindings.pop(k, None)
            else:
                bindings[k] = v
    for key, paths in found:
        if key in keys:
            made.setdefault((id(stmt), key), set()).update(paths)
    return found


def _others(made: dict[tuple[int, Key], set[Path]], stmt: ast.AST, key: Key) -> set[Path]:
    """What statements other than `stmt` bound `key` to."""
    return {p for (sid, k), paths in made.items() if k == key and sid != id(stmt) for p in paths}


def _walk(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.AST, ast.ClassDef | None]]:
    """Every node with the function (or module) scoping its names and the class around it."""
    stack: list[tuple[ast.AST, ast.AST, ast.ClassDef | None]] = [(tree, tree, None)]
    while stack:
        node, scope, cls = stack.pop()
        for child in walk.children(node):
            inner_scope, inner_cls = scope, cls
            if isinstance(child, _FUNCTIONS):
                inner_scope = child
            elif isinstance(child, ast.ClassDef):
                inner_scope, inner_cls = child, child
            yield child, scope, cls
            stack.append((child, inner_scope, inner_cls))


def _functions(tree: ast.Module) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    out: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in walk.nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.setdefault(node.name, []).append(node)
    return out


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """The module's classes by name (a name two classes share names neither)."""
    found: dict[str, list[ast.ClassDef]] = {}
    for node in walk.nodes(tree):
        if isinstance(node, ast.ClassDef):
            found.setdefault(node.name, []).append(node)
    return {name: defs[0] for name, defs in found.items() if len(defs) == 1}


def _key(
    node: ast.expr, scope: ast.AST, cls: ast.ClassDef | None, classes: dict[str, ast.ClassDef]
) -> Key | None:
    if isinstance(node, ast.Name):
        if isinstance(scope, ast.ClassDef):
            return (id(scope), f"self.{node.id}")  # a name of a class's body is its attribute
        return (id(scope), node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id in ("self", "cls") and cls is not None:
            return (id(cls), f"self.{node.attr}")
        named = classes.get(node.value.id)
        if named is not None:  # `Serve.subparsers`: the attribute of the module's class `Serve`
            return (id(named), f"self.{node.attr}")
    return None


def _paths(
    node: ast.expr,
    scope: ast.AST,
    cls: ast.ClassDef | None,
    bindings: dict[Key, set[Path]],
    classes: dict[str, ast.ClassDef],
) -> set[Path]:
    """The subcommands a parser expression stands for; empty when unknown."""
    key = _key(node, scope, cls, classes)
    if key is not None:
        return bindings.get(key, set())
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr
        if method in _GROUPS:
            return _paths(node.func.value, scope, cls, bindings, classes)
        if method == "add_subparsers":
            return _paths(node.func.value, scope, cls, bindings, classes) or {()}
        if method == "add_parser" and node.args:
            name = node.args[0]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                # An action whose parser is unknown (a parameter) is taken as the top one's.
                parents = _paths(node.func.value, scope, cls, bindings, classes) or {()}
                return {(*p, name.value) for p in parents}
    return set()


def _binds(
    node: ast.AST,
    scope: ast.AST,
    cls: ast.ClassDef | None,
    bindings: dict[Key, set[Path]],
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]],
    classes: dict[str, ast.ClassDef],
) -> Iterator[tuple[Key, set[Path]]]:
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        paths = _paths(node.value, scope, cls, bindings, classes)
        if paths:
            for target in targets:
                key = _key(target, scope, cls, classes)
                if key is not None:
                    yield key, paths
    elif isinstance(node, ast.Call):
        # A parser passed to a function of this module: the parameter stands for it there.
        func = node.func
        name, skip = None, 0
        if isinstance(func, ast.Name):
            name = func.id
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("self", "cls")
        ):
            name, skip = func.attr, 1
        if name is None:
            return
        for fn in functions.get(name, ()):
            params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)][skip:]
            passed = list(zip(params, node.args, strict=False))
            passed += [(k.arg, k.value) for k in node.keywords if k.arg is not None]
            for param, value in passed:
                paths = _paths(value, scope, cls, bindings, classes)
                if paths:
                    yield (id(fn), param), paths
