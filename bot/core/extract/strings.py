"""String literals that form an enumerated set: mesh dimension names, backend names.

Two places name such a set: the arguments of particular calls (`mesh_dim_names=("dp",)`) and
comparisons against a particular expression (`if backend == "megatron":`, `match backend:`).
"""

from __future__ import annotations

import ast

from bot.core.extract import walk
from bot.core.extract.constants import last_name
from bot.core.model import Fact
from bot.core.rules import Source

_COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    group = source.group or source.id
    calls = set(source.calls)
    compared = set(source.compared_with)
    first: dict[str, int] = {}

    def add(node: ast.expr | ast.pattern) -> None:
        for value, line in _literals(node):
            if value not in first or line < first[value]:
                first[value] = line

    for node in walk.nodes(tree):
        if calls and isinstance(node, ast.Call) and last_name(node.func) in calls:
            for arg in _selected_arguments(node, source.keyword, source.position):
                add(arg)
        elif compared and isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands[:-1], operands[1:], strict=True):
                if isinstance(op, _COMPARISONS):
                    if ast.unparse(left) in compared:
                        add(right)
                    elif isinstance(op, ast.Eq | ast.NotEq) and ast.unparse(right) in compared:
                        add(left)
        elif compared and isinstance(node, ast.Match) and ast.unparse(node.subject) in compared:
            for case in node.cases:
                add(case.pattern)

    return [
        Fact(kind="string", token=v, key=f"{group}:{v}", source=source.id, path=path, line=line, group=group)
        for v, line in first.items()
    ]


def _selected_arguments(call: ast.Call, keyword: str | None, position: int | None) -> list[ast.expr]:
    if keyword is None and position is None:
        return [*call.args, *(k.value for k in call.keywords)]
    out = [k.value for k in call.keywords if keyword is not None and k.arg == keyword]
    if position is not None and position < len(call.args):
        # Positions after a *args splat are not known statically.
        splat = any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
        if not splat:
            out.append(call.args[position])
    return out


def _literals(node: ast.expr | ast.pattern) -> list[tuple[str, int]]:
    """A string constant, or the string constants of a literal tuple/list/set, or of a case pattern."""
    if isinstance(node, ast.Constant):
        return [(node.value, node.lineno)] if isinstance(node.value, str) else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [lit for e in node.elts if isinstance(e, ast.Constant) for lit in _literals(e)]
    if isinstance(node, ast.MatchValue):
        return _literals(node.value)
    if isinstance(node, ast.MatchOr):
        return [lit for p in node.patterns for lit in _literals(p)]
    if isinstance(node, ast.MatchAs) and node.pattern is not None:
        return _literals(node.pattern)
    return []
