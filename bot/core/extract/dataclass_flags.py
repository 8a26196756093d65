"""Flags generated from a dataclass by a builder that loops over `dataclasses.fields(Cls)`.

The flag names are not written anywhere: the builder makes them, typically with
`add_argument(f"--{f.name.replace('_', '-')}", ...)` plus a bool branch and a few special
cases. Rather than assume a convention, each field is run through the loop body: conditions
on `f.name` and on the field's type are decided, the add_argument calls reached are read as
argparse would, and `f.name`, `f.type`, `f.default` are replaced by the field's own. A field
the loop yields nothing for (the loop is too dynamic, or there is no builder) gets the flags
of the rule's convention.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

from bot.core.extract import argparse_calls, argparse_flags, walk
from bot.core.extract.argparse_calls import Flag
from bot.core.extract.constants import UNKNOWN, Module, as_text, dotted, f_string, made_by, unquoted, value
from bot.core.extract.scopes import Scope
from bot.core.model import Fact
from bot.core.rules import Convention, Source

_NOT_FIELDS = ("ClassVar", "InitVar", "KW_ONLY")
_STOP = (ast.Continue, ast.Break, ast.Return, ast.Raise)

# `try` statements: `try ... except*` (ast.TryStar) is Python 3.11 and later.
if sys.version_info >= (3, 11):
    _TRY = (ast.Try, ast.TryStar)
else:
    _TRY = (ast.Try,)


@dataclass(frozen=True)
class DataclassField:
    name: str
    line: int
    annotation: str  # as written
    base: str  # the annotation without `| None` / Optional[...]
    default: str | None  # as text; None when the field has no default or the file does not say it
    default_node: ast.expr | None = None
    default_unknown: bool = False  # it has one, made by code the file does not spell out


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    if not source.dataclass:
        return []
    fields = dataclass_fields(tree, source.dataclass)
    if fields is None:
        return []
    module = Scope(tree, None)
    loop = _builder_loop(tree, source.builder, source.dataclass)
    out: list[Fact] = []
    for field in fields:
        flags: list[tuple[Flag, bool]] | None = None
        if loop is not None:
            flags = _FieldRun(loop, field, module).flags()
        if flags is None:
            flags = [(f, False) for f in convention_flags(field, source.convention or Convention())]
        for flag, special in flags:
            out.append(
                Fact(
                    kind="flag",
                    token=flag.token,
                    key=field.name,
                    source=source.id,
                    path=path,
                    line=flag.line if special else field.line,
                    attrs=flag.attrs,
                )
            )
    if loop is not None:
        builder, for_node = loop[0], loop[1]
        in_loop = {id(n) for n in walk.every(for_node)}
        for call, lookup in argparse_flags.add_argument_calls(builder, Scope(builder, module)):
            if id(call) not in in_loop:
                out.extend(argparse_flags.call_facts(call, source.id, path, lookup))
    return out


# --- the dataclass -------------------------------------------------------------------------------


def dataclass_fields(tree: ast.Module, name: str) -> list[DataclassField] | None:
    """Fields in `dataclasses.fields()` order, base-class fields (from the same file) first."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    if name not in classes:
        return None
    fields: dict[str, DataclassField] = {}
    _collect_fields(classes, classes[name], fields, depth=0, module=(Scope(tree, None), Module(tree)))
    return list(fields.values())


