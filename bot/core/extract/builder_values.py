"""The values a builder's run reads and makes (bot/core/extract/builder_run.py), the two modules
it reads them from, and what the typing functions it may call answer of an annotation, all as
Python would have them, from what the files spell out."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.core.extract import argparse_calls
from bot.core.extract.argparse_calls import Flag
from bot.core.extract.constants import UNKNOWN, Module, dotted, unquoted, value
from bot.core.extract.scopes import Scope

MAX_STEPS = 5_000  # statements and expressions one field's run may evaluate
MAX_RUN_STEPS = 200_000  # those of all the fields of one dataclass: a hostile one has thousands
MAX_DEPTH = 4  # helper calls nested in one another
MAX_ITEMS = 64  # items a loop inside a helper may go over

TYPING = frozenset({"typing", "typing_extensions"})
# Subscripted annotations and what `get_origin` answers for each.
ORIGINS = {
    "Annotated": "Annotated",
    "Optional": "Union",
    "Union": "Union",
    "Literal": "Literal",
    "List": "list",
    "list": "list",
    "Dict": "dict",
    "dict": "dict",
    "Tuple": "tuple",
    "tuple": "tuple",
    "Set": "set",
    "set": "set",
}
BUILTIN_TYPES = frozenset(
    {"str", "int", "float", "bool", "bytes", "list", "dict", "tuple", "set", "frozenset", "object", "type"}
)
_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


class Undecided(Exception):
    """The run reached something neither file decides."""


class Raised(Undecided):
    """A `raise` of the builder's, on its way out to the `try` that catches it: a raise no
    handler of the run catches leaves the field undecided, like any other."""

    def __init__(self, name: str | None):
        super().__init__(name)
        self.name = name  # the exception class as written (`TypeInferenceError`); None: unknown


class _Unknown:
    def __repr__(self) -> str:
        return "UNK"


UNK: Any = _Unknown()


@dataclass(frozen=True)
class Ann:
    """A type: an annotation of the dataclass's module, or a builtin or typing name."""

    node: ast.expr


@dataclass(frozen=True)
class Src:
    """An expression of the dataclass's module whose value that module does not spell out (a
    function, a list it builds at run time): passed on to argparse as written."""

    node: ast.expr


@dataclass(frozen=True)
class Sentinel:
    """An object compared by identity only: `dataclasses.MISSING`, another library's attribute."""

    name: str


@dataclass
class Obj:
    """An instance of a class of the builder's module: `Arg(help=..., choices=...)`."""

    cls: str
    values: dict[str, Any]


@dataclass(frozen=True)
class ClassRef:
    name: str


@dataclass
class Instance:
    """`self` of a builder class of the builder's module (`Factory(Config).build_group(parser)`):
    the attributes its `__init__` set."""

    cls: str
    values: dict[str, Any]


@dataclass(frozen=True)
class Bound:
    """A method of the builder class, bound to its instance."""

    instance: Instance
    name: str


@dataclass(frozen=True)
class TypeOf:
    """`type(dataclasses.MISSING)`: the class of a marker, for `isinstance`."""

    marker: Sentinel


@dataclass(frozen=True)
class FuncRef:
    name: str


@dataclass(frozen=True)
class ModuleRef:
    name: str


@dataclass(frozen=True)
class Parser:
    """The parser the builder was handed."""


@dataclass(frozen=True)
class Action:
    """What `add_argument` returns: the action, whose `dest` argparse derives from the call
    (None: the call does not spell it)."""

    dest: str | None


@dataclass(frozen=True)
class DataclassRef:
    """The dataclass the builder was handed."""


@dataclass(frozen=True)
class FieldList:
    """`dataclasses.fields(Cls)`."""


@dataclass(frozen=True)
class Hints:
    """`get_type_hints(Cls)`; `extras`: include_extras=True, so Annotated is kept."""

    extras: bool


@dataclass(frozen=True)
class Factory:
    node: ast.expr


@dataclass(frozen=True)
class FieldInfo:
    name: str
    line: int
    annotation: ast.expr
    default: ast.expr | None
    factory: ast.expr | None
    metadata: ast.expr | None
    init: bool = True  # False: `field(init=False)`
    path: str | None = None  # the module defining it, when not the dataclass's (a base's field)


@dataclass
class Call:
    """One add_argument call a field reached: option strings and keywords, as values."""

    args: list[Any]
    keywords: dict[str, Any]


@dataclass
class Signal:
    kind: str  # "continue", "break", "return"
    value: Any = None


