"""Flags that jsonargparse makes of signatures, and LightningCLI of a model's and a data
module's `__init__`, read as jsonargparse documents them: a parameter keeps its name
(`--max_epochs`); a dataclass-typed one is a group (`--data.batch_size`); a bool takes a value
(`--flag true`); help comes from the docstring (`Args:`, `:param x:`). The flags are `open`:
jsonargparse adds `--config` and `--print_config`, LightningCLI Lightning's `--trainer.*`.

Roots, and the rule's `names` (`model=LitModel`, `model.init_args=LitModel` for LightningCLI's
subclass mode, classes and functions of this file another file's call names): `CLI(fn)` /
`auto_cli(fn)` (a list or a dict: each a subcommand), `add_class_arguments(
Cls, "key")`, `add_function_arguments(fn, "key")`, `add_dataclass_arguments(Cls, "key")`, and
`LightningCLI(Model, DataModule)` (`--model.x`, `--data.x`; `--model.init_args.x` with
`subclass_mode_model=True`), for the classes and functions the file defines. Lightning's own
groups (`--trainer.*`, `--optimizer.*`) are Lightning's, not the project's.
"""

from __future__ import annotations

import ast

from bot.core.extract import walk
from bot.core.extract.nested_flags import LIGHTNING_CLI as LIGHTNING
from bot.core.extract.nested_flags import Root, Style, call_targets
from bot.core.extract.nested_flags import facts as nested_facts
from bot.core.model import Fact
from bot.core.rules import Source

# Open: jsonargparse adds `--config` and `--print_config`, LightningCLI Lightning's own groups.
STYLE = Style(separator="_", bool_pair=False, dataclass_fields=True, open=True)
_CLI = frozenset({"CLI", "jsonargparse.CLI", "auto_cli", "jsonargparse.auto_cli"})
_ADD = {
    "add_class_arguments": 1,
    "add_function_arguments": 1,
    "add_dataclass_arguments": 1,
    "add_method_arguments": 2,
}


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    return nested_facts(source, path, tree, STYLE, cli_roots)


def cli_roots(tree: ast.Module) -> list[Root]:
    out: list[Root] = []
    # `CLI(parser_data)` with the dict assigned at module level or, as litgpt's `main()` once
    # did, in the function that calls CLI (a module-level name wins).
    bodies = [n.body for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    assigned = {
        s.targets[0].id: s.value
        for body in [*bodies, tree.body]
        for s in body
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
    }
    for call in call_targets(tree, _CLI):
        first = call.args[0] if call.args else None
        if isinstance(first, ast.Name) and isinstance(
            assigned.get(first.id), ast.Dict | ast.List | ast.Tuple
        ):
            first = assigned[first.id]
        if isinstance(first, ast.Dict):  # `CLI({"fit": fit, "test": test})`: one subcommand each
            for k, v in zip(first.keys, first.values, strict=True):
                if isinstance(v, ast.Name) and isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out.append(Root("", v.id, k.value))
            continue
        items = first.elts if isinstance(first, ast.List | ast.Tuple) else [first] if first else []
        # `CLI([fit, test])`: each function a subcommand of its name
        out += [Root("", e.id, e.id if len(items) > 1 else None) for e in items if isinstance(e, ast.Name)]
    for node in walk.nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ADD:
            at = _ADD[node.func.attr]
            target = node.args[0] if node.args else None
            key = _keyword(node, "nested_key")
            given = node.args[at] if len(node.args) > at else None
            if key is None and isinstance(given, ast.Constant) and isinstance(given.value, str):
                key = given.value
            if isinstance(target, ast.Name):
                out.append(Root(key or "", target.id))
    for call in call_targets(tree, LIGHTNING):
        out += lightning_roots(call)
    return out


def lightning_roots(call: ast.Call) -> list[Root]:
    """`LightningCLI(Model, Data, subclass_mode_model=True)`: (group, class) of each."""
    out = []
    for position, (keyword, group, mode) in enumerate(
        (("model_class", "model", "subclass_mode_model"), ("datamodule_class", "data", "subclass_mode_data"))
    ):
        node = call.args[position] if len(call.args) > position else _keyword_node(call, keyword)
        if isinstance(node, ast.Name):
            subclass = _keyword_node(call, mode)
            nested = isinstance(subclass, ast.Constant) and subclass.value is True
            out.append(Root(f"{group}.init_args" if nested else group, node.id))
    return out


def _keyword_node(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _keyword(call: ast.Call, name: str) -> str | None:
    node = _keyword_node(call, name)
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