def _collect_fields(
    classes: dict[str, ast.ClassDef],
    node: ast.ClassDef,
    fields: dict[str, DataclassField],
    depth: int,
    module: tuple[Scope, Module],
) -> None:
    if depth > 20:  # a cycle cannot exist at runtime, but the file may be mid-edit
        return
    for base in reversed(node.bases):
        if isinstance(base, ast.Name) and base.id in classes and base.id != node.name:
            _collect_fields(classes, classes[base.id], fields, depth + 1, module)
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        annotation = unquoted(stmt.annotation)
        if any(ast.unparse(annotation).split("[")[0].split(".")[-1] == n for n in _NOT_FIELDS):
            continue
        default_node, factory = _field_default(stmt.value)
        found = UNKNOWN
        if default_node is not None:
            scope, module_info = module
            if factory:
                found = made_by(default_node, _nothing)
            else:
                found = value(default_node, scope.lookup, module_info)
        # Redefining a field keeps its position, as dataclasses does.
        fields[stmt.target.id] = DataclassField(
            name=stmt.target.id,
            line=stmt.lineno,
            annotation=ast.unparse(annotation),
            base=ast.unparse(_without_none(annotation)),
            default=None if found is UNKNOWN else as_text(found),
            default_node=None if factory else default_node,
            default_unknown=default_node is not None and found is UNKNOWN,
        )


def _without_none(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).split(".")[-1] in ("Optional", "Union"):
        inner = node.slice
        members = inner.elts if isinstance(inner, ast.Tuple) else [inner]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members = _union_members(node)
    else:
        return node
    kept = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    if not kept:
        return node
    result = kept[0]
    for m in kept[1:]:
        result = ast.BinOp(left=result, op=ast.BitOr(), right=m)
    return result


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_union_members(node.left), *_union_members(node.right)]
    return [node]


def _field_default(value: ast.expr | None) -> tuple[ast.expr | None, bool]:
    """The default expression, and whether it is a `field(default_factory=...)` factory."""
    if value is None:
        return None, False
    if isinstance(value, ast.Call) and dotted(value.func) in ("field", "dataclasses.field"):
        for k in value.keywords:
            if k.arg == "default":
                return k.value, False
            if k.arg == "default_factory":
                return k.value, True
        return None, False
    return value, False


# --- the builder ---------------------------------------------------------------------------------

Loop = tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.For, str]


def _builder_loop(tree: ast.Module, builder: str | None, cls: str) -> Loop | None:
    """The `for f in fields(Cls)` loop of the builder; failing that, of any module-level function.

    The fallback keeps the extraction right across a rename of the builder (miles renamed
    `parse_fsdp_cli` to `build_fsdp_parser`), so base and head are read the same way.
    """
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    functions.sort(key=lambda fn: fn.name != builder)
    for fn in functions:
        for node in walk.every(fn):
            if (
                isinstance(node, ast.For)
                and isinstance(node.target, ast.Name)
                and isinstance(node.iter, ast.Call)
                and dotted(node.iter.func) in ("fields", "dataclasses.fields")
                and node.iter.args
                and dotted(node.iter.args[0]) == cls
            ):
                return fn, node, node.target.id
    return None


