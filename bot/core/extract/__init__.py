"""Fact extractors: (rule source, path, text) -> facts. Pure.

A Python file is parsed once with the standard library's `ast`; each source kind reads the same
tree. A file that does not parse yields no facts and one ParseError, so a broken head is
reported rather than raised. Kinds that read data files (`config`) get the text itself and
report what they cannot read the same way.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from bot.core.extract import parsed
from bot.core.kinds import SOURCE_KINDS
from bot.core.model import Extraction, Fact, ParseError
from bot.core.rules import Source

# Each kind's extractor as "module:function" (bot/core/kinds.py), imported on first use: a check
# whose facts are all cached never imports an extractor, and a run imports only the kinds its
# rules name (importing this package for `imports` or `scripts` must not pull in every extractor).
_EXTRACTORS = {k.name: k.extractor for k in SOURCE_KINDS if k.extractor and k.reads == "python"}
# Kinds whose files are not Python: the text itself, read by the extractor.
_TEXT_EXTRACTORS = {k.name: k.extractor for k in SOURCE_KINDS if k.extractor and k.reads == "text"}
# Kinds with no facts: paths are the tree's, tokens are read by extract/tokens.py.
_NO_FACTS = {k.name for k in SOURCE_KINDS if not k.extractor}


@cache
def _load(where: str) -> Callable[..., Any]:
    module, name = where.split(":")
    function: Callable[..., Any] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    return function


def extract(source: Source, path: str, text: str) -> Extraction:
    if source.kind in _NO_FACTS:
        return Extraction(facts=())
    if source.kind in _TEXT_EXTRACTORS:
        reads_text: Callable[[Source, str, str], Extraction] = _load(_TEXT_EXTRACTORS[source.kind])
        return reads_text(source, path, text)
    if source.kind not in _EXTRACTORS:
        raise ValueError(f"unknown source kind {source.kind!r}")
    extractor: Callable[[Source, str, ast.Module], Iterable[Fact]] = _load(_EXTRACTORS[source.kind])
    try:
        tree = parsed.module(text, path)
    except SyntaxError as e:
        return Extraction(facts=(), errors=(ParseError(path, e.lineno or 1, e.msg),))
    except (ValueError, RecursionError) as e:  # null bytes; nesting deeper than the parser allows
        return Extraction(facts=(), errors=(ParseError(path, 1, str(e)),))
    except MemoryError as e:
        # CPython's parser has a stack of its own: `x = ` and 100,000 minus signs overflow it, and
        # 3.11 says so with a bare MemoryError (later versions add "too complex to parse"). A
        # file too large for the memory there is says the same.
        return Extraction(facts=(), errors=(ParseError(path, 1, str(e) or TOO_COMPLEX),))
    try:
        found = extractor(source, path, tree)
    except RecursionError:
        # Valid code can nest deeper than the extractors' recursive helpers (ast.unparse of a
        # 450-term sum): the file is reported, like one that does not parse, and the rest goes on.
        line, depth = _deepest(tree)
        return Extraction(facts=(), errors=(ParseError(path, line, too_deep(depth)),))
    return Extraction(facts=tuple(sorted(found, key=_order)))


TOO_COMPLEX = "too complex for Python's parser, which ran out of memory: nested too deeply, or too large"


def too_deep(depth: int) -> str:
    return f"an expression nested {depth} levels deep, more than docs-sync reads"


def _deepest(tree: ast.AST) -> tuple[int, int]:
    """The line and depth of the most deeply nested node (iterative: the tree is too deep to recurse)."""
    line, deepest = 1, 0
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest, line = depth, getattr(node, "lineno", line)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return line, deepest


def _order(fact: Fact) -> tuple[int, str, str, tuple[tuple[str, str], ...]]:
    return (fact.line, fact.token, fact.key, fact.attrs)
