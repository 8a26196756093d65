"""Which modules' flags a command line takes: from the program's entry point, the functions and
classes it uses, followed through the imports that stay inside the repository.

`lm-eval` runs `lm_eval.__main__:cli_evaluate`, which builds `HarnessCLI` (re-exported by
`lm_eval/_cli/__init__.py`, defined in `harness.py`), whose subcommands add their flags in
`run.py`, `ls.py` and `validate.py`: all four modules hold flags of `lm-eval`. A module is
reached through the names it is used by, not through the module alone: `mlx_lm/chat.py` imports
`stream_generate` from `generate.py`, which does not make `mlx_lm.generate`'s flags those of
`mlx_lm.chat`.

Nothing is executed; each module is summarized once (its units, what each reads and whether it
calls `add_argument`) and summaries are cached by blob id. References are followed out of a
module only when it is the entry point or mentions argparse: the parser of a program is built
by argparse-aware code, and a training loop's imports are not read to find it.

A class or function handed to a builder of typed flags (`HfArgumentParser((ModelArguments,
...))`, `tyro.cli(Config)`, `CLI(main)`, `LightningCLI(Model, Data)`, `fire.Fire(main)`)
declares flags where it is defined, and so do its bases: its module holds flags of the program,
like one calling add_argument.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass, replace
from typing import NamedTuple

from bot.core.extract import argv_flags, parsed, walk
from bot.core.extract.global_overrides import is_override_call, overrides_at
from bot.core.extract.option_aliases import declares_by_alias
from bot.core.model import Tree

TOP = "<module>"  # the module's top-level statements, outside `if __name__ == "__main__":`
MAIN = "<main>"  # its `if __name__ == "__main__":` blocks: what `python mod.py` adds
_MARKERS = ("add_argument", "ArgumentParser", "add_parser", "argparse", "parse_args", "parse_known_args")
_FORMAT = "imports-15"  # cache key prefix: bump when a summary changes shape or meaning
# Calls whose arguments are classes or functions made into flags (their last dotted part).
BUILDERS = frozenset(
    {
        "HfArgumentParser",
        "LightningCLI",
        "CLI",
        "auto_cli",
        "add_class_arguments",
        "add_function_arguments",
        "add_dataclass_arguments",
        "subcommand_cli_from_dict",
        "Fire",
    }
)
_TYRO_CLI = frozenset({"tyro.cli", "cli"})  # `cli` alone only where the module imports tyro
# A module naming these may declare a command line with decorators (click, typer): its commands'
# and groups' decorators (`@cli.command()`, `@click.option`) and a `typer.Typer()` declare flags.
_DECORATED = ("click", "typer")
_DECLARING_DECORATORS = frozenset({"command", "group", "option", "callback"})
# typer's `Option(...)` and `Argument(...)` make a parameter a flag: a function having them is a
# command whoever registers it (`app.command()(download)` in another module).
_DECLARING_CALLS = frozenset({"Typer", "Group", "add_command", "add_typer", "option", "Option", "Argument"})

PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
MAX_REGISTERING = 300  # modules of a package read for the commands they register on its app
MAX_BASES = 4  # bases followed up from a class to one whose methods make parsers
# What a method making or filling a parser calls (the last part of the call's name).
_PARSER_CALLS = frozenset({"add_parser", "add_subparsers", "ArgumentParser", "add_argument"})


class Import(NamedTuple):
    module: str  # dotted as written ("" for `from . import x`)
    level: int  # leading dots of a relative import
    name: str | None  # the attribute a from-import binds; None for `import a.b [as c]`


@dataclass(frozen=True)
class Unit:
    """A function, a class, a module's top level or its `__main__` blocks."""

    refs: frozenset[str]  # names and dotted attribute chains it reads: "parse_args", "cli.main"
    declares: bool  # calls add_argument itself
    builds: frozenset[str] = frozenset()  # refs it hands to a builder of typed flags (BUILDERS)
    # (callee, refs) of each call of a capitalized name outside BUILDERS handed names: it builds
    # flags when the callee is a class of the repository subclassing a builder (`TrlParser(...)`)
    handed: tuple[tuple[str, frozenset[str]], ...] = ()


