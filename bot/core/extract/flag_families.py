"""Flags a module takes by their shape rather than by name: arguments the parser left over
(`parse_known_args`) that the module then matches itself, as in

    if key.startswith("--") and key.endswith("-path"):      # --vae-path, --transformer-path
    elif key.startswith("--component-paths."):              # --component-paths.vae

Each test gives a pattern (`--*-path`, `--component-paths.*`), listed in the attribute `takes` of
the module's flags: a page citing `--vae-path` cites a flag of that command line, not an unknown
one. A bare `startswith("--")` takes every flag and says nothing; a prefix alone must end where
a family's names go on (`.` or `-`).
"""

from __future__ import annotations

import ast

from bot.core.extract import walk

_MAX = 16


def patterns(tree: ast.Module) -> tuple[str, ...]:
    """The shapes of the flags the module matches by hand, in the order they are written."""
    out: list[str] = []
    paired: set[int] = set()
    for node in walk.nodes(tree):
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            starts = {n: (s, id(c)) for c in node.values if (t := _test(c, "startswith")) for n, s in [t]}
            ends = {n: s for c in node.values if (t := _test(c, "endswith")) for n, s in [t]}
            for name, (prefix, at) in starts.items():
                suffix = ends.get(name)
                if suffix and prefix.startswith("--") and suffix.startswith(("-", ".", "_")):
                    out.append(f"{prefix}*{suffix}")
                    paired.add(at)
    for node in walk.nodes(tree):
        if isinstance(node, ast.Call) and id(node) not in paired and (t := _test(node, "startswith")):
            prefix = t[1]
            if prefix.startswith("--") and len(prefix) > 4 and prefix.endswith((".", "-")):
                out.append(f"{prefix}*")
    return tuple(dict.fromkeys(out))[:_MAX]


def _test(node: ast.expr, method: str) -> tuple[str, str] | None:
    """(name, literal) of `name.startswith("literal")` (or endswith)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, ast.Name)
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.func.value.id, node.args[0].value
    return None