class _FieldRun:
    """One field's pass through the loop body."""

    def __init__(self, loop: Loop, field: DataclassField, module: Scope):
        _, self.for_node, self.var = loop
        self.field = field
        self.module = module
        self.env: dict[str, ast.expr] = {}  # loop-local names, as last assigned
        self.type_names = _type_names(self.for_node, self.var)
        self.calls: list[tuple[ast.Call, bool, dict[str, ast.expr]]] = []

    def flags(self) -> list[tuple[Flag, bool]] | None:
        """(flag, special) pairs; [] when the loop skips the field; None when it yields nothing."""
        stopped = self._run(self.for_node.body, special=False)
        out: list[tuple[Flag, bool]] = []
        seen: set[str] = set()
        for call, special, env in self.calls:
            self.env = env
            keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
            no_default = self.field.default is None and not self.field.default_unknown
            if self._is_attr(keywords.get("default"), "default") and no_default:
                del keywords["default"]  # f.default is MISSING: nothing a doc could quote
            options = argparse_flags.option_strings(call, self.lookup)
            for flag in argparse_calls.flags(options, keywords, self.lookup, self.lookup):
                if flag.token in seen:
                    continue
                seen.add(flag.token)
                attrs = dict(flag.attrs)
                attrs.setdefault("type", self.field.base)
                out.append((flag._replace(attrs=tuple(sorted(attrs.items()))), special))
        if out or stopped:
            return out
        return None

    def _run(self, body: list[ast.stmt], special: bool) -> bool:
        """Run statements; True when they certainly end this field's iteration."""
        for stmt in body:
            if isinstance(stmt, _STOP):
                return True
            if isinstance(stmt, ast.If):
                value, pinned = self._truth(stmt.test)
                if value is None:
                    # Undecidable: both branches may run. Only stop when both do.
                    stop_body = self._run(stmt.body, special)
                    stop_else = self._run(stmt.orelse, special)
                    if stop_body and stop_else:
                        return True
                elif self._run(stmt.body if value else stmt.orelse, special or pinned):
                    return True
            elif isinstance(stmt, ast.With | ast.AsyncWith):
                if self._run(stmt.body, special):
                    return True
            elif isinstance(stmt, _TRY):
                if self._run(stmt.body, special) or self._run(stmt.orelse, special):
                    return True
                if self._run(stmt.finalbody, special):
                    return True
            elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
                self._run(stmt.body, special)  # a continue in there is that loop's own
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    self._run(case.body, special)
            elif not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if isinstance(stmt, ast.Assign):
                    for target in stmt.targets:
                        if isinstance(target, ast.Name):
                            self.env[target.id] = stmt.value
                for node in walk.every(stmt):
                    if argparse_flags.is_add_argument(node):
                        self.calls.append((node, special, dict(self.env)))
        return False

    # Conditions are decided when they test the field's name or type; `pinned` says the field's
    # name matched a literal in the test, so the branch taken is this field's special case.
    def _truth(self, test: ast.expr) -> tuple[bool | None, bool]:
        if isinstance(test, ast.Constant):
            return bool(test.value), False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            value, pinned = self._truth(test.operand)
            return (None if value is None else not value), pinned
        if isinstance(test, ast.BoolOp):
            results = [self._truth(v) for v in test.values]
            values = [v for v, _ in results]
            pinned = any(p for _, p in results)
            decisive = isinstance(test.op, ast.Or)  # True decides an `or`, False an `and`
            if decisive in values:
                return decisive, pinned
            if None in values:
                return None, False
            return not decisive, pinned
        if isinstance(test, ast.Compare):
            operands = [test.left, *test.comparators]
            pairs = zip(test.ops, operands[:-1], operands[1:], strict=True)
            results = [self._compare(op, a, b) for op, a, b in pairs]
            if any(v is False for v, _ in results):
                return False, any(p for _, p in results)
            if any(v is None for v, _ in results):
                return None, False
            return True, any(p for _, p in results)
        if isinstance(test, ast.Call) and dotted(test.func) in ("issubclass", "isinstance"):
            if len(test.args) != 2:
                return None, False
            return self._type_check(test.args[0], test.args[1], subclass=True), False
        return None, False

    def _compare(self, op: ast.cmpop, left: ast.expr, right: ast.expr) -> tuple[bool | None, bool]:
        if self._is_attr(right, "name") and isinstance(op, ast.Eq | ast.NotEq):
            left, right = right, left
        if self._is_attr(left, "name"):
            literals = _string_literals(right)
            if literals is None:
                return None, False
            matched = self.field.name in literals
            if isinstance(op, ast.Eq | ast.In):
                return matched, matched
            if isinstance(op, ast.NotEq | ast.NotIn):
                return not matched, matched
            return None, False
        if isinstance(op, ast.Is | ast.Eq | ast.In):
            return self._type_check(left, right, subclass=False), False
        if isinstance(op, ast.IsNot | ast.NotEq | ast.NotIn):
            value = self._type_check(left, right, subclass=False)
            return (None if value is None else not value), False
        return None, False

    def _type_check(self, subject: ast.expr, types: ast.expr, subclass: bool) -> bool | None:
        """`subject is T`, `subject in (T1, T2)`, `issubclass(subject, T)` for the field's type."""
        candidates = types.elts if isinstance(types, ast.Tuple | ast.List | ast.Set) else [types]
        if not all(isinstance(c, ast.Name | ast.Attribute) for c in candidates):
            return None
        names = {ast.unparse(c) for c in candidates}
        if self._is_attr(subject, "type"):
            actual = self.field.annotation
        elif isinstance(subject, ast.Name) and subject.id in self.type_names:
            actual = self.field.base
        elif self._is_attr(subject, "default") and subclass:  # isinstance(f.default, T)
            node = self.field.default_node
            if not isinstance(node, ast.Constant):
                return None
            actual = "None" if node.value is None else type(node.value).__name__
        else:
            return None
        # bool is a subclass of int, so `issubclass(bool, int)` holds.
        return actual in names or (subclass and actual == "bool" and "int" in names)

    def _is_attr(self, node: ast.expr | None, attr: str) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr == attr
            and isinstance(node.value, ast.Name)
            and node.value.id == self.var
        )

    def lookup(self, node: ast.expr) -> str | ast.expr | None:
        """What `f.name`, `f.default`, `f.type`, the type variable or an f-string is for this field."""
        if self._is_attr(node, "default"):
            return self.field.default
        if self._is_attr(node, "type"):
            return self.field.annotation
        if isinstance(node, ast.Name) and node.id in self.type_names:
            return self.field.base
        value = self._string(node, depth=0)
        if value is not None:
            return value
        return self.module.literal(node)

    def _string(self, node: ast.expr, depth: int) -> str | None:
        if depth > 10:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if self._is_attr(node, "name"):
            return self.field.name
        if isinstance(node, ast.Name) and node.id in self.env:
            return self._string(self.env[node.id], depth + 1)
        if isinstance(node, ast.JoinedStr):
            return f_string(node, lambda part: self._string(part, depth + 1))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self._string(node.left, depth + 1), self._string(node.right, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
            subject = self._string(node.func.value, depth + 1)
            found = [self._string(a, depth + 1) for a in node.args]
            args = [a for a in found if a is not None]
            if subject is None or len(args) < len(found):
                return None
            method = node.func.attr
            if method == "replace" and len(args) == 2:
                return subject.replace(args[0], args[1])
            if method in ("lower", "upper") and not args:
                return subject.lower() if method == "lower" else subject.upper()
        return None


def _type_names(loop: ast.For, var: str) -> set[str]:
    """Loop-local names that hold the field's type (`arg_type = f.type`, unwrapped unions)."""
    names: set[str] = set()
    assigns = [n for n in walk.every(loop) if isinstance(n, ast.Assign)]
    for _ in range(3):  # `a = f.type.__args__`, then `b = a[0]`: follow a short chain
        for node in assigns:
            mentions = any(
                (
                    isinstance(n, ast.Attribute)
                    and n.attr == "type"
                    and isinstance(n.value, ast.Name)
                    and n.value.id == var
                )
                or (isinstance(n, ast.Name) and n.id in names)
                for n in walk.every(node.value)
            )
            if mentions:
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def convention_flags(field: DataclassField, convention: Convention) -> list[Flag]:
    token = convention.prefix + field.name.replace("_", convention.separator)
    attrs = {"type": field.base}
    if field.default is not None:
        attrs["default"] = field.default
    elif field.default_unknown:
        attrs["unknown"] = "default"
    if field.base != "bool":
        return [Flag(token, field.name, field.line, tuple(sorted(attrs.items())))]
    if convention.bool == "store-true":
        attrs.update(action="store_true", sets="true", default="False")
        return [Flag(token, field.name, field.line, tuple(sorted(attrs.items())))]
    attrs["action"] = "argparse.BooleanOptionalAction"
    out = [Flag(token, field.name, field.line, tuple(sorted({**attrs, "sets": "true"}.items())))]
    if token.startswith("--"):  # argparse spells the negation "--no-" whatever the separator
        negated = tuple(sorted({**attrs, "sets": "false"}.items()))
        out.append(Flag("--no-" + token[2:], field.name, field.line, negated))
    return out


def _string_literals(node: ast.expr) -> set[str] | None:
    elts = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    values = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return set(values) if len(values) == len(elts) else None


def _nothing(node: ast.expr) -> None:
    return None
