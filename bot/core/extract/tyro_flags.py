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

from bot.core.extract.nested_flags import Root, Style, call_targets
from bot.core.extract.nested_flags import facts as nested_facts
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
    """What the module hands to `tyro.cli(...)` (a class or a function it defines), and the
    functions of `subcommand_cli_from_dict({...})`."""
    out: list[Root] = []
    for call in call_targets(tree, _CLI_CALLS):
        first = call.args[0] if call.args else None
        if isinstance(first, ast.Name):
            out.append(Root("", first.id))
        elif isinstance(first, ast.Dict):
            out += [Root("", v.id) for v in first.values if isinstance(v, ast.Name)]
    return out
