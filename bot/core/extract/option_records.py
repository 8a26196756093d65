"""Option registries: a class or function whose calls hold a flag's option strings, the parser
made later from the records they return. nox's `Option("sessions", "-s", "--sessions",
group=..., help=...)` keeps `self.flags = flags` (its `*flags`), and `OptionSet.parser()` loops
over the options calling `group.add_argument(*option.flags, help=option.help,
default=option.default, **option.kwargs)`; a later nox writes `opt("-s", "--sessions", ...)`,
returning `Opt(flags=flags, **kwargs)`, the parser calling `add_argument(*option.flags, ...)`
and `add_argument(*option.negative_flags, action="store_false", ...)`. A call of the record
declares what those declaring calls would with its arguments bound: one per declaring call
spreading an attribute the call gives (the `*flags`, or a tuple `negative_flags=("--no-x",)`).

Read from the syntax tree, never run. The record and its declaring calls are in one module,
the calls often in another one importing it (`_option_set.Option(...)`): that module says which
imported names it calls with option strings (a fact of kind `option-record`, key the module and
name), and `gather` reads the records where they are defined (bot/core/extract/recorded_flags.py).
A helper of the record's module making records from its parameters (nox's
`make_flag_pair(name, ("-x", "--stop-on-first-error"), ("--no-stop-on-first-error",), **kwargs)`,
`Option(name, *enable_flags, **kwargs)` in its body) is bound the same way. What cannot be bound
(a `*args` at the call, a record whose strings are made in code) declares nothing rather than a
guess.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from bot.core.extract import walk
from bot.core.extract.constants import dotted
from bot.core.extract.forwarding import kept_attributes
from bot.core.model import Fact

RECORD: Final = "option-record"
MAX_RECORDS = 32  # records (and helpers) of one module
MAX_REFS = 16  # imported callees of one module followed


@dataclass(frozen=True)
class Made:
    """A declaring call of the record's module spreading one of the record's attributes."""

    call: ast.Call
    spread: str  # the attribute whose strings are the option strings
    fields: tuple[tuple[str, str], ...]  # keyword -> the record attribute it passes on
    rest: bool  # `**option.kwargs`: the record's other keywords, as given
    unknown: bool  # another `**`: keywords the module makes in code


@dataclass(frozen=True)
class Record:
    """A class (its `__init__`) or function whose calls are records of one flag."""

    function: ast.FunctionDef
    method: bool  # `__init__`: its first parameter is the instance
    attrs: tuple[tuple[str, str], ...]  # parameter -> the attribute it is kept as (the `*` one too)
    kwargs: str | None  # the attribute keeping `**kwargs` whole (a class's `self.kwargs = kwargs`)
    open: bool  # `**kwargs` kept whole: its keywords are attributes of their own name
    made: tuple[Made, ...]


@dataclass(frozen=True)
class Helper:
    """A function of the record's module making records from its parameters."""

    function: ast.FunctionDef
    inner: tuple[tuple[ast.Call, Record], ...]  # the records its body makes, in order


Foreign = dict[str, "Record | Helper"]  # a module's callee name -> the record it makes


def records(tree: ast.Module, declaring: frozenset[str]) -> dict[str, Record | Helper]:
    """Name -> record or helper, for the module's classes and functions that make records its
    declaring calls spread."""
    calls = [n for n in walk.nodes(tree) if isinstance(n, ast.Call) and _called(n) in declaring]
    spreading = [(c, _spread(c)) for c in calls]
    out: dict[str, Record | Helper] = {}
    for node in tree.body:
        found = _record(node)
        if found is None:
            continue
        name, fn, method, attrs, is_open = found
        kept = dict(attrs)
        kwargs = kept.get(fn.args.kwarg.arg) if method and fn.args.kwarg else None
        made = tuple(
            _made(call, spread, kwargs, _properties(node))
            for call, spread in spreading
            if spread is not None and (spread in kept.values() or is_open) and _of(call, node, method)
        )
        if made:
            out[name] = Record(fn, method, attrs, kwargs, is_open, made)
        if len(out) >= MAX_RECORDS:
            break
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name not in out and len(out) < MAX_RECORDS:
            inner = tuple(
                (c, r)
                for c in walk.every(node)
                if isinstance(c, ast.Call)
                for r in [out.get(_called(c) or "")]
                if isinstance(r, Record) and any(_starred_param(a, node) for a in c.args)
            )
            if inner:
                out[node.name] = Helper(node, inner)
    return out


def _record(node: ast.stmt) -> tuple[str, ast.FunctionDef, bool, tuple[tuple[str, str], ...], bool] | None:
    """A class whose `__init__` keeps its `*args` (`self.flags = flags`), or a function handing
    its `*args` to a call as a keyword (`Opt(flags=flags, **kwargs)`)."""
    if isinstance(node, ast.ClassDef):
        init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None or init.args.vararg is None:
            return None
        kept = kept_attributes(init)
        if init.args.vararg.arg not in kept:
            return None
        return node.name, init, True, tuple(kept.items()), False
    if isinstance(node, ast.FunctionDef) and node.args.vararg is not None:
        for call in walk.every(node):
            if not isinstance(call, ast.Call):
                continue
            handed = {k.value.id: k.arg for k in call.keywords if k.arg and isinstance(k.value, ast.Name)}
            if node.args.vararg.arg in handed:
                kwarg = node.args.kwarg
                whole = kwarg is not None and any(
                    k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwarg.arg
                    for k in call.keywords
                )
                return node.name, node, False, tuple(handed.items()), whole
    return None


