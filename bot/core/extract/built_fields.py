"""Calls that hand a dataclass of this module to a function imported from another, as facts of
kind `built-fields`: the function may make the class's fields flags of the parser it is handed
(sglang's `add_cli_args_from_dataclass(parser, ServerArgs)`). Extraction reads one file, so the
reference is all it says; `gather` resolves it against the other module
(bot/core/extract/field_builders.py) and drops it.

A builder may be a class of another module handed the dataclass, whose method is then handed
the parser (Megatron's `ArgumentGroupFactory(TransformerConfig, exclude=[...])`, then
`.build_group(parser, "title")`, chained or through a name): the dataclass may be imported too
(bot/core/extract/class_builders.py reads it where it is defined).
"""

from __future__ import annotations

import ast
import json
from typing import Final

from bot.core.extract import walk
from bot.core.extract.constants import dotted
from bot.core.model import Fact

BUILT: Final = "built-fields"


def _from_imported(tree: ast.Module) -> set[str]:
    """The names the module's top level binds with `from ... import`."""
    return {
        alias.asname or alias.name
        for stmt in tree.body
        if isinstance(stmt, ast.ImportFrom)
        for alias in stmt.names
    }


def hands_out_foreign_class(tree: ast.Module) -> bool:
    """Does the module hand an imported function a parser with a class it imports, or an instance
    of one (`gen_parser_from_dataclass(parser, CommonConfig())`, fairseq's; `add_args(group,
    DEFAULT_CONFIG)`)? That function makes flags of a class no reference here follows
    (`references` follows this module's own), so the parser has flags the module does not show.
    Handed something else first, it makes none (`pad_or_trim(mel, N_FRAMES)`, whisper's)."""
    imported = _from_imported(tree)
    if not imported:
        return False
    parsers: set[str] | None = None
    for node in walk.nodes(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported):
            continue
        if len(node.args) < 2 or node.func.id[:1].isupper():
            continue
        for arg in node.args[1:]:
            cls = arg.func if isinstance(arg, ast.Call) and not arg.args else arg
            if isinstance(cls, ast.Name) and cls.id in imported and cls.id[:1].isupper():
                if parsers is None:
                    parsers = _parser_names(tree)
                if _a_parser(node.args[0], parsers):
                    return True
    return False


_MAKES_PARSER = frozenset(
    {"ArgumentParser", "add_argument_group", "add_mutually_exclusive_group", "add_parser"}
)


def _parser_names(tree: ast.Module) -> set[str]:
    """Names the module binds to a parser or a group of one (`p = argparse.ArgumentParser()`,
    `group = parser.add_argument_group(...)`) or declares flags on (`p.add_argument(...)`)."""
    out: set[str] = set()
    for node in walk.nodes(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            made = dotted(node.value.func) or ""
            if made.rpartition(".")[2] in _MAKES_PARSER:
                out.update(dotted(t) or "" for t in node.targets)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            out.add(dotted(node.func.value) or "")
    out.discard("")
    return out


def _a_parser(node: ast.expr, parsers: set[str]) -> bool:
    """Is `node` a parser: one the module makes or declares flags on, or a name saying so (a
    function's `parser` parameter, `self.parser`)?"""
    written = dotted(node)
    if written is None:
        return False
    return written in parsers or any(w in written.rpartition(".")[2].lower() for w in ("parser", "group"))


def references(tree: ast.Module, source_id: str, path: str) -> list[Fact]:
    """Calls that hand a dataclass of this module, and something else, to an imported function;
    and imported builder classes handed a class whose method is then handed the parser."""
    imported = _from_imported(tree)
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef) and _is_dataclass(n)}
    out = _instances(tree, source_id, path, classes)
    if not imported or not classes:
        return out
    for node in walk.nodes(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported):
            continue
        if any(isinstance(a, ast.Starred) for a in node.args) or len(node.args) < 2:
            continue
        given = [i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id in classes]
        keywords = _literal_keywords(node)
        if len(given) != 1 or keywords is None:
            continue
        cls_at = given[0]
        cls = node.args[cls_at]
        assert isinstance(cls, ast.Name)
        attrs = (
            ("arguments", str(len(node.args))),
            ("class-at", str(cls_at)),
            ("keywords", json.dumps(keywords, sort_keys=True)),
        )
        out.append(
            Fact(
                kind=BUILT,
                token=node.func.id,
                key=cls.id,
                source=source_id,
                path=path,
                line=node.lineno,
                attrs=attrs,
            )
        )
    return out


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted(target) in ("dataclass", "dataclasses.dataclass"):
            return True
    return False


