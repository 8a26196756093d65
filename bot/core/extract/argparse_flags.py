"""Flags declared with argparse: every `<anything>.add_argument(...)` call in a module, read as
argparse reads it.

Each option string becomes one Fact; `BooleanOptionalAction` adds the `--no-` twin argparse
synthesizes. Option strings held in variables are resolved when the variable is assigned exactly
once, to a string, in an enclosing scope; anything else is skipped quietly. Defaults and choices
are what the file says they are (bot/core/extract/constants.py: literals, names assigned once,
arithmetic, Enum members of the module); what it does not say is listed in the attribute
`unknown` and left out, never replaced by its source text:

- `default=argparse.SUPPRESS` leaves the attribute unset: the program decides, not the parser.
- `nargs="?", const=True` is a switch whose value is optional: given alone it sets True, and
  when absent the attribute is None, which the program reads as off (`sets: true`, default False).
- choices checked by a `type=` callable instead of `choices=` are the ones its membership test
  names (`if value not in MODES: raise ...`), or unknown.
- a flag added to `sub.add_parser("run")` belongs to the subcommand `run` (attribute `subcommand`).
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator
from dataclasses import replace
from typing import NamedTuple, TypeGuard

from bot.core.extract import built_fields, flag_families, forwarding, option_variants, subparsers, walk
from bot.core.extract.constants import NO_MODULE, UNKNOWN, Lookup, Module, as_text, dotted, members, value
from bot.core.model import Fact
from bot.core.rules import Source

Scalar = str | int | float | bool  # what a loop variable may hold for its calls to be read
BOOLEAN_OPTIONAL = frozenset({"argparse.BooleanOptionalAction", "BooleanOptionalAction"})
SUPPRESS = frozenset({"argparse.SUPPRESS", "SUPPRESS"})
# `type=` callables that convert a value and check nothing else: no choices hide in them.
PLAIN_TYPES = frozenset(
    {
        "int",
        "float",
        "str",
        "bool",
        "complex",
        "bytes",
        "Path",
        "pathlib.Path",
        "os.path.expanduser",
        "str.lower",
        "str.upper",
        "str.strip",
    }
)


class Flag(NamedTuple):
    token: str
    dest: str
    line: int
    attrs: tuple[tuple[str, str], ...]


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    out: list[Fact] = []
    # A rule may name wrappers that declare flags too, e.g. miles' `reset_arg(parser, "--load", ...)`.
    names = frozenset(source.calls) or DECLARING_CALLS
    if not any(is_add_argument(node, names) for node in walk.nodes(tree)):
        # No declaring call, so no helper forwarding to one (most modules); a builder of another
        # module may still be handed one of its dataclasses.
        return built_fields.references(tree, source.id, path)
    module = Module(tree)
    commands = subparsers.subcommands(tree)
    # pytest's `add_option_ini("--log-format", ...)`, forwarding to `group.addoption` (forwarding.py)
    helpers: dict[str, forwarding.Helper | forwarding.OptionClass] = {
        **forwarding.helpers(tree, names),
        **forwarding.option_classes(tree, names),
    }
    for call, lookup in add_argument_calls(tree, names=names | helpers.keys()):
        found = commands.get(id(call))
        helper = helpers.get(_called(call) or "")
        declared = forwarding.expand(call, helper) if helper is not None else call
        if declared is None:
            continue  # a helper's call whose arguments do not bind
        where = ",".join(sorted(" ".join(p) for p in found)) if found else None
        out.extend(call_facts(declared, source.id, path, lookup, module, where))
    marks: dict[str, str] = {}
    if _no_abbreviations(tree):
        marks["abbrev"] = "off"
    takes = flag_families.patterns(tree)
    if takes:
        marks["takes"] = " ".join(takes)
    if marks:
        out = [replace(f, attrs=_sorted({**dict(f.attrs), **marks})) if f.kind == "flag" else f for f in out]
    # A dataclass of this module handed to a builder of another (built_fields.py): resolved by
    # `gather`, which reads the other module.
    out.extend(built_fields.references(tree, source.id, path))
    return out


def _no_abbreviations(tree: ast.Module) -> bool:
    """Does the module make its parser with `allow_abbrev=False`? Then `--trust-remote` is no
    `--trust-remote-code` (bot/core/check/undeclared_spellings.py)."""
    for node in walk.nodes(tree):
        if isinstance(node, ast.Call) and _called(node) == "ArgumentParser":
            for k in node.keywords:
                if k.arg == "allow_abbrev" and isinstance(k.value, ast.Constant) and k.value.value is False:
                    return True
    return False


def call_facts(
    call: ast.Call,
    source_id: str,
    path: str,
    lookup: Lookup,
    module: Module = NO_MODULE,
    subcommand: str | None = None,
) -> list[Fact]:
    """Facts of one add_argument call; `lookup` resolves variables in option strings, dest,
    defaults and choices; `subcommand` is the one its parser belongs to, if any."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    out = []
    seen: set[tuple[str, str]] = set()
    for variant in option_variants.lookups(call, lookup):
        for f in flags(option_strings(call, variant), keywords, variant, module=module):
            if (f.token, f.dest) in seen:
                continue
            seen.add((f.token, f.dest))
            attrs = f.attrs if subcommand is None else _sorted({**dict(f.attrs), "subcommand": subcommand})
            out.append(
                Fact(
                    kind="flag",
                    token=f.token,
                    key=f.dest,
                    source=source_id,
                    path=path,
                    line=f.line,
                    attrs=attrs,
                )
            )
    return out


