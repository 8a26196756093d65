"""Subcommands named by class attributes: a command line a base class builds from what each
command class says. optimum's `optimum-cli export onnx`: the group class `ExportCommand` has
`COMMAND = CommandInfo(name="export")` and `SUBCOMMANDS = (CommandInfo(name="onnx",
subcommand_class=ONNXExportCommand), ...)`, and the base class adds a subparser for each and
hands it to the class's `parse_args`, whose flags (in `onnx.py`) are then those of `export onnx`.

Extraction reads one file, and the words are in another, so this joins them for one revision:
a flag module's command classes (classes with bases) are looked up among the modules near it
(its folder and the two above, at most MAX_MODULES) that give them a word (a call with a string
`name=` and a keyword naming the class, in a class attribute), and the words of the class giving
it are found the same way, up to MAX_DEPTH; a class no module gives a word has its own (`name=`
naming no class) as a top-level command. The module's flags that carry no subcommand then carry
these. A module whose classes get no word keeps its flags the top parser's.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import MutableMapping

from bot.core import lazyre
from bot.core.extract.imports import Modules
from bot.core.model import Fact, Tree
from bot.core.rules import Source

MAX_MODULES = 300  # modules read for the words they give command classes
MAX_DEPTH = 4  # groups of groups

Words = tuple[str, ...]

# What a module giving a command class its word must spell (imports.py's `_class_commands`): a
# class, a string `name=` keyword and a keyword naming a capitalized class. Each pattern starts
# at a literal and the word before it is checked by hand: a pattern starting with `\b` or `\w`
# is tried at every character of every module near a flag module, ten times the cost.
_NAME_KEYWORD = lazyre.compile(r"name\s*=\s*[rRuU]?[\"']")
_SUBCLASS = lazyre.compile(r"^[ \t]*class\s+\w+\s*\(\s*[^)\s]", re.M)
_CLASS_KEYWORD = lazyre.compile(r"=\s*(?:\w+\.)*[A-Z]\w*\s*[,)]")  # after a keyword: `\w\s*=`
_WORD = lazyre.compile(r"\w")


def _may_give(text: str | None) -> bool:
    """Can the module's text hold a class attribute giving another class a word? Read before
    the module is parsed: most modules near a flag module say nothing of commands."""
    return text is not None and "class " in text and _name_keyword(text) and _class_keyword(text)


def _name_keyword(text: str) -> bool:
    """A keyword `name=` given a string: `name` not the tail of a longer word (`filename=`)."""
    return any(m.start() == 0 or not _WORD.match(text, m.start() - 1) for m in _NAME_KEYWORD.finditer(text))


def _class_keyword(text: str) -> bool:
    """A keyword given a capitalized name (`subcommand_class=ONNXExportCommand,`): the `=`
    follows a word, maybe after spaces, and the name ends the argument."""
    for m in _CLASS_KEYWORD.finditer(text):
        before = m.start() - 1
        while before >= 0 and text[before].isspace():  # what `\s` matches
            before -= 1
        if before >= 0 and _WORD.match(text, before):
            return True
    return False


def place(
    extracted: list[tuple[Source, Fact, str]], tree: Tree, cache: MutableMapping[str, object] | None
) -> list[tuple[Source, Fact, str]]:
    """The facts with the flags of command classes' modules given their subcommands."""
    wanted = {
        f.path
        for s, f, _ in extracted
        if s.kind == "argparse" and f.kind == "flag" and not f.attr("subcommand")
    }
    modules = Modules(tree, cache)
    placed: dict[str, str] = {}
    finders: dict[str, _Finder] = {}  # by the folder searched: flag modules near each other share it
    for path in sorted(wanted):
        if not _SUBCLASS.search(modules.tree.read(path) or ""):
            continue  # no class with a base (most flag modules): no command class, no parse
        summary = modules.summary(path)
        if summary is None or not summary.bases:
            continue
        top = _top(path)
        finder = finders.get(top) or finders.setdefault(top, _Finder(modules, top))
        found = {w for cls in summary.bases for w in finder.paths(path, cls, 0) if w}
        if found:
            placed[path] = ",".join(sorted(" ".join(w) for w in found))
    if not placed:
        return extracted
    out = []
    for source, fact, path in extracted:
        where = placed.get(fact.path) if source.kind == "argparse" and fact.kind == "flag" else None
        if where is not None and not fact.attr("subcommand"):
            fact = fact.with_attrs({"subcommand": where})
        out.append((source, fact, path))
    return out


def _top(path: str) -> str:
    """The folder searched for a flag module's command words: its own and the two above."""
    return posixpath.dirname(posixpath.dirname(posixpath.dirname(path)))


class _Finder:
    """The words command classes get, from the modules under one folder (`top`)."""

    def __init__(self, modules: Modules, top: str):
        self.modules = modules
        near = sorted(p for p in modules.paths if p.endswith(".py") and (not top or p.startswith(top + "/")))
        self.near = near[:MAX_MODULES]
        self._givers: dict[tuple[str, str], list[tuple[str, str, str]]] | None = None

    def paths(self, path: str, cls: str, depth: int) -> set[Words]:
        """The subcommand paths of class `cls` of module `path`."""
        givers = self._index().get((path, cls), [])
        out: set[Words] = set()
        if depth < MAX_DEPTH:
            for at, group, word in givers:
                parents = self.paths(at, group, depth + 1) or {()}
                out |= {(*p, word) for p in parents}
        if not givers:
            summary = self.modules.summary(path)
            said = (summary.commands or {}).get(cls) if summary is not None else None
            if said is not None and said.word is not None and said.registers:
                out.add((said.word,))  # a group no module places: a command of the top parser
        return out

    def _index(self) -> dict[tuple[str, str], list[tuple[str, str, str]]]:
        """(module, class) -> (module, class, word) of each class attribute giving it a word."""
        if self._givers is None:
            self._givers = {}
            for at in self.near:
                if not _may_give(self.modules.tree.read(at)):
                    continue  # most modules: no class attribute calls with `name="..."`, no parse
                summary = self.modules.summary(at)
                if summary is None or not summary.commands:
                    continue
                for group, said in summary.commands.items():
                    for word, ref in said.registers:
                        for defined in self._resolve(at, ref):
                            self._givers.setdefault(defined, []).append((at, group, word))
        return self._givers

    def _resolve(self, at: str, ref: str) -> list[tuple[str, str]]:
        summary = self.modules.summary(at)
        if summary is None:
            return []
        head = ref.split(".", 1)[0]
        if head in summary.units:
            return [(at, head)]
        if head not in summary.imports:
            return []
        found = [self.modules.definition(p, n) for p, n in self.modules.follow(at, summary, ref)]
        return [d for d in found if d is not None]
