"""What an expression is worth when its file alone says: literals, names assigned once to one,
arithmetic on them, `list(X)`, `X.keys()`, the members of an Enum class of the same module.

Anything else (a call, an environment variable, a name from another module) is UNKNOWN: a doc
cannot be checked against it, and it is never replaced by its source text, which no doc quotes.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

# A lookup maps an expression to what it stands for: its final text (str), the expression a name
# holds (ast.expr), or None when it knows nothing about it.
Lookup = Callable[[ast.expr], "str | ast.expr | None"]


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()

_MAX_DEPTH = 30
_MAX_SIZE = 10_000
_ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum", "Flag", "IntFlag"})
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.LShift: operator.lshift,
}
_CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "int": int,
    "float": float,
    "str": str,
    "bool": bool,
    "list": list,
    "tuple": tuple,
    "sorted": sorted,
    "set": set,
    "frozenset": frozenset,
}
# Methods of a string that compute another from their arguments and nothing else.
STR_METHODS = frozenset(
    {"replace", "lower", "upper", "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "join"}
)


class Module:
    """The module-level classes and functions an expression may name."""

    def __init__(self, tree: ast.Module | None = None):
        body = tree.body if tree is not None else []
        self.classes = {n.name: n for n in body if isinstance(n, ast.ClassDef)}
        self.functions = {n.name: n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


NO_MODULE = Module()


def value(node: ast.expr, lookup: Lookup, module: Module = NO_MODULE, depth: int = 0) -> Any:
    """The constant `node` evaluates to, or UNKNOWN."""
    if depth > _MAX_DEPTH:
        return UNKNOWN
    try:
        return _value(node, lookup, module, depth)
    except (ArithmeticError, TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError):
        return UNKNOWN


def _value(node: ast.expr, lookup: Lookup, module: Module, depth: int) -> Any:
    def inner(n: ast.expr) -> Any:
        return value(n, lookup, module, depth + 1)

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name | ast.Attribute):
        found = lookup(node)
        if isinstance(found, str):
            return found
        if found is not None and found is not node:
            return inner(found)
        if isinstance(node, ast.Attribute):
            return _attribute(node, lookup, module, depth)
        return UNKNOWN
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = [inner(e) for e in node.elts]
        if any(i is UNKNOWN for i in items) or any(isinstance(e, ast.Starred) for e in node.elts):
            return UNKNOWN
        return (
            items
            if isinstance(node, ast.List)
            else tuple(items)
            if isinstance(node, ast.Tuple)
            else set(items)
        )
    if isinstance(node, ast.Dict):
        keys = [inner(k) if k is not None else UNKNOWN for k in node.keys]
        values = [inner(v) for v in node.values]
        if any(x is UNKNOWN for x in (*keys, *values)):
            return UNKNOWN
        return dict(zip(keys, values, strict=True))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        operand = inner(node.operand)
        return UNKNOWN if operand is UNKNOWN else not operand
    if isinstance(node, ast.UnaryOp):
        operand = inner(node.operand)
        if operand is UNKNOWN or not isinstance(operand, int | float):
            return UNKNOWN
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        return UNKNOWN
    if isinstance(node, ast.BinOp):
        return _binary(node.op, inner(node.left), inner(node.right))
    if isinstance(node, ast.JoinedStr):
        # A placeholder shows a scalar as str() does; a literal piece is a str already.
        text = f_string(node, lambda part: _scalar_text(inner(part)))
        return UNKNOWN if text is None else text
    entry = literal_entry(node, lookup)
    if entry is not None:
        # `spec["name"]`, `spec.get("nickname")` of a dict literal: that entry alone, whatever the
        # others hold (`"type": str`, `"attribute": {"object": interpreter}`)
        return None if entry is MISSING else inner(entry)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _SAME_OPS):
        types = [_builtin_type(n, lookup) for n in (node.left, node.comparators[0])]
        if None not in types:  # `spec["type"] == bool`
            return (types[0] == types[1]) == isinstance(node.ops[0], ast.Eq | ast.Is)
    keyed = _key_test(node, lookup)
    if keyed is not None:
        return keyed
    if isinstance(node, ast.Call):
        return _call(node, lookup, module, depth)
    if isinstance(node, ast.IfExp):
        test = inner(node.test)
        if test is UNKNOWN:
            return UNKNOWN
        return inner(node.body if test else node.orelse)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _compare(node.ops[0], inner(node.left), inner(node.comparators[0]))
    if isinstance(node, ast.BoolOp):
        results = [inner(v) for v in node.values]
        if any(r is UNKNOWN for r in results):
            return UNKNOWN
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        return _enum_comprehension(node, module)
    if isinstance(node, ast.Subscript):
        container, index = inner(node.value), inner(node.slice)
        if container is UNKNOWN or index is UNKNOWN or not isinstance(container, list | tuple | dict | str):
            return UNKNOWN
        return container[index]
    return UNKNOWN


MISSING = ast.Constant(None)  # literal_entry's answer for a key the dict does not have
_SAME_OPS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
_BUILTIN_TYPES = frozenset({"str", "int", "float", "bool", "list", "dict", "tuple", "set"})


def literal_entry(node: ast.expr, lookup: Lookup) -> ast.expr | None:
    """The entry `node` reads of a dict literal (`spec["name"]`, `spec.get("name", "x")`, `spec`
    a name the lookup binds to the literal): the entry's expression, the `.get` default (MISSING
    for none) when the literal has no such key; None when `node` reads no dict literal."""
    if isinstance(node, ast.Subscript):
        held, key, default = node.value, node.slice, None
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and 1 <= len(node.args) <= 2
        and not node.keywords
    ):
        held, key = node.func.value, node.args[0]
        default = node.args[1] if len(node.args) == 2 else MISSING
    else:
        return None
    found = lookup(held) if isinstance(held, ast.Name) else None
    literal = found if isinstance(found, ast.Dict) else held if isinstance(held, ast.Dict) else None
    if literal is None or not isinstance(key, ast.Constant) or None in literal.keys:
        return None
    for k, v in zip(literal.keys, literal.values, strict=True):
        if isinstance(k, ast.Constant) and k.value == key.value:
            return v
    return default


def _key_test(node: ast.expr, lookup: Lookup) -> bool | None:
    """`"action" in spec` of a dict literal the lookup binds `spec` to: decided by its keys alone,
    whatever its values hold (`"type": str`), as `spec.get("action")` is; None otherwise."""
    if not (
        isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn)
    ):
        return None
    key, held = node.left, node.comparators[0]
    found = lookup(held) if isinstance(held, ast.Name) else None
    if not isinstance(found, ast.Dict) or not isinstance(key, ast.Constant):
        return None
    if not all(isinstance(k, ast.Constant) for k in found.keys):
        return None  # a `**splat` or a computed key: the keys are not all known
    present = any(isinstance(k, ast.Constant) and k.value == key.value for k in found.keys)
    return present == isinstance(node.ops[0], ast.In)


def _builtin_type(node: ast.expr, lookup: Lookup) -> str | None:
    """The builtin type `node` names (`str`, or a dict literal's entry holding `bool`), when no
    binding of the file hides it."""
    entry = literal_entry(node, lookup)
    if entry is not None and entry is not MISSING:
        node = entry
    if isinstance(node, ast.Name) and node.id in _BUILTIN_TYPES and lookup(node) is None:
        return node.id
    return None


def _binary(op: ast.operator, left: Any, right: Any) -> Any:
    if left is UNKNOWN or right is UNKNOWN or type(op) not in _BINARY:
        return UNKNOWN
    if isinstance(op, ast.Pow) and (not isinstance(right, int | float) or abs(right) > 64):
        return UNKNOWN
    if isinstance(op, ast.LShift) and (not isinstance(right, int) or right > 64):
        return UNKNOWN
    if isinstance(op, ast.Mult) and (
        isinstance(left, str | list | tuple) or isinstance(right, str | list | tuple)
    ):
        sizes = [len(x) for x in (left, right) if isinstance(x, str | list | tuple)]
        counts = [x for x in (left, right) if isinstance(x, int)]
        if counts and sizes and sizes[0] * max(counts[0], 0) > _MAX_SIZE:
            return UNKNOWN
    result = _BINARY[type(op)](left, right)
    # Every step is bounded, so a chain of them (`B = A * A`, `C = B * B`, ...) stays small.
    if isinstance(result, float) and math.isnan(result):
        return UNKNOWN
    if isinstance(result, int) and result.bit_length() > 4096:
        return UNKNOWN
    if isinstance(result, str | list | tuple) and len(result) > _MAX_SIZE:
        return UNKNOWN
    return result


def _compare(op: ast.cmpop, left: Any, right: Any) -> Any:
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if isinstance(op, ast.Eq | ast.NotEq):
        return (left == right) == isinstance(op, ast.Eq)
    if isinstance(op, ast.In | ast.NotIn) and isinstance(right, list | tuple | set | frozenset | dict | str):
        return (left in right) == isinstance(op, ast.In)
    if isinstance(op, ast.Is | ast.IsNot) and right is None:
        return (left is None) == isinstance(op, ast.Is)
    return UNKNOWN


def _call(node: ast.Call, lookup: Lookup, module: Module, depth: int) -> Any:
    func = node.func
    if node.keywords and not (isinstance(func, ast.Name) and func.id == "sorted" and _only_reverse(node)):
        return UNKNOWN
    if isinstance(func, ast.Name) and func.id in _CONVERSIONS and len(node.args) == 1:
        found = _str_enum_values(node.args[0], module)  # list(Color): the members themselves
        if found is not None:
            return found
    args = [value(a, lookup, module, depth + 1) for a in node.args]
    if any(a is UNKNOWN for a in args):
        return UNKNOWN
    if isinstance(func, ast.Name) and func.id in _CONVERSIONS and len(args) == 1:
        if func.id in ("int", "float", "str", "bool") and not isinstance(args[0], str | int | float | bool):
            return UNKNOWN
        converted = _CONVERSIONS[func.id](args[0])
        if func.id == "sorted" and node.keywords:
            converted = list(reversed(converted))
        return converted
    if isinstance(func, ast.Attribute) and func.attr in STR_METHODS and func.attr != "join":
        subject = value(func.value, lookup, module, depth + 1)
        if isinstance(subject, str) and all(isinstance(a, str) or type(a) is int for a in args):
            return getattr(subject, func.attr)(*args)  # `name.replace("_", "-")`
        return UNKNOWN
    if isinstance(func, ast.Attribute) and not args and func.attr in ("keys", "values"):
        subject = value(func.value, lookup, module, depth + 1)
        if isinstance(subject, dict):
            return list(subject.keys() if func.attr == "keys" else subject.values())
        members = _enum_members(func.value, module)
        if members is not None and func.attr == "keys":  # E.__members__.keys()
            return [name for name, _ in members]
    return UNKNOWN


def _only_reverse(node: ast.Call) -> bool:
    return all(
        k.arg == "reverse" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in node.keywords
    )


def _attribute(node: ast.Attribute, lookup: Lookup, module: Module, depth: int) -> Any:
    """`Color.RED.value`, `Color.RED` of an Enum of this module; `X.__members__`."""
    base = node.value
    if isinstance(base, ast.Attribute) and node.attr in ("value", "name"):
        members = _enum_members(base.value, module)
        if members is not None:
            for name, member_value in members:
                if name == base.attr:
                    return member_value if node.attr == "value" else name
    if node.attr == "__members__":
        members = _enum_members(base, module)
        if members is not None:
            return {name: member_value for name, member_value in members}
    if (
        isinstance(base, ast.Name)
        and base.id in module.classes
        and lookup(base) is None
        and not any("Enum" in (last_name(b) or "") for b in module.classes[base.id].bases)
    ):
        # `default=ServerArgs.port`: what the class body assigns it (a dataclass field's default).
        assigned = class_attribute(module.classes[base.id], node.attr, module)
        if assigned is not None:
            return value(assigned, lookup, module, depth + 1)
    return UNKNOWN


_FIELD_CALLS = frozenset({"field", "dataclasses.field"})


def class_attribute(cls: ast.ClassDef, name: str, module: Module, depth: int = 0) -> ast.expr | None:
    """The expression a class body (or a base class of the module's) assigns `name`, when it
    assigns it once: `port: int = 30000`, or a dataclass field's `field(default=30000)`. None
    for anything else: `field(default_factory=list)` leaves the class no attribute of that name."""
    found: list[ast.expr | None] = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            found.append(stmt.value)
        elif isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            found.append(stmt.value if len(stmt.targets) == 1 else None)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and stmt.name == name:
            return None
    if len(found) > 1:
        return None
    if found:
        assigned = found[0]
        if isinstance(assigned, ast.Call) and dotted(assigned.func) in _FIELD_CALLS:
            given = {k.arg: k.value for k in assigned.keywords if k.arg is not None}
            return given.get("default")
        return assigned
    if depth >= 5:
        return None
    for b in cls.bases:
        if isinstance(b, ast.Name) and b.id in module.classes and b.id != cls.name:
            inherited = class_attribute(module.classes[b.id], name, module, depth + 1)
            if inherited is not None:
                return inherited
    return None


def _enum_members(node: ast.expr, module: Module) -> list[tuple[str, Any]] | None:
    """(name, value) of each member of an Enum class of this module; None when it is not one."""
    if not isinstance(node, ast.Name) or node.id not in module.classes:
        return None
    cls = module.classes[node.id]
    if not any(last_name(b) in _ENUM_BASES for b in cls.bases):
        return None
    members: list[tuple[str, Any]] = []
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if name.startswith("_"):
                continue
            member_value = stmt.value.value if isinstance(stmt.value, ast.Constant) else UNKNOWN
            if member_value is UNKNOWN:
                return None  # auto() and computed values: the members' values are not written
            members.append((name, member_value))
    return members


def enum_lookup(node: ast.expr, module: Module, by: str = "value") -> list[str] | None:
    """What `E(text)` (by "value") or `E[text]` (by "name") takes of an Enum class of this module:
    its members' string values, or their names; None when it is no such class, when a value is
    not a string (no command-line text equals it), or when `_missing_` takes other text too."""
    members = _enum_members(node, module)
    if members is None or not isinstance(node, ast.Name):
        return None
    if any(isinstance(s, ast.FunctionDef) and s.name == "_missing_" for s in module.classes[node.id].body):
        return None
    if by == "name":
        return [n for n, _ in members]
    if not all(isinstance(v, str) for _, v in members):
        return None
    return [v for _, v in members]


def _str_enum_values(node: ast.expr, module: Module) -> list[str] | None:
    """The values of a `str` Enum's members, which compare equal to them; None for other classes."""
    members = _enum_members(node, module)
    if members is None or not isinstance(node, ast.Name):
        return None
    bases = {last_name(b) for b in module.classes[node.id].bases}
    if not bases & {"str", "StrEnum"} or not all(isinstance(v, str) for _, v in members):
        return None
    return [v for _, v in members]


def _enum_comprehension(node: ast.ListComp | ast.SetComp | ast.GeneratorExp, module: Module) -> Any:
    """`[m.value for m in Mode]`, `(m.name for m in Mode)`, `[m for m in Mode]` (str enums)."""
    if len(node.generators) != 1:
        return UNKNOWN
    generator = node.generators[0]
    if generator.ifs or generator.is_async or not isinstance(generator.target, ast.Name):
        return UNKNOWN
    members = _enum_members(generator.iter, module)
    if members is None:
        return UNKNOWN
    var, elt = generator.target.id, node.elt
    if isinstance(elt, ast.Attribute) and isinstance(elt.value, ast.Name) and elt.value.id == var:
        if elt.attr == "value":
            items = [v for _, v in members]
        elif elt.attr == "name":
            items = [n for n, _ in members]
        else:
            return UNKNOWN
    elif isinstance(elt, ast.Name) and elt.id == var and _str_enum_values(generator.iter, module) is not None:
        items = [v for _, v in members]
    else:
        return UNKNOWN
    return set(items) if isinstance(node, ast.SetComp) else items


def as_text(found: Any) -> str:
    """A value as a doc would quote it: strings bare, anything else by repr (sets in order)."""
    if isinstance(found, str):
        return found
    return _repr(found)


def _repr(found: Any) -> str:
    if isinstance(found, set | frozenset):
        if not found:
            return "set()"
        return "{" + ", ".join(sorted(_repr(x) for x in found)) + "}"
    if isinstance(found, list):
        return "[" + ", ".join(_repr(x) for x in found) + "]"
    if isinstance(found, tuple):
        inside = ", ".join(_repr(x) for x in found)
        return f"({inside},)" if len(found) == 1 else f"({inside})"
    if isinstance(found, dict):
        return "{" + ", ".join(f"{_repr(k)}: {_repr(v)}" for k, v in found.items()) + "}"
    return repr(found)


def members(found: Any) -> list[str] | None:
    """The choices a `choices=` value offers, as text; None when it is no collection."""
    if isinstance(found, dict):
        found = list(found)
    if isinstance(found, set | frozenset):
        return sorted(as_text(x) for x in found)
    if isinstance(found, list | tuple | range):
        return [as_text(x) for x in found]
    return None


def unquoted(node: ast.expr) -> ast.expr:
    """A quoted annotation ("int | None") read as the expression it spells."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return node
    return node


_EMPTY: dict[str, object] = {"list": [], "dict": {}, "set": set(), "tuple": ()}


def made_by(factory: ast.expr, lookup: Lookup, module: Module = NO_MODULE) -> object:
    """What a default factory makes, when the file says: `list`, `lambda: ["a", "b"]`."""
    if isinstance(factory, ast.Name) and factory.id in _EMPTY:
        return _EMPTY[factory.id]
    if isinstance(factory, ast.Lambda) and not factory.args.args:
        return value(factory.body, lookup, module)
    return UNKNOWN


def f_string(node: ast.JoinedStr, text: Callable[[ast.expr], str | None]) -> str | None:
    """The value of an f-string whose every piece (literal, or a placeholder's expression) `text`
    reads; None when it reads one not, or a placeholder formats its value (`{x:>4}`, `{x!r}`)."""
    parts = []
    for part in node.values:
        if isinstance(part, ast.FormattedValue):
            if part.format_spec is not None or part.conversion not in (-1, ord("s")):
                return None
            part = part.value
        got = text(part)
        if got is None:
            return None
        parts.append(got)
    return "".join(parts)


def _scalar_text(got: Any) -> str | None:
    return str(got) if isinstance(got, str | int | float | bool) else None


def last_name(node: ast.expr) -> str | None:
    """The name a name is, or an attribute ends in: `field` for `dataclasses.field` and for
    `get().field` alike (which `dotted` does not read); None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def dotted(node: ast.expr) -> str | None:
    """A name or an attribute chain as written (`dataclasses.field`); None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None
