"""Flags declared with argparse: every `<anything>.add_argument(...)` call in a module, read as
argparse reads it.

Each option string becomes one Fact; `BooleanOptionalAction` adds the `--no-` twin argparse
synthesizes. Option strings held in variables are resolved when the variable is assigned exactly
once, to a string, in an enclosing scope; anything else is skipped quietly. Defaults and choices
are what the file says they are (bot/core/extract/constants.py: literals, names assigned once,
arithmetic, Enum members of the module); what it does not say is listed in the attribute
`unknown` and left out, never replaced by its source text:

- `default=argparse.SUPPRESS` leaves the attribute unset: the program decides, not the parser.
- `help=argparse.SUPPRESS` hides the flag from `--help` (attribute `hidden`): it is still a flag.
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
from typing import Any, TypeGuard

from bot.core.extract import (
    argv_flags,
    built_fields,
    flag_families,
    forwarding,
    global_overrides,
    handed_parsers,
    imported_rounds,
    option_records,
    option_specs,
    option_variants,
    subparsers,
    walk,
)
from bot.core.extract.argparse_calls import flags, sorted_attrs, string_value
from bot.core.extract.constants import MISSING, NO_MODULE, UNKNOWN, Lookup, Module, literal_entry, value
from bot.core.extract.option_aliases import CONFIGARGPARSE_ALIASES, declares_by_alias, imports_configargparse
from bot.core.extract.scopes import SCOPES, Scope, ScopeNode
from bot.core.model import Fact
from bot.core.rules import Source

Scalar = str | int | float | bool  # what a loop variable may hold for its calls to be read
# ...or one dict literal of a list of them (`for arg in arguments:`, each `{"name": "model", ...}`)
Bound = Scalar | ast.Dict


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    out: list[Fact] = []
    # A rule may name wrappers that declare flags too, e.g. miles' `reset_arg(parser, "--load", ...)`.
    names = frozenset(source.calls) or DECLARING_CALLS
    if imports_configargparse(tree):  # its `add` and `add_arg` (option_aliases.py)
        names |= CONFIGARGPARSE_ALIASES
    if not any(is_add_argument(node, names) for node in walk.nodes(tree)):
        # No declaring call, so no helper forwarding to one (most modules); a builder of another
        # module may still be handed one of its dataclasses, a script's settings may be
        # overridden from its command line (global_overrides.py), and the words may be read by
        # hand (`if argv[0] in ["--version", "-V"]` before the subcommands' parser sees them).
        return [
            *built_fields.references(tree, source.id, path),
            *global_overrides.facts(tree, source.id, path),
            *argv_flags.facts(tree, source.id, path),
            # `_option_set.Option("sessions", "-s", ...)`: records another module's parser makes
            *option_records.references(tree, source.id, path, frozenset()),
        ]
    module = Module(tree)
    commands, handed = subparsers.places(tree)
    # pytest's `add_option_ini("--log-format", ...)`, forwarding to `group.addoption` (forwarding.py)
    helpers: dict[str, forwarding.Helper | forwarding.RunHelper | forwarding.OptionClass] = {
        **forwarding.helpers(tree, names),
        **forwarding.option_classes(tree, names),
    }
    # nox's `Option("sessions", "-s", "--sessions", ...)`, its parser made from the records later
    records = {k: v for k, v in option_records.records(tree, names).items() if k not in helpers}
    for call, lookup in add_argument_calls(tree, names=names | helpers.keys() | records.keys()):
        found = commands.get(id(call))
        helper = helpers.get(_called(call) or "")
        record = records.get(_called(call) or "")
        # a helper's call whose arguments do not bind declares nothing
        if record is not None:
            declared = option_records.expand(call, record)
        else:
            declared = forwarding.expand(call, helper, lookup) if helper is not None else [call]
        where = ",".join(sorted(" ".join(p) for p in found)) if found else None
        for each in declared:
            out.extend(call_facts(each, source.id, path, lookup, module, where))
    spans = option_specs.open_loops(tree)
    if spans:
        # A loop over specs partly made elsewhere (`get_field_info(Params) + [...]`, one per
        # field of a model): its parser takes flags no file lists, so a cited one is no stale one.
        out = [
            replace(f, attrs=sorted_attrs({**dict(f.attrs), "open": "true"}))
            if f.kind == "flag" and any(a <= f.line <= b for a, b in spans)
            else f
            for f in out
        ]
    marks: dict[str, str] = {}
    if _no_abbreviations(tree):
        marks["abbrev"] = "off"
    takes = flag_families.patterns(tree)
    if takes:
        marks["takes"] = " ".join(takes)
    if _configargparse(tree):
        marks["configfile"] = "true"  # its long options are keys of a config file too
    if built_fields.hands_out_foreign_class(tree):
        marks["open"] = "true"  # its parser gets flags another module makes of a class of elsewhere
    if marks:
        out = [
            replace(f, attrs=sorted_attrs({**dict(f.attrs), **marks})) if f.kind == "flag" else f for f in out
        ]
    prefix = _auto_env_prefix(tree) if "configfile" in marks else None
    if prefix is not None:
        out = _auto_env(out, prefix)
    # A dataclass of this module handed to a builder of another (built_fields.py), a loop over
    # another module's constant (imported_rounds.py): resolved by `gather`, which reads the other module.
    out.extend(built_fields.references(tree, source.id, path))
    tokens = {f.token for f in out if f.kind == "flag"}
    out.extend(f for f in argv_flags.facts(tree, source.id, path) if f.token not in tokens)
    declaring = names | helpers.keys() | records.keys()
    out.extend(option_records.references(tree, source.id, path, frozenset(declaring)))
    out.extend(imported_rounds.references(tree, source.id, path, lambda n: is_add_argument(n, declaring)))
    # `Helper.tp(run_parser)`: a subparser handed to another module's helper (handed_parsers.py)
    out.extend(handed_parsers.references(tree, source.id, path, handed))
    return out


def recorded(source: Source, path: str, tree: ast.Module, foreign: option_records.Foreign) -> list[Fact]:
    """The flags of the module's calls of another module's option records (option_records.py)."""
    out: list[Fact] = []
    for call, lookup in add_argument_calls(tree, names=frozenset(foreign)):
        record = foreign.get(_called(call) or "")
        if record is not None:
            for each in option_records.expand(call, record):
                out.extend(call_facts(each, source.id, path, lookup, Module(tree)))
    return out


def _configargparse(tree: ast.Module) -> bool:
    """Does the module import configargparse? Its parsers then read a config file whose keys are
    their long options without the dashes (`expect-workers = 5` for `--expect-workers`)."""
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name == "configargparse" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "configargparse":
            return True
    return False


def _auto_env_prefix(tree: ast.Module) -> str | None:
    """The prefix of the variables configargparse names for the options (`auto_env_var_prefix`)."""
    for node in walk.nodes(tree):
        if isinstance(node, ast.Call) and (_called(node) or "").endswith(("ArgumentParser", "ArgParser")):
            for k in node.keywords:
                if k.arg == "auto_env_var_prefix" and isinstance(k.value, ast.Constant):
                    return k.value.value if isinstance(k.value.value, str) else None
    return None


def _auto_env(facts: list[Fact], prefix: str) -> list[Fact]:
    """Each option without a variable of its own reads PREFIX and its first long option's words
    (`APP_EXPECT_WORKERS` for `--expect-workers`), as configargparse names it; positionals, help
    and version options read none."""
    first: dict[tuple[str, int], str] = {}
    for f in facts:
        if f.kind == "flag" and f.token.startswith("--") and not f.token.startswith("--no-"):
            first.setdefault((f.key, f.line), f.token)
    out = []
    for f in facts:
        long = first.get((f.key, f.line))
        if f.kind != "flag" or f.attr("envvar") or long is None or f.attr("action") in _NO_ENV_ACTIONS:
            out.append(f)
            continue
        name = (prefix + long[2:]).replace("-", "_").upper()
        out.append(replace(f, attrs=sorted_attrs({**dict(f.attrs), "envvar": name})))
    return out


_NO_ENV_ACTIONS = frozenset({"help", "version"})


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
    # `help=spec["help_text"]` in a loop over dict literals: the entry as if written in the call
    read = {k.arg: _entry(k.value, lookup) for k in call.keywords if k.arg is not None}
    keywords = {k: v for k, v in read.items() if _given(k, v)}
    # `**model_kwargs["max_model_len"]`: a mapping made elsewhere may give any keyword; the
    # default and the action it does not say here are unknown (a BooleanOptionalAction among them).
    unsaid = [k for k in ("default", "action") if k not in keywords] if _splats(call) else []
    out = []
    seen: set[tuple[str, str]] = set()
    spellings = [
        flags(option_strings(call, variant), keywords, variant, module=module)
        for variant in option_variants.lookups(call, lookup)
    ]
    # Spellings a caller chooses (`--policy`, `--router-policy`): a parser built has one of them.
    chosen = len({tuple(f.token for f in found) for found in spellings}) > 1
    for found in spellings:
        for f in found:
            if (f.token, f.dest) in seen:
                continue
            seen.add((f.token, f.dest))
            attrs = f.attrs
            if chosen:
                attrs = sorted_attrs({**dict(attrs), "variant": "true"})
            if unsaid:
                known = dict(attrs)
                unknown = [*(known.get("unknown") or "").split(), *unsaid]
                attrs = sorted_attrs({**known, "unknown": " ".join(dict.fromkeys(unknown))})
            if subcommand is not None:
                attrs = sorted_attrs({**dict(attrs), "subcommand": subcommand})
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


def _splats(call: ast.Call) -> bool:
    """Does the call pass a mapping's items as keywords (`**kwargs`)?"""
    return any(k.arg is None for k in call.keywords)


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def is_add_argument(node: ast.AST, names: frozenset[str] = DECLARING_CALLS) -> TypeGuard[ast.Call]:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name in CONFIGARGPARSE_ALIASES and name in names:
        return declares_by_alias(node)
    return name in names


