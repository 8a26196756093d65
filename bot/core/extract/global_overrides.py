"""Flags a script takes as overrides of its own settings, with no parser: nanoGPT's configurator.

    batch_size = 12
    compile = True
    exec(open('configurator.py').read())  # overrides from command line or config file

The file it runs in its own globals reads `--batch_size=32` from the command line and sets that
setting (an unknown name is an error there). So each name the script's top level binds before
that statement, to a value a command line can give (a number, a string, a bool), is a flag
`--<name>` of the script, its default the value written there. The file run is one named for
configuring (`configurator.py`, `config.py`): `exec(open('pkg/version.py').read())` in a
setup.py reads no command line.
"""

from __future__ import annotations

import ast

from bot.core.extract import walk
from bot.core.model import Fact

MAX_FLAGS = 300


def overrides_at(tree: ast.Module) -> int | None:
    """The index in the module's body of its statement running a configuring file, if any."""
    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Expr) and is_override_call(stmt.value):
            return i
    return None


def is_override_call(node: ast.AST) -> bool:
    """`exec(open(<a configuring file>).read())`."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "exec"
        and len(node.args) == 1
    ):
        return False
    read = node.args[0]
    if not (
        isinstance(read, ast.Call)
        and isinstance(read.func, ast.Attribute)
        and read.func.attr == "read"
        and isinstance(read.func.value, ast.Call)
        and isinstance(read.func.value.func, ast.Name)
        and read.func.value.func.id == "open"
        and read.func.value.args
    ):
        return False
    named = [
        n.value
        for n in ast.walk(read.func.value.args[0])
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    return bool(named) and "config" in named[-1].rpartition("/")[2].lower() and named[-1].endswith(".py")


def facts(tree: ast.Module, source_id: str, path: str) -> list[Fact]:
    at = overrides_at(tree)
    if at is None:
        return []
    found: dict[str, Fact] = {}
    for stmt, target, value in walk.assignments(tree.body[:at]):
        if not isinstance(target, ast.Name) or target.id.startswith("_") or not _settable(value):
            continue
        attrs = _default(value)
        found[target.id] = Fact.of("flag", f"--{target.id}", target.id, source_id, path, stmt.lineno, attrs)
        if len(found) >= MAX_FLAGS:
            break
    return list(found.values())


def _settable(value: ast.expr) -> bool:
    """A value a command line can replace: a number, a string or a bool, written or computed from
    written ones (`5 * 8`, `'bfloat16' if cuda else 'float16'`)."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, int | float | str) and value.value is not None
    if isinstance(value, ast.UnaryOp | ast.BinOp | ast.IfExp | ast.BoolOp):
        leaves = [n for n in ast.walk(value) if isinstance(n, ast.Constant)]
        return bool(leaves) and all(isinstance(n.value, int | float | str | bool) for n in leaves)
    return False


def _default(value: ast.expr) -> dict[str, str]:
    if (
        isinstance(value, ast.UnaryOp)
        and isinstance(value.op, ast.USub)
        and isinstance(value.operand, ast.Constant)
    ):
        number = value.operand.value
        if isinstance(number, int | float) and not isinstance(number, bool):
            return {"default": repr(-number), "type": type(number).__name__}
    if not isinstance(value, ast.Constant):
        return {}
    v = value.value
    if isinstance(v, bool):
        return {"default": repr(v), "type": "bool"}
    if isinstance(v, int | float):
        return {"default": repr(v), "type": type(v).__name__}
    return {"default": str(v), "type": "str"}
