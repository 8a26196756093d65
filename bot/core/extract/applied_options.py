"""Options a command applies from another module of the repository: pip-tools keeps its click
options in `piptools/scripts/options.py` (`upgrade = click.option("-U", "--upgrade", ...)`) and
each command applies them by name (`from . import options`, `@options.upgrade`). The command's
flags are those options, as declared there.

Extraction reads one file, so the command's module says only which name it applies (a fact of
kind `applied-option`, token the dotted name); `gather` asks `resolve` what that name is: the
import is followed statically (bot/core/extract/imports.py), and the facts of the option the
named module assigns to that name (its shared options carry attribute `assigned`) become the
command's, with its subcommand. One import is followed, no further: a name re-exported through a
chain of modules stays unresolved, and so does one that is no option (a decorator of another
kind, which may add options no file shows: mergekit's `@add_merge_options` makes one of each
field of a model): such a reference yields no flag rather than a guess, and the command's flags
are open.
"""

from __future__ import annotations

import ast
from collections.abc import MutableMapping
from dataclasses import replace
from typing import Final

from bot.core.model import Fact, Tree

APPLIED: Final = "applied-option"
MAX_APPLIED = 2_000  # references resolved in one revision of one rule; the rest are not followed


def root(node: ast.expr) -> str | None:
    """The name a dotted decorator starts from: `options` of `options.upgrade`."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def applied_option(node: ast.expr, source_id: str, path: str, where: str | None) -> Fact:
    dotted = ast.unparse(node)
    attrs = (("subcommand", where),) if where is not None else ()
    return Fact(
        kind=APPLIED, token=dotted, key=dotted, source=source_id, path=path, line=node.lineno, attrs=attrs
    )


class Resolver:
    """Resolves applied names in one revision: each module's summary and extraction are the
    caller's (cached by blob id), each reference is followed once."""

    def __init__(self, tree: Tree, cache: MutableMapping[str, object] | None):
        from bot.core.extract.imports import Modules

        self.modules = Modules(tree, cache)
        self.resolved = 0

    def target(self, ref: Fact) -> tuple[str, str] | None:
        """(module path, name) the reference names, when it leads out of its module."""
        if self.resolved >= MAX_APPLIED:
            return None
        self.resolved += 1
        summary = self.modules.summary(ref.path)
        head = ref.token.split(".")[0]
        if summary is None or head not in summary.imports:
            return None
        found = self.modules._follow(ref.path, summary, ref.token)
        return found[0] if found and found[0][0] != ref.path else None

    def is_function(self, target: tuple[str, str]) -> bool:
        """Is the name a function its module defines (a decorator of its own, not an option)?"""
        summary = self.modules.summary(target[0])
        return summary is not None and target[1] in summary.units


def as_command_flags(options: list[Fact], ref: Fact) -> list[Fact]:
    """The named option's flags as the applying command's: its subcommand, no `assigned`."""
    out = []
    for fact in options:
        attrs = {k: v for k, v in fact.attrs if k not in ("assigned", "subcommand")}
        if (where := ref.attr("subcommand")) is not None:
            attrs["subcommand"] = where
        out.append(replace(fact, attrs=tuple(sorted(attrs.items()))))
    return out