DECLARING_CALLS = frozenset({"add_argument"})


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def is_add_argument(node: ast.AST, names: frozenset[str] = DECLARING_CALLS) -> TypeGuard[ast.Call]:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name in names


def option_strings(call: ast.Call, lookup: Lookup) -> list[tuple[str, int]]:
    """The call's option strings (those starting with "-") with the line each is written on."""
    out = []
    for arg in call.args:
        value = string_value(arg, lookup)
        if value is not None and value.startswith("-"):
            out.append((value, arg.lineno))
    return out


def flags(
    options: list[tuple[str, int]],
    keywords: dict[str, ast.expr],
    literals: Lookup,
    values: Lookup | None = None,
    module: Module = NO_MODULE,
) -> list[Flag]:
    """What argparse makes of one add_argument call, given its option strings and keywords.

    `literals` resolves the names in `dest`, `default`, `choices` and `const`; `values` gives the
    final text of `default`, `type`, `action` and `help` when it knows it (a dataclass field's
    default); `type`, `action` and `help` are otherwise quoted as written.
    """
    values = values or _nothing
    if not options:
        return []
    attrs: dict[str, str] = {}
    unknown: list[str] = []
    if "default" in keywords:
        default = default_text(keywords["default"], literals, values, module)
        if default is None:
            unknown.append("default")
        else:
            attrs["default"] = default
    if "choices" in keywords:
        choices = choices_text(keywords["choices"], literals, module)
    elif (
        "type" in keywords
        and values(keywords["type"]) is None
        and dotted(keywords["type"]) not in PLAIN_TYPES
    ):
        # A callable written in the call (not a dataclass field's type): it may check the choices.
        choices = validator_choices(keywords["type"], literals, module)
    else:
        choices = ""
    if choices is None:
        unknown.append("choices")
    elif choices or "choices" in keywords:
        attrs["choices"] = choices
    if "type" in keywords:
        attrs["type"] = text(keywords["type"], values)
    if "help" in keywords:
        attrs["help"] = text(keywords["help"], values)
    metavar = keywords.get("metavar")
    if isinstance(metavar, ast.Constant) and isinstance(metavar.value, str):
        attrs["metavar"] = metavar.value  # `--tb=style` in a help listing names no choice
    if "nargs" in keywords:
        attrs["nargs"] = text(keywords["nargs"], values)
    action = text(keywords["action"], values) if "action" in keywords else None
    if action is not None:
        attrs["action"] = action
    if "const" in keywords:
        const = value(keywords["const"], literals, module)
        if const is not UNKNOWN:
            attrs["const"] = as_text(const)
        if attrs.get("nargs") == "?" and action is None and isinstance(const, bool):
            # `--flag` alone sets the const; absent, the attribute is None, which reads as off.
            attrs["sets"] = "true" if const else "false"
            if attrs.get("default", "None") == "None" and "default" not in unknown:
                attrs["default"] = repr(not const)
    if unknown:
        attrs["unknown"] = " ".join(unknown)

    dest = keywords.get("dest")
    dest_text = string_value(dest, literals) if dest is not None else None
    key = dest_text or derived_dest([o for o, _ in options])

    out: list[Flag] = []
    if action in BOOLEAN_OPTIONAL:
        for option, line in options:
            out.append(Flag(option, key, line, _sorted({**attrs, "sets": "true"})))
            if option.startswith("--"):
                out.append(Flag("--no-" + option[2:], key, line, _sorted({**attrs, "sets": "false"})))
        return out
    if action == "store_true":
        if "default" not in unknown:
            attrs.setdefault("default", "False")
        attrs["sets"] = "true"
    elif action == "store_false":
        if "default" not in unknown:
            attrs.setdefault("default", "True")
        attrs["sets"] = "false"
    return [Flag(option, key, line, _sorted(attrs)) for option, line in options]


