"""Flags that Python Fire makes of a function's parameters, read as its guide documents them:
`fire.Fire(main)` takes each parameter of `main` as `--name value` or `--name=value` (or in its
place on the command line), hyphens and underscores alike (`--max-seq-len` is `--max_seq_len`);
a bool is `--flag` (and `--noflag` for False); `fire.Fire({"train": train, "eval": evaluate})`
makes a subcommand of each; `fire.Fire(Trainer)` takes the constructor's parameters (a
dataclass's fields). A function taking `**kwargs` takes any `--key=value`: its flags are open.
`fire.Fire()` with nothing exposes the whole module: no flags are read for it.
"""

from __future__ import annotations

import ast

from bot.core.extract.nested_flags import Root, Style, call_targets, opened
from bot.core.extract.nested_flags import facts as nested_facts
from bot.core.extract.typed_fields import module_functions
from bot.core.model import Fact
from bot.core.rules import Source

STYLE = Style(separator="_", bool_pair=False, dataclass_fields=True, either_spelling=True, bare_params=True)
CALLS = frozenset({"fire.Fire", "Fire"})


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    found = nested_facts(source, path, tree, STYLE, cli_roots)
    functions = module_functions(tree)
    # The commands whose function takes `**kwargs` (None: the program's own).
    any_flag = {r.subcommand for r in cli_roots(tree) if r.name in functions and functions[r.name].args.kwarg}
    return [opened(f) if f.attr("subcommand") in any_flag else f for f in found]


def cli_roots(tree: ast.Module) -> list[Root]:
    out: list[Root] = []
    for call in call_targets(tree, CALLS):
        first = (
            call.args[0]
            if call.args
            else next((k.value for k in call.keywords if k.arg == "component"), None)
        )
        if isinstance(first, ast.Name):
            out.append(Root("", first.id))
        elif isinstance(first, ast.Dict):  # one subcommand a key
            for k, v in zip(first.keys, first.values, strict=True):
                if isinstance(v, ast.Name) and isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out.append(Root("", v.id, k.value))
    return out
