"""Typed parameters as CLI frameworks read them: dataclass fields and function signatures.

HfArgumentParser, tyro and jsonargparse all build flags from a name, a type annotation and a
default; this module reads those three (and the help a framework takes from `metadata=` or a
docstring) from the file alone. What the file does not say is marked unknown, never guessed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

from bot.core.extract.constants import (
    UNKNOWN,
    Module,
    _enum_members,
    as_text,
    dotted,
    made_by,
    unquoted,
    value,
)
from bot.core.extract.scopes import Scope

_NOT_FIELDS = frozenset({"ClassVar", "InitVar", "KW_ONLY", "Final"})
_FIELD_CALLS = frozenset({"field", "dataclasses.field", "Field", "pydantic.Field", "attr.ib", "attrs.field"})
# Bases that add no fields: a class deriving from one alone is no wider than its file shows.
NO_FIELDS = frozenset(
    {"object", "ABC", "Generic", "Protocol", "Enum", "str", "int", "NamedTuple", "TypedDict"}
)
MAX_DEPTH = 8  # bases and nesting followed at most this deep: a file mid-edit may hold a cycle


@dataclass(frozen=True)
class Param:
    """A dataclass field or a function parameter."""

    name: str
    line: int
    annotation: ast.expr | None  # a quoted annotation is read as the expression it spells
    default: object = UNKNOWN  # the value, when the file says it (a factory's product too)
    has_default: bool = False  # a default or a default factory is given
    default_node: ast.expr | None = None  # the default as written (a nested config's constructor)
    metadata: dict[str, ast.expr] = field(default_factory=dict)  # `field(metadata={...})`
    help: str | None = None  # from metadata or the docstring
    init: bool = True  # `field(init=False)` is not a parameter
    extras: tuple[ast.expr, ...] = ()  # what `Annotated[T, ...]` adds to the type
    factory: ast.expr | None = None  # `field(default_factory=X)`: the X a default is made by


def last(node: ast.expr) -> str | None:
    name = dotted(node)
    return name.rsplit(".", 1)[-1] if name else None


def module_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """Classes of the module's top level, looking into `if`/`try` blocks (TYPE_CHECKING aside)."""
    out: dict[str, ast.ClassDef] = {}
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.ClassDef):
            out.setdefault(node.name, node)
        elif isinstance(node, ast.If):
            stack.extend([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            stack.extend(node.body)
    return out


MAX_NESTING = 3  # classes inside classes followed this deep


def nested_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """The module's classes, those defined inside a class too, by their dotted names
    (`Trainer.Config`): a component that carries its own config class, as tyro reaches it through
    `Trainer.Config`'s fields typed `Profiler.Config`."""
    out = dict(module_classes(tree))
    stack = [(name, cls, 1) for name, cls in out.items()]
    while stack:
        name, cls, depth = stack.pop()
        for stmt in cls.body:
            if isinstance(stmt, ast.ClassDef) and depth <= MAX_NESTING:
                dotted_name = f"{name}.{stmt.name}"
                out.setdefault(dotted_name, stmt)
                stack.append((dotted_name, stmt, depth + 1))
    return out


def is_dataclass(cls: ast.ClassDef) -> bool:
    """Decorated `@dataclass`, `@dataclasses.dataclass(...)`, `@pydantic.dataclasses.dataclass`."""
    for d in cls.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if last(target) in ("dataclass", "define", "frozen", "attrs"):
            return True
    return False


def class_fields(
    classes: dict[str, ast.ClassDef], name: str, scope: Scope, module: Module
) -> list[Param] | None:
    """The fields of class `name` in `dataclasses.fields()` order: those of its bases in the same
    file first, a field redefined keeping its place. None when the file has no such class."""
    if name not in classes:
        return None
    found: dict[str, Param] = {}
    _collect(classes, classes[name], found, 0, scope, module)
    return [p for p in found.values() if p.init]


def _collect(
    classes: dict[str, ast.ClassDef],
    cls: ast.ClassDef,
    found: dict[str, Param],
    depth: int,
    scope: Scope,
    module: Module,
) -> None:
    if depth > MAX_DEPTH:
        return
    for base in reversed(cls.bases):
        name = dotted(base)
        if name in classes and name != cls.name:
            _collect(classes, classes[name], found, depth + 1, scope, module)
    docs = attribute_docs(cls)
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        annotation = read_annotation(stmt.annotation)
        head = last(annotation.value if isinstance(annotation, ast.Subscript) else annotation)
        if head in _NOT_FIELDS:
            continue
        param = _field(stmt.target.id, stmt.lineno, annotation, stmt.value, scope, module, docs)
        found[stmt.target.id] = replace(param, extras=tuple(annotated_extras(stmt.annotation)))


def _field(
    name: str,
    line: int,
    annotation: ast.expr,
    written: ast.expr | None,
    scope: Scope,
    module: Module,
    docs: dict[str, str],
) -> Param:
    if written is None:
        return Param(name, line, annotation, help=docs.get(name))
    if not (isinstance(written, ast.Call) and dotted(written.func) in _FIELD_CALLS):
        found = value(written, scope.lookup, module)
        return Param(name, line, annotation, found, True, written, help=docs.get(name))
    keywords = {k.arg: k.value for k in written.keywords if k.arg is not None}
    metadata: dict[str, ast.expr] = {}
    meta = keywords.get("metadata")
    if isinstance(meta, ast.Dict):
        for k, v in zip(meta.keys, meta.values, strict=True):
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                metadata[k.value] = v
    for key in ("help", "aliases", "description"):  # transformers' `HfArg(help=...)`, pydantic's Field
        if key in keywords:
            metadata.setdefault(key, keywords[key])
    flag = keywords.get("init")
    init = not (isinstance(flag, ast.Constant) and flag.value is False)
    default: object = UNKNOWN
    node: ast.expr | None = None
    factory: ast.expr | None = None
    has = False
    positional = (
        written.args[0] if written.args and dotted(written.func) in ("Field", "pydantic.Field") else None
    )
    if "default" in keywords or positional is not None:
        node = keywords.get("default", positional)
        assert node is not None
        has = not (isinstance(node, ast.Constant) and node.value is Ellipsis)
        default = value(node, scope.lookup, module) if has else UNKNOWN
    elif "default_factory" in keywords:
        has, node = True, keywords["default_factory"]
        default = made_by(node, scope.lookup, module)
        factory = node
        node = node.body if isinstance(node, ast.Lambda) else None
    help_node = metadata.get("help") or metadata.get("description")
    help_text = value(help_node, scope.lookup, module) if help_node is not None else UNKNOWN
    return Param(
        name,
        line,
        annotation,
        default,
        has,
        node,
        metadata,
        help_text if isinstance(help_text, str) else docs.get(name),
        init,
        factory=factory,
    )


def read_annotation(node: ast.expr) -> ast.expr:
    """A quoted annotation ("int | None") read as the expression it spells, Annotated[X, ...] as X."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return unquoted(node)
    if isinstance(node, ast.Subscript) and last(node.value) == "Annotated":
        inner = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
        return read_annotation(inner)
    return node


def annotated_extras(node: ast.expr | None) -> list[ast.expr]:
    """The metadata of `Annotated[T, x, y]`: [x, y]."""
    if (
        isinstance(node, ast.Subscript)
        and last(node.value) == "Annotated"
        and isinstance(node.slice, ast.Tuple)
    ):
        return list(node.slice.elts[1:])
    return []


def union_members(node: ast.expr) -> list[ast.expr]:
    """`A | B`, `Union[A, B]`, `Optional[A]` (with None) as their members; a single type alone."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*union_members(node.left), *union_members(node.right)]
    if isinstance(node, ast.Subscript) and last(node.value) == "Union":
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return [m for e in elts for m in union_members(e)]
    if isinstance(node, ast.Subscript) and last(node.value) == "Optional":
        return [*union_members(node.slice), ast.Constant(None)]
    return [node]


def is_none(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or last(node) == "NoneType"


def without_none(node: ast.expr) -> tuple[ast.expr, bool]:
    """The annotation with `None` left out of its union, and whether it was there."""
    members = union_members(node)
    kept = [m for m in members if not is_none(m)]
    if len(kept) == len(members) or not kept:
        return node, False
    result = kept[0]
    for m in kept[1:]:
        result = ast.BinOp(left=result, op=ast.BitOr(), right=m)
    return result, True


def literal_choices(node: ast.expr, scope: Scope, module: Module) -> list[object] | None:
    """The values of `Literal["a", "b"]`, or of an Enum class of the module (its members'
    values, as transformers offers them); None for any other annotation."""
    if isinstance(node, ast.Subscript) and last(node.value) == "Literal":
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        values = [value(e, scope.lookup, module) for e in elts]
        return None if any(v is UNKNOWN for v in values) else values
    members = _enum_members(node, module) if isinstance(node, ast.Name) else None
    return [v for _, v in members] if members else None


def enum_names(node: ast.expr, module: Module) -> list[str] | None:
    """The member names of an Enum class of the module (tyro offers names, not values)."""
    members = _enum_members(node, module) if isinstance(node, ast.Name) else None
    return [n for n, _ in members] if members else None


def origin(node: ast.expr) -> str | None:
    """`list[int]` -> "list", `typing.List[int]` -> "list", `int` -> "int"."""
    head = last(node.value) if isinstance(node, ast.Subscript) else last(node)
    return head.lower() if head in ("List", "Tuple", "Dict", "Set", "Sequence") else head


def text_of(found: object) -> str | None:
    return None if found is UNKNOWN else as_text(found)


# --- signatures ---------------------------------------------------------------------------------


def signature(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, module: Module, skip_self: bool = False
) -> list[Param]:
    """A function's parameters as keyword arguments: `*args`, `**kwargs` and positional-only
    ones aside; help from its docstring (Google `Args:`, Sphinx `:param x:`, NumPy)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(positional, defaults, strict=True))[len(a.posonlyargs) :]
    pairs += list(zip(a.kwonlyargs, a.kw_defaults, strict=True))
    if skip_self and pairs and pairs[0][0].arg in ("self", "cls"):
        pairs = pairs[1:]
    docs = docstring_params(ast.get_docstring(fn) or "")
    out = []
    for arg, default in pairs:
        annotation = read_annotation(arg.annotation) if arg.annotation is not None else None
        found = value(default, scope.lookup, module) if default is not None else UNKNOWN
        extras = tuple(annotated_extras(arg.annotation))
        has = default is not None
        out.append(
            Param(arg.arg, arg.lineno, annotation, found, has, default, help=docs.get(arg.arg), extras=extras)
        )
    return out


_GOOGLE = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX = re.compile(r"^\s*:param\s+(?:[\w\[\], .|]+\s+)?(\w+)\s*:\s*(.*)$")
_SECTIONS = ("args:", "arguments:", "parameters:", "params:", "keyword args:", "kwargs:")


def docstring_params(doc: str) -> dict[str, str]:
    """Parameter name -> its description's first line, from a docstring's `Args:` section or
    `:param name:` fields (NumPy's `name : type` lines followed by the text)."""
    out: dict[str, str] = {}
    lines = doc.splitlines()
    in_args = False
    indent = 0
    for i, line in enumerate(lines):
        sphinx = _SPHINX.match(line)
        if sphinx:
            out.setdefault(sphinx.group(1), sphinx.group(2).strip())
            continue
        stripped = line.strip()
        if stripped.lower() in _SECTIONS:
            in_args, indent = True, len(line) - len(line.lstrip())
            continue
        if stripped.lower() == "parameters" and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            in_args, indent = True, len(line) - len(line.lstrip())
            continue
        if not in_args or not stripped or set(stripped) == {"-"}:
            continue
        if len(line) - len(line.lstrip()) <= indent and stripped.endswith(":"):
            in_args = False
            continue
        google = _GOOGLE.match(line)
        if google and len(line) - len(line.lstrip()) <= indent + 4:
            name, rest = google.group(1), google.group(2).strip()
            if not rest and i + 1 < len(lines):
                rest = lines[i + 1].strip()
            out.setdefault(name, rest)
    return out


def attribute_docs(cls: ast.ClassDef) -> dict[str, str]:
    """Field -> the string literal written right under it (the attribute docstring tyro and
    jsonargparse read as help)."""
    out: dict[str, str] = {}
    body = cls.body
    for stmt, after in zip(body, body[1:], strict=False):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            out[stmt.target.id] = " ".join(after.value.value.split())
    return out


def named_roots(names: tuple[str, ...]) -> list[tuple[str, str]]:
    """A rule's `names` as (prefix, class or function): `model=MyModel` makes `--model.x` of
    MyModel's parameter x; a bare name has no prefix."""
    out = []
    for entry in names:
        prefix, _, name = entry.rpartition("=")
        out.append((prefix.strip(), name.strip()))
    return out


def module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def init_method(cls: ast.ClassDef) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == "__init__":
            return stmt
    return None


def constructed(
    node: ast.expr | None, classes: dict[str, ast.ClassDef]
) -> tuple[str, dict[str, ast.expr]] | None:
    """`OptConfig(lr=1e-3)` as a default (`Profiler.Config()`, a nested class, too): the class
    it builds and the keywords it overrides."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
        name = dotted(node.func)
        if name in classes:
            return name, {k.arg: k.value for k in node.keywords if k.arg is not None}
    return None


def enum_member(node: ast.expr | None, module: Module) -> tuple[str, object] | None:
    """`Mode.FAST` as a default: the member's (name, value), for an Enum class of the module."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        return None
    for name, member_value in _enum_members(node.value, module) or ():
        if name == node.attr:
            return name, member_value
    return None


def bases(classes: dict[str, ast.ClassDef], name: str, depth: int = 0) -> list[str]:
    """The names of `name`'s bases (the last part, or a nested class's dotted name, or the dotted
    name of another module's class named as `name` is), and of theirs when the file defines them."""
    cls = classes.get(name)
    if cls is None or depth > MAX_DEPTH:
        return []
    out = []
    for base in cls.bases:
        written = base.value if isinstance(base, ast.Subscript) else base
        # `Configurable.Config`, a class's own nested class (its head a class's name, not a
        # module's), is known by its dotted name; `abc.ABC` by its last.
        whole = dotted(written) or ""
        found = whole if whole in classes or whole[:1].isupper() else last(written)
        if found == name and whole != name:
            # `class TrainingArguments(transformers.TrainingArguments)`: another module's class of
            # the same name, known by its dotted name (the class is not its own base)
            found = whole
        if found is not None and found != name:
            out += [found, *bases(classes, found, depth + 1)]
    return out
