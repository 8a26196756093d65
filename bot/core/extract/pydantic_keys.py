"""Pydantic models as config keys (`kind: pydantic`), read from the syntax tree, never imported.

A model is a class deriving from `BaseModel` or `BaseSettings` (pydantic v1 or v2, or
pydantic-settings), directly or through a class of the same file. Each field is a key: its
alias when it has one (`Field(alias=...)`, a string `validation_alias=`), else its name; a
field typed with another model of the file is a section whose fields are keys below it
(`optimizer.lr`). Facts carry the default (`= 3`, `Field(3)`, `Field(default=3)`, what a
`default_factory` of `list`/`dict`/a lambda makes), the choices of a `Literal[...]` or of an
Enum of the file, the annotation as `type` and `description=` (or `json_schema_extra`'s) as
`help`.

A model nested in another of the file is read only below it; every other model is a top: its
keys start at the top of the config. `names:` on the source names the tops instead.

A settings class also yields the environment variables that set its fields, as
pydantic-settings names them: `env_prefix` + the field's name, unless the field has an alias
(then the alias alone; `AliasChoices` gives several), or pydantic v1's `Field(env=...)`;
nested models with `env_nested_delimiter` (`APP_DATABASE__URL`). The prefix comes from
`model_config = SettingsConfigDict(env_prefix=...)` (or a dict) or v1's `class Config:
env_prefix = ...`, inherited from the file's own bases. Environment variables are not case
sensitive unless `case_sensitive=True`: their facts are then written in capitals, as pages do.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from bot.core.extract import walk
from bot.core.extract.constants import UNKNOWN, as_text, made_by, members, unquoted, value
from bot.core.model import Fact
from bot.core.rules import Source

_MODEL_BASES = frozenset({"BaseModel", "BaseSettings", "GenericModel", "RootModel"})
_SETTINGS_BASES = frozenset({"BaseSettings"})
_ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum"})
_NOT_FIELDS = frozenset({"ClassVar", "PrivateAttr", "InitVar"})
_FIELD_CALLS = frozenset({"Field", "pydantic.Field"})
_MAX_DEPTH = 8  # sections nested deeper than this are left unread


@dataclass(frozen=True)
class _Field:
    name: str
    key: str  # as the config writes it: the alias, or the name
    line: int
    annotation: ast.expr | None
    attrs: dict[str, str]
    env: tuple[str, ...]  # names set explicitly: an alias, v1's env=
    model: str  # the class declaring it


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    models = {name for name in classes if _inherits(name, classes, _MODEL_BASES, set())}
    if not models:
        return []
    enums = {name: node for name, node in classes.items() if _bases(node) & _ENUM_BASES}
    nested = {
        t
        for name in models
        for f in _fields(classes[name], classes, models, enums)
        for t in _models_in(f, models)
    }
    tops = (
        [n for n in source.names if n in models] if source.names else [n for n in models if n not in nested]
    )
    out: list[Fact] = []
    for top in sorted(tops, key=lambda n: classes[n].lineno):
        settings = _inherits(top, classes, _SETTINGS_BASES, set())
        config = _settings_config(top, classes) if settings else {}
        out.extend(_keys(source, path, top, classes, models, enums, "", "", config, settings, 0))
    return out


def _keys(
    source: Source,
    path: str,
    model: str,
    classes: dict[str, ast.ClassDef],
    models: set[str],
    enums: dict[str, ast.ClassDef],
    prefix: str,
    name_prefix: str,
    config: dict[str, str],
    settings: bool,
    depth: int,
) -> Iterator[Fact]:
    if depth > _MAX_DEPTH:
        return
    for field in _fields(classes[model], classes, models, enums):
        token = f"{prefix}{field.key}"
        by_name = f"{name_prefix}{field.name}"
        attrs = {"kind": "key", "model": field.model, **field.attrs}
        yield Fact.of("key", token, by_name, source.id, path, field.line, attrs)
        if settings:
            for env in _env_names(field, by_name, config, depth):
                env_attrs = {"kind": "env", "model": field.model, **field.attrs}
                yield Fact.of("key", env, f"env:{by_name}", source.id, path, field.line, env_attrs)
        for inner in _models_in(field, models):
            yield from _keys(
                source,
                path,
                inner,
                classes,
                models,
                enums,
                f"{token}.",
                f"{by_name}.",
                config,
                settings,
                depth + 1,
            )


def _env_names(field: _Field, by_name: str, config: dict[str, str], depth: int) -> list[str]:
    delimiter = config.get("env_nested_delimiter")
    if depth > 0 and not delimiter:
        return []  # a nested field is set through its section's variable (JSON), not one of its own
    if depth == 0 and field.env:
        names = list(field.env)
    else:
        names = [config.get("env_prefix", "") + (by_name.replace(".", delimiter) if delimiter else by_name)]
    return names if config.get("case_sensitive") == "True" else [n.upper() for n in names]


# --- which classes are models ----------------------------------------------------------------------


def _bases(node: ast.ClassDef) -> set[str]:
    out = set()
    for base in node.bases:
        if isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name):
            out.add(base.id)
        elif isinstance(base, ast.Attribute):
            out.add(base.attr)
    return out


def _inherits(name: str, classes: dict[str, ast.ClassDef], roots: frozenset[str], seen: set[str]) -> bool:
    """Whether the class `name` of the file has one of `roots` among its bases, through its
    bases in the file."""
    if name in seen or name not in classes:
        return False
    seen.add(name)
    bases = _bases(classes[name])
    return bool(bases & roots) or any(_inherits(b, classes, roots, seen) for b in bases)


def _lineage(name: str, classes: dict[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """The class and its bases of this file, the farthest base first (the order fields come in)."""
    out: list[ast.ClassDef] = []
    stack, seen = [name], set()
    while stack:
        current = stack.pop()
        if current in seen or current not in classes:
            continue
        seen.add(current)
        out.append(classes[current])
        stack.extend(_bases(classes[current]))
    return out[::-1]


def _settings_config(name: str, classes: dict[str, ast.ClassDef]) -> dict[str, str]:
    """env_prefix, env_nested_delimiter, case_sensitive of a settings class (its bases' first)."""
    out: dict[str, str] = {}
    for cls in _lineage(name, classes):
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign | ast.AnnAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if any(isinstance(t, ast.Name) and t.id == "model_config" for t in targets) and stmt.value:
                    out.update(_config_items(stmt.value))
            elif isinstance(stmt, ast.ClassDef) and stmt.name == "Config":  # pydantic v1
                for inner in stmt.body:
                    if (
                        isinstance(inner, ast.Assign)
                        and len(inner.targets) == 1
                        and isinstance(inner.targets[0], ast.Name)
                    ):
                        found = value(inner.value, _nothing)
                        if found is not UNKNOWN:
                            out[inner.targets[0].id] = as_text(found)
    return out


def _config_items(node: ast.expr) -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(node, ast.Call):
        pairs = [(k.arg, k.value) for k in node.keywords if k.arg]
    elif isinstance(node, ast.Dict):
        pairs = [
            (k.value, v)
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    else:
        return out
    for key, item in pairs:
        found = value(item, _nothing)
        if found is not UNKNOWN:
            out[str(key)] = as_text(found)
    return out


# --- fields ---------------------------------------------------------------------------------------


def _fields(
    cls: ast.ClassDef, classes: dict[str, ast.ClassDef], models: set[str], enums: dict[str, ast.ClassDef]
) -> list[_Field]:
    """The fields of `cls` with those of its bases in the file (a field redeclared replaces the base's)."""
    found: dict[str, _Field] = {}
    for owner in _lineage(cls.name, classes):
        if owner.name not in models:
            continue
        for stmt in owner.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            name = stmt.target.id
            if name.startswith("_") or name == "model_config" or _outer(stmt.annotation) in _NOT_FIELDS:
                continue
            found[name] = _field(owner.name, name, stmt, enums)
    return list(found.values())


def _field(model: str, name: str, stmt: ast.AnnAssign, enums: dict[str, ast.ClassDef]) -> _Field:
    annotation = unquoted(stmt.annotation)
    attrs: dict[str, str] = {"type": ast.unparse(annotation)}
    key, env = name, list[str]()
    default: object = UNKNOWN
    call = (
        stmt.value if isinstance(stmt.value, ast.Call) and _dotted(stmt.value.func) in _FIELD_CALLS else None
    )
    for meta in _annotated_fields(annotation):
        call = call or meta  # Annotated[int, Field(...)]
    if call is not None:
        if call.args and not _is_ellipsis(call.args[0]):
            default = value(call.args[0], _nothing)
        for kw in call.keywords:
            if kw.arg == "default" and not _is_ellipsis(kw.value):
                default = value(kw.value, _nothing)
            elif kw.arg == "default_factory":
                default = made_by(kw.value, _nothing)
            elif kw.arg in ("description", "json_schema_extra"):
                help_text = value(kw.value, _nothing)
                if isinstance(help_text, dict):  # json_schema_extra={"description": ...}
                    help_text = help_text.get("description")
                if isinstance(help_text, str):
                    attrs.setdefault("help", help_text)
            elif kw.arg in ("alias", "validation_alias"):
                aliases = _aliases(kw.value)
                if aliases:
                    key = aliases[0] if kw.arg == "alias" or key == name else key
                    env.extend(a for a in aliases if a not in env)
            elif kw.arg == "env":  # pydantic v1 settings
                names = value(kw.value, _nothing)
                env.extend([names] if isinstance(names, str) else [n for n in members(names) or [] if n])
    elif stmt.value is not None:
        default = value(stmt.value, _nothing)
    if default is not UNKNOWN:
        attrs["default"] = as_text(default)
    choices = _choices(annotation, enums)
    if choices:
        attrs["choices"] = ",".join(choices)
    return _Field(name, key, stmt.lineno, annotation, attrs, tuple(env), model)


def _models_in(field: _Field, models: set[str]) -> list[str]:
    """The models of the file a field's annotation names (`Optimizer`, `Optimizer | None`)."""
    if field.annotation is None:
        return []
    names = {n.id for n in walk.every(field.annotation) if isinstance(n, ast.Name)}
    names |= {
        n.value
        for n in walk.every(field.annotation)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    return sorted(n for n in names if n in models)


def _choices(annotation: ast.expr, enums: dict[str, ast.ClassDef]) -> list[str]:
    for node in walk.every(annotation):
        if isinstance(node, ast.Subscript) and _dotted(node.value).split(".")[-1] == "Literal":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            found = [value(i, _nothing) for i in items]
            return [as_text(f) for f in found if f is not UNKNOWN and f is not None]
        if isinstance(node, ast.Name) and node.id in enums:
            out = []
            for stmt in enums[node.id].body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    member = value(stmt.value, _nothing)
                    if member is not UNKNOWN:
                        out.append(as_text(member))
            return out
    return []


def _aliases(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "AliasChoices":
        return [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return []  # an AliasPath reads into a nested value: no key of its own


def _annotated_fields(annotation: ast.expr) -> list[ast.Call]:
    if isinstance(annotation, ast.Subscript) and _dotted(annotation.value).split(".")[-1] == "Annotated":
        items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
        return [i for i in items[1:] if isinstance(i, ast.Call) and _dotted(i.func) in _FIELD_CALLS]
    return []


def _outer(node: ast.expr) -> str:
    node = unquoted(node)
    if isinstance(node, ast.Subscript):
        node = node.value
    return _dotted(node).split(".")[-1]


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _nothing(node: ast.expr) -> None:
    return None