@dataclass
class Context:
    """The two modules: the builder's and the dataclass's."""

    builder: ast.Module
    dataclass: ast.Module
    fields: list[FieldInfo]
    bases: tuple[str, ...]  # the dataclass's bases as written
    enums: frozenset[str] = frozenset()  # names of the dataclass's module bound to Enum classes
    classes: frozenset[str] = frozenset()  # names it binds to classes that are no Enum
    spent: int = 0  # steps all the fields' runs took so far (MAX_RUN_STEPS)
    builder_module: Module = field(init=False)
    dataclass_scope: Scope = field(init=False)
    dataclass_module: Module = field(init=False)
    constants: dict[str, ast.expr] = field(init=False)
    # What the builder module's top-level statements leave in its names (builder_run.module_names),
    # made when a run first reads one: `flag_prefix_map` filled by a loop after `= {}`.
    names: dict[str, Any] | None = field(default=None, init=False)
    imports: dict[str, str] = field(init=False)  # local name -> dotted module or module.attr
    postponed: bool = field(init=False)

    def __post_init__(self) -> None:
        # Under `from __future__ import annotations` a field's `type` is the annotation's text;
        # `get_type_hints` still gives the type.
        self.postponed = any(
            isinstance(s, ast.ImportFrom)
            and s.module == "__future__"
            and any(a.name == "annotations" for a in s.names)
            for s in self.dataclass.body
        )
        self.builder_module = Module(self.builder)
        self.dataclass_scope = Scope(self.dataclass, None)
        self.dataclass_module = Module(self.dataclass)
        self.constants = {}
        self.imports = {}
        for stmt in self.builder.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                self.constants[stmt.targets[0].id] = stmt.value
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        self.imports[head] = head
            elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for alias in stmt.names:
                    self.imports[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"


# --- what argparse makes of a reached call ---------------------------------------------------------


def to_flags(ctx: Context, call: Call, info: FieldInfo) -> list[Flag] | None:
    """What argparse makes of one reached call, the flags on the field's line."""
    options: list[tuple[str, int]] = []
    for arg in call.args:
        if not isinstance(arg, str):
            return None
        if arg.startswith("-"):
            options.append((arg, info.line))
    keywords = {k: as_node(v) for k, v in call.keywords.items()}
    if keywords.get("help") is _NOT_SPELLED:
        del keywords["help"]  # a help text the run could not read (a docstring): none, not a name
    scope, module = ctx.dataclass_scope, ctx.dataclass_module
    found = argparse_calls.flags(options, keywords, scope.lookup, module=module)
    base = ast.unparse(bare(ctx, info.annotation))
    out = []
    for flag in found:
        attrs = dict(flag.attrs)
        attrs.setdefault("type", base)
        out.append(flag._replace(attrs=tuple(sorted(attrs.items()))))
    return out


_NOT_SPELLED = ast.Name(id="<not spelled out>")  # a keyword whose value the files do not say


def as_node(found: Any) -> ast.expr:
    """A value of a run as the expression argparse_calls reads: a marker by its dotted name
    (`help=argparse.SUPPRESS`)."""
    if isinstance(found, Ann | Src):
        return found.node
    if isinstance(found, Sentinel):
        try:
            return ast.parse(found.name, mode="eval").body
        except SyntaxError:
            return _NOT_SPELLED
    if isinstance(found, str | int | float | bool | type(None)):
        return ast.Constant(found)
    if isinstance(found, list | tuple) and all(isinstance(i, str | int | float | bool) for i in found):
        items: list[ast.expr] = [ast.Constant(i) for i in found]
        return ast.List(elts=items) if isinstance(found, list) else ast.Tuple(elts=items)
    return _NOT_SPELLED


# --- annotations ---------------------------------------------------------------------------------


def canon(ctx: Context, node: ast.expr, depth: int = 0) -> str | None:
    """The typing or builtin name an annotation's head stands for, aliases followed (`A = Annotated`
    in either module, the dataclass's module importing it from the builder's)."""
    name = dotted(node)
    if name is None:
        return None
    last = name.split(".")[-1]
    if depth < 3 and "." not in name:
        for assigned in (ctx.dataclass_scope.resolve(name), ctx.constants.get(name)):
            if isinstance(assigned, ast.Name | ast.Attribute):
                return canon(ctx, assigned, depth + 1)
    return last


def bare(ctx: Context, node: ast.expr) -> ast.expr:
    """The annotation without Annotated metadata and `| None`/Optional: the field's type."""
    node = unquoted(node)
    if isinstance(node, ast.Subscript):
        head = canon(ctx, node.value)
        members = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Annotated" and members:
            return bare(ctx, members[0])
        if head in ("Optional", "Union"):
            kept = [m for m in members if not is_none(m)]
            if len(kept) == 1:
                return bare(ctx, kept[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        kept = [m for m in union_members(node) if not is_none(m)]
        if len(kept) == 1:
            return bare(ctx, kept[0])
    return node


def is_none(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or dotted(node) in ("None", "NoneType")


def union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*union_members(node.left), *union_members(node.right)]
    return [node]


def type_name(ctx: Context, found: Ann) -> str:
    node = unquoted(found.node)
    if is_none(node):
        return "NoneType"
    return canon(ctx, node) or ast.unparse(node)


def plain(ctx: Context, found: Ann) -> bool:
    """A builtin type, None or a typing form: certainly no dataclass."""
    node = unquoted(found.node)
    if isinstance(node, ast.Subscript):
        return canon(ctx, node.value) in ORIGINS
    if isinstance(node, ast.BinOp) or is_none(node):
        return True
    return type_name(ctx, found) in BUILTIN_TYPES | {"Annotated", "Union", "Literal", "UnionType"}


def origin(ctx: Context, found: Any) -> Any:
    if not isinstance(found, Ann):
        raise Undecided
    node = unquoted(found.node)
    if isinstance(node, ast.Subscript):
        head = canon(ctx, node.value)
        if head in ORIGINS:
            return Ann(ast.Name(id=ORIGINS[head]))
        raise Undecided
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return Ann(ast.Name(id="UnionType"))
    if isinstance(node, ast.Name | ast.Attribute | ast.Constant):
        return None
    raise Undecided


def is_instance(ctx: Context, found: Any, kinds: Any, subclass: bool) -> bool:
    options = list(kinds) if isinstance(kinds, tuple) else [kinds]
    for kind in options:
        if isinstance(kind, ClassRef):
            if isinstance(found, Obj) and found.cls == kind.name:
                return True
            if isinstance(found, Src | DataclassRef) and not subclass:
                raise Undecided
        elif isinstance(kind, Ann):
            name = type_name(ctx, kind)
            if subclass:
                if isinstance(found, DataclassRef):
                    return name == "object"
                raise Undecided
            if (
                name == "type"
                and isinstance(found, Ann)
                and isinstance(unquoted(found.node), ast.Subscript | ast.BinOp)
            ):
                continue  # `Optional[int]`, `list[str]`, `int | None` are no classes
            if name == "type" and isinstance(found, DataclassRef | Ann):
                return True
            if isinstance(found, str | int | float | bool | list | tuple | dict):
                if type(found).__name__ == name or (name == "int" and isinstance(found, bool)):
                    return True
            elif isinstance(found, Src | FieldInfo) or found is UNK:
                raise Undecided
        elif isinstance(kind, Sentinel) and subclass and kind.name in _ENUM_BASES and isinstance(found, Ann):
            # `issubclass(hint, enum.Enum)`: a builtin or typing form is not; a class the
            # dataclass's module names is one when its bases say so.
            named = type_name(ctx, found)
            if named in ctx.enums:
                return True
            if not (plain(ctx, found) or named in ctx.classes):
                raise Undecided
        elif isinstance(kind, Sentinel):
            # Another library's class (`msgspec.Struct`): the dataclass is one only through
            # its bases, which are not read.
            if isinstance(found, DataclassRef) and subclass and not ctx.bases:
                continue
            raise Undecided
        else:
            raise Undecided
    return False


# --- values of the two modules -------------------------------------------------------------------


def src(ctx: Context, node: ast.expr) -> Any:
    """A value of the dataclass's module: the literal it spells, else the expression."""
    found = value(node, ctx.dataclass_scope.lookup, ctx.dataclass_module)
    if found is UNKNOWN or isinstance(found, set):
        return Src(node)
    return found


def extra(ctx: Context, node: ast.expr) -> Any:
    """One piece of Annotated metadata: an instance of a class of the builder's module, or a
    value of the dataclass's module."""
    if isinstance(node, ast.Call):
        name = dotted(node.func)
        cls = name.split(".")[-1] if name else None
        if cls is not None and cls in ctx.builder_module.classes:
            return instance(
                ctx,
                cls,
                [src(ctx, a) for a in node.args],
                {k.arg: src(ctx, k.value) for k in node.keywords if k.arg is not None},
                any(k.arg is None for k in node.keywords),
            )
    return src(ctx, node)


def instance(ctx: Context, cls: str, args: list[Any], keywords: dict[str, Any], opaque: bool) -> Obj:
    if opaque:
        raise Undecided
    declared = [
        s.target.id
        for s in ctx.builder_module.classes[cls].body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
    ]
    if len(args) > len(declared):
        raise Undecided
    return Obj(cls, {**dict(zip(declared, args, strict=False)), **keywords})


def type_args(ctx: Context, found: Any) -> tuple[Any, ...]:
    if not isinstance(found, Ann):
        raise Undecided
    node = unquoted(found.node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return tuple(Ann(m) for m in union_members(node))
    if not isinstance(node, ast.Subscript):
        return ()
    head = canon(ctx, node.value)
    members = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if head == "Annotated" and members:
        return (Ann(members[0]), *[extra(ctx, m) for m in members[1:]])
    if head == "Optional":
        return (Ann(members[0]), Ann(ast.Name(id="NoneType")))
    if head == "Literal":
        values = [src(ctx, m) for m in members]
        if any(isinstance(v, Src) for v in values):
            raise Undecided
        return tuple(values)
    if head in ORIGINS:
        return tuple(Ann(m) for m in members)
    raise Undecided
