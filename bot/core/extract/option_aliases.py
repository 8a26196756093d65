"""configargparse gives every parser and argument group of a process that imports it `add` and
`add_arg`, aliases of add_argument (OpenNMT-py's `group.add("-train_steps", "--train_steps",
...)`). Being common method names (`set.add`), they declare a flag only when handed an option
string first."""

from __future__ import annotations

import ast

from bot.core.extract import walk

CONFIGARGPARSE_ALIASES = frozenset({"add", "add_arg"})


def imports_configargparse(tree: ast.Module) -> bool:
    return any(
        (isinstance(node, ast.Import) and any(a.name == "configargparse" for a in node.names))
        or (isinstance(node, ast.ImportFrom) and node.module == "configargparse")
        for node in walk.nodes(tree)  # the walk every extractor of this tree shares
    )


def declares_by_alias(call: ast.Call) -> bool:
    """`x.add("-opt", ...)` or `x.add_arg("--opt", ...)`: an alias handed an option string first."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in CONFIGARGPARSE_ALIASES):
        return False
    first = call.args[0] if call.args else None
    option = first.value if isinstance(first, ast.Constant) else None
    return isinstance(option, str) and option.startswith("-")