def _properties(node: ast.stmt) -> dict[str, str]:
    """Property -> the attribute it returns (`def default(self): ... return self._default`)."""
    out: dict[str, str] = {}
    if not isinstance(node, ast.ClassDef):
        return out
    for fn in node.body:
        if isinstance(fn, ast.FunctionDef) and any(dotted(d) == "property" for d in fn.decorator_list):
            returned = {
                r.value.attr
                for r in walk.every(fn)
                if isinstance(r, ast.Return) and isinstance(r.value, ast.Attribute)
            }
            if len(returned) == 1:
                out[fn.name] = returned.pop()
    return out


def _of(call: ast.Call, node: ast.stmt, method: bool) -> bool:
    """Can the call's spread be of the record's? `*self.args` is its own class's (another class
    keeping `self.args` is not this one); `*option.flags` may be of any record."""
    starred = call.args[0]
    assert isinstance(starred, ast.Starred) and isinstance(starred.value, ast.Attribute)
    if dotted(starred.value.value) != "self":
        return True
    return method and node.lineno <= call.lineno <= (node.end_lineno or node.lineno)


def _spread(call: ast.Call) -> str | None:
    """The attribute a declaring call spreads as its only positional (`*option.flags`)."""
    if len(call.args) != 1 or not isinstance(call.args[0], ast.Starred):
        return None
    inner = call.args[0].value
    return inner.attr if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) else None


def _made(call: ast.Call, spread: str, kwargs_attr: str | None, properties: Mapping[str, str]) -> Made:
    starred = call.args[0]
    assert isinstance(starred, ast.Starred) and isinstance(starred.value, ast.Attribute)
    owner = dotted(starred.value.value)
    fields: list[tuple[str, str]] = []
    rest = unknown = False
    for k in call.keywords:
        read = k.value.attr if isinstance(k.value, ast.Attribute) and dotted(k.value.value) == owner else None
        if k.arg is None:
            if read is not None and read == kwargs_attr:
                rest = True
            else:
                unknown = True
        elif read is not None:
            fields.append((k.arg, properties.get(read, read)))
    return Made(call, spread, tuple(fields), rest, unknown)


def _starred_param(arg: ast.expr, fn: ast.FunctionDef) -> bool:
    names = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    return isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name) and arg.value.id in names


def expand(call: ast.Call, found: Record | Helper) -> list[ast.Call]:
    """The declaring calls `call` of the record (or helper) stands for, each with the option
    strings of the attribute it spreads; none when the call's arguments cannot be bound."""
    if isinstance(found, Helper):
        return [c for inner, record in found.inner for c in _helped(call, found.function, inner, record)]
    bound = _bind(call, found)
    if bound is None:
        return []
    values, rest, unknown = bound
    out = []
    for made in found.made:
        strings = values.get(made.spread)
        if isinstance(strings, ast.Tuple | ast.List):
            strings = list(strings.elts)
        if not isinstance(strings, list) or not strings or any(isinstance(s, ast.Starred) for s in strings):
            continue
        keywords = [k for k in made.call.keywords if k.arg is not None and _written(k.value)]
        # what the module makes in code (`dest=field.name`) is unknown, never the call's source text
        keywords += [
            ast.keyword(arg=k.arg, value=ast.Name(id="<made in code>", ctx=ast.Load()))
            for k in made.call.keywords
            if k.arg not in (None, "help", *dict(made.fields)) and not _written(k.value)
        ]
        for k, a in made.fields:
            given = values.get(a)
            if isinstance(given, ast.expr):
                keywords.append(ast.keyword(arg=k, value=given))
        if made.rest:
            keywords += rest
        if made.unknown or unknown:  # keywords the module makes in code: what they say is unknown
            keywords.append(ast.keyword(arg=None, value=ast.Name(id="kwargs", ctx=ast.Load())))
        declared = ast.Call(func=made.call.func, args=strings, keywords=_last_wins(keywords))
        out.append(ast.copy_location(declared, call))
    return out


Bound = dict[str, ast.expr | list[ast.expr]]  # record attribute -> what a call gives it


