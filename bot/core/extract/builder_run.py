"""What a builder function of another module makes of a dataclass's fields, read without running it.

sglang declares `ServerArgs` in server_args.py and its `add_cli_args(parser)` calls
`add_cli_args_from_dataclass(parser, ServerArgs)`, defined in arg_groups/arg_utils.py: a loop over
the class's fields (through a helper that returns `dataclasses.fields(cls)`), the help, choices
and aliases taken from each field's `Annotated[...]` metadata by another helper, a bool made a
store_true switch, a field without metadata skipped. No flag name is written anywhere.

Each field is run through the builder as Python would run it, on what the two files spell out:
the field's name, default, annotation and `field(metadata=...)`; `get_type_hints`, `get_origin`,
`get_args` and `isinstance` of an annotation; the metadata objects an annotation constructs
(`Arg(help=..., choices=...)`) and the defaults their class declares; the builder module's
constants and helpers, called with those values (a few calls deep). The `add_argument` calls a
field reaches are read as argparse would (argparse_calls.flags).

A test the run cannot decide (on a value neither file spells out), a loop over an unknown, an
option string it cannot spell or a budget spent ends that field's run with nothing: a field the
builder is not understood for gets no flag, rather than a guessed one.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from bot.core.extract import builder_values, walk
from bot.core.extract.argparse_calls import derived_dest
from bot.core.extract.builder_values import (
    BUILTIN_TYPES,
    COMPARE,
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_STEPS,
    TYPING,
    UNK,
    Action,
    Ann,
    Bound,
    Call,
    ClassRef,
    Context,
    DataclassRef,
    Factory,
    FieldInfo,
    FieldList,
    FuncRef,
    Hints,
    Instance,
    ModuleRef,
    Obj,
    Parser,
    Raised,
    Sentinel,
    Signal,
    Src,
    TypeOf,
    Undecided,
    canon,
    instance,
    is_instance,
    origin,
    plain,
    src,
    type_args,
    type_name,
)
from bot.core.extract.constants import STR_METHODS, UNKNOWN, Lookup, dotted, last_name, unquoted, value
from bot.core.extract.scopes import Scope
from bot.core.model import Fact


def run_field(ctx: Context, loop: ast.For, env: dict[str, Any], info: FieldInfo) -> list[Call] | None:
    """The add_argument calls one field's pass through the loop reaches; None when undecided."""
    runner = _Runner(ctx, info)
    local = dict(env)
    try:
        runner.bind(loop.target, info, local)
        runner.exec(loop.body, local, depth=0)
    except (Undecided, RecursionError):
        return None
    return runner.calls


def field_flags(
    ctx: Context,
    loop: ast.For,
    env: dict[str, Any],
    infos: list[FieldInfo],
    source: str,
    path_of: Callable[[FieldInfo], str],
) -> list[Fact]:
    """The flags each field's pass through the loop declares, until the run's steps are spent;
    each fact at the file `path_of` gives for its field."""
    out: list[Fact] = []
    for info in infos:
        if ctx.spent > builder_values.MAX_RUN_STEPS:
            break
        for call in run_field(ctx, loop, env, info) or ():
            for flag in builder_values.to_flags(ctx, call, info) or ():
                out.append(
                    Fact(
                        kind="flag",
                        token=flag.token,
                        key=flag.dest,
                        source=source,
                        path=path_of(info),
                        line=flag.line,
                        attrs=flag.attrs,
                    )
                )
    return out


def prelude(ctx: Context, fn: ast.FunctionDef | ast.AsyncFunctionDef, env: dict[str, Any]) -> ast.For | None:
    """Run the builder's statements before its loop over the fields; the loop, or None."""
    runner = _Runner(ctx, None)
    try:
        for stmt in fn.body:
            if isinstance(stmt, ast.For):
                if isinstance(runner.eval(stmt.iter, env, 0), FieldList):
                    return stmt
                raise Undecided
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # the docstring
            if runner.exec([stmt], env, depth=0) is not None:
                return None  # it returns or leaves before the loop
    except (Undecided, RecursionError):
        return None
    return None


# --- the interpreter -----------------------------------------------------------------------------


def run_helper(
    ctx: Context,
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    outer: Scope | None,
    call: ast.Call,
    lookup: Lookup,
    declaring: frozenset[str],
) -> list[Call]:
    """The declaring calls one call of a local helper makes (extract/forwarding.py), its body run
    on the call's arguments as read in the caller's scope (`lookup`); `outer` binds the names of
    the functions around the helper (its closure). The calls made before the run meets a
    statement it cannot decide were made all the same: they are kept, and the run ends there."""
    runner = _Runner(ctx, None, outer, declaring)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return []  # `*args` or `**options` at the call: what the helper is handed is unknown
    try:
        args = [runner.caller_value(a, lookup) for a in call.args]
        keywords = {k.arg: runner.caller_value(k.value, lookup) for k in call.keywords if k.arg}
        env = bind(fn, args, keywords, runner)
        runner.exec(fn.body, env, depth=1)
    except (Undecided, RecursionError):
        pass
    return runner.calls


