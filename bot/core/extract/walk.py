"""Every node of a syntax tree, in `ast.walk`'s order, walked once per tree.

Several extractors read the same module (a Python file is parsed once for all its source kinds)
and most of them scan every node; `ast.walk` pays a generator and a `getattr` per field for each
node, which on a 3,700-line argparse module is most of an extraction. The list is built by one
loop and kept for the last tree asked about, so the kinds reading one file share it; `every` is the same
walk of a subtree, not kept.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

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
    for each in out:  # the list grows while it is read: breadth-first, as ast.walk's deque
        _add_children(each, add)
    return out


def children(node: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(node))`, without a generator per node."""
    out: list[ast.AST] = []
    _add_children(node, out.append)
    return out


def _add_children(node: ast.AST, add: Callable[[ast.AST], None]) -> None:
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            add(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    add(item)
