"""Calls that hand a dataclass of this module to a function imported from another, as facts of
kind `built-fields`: the function may make the class's fields flags of the parser it is handed
(sglang's `add_cli_args_from_dataclass(parser, ServerArgs)`). Extraction reads one file, so the
reference is all it says; `gather` resolves it against the other module
(bot/core/extract/field_builders.py) and drops it.
"""

from __future__ import annotations

import ast
import json
from typing import Final

from bot.core.extract.constants import dotted
from bot.core.model import Fact

BUILT: Final = "built-fields"


def references(tree: ast.Module, source_id: str, path: str) -> list[Fact]:
    """Calls that hand a dataclass of this module, and something else, to an imported function."""
    imported = {
        alias.asname or alias.name
        for stmt in tree.body
        if isinstance(stmt, ast.ImportFrom)
        for alias in stmt.names
    }
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef) and _is_dataclass(n)}
    if not imported or not classes:
        return []
    out: list[Fact] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported):
            continue
        if any(isinstance(a, ast.Starred) for a in node.args) or len(node.args) < 2:
            continue
        given = [i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id in classes]
        keywords = _literal_keywords(node)
        if len(given) != 1 or keywords is None:
            continue
        cls_at = given[0]
        cls = node.args[cls_at]
        assert isinstance(cls, ast.Name)
        attrs = (
            ("arguments", str(len(node.args))),
            ("class-at", str(cls_at)),
            ("keywords", json.dumps(keywords, sort_keys=True)),
        )
        out.append(
            Fact(
                kind=BUILT,
                token=node.func.id,
                key=cls.id,
                source=source_id,
                path=path,
                line=node.lineno,
                attrs=attrs,
            )
        )
    return out


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted(target) in ("dataclass", "dataclasses.dataclass"):
            return True
    return False


def _literal_keywords(call: ast.Call) -> dict[str, object] | None:
    out: dict[str, object] = {}
    for k in call.keywords:
        if k.arg is None:
            return None
        try:
            found = ast.literal_eval(k.value)
        except (ValueError, SyntaxError, TypeError):
            return None
        if not isinstance(found, str | int | float | bool | type(None) | list):
            return None
        out[k.arg] = found
    return out
