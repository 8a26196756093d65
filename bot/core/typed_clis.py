"""Command lines made of typed parameters, found for `docs-sync init`: the calls that build one
(`HfArgumentParser((ModelArguments, DataArguments))`, `tyro.cli(Config)`, `CLI(main)`,
`LightningCLI(Model, Data)`, `fire.Fire(main)`), the classes and functions they are handed,
followed through the repository's imports to where they are defined, and from there to what
makes their flags: a dataclass's bases (HfArgumentParser), the dataclasses its fields nest
(`--optimizer.lr`, tyro and jsonargparse). Each becomes one source of the rule: the files it
spans, and its `names`.

Pure, and nothing executed: files are read from the tree and parsed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from bot.core.extract import parsed, tyro_flags, walk
from bot.core.extract.constants import dotted
from bot.core.extract.imports import Modules
from bot.core.extract.nested_flags import NO_FLAG
from bot.core.extract.typed_fields import (
    annotated_extras,
    is_dataclass,
    last,
    module_functions,
    nested_classes,
    read_annotation,
    without_none,
)
from bot.core.model import Tree
from bot.core.rules import Source

KINDS = ("hf-dataclass", "tyro", "jsonargparse", "fire")
_MARKERS = ("HfArgumentParser", "tyro", "jsonargparse", "LightningCLI", "fire")
MAX_NAMES = 200  # classes one command line is followed to
MAX_HOPS = 6  # re-exports followed to a definition


@dataclass(frozen=True)
class TypedCli:
    """One command line made of typed parameters."""

    path: str  # the module of the builder call
    kind: str  # hf-dataclass | tyro | jsonargparse | fire
    flags: frozenset[str]
    paths: tuple[str, ...]  # the files defining its classes and functions
    names: tuple[str, ...]  # the rule's `names`: those classes and functions (`prefix=Class`)
    programs: tuple[str, ...] = ()  # console scripts that import the builder but reach it unseen
    separator: str = "-"  # how the pages spell its flags' words (tyro takes both)


@dataclass(frozen=True)
class Root:
    kind: str
    prefix: str  # the group its flags are under ("" at the top)
    path: str  # the module where the builder call is
    name: str  # as that module names it


def found(tree: Tree, paths: Iterable[str], max_text: int) -> list[TypedCli]:
    """One command line per builder call whose classes the repository defines (its flags: all of
    theirs). Files longer than `max_text` are data, not code."""
    from bot.core.extract import extract  # imported when init runs

    modules = Modules(tree)
    reached: dict[str, object] = {}  # what _programs learnt once for every command line
    out: list[TypedCli] = []
    paths = list(paths)
    hf = hf_parsers(tree, paths, max_text)
    markers = (*_MARKERS, *sorted(hf))
    for path in paths:
        text = tree.read(path)
        if text is None or len(text) > max_text or not any(m in text for m in markers):
            continue
        module = _parse(text)
        if module is None:
            continue
        calls = _calls(path, module, "tyro" in text, hf)
        calls += [
            ("hf-dataclass", roots)
            for roots in handed_roots(tree, modules, paths, path, module, hf, max_text)
        ]
        for kind, roots in calls:
            names: dict[str, set[str]] = {}  # file -> names entries
            if kind == "tyro":  # a class, a function, or a union of subcommands: what tyro is handed
                roots = [Root(kind, "", path, r.name) for r in tyro_flags.cli_roots(module)]
            for root in roots:
                follow(modules, kind, root, names, max_text)
            every = tuple(sorted({n for entries in names.values() for n in entries}))
            if not names and kind == "tyro":
                names = {path: set()}  # a union of subcommands the file builds: it finds them itself
            flags: set[str] = set()
            for file in sorted(names):
                source = Source(id="cli", kind=kind, paths=(file,), names=every)
                content = tree.read(file)
                if content is not None:
                    flags |= {f.token for f in extract(source, file, content).facts if f.kind == "flag"}
            if flags:
                cli = TypedCli(path, kind, frozenset(flags), tuple(sorted(names)), every)
                out.append(replace(cli, programs=_programs(tree, modules, cli, reached)))
    return _merged(out)


def _programs(tree: Tree, modules: Modules, cli: TypedCli, memo: dict[str, object]) -> tuple[str, ...]:
    """The console scripts whose entry module imports the builder's module (through any chain of
    the repository's imports) while the program's own reach, which follows only argparse-aware
    modules, does not find its flags: `llamafactory-cli` runs a trainer that parses them."""
    from bot.core.programs import Programs, programs  # it reads the extractors' modules

    found = memo.get("") or programs(tree, modules.cache)
    assert isinstance(found, Programs)
    memo[""] = found
    out = []
    for name, script in sorted(found.scripts.items()):
        entry = modules.find(script.module)
        if entry is None or set(cli.paths) & found.parsers(entry):
            continue
        closure = memo.get(entry)
        if not isinstance(closure, set):
            closure = memo[entry] = _imported(modules, entry)
        if cli.path in closure:
            out.append(name)
    return tuple(out)


MAX_IMPORTED = 3000  # modules an entry point's imports are followed to


def _imported(modules: Modules, start: str) -> set[str]:
    """Every module of the repository `start` imports, directly or not."""
    seen = {start}
    stack = [start]
    while stack and len(seen) < MAX_IMPORTED:
        path = stack.pop()
        summary = modules.summary(path)
        for imports in summary.imports.values() if summary else ():
            for imp in imports:
                for file in _files(modules, path, imp.module, imp.level, imp.name):
                    if file not in seen:
                        seen.add(file)
                        stack.append(file)
    return seen


def _files(modules: Modules, path: str, module: str, level: int, name: str | None) -> list[str]:
    if level:
        base = path.split("/")[:-1]
        base = base[: len(base) - (level - 1)] if level > 1 else base
        stems = ["/".join([*base, *([module.replace(".", "/")] if module else [])])]
    else:
        stems = [root + module.replace(".", "/") for root in modules.roots]
    out = []
    for stem in stems:
        for candidate in (stem, f"{stem}/{name}" if name else None):
            found = modules.file(candidate) if candidate else None
            if found is not None:
                out.append(found)
        if out:
            break
    return out


def _merged(found: list[TypedCli]) -> list[TypedCli]:
    """Command lines of one kind that share a file are one source: a project's train, chat and
    export entry points parse overlapping sets of the same dataclasses."""
    out: list[TypedCli] = []
    for cli in found:
        overlapping = [o for o in out if o.kind == cli.kind and set(o.paths) & set(cli.paths)]
        for o in overlapping:
            out.remove(o)
        parts = [*overlapping, cli]
        out.append(
            TypedCli(
                parts[0].path,
                cli.kind,
                frozenset().union(*(p.flags for p in parts)),
                tuple(sorted({f for p in parts for f in p.paths})),
                tuple(sorted({n for p in parts for n in p.names})),
                tuple(sorted({n for p in parts for n in p.programs})),
            )
        )
    return out


def _parse(text: str) -> ast.Module | None:
    try:
        return parsed.module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def hf_parsers(tree: Tree, paths: list[str], max_text: int) -> frozenset[str]:
    """`HfArgumentParser` and the classes of the repository subclassing it, directly or through
    another (`class TrlParser(HfArgumentParser)`): each builds flags of the dataclasses it is
    handed, as its base does."""
    from bot.core.extract.imports import builder_subclasses

    found = {"HfArgumentParser"}
    for _ in range(MAX_HOPS):
        grown = set(found)
        for path in paths:
            text = tree.read(path) if path.endswith(".py") else None
            if text is None or len(text) > max_text or "class " not in text:
                continue
            if not any(n in text for n in found):
                continue
            module = _parse(text)
            if module is not None:
                grown |= builder_subclasses(module, frozenset(found))
        if grown == found:
            break
        found = grown
    return frozenset(found)


def _calls(
    path: str, module: ast.Module, tyro: bool, hf: frozenset[str] = frozenset({"HfArgumentParser"})
) -> list[tuple[str, list[Root]]]:
    """(kind, roots) of each builder call in the module; `hf` names HfArgumentParser and its
    subclasses."""
    out: list[tuple[str, list[Root]]] = []
    assigned = _top_assignments(module)
    for node in walk.nodes(module):
        if not isinstance(node, ast.Call):
            continue
        called = dotted(node.func)
        handed = [k.value for k in node.keywords if k.arg == "dataclass_types"]
        first = node.args[0] if node.args else handed[0] if handed else None
        if last(node.func) in hf and first is not None:
            items = _items(first, assigned)
            out.append(("hf-dataclass", [Root("hf-dataclass", "", path, n) for n in items]))
        elif tyro and called in ("tyro.cli", "cli") and first is not None:
            out.append(("tyro", [Root("tyro", "", path, first.id)] if isinstance(first, ast.Name) else []))
        elif called in ("CLI", "jsonargparse.CLI", "auto_cli", "jsonargparse.auto_cli") and first is not None:
            out.append(("jsonargparse", [Root("jsonargparse", "", path, n) for n in _items(first, assigned)]))
        elif called in ("fire.Fire", "Fire") and first is not None:
            out.append(("fire", [Root("fire", "", path, n) for n in _items(first, assigned)]))
        elif last(node.func) == "LightningCLI":
            from bot.core.extract.jsonargparse_flags import lightning_roots

            roots = [Root("jsonargparse", r.prefix, path, r.name) for r in lightning_roots(node)]
            if roots:
                out.append(("jsonargparse", roots))
    return out


def _top_assignments(module: ast.Module) -> dict[str, ast.expr]:
    """Names assigned at module level or in a top-level function's body (`def main():
    parser_data = {...}; CLI(parser_data)`); a module-level name wins."""
    out: dict[str, ast.expr] = {}
    bodies = [n.body for n in module.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for stmt in [s for body in bodies for s in body] + module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            out[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            out[stmt.target.id] = stmt.value
    return out


def _items(node: ast.expr, assigned: dict[str, ast.expr]) -> list[str]:
    """The names a builder is handed: `X`, `(X, Y)`, `[X, Y]`, `{"sub": f}`, or a name holding one;
    each may be a module's (`grpo_utils.GRPOExperimentConfig`) or cast (`cast(DataClassType, X)`)."""
    node = _uncast(node)
    if isinstance(node, ast.Name) and isinstance(assigned.get(node.id), ast.List | ast.Tuple | ast.Dict):
        node = assigned[node.id]
    if isinstance(node, ast.Dict):  # subcommands: name -> function
        found = [_named(v) for v in node.values]
    elif isinstance(node, ast.List | ast.Tuple):
        found = [_named(e) for e in node.elts]
    else:
        found = [_named(node)]
    return [n for n in found if n is not None]


def _uncast(node: ast.expr) -> ast.expr:
    """`typing.cast(T, x)` is `x` at run time."""
    if isinstance(node, ast.Call) and dotted(node.func) in ("cast", "typing.cast") and len(node.args) == 2:
        return node.args[1]
    return node


def _named(node: ast.expr | None) -> str | None:
    node = _uncast(node) if node is not None else None
    return dotted(node) if isinstance(node, ast.Name | ast.Attribute) else None


MAX_CALLERS = 200  # modules searched for the calls of a function handing its parameter on


def handed_roots(
    tree: Tree,
    modules: Modules,
    paths: list[str],
    path: str,
    module: ast.Module,
    hf: frozenset[str],
    max_text: int,
) -> list[list[Root]]:
    """The classes a function of `path` hands HfArgumentParser through a parameter
    (`def parse_args(class_type, argv): HfArgumentParser([class_type])`), read at each call of
    that function in the repository: a class named there (`parse_args(SftArguments)`), or, for
    `self.args_class` in a method, the `args_class = SftArguments` of the method's class and of
    every class deriving from it (a pipeline per subcommand). One list of roots per caller."""
    handing = _handing_functions(module, hf)
    out: list[list[Root]] = []
    for function, index in handing:
        needle = f"{function}("
        searched = 0
        for caller in paths:
            text = tree.read(caller) if caller.endswith(".py") else None
            if text is None or len(text) > max_text or needle not in text:
                continue
            searched += 1
            if searched > MAX_CALLERS:
                break
            parsed_caller = _parse(text)
            if parsed_caller is None:
                continue
            for owner, call in _calls_in(parsed_caller, function):
                where = definition(modules, caller, dotted(call.func) or "", max_text)
                if where is None or (where[0], where[1]) != (path, function):
                    continue
                arg = call.args[index] if index < len(call.args) else None
                roots = _argument_roots(tree, modules, paths, caller, owner, arg, max_text)
                if roots:
                    out.append(roots)
    return out


def _handing_functions(module: ast.Module, hf: frozenset[str]) -> list[tuple[str, int]]:
    """(function, parameter index) of each top-level function that hands HfArgumentParser one of
    its own parameters."""
    out: list[tuple[str, int]] = []
    for fn in module.body:
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
        for node in walk.every(fn):
            if isinstance(node, ast.Call) and last(node.func) in hf and node.args:
                for name in _items(node.args[0], {}):
                    if name in params and (fn.name, params.index(name)) not in out:
                        out.append((fn.name, params.index(name)))
    return out


def _calls_in(module: ast.Module, function: str) -> list[tuple[ast.ClassDef | None, ast.Call]]:
    """The calls of `function` (by its last name) in a module, each with the top-level class whose
    method makes it (None outside a class)."""
    out: list[tuple[ast.ClassDef | None, ast.Call]] = []
    for stmt in module.body:
        owner = stmt if isinstance(stmt, ast.ClassDef) else None
        for node in walk.every(stmt):
            if isinstance(node, ast.Call) and last(node.func) == function:
                out.append((owner, node))
    return out


def _argument_roots(
    tree: Tree,
    modules: Modules,
    paths: list[str],
    caller: str,
    owner: ast.ClassDef | None,
    arg: ast.expr | None,
    max_text: int,
) -> list[Root]:
    """The classes an argument names: itself, or a class attribute read through `self`/`cls`."""
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id in ("self", "cls"):
        if owner is None:
            return []
        return _attribute_values(tree, modules, paths, (caller, owner.name), arg.attr, max_text)
    name = _named(arg)
    return [Root("hf-dataclass", "", caller, name)] if name is not None else []


def _attribute_values(
    tree: Tree, modules: Modules, paths: list[str], owner: tuple[str, str], attr: str, max_text: int
) -> list[Root]:
    """The values of the class attribute `attr = Name` in the class `owner` and in every class of
    the repository deriving from it (each class's base followed through its module's imports)."""
    needle = re.compile(rf"^\s+{re.escape(attr)}\s*=", re.M)
    out: list[Root] = []
    for path in paths:
        text = tree.read(path) if path.endswith(".py") else None
        if text is None or len(text) > max_text or not needle.search(text):
            continue
        module = _parse(text)
        for node in module.body if module is not None else ():
            if not isinstance(node, ast.ClassDef):
                continue
            value = next(
                (
                    s.value
                    for s in node.body
                    if isinstance(s, ast.Assign)
                    and len(s.targets) == 1
                    and isinstance(s.targets[0], ast.Name)
                    and s.targets[0].id == attr
                ),
                None,
            )
            name = _named(value)
            if name is not None and _derives(modules, path, node, owner, max_text):
                out.append(Root("hf-dataclass", "", path, name))
    return out


def _derives(modules: Modules, path: str, node: ast.ClassDef, owner: tuple[str, str], max_text: int) -> bool:
    """The class `node` of `path` is `owner` or derives from it, its bases followed up to MAX_HOPS."""
    stack = [(path, node, 0)]
    while stack:
        file, cls, depth = stack.pop()
        if (file, cls.name) == owner:
            return True
        if depth >= MAX_HOPS:
            continue
        for base in cls.bases:
            spelt = dotted(base) if isinstance(base, ast.Name | ast.Attribute) else None
            where = definition(modules, file, spelt, max_text) if spelt else None
            if where is not None and isinstance(where[2], ast.ClassDef):
                stack.append((where[0], where[2], depth + 1))
    return False


def follow(
    modules: Modules,
    kind: str,
    root: Root,
    names: dict[str, set[str]],
    max_text: int,
    groups: list[tuple[str, str, str]] | None = None,
) -> None:
    """Record where `root` is defined, then its bases (hf) or its nested dataclasses (tyro,
    jsonargparse), each as a names entry of its own file. `groups` gets (prefix, file, class)
    of each class a field nests (not reached as a base)."""
    stack = [(root.path, root.name, root.prefix, 0, False)]
    seen: set[tuple[str, str, str]] = set()
    while stack and sum(len(v) for v in names.values()) < MAX_NAMES:
        path, name, prefix, depth, nested = stack.pop()
        where = definition(modules, path, name, max_text)
        if where is None or (where[0], where[1], prefix) in seen or depth > MAX_HOPS:
            continue
        file, defined, node = where
        seen.add((file, defined, prefix))
        names.setdefault(file, set()).add(f"{prefix}={defined}" if prefix else defined)
        if nested and groups is not None:
            groups.append((prefix, file, defined))
        typed: list[tuple[str, ast.expr]] = []  # (parameter, class) that may nest a group
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            typed = [(p.arg, p.annotation) for p in (*a.args, *a.kwonlyargs) if p.annotation is not None]
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:  # a base's fields are the class's, under the same group
                if isinstance(base, ast.Name | ast.Attribute) and last(base) not in ("object",):
                    stack.append((file, ast.unparse(base), prefix, depth + 1, False))
            # A field's group is the class its default is made by (tyro reads a default's own
            # class, a subclass of the annotation's), else its annotation's.
            typed = [
                (s.target.id, _factory(s.value) or s.annotation)
                for s in node.body
                if isinstance(s, ast.AnnAssign)
                and isinstance(s.target, ast.Name)
                and not _no_flag(s.annotation)
            ]
        if kind == "hf-dataclass":
            continue
        local = nested_classes(_module(modules, file, max_text) or ast.Module(body=[], type_ignores=[]))
        for name_, written in typed:
            annotation, _ = without_none(read_annotation(written))
            spelt = dotted(annotation) if isinstance(annotation, ast.Name | ast.Attribute) else None
            if spelt is None or (spelt in local and is_dataclass(local[spelt])):
                continue  # a nested class of the same file: the extractor follows it there
            field = name_.replace("_", "-") if kind == "tyro" else name_
            stack.append((file, spelt, f"{prefix}.{field}" if prefix else field, depth + 1, True))


def _no_flag(annotation: ast.expr) -> bool:
    """`Annotated[X, tyro.conf.Suppress]`: a field tyro makes no flag of, nor a group."""
    if isinstance(annotation, ast.Subscript) and last(annotation.value) in NO_FLAG:
        return True
    return any(last(extra) in NO_FLAG for extra in annotated_extras(annotation))


def _factory(value: ast.expr | None) -> ast.expr | None:
    """The class of `field(default_factory=Profiler.Config)` or of a default `Config(...)`."""
    if isinstance(value, ast.Call) and last(value.func) == "field":
        made = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
        return made if isinstance(made, ast.Name | ast.Attribute) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name | ast.Attribute):
        head = (dotted(value.func) or "").rsplit(".", 1)[-1]
        return value.func if head[:1].isupper() else None
    return None


def definition(modules: Modules, path: str, name: str, max_text: int) -> tuple[str, str, ast.AST] | None:
    """(file, name, node) where `name`, as module `path` uses it, is defined in the repository;
    `Profiler.Config` is the class `Config` inside the class `Profiler` the module imports."""
    for _ in range(MAX_HOPS):
        module = _module(modules, path, max_text)
        if module is None:
            return None
        head, _, tail = name.partition(".")
        defined = {**nested_classes(module), **module_functions(module)}
        if name in defined:
            return path, name, defined[name]
        summary = modules.summary(path)
        if summary is None or head not in summary.imports:
            return None
        targets = modules._follow(path, summary, head) if tail else []
        if targets:  # the imported class, its nested class's name after it
            path, name = targets[0][0], f"{targets[0][1]}.{tail}"
            continue
        targets = modules._follow(path, summary, name)
        if not targets:
            return None
        path, name = targets[0]
    return None


def _module(modules: Modules, path: str, max_text: int) -> ast.Module | None:
    text = modules.tree.read(path)
    return _parse(text) if text is not None and len(text) <= max_text else None
