"""Subparsers handed to a helper of another module, which adds its flags to them: lmdeploy's
`ArgumentHelper.tp(pt_group)` in the function building `lmdeploy serve api_server`, where
`ArgumentHelper` (imported from `.utils`) has a static method `tp(parser)` calling
`parser.add_argument('--tp', ...)`. The flag is then that subcommand's (and the others' whose
parsers are handed to it), not the top parser's.

Extraction reads one file, so the calling module says only which imported name it hands which
subcommands' parser (a fact of kind `handed-parser`: token the callee as written, attribute
`subcommand` the parser's paths as argparse_flags writes them). `resolve` finds the function
where it is defined (a function of that module, or a method of one of its classes), and gives
the flags declared in its body the subcommands of every call handing it a subparser, and the
modules making those calls (attribute `handed`): a program none of whose parsers is one of them
does not take the flag (a benchmark script importing the helpers' class calls other ones). A helper
called more often in the rule's modules than with a subparser (a script handing it a parser of
its own) keeps its flags the top parser's: which parsers the other calls hand it is not known.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Final

from bot.core.extract import parsed, walk
from bot.core.extract.constants import dotted
from bot.core.model import Fact, Tree
from bot.core.rules import Source

if TYPE_CHECKING:
    from bot.core.extract.imports import Modules

HANDED: Final = "handed-parser"
MAX_CALLS = 512  # calls of one module recorded; the rest are not followed

Path = tuple[str, ...]


def references(tree: ast.Module, source_id: str, path: str, handed: dict[int, frozenset[Path]]) -> list[Fact]:
    """A fact per call of an imported name (or an attribute of one) handed a subparser."""
    if not handed:
        return []
    imported = _imported_names(tree)
    out: list[Fact] = []
    for node in walk.nodes(tree):
        if len(out) >= MAX_CALLS:
            break
        if not isinstance(node, ast.Call) or id(node) not in handed:
            continue
        written = dotted(node.func)
        if not written or written.partition(".")[0] not in imported:
            continue
        where = ",".join(sorted(" ".join(p) for p in handed[id(node)]))
        out.append(
            Fact(
                kind=HANDED,
                token=written,
                key=written,
                source=source_id,
                path=path,
                line=node.lineno,
                attrs=(("subcommand", where),),
            )
        )
    return out


def _imported_names(tree: ast.Module) -> set[str]:
    """Names the module's top-level imports bind."""
    out: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            out.update(alias.asname or alias.name for alias in stmt.names if alias.name != "*")
        elif isinstance(stmt, ast.Import):
            out.update(alias.asname or alias.name.partition(".")[0] for alias in stmt.names)
    return out


def resolve(
    extracted: list[tuple[Source, Fact, str]], tree: Tree, cache: MutableMapping[str, object] | None
) -> list[tuple[Source, Fact, str]]:
    """The facts with each helper's flags given the subcommands its calls hand it, and the
    references dropped."""
    refs = [fact for _, fact, _ in extracted if fact.kind == HANDED]
    kept = [(s, f, p) for s, f, p in extracted if f.kind != HANDED]
    if not refs:
        return kept
    from bot.core.extract.imports import Modules

    modules = Modules(tree, cache)
    given: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    callers: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    calls: dict[tuple[str, tuple[str, ...]], int] = {}
    for ref in refs:
        for defining, qual in _defined(modules, ref):
            helper = (defining, qual)
            given.setdefault(helper, set()).update((ref.attr("subcommand") or "").split(","))
            callers.setdefault(helper, set()).add(ref.path)
            calls[helper] = calls.get(helper, 0) + 1
    if not given:
        return kept
    texts = {p: tree.read(p) or "" for p in {f.path for _, f, _ in extracted}}
    called = _called(texts)
    placed: dict[int, set[str]] = {}  # index in `kept` -> the subcommands given its flag
    handing: dict[int, set[str]] = {}  # index in `kept` -> the modules handing it their parsers
    for (defining, qual), paths in given.items():
        span = _span(tree.read(defining), defining, qual)
        if span is None or called[qual[-1]] > calls[(defining, qual)]:
            continue  # not found, or handed parsers of unknown commands too
        for i, (_, fact, _) in enumerate(kept):
            if (
                fact.kind == "flag"
                and fact.path == defining
                and span[0] <= fact.line <= span[1]
                and not fact.attr("subcommand")
            ):
                placed.setdefault(i, set()).update(paths)
                handing.setdefault(i, set()).update(callers[(defining, qual)])
    out: list[tuple[Source, Fact, str]] = []
    for i, (source, fact, path) in enumerate(kept):
        if i in placed:
            fact = fact.with_attrs(
                {"subcommand": ",".join(sorted(placed[i])), "handed": " ".join(sorted(handing[i]))}
            )
        out.append((source, fact, path))
    return out


def _defined(modules: Modules, ref: Fact) -> list[tuple[str, tuple[str, ...]]]:
    """(module path, qualified name in it) of the function `ref` calls."""
    summary = modules.summary(ref.path)
    if summary is None:
        return []
    tail = ref.token.split(".")[1:]
    out: list[tuple[str, tuple[str, ...]]] = []
    for defining, name in modules.follow(ref.path, summary, ref.token):
        qual = tail[tail.index(name) :] if name in tail else [name, *tail]
        if defining != ref.path and 1 <= len(qual) <= 2:
            out.append((defining, tuple(qual)))
    return out


def _span(text: str | None, path: str, qual: tuple[str, ...]) -> tuple[int, int] | None:
    """The lines of the function `qual` names (a function of the module, or a method of one of
    its classes)."""
    if text is None:
        return None
    try:
        tree = parsed.module(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body: list[ast.stmt] = tree.body
    for i, name in enumerate(qual):
        last = i == len(qual) - 1
        kinds: tuple[type, ...] = (ast.FunctionDef, ast.AsyncFunctionDef) if last else (ast.ClassDef,)
        found = [n for n in body if isinstance(n, kinds) and getattr(n, "name", None) == name]
        if len(found) != 1:
            return None
        node = found[0]
        if last:
            return node.lineno, node.end_lineno or node.lineno
        assert isinstance(node, ast.ClassDef)
        body = node.body
    return None


def _called(texts: dict[str, str]) -> Counter[str]:
    """How often the rule's modules call each function or method name (`tp` of `Helper.tp(p)`)."""
    count: Counter[str] = Counter()
    for path, text in texts.items():
        try:
            tree = parsed.module(text, path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in walk.nodes(tree):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute):
                    count[func.attr] += 1
                elif isinstance(func, ast.Name):
                    count[func.id] += 1
    return count