def module_names(ctx: Context) -> dict[str, Any]:
    """What the builder module's top-level statements, run in order as Python runs them, leave
    in its names: `flag_prefix_map: Final[dict[str, str]] = {}` then filled by a loop over pairs.
    A statement the run cannot decide leaves every name it binds or changes unknown."""
    if ctx.names is not None:
        return ctx.names
    names: dict[str, Any] = {}
    ctx.names = names  # a function a statement calls sees the names bound so far
    runner = _Runner(ctx, None)
    spent = ctx.spent
    for stmt in ctx.builder.body:
        if isinstance(stmt, _DEFINITIONS):
            continue  # read where they are named: ctx.imports, the module's functions and classes
        try:
            runner.exec([stmt], names, depth=1)
        except (Undecided, RecursionError):
            for name in _changed(stmt):
                names[name] = UNK
    ctx.spent = spent  # the fields' runs keep their budget; this run has MAX_STEPS of its own
    return names


_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _changed(stmt: ast.stmt) -> set[str]:
    """The names a statement binds, or changes through an item, an attribute or a method."""
    out: set[str] = set()
    for node in walk.every(stmt):
        target: ast.AST | None = None
        if isinstance(node, ast.Name | ast.Attribute | ast.Subscript) and isinstance(
            node.ctx, ast.Store | ast.Del
        ):
            target = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, _DEFINITIONS[2:]):
            out.add(node.name)
        while isinstance(target, ast.Attribute | ast.Subscript):
            target = target.value
        if isinstance(target, ast.Name):
            out.add(target.id)
    return out


_PARSER_MAKERS = frozenset({"add_argument_group", "add_mutually_exclusive_group", "add_parser", "getgroup"})


def _makes_parser(node: ast.expr) -> bool:
    """Is `node` a call making a parser or an argument group (`parser.add_argument_group(...)`,
    `argparse.ArgumentParser(...)`, a subclass named so)?"""
    if not isinstance(node, ast.Call):
        return False
    name = last_name(node.func) or ""
    return name in _PARSER_MAKERS or name.endswith("ArgumentParser")