def _bind(call: ast.Call, record: Record) -> tuple[Bound, list[ast.keyword], bool] | None:
    """Record attribute -> what the call gives it (the `*` one a list), the keywords `**kwargs`
    takes, and whether the call spreads keywords of its own (`**extra`)."""
    fn, attrs = record.function, dict(record.attrs)
    positional = [*fn.args.posonlyargs, *fn.args.args][1 if record.method else 0 :]
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    values: Bound = {}
    for param, arg in zip(positional, call.args, strict=False):
        if param.arg in attrs:
            values[attrs[param.arg]] = arg
    vararg = fn.args.vararg
    extra = call.args[len(positional) :]
    if extra and vararg is None:
        return None
    if vararg is not None:
        values[attrs.get(vararg.arg, vararg.arg)] = list(extra)
    named = {p.arg for p in (*positional, *fn.args.kwonlyargs)}
    rest: list[ast.keyword] = []
    unknown = False
    for k in call.keywords:
        if k.arg is None:
            unknown = True
        elif k.arg in named:
            if k.arg in attrs:
                values[attrs[k.arg]] = k.value
        elif fn.args.kwarg is not None:
            rest.append(k)
            if record.open:
                values[k.arg] = k.value
        else:
            return None
    defaults = zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)
    for p, d in defaults:
        if d is not None and p.arg in attrs:
            values.setdefault(attrs[p.arg], d)
    return values, rest, unknown


def _helped(call: ast.Call, fn: ast.FunctionDef, inner: ast.Call, record: Record) -> list[ast.Call]:
    """The record `inner` in the helper's body makes for `call`: its parameters written in, the
    helper's `**kwargs` the keywords the call gives it, as the body sets them before `inner`
    (`kwargs["action"] = "store_true"`; a value made in code drops the keyword)."""
    from bot.core.extract.forwarding import _bind as bind_helper

    bound = bind_helper(call, fn)
    if bound is None:
        return []
    values, extra = bound
    given = {k.arg: k.value for k in extra if k.arg}
    kwarg = fn.args.kwarg.arg if fn.args.kwarg else None
    for stmt in fn.body:
        if stmt.lineno >= inner.lineno:
            break
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name)
                and target.value.id == kwarg
                and isinstance(target.slice, ast.Constant)
                and isinstance(target.slice.value, str)
            ):
                if isinstance(stmt.value, ast.Constant):
                    given[target.slice.value] = stmt.value
                else:
                    given.pop(target.slice.value, None)
    args: list[ast.expr] = []
    for a in inner.args:
        if isinstance(a, ast.Starred):
            held = values.get(a.value.id) if isinstance(a.value, ast.Name) else None
            if not isinstance(held, ast.Tuple | ast.List):
                return []
            args += held.elts
        elif isinstance(a, ast.Name) and a.id in values:
            args.append(values[a.id])
        else:
            args.append(a)
    keywords: list[ast.keyword] = []
    for k in inner.keywords:
        if k.arg is None:
            if isinstance(k.value, ast.Name) and k.value.id == kwarg:
                keywords += [ast.keyword(arg=n, value=v) for n, v in given.items()]
            else:
                return []
        elif isinstance(k.value, ast.Name) and k.value.id in values:
            keywords.append(ast.keyword(arg=k.arg, value=values[k.value.id]))
        elif isinstance(k.value, ast.Constant):
            keywords.append(k)
    made = ast.copy_location(ast.Call(func=inner.func, args=args, keywords=_last_wins(keywords)), call)
    return expand(made, record)


def _written(node: ast.expr) -> bool:
    """A keyword the declaring call gives every record alike: a literal, or argparse's SUPPRESS."""
    return isinstance(node, ast.Constant) or (dotted(node) or "").endswith("SUPPRESS")


def _last_wins(keywords: list[ast.keyword]) -> list[ast.keyword]:
    """One keyword per name, the last given (a record's keyword overriding the call's constant)."""
    named: dict[str, ast.keyword] = {}
    spread: list[ast.keyword] = []
    for k in keywords:
        if k.arg is None:
            spread = [k]
        else:
            named[k.arg] = k
    return [*named.values(), *spread]


# --- records of another module -------------------------------------------------------------------


def references(tree: ast.Module, source_id: str, path: str, local: frozenset[str]) -> list[Fact]:
    """A fact per imported name (not one of `local`) the module calls with an option string
    (`_option_set.Option("sessions", "-s", ...)`, `make_flag_pair("x", ("-x", ...), ...)`): token
    the callee as written, followed through the module's imports when resolved."""
    from bot.core.extract.handed_parsers import _imported_names

    imported = _imported_names(tree)
    if not imported:
        return []
    out: dict[str, Fact] = {}
    for node in walk.nodes(tree):
        if not isinstance(node, ast.Call) or len(out) >= MAX_REFS:
            continue
        written = dotted(node.func)
        if not written or written in out or written.partition(".")[0] not in imported:
            continue
        if (_called(node) or "") in local or not _cites_option(node):
            continue
        out[written] = Fact(
            kind=RECORD, token=written, key=written, source=source_id, path=path, line=node.lineno
        )
    return list(out.values())


def _cites_option(call: ast.Call) -> bool:
    """Is an argument an option string, or a tuple of them?"""
    for arg in call.args:
        for a in arg.elts if isinstance(arg, ast.Tuple | ast.List) else [arg]:
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("-"):
                return True
    return False


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
