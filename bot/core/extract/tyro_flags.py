"""Flags that tyro makes of dataclasses and function signatures (`tyro.cli(Config)`), read as
tyro documents them: a field or parameter `learning_rate` is `--learning-rate` (underscores kept
with `use_underscores=True`, or a rule's `convention: {separator: "_"}`); a field whose type is a
dataclass is a group, `--optimizer.learning-rate`, its defaults those of the field's default
(`OptimizerConfig(lr=1e-3)`) where it gives them; a bool with a default is the pair `--flag` /
`--no-flag` (`--optimizer.no-flag` in a group), one without takes `True` or `False`;
`Literal[...]` offers its values and an Enum its member names; `tyro.conf.arg(name=...,
aliases=...)` renames and adds; `Suppress`, `Fixed` and `Positional` parameters are no flags;
under `tyro.conf.FlagConversionOff` (around what `tyro.cli` is given, in its `config=`, or on one
field) a bool takes `True` or `False` instead of being a pair.

The roots are the rule's `names` (`Config`, or `prefix=Config` for a class nested under a group
of a class in another file), else what the file passes to `tyro.cli(...)`: a class, a function,
a union of them, or `tyro.extras.subcommand_type_from_defaults(defaults=...)` of a dict of
configs (nerfstudio's `ns-train nerfacto`), each key a subcommand whose flags are its config's
class's fields with the constructor call's values as their defaults.

A call handed a type made at run time (`tyro.cli(type(config), default=config)`, `config` the
product of a config function looked up by name) parses a class no file names: the module says
so with a fact of kind `runtime-root` (`gather` makes the rule's named classes that parser's,
taking flags no file shows, and drops it).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from bot.core.extract import walk
from bot.core.extract.nested_flags import Root, Style, call_targets
from bot.core.extract.nested_flags import facts as nested_facts
from bot.core.extract.runtime_root import RUNTIME_ROOT
from bot.core.extract.typed_fields import last, module_classes, module_functions, union_members
from bot.core.model import Fact
from bot.core.rules import Source

_CLI_CALLS = frozenset(
    {"tyro.cli", "cli", "tyro.extras.subcommand_cli_from_dict", "subcommand_cli_from_dict"}
)


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    underscores = (source.convention is not None and source.convention.separator == "_") or any(
        k.arg == "use_underscores" and isinstance(k.value, ast.Constant) and k.value.value is True
        for call in call_targets(tree, _CLI_CALLS)
        for k in call.keywords
    )
    style = Style(
        separator="_" if underscores else "-",
        bool_pair=True,
        dataclass_fields=True,
        flag_conversion=not _conversion_off(tree),
        either_spelling=True,  # tyro parses `--a_b` as `--a-b` (use_underscores only changes the help)
    )
    return nested_facts(source, path, tree, style, cli_roots) + runtime_roots(tree, source.id, path)


def runtime_roots(tree: ast.Module, source_id: str, path: str) -> list[Fact]:
    """A `runtime-root` fact for each `tyro.cli(x, ...)` handed a type made at run time: `x` a
    name the module neither defines nor imports nor binds at its top (a local variable:
    `config_cls = type(loaded)`), or `type(...)` itself."""
    known = {*module_classes(tree), *module_functions(tree), *_assigned(tree), *_imported(tree)}
    out = []
    for call in call_targets(tree, _CLI_CALLS):
        first = call.args[0] if call.args else None
        made = isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "type"
        if made or (isinstance(first, ast.Name) and first.id not in known):
            out.append(Fact(RUNTIME_ROOT, "tyro.cli", "", source_id, path, call.lineno))
    return out


def _imported(tree: ast.Module) -> set[str]:
    return {
        alias.asname or alias.name.split(".")[0]
        for node in walk.nodes(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }


def _conversion_off(tree: ast.Module) -> bool:
    """Is `FlagConversionOff` around what `tyro.cli` is handed (through the module's names) or
    in its `config=`? Markers apply to everything nested below them."""
    assigned = _assigned(tree)
    for call in call_targets(tree, _CLI_CALLS):
        given = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "config")]
        seen: set[str] = set()
        while given and len(seen) < 20:
            node = given.pop()
            for n in walk.every(node):
                if isinstance(n, ast.Name | ast.Attribute) and last(n) == "FlagConversionOff":
                    return True
                if isinstance(n, ast.Name) and n.id in assigned and n.id not in seen:
                    seen.add(n.id)
                    given.append(assigned[n.id])
    return False


def _assigned(tree: ast.Module) -> dict[str, ast.expr]:
    return {
        s.targets[0].id: s.value
        for s in tree.body
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
    }


def cli_roots(tree: ast.Module) -> list[Root]:
    """What the module hands to `tyro.cli(...)`: a class or a function it defines, or a union of
    them bound to a name (`Commands = Union[Annotated[A, tyro.conf.subcommand("a")], B]`), each
    member a subcommand; and the functions of `subcommand_cli_from_dict({...})`."""
    assigned = {
        s.targets[0].id: s.value
        for s in tree.body
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
    }
    out: list[Root] = []
    for call in call_targets(tree, _CLI_CALLS):
        first = _unwrapped(call.args[0]) if call.args else None
        if isinstance(first, ast.Dict):
            for k, v in zip(first.keys, first.values, strict=True):
                if isinstance(v, ast.Name) and isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out.append(Root("", v.id, k.value))
        elif isinstance(first, ast.Name) and first.id in assigned:
            out += _subcommands(_unwrapped(assigned[first.id]), tree)
        elif isinstance(first, ast.Name):
            out.append(Root("", first.id))
        elif first is not None:
            out += _subcommands(first, tree)
    return out


def _unwrapped(node: ast.expr) -> ast.expr:
    """`tyro.conf.FlagConversionOff[X]` and other markers around a type: X."""
    while isinstance(node, ast.Subscript) and (last(node.value) or "") in MARKERS:
        node = node.slice
    return node


MARKERS = frozenset(
    {"FlagConversionOff", "OmitSubcommandPrefixes", "ConsolidateSubcommandArgs", "AvoidSubcommands"}
)


def _subcommands(node: ast.expr, tree: ast.Module) -> list[Root]:
    """The members of a union of classes, each a subcommand: its `tyro.conf.subcommand(name)`, or
    the class's name in kebab case, as tyro names it; or the keys of the dict of defaults a
    `subcommand_type_from_defaults` call is given."""
    if isinstance(node, ast.Call) and last(node.func) == "subcommand_type_from_defaults":
        given = (
            node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "defaults"), None)
        )
        return [
            Root("", made.func.id, key, made)
            for key, made in _defaults(given, tree).items()
            if isinstance(made.func, ast.Name)
        ]
    out = []
    for member in union_members(node):
        name: str | None = None
        if (
            isinstance(member, ast.Subscript)
            and last(member.value) == "Annotated"
            and isinstance(member.slice, ast.Tuple)
        ):
            cls, *extras = member.slice.elts
            for extra in extras:
                if isinstance(extra, ast.Call) and last(extra.func) == "subcommand":
                    given = (
                        extra.args[0]
                        if extra.args
                        else next((k.value for k in extra.keywords if k.arg == "name"), None)
                    )
                    if isinstance(given, ast.Constant) and isinstance(given.value, str):
                        name = given.value
            member = cls
        if isinstance(member, ast.Name):
            out.append(Root("", member.id, name or _kebab(member.id)))
    return out


def _kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name).lower()


MAX_DEFAULTS = 500  # subcommands read from one dict of defaults


def _defaults(given: ast.expr | None, tree: ast.Module) -> dict[str, ast.Call]:
    """The dict of configs a name holds at the module's end, read statement by statement: a dict
    literal, `configs["nerfacto"] = TrainerConfig(...)`, `a, b = configs, descriptions`, and a
    helper that returns the dict it is handed (`a, b = merge(a, b, *more)`: its own keys kept,
    those it adds unknown). Values that are no constructor call of a name are left out."""
    if not isinstance(given, ast.Name):
        return {}
    dicts: dict[str, dict[str, ast.Call]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            _bind([stmt.target], [stmt.value], dicts)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                key = target.slice
                held = dicts.get(target.value.id)
                if (
                    held is not None
                    and isinstance(key, ast.Constant)
                    and isinstance(key.value, str)
                    and isinstance(stmt.value, ast.Call)
                    and len(held) < MAX_DEFAULTS
                ):
                    held[key.value] = stmt.value
            elif isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple):
                _bind(target.elts, stmt.value.elts, dicts)
            elif isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Call):
                handed = [a for a in stmt.value.args if isinstance(a, ast.Name)]
                _bind(target.elts, handed, dicts)  # what a helper is handed, it returns
            else:
                _bind([target], [stmt.value], dicts)
    return dicts.get(given.id, {})


def _bind(
    targets: Sequence[ast.expr], values: Sequence[ast.expr], dicts: dict[str, dict[str, ast.Call]]
) -> None:
    for target, node in zip(targets, values, strict=False):
        if not isinstance(target, ast.Name):
            continue
        if isinstance(node, ast.Dict):
            dicts[target.id] = {
                k.value: v
                for k, v in list(zip(node.keys, node.values, strict=True))[:MAX_DEFAULTS]
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Call)
            }
        elif isinstance(node, ast.Name) and node.id in dicts:
            dicts[target.id] = dicts[node.id]
        else:
            dicts.pop(target.id, None)
