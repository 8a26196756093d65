"""Flags that transformers' `HfArgumentParser` makes of dataclasses, read as its
`_parse_dataclass_field` makes them (transformers/hf_argparser.py):

- every field with `init=True` is `--field_name`, plus `--field-name` when the name has an
  underscore, plus the `aliases` of its metadata; the rest of `metadata` (`help`, `choices`)
  is passed to argparse as written;
- `Optional[X]` / `X | None` is X; `Literal[...]` and Enum classes give the choices (an Enum's
  member values); `list[X]` takes one or more X (`nargs="+"`, the factory's list as default);
- a `bool` (or `Optional[bool]` with a default other than None) is a switch whose value is
  optional: `--x` alone sets True, `--x false` sets False; its default is False when none is
  given. A bool defaulting to True also gets `--no_x` and `--no-x` (store_false);
- a field with no default (and no factory) is required.

The classes are the rule's `names` (with their bases in the same file), or every dataclass in
the file. Fields of a base in another module are that module's facts: name it in `names` and
list its file in `paths`. A base from another package (transformers' `TrainingArguments`) has
fields no file of the repository shows: the flags carry `open`, and a page citing a flag none
of them has is told only when it looks like a misspelling of one.
"""

from __future__ import annotations

import ast

from bot.core.extract.constants import UNKNOWN, Module, as_text, value
from bot.core.extract.scopes import Scope
from bot.core.extract.typed_fields import (
    NO_FIELDS,
    Param,
    bases,
    class_fields,
    enum_member,
    is_dataclass,
    is_none,
    last,
    literal_choices,
    module_classes,
    origin,
    text_of,
    union_members,
)
from bot.core.model import Fact
from bot.core.rules import Source


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    classes = module_classes(tree)
    wanted = (
        [n for n in source.names if n in classes]
        if source.names
        else [name for name, cls in classes.items() if is_dataclass(cls)]
    )
    scope, module = Scope(tree, None), Module(tree)
    out: list[Fact] = []
    seen: set[str] = set()
    # A base from another package (transformers' TrainingArguments) adds fields no file here shows.
    known = set(classes) | {n.rpartition("=")[2] for n in source.names}
    opened = any(b not in known and b not in NO_FIELDS for name in wanted for b in bases(classes, name))
    for name in wanted:
        for param in class_fields(classes, name, scope, module) or ():
            for token, attrs in field_flags(param, scope, module):
                if token in seen:
                    continue
                seen.add(token)
                if opened:
                    attrs["open"] = "true"
                out.append(Fact.of("flag", token, param.name, source.id, path, param.line, attrs))
    return out


def field_flags(param: Param, scope: Scope, module: Module) -> list[tuple[str, dict[str, str]]]:
    """(option string, attributes) for each option string HfArgumentParser gives the field."""
    if param.annotation is None:
        return []
    longs = [f"--{param.name}"]
    if "_" in param.name:
        longs.append(f"--{param.name.replace('_', '-')}")
    longs += _aliases(param, scope, module)
    attrs: dict[str, str] = {}
    unknown: list[str] = []
    for key in ("help", "choices"):
        if key in param.metadata:
            found = value(param.metadata[key], scope.lookup, module)
            if found is UNKNOWN:
                unknown.append(key)
            elif key == "choices" and isinstance(found, list | tuple):
                attrs[key] = ",".join(as_text(v) for v in found)
            else:
                attrs[key] = as_text(found)
    kind = _effective(param.annotation)
    default = text_of(param.default)
    member = enum_member(param.default_node, module) if default is None else None
    if member is not None:  # argparse is given the member; it compares equal to its value
        default = as_text(member[1])
    if param.has_default and default is None:
        unknown.append("default")
    negated: list[tuple[str, dict[str, str]]] = []
    choices = literal_choices(kind, scope, module) if kind is not None else None
    if kind is None:
        unknown.append("type")
    elif choices is not None:
        attrs["choices"] = ",".join(as_text(v) for v in choices)
        _default_or_required(param, default, attrs)
    elif _is_bool(kind):
        plain = last(kind) == "bool"
        attrs["type"] = "bool"
        if plain or (param.has_default and param.default is not None):
            attrs["nargs"], attrs["const"], attrs["sets"] = "?", "True", "true"
            if not param.has_default:
                attrs["default"] = "False"
            elif default is not None:
                attrs["default"] = default
        elif default is not None:
            attrs["default"] = default
        if param.default is True:
            off = {**attrs, "action": "store_false", "sets": "false", "default": "True"}
            for k in ("nargs", "const", "type"):
                off.pop(k, None)
            dashed = param.name.replace("_", "-")
            negated = [(f"--no_{param.name}", off), (f"--no-{dashed}", dict(off))]
    elif origin(kind) == "list":
        inner = kind.slice if isinstance(kind, ast.Subscript) else None
        if inner is not None:
            attrs["type"] = ast.unparse(inner)
        attrs["nargs"] = "+"
        _default_or_required(param, default, attrs)
    else:
        attrs["type"] = ast.unparse(kind)
        _default_or_required(param, default, attrs)
        local = isinstance(kind, ast.Name) and kind.id in module.classes
        if isinstance(kind, ast.Name | ast.Attribute) and last(kind) not in _PLAIN and not local:
            unknown += ["choices", "type"]  # an alias or an Enum of another module
    if unknown:
        attrs["unknown"] = " ".join(dict.fromkeys(unknown))
    return [(token, dict(attrs)) for token in dict.fromkeys(longs)] + negated


# Types that take a value and offer no choices.
_PLAIN = frozenset({"int", "float", "str", "bytes", "Path", "dict", "Dict", "Any", "complex", "object"})


def _effective(annotation: ast.expr) -> ast.expr | None:
    """The type HfArgumentParser reads: `Optional[X]` is X (`Optional[bool]` stays as it is),
    `Union[X, str]` is X; None for a union it refuses."""
    members = union_members(annotation)
    if len(members) == 1:
        return annotation
    kept = [m for m in members if not is_none(m)]
    if len(kept) == len(members):  # no None: transformers keeps the member that is not `str`
        if len(members) != 2:
            return None
        return members[0] if last(members[1]) == "str" else members[1]
    if len(kept) != 1:
        return None
    return annotation if last(kept[0]) == "bool" else kept[0]


def _is_bool(kind: ast.expr) -> bool:
    members = [m for m in union_members(kind) if not is_none(m)]
    return len(members) == 1 and last(members[0]) == "bool"


def _default_or_required(param: Param, default: str | None, attrs: dict[str, str]) -> None:
    if default is not None:
        attrs["default"] = default
    elif not param.has_default:
        attrs["required"] = "true"


def _aliases(param: Param, scope: Scope, module: Module) -> list[str]:
    node = param.metadata.get("aliases")
    if node is None:
        return []
    found = value(node, scope.lookup, module)
    items = [found] if isinstance(found, str) else found if isinstance(found, list | tuple) else []
    return [a for a in items if isinstance(a, str) and a.startswith("-")]
