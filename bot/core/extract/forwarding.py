"""Local helpers that declare a flag by forwarding their arguments to a declaring call: pytest's
`add_option_ini(option, dest, default=None, type=None, **kwargs)`, whose body calls
`group.addoption(option, dest=dest, **kwargs)` (and `parser.addini` for the ini setting). A call
`add_option_ini("--log-format", dest="log_format", help=...)` declares what that inner call would
with the helper's parameters bound: `addoption("--log-format", dest="log_format", help=...)`.

Read from the syntax tree, never run. A helper counts when it is a function of the module (at any
depth) with exactly one declaring call whose option strings are its parameters; arguments bind
to parameters as Python binds them (positionally, by keyword, the rest into `**kwargs`), and a
parameter not given takes its default. Anything else (a `*args` helper, a call the binding
cannot read) declares nothing rather than a guess. A class keeping its `*args, **kwargs` for a
declaring call it makes later (pdm's `Option`) is a helper too: its instances' arguments are the
call's.

A helper whose option strings are made in its body, or that declares more than one flag, is run
instead, call by call (builder_run.run_helper): mypy's `add_invertible_flag(flag, *, inverse=None,
default, dest=None, help, group=None)` adds `flag` and its inverse, which `invert_flag_name(flag)`
spells when the call gives none (`--no-X` for `--X`, `--X` for `--no-X`, `--disallow-X` for
`--allow-X` through a table the module fills at import), `dest=` the first call's `.dest`, the
second one hidden (`help=argparse.SUPPRESS`); `f"--{prefix}-lr"` and `"--" + name` are spelt from
the call's arguments alike.
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.core.extract import walk
from bot.core.extract.constants import Lookup

if TYPE_CHECKING:
    from bot.core.extract.builder_values import Context
    from bot.core.extract.scopes import Scope

MAX_HELPERS = 64
MAX_RUN_CALLS = 16  # declaring calls in one helper that is run: more is a module's own parser


@dataclass(frozen=True)
class Helper:
    function: ast.FunctionDef | ast.AsyncFunctionDef
    inner: ast.Call  # the declaring call in its body


@dataclass(frozen=True)
class RunHelper:
    """A helper run on each call's arguments (builder_run.run_helper)."""

    function: ast.FunctionDef | ast.AsyncFunctionDef
    outer: Scope | None  # the functions around it, whose names it reads (its closure)
    context: Context  # the module, as the run reads it
    declaring: frozenset[str]


def helpers(tree: ast.Module, declaring: frozenset[str]) -> dict[str, Helper | RunHelper]:
    """Name -> helper, for each function of the module forwarding its parameters to one of the
    `declaring` calls, or spelling its calls' option strings from them."""
    everything = walk.nodes(tree)
    calls = sorted((n for n in everything if isinstance(n, ast.Call) and _called(n) in declaring), key=_start)
    starts = [_start(c) for c in calls]
    out: dict[str, Helper | RunHelper] = {}
    context: Context | None = None
    for fn in everything:
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or fn.name in declaring:
            continue
        # The declaring calls inside the function are those written within its span (decorators
        # included): a node's source span lies within its parent's, so one bisection finds them.
        first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)]), 0
        last = (fn.end_lineno or fn.lineno, fn.end_col_offset or 0)
        lo, hi = bisect_left(starts, first), bisect_right(starts, last)
        if not 0 < hi - lo <= MAX_RUN_CALLS or fn.args.vararg is not None:
            continue
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        inner = calls[lo]
        if hi - lo == 1 and any(isinstance(a, ast.Name) and a.id in params for a in inner.args):
            out[fn.name] = Helper(fn, inner)
        elif (
            fn.args.kwarg is None
            and not _is_method(fn)
            and any(_spelt_from(a, params) for c in calls[lo:hi] for a in c.args)
        ):
            if context is None:
                from bot.core.extract.builder_values import Context

                context = Context(builder=tree, dataclass=tree, fields=[], bases=())
            out[fn.name] = RunHelper(fn, _closure(tree, fn), context, declaring)
        if len(out) >= MAX_HELPERS:
            break
    return out


