"""What other projects declare: the third answer of ownership, a known other's.

A rule's `others` name a sister repository's parser files (at a tag or commit) or an installed
distribution's; the command line and the App fetch them (bot/trees/others.py, bot/app/others.py)
and hand them here as in-memory trees, never run. Their facts are read as this repository's
are, by the same extractors, and some more generously, since they only ever silence:

- flags: argparse, click and typer declarations, pytest's `addoption`, and the fields of every
  dataclass as a dataclass command line spells them (`--field_name`, `--field-name`, and the
  `--no-` forms of a `bool`): HfArgumentParser, tyro, draccus;
- subcommands: the words a flag's subcommand path is made of (`sister serve`);
- config keys: the dotted keys of the YAML, TOML and JSON files among them;
- paths: the files read and their folders (`scripts/environments/list_envs.py`, a tutorial of
  the sister project's run from its checkout), when the page's repository has no such path.

A token a page cites that this repository's rule does not know and another project declares is
not reported as unresolved, and nothing of ours is suggested for it: it is that project's. A
token the rule knows stays ours (a flag of ours renamed is reported, whoever else has it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.core import lazyre
from bot.core.extract import parsed, walk
from bot.core.facts import ParseCache, _extract_cached
from bot.core.model import Tree
from bot.core.programs import subcommands
from bot.core.rules import Other, Rule, Source

# Files of one other project read for what they declare, each at most this long.
MAX_FILES = 400
MAX_FILE_TEXT = 1_000_000

_FLAG_KINDS = ("argparse", "click", "typer")
_CONFIG = (".yaml", ".yml", ".toml", ".json")
# Declarations the extractors may not see (a file that does not parse, a parser built elsewhere).
_OPTION_CALL = lazyre.compile(
    r"""(?:add_argument|addoption|option|Option)\(\s*(?:["'][^"']*["']\s*,\s*)*"""
    r"""["'](--?[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?)["']"""
)


@dataclass(frozen=True)
class Known:
    """What other projects declare: flags, subcommand words, config keys."""

    flags: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()
    keys: frozenset[str] = frozenset()
    paths: frozenset[str] = frozenset()  # files and folders, from the other's root

    def __bool__(self) -> bool:
        return bool(self.flags or self.words or self.keys or self.paths)

    def path(self, path: str) -> bool:
        return path.rstrip("/") in self.paths

    def flag(self, token: str) -> bool:
        return token in self.flags or token.split("=", 1)[0] in self.flags

    def key(self, token: str) -> bool:
        return token in self.keys

    def word(self, token: str) -> bool:
        return token in self.words


NOTHING = Known()


class Knowns:
    """What each rule's others declare, read once for every rule naming the same ones (the
    rules a glob or a pairing expands to)."""

    def __init__(self, trees: Mapping[Other, Tree], cache: ParseCache | None):
        self.trees, self.cache = trees, cache
        self._known: dict[tuple[Other, ...], Known] = {}

    def __call__(self, rule: Rule) -> Known:
        if not rule.others:
            return NOTHING
        if rule.others not in self._known:
            self._known[rule.others] = known(rule.others, self.trees, self.cache)
        return self._known[rule.others]


def known(others: Iterable[Other], trees: Mapping[Other, Tree], cache: ParseCache | None = None) -> Known:
    """What the rule's `others` declare, of those that were read (`trees`; one that could not be
    fetched is a `config` finding of the caller's, not here)."""
    flags: set[str] = set()
    words: set[str] = set()
    keys: set[str] = set()
    paths: set[str] = set()
    for other in others:
        tree = trees.get(other)
        if tree is None:
            continue
        for path in sorted(tree.paths())[:MAX_FILES]:
            parts = path.split("/")
            paths.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
            if path.endswith(".py"):
                _python(path, tree, cache, flags, words)
            elif path.endswith(_CONFIG):
                source = Source(id=f"others:{other.name}", kind="config", paths=(path,))
                found = _extract_cached(source, path, tree, cache)
                keys.update(f.token for f in (found.facts if found else ()) if f.kind == "key")
    read = Known(frozenset(flags), frozenset(words), frozenset(keys), frozenset(paths))
    return read if read else NOTHING


def _python(path: str, tree: Tree, cache: ParseCache | None, flags: set[str], words: set[str]) -> None:
    text = tree.read(path) or ""
    if len(text) > MAX_FILE_TEXT:
        return
    flags.update(_OPTION_CALL.findall(text))
    for kind in _FLAG_KINDS:
        if kind != "argparse" and kind not in text:
            continue  # click and typer read only a module that names them
        found = _extract_cached(Source(id="others", kind=kind, paths=(path,)), path, tree, cache)
        for fact in found.facts if found else ():
            if fact.kind == "flag":
                flags.add(fact.token)
                words.update(w for sub in subcommands(fact) for w in sub)
    if "dataclass" in text:
        flags.update(_dataclass_flags(path, text))


def _dataclass_flags(path: str, text: str) -> set[str]:
    """Every dataclass field as a flag, in the spellings dataclass command lines use."""
    try:
        module = parsed.module(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    out: set[str] = set()
    for node in walk.nodes(module):
        if not isinstance(node, ast.ClassDef) or not any(
            "dataclass" in ast.unparse(d) for d in node.decorator_list
        ):
            continue
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                name = item.target.id
                switch = ast.unparse(item.annotation) in ("bool", "Optional[bool]", "bool | None")
                for spelt in {name, name.replace("_", "-")}:
                    out.add("--" + spelt)
                    if switch:
                        out.update({"--no_" + spelt, "--no-" + spelt})
    return out
