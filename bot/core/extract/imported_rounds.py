"""Loops over a constant another module defines, a flag declared each round: mypy's
`for report_type in sorted(defaults.REPORTER_NAMES):` adding `f"--{report_type.replace('_', '-')}-report"`,
`REPORTER_NAMES` a list in mypy/defaults.py (`from mypy import defaults`). Resolved by `gather`
(bot/core/extract/imported_values.py).

Extraction reads one file, so the parser's module says only which loop reads which imported name
(a fact of kind `imported-rounds`: token the name as the loop writes it, key the module and the
name it is defined as, line the loop's). `gather` reads the name where it is defined (a literal,
or names assigned once to literals: bot/core/extract/constants.py), writes its value into the
loop and reads the loop's declaring calls again, as argparse_flags reads a loop over values the
file spells out. A name that module does not spell out declares nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final

from bot.core.extract import walk
from bot.core.extract.constants import dotted
from bot.core.model import Fact

IMPORTED: Final = "imported-rounds"
MAX_LOOPS = 32  # loops of one module resolved; the rest are not followed


def references(
    tree: ast.Module, source_id: str, path: str, declares: Callable[[ast.AST], bool]
) -> list[Fact]:
    """A fact per loop of the module whose iterable names a module-level import and whose body
    makes a declaring call (`declares`)."""
    imported = _imports(tree)
    if not imported:
        return []
    out: list[Fact] = []
    for loop in walk.nodes(tree):
        if not isinstance(loop, ast.For) or len(out) >= MAX_LOOPS:
            continue
        names = [n for n in walk.every(loop.iter) if isinstance(n, ast.Name | ast.Attribute)]
        for node in names:
            written = dotted(node)
            where = defined(written, imported) if written else None
            if where is not None and any(declares(n) for stmt in loop.body for n in walk.every(stmt)):
                out.append(
                    Fact(
                        kind=IMPORTED,
                        token=written or "",
                        key=where,
                        source=source_id,
                        path=path,
                        line=loop.lineno,
                    )
                )
                break
    return out


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted module or module.attribute it is bound to at module level."""
    out: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for alias in stmt.names:
                out[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    out[alias.asname] = alias.name
    return out


def defined(written: str, imported: dict[str, str]) -> str | None:
    """`defaults.REPORTER_NAMES` with `from mypy import defaults` -> `mypy.defaults:REPORTER_NAMES`;
    `NAMES` with `from mypy.defaults import NAMES` -> `mypy.defaults:NAMES`."""
    head, _, rest = written.partition(".")
    if head not in imported:
        return None
    full = imported[head] + ("." + rest if rest else "")
    module, _, name = full.rpartition(".")
    return f"{module}:{name}" if module and name else None
