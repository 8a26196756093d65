"""Fact extractors: (rule source, path, text) -> facts. Pure; stdlib `ast` only.

The file is parsed once; each source kind reads the same tree. A file that does not parse
yields no facts and one ParseError, so a broken head is reported rather than raised.
"""

from __future__ import annotations

import ast

from bot.core.extract import argparse_flags, dataclass_flags, strings, symbols
from bot.core.model import Extraction, Fact, ParseError
from bot.core.rules import Source

_EXTRACTORS = {
    "argparse": argparse_flags.facts,
    "dataclass-flags": dataclass_flags.facts,
    "symbols": symbols.facts,
    "strings": strings.facts,
}


def extract(source: Source, path: str, text: str) -> Extraction:
    if source.kind == "paths":
        return Extraction(facts=())
    extractor = _EXTRACTORS.get(source.kind)
    if extractor is None:
        raise ValueError(f"unknown source kind {source.kind!r}")
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        return Extraction(facts=(), errors=(ParseError(path, e.lineno or 1, e.msg),))
    except (ValueError, RecursionError) as e:  # null bytes; nesting deeper than the parser allows
        return Extraction(facts=(), errors=(ParseError(path, 1, str(e)),))
    return Extraction(facts=tuple(sorted(extractor(source, path, tree), key=_order)))


def _order(fact: Fact) -> tuple[int, str, str, tuple[tuple[str, str], ...]]:
    return (fact.line, fact.token, fact.key, fact.attrs)
