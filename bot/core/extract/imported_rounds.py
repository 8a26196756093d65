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
    out.extend(_called_specs(tree, imported, source_id, path, declares, MAX_LOOPS - len(out)))
    return out


def _called_specs(
    tree: ast.Module,
    imported: dict[str, str],
    source_id: str,
    path: str,
    declares: Callable[[ast.AST], bool],
    room: int,
) -> list[Fact]:
    """A loop over a list of option specs that a function of the module builds up before it,
    a part made by another module's function (`arg_list = common_args() + arg_list`, AutoTrain's
    flags every subcommand shares): a reference with token `common_args()`, resolved by reading
    the list literal that function returns (imported_values.py)."""
    out: list[Fact] = []
    for func in walk.nodes(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for i, loop in enumerate(func.body):
            if len(out) >= room:
                return out
            if not isinstance(loop, ast.For) or not isinstance(loop.iter, ast.Name):
                continue
            if not any(declares(n) for stmt in loop.body for n in walk.every(stmt)):
                continue
            for stmt in func.body[:i]:
                if not _binds(stmt, loop.iter.id):
                    continue
                for call in walk.every(stmt):
                    if not isinstance(call, ast.Call) or call.args or call.keywords:
                        continue
                    written = dotted(call.func)
                    where = defined(written, imported) if written else None
                    if where is not None:
                        out.append(Fact(IMPORTED, f"{written}()", where, source_id, path, loop.lineno))
    return out


def _binds(stmt: ast.stmt, name: str) -> bool:
    """`name = ...`, `name += ...` or `name.extend(...)`."""
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == name
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "extend"
        and isinstance(stmt.value.func.value, ast.Name)
        and stmt.value.func.value.id == name
    )


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
