"""Option strings spelt from a choice the parser's caller makes: `prefix = "router-" if
use_router_prefix else ""` and then `add_argument(f"--{prefix}policy")`. The file cannot say
which branch a run takes (the test is a parameter), so each branch is a spelling the parser may
be built with: the call declares `--policy` on one command line and `--router-policy` on another,
and a page may cite either.

Only a name the option strings use, assigned once to a conditional expression whose test the
file cannot decide, is split; a few such names at most, each of its branches tried in turn.
"""

from __future__ import annotations

import ast
import itertools

from bot.core.extract.constants import UNKNOWN, Lookup, value

_MAX_NAMES = 3


def lookups(call: ast.Call, lookup: Lookup) -> list[Lookup]:
    """One lookup per way the call's option strings can be spelt; `[lookup]` when only one."""
    choices: dict[str, tuple[ast.expr, ast.expr]] = {}
    for arg in call.args:
        if not isinstance(arg, ast.JoinedStr | ast.BinOp | ast.Name):
            continue
        for node in ast.walk(arg):
            if not isinstance(node, ast.Name) or node.id in choices:
                continue
            found = lookup(node)
            if isinstance(found, ast.IfExp) and value(found.test, lookup) is UNKNOWN:
                choices[node.id] = (found.body, found.orelse)
    if not choices or len(choices) > _MAX_NAMES:
        return [lookup]
    names = sorted(choices)
    return [
        _choosing(lookup, dict(zip(names, picked, strict=True)))
        for picked in itertools.product(*(choices[n] for n in names))
    ]


def _choosing(lookup: Lookup, chosen: dict[str, ast.expr]) -> Lookup:
    def chose(node: ast.expr) -> str | ast.expr | None:
        if isinstance(node, ast.Name) and node.id in chosen:
            return chosen[node.id]
        return lookup(node)

    return chose