class _Runner:
    def __init__(
        self,
        ctx: Context,
        info: FieldInfo | None,
        outer: Scope | None = None,
        declaring: frozenset[str] = frozenset({"add_argument"}),
    ):
        self.ctx = ctx
        self.info = info
        self.outer = outer
        self.declaring = declaring
        self.steps = 0
        self.calls: list[Call] = []

    def _step(self) -> None:
        self.steps += 1
        self.ctx.spent += 1
        if self.steps > MAX_STEPS or self.ctx.spent > builder_values.MAX_RUN_STEPS:
            raise Undecided

    # statements

    def exec(self, body: list[ast.stmt], env: dict[str, Any], depth: int) -> Signal | None:
        for stmt in body:
            self._step()
            signal = self._statement(stmt, env, depth)
            if signal is not None:
                return signal
        return None

    def _statement(self, stmt: ast.stmt, env: dict[str, Any], depth: int) -> Signal | None:
        if isinstance(stmt, ast.Continue):
            return Signal("continue")
        if isinstance(stmt, ast.Break):
            return Signal("break")
        if isinstance(stmt, ast.Return):
            return Signal("return", None if stmt.value is None else self.eval(stmt.value, env, depth))
        if isinstance(stmt, ast.Raise):
            return Signal("raise", self._raised(stmt, env))
        if isinstance(stmt, ast.Pass):
            return None
        if isinstance(stmt, ast.Assign):
            found = self.eval(stmt.value, env, depth)
            for target in stmt.targets:
                self._assign(target, found, env, depth)
            return None
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            # `help += f" (inverse: {inverse})"`
            load = ast.Name(id=stmt.target.id, ctx=ast.Load())
            env[stmt.target.id] = self.eval(ast.BinOp(left=load, op=stmt.op, right=stmt.value), env, depth)
            return None
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._assign(stmt.target, self.eval(stmt.value, env, depth), env, depth)
            return None
        if isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) in _SAYING:
                return None  # a message printed or warned: nothing the parser is told
            self.eval(stmt.value, env, depth)
            return None
        if isinstance(stmt, ast.If):
            chosen = stmt.body if self.truth(self.eval(stmt.test, env, depth)) else stmt.orelse
            return self.exec(chosen, env, depth)
        if isinstance(stmt, ast.For) and depth > 0:
            return self._for(stmt, env, depth)
        if isinstance(stmt, ast.Try) and not stmt.handlers:
            return self.exec(stmt.body, env, depth) or self.exec(stmt.finalbody, env, depth)
        if isinstance(stmt, ast.Try):
            return self._try(stmt, env, depth)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and depth > 0:
            env[stmt.name] = FuncRef(f"<local>.{stmt.name}")  # a closure: passed on, never run
            return None
        if isinstance(stmt, ast.Assert):
            return None
        raise Undecided  # nested loops of the builder, try/except, with, del, ...

    def _raised(self, stmt: ast.Raise, env: dict[str, Any]) -> str | None:
        """The class of the exception a `raise` raises, as written; None when not known."""
        exc = stmt.exc
        if exc is None:
            caught = env.get(_CAUGHT)
            return caught.name if isinstance(caught, _Caught) else None
        if isinstance(exc, ast.Call):
            exc = exc.func
        caught = env.get(exc.id) if isinstance(exc, ast.Name) else None
        if isinstance(caught, _Caught):
            return caught.name  # `except E as e: ... raise e`
        return dotted(exc)

    def _try(self, stmt: ast.Try, env: dict[str, Any], depth: int) -> Signal | None:
        """`try`/`except` as Python runs it: a `raise` of the body, or of a helper it calls,
        goes to the first handler naming its class (or a base every exception has)."""
        raised: str | None
        try:
            signal = self.exec(stmt.body, env, depth)
            if signal is None or signal.kind != "raise":
                return signal or self.exec(stmt.orelse, env, depth) or self.exec(stmt.finalbody, env, depth)
            raised = signal.value
        except Raised as exc:
            raised = exc.name
        for handler in stmt.handlers:
            names = [] if handler.type is None else _handled(handler.type)
            if handler.type is not None and raised is None and not set(names) & _ANY_EXCEPTION:
                raise Undecided  # which handler takes an exception of an unknown class is not known
            if handler.type is None or raised in names or set(names) & _ANY_EXCEPTION:
                local = _Caught(raised)
                env[_CAUGHT] = local
                if handler.name:
                    env[handler.name] = local
                signal = self.exec(handler.body, env, depth)
                return signal or self.exec(stmt.finalbody, env, depth)
        return Signal("raise", raised)

    def _for(self, stmt: ast.For, env: dict[str, Any], depth: int) -> Signal | None:
        items = self.eval(stmt.iter, env, depth)
        if not isinstance(items, list | tuple) or len(items) > MAX_ITEMS:
            raise Undecided
        for item in items:
            self._assign(stmt.target, item, env, depth)
            signal = self.exec(stmt.body, env, depth)
            if signal is not None and signal.kind == "break":
                return None
            if signal is not None and signal.kind != "continue":
                return signal
        return self.exec(stmt.orelse, env, depth)

    def _assign(self, target: ast.expr, found: Any, env: dict[str, Any], depth: int) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = found
        elif isinstance(target, ast.Tuple | ast.List):
            if not isinstance(found, list | tuple):
                raise Undecided
            items = list(found)
            starred = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
            if len(starred) > 1 or len(items) < len(target.elts) - len(starred):
                raise Undecided
            if starred:  # `inner, *extras = get_args(hint)`
                at, after = starred[0], len(target.elts) - starred[0] - 1
                rest = items[at : len(items) - after]
                items = [*items[:at], rest, *items[len(items) - after :]]
            if len(items) != len(target.elts):
                raise Undecided
            for elt, item in zip(target.elts, items, strict=True):
                self._assign(elt.value if isinstance(elt, ast.Starred) else elt, item, env, depth)
        elif isinstance(target, ast.Attribute):
            subject = self.eval(target.value, env, depth)
            if not isinstance(subject, Instance):
                raise Undecided
            subject.values[target.attr] = found  # `self.exclude = set(exclude)`
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value, env, depth)
            key = self.eval(target.slice, env, depth)
            if not isinstance(container, dict) or not isinstance(key, str):
                raise Undecided
            container[key] = found
        else:
            raise Undecided

    def bind(self, target: ast.expr, info: FieldInfo, env: dict[str, Any]) -> None:
        if not isinstance(target, ast.Name):
            raise Undecided
        env[target.id] = info

    # expressions

    def eval(self, node: ast.expr, env: dict[str, Any], depth: int) -> Any:
        self._step()
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self._name(node.id, env)
        if isinstance(node, ast.Attribute):
            return self._attribute(self.eval(node.value, env, depth), node.attr)
        if isinstance(node, ast.Call):
            return self._call(node, env, depth)
        if isinstance(node, ast.BoolOp):
            last: Any = None
            for operand in node.values:
                last = self.eval(operand, env, depth)
                if self.truth(last) == isinstance(node.op, ast.Or):
                    return last
            return last
        if isinstance(node, ast.UnaryOp):
            operand = self.eval(node.operand, env, depth)
            if isinstance(node.op, ast.Not):
                return not self.truth(operand)
            if isinstance(node.op, ast.USub) and isinstance(operand, int | float):
                return -operand
            raise Undecided
        if isinstance(node, ast.Compare):
            return self._compare(node, env, depth)
        if isinstance(node, ast.IfExp):
            try:
                chosen = self.truth(self.eval(node.test, env, depth))
            except Raised:
                raise
            except Undecided:
                # Which value is not known, only that it is one of the two: a value the run goes
                # on with (a help text), never one it decides or spells an option with.
                return UNK
            return self.eval(node.body if chosen else node.orelse, env, depth)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items: list[Any] = []
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    items.extend(self._sequence(self.eval(elt.value, env, depth)))
                else:
                    items.append(self.eval(elt, env, depth))
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            out: dict[str, Any] = {}
            for key, item in zip(node.keys, node.values, strict=True):
                found = self.eval(item, env, depth)
                if key is None:
                    if not isinstance(found, dict):
                        raise Undecided
                    out.update(found)
                    continue
                name = self.eval(key, env, depth)
                if not isinstance(name, str):
                    raise Undecided
                out[name] = found
            return out
        if isinstance(node, ast.Subscript):
            return self._subscript(node, env, depth)
        if isinstance(node, ast.ListComp):
            return list(_Generator(node, env, depth).each(self))
        if isinstance(node, ast.BinOp):
            left, right = self.eval(node.left, env, depth), self.eval(node.right, env, depth)
            if isinstance(node.op, ast.Add) and type(left) is type(right) and isinstance(left, str | list):
                return left + right
            if (
                isinstance(left, int | float)
                and isinstance(right, int | float)
                and not isinstance(node.op, ast.Div)
            ):
                return value(ast.BinOp(ast.Constant(left), node.op, ast.Constant(right)), lambda n: None)
            raise Undecided
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                found = self.eval(part.value, env, depth) if isinstance(part, ast.FormattedValue) else part
                if isinstance(part, ast.FormattedValue) and (part.conversion != -1 or part.format_spec):
                    raise Undecided
                if isinstance(found, ast.Constant):
                    found = found.value
                if not isinstance(found, str | int | float | bool):
                    raise Undecided
                parts.append(str(found))
            return "".join(parts)
        raise Undecided

    def _sequence(self, found: Any) -> list[Any]:
        if isinstance(found, list | tuple):
            return list(found)
        raise Undecided

    def truth(self, found: Any) -> bool:
        if found is UNK:
            raise Undecided
        if isinstance(found, Src):
            # A name or call of the dataclass's module: an object (a function, a list it builds at
            # run time). A literal would have been read as one.
            if isinstance(found.node, ast.Name | ast.Attribute | ast.Call | ast.Lambda):
                return True
            raise Undecided
        if isinstance(found, str | int | float | bool | type(None) | list | tuple | dict):
            return bool(found)
        return True  # types, metadata objects, sentinels, the parser

    def _name(self, name: str, env: dict[str, Any]) -> Any:
        if name in env:
            return env[name]
        if self.outer is not None and self.outer.binds(name):
            return self.caller_value(ast.Name(id=name, ctx=ast.Load()), self.outer.lookup)
        ctx = self.ctx
        names = module_names(ctx)
        if name in names:
            return names[name]
        if name in ctx.builder_module.functions:
            return FuncRef(name)
        if name in ctx.builder_module.classes:
            return ClassRef(name)
        if name in ctx.imports:
            return self._imported(name)
        if name in BUILTIN_TYPES:
            return Ann(ast.Name(id=name))
        if name == "None":
            return None
        return FuncRef(name) if name in _BUILTIN_CALLS else UNK

    def _imported(self, name: str) -> Any:
        where = self.ctx.imports[name]
        head, _, last = where.rpartition(".")
        if head in TYPING or head == "dataclasses":
            return self._attribute(ModuleRef(head), last)
        return ModuleRef(where) if not head else Sentinel(where)

    def caller_value(self, node: ast.expr, lookup: Lookup) -> Any:
        """An expression of the scope calling a helper (or around it) as the run reads it: the
        literal that scope spells out, a marker of an imported module (`argparse.SUPPRESS`), a
        parser or argument group the scope made; anything else unknown."""
        found = value(node, lookup, self.ctx.builder_module)
        if found is not UNKNOWN and not isinstance(found, set):
            return found
        chain: list[str] = []
        root = node
        while isinstance(root, ast.Attribute):
            chain.insert(0, root.attr)
            root = root.value
        if isinstance(root, ast.Name) and lookup(root) is None and root.id in self.ctx.imports:
            with contextlib.suppress(Undecided):
                found = self._imported(root.id)
                for attr in chain:
                    found = self._attribute(found, attr)
                return found
        made = lookup(node) if isinstance(node, ast.Name) else node
        if isinstance(made, ast.expr) and _makes_parser(made):
            return Parser()
        return UNK

    def _attribute(self, subject: Any, attr: str) -> Any:
        if isinstance(subject, Action) and attr == "dest" and subject.dest is not None:
            return subject.dest
        if isinstance(subject, FieldInfo):
            if attr == "name":
                return subject.name
            if attr == "type":
                written = subject.annotation
                if isinstance(written, ast.Constant) and isinstance(written.value, str):
                    return written.value
                return ast.unparse(written) if self.ctx.postponed else Ann(written)
            if attr == "default":
                return (
                    Sentinel("dataclasses.MISSING")
                    if subject.default is None
                    else src(self.ctx, subject.default)
                )
            if attr == "default_factory":
                return (
                    Sentinel("dataclasses.MISSING") if subject.factory is None else Factory(subject.factory)
                )
            if attr == "metadata":
                return {} if subject.metadata is None else self._metadata(subject.metadata)
            if attr == "init":
                return subject.init
            raise Undecided
        if isinstance(subject, Instance):
            if attr in subject.values:
                return subject.values[attr]
            node = self.ctx.builder_module.classes[subject.cls]
            if any(isinstance(n, ast.FunctionDef) and n.name == attr for n in node.body):
                return Bound(subject, attr)
            return self._class_default(subject.cls, attr)
        if isinstance(subject, DataclassRef) and attr in ("__doc__", "__name__", "__qualname__"):
            return UNK  # a text the run passes on (a group's description), never decides on
        if isinstance(subject, Obj):
            if attr in subject.values:
                return subject.values[attr]
            return self._class_default(subject.cls, attr)
        if isinstance(subject, ModuleRef):
            if subject.name in TYPING:
                return FuncRef(attr) if attr in _BUILTIN_CALLS else Ann(ast.Name(id=attr))
            if subject.name == "dataclasses":
                return (
                    FuncRef(attr) if attr in ("fields", "is_dataclass") else Sentinel(f"dataclasses.{attr}")
                )
            if subject.name == "types" and attr in ("UnionType", "NoneType"):
                return Ann(ast.Name(id=attr))
            return Sentinel(f"{subject.name}.{attr}")
        raise Undecided

    def _metadata(self, node: ast.expr) -> Any:
        """`field(metadata={...})`: a dict literal read key by key, each value the dataclass's
        module's (`{"argparse_meta": {"type": str, "nargs": "+"}}`)."""
        if isinstance(node, ast.Dict) and all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys
        ):
            return {k.value: self._metadata(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[union-attr]
        return src(self.ctx, node)

    def _class_default(self, cls: str, attr: str) -> Any:
        for stmt in self.ctx.builder_module.classes[cls].body:
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and stmt.target.id == attr
            ):
                if stmt.value is None:
                    raise Undecided
                return self.eval(stmt.value, {}, 0)
        raise Undecided

    def _subscript(self, node: ast.Subscript, env: dict[str, Any], depth: int) -> Any:
        container = self.eval(node.value, env, depth)
        if isinstance(node.slice, ast.Slice):
            bounds = [
                None if b is None else self.eval(b, env, depth) for b in (node.slice.lower, node.slice.upper)
            ]
            if node.slice.step is not None or not all(b is None or isinstance(b, int) for b in bounds):
                raise Undecided
            if isinstance(container, list | tuple | str):
                return container[bounds[0] : bounds[1]]
            raise Undecided
        key = self.eval(node.slice, env, depth)
        if (
            isinstance(container, list | tuple)
            and isinstance(key, int)
            and -len(container) <= key < len(container)
        ):
            return container[key]
        if isinstance(container, dict) and isinstance(key, str) and key in container:
            return container[key]
        if isinstance(container, Hints) and isinstance(key, str):
            return self._hint(container, key)
        raise Undecided

    def _hint(self, hints: Hints, name: str) -> Any:
        for info in self.ctx.fields:
            if info.name == name:
                node = unquoted(info.annotation)
                if (
                    not hints.extras
                    and isinstance(node, ast.Subscript)
                    and canon(self.ctx, node.value) == "Annotated"
                ):
                    members = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                    node = members[0]
                return Ann(node)
        return None

    def _compare(self, node: ast.Compare, env: dict[str, Any], depth: int) -> bool:
        left = self.eval(node.left, env, depth)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.eval(right_node, env, depth)
            if isinstance(op, ast.Is | ast.Eq):
                result = self._same(left, right)
            elif isinstance(op, ast.IsNot | ast.NotEq):
                result = not self._same(left, right)
            elif isinstance(op, ast.In | ast.NotIn):
                if isinstance(right, str) and isinstance(left, str):
                    found = left in right
                elif isinstance(right, list | tuple | dict):
                    found = any(self._same(left, item) for item in right)
                else:
                    raise Undecided
                result = found if isinstance(op, ast.In) else not found
            elif type(op) in COMPARE and isinstance(left, int | float) and isinstance(right, int | float):
                result = bool(COMPARE[type(op)](left, right))
            else:
                raise Undecided
            if not result:
                return False
            left = right
        return True

    def _same(self, left: Any, right: Any) -> bool:
        if left is UNK or right is UNK or isinstance(left, Src) or isinstance(right, Src):
            if isinstance(left, Sentinel) or isinstance(right, Sentinel):
                return False  # a value of the dataclass's module is never another library's marker
            if (left is None or right is None) and self.truth(left if right is None else right):
                return False  # an object named or made there (truth() says which are) is not None
            raise Undecided
        if left is None or right is None:
            return left is right
        if isinstance(left, Ann) and isinstance(right, Ann):
            return type_name(self.ctx, left) == type_name(self.ctx, right)
        if isinstance(left, Ann | Sentinel | ClassRef | FuncRef) or isinstance(
            right, Ann | Sentinel | ClassRef
        ):
            return bool(left == right)
        if isinstance(left, str | int | float | bool | type(None)) and isinstance(
            right, str | int | float | bool | type(None)
        ):
            return type(left) is type(right) and left == right
        if isinstance(left, Obj | FieldInfo | Parser | DataclassRef) or isinstance(right, Obj | FieldInfo):
            return left is right
        if isinstance(left, dict) and isinstance(right, dict):  # `f.metadata != {}`
            return left.keys() == right.keys() and all(self._same(left[k], right[k]) for k in left)
        if isinstance(left, list | tuple) and type(left) is type(right):
            return len(left) == len(right) and all(self._same(a, b) for a, b in zip(left, right, strict=True))
        if isinstance(left, _DECIDED) and isinstance(right, _DECIDED):
            return False  # a container is no scalar, nor a container of another kind
        raise Undecided

    # calls

    def _call(self, node: ast.Call, env: dict[str, Any], depth: int) -> Any:
        if _makes_parser(node):
            return Parser()  # `argparse.ArgumentParser(...)`, `parser.add_argument_group(...)`
        func = node.func
        if isinstance(func, ast.Attribute):
            subject = self.eval(func.value, env, depth)
            if not isinstance(subject, FieldInfo | Obj | Instance):
                args, keywords = self._arguments(node, env, depth)
                return self._method(subject, func.attr, args, keywords)
            callee = self._attribute(subject, func.attr)  # `field.default_factory()`, `self.helper(f)`
        else:
            callee = self.eval(func, env, depth)
        if isinstance(callee, Factory):
            return src(self.ctx, ast.Call(func=callee.node, args=[], keywords=[]))
        args, keywords = self._arguments(node, env, depth)
        if isinstance(callee, Bound):
            method = next(
                n
                for n in self.ctx.builder_module.classes[callee.instance.cls].body
                if isinstance(n, ast.FunctionDef) and n.name == callee.name
            )
            if method.decorator_list:
                raise Undecided  # a staticmethod, a property: not bound as written
            return self._inline(method, [callee.instance, *args], keywords, depth)
        if isinstance(callee, ClassRef):
            return instance(self.ctx, callee.name, args, keywords, opaque=False)
        if isinstance(callee, Ann) and isinstance(callee.node, ast.Name):
            return self._builtin(callee.node.id, args, keywords, node, env, depth)
        if not isinstance(callee, FuncRef):
            raise Undecided
        if callee.name in self.ctx.builder_module.functions:
            return self._inline(self.ctx.builder_module.functions[callee.name], args, keywords, depth)
        return self._builtin(callee.name, args, keywords, node, env, depth)

    def _arguments(self, node: ast.Call, env: dict[str, Any], depth: int) -> tuple[list[Any], dict[str, Any]]:
        args: list[Any] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(self._sequence(self.eval(arg.value, env, depth)))
            elif isinstance(arg, ast.GeneratorExp):
                args.append(_Generator(arg, env, depth))
            else:
                args.append(self.eval(arg, env, depth))
        keywords: dict[str, Any] = {}
        for k in node.keywords:
            found = self.eval(k.value, env, depth)
            if k.arg is None:
                if not isinstance(found, dict):
                    raise Undecided
                keywords.update(found)
            else:
                keywords[k.arg] = found
        return args, keywords

    def _method(self, subject: Any, name: str, args: list[Any], keywords: dict[str, Any]) -> Any:
        if isinstance(subject, Parser):
            if name in self.declaring:
                self.calls.append(Call(args, keywords))
                return _action(args, keywords)
            if name in ("add_argument_group", "add_mutually_exclusive_group"):
                return subject
            raise Undecided
        if isinstance(subject, ModuleRef | Sentinel):
            return self._call_ref(self._attribute(subject, name), args, keywords)
        if isinstance(subject, str) and name in STR_METHODS and not keywords:
            if all(isinstance(a, str) or type(a) is int for a in args) or (
                name == "join" and args and isinstance(args[0], list)
            ):
                return getattr(subject, name)(*args)
            raise Undecided
        if isinstance(subject, dict):
            if name == "get" and args and isinstance(args[0], str):
                return subject.get(args[0], args[1] if len(args) > 1 else None)
            if name == "pop" and not keywords and args and isinstance(args[0], str) and len(args) <= 2:
                if args[0] in subject:
                    return subject.pop(args[0])
                if len(args) == 2:
                    return args[1]
                raise Undecided
            if name == "update" and not keywords and len(args) == 1:
                if args[0] is None or args[0] == {}:
                    return None
                if isinstance(args[0], dict):
                    subject.update(args[0])
                    return None
            raise Undecided
        if isinstance(subject, list) and name in ("append", "extend") and len(args) == 1:
            if name == "append":
                subject.append(args[0])
            else:
                subject.extend(self._sequence(args[0]))
            return None
        if isinstance(subject, Hints) and name == "get" and args and isinstance(args[0], str):
            return self._hint(subject, args[0])
        raise Undecided

    def _call_ref(self, callee: Any, args: list[Any], keywords: dict[str, Any]) -> Any:
        if isinstance(callee, FuncRef):
            return self._builtin(callee.name, args, keywords, None, {}, 0)
        raise Undecided

    def _inline(
        self,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        args: list[Any],
        keywords: dict[str, Any],
        depth: int,
    ) -> Any:
        if (
            depth >= MAX_DEPTH
            or fn.decorator_list
            and not all(
                dotted(d) in ("functools.cache", "cache", "functools.lru_cache", "lru_cache")
                for d in fn.decorator_list
            )
        ):
            raise Undecided
        env = bind(fn, args, keywords, self)
        signal = self.exec(fn.body, env, depth + 1)
        if signal is None:
            return None
        if signal.kind == "raise":
            raise Raised(signal.value)  # out to a `try` of the caller's, if one takes it
        if signal.kind != "return":
            raise Undecided
        return signal.value

    def _builtin(
        self,
        name: str,
        args: list[Any],
        keywords: dict[str, Any],
        node: ast.Call | None,
        env: dict[str, Any],
        depth: int,
    ) -> Any:
        if name == "fields" and len(args) == 1 and isinstance(args[0], DataclassRef):
            return FieldList()
        if name == "is_dataclass" and len(args) == 1:
            if isinstance(args[0], Ann) and not plain(self.ctx, args[0]):
                # A field typed with a class, maybe a nested dataclass: another run, not read.
                raise Undecided
            return isinstance(args[0], DataclassRef)
        if name == "get_type_hints" and args and isinstance(args[0], DataclassRef):
            return Hints(extras=keywords.get("include_extras") is True)
        if name == "get_origin" and len(args) == 1:
            return origin(self.ctx, args[0])
        if name == "get_args" and len(args) == 1:
            return type_args(self.ctx, args[0])
        if name == "isinstance" and len(args) == 2 and isinstance(args[1], TypeOf):
            # `isinstance(f.default, type(dataclasses.MISSING))`: only the marker is of its class
            return isinstance(args[0], Sentinel) and args[0] == args[1].marker
        if name == "type" and len(args) == 1 and isinstance(args[0], Sentinel):
            return TypeOf(args[0])
        if name == "set" and not keywords and len(args) <= 1:
            return list(dict.fromkeys(self._sequence(args[0]))) if args else []
        if (
            name == "list"
            and len(args) == 1
            and isinstance(args[0], Ann)
            and type_name(self.ctx, args[0]) in self.ctx.enums
        ):
            return UNK  # an Enum's members: values the run passes on (choices), never decides on
        if name in ("isinstance", "issubclass") and len(args) == 2:
            return is_instance(self.ctx, args[0], args[1], subclass=name == "issubclass")
        if name == "hasattr" and len(args) == 2 and args[0] == ModuleRef("types") and args[1] == "UnionType":
            return True  # docs-sync runs on Python 3.10 and later
        if name == "type" and len(args) == 1 and isinstance(args[0], str | int | float | bool | type(None)):
            return Ann(ast.Name(id=type(args[0]).__name__))
        if name == "dict" and not args:
            return dict(keywords)
        if (
            name in ("list", "tuple")
            and len(args) == 1
            and isinstance(args[0], list | tuple)
            and not keywords
        ):
            return list(args[0]) if name == "list" else tuple(args[0])
        if name == "len" and len(args) == 1 and isinstance(args[0], list | tuple | str | dict):
            return len(args[0])
        if name in ("any", "all") and len(args) == 1:
            items = args[0].each(self) if isinstance(args[0], _Generator) else self._sequence(args[0])
            truths = [self.truth(i) for i in items]
            return any(truths) if name == "any" else all(truths)
        raise Undecided


def _action(args: list[Any], keywords: dict[str, Any]) -> Action:
    """The action `add_argument(*args, **keywords)` returns, its dest as argparse derives it."""
    dest = keywords.get("dest")
    if isinstance(dest, str):
        return Action(dest)
    if dest is not None or not args or not all(isinstance(a, str) for a in args):
        return Action(None)
    options = [a for a in args if a.startswith("-")]
    return Action(derived_dest(options) if options else args[0])


_SAYING = frozenset({"print", "warnings.warn", "warn", "logger.warning", "logger.info", "logging.warning"})
_DECIDED = (str, int, float, bool, type(None), dict, list, tuple)
_ANY_EXCEPTION = frozenset({"Exception", "BaseException"})
_CAUGHT = "<caught>"  # the exception a handler is running for: what a bare `raise` raises again


@dataclass(frozen=True)
class _Caught:
    name: str | None


def _handled(node: ast.expr) -> list[str]:
    """The exception classes an `except` names, as written."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    return [d for d in (dotted(i) for i in items) if d is not None]


_BUILTIN_CALLS = frozenset(
    {
        "set",
        "fields",
        "is_dataclass",
        "get_type_hints",
        "get_origin",
        "get_args",
        "isinstance",
        "issubclass",
        "hasattr",
        "type",
        "dict",
        "list",
        "tuple",
        "len",
        "any",
        "all",
    }
)


@dataclass
class _Generator:
    """`any(name.startswith("-") for name in names)`: one generator, run when its caller asks."""

    node: ast.GeneratorExp | ast.ListComp
    env: dict[str, Any]
    depth: int

    def each(self, runner: _Runner) -> Iterator[Any]:
        if len(self.node.generators) != 1 or self.node.generators[0].is_async:
            raise Undecided
        comp = self.node.generators[0]
        for item in runner._sequence(runner.eval(comp.iter, self.env, self.depth)):
            env = dict(self.env)
            runner._assign(comp.target, item, env, self.depth)
            if all(runner.truth(runner.eval(test, env, self.depth)) for test in comp.ifs):
                yield runner.eval(self.node.elt, env, self.depth)


def bind(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, args: list[Any], keywords: dict[str, Any], runner: _Runner
) -> dict[str, Any]:
    """The function's parameters bound as Python binds them; defaults from the builder's module."""
    a = fn.args
    if a.vararg is not None or a.kwarg is not None:
        raise Undecided
    positional = [*a.posonlyargs, *a.args]
    if len(args) > len(positional):
        raise Undecided
    env: dict[str, Any] = {}
    for param, found in zip(positional, args, strict=False):
        env[param.arg] = found
    defaults = dict(
        zip([p.arg for p in positional][len(positional) - len(a.defaults) :], a.defaults, strict=True)
    )
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None})
    for name, found in keywords.items():
        if name in env or name not in {p.arg for p in (*positional, *a.kwonlyargs)}:
            raise Undecided
        env[name] = found
    for param in (*positional, *a.kwonlyargs):
        if param.arg not in env:
            if param.arg not in defaults:
                raise Undecided
            env[param.arg] = runner.eval(defaults[param.arg], {}, 0)
    return env


def construct(ctx: Context, cls: str, args: list[Any], keywords: dict[str, Any]) -> Instance | None:
    """`Factory(Config, exclude=[...])`: the instance the builder class's `__init__` makes. An
    attribute it assigns a value the run cannot decide (docstrings read with `inspect`) is an
    unknown value, not the end of the run: a field whose flags depend on it stays undecided."""
    node = ctx.builder_module.classes.get(cls)
    if node is None or node.decorator_list:
        return None
    made = Instance(cls, {})
    init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return None if args or keywords else made
    runner = _Runner(ctx, None)
    try:
        env = bind(init, [made, *args], keywords, runner)
        for stmt in init.body:
            try:
                signal = runner.exec([stmt], env, depth=1)
            except Raised:
                return None
            except Undecided:
                if not isinstance(stmt, ast.Assign) or not all(
                    _unknown_to(t, env, made) for t in stmt.targets
                ):
                    return None
                continue
            if signal is not None:
                return made if signal.kind == "return" else None
    except (Undecided, RecursionError):
        return None
    return made


def _unknown_to(target: ast.expr, env: dict[str, Any], made: Instance) -> bool:
    if isinstance(target, ast.Name):
        env[target.id] = UNK
        return True
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and env.get(target.value.id) is made
    ):
        made.values[target.attr] = UNK
        return True
    return False


def bind_builder(
    ctx: Context, fn: ast.FunctionDef | ast.AsyncFunctionDef, args: list[Any], keywords: dict[str, Any]
) -> dict[str, Any] | None:
    try:
        return bind(fn, args, keywords, _Runner(ctx, None))
    except Undecided:
        return None