@dataclass(frozen=True)
class Summary:
    units: dict[str, Unit]
    imports: dict[str, tuple[Import, ...]]  # local name -> what it may be bound to (any scope)
    assigned: frozenset[str]  # names bound at top level by assignment
    argparse: bool  # the text mentions argparse: references are worth following out of it
    creates_parser: bool  # it calls ArgumentParser(...): it builds a command line, not only adds to one
    values: dict[str, frozenset[str]] | None = None  # top-level name -> the refs its values read
    decorated: bool = False  # it names click or typer (or `.command(`): commands may be attached to groups
    # classes it defines whose base is a builder (`class TrlParser(HfArgumentParser)`), or one of
    # these: calling them builds flags as the builder does
    builder_classes: frozenset[str] = frozenset()
    # it parses with `parse_known_args`: its command line takes flags no parser declares (the
    # leftovers, handed on to a config's overrides, to another program, or ignored)
    takes_leftovers: bool = False
    # `from .defaults import *`: the modules whose public names it binds, each (module, level)
    stars: tuple[Import, ...] = ()
    # class name -> the names its bases are written as (`("BaseCLICommand",)`), for the classes
    # of the module's top level that have any
    bases: dict[str, tuple[str, ...]] | None = None
    # class name -> what its class attributes say of commands (`COMMAND = Info(name="export")`,
    # `SUBCOMMANDS = (Info(name="onnx", subcommand_class=OnnxCommand),)`), for the classes of
    # the module's top level that say any (bot/core/extract/class_commands.py)
    commands: dict[str, ClassCommands] | None = None


@dataclass(frozen=True)
class ClassCommands:
    """The command words a class's attributes give: its own, and those it gives other classes."""

    word: str | None  # a call with `name="export"` naming no class: the class's own command
    registers: tuple[tuple[str, str], ...]  # (word, class reference): `name="onnx"` with `OnnxCommand`