def _is_method(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A method's calls (`self.add_flag("--x")`) hand it `self` unwritten: they are not bound here."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    return bool(positional) and positional[0].arg in ("self", "cls")


def _spelt_from(arg: ast.expr, params: set[str]) -> bool:
    """Is an option string written with the helper's parameters (`flag`, `f"--{name}"`)?"""
    return any(isinstance(n, ast.Name) and n.id in params for n in walk.every(arg))


def _closure(tree: ast.Module, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Scope | None:
    """The scopes of the functions `fn` is defined in, innermost last (None at module level: the
    module's names are read as its top level leaves them, builder_run.module_names)."""
    from bot.core.extract.scopes import Scope

    path: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def find(node: ast.AST, around: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> bool:
        for child in walk.children(node):
            if child is fn:
                path.extend(around)
                return True
            inner = [*around, child] if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else around
            if find(child, inner):
                return True
        return False

    find(tree, [])
    scope: Scope | None = None
    for f in path:
        scope = Scope(f, scope)
    return scope


@dataclass(frozen=True)
class OptionClass:
    """A class whose instances hold a declaring call's arguments and make it later: pdm's
    `Option(*args, **kwargs)`, whose `add_to_parser(parser)` calls `parser.add_argument(*self.args,
    **self.kwargs)`. `Option("-L", "--lockfile", help=...)` declares that call's flag."""

    inner: ast.Call


def option_classes(tree: ast.Module, declaring: frozenset[str]) -> dict[str, OptionClass]:
    """Name -> class, for each class of the module that keeps its `*args, **kwargs` and hands
    them whole to one of the `declaring` calls."""
    out: dict[str, OptionClass] = {}
    for cls in walk.nodes(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None or init.args.vararg is None:
            continue
        kept = kept_attributes(init)
        args, kwargs = (
            kept.get(init.args.vararg.arg),
            kept.get(init.args.kwarg.arg if init.args.kwarg else ""),
        )
        for node in walk.every(cls):
            if isinstance(node, ast.Call) and _called(node) in declaring and _hands_whole(node, args, kwargs):
                out[cls.name] = OptionClass(node)
                break
        if len(out) >= MAX_HELPERS:
            break
    return out


def kept_attributes(init: ast.FunctionDef) -> dict[str, str]:
    """Parameter -> the attribute `__init__` keeps it in (`self.args = args`)."""
    params = {a.arg for a in walk.every(init.args) if isinstance(a, ast.arg)}
    out = {}
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id in params:
            for target in stmt.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    out[stmt.value.id] = target.attr
    return out


def _hands_whole(call: ast.Call, args: str | None, kwargs: str | None) -> bool:
    """Is `call` `x(*self.<args>, **self.<kwargs>)` (the keywords part when kept)?"""

    def own(node: ast.expr, attr: str | None) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name)

    starred = len(call.args) == 1 and isinstance(call.args[0], ast.Starred) and own(call.args[0].value, args)
    keywords = [k for k in call.keywords if k.arg is None]
    return starred and args is not None and (kwargs is None or any(own(k.value, kwargs) for k in keywords))


def _start(node: ast.expr) -> tuple[int, int]:
    return node.lineno, node.col_offset


def expand(call: ast.Call, helper: Helper | RunHelper | OptionClass, lookup: Lookup) -> list[ast.Call]:
    """The declaring calls `call` of the helper (or option class) stands for, its arguments bound
    (read with `lookup`, the caller's scope); none when they cannot be bound."""
    if isinstance(helper, OptionClass):  # the instance's arguments are the call's, whole
        return [
            ast.copy_location(ast.Call(func=helper.inner.func, args=call.args, keywords=call.keywords), call)
        ]
    if isinstance(helper, RunHelper):
        return _ran(call, helper, lookup)
    found = _expanded(call, helper)
    return [] if found is None else [found]


def _ran(call: ast.Call, helper: RunHelper, lookup: Lookup) -> list[ast.Call]:
    """The calls a run of the helper made, their values written back as expressions, each option
    string on the line of the call's first argument."""
    from bot.core.extract import builder_run
    from bot.core.extract.builder_values import as_node

    made = builder_run.run_helper(
        helper.context, helper.function, helper.outer, call, lookup, helper.declaring
    )
    at = call.args[0] if call.args else call
    out = []
    for inner in made:
        args = [
            ast.copy_location(ast.Constant(a), at) if isinstance(a, str) else as_node(a) for a in inner.args
        ]
        keywords = [ast.keyword(arg=k, value=as_node(v)) for k, v in inner.keywords.items()]
        out.append(
            ast.copy_location(ast.Call(func=ast.Name(id="add_argument"), args=args, keywords=keywords), call)
        )
    return out


def _expanded(call: ast.Call, helper: Helper) -> ast.Call | None:
    bound = _bind(call, helper.function)
    if bound is None:
        return None
    values, extra = bound
    args: list[ast.expr] = []
    for a in helper.inner.args:
        if isinstance(a, ast.Starred):
            return None
        args.append(values.get(a.id, a) if isinstance(a, ast.Name) else a)
    keywords: list[ast.keyword] = []
    for k in helper.inner.keywords:
        if k.arg is None:  # `**kwargs`: the caller's keywords no parameter took
            kwarg = helper.function.args.kwarg
            if kwarg is not None and isinstance(k.value, ast.Name) and k.value.id == kwarg.arg:
                keywords += extra
            continue
        given = values.get(k.value.id) if isinstance(k.value, ast.Name) else None
        keywords.append(ast.keyword(arg=k.arg, value=given if given is not None else k.value))
    out = ast.Call(func=helper.inner.func, args=args, keywords=keywords)
    return ast.copy_location(out, call)


def _bind(
    call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef
) -> tuple[dict[str, ast.expr], list[ast.keyword]] | None:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(positional):
        return None
    values: dict[str, ast.expr] = {p.arg: a for p, a in zip(positional, call.args, strict=False)}
    names = {p.arg for p in (*positional, *fn.args.kwonlyargs)}
    extra: list[ast.keyword] = []
    for k in call.keywords:
        if k.arg is None:
            return None  # `**options` at the call: which keywords it holds is unknown
        if k.arg in names:
            values[k.arg] = k.value
        elif fn.args.kwarg is not None:
            extra.append(k)
        else:
            return None
    defaults = dict(
        zip(
            [p.arg for p in positional][len(positional) - len(fn.args.defaults) :],
            fn.args.defaults,
            strict=True,
        )
    )
    defaults.update(
        {p.arg: d for p, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True) if d is not None}
    )
    for name, default in defaults.items():
        values.setdefault(name, default)
    return values, extra


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
