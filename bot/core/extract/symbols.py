"""Names a module defines: classes, functions, methods of its classes, UPPER_CASE constants."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator

from bot.core.model import Fact
from bot.core.rules import Source

_CONSTANT = re.compile(r"_*[A-Z][A-Z0-9_]*")

# `try` statements: `try ... except*` (ast.TryStar) is Python 3.11 and later.
if sys.version_info >= (3, 11):
    _TRY = (ast.Try, ast.TryStar)
else:
    _TRY = (ast.Try,)


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    out: dict[tuple[str, str], Fact] = {}

    def add(token: str, key: str, line: int, **attrs: str) -> None:
        kind = attrs["kind"]
        if (source.names and token not in source.names) or (kind, key) in out:
            return
        out[(kind, key)] = Fact.of("symbol", token, key, source.id, path, line, attrs)

    for node in _module_level(tree.body):
        if isinstance(node, ast.ClassDef):
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            add(node.name, node.name, node.lineno, kind="class", **({"bases": bases} if bases else {}))
            for member in _module_level(node.body):
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    add(member.name, f"{node.name}.{member.name}", member.lineno, kind="method")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            add(node.name, node.name, node.lineno, kind="function")
        else:
            for name in _assigned_names(node):
                if _CONSTANT.fullmatch(name.id):
                    add(name.id, name.id, name.lineno, kind="constant")
    return list(out.values())


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a body, looking through if/try/with blocks (they do not open a scope)."""
    for node in body:
        if isinstance(node, ast.If | ast.With | ast.AsyncWith):
            yield from _module_level(node.body)
            yield from _module_level(getattr(node, "orelse", []))
        elif isinstance(node, _TRY):
            yield from _module_level(node.body)
            for handler in node.handlers:
                yield from _module_level(handler.body)
            yield from _module_level(node.orelse)
            yield from _module_level(node.finalbody)
        else:
            yield node


def _assigned_names(node: ast.stmt) -> list[ast.Name]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return []
    names: list[ast.Name] = []
    for target in targets:
        elts = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
        names.extend(e for e in elts if isinstance(e, ast.Name))
    return names