def summarize(text: str) -> Summary | None:
    try:
        tree = parsed.module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    units: dict[str, Unit] = {}
    top: list[Walked] = []
    main: list[Walked] = []
    assigned: set[str] = set()
    values: dict[str, frozenset[str]] = {}
    tyro = "tyro" in text
    # `.command(`: a command module may name neither, registering on an app it imports
    decorated = any(m in text for m in _DECORATED) or ".command(" in text
    aliased = "configargparse" in text
    # Each top-level statement is walked once, for every question asked of it.
    for stmt in _top_statements(tree.body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if stmt.name not in units:
                units[stmt.name] = _unit_of([(stmt, walk.every(stmt))], tyro, decorated, aliased)
        elif _is_main_guard(stmt):
            main.append((stmt, walk.every(stmt)))
        else:
            walked = walk.every(stmt)
            top.append((stmt, walked))
            for node in walked:
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    assigned.add(node.id)
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        values[target.id] = values.get(target.id, frozenset()) | _unit([stmt.value]).refs
    units[TOP] = _unit_of(top, tyro, decorated, aliased)
    units[MAIN] = _unit_of(main, tyro, decorated, aliased)
    imports: dict[str, list[Import]] = {}
    stars: list[Import] = []
    classes: list[ast.ClassDef] = []
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports.setdefault(alias.asname, []).append(Import(alias.name, 0, None))
                else:  # `import a.b.c` binds `a`; a reference `a.b.c.f` carries the rest
                    head = alias.name.split(".")[0]
                    imports.setdefault(head, []).append(Import(head, 0, None))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    bound = alias.asname or alias.name
                    imports.setdefault(bound, []).append(Import(node.module or "", node.level, alias.name))
                else:
                    stars.append(Import(node.module or "", node.level, None))
        elif isinstance(node, ast.ClassDef):
            classes.append(node)
    # A call named ArgumentParser spells the word: most modules need no walk to know they make none.
    creates_parser = "ArgumentParser" in text and any(
        isinstance(node, ast.Call) and (_chain(node.func) or "").split(".")[-1] == "ArgumentParser"
        for node in walk.nodes(tree)
    )
    # A script whose settings a configuring file overrides from its command line is that
    # command line, whole (bot/core/extract/global_overrides.py).
    creates_parser = creates_parser or ("exec(" in text and overrides_at(tree) is not None)
    return Summary(
        units=units,
        imports={k: tuple(dict.fromkeys(v)) for k, v in imports.items()},
        assigned=frozenset(assigned),
        argparse=any(m in text for m in _MARKERS) or decorated,
        # A click or typer command is a command line of its own, not flags added to another's.
        creates_parser=creates_parser or (decorated and any(u.declares for u in units.values())),
        values=values,
        decorated=decorated,
        builder_classes=_builder_classes(classes, BUILDERS),
        stars=tuple(dict.fromkeys(stars)),
        bases={
            stmt.name: named
            for stmt in _top_statements(tree.body)
            if isinstance(stmt, ast.ClassDef) and (named := tuple(filter(None, map(_chain, stmt.bases))))
        },
        commands={
            stmt.name: said
            for stmt in _top_statements(tree.body)
            if isinstance(stmt, ast.ClassDef) and stmt.bases and (said := _class_commands(stmt)) is not None
        },
        takes_leftovers="parse_known_args" in text
        and any(
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "parse_known_args"
            for node in walk.nodes(tree)
        ),
    )


# The fields of a statement (or an except clause, a match case) that hold statements.
_BLOCKS = frozenset({"body", "handlers", "orelse", "finalbody", "cases"})


def _class_commands(node: ast.ClassDef) -> ClassCommands | None:
    """What the calls in a class's attribute values say of commands: a call with a string
    `name=` and a keyword naming a class (capitalized) gives that class the word; one naming no
    class gives the class its own (the first such)."""
    word: str | None = None
    registers: list[tuple[str, str]] = []
    for stmt in node.body:
        if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
            continue
        for call in walk.nodes(stmt.value):
            if not isinstance(call, ast.Call):
                continue
            names = [k.value for k in call.keywords if k.arg == "name"]
            named = names[0].value if names and isinstance(names[0], ast.Constant) else None
            if not isinstance(named, str):
                continue
            classes = [
                chain
                for k in call.keywords
                if k.arg != "name" and (chain := _chain(k.value)) and chain.rpartition(".")[2][:1].isupper()
            ]
            if classes:
                registers.append((named, classes[0]))
            elif word is None:
                word = named
    return ClassCommands(word, tuple(registers)) if word is not None or registers else None


def _statements(tree: ast.Module) -> list[ast.AST]:
    """The module's statements at every depth (and its except clauses and match cases), in
    `ast.walk`'s order among themselves: breadth-first, each node's blocks in field order. Imports
    and class definitions are statements, so they are found without walking any expression."""
    out: list[ast.AST] = [tree]
    add = out.append
    for node in out:  # grows while read, as walk.every
        for field in node._fields:
            if field in _BLOCKS:
                for item in getattr(node, field, ()):
                    add(item)
    return out


def builder_subclasses(tree: ast.Module, builders: frozenset[str] = BUILDERS) -> frozenset[str]:
    """The classes a module defines whose base is one of `builders` (builders of typed flags),
    or one of those classes."""
    return _builder_classes([n for n in walk.nodes(tree) if isinstance(n, ast.ClassDef)], builders)


def _builder_classes(classes: list[ast.ClassDef], builders: frozenset[str]) -> frozenset[str]:
    found: set[str] = set()
    grew = True
    while grew:
        grew = False
        for node in classes:
            named = {(_chain(b) or "").rpartition(".")[2] for b in node.bases}
            if node.name not in found and named & (builders | found):
                found.add(node.name)
                grew = True
    return frozenset(found)


def _top_statements(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """Module-level statements, looking inside top-level `if`/`try`/`with` blocks (not the main guard)."""
    for stmt in body:
        if isinstance(stmt, ast.If) and not _is_main_guard(stmt):
            yield from _top_statements(stmt.body)
            yield from _top_statements(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, stmt.orelse, stmt.finalbody, *(h.body for h in stmt.handlers)):
                yield from _top_statements(block)
        elif isinstance(stmt, ast.With):
            yield from _top_statements(stmt.body)
        else:
            yield stmt


def _is_main_guard(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
        return False
    sides = [stmt.test.left, *stmt.test.comparators]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    strings = [s.value for s in sides if isinstance(s, ast.Constant)]
    return len(sides) == 2 and names == ["__name__"] and strings == ["__main__"]


_REFERENCE = (ast.Attribute, ast.Name)


Walked = tuple[ast.AST, list[ast.AST]]  # a node and walk.every of it


def _unit(nodes: list[ast.AST], tyro: bool = False, decorated: bool = False) -> Unit:
    return _unit_of([(node, walk.every(node)) for node in nodes], tyro, decorated)


def _unit_of(roots: list[Walked], tyro: bool = False, decorated: bool = False, aliased: bool = False) -> Unit:
    """`aliased`: the module imports configargparse, whose `add` and `add_arg` are add_argument."""
    # Imported here: click_names brings the argparse reader, which a warm check never loads.
    from bot.core.extract.click_names import GROUP_BASES

    refs: set[str] = set()
    builds: set[str] = set()
    handed: list[tuple[str, frozenset[str]]] = []
    declares = False
    imported: set[str] = set()  # `import a.b.c` statements the unit runs
    for root, walked in roots:
        local = _locals(root, walked)
        if decorated and isinstance(root, ast.ClassDef):
            # A group class of the project's own (`class Cli(TyperGroup)`): it may read options of
            # every command (bot/core/extract/group_options.py).
            declares = any((_chain(b) or "").rpartition(".")[2] in GROUP_BASES for b in root.bases)
        if decorated and isinstance(root, ast.FunctionDef | ast.AsyncFunctionDef):
            for d in root.decorator_list:
                named = _chain(d.func if isinstance(d, ast.Call) else d) or ""
                declares = declares or named.rpartition(".")[2] in _DECLARING_DECORATORS
        for node in walked:
            if isinstance(node, _REFERENCE) and isinstance(node.ctx, ast.Load):
                chain = _chain(node)
                if chain:
                    refs.add(chain)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names if a.asname is None)
            elif isinstance(node, ast.Call):
                last = (_chain(node.func) or "").rpartition(".")[2]
                declares = (
                    declares
                    or _chain(node.func) in ("add_argument",)
                    or (isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument")
                    or (decorated and last in _DECLARING_CALLS)
                    or (aliased and declares_by_alias(node))
                    or (last == "exec" and is_override_call(node))  # its settings are its flags
                )
                called = _chain(node.func) or ""
                given = _given(node, local)
                if called.split(".")[-1] in BUILDERS or (tyro and called in _TYRO_CLI):
                    builds.update(_unit(given).refs)
                elif called.rpartition(".")[2][:1].isupper() and given:
                    handed.append((called, _unit(given).refs))
                if tyro and called in _TYRO_CLI and _made_at_run_time(node, root, walked):
                    declares = True  # it parses a class no file names: its module is the parser
            elif isinstance(node, ast.Compare) and not declares and argv_flags.compared(node):
                declares = True  # `if argv[0] in ["--version", "-V"]`: options read by hand
    # A module imported and read through no attribute is imported for what running it does
    # (`import pkg.cli.serve` alone, so that its subclasses register): the module itself.
    refs.update(m for m in imported if not any(r.startswith(m + ".") for r in refs))
    return Unit(frozenset(refs), declares, frozenset(builds), tuple(dict.fromkeys(handed)))


def _locals(root: ast.AST, walked: list[ast.AST]) -> dict[str, ast.expr]:
    """Names a function assigns once, to what (`dataclass_types = (Args, Config)`)."""
    if not isinstance(root, ast.FunctionDef | ast.AsyncFunctionDef):
        return {}
    out: dict[str, ast.expr] = {}
    for node in walked:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            out[name] = node.value if name not in out else ast.Constant(None)
    return out


def _given(call: ast.Call, local: Mapping[str, ast.expr]) -> list[ast.AST]:
    """What a builder call is handed: its positional arguments and `dataclass_types=`, a name a
    function assigned a tuple or list of classes read as that tuple."""
    given: list[ast.expr] = [*call.args, *(k.value for k in call.keywords if k.arg == "dataclass_types")]
    out: list[ast.AST] = []
    for arg in given:
        held = local.get(arg.id) if isinstance(arg, ast.Name) else None
        out.append(held if isinstance(held, ast.Tuple | ast.List) else arg)
    return out


def _made_at_run_time(call: ast.Call, root: ast.AST, walked: list[ast.AST]) -> bool:
    """`tyro.cli(config_cls, default=loaded)` with `config_cls` bound in the same function
    (`type(loaded)`), or `tyro.cli(type(loaded), ...)`: a type made at run time."""
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "type":
        return True
    if not isinstance(first, ast.Name) or not isinstance(
        root, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    ):
        return False
    return any(isinstance(n, ast.Name) and n.id == first.id and isinstance(n.ctx, ast.Store) for n in walked)


def _chain(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class Modules:
    """The Python modules of one revision, as imports and entry points name them."""

    def __init__(self, tree: Tree, cache: MutableMapping[str, object] | None = None):
        self.tree = tree
        self.cache = cache
        self.paths = tree.paths()
        self._dirs = {p.rsplit("/", 1)[0] for p in self.paths if "/" in p}
        self.roots = _roots(self.paths)
        self._summaries: dict[str, Summary | None] = {}

    def find(self, dotted: str) -> str | None:
        """The file of a module named as `import` names it, from the first root that has it."""
        for root in self.roots:
            found = self.file(root + dotted.replace(".", "/"))
            if found is not None:
                return found
        return None

    def file(self, stem: str) -> str | None:
        """`a/b` -> `a/b.py` or `a/b/__init__.py`, whichever exists."""
        for candidate in (stem + ".py", stem + "/__init__.py"):
            if candidate in self.paths:
                return candidate
        return None

    def package_main(self, dotted: str) -> str | None:
        """`python -m pkg` runs `pkg/__main__.py`."""
        for root in self.roots:
            candidate = root + dotted.replace(".", "/") + "/__main__.py"
            if candidate in self.paths:
                return candidate
        return None

    def is_package(self, stem: str) -> bool:
        return stem in self._dirs

    def summary(self, path: str) -> Summary | None:
        if path in self._summaries:
            return self._summaries[path]
        blob = self.tree.blob_id(path)
        key = f"{_FORMAT}:{blob}" if blob else None
        found: Summary | None = None
        hit = self.cache.get(key) if self.cache is not None and key is not None else None
        if isinstance(hit, Summary):
            found = hit
        else:
            text = self.tree.read(path)
            found = summarize(text) if text is not None else None
            if found is not None and self.cache is not None and key is not None:
                self.cache[key] = found
        self._summaries[path] = found
        return found

    def registered_on(self, path: str) -> frozenset[str]:
        """The modules of `path`'s package whose commands are registered on a group or app it
        defines (`from .main import app` then `@app.command()`): nothing imports them through a
        name the program uses, they add themselves. Only for a module declaring a click or typer
        command line; at most MAX_REGISTERING modules of the package are read."""
        summary = self.summary(path)
        if summary is None or not summary.decorated or not summary.units[TOP].declares:
            return frozenset()
        folder = path.rpartition("/")[0]
        siblings = sorted(
            p for p in self.paths if p.endswith(".py") and p.startswith(folder + "/") and p != path
        )
        found: set[str] = set()
        for other in siblings[:MAX_REGISTERING]:
            theirs = self.summary(other)
            if theirs is None or not theirs.decorated or not any(u.declares for u in theirs.units.values()):
                continue
            if any(at == path for name in theirs.imports for at, _ in self._follow(other, theirs, name)):
                found.add(other)
        return frozenset(found)

    def reach(self, starts: Iterable[tuple[str, str]]) -> frozenset[str]:
        """The modules holding add_argument calls that the units `starts` (path, name) lead to,
        and those defining the classes and functions a builder of typed flags is handed."""
        starts = list(starts)
        entries = {path for path, _ in starts}
        declaring: set[str] = set()
        seen: set[tuple[str, str, bool]] = set()
        # (path, name, built): `built` says the unit is made into flags (and so are its bases)
        stack = [(path, name, False) for path, name in starts]
        while stack:
            item = stack.pop()
            if item in seen:
                continue
            seen.add(item)
            path, name, built = item
            summary = self.summary(path)
            if summary is None:
                continue
            unit = summary.units.get(name)
            if unit is None:
                # Not defined here: re-exported (`from .harness import HarnessCLI` in __init__.py)
                # or bound by top-level code (`parser = build()`).
                if name in summary.imports:
                    stack.extend((*found, built) for found in self._follow(path, summary, name))
                elif built and name in (summary.values or {}):
                    stack.extend(self._refs(path, summary, (summary.values or {})[name], True))
                elif name in summary.assigned:
                    stack.append((path, TOP, False))
                    if summary.decorated:  # an app or group: its commands are what it runs
                        stack.extend((path, u, False) for u, of in summary.units.items() if of.declares)
                elif summary.stars and not name.startswith("_"):
                    # `from .defaults import *` in a package's __init__.py: a public name the
                    # modules it star-imports may bind (each is asked, as Python would look).
                    stack.extend((*found, built) for found in self._starred(path, summary, name))
                continue
            if unit.declares or (built and name not in (TOP, MAIN)):
                declaring.add(path)
                if summary.decorated and unit.declares and name != TOP:
                    stack.append((path, TOP, False))  # `cli.add_command(orders)`, `app.add_typer(...)`
            if built:  # a class made into flags: its bases (and what its fields name) are too
                stack.extend(self._refs(path, summary, unit.refs, True))
                continue
            stack.extend(self._refs(path, summary, unit.builds, True))
            for callee, given in unit.handed:
                if any(self._builder(p, n) for p, n, _ in self._refs(path, summary, [callee], False)):
                    stack.extend(self._refs(path, summary, given, True))
            if path not in entries and not summary.argparse and not self._command_class(path, name):
                continue
            # `a` and `a.b` of `a.b.c`: what only leads to a longer reference is no value
            inner = {ref[:i] for ref in unit.refs for i, c in enumerate(ref) if c == "."}
            for ref in unit.refs:
                head = ref.split(".", 1)[0]
                if head in summary.units and head not in (TOP, MAIN):
                    stack.append((path, head, False))
                elif head in summary.imports:
                    followed = self._follow(path, summary, ref)
                    if not followed and ref not in inner:
                        followed = self._whole(path, summary, ref)
                    stack.extend((*found, False) for found in followed)
                elif head in summary.assigned and name not in (TOP, MAIN):
                    stack.append((path, TOP, False))
        return frozenset(declaring)

    def _command_class(self, path: str, name: str) -> bool:
        """Is `name` of module `path` a class deriving from one whose methods make parsers
        (`add_parser`, `ArgumentParser(...)`, `add_argument`), a few bases up? Such a base builds
        each subclass's parser from what the subclass says (optimum's `BaseOptimumCLICommand`
        adds a subparser named by `COMMAND` and one for each class `SUBCOMMANDS` lists), so the
        classes a subclass names are parts of the command line, though its module names no
        argparse."""
        for _ in range(MAX_BASES):
            summary = self.summary(path)
            bases = (summary.bases or {}).get(name) if summary is not None else None
            if summary is None or not bases:
                return False
            found = [(p, n) for p, n, _ in self._refs(path, summary, bases, False) if (p, n) != (path, name)]
            defined = [d for d in (self.definition(p, n) for p, n in found) if d is not None]
            for base_path, base in defined:
                unit = self._unit(base_path, base)
                if unit is not None and any(r.rpartition(".")[2] in _PARSER_CALLS for r in unit.refs):
                    return True
            if not defined:
                return False
            path, name = defined[0]  # up the first base
        return False

    def definition(self, path: str, name: str) -> tuple[str, str] | None:
        """Where `name` of module `path` is defined, through re-exports."""
        for _ in range(6):
            summary = self.summary(path)
            if summary is None:
                return None
            if name in summary.units:
                return path, name
            if name not in summary.imports:
                return None
            found = self._follow(path, summary, name)
            if not found:
                return None
            path, name = found[0]
        return None

    def _unit(self, path: str, name: str) -> Unit | None:
        summary = self.summary(path)
        return summary.units.get(name) if summary is not None else None

    def _builder(self, path: str, name: str) -> bool:
        """`name` of module `path` is a class subclassing a builder of typed flags, defined
        there or re-exported (`from .scripts import TrlParser` in a package's __init__.py)."""
        for _ in range(6):
            summary = self.summary(path)
            if summary is None or name in summary.units or name not in summary.imports:
                return summary is not None and name in summary.builder_classes
            found = self._follow(path, summary, name)
            if not found:
                return False
            path, name = found[0]
        return False

    def _refs(
        self, path: str, summary: Summary, refs: Iterable[str], built: bool
    ) -> list[tuple[str, str, bool]]:
        """Where the references `refs` of a unit of `path` lead, each marked `built`."""
        out: list[tuple[str, str, bool]] = []
        for ref in refs:
            head = ref.split(".", 1)[0]
            if head in summary.units and head not in (TOP, MAIN):
                out.append((path, head, built))
            elif head in summary.imports:
                out.extend((*found, built) for found in self._follow(path, summary, ref))
            elif head in (summary.values or {}):
                out.append((path, head, built))
        return out

    def follow(self, path: str, summary: Summary, ref: str) -> list[tuple[str, str]]:
        """Where a reference through a name `path` imports leads: (module path, name in it)."""
        return self._follow(path, summary, ref)

    def _follow(self, path: str, summary: Summary, ref: str) -> list[tuple[str, str]]:
        """Where a reference through an imported name leads: (module path, name in it)."""
        head, *rest = ref.split(".")
        out: list[tuple[str, str]] = []
        for imp in summary.imports[head]:
            if imp.level:
                base = path.split("/")[:-1]
                if imp.level > 1:
                    base = base[: len(base) - (imp.level - 1)] if len(base) >= imp.level - 1 else []
                stem = "/".join([*base, *([imp.module.replace(".", "/")] if imp.module else [])])
                roots = [stem]
            else:
                roots = [root + imp.module.replace(".", "/") for root in self.roots]
            for stem in roots:
                found = self._resolve(stem, imp.name, rest)
                if found is not None:
                    out.append(found)
                    break
        return out

    def _starred(self, path: str, summary: Summary, name: str) -> list[tuple[str, str]]:
        """(module, name) for each module `path` star-imports."""
        out: list[tuple[str, str]] = []
        for imp in summary.stars:
            found = self._follow(path, replace(summary, imports={name: (imp._replace(name=name),)}), name)
            out.extend(found)
        return out

    def _whole(self, path: str, summary: Summary, ref: str) -> list[tuple[str, str]]:
        """A reference that is a module of the repository itself, passed around as a value
        (`CMD_MODULES = [pkg.cli.serve, ...]`, then `module.cmd_init()` for each) or imported
        for what running it defines: which of its functions run is decided at run time, so each
        unit of it (not its `__main__` blocks, which an import does not run)."""
        head, *rest = ref.split(".")
        out: list[tuple[str, str]] = []
        for imp in summary.imports[head]:
            if imp.level or imp.name is not None:
                continue  # a from-import binds a name in a module, not the module (`_follow`)
            for root in self.roots:
                found = self.file(root + "/".join([*imp.module.split("."), *rest]))
                if found is not None:
                    module = self.summary(found)
                    out += [(found, u) for u in (module.units if module else ()) if u != MAIN]
                    break
        return out

    def _resolve(self, stem: str, name: str | None, rest: list[str]) -> tuple[str, str] | None:
        """`stem` is a module; `name` an attribute imported from it; `rest` the reference's tail."""
        parts = ([name] if name else []) + rest
        # The longest prefix of the chain that is a module: `import a.b` then `a.b.c.f`.
        for cut in range(len(parts), -1, -1):
            module_stem = "/".join([stem, *parts[:cut]]) if stem else "/".join(parts[:cut])
            found = self.file(module_stem)
            if found is None:
                continue
            if cut < len(parts):
                return found, parts[cut]
            return None  # the module itself is passed around: nothing is called yet
        return None


def _roots(paths: frozenset[str]) -> tuple[str, ...]:
    """Folders imports are resolved from: the repository's top, `src/`, and every project folder."""
    found = {""}
    for path in paths:
        folder, _, name = path.rpartition("/")
        if name in PROJECT_FILES and folder.count("/") < 3:
            found.add(folder + "/" if folder else "")
    for root in list(found):
        if any(p.startswith(root + "src/") for p in paths):
            found.add(root + "src/")
    return tuple(sorted(found, key=lambda r: (r.count("/"), r)))
