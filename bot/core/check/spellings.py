"""Parsers that take a flag spelled with `-` or `_` alike (`--num-processes` for `--num_processes`).

tyro does, always (its `use_underscores` changes the help only): its flags say so
(`spelling: either`).

argparse itself takes only the spelling declared, so `--use-fsdp` for `--use_fsdp` is a typo
there. A project may add the other spelling to every option itself: an `argparse.Action` (or a
parser class) whose `option_strings` get each one's `.replace("_", "-")` appended. When the
module declaring a flag, or a module of the repository it imports, does that, both spellings
are the flag's.

A parser class may instead rewrite the words it is given in its own `parse_args` (or
`parse_known_args`) before argparse reads them, as vLLM's `FlexibleArgumentParser` does: a
`.replace("_", "-")` there makes `--tokenizer_mode` the declared `--tokenizer-mode` (the other
way round stays a typo), and a `.split(".")` there reads `--compilation-config.mode 3` as the
key `mode` of `--compilation-config`'s value.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from bot.core import lazyre
from bot.core.extract import parsed, walk
from bot.core.extract.imports import Modules

# `.replace("_", "-")` in a module that rewrites an action's `option_strings`: the idiom that
# adds the dashed spelling of every option.
_DASHED = lazyre.compile(r"""\.replace\(\s*(['"])_\1\s*,\s*(['"])-\2\s*\)""")
_PARSES = lazyre.compile(r"\bdef parse_(?:known_)?args\(")
_DOTTED = lazyre.compile(r"""\.split\(\s*(['"])\.\1\s*[,)]""")
_PARSE_METHODS = frozenset({"parse_args", "parse_known_args"})
MAX_TEXT = 2_000_000  # a module larger than this is not parsed for its parser class


@dataclass(frozen=True)
class Rewrites:
    """What the parser of a module takes beyond the option strings it declares."""

    either: bool = False  # `--a_b` and `--a-b` alike
    dashed: bool = False  # `--a_b` for a declared `--a-b`
    dotted: bool = False  # `--flag.key value`: a key of the flag's value


def other_spelling(token: str) -> str | None:
    """`--use-fsdp` <-> `--use_fsdp`: the flag with its inner `-` and `_` swapped, or None."""
    body = token.lstrip("-")
    prefix = token[: len(token) - len(body)]
    if prefix != "--" or ("-" in body) == ("_" in body):
        return None  # a short flag, no separator, or both kinds: no one other spelling
    return prefix + (body.replace("-", "_") if "-" in body else body.replace("_", "-"))


def other_spellings(token: str) -> list[str]:
    """`token` with its inner separators swapped, then all `-`, then all `_` (each once, itself
    left out): the spellings of one flag to a parser that takes `-` and `_` alike."""
    body = token.lstrip("-")
    prefix = token[: len(token) - len(body)]
    if prefix != "--":
        return []
    found = [other_spelling(token), prefix + body.replace("_", "-"), prefix + body.replace("-", "_")]
    return [t for t in dict.fromkeys(found) if t is not None and t != token]


def takes_either(modules: Modules, path: str) -> bool:
    """Does the parser declared in `path` take both spellings of its options?"""
    return rewrites(modules, path).either


def rewrites(modules: Modules, path: str) -> Rewrites:
    """What the parser declared in `path` (its module, or a module of the repository it imports)
    does to the words it is given, beyond argparse."""
    either = dashed = dotted = False
    for candidate in (path, *_imported(modules, path)):
        text = modules.tree.read(candidate) or ""
        either = either or ("option_strings" in text and _DASHED.search(text) is not None)
        if _PARSES.search(text) and len(text) <= MAX_TEXT:
            for method in _parse_methods(text, candidate):
                dashed = dashed or _DASHED.search(method) is not None
                dotted = dotted or _DOTTED.search(method) is not None
    return Rewrites(either, dashed, dotted)


def _parse_methods(text: str, path: str) -> list[str]:
    """The source of each `parse_args` and `parse_known_args` of a parser class the module
    defines (a class whose base is an `...ArgumentParser`)."""
    try:
        module = parsed.module(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out: list[str] = []
    for node in walk.nodes(module):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases]
        if not any(b.endswith("ArgumentParser") for b in bases):
            continue
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name in _PARSE_METHODS:
                out.append(ast.unparse(item))
    return out


def _imported(modules: Modules, path: str) -> list[str]:
    """The repository's modules `path` imports from (its own folder's too, for `from . import`)."""
    summary = modules.summary(path)
    if summary is None:
        return []
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    out: list[str] = []
    for imports in summary.imports.values():
        for imp in imports:
            if imp.level:
                base = folder.split("/")[: len(folder.split("/")) - (imp.level - 1)] if folder else []
                stem = "/".join([*base, *imp.module.split(".")]) if imp.module else "/".join(base)
                found = modules.file(stem)
            else:
                found = modules.find(imp.module)
            if found is not None and found != path and found not in out:
                out.append(found)
    return out
