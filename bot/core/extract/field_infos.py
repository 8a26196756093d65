"""A dataclass's fields as a builder's run reads them (bot/core/extract/builder_run.py): name,
line, annotation, default, default_factory, metadata and `init`, as written, in
`dataclasses.fields()` order."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from bot.core.extract import builder_values
from bot.core.extract.constants import dotted

if TYPE_CHECKING:
    from bot.core.extract.builder_values import FieldInfo

MAX_FIELDS = 2_000  # fields of one dataclass run through its builder (sglang's ServerArgs has ~480)


def too_long(builder: str, path: str, dataclass: str) -> str:
    return (
        f"the flags `{builder}` of {path} makes of `{dataclass}`: more than docs-sync runs a builder"
        f" for ({MAX_FIELDS:,} fields, {builder_values.MAX_RUN_STEPS:,} steps); the fields after are not read"
    )


def fields_of(
    owner: ast.Module, classes: dict[str, ast.ClassDef], name: str, inherited: bool = True
) -> list[FieldInfo]:
    """The dataclass's fields in `dataclasses.fields()` order, with their annotations as written;
    `inherited=False`: those its own body declares."""
    from bot.core.extract import dataclass_flags
    from bot.core.extract.builder_values import FieldInfo

    known = dataclass_flags.dataclass_fields(owner, name) or []
    nodes: dict[str, ast.AnnAssign] = {}
    if inherited:
        _annotated(classes, classes[name], nodes, 0)
    else:
        nodes = {
            s.target.id: s
            for s in classes[name].body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        }
    out = []
    for f in known:
        stmt = nodes.get(f.name)
        if stmt is None:
            continue
        default, factory, metadata = _field_call(stmt.value)
        out.append(FieldInfo(f.name, f.line, stmt.annotation, default, factory, metadata, _init(stmt.value)))
    return out


def _init(found: ast.expr | None) -> bool:
    """False for `field(init=False)`: `dataclasses.fields()` still lists it."""
    if isinstance(found, ast.Call) and dotted(found.func) in ("field", "dataclasses.field"):
        for k in found.keywords:
            if k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False:
                return False
    return True


def _annotated(
    classes: dict[str, ast.ClassDef], node: ast.ClassDef, out: dict[str, ast.AnnAssign], depth: int
) -> None:
    if depth > 20:
        return
    for base in reversed(node.bases):
        if isinstance(base, ast.Name) and base.id in classes and base.id != node.name:
            _annotated(classes, classes[base.id], out, depth + 1)
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out[stmt.target.id] = stmt


def _field_call(found: ast.expr | None) -> tuple[ast.expr | None, ast.expr | None, ast.expr | None]:
    """(default, default_factory, metadata) of a field's value as written."""
    if found is None:
        return None, None, None
    if isinstance(found, ast.Call) and dotted(found.func) in ("field", "dataclasses.field"):
        keywords = {k.arg: k.value for k in found.keywords if k.arg is not None}
        return keywords.get("default"), keywords.get("default_factory"), keywords.get("metadata")
    return found, None, None