def derived_dest(options: list[str]) -> str:
    """argparse's rule: the first long option, else the first short one, dashes to underscores."""
    longs = [o for o in options if o.startswith("--") and len(o) > 2]
    chosen = longs[0] if longs else options[0]
    return chosen.lstrip("-").replace("-", "_")


def text(node: ast.expr, lookup: Lookup) -> str:
    """An argument as a doc would quote it: strings unquoted, other constants by repr, else source."""
    found = lookup(node)
    if isinstance(found, str):
        return found
    if found is not None:
        node = found
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else repr(node.value)
    return ast.unparse(node)


def default_text(node: ast.expr, literals: Lookup, values: Lookup, module: Module = NO_MODULE) -> str | None:
    """The default as a doc would quote it; None when the file does not say what it is."""
    found = values(node)
    if isinstance(found, str):
        return found
    if dotted(node) in SUPPRESS:
        return None
    result = value(node, literals, module)
    return None if result is UNKNOWN else as_text(result)


def choices_text(node: ast.expr, lookup: Lookup, module: Module = NO_MODULE) -> str | None:
    """The choices, comma-separated, in the order written; None when the file does not say them."""
    found = lookup(node)
    if isinstance(found, str):
        return found
    items = members(value(node, lookup, module))
    if items is None:
        return None
    resolved = found if found is not None else node
    if isinstance(resolved, ast.Set):
        # A set literal: the order it is written in, not Python's.
        written = [value(e, lookup, module) for e in resolved.elts]
        items = [as_text(v) for v in dict.fromkeys(written)]
    return ",".join(items)


def validator_choices(node: ast.expr, lookup: Lookup, module: Module) -> str | None:
    """Choices a `type=` function of this module checks (`if value not in MODES: raise ...`);
    None when it checks none that the file spells out."""
    fn = module.functions.get(node.id) if isinstance(node, ast.Name) else None
    if fn is None or not fn.args.args:
        return None
    param = fn.args.args[0].arg
    for test in walk.every(fn):
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == param
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.In | ast.NotIn)
        ):
            return choices_text(test.comparators[0], lookup, module)
    return None


