"""The syntax tree of a Python text, parsed once for all its readers in a run.

One check reads a module several ways: each source kind that names it, the import summary that
says which programs it leads to, the options a program's command line takes. Each reader parsed
it again: miles' cold check made 152 parses of 117 texts, its 3,600-line argument module four
times. The trees of the last texts are kept here, by the text itself (two reads of one blob are
equal strings), up to a budget of source characters so that a long-lived worker holds a few
modules' trees, not a repository's. Readers must not change a tree; none does.
"""

from __future__ import annotations

import ast
from collections import OrderedDict

MAX_KEPT_CHARS = 400_000  # source characters whose trees are kept (a tree takes ~40x its text)

_kept: OrderedDict[str, ast.Module] = OrderedDict()
_kept_chars = 0


def module(text: str, path: str = "<unknown>") -> ast.Module:
    """`ast.parse(text, filename=path)`, raising what it raises; a text parsed before is not
    parsed again while its tree is kept."""
    global _kept_chars
    tree = _kept.get(text)
    if tree is not None:
        _kept.move_to_end(text)
        return tree
    tree = ast.parse(text, filename=path)
    if len(text) <= MAX_KEPT_CHARS:
        _kept[text] = tree
        _kept_chars += len(text)
        while _kept_chars > MAX_KEPT_CHARS:
            old, _ = _kept.popitem(last=False)
            _kept_chars -= len(old)
    return tree
