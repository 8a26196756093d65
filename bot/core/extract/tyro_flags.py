"""Flags that tyro makes of dataclasses and function signatures (`tyro.cli(Config)`), read as
tyro documents them: a field or parameter `learning_rate` is `--learning-rate` (underscores kept
with `use_underscores=True`, or a rule's `convention: {separator: "_"}`); a field whose type is a
dataclass is a group, `--optimizer.learning-rate`, its defaults those of the field's default
(`OptimizerConfig(lr=1e-3)`) where it gives them; a bool with a default is the pair `--flag` /
`--no-flag` (`--optimizer.no-flag` in a group), one without takes `True` or `False`;
`Literal[...]` offers its values and an Enum its member names; `tyro.conf.arg(name=...,
aliases=...)` renames and adds; `Suppress`, `Fixed` and `Positional` parameters are no flags.

The roots are the rule's `names` (`Config`, or `prefix=Config` for a class nested under a group
of a class in another file), else what the file passes to `tyro.cli(...)`.
"""

from __future__ import annotations

import ast
import re

from bot.core.extract.nested_flags import Root, Style, call_targets
from bot.core.extract.nested_flags import facts as nested_facts
from bot.core.extract.typed_fields import last, union_members
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
    style = Style(separator="_" if underscores else "-", bool_pair=True, dataclass_fields=True)
    return nested_facts(source, path, tree, style, cli_roots)


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
            out += _subcommands(_unwrapped(assigned[first.id]))
        elif isinstance(first, ast.Name):
            out.append(Root("", first.id))
        elif first is not None:
            out += _subcommands(first)
    return out


def _unwrapped(node: ast.expr) -> ast.expr:
    """`tyro.conf.FlagConversionOff[X]` and other markers around a type: X."""
    while isinstance(node, ast.Subscript) and (last(node.value) or "") in MARKERS:
        node = node.slice
    return node


MARKERS = frozenset(
    {"FlagConversionOff", "OmitSubcommandPrefixes", "ConsolidateSubcommandArgs", "AvoidSubcommands"}
)


def _subcommands(node: ast.expr) -> list[Root]:
    """The members of a union of classes, each a subcommand: its `tyro.conf.subcommand(name)`, or
    the class's name in kebab case, as tyro names it."""
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