def _entry(node: ast.expr, lookup: Lookup) -> ast.expr:
    """`node`, or the dict literal's entry it reads, itself or through a name bound to the read
    (`action = spec.get("action", "store_true")`): its `.get` default, or None's constant."""
    read = lookup(node) if isinstance(node, ast.Name) else node
    if not isinstance(read, ast.Subscript | ast.Call):
        return node
    entry = literal_entry(read, lookup)
    return node if entry is None else ast.Constant(None) if entry is MISSING else entry


# Keywords argparse takes None for as not given (`choices=spec.get("choices")` on a spec without).
_NONE_IS_UNSAID = frozenset({"choices", "nargs", "type", "metavar", "const", "action"})


def _given(name: str, node: ast.expr) -> bool:
    return not (name in _NONE_IS_UNSAID and isinstance(node, ast.Constant) and node.value is None)


def option_strings(call: ast.Call, lookup: Lookup) -> list[tuple[str, int]]:
    """The call's option strings (those starting with "-") with the line each is written on."""
    out: list[tuple[str, int]] = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):  # `*flags`, a list the file spells out
            items = value(arg.value, lookup)
            if isinstance(items, list | tuple):
                out.extend((i, arg.lineno) for i in items if isinstance(i, str) and i.startswith("-"))
            continue
        text = string_value(arg, lookup)
        if text is not None and text.startswith("-"):
            out.append((text, arg.lineno))
    return out


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
    stack: list[tuple[ast.AST, Scope, dict[str, Bound]]] = [(tree, scope, {})]
    while stack:
        node, scope, env = stack.pop()
        for child in walk.children(node):
            if at is not None and not _spans_a_call(child, at):
                continue  # most of a module declares nothing: its loops and scopes are not followed
            inner, inner_env = scope, env
            if isinstance(child, SCOPES):
                # Names bound in a class body are not visible from scopes nested in it.
                parent: Scope | None = scope
                while parent is not None and isinstance(parent.node, ast.ClassDef):
                    parent = parent.parent
                inner, inner_env = Scope(child, parent), {}
            if is_add_argument(child, names):
                yield child, _with_env(inner, inner_env)
            if isinstance(child, ast.If) and inner_env:
                # A round's own test (`if report_type not in {"memory-xml"}:`) decides its branch.
                test = value(child.test, _with_env(inner, inner_env))
                if test is not UNKNOWN:
                    stack.append(
                        (
                            ast.Module(body=child.body if test else child.orelse, type_ignores=[]),
                            inner,
                            inner_env,
                        )
                    )
                    continue
            rounds = (
                _loop_rounds(child, _with_env(inner, inner_env), inner.node)
                if isinstance(child, ast.For)
                else None
            )
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