def string_value(node: ast.expr, lookup: Lookup) -> str | None:
    """The string an option string or dest is: a literal, a name holding one, an f-string or a
    concatenation of those (`f"--{prefix}.lr"` in a loop over prefixes)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    found = lookup(node)
    if isinstance(found, str):
        return found  # what the caller knows the expression to be (a dataclass field's name)
    result = value(node, lookup)
    return result if isinstance(result, str) else None


def _sorted(attrs: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(attrs.items()))


def _nothing(node: ast.expr) -> None:
    return None


# --- scopes: which names hold a literal ----------------------------------------------------------

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# The nodes whose bodies are scopes: a module and the _SCOPES.
ScopeNode = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
_OWN_SCOPE = (*_SCOPES, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_AMBIGUOUS = object()


class Scope:
    """Names bound in one function, class or module body; computed only when a lookup needs it.

    A name assigned exactly once (and bound no other way) stands for the expression assigned."""

    def __init__(self, node: ScopeNode, parent: Scope | None):
        self.node = node
        self.parent = parent
        self._bound: dict[str, object] | None = None

    def _bindings(self) -> dict[str, object]:
        if self._bound is None:
            bound: dict[str, object] = {}
            node = self.node
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                a = node.args
                for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                    if arg is not None:
                        bound[arg.arg] = _AMBIGUOUS
            body: list[ast.stmt] | list[ast.expr] = node.body if isinstance(node.body, list) else [node.body]
            for stmt in body:
                _collect_bindings(stmt, bound)
            self._bound = bound
        return self._bound

    def resolve(self, name: str) -> ast.expr | None:
        scope: Scope | None = self
        while scope is not None:
            bound = scope._bindings()
            if name in bound:
                value = bound[name]
                return value if isinstance(value, ast.expr) else None
            scope = scope.parent
        return None

    def lookup(self, node: ast.expr) -> ast.expr | None:
        """The expression a name was assigned, when it was assigned exactly once."""
        return self.resolve(node.id) if isinstance(node, ast.Name) else None

    def literal(self, node: ast.expr) -> ast.expr | None:
        """The same, only when that expression is a literal."""
        found = self.lookup(node)
        return found if found is not None and _is_literal(found) else None


def _collect_bindings(node: ast.AST, bound: dict[str, object]) -> None:
    assigned: tuple[ast.expr, ast.expr] | None = None  # (target, value)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        assigned = (node.targets[0], node.value)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        assigned = (node.target, node.value)
    if assigned is not None and isinstance(assigned[0], ast.Name):
        target, value = assigned[0], assigned[1]
        bound[target.id] = value if target.id not in bound else _AMBIGUOUS
        _collect_bindings(value, bound)
        return
    if isinstance(node, ast.ExceptHandler) and node.name:
        bound[node.name] = _AMBIGUOUS
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        bound[node.name] = _AMBIGUOUS
        for d in node.decorator_list:
            _collect_bindings(d, bound)
        return
    if isinstance(node, _OWN_SCOPE):
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        bound[node.id] = _AMBIGUOUS
        return
    if isinstance(node, ast.alias):
        bound[(node.asname or node.name).split(".")[0]] = _AMBIGUOUS
        return
    for child in walk.children(node):
        _collect_bindings(child, bound)


def _is_literal(node: ast.expr) -> TypeGuard[ast.Constant | ast.List | ast.Tuple | ast.Set]:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    return False


def add_argument_calls(
    tree: ScopeNode, scope: Scope | None = None, names: frozenset[str] = DECLARING_CALLS
) -> Iterator[tuple[ast.Call, Lookup]]:
    """Every add_argument call under `tree`, with a lookup for the names visible where it is.

    A call in a loop over values the file spells out (`for prefix in ("actor", "critic"):`) is
    yielded once per value, its lookup knowing the loop variable's value."""
    at: list[int] | None = None  # the lines of the module's declaring calls, when walking a module
    if scope is None:
        scope = Scope(tree, None)
        if isinstance(tree, ast.Module):
            at = sorted(n.lineno for n in walk.nodes(tree) if is_add_argument(n, names))
    stack: list[tuple[ast.AST, Scope, dict[str, Scalar]]] = [(tree, scope, {})]
    while stack:
        node, scope, env = stack.pop()
        for child in walk.children(node):
            if at is not None and not _spans_a_call(child, at):
                continue  # most of a module declares nothing: its loops and scopes are not followed
            inner, inner_env = scope, env
            if isinstance(child, _SCOPES):
                # Names bound in a class body are not visible from scopes nested in it.
                parent: Scope | None = scope
                while parent is not None and isinstance(parent.node, ast.ClassDef):
                    parent = parent.parent
                inner, inner_env = Scope(child, parent), {}
            if is_add_argument(child, names):
                yield child, _with_env(inner, inner_env)
            rounds = _loop_rounds(child, _with_env(inner, inner_env)) if isinstance(child, ast.For) else None
            if rounds is None:
                stack.append((child, inner, inner_env))
                continue
            assert isinstance(child, ast.For)
            for bound in reversed(rounds):
                stack.append((ast.Module(body=child.body, type_ignores=[]), inner, {**inner_env, **bound}))
            stack.append((ast.Module(body=child.orelse, type_ignores=[]), inner, inner_env))


def _spans_a_call(node: ast.AST, lines: list[int]) -> bool:
    """Does a declaring call start within the node's lines (or has it no lines of its own)?"""
    start = getattr(node, "lineno", None)
    if start is None:
        return True
    # A decorated definition's line is its `def`'s; its decorators (`@Option("--x")`) are above.
    start = min([start, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    i = bisect.bisect_left(lines, start)
    return i < len(lines) and lines[i] <= (getattr(node, "end_lineno", None) or start)


_MAX_ROUNDS = 64


def _loop_rounds(loop: ast.For, lookup: Lookup) -> list[dict[str, Scalar]] | None:
    """The loop variable's values, one dict per round; None when the file does not spell them out."""
    items = value(loop.iter, lookup)
    if not isinstance(items, list | tuple) or not items or len(items) > _MAX_ROUNDS:
        return None
    target = loop.target
    rounds: list[dict[str, Scalar]] = []
    for item in items:
        if isinstance(target, ast.Name) and isinstance(item, str | int | float | bool):
            rounds.append({target.id: item})
        elif (
            isinstance(target, ast.Tuple)
            and all(isinstance(e, ast.Name) for e in target.elts)
            and isinstance(item, list | tuple)
            and len(item) == len(target.elts)
            and all(isinstance(i, str | int | float | bool) for i in item)
        ):
            rounds.append(
                {e.id: i for e, i in zip(target.elts, item, strict=True) if isinstance(e, ast.Name)}
            )
        else:
            return None
    return rounds


def _with_env(scope: Scope, env: dict[str, Scalar]) -> Lookup:
    if not env:
        return scope.lookup

    def lookup(node: ast.expr) -> ast.expr | None:
        if isinstance(node, ast.Name) and node.id in env:
            return ast.Constant(env[node.id])
        return scope.lookup(node)

    return lookup
