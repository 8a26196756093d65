"""Every node of a syntax tree, in `ast.walk`'s order, walked once per tree.

Several extractors read the same module (a Python file is parsed once for all its source kinds)
and most of them scan every node; `ast.walk` pays a generator and a `getattr` per field for each
node, which on a 3,700-line argparse module is most of an extraction. Here each node class's
fields that can hold a node are listed once, so names, numbers and constants are not looked at.
The list is built by one loop and kept for the last tree asked about, so the kinds reading one
file share it; `every` is the same walk of a subtree, not kept.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

_last: tuple[ast.AST, list[ast.AST]] | None = None


def nodes(tree: ast.AST) -> list[ast.AST]:
    """`list(ast.walk(tree))`, the same nodes in the same (breadth-first) order. The caller must
    not change the tree afterwards: the list is reused for it."""
    global _last
    if _last is not None and _last[0] is tree:
        return _last[1]
    out = every(tree)
    _last = (tree, out)
    return out


def every(node: ast.AST) -> list[ast.AST]:
    """`list(ast.walk(node))`, built by one loop and kept by nobody: for the subtrees (a function,
    a statement, an annotation) that extractors scan once."""
    out = [node]
    add = out.append
    known = _NODE_FIELDS
    for each in out:  # the list grows while it is read: breadth-first, as ast.walk's deque
        fields = known.get(type(each))
        if fields is None:
            fields = _node_fields(type(each))
        for name in fields:
            value = getattr(each, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        add(item)
            elif isinstance(value, ast.AST):
                add(value)
    return out


def children(node: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(node))`, without a generator per node."""
    out: list[ast.AST] = []
    for name in _node_fields(type(node)):
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


# Fields that hold an identifier, a number or a flag in every class having them (and a
# constant's value): never a node, so the walk does not look at them. Only `type X = ...`
# (Python 3.12) names with a node.
_SCALAR_FIELDS = frozenset(
    {"id", "attr", "arg", "name", "module", "level", "asname"}
    | {"type_comment", "kind", "conversion", "is_async"}
)
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(cls: type) -> tuple[str, ...]:
    """The fields of an AST class that may hold a node or a list of nodes, in field order."""
    fields = _NODE_FIELDS.get(cls)
    if fields is None:
        scalar = set(_SCALAR_FIELDS) - ({"name"} if cls.__name__ == "TypeAlias" else set())
        if cls.__name__ in ("Constant", "MatchSingleton"):
            scalar.add("value")
        fields = _NODE_FIELDS[cls] = tuple(f for f in getattr(cls, "_fields", ()) if f not in scalar)
    return fields


def assignments(body: Iterable[ast.stmt]) -> Iterator[tuple[ast.stmt, ast.expr, ast.expr]]:
    """(statement, target, value) of each statement binding one target to a value: `x = v` and
    `x: T = v`, not `a = b = v` nor a bare annotation."""
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            yield stmt, stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            yield stmt, stmt.target, stmt.value
