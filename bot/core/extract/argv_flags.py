"""Options a module reads from its command line by hand, beside its parser: sphinx-build's
`if argv[:1] == ['--bug-report']: return _bug_report_info()` answers `--bug-report` before
argparse sees the words, and `if "--version" in sys.argv` does the same, as does
`if argv[0] in ["--version", "-V"]` (a word looked up among option strings). An option string
compared with the words (`argv`, `sys.argv`, a slice or an item of them) is a flag of the
program; argparse's help does not list it, so it is hidden: no page owes it a line. A short
option (`-V`) counts only beside a long one in the same comparison: a lone `"-v"` compared
with a word may be any value.
"""

from __future__ import annotations

import ast
import re

from bot.core.extract import walk
from bot.core.model import Fact

MAX_FLAGS = 20


def facts(tree: ast.Module, source_id: str, path: str) -> list[Fact]:
    found: dict[str, int] = {}
    for node in walk.nodes(tree):
        if not isinstance(node, ast.Compare) or len(found) >= MAX_FLAGS:
            continue
        for token in compared(node):
            found.setdefault(token, node.lineno)
    return [
        Fact.of("flag", token, token.lstrip("-").replace("-", "_"), source_id, path, line, {"hidden": "true"})
        for token, line in found.items()
    ]


def compared(node: ast.Compare) -> list[str]:
    """The option strings a comparison checks the command line's words against (none for any
    other comparison)."""
    if len(node.ops) != 1:
        return []
    left, right = node.left, node.comparators[0]
    if isinstance(node.ops[0], ast.Eq | ast.NotEq):
        sides = [(left, right), (right, left)]
    elif isinstance(node.ops[0], ast.In | ast.NotIn):
        # `"--version" in sys.argv`; `argv[0] in ["--version", "-V"]`: a word among options
        sides = [(left, right), (right, left)] if isinstance(left, ast.Subscript) else [(left, right)]
    else:
        return []
    return [token for options, words in sides if _is_argv(words) for token in _option_strings(options)]


def _is_argv(node: ast.expr) -> bool:
    """`argv`, `sys.argv`, or a slice or an item of one (`argv[:1]`, `sys.argv[1]`)."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return (isinstance(node, ast.Name) and node.id == "argv") or (
        isinstance(node, ast.Attribute) and node.attr == "argv"
    )


def _option_strings(node: ast.expr) -> list[str]:
    items = node.elts if isinstance(node, ast.List | ast.Tuple | ast.Set) else [node]
    words = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
    long = [w for w in words if w.startswith("--") and len(w) > 2]
    short = [w for w in words if _SHORT.fullmatch(w)] if long else []
    return long + short


_SHORT = re.compile(r"-[A-Za-z]")