def _loop_rounds(
    loop: ast.For, lookup: Lookup, owner: ast.AST | None = None
) -> list[dict[str, Bound]] | None:
    """The loop variable's values, one dict per round; None when the file does not spell them out.
    `owner` is the function (or module) whose body holds the loop."""
    items = value(loop.iter, lookup)
    if items is UNKNOWN:
        # The body's steps first: a list assigned once and then extended (`arg_list.extend(...)`)
        # holds more than its literal; a name the body does not build falls back to its binding.
        specs = None
        if isinstance(loop.iter, ast.Name) and owner is not None:
            specs = option_specs.accumulated(loop.iter.id, loop, owner)
        if specs is None:
            specs = option_specs.listed(loop.iter, lookup)
        if specs is not None and isinstance(loop.target, ast.Name):
            # A list of dict literals, one per option (`{"name": "model", "nickname": "m", ...}`):
            # each round reads its entries (constants.literal_entry), whatever else they hold.
            return [{loop.target.id: spec} for spec in specs]
        items = _keys(loop.iter, lookup)
    if isinstance(items, dict):
        items = list(items)  # a dict is iterated by its keys (sphinx-quickstart's EXTENSIONS)
    if not isinstance(items, list | tuple) or not items or len(items) > option_specs.MAX_ROUNDS:
        return None
    target = loop.target
    rounds: list[dict[str, Bound]] = []
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


def _keys(node: ast.expr, lookup: Lookup) -> list[Any] | None:
    """The keys of a dict literal the loop iterates, when only its values are unknown
    (`{'autodoc': __('automatically insert docstrings'), ...}`: translated help texts)."""
    held = lookup(node) if isinstance(node, ast.Name) else node
    if not isinstance(held, ast.Dict) or None in held.keys:
        return None
    keys = [value(k, lookup) for k in held.keys if k is not None]
    return keys if all(isinstance(k, str | int) for k in keys) else None


def _with_env(scope: Scope, env: dict[str, Bound]) -> Lookup:
    if not env:
        return scope.lookup

    def lookup(node: ast.expr) -> ast.expr | None:
        if isinstance(node, ast.Name) and node.id in env:
            bound = env[node.id]
            return bound if isinstance(bound, ast.Dict) else ast.Constant(bound)
        return scope.lookup(node)

    return lookup