def _literal_keywords(
    call: ast.Call, assigned: dict[str, ast.expr] | None = None
) -> dict[str, object] | None:
    out: dict[str, object] = {}
    for k in call.keywords:
        if k.arg is None:
            return None
        found = _literal(k.value, assigned or {})
        if found is _NO_LITERAL:
            return None
        out[k.arg] = found
    return out


# --- builder classes: `Factory(Config, ...).method(parser, ...)` ---------------------------------


def _instances(tree: ast.Module, source_id: str, path: str, dataclasses: set[str]) -> list[Fact]:
    """`Factory(Config, exclude=[...]).build_group(parser, "title")`, chained or through a name
    the scope assigns once, with `Factory` imported and `Config` imported or a dataclass here."""
    out: list[Fact] = []
    everything = walk.nodes(tree)
    anywhere = {a.asname or a.name for n in everything if isinstance(n, ast.ImportFrom) for a in n.names}
    if not _hands_over(everything, anywhere, anywhere | dataclasses):
        return out
    for scope in [tree, *(n for n in everything if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))]:
        imported = {
            alias.asname or alias.name
            for stmt in walk.every(scope)
            if isinstance(stmt, ast.ImportFrom)
            for alias in stmt.names
        } | {a.asname or a.name for stmt in tree.body if isinstance(stmt, ast.ImportFrom) for a in stmt.names}
        assigned = _assigned_once(scope)
        for node in _own_nodes(scope):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            made = node.func.value
            if isinstance(made, ast.Name) and isinstance(assigned.get(made.id), ast.Call):
                made = assigned[made.id]
            if not (
                isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and made.func.id in imported
            ):
                continue
            given = [
                i
                for i, a in enumerate(made.args)
                if isinstance(a, ast.Name) and (a.id in imported or a.id in dataclasses)
            ]
            keywords = _literal_keywords(made, assigned)
            method = _method_arguments(node, assigned)
            if len(given) != 1 or keywords is None or method is None or _starred(made):
                continue
            cls = made.args[given[0]]
            assert isinstance(cls, ast.Name)
            attrs = (
                ("arguments", str(len(made.args))),
                ("class-at", str(given[0])),
                ("keywords", json.dumps(keywords, sort_keys=True)),
                ("method", node.func.attr),
                ("method-arguments", json.dumps(method, sort_keys=True)),
            )
            out.append(
                Fact(
                    kind=BUILT,
                    token=made.func.id,
                    key=cls.id,
                    source=source_id,
                    path=path,
                    line=node.lineno,
                    attrs=attrs,
                )
            )
    return out


def _hands_over(nodes: list[ast.AST], imported: set[str], given: set[str]) -> bool:
    """Does any call of an imported name hand it one of `given`? Every builder `_instances` reads
    is such a call, and most modules have none: their functions are not read scope by scope."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in imported
        and any(isinstance(a, ast.Name) and a.id in given for a in node.args)
        for node in nodes
    )


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a function or module body outside the functions and classes it defines."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _assigned_once(scope: ast.AST) -> dict[str, ast.expr]:
    """Names the scope binds exactly once, by a plain assignment: what each stands for."""
    seen: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            seen[node.id] = seen.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    return {k: v for k, v in values.items() if seen.get(k) == 1}


def _starred(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)


def _method_arguments(call: ast.Call, assigned: dict[str, ast.expr]) -> dict[str, object] | None:
    """The method's arguments: literals as values, anything else the parser (`{"parser": true}`):
    only the parser's `add_argument` calls are read, so a wrong guess declares nothing."""
    if _starred(call):
        return None

    def one(node: ast.expr) -> object:
        found = _literal(node, assigned)
        return {"value": found} if found is not _NO_LITERAL else {"parser": True}

    return {
        "args": [one(a) for a in call.args],
        "keywords": {k.arg: one(k.value) for k in call.keywords if k.arg},
    }


_NO_LITERAL = object()


def _literal(node: ast.expr, assigned: dict[str, ast.expr]) -> object:
    if isinstance(node, ast.Name) and node.id in assigned:
        node = assigned[node.id]  # `exclude = [...]` then `Factory(Config, exclude=exclude)`
    try:
        found = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NO_LITERAL
    if not isinstance(found, str | int | float | bool | type(None) | list):
        return _NO_LITERAL
    return found
