"""Options a project's own command group takes for every command under it, read from its words
rather than declared: huggingface_hub's `HFCliTyperGroup(TyperGroup)` strips `--format`, `-q` /
`--quiet` and `--no-truncate` from a command's arguments before click parses them, so every
`hf ...` command line may pass them though no command declares them.

A group class is a class of the module deriving from click's or typer's group (or from another
group class of the module); the options it reads are the option strings that its methods, and the
functions of the module they call (a few calls deep), compare the words with (`arg == "--format"`,
`arg in ("-q", "--quiet")`, `arg.startswith("--format=")`) where they also take words out of the
command line (`del args[i]`): those the group consumes before click parses the rest. A method that
only looks (`if arg == "--type": raise ...`) may be asking about a command's own option, and a
string compared the other way round (`"--type" in param.opts`) asks what a command declares.
They are flags of the program under no subcommand, so every command's line takes them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from bot.core.extract import walk
from bot.core.extract.click_names import GROUP_BASES
from bot.core.model import Fact

MAX_DEPTH = 4  # calls followed from a group's methods into the module's functions
MAX_OPTIONS = 50


def group_options(tree: ast.Module, source_id: str, path: str) -> list[Fact]:
    classes = _group_classes(tree)
    if not classes:
        return []
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    seen: set[str] = set()
    stack: list[tuple[ast.AST, int]] = [
        (m, 0) for c in classes for m in c.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    found: dict[str, tuple[int, str]] = {}  # token -> (line, dest)
    while stack and len(found) < MAX_OPTIONS:
        node, depth = stack.pop()
        for together in _read_options(node) if _consumes(node) else ():
            longs = [t for t, _ in together if t.startswith("--")]
            dest = (longs[0] if longs else together[0][0]).lstrip("-").replace("-", "_")
            for token, line in together:
                found.setdefault(token, (line, dest))
        if depth >= MAX_DEPTH:
            continue
        for call in walk.every(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                name = call.func.id
                if name in functions and name not in seen:
                    seen.add(name)
                    stack.append((functions[name], depth + 1))
    out = []
    for token, (line, dest) in sorted(found.items(), key=lambda item: (item[1], item[0])):
        # Whether it takes a value, and which, is the group's code's business: none of it is said.
        attrs = (
            ("help", "read by the command group for every command"),
            ("unknown", "choices default sets type"),
        )
        out.append(
            Fact(kind="flag", token=token, key=dest, source=source_id, path=path, line=line, attrs=attrs)
        )
    return out


def _group_classes(tree: ast.Module) -> list[ast.ClassDef]:
    """The module's classes deriving from a click or typer group, directly or through each other
    (a class made inside a factory function too)."""
    classes = [n for n in walk.nodes(tree) if isinstance(n, ast.ClassDef)]
    groups: set[str] = set()
    for _ in range(4):
        for cls in classes:
            if any(_last(b) in GROUP_BASES or _last(b) in groups for b in cls.bases):
                groups.add(cls.name)
    return [c for c in classes if c.name in groups]


def _consumes(fn: ast.AST) -> bool:
    """Does the function take words out of the command line (`del args[i]`, `args.remove(arg)`,
    `args.pop(i)`)? Options it reads are then its own, never the command's; a function that only
    looks (`if arg == "--type": raise ...`) or rewrites words for a command (`args[i:i + 1] =
    ["--format", "quiet"]`) may be asking about a command's."""
    for n in walk.every(fn):
        if isinstance(n, ast.Delete) and any(isinstance(t, ast.Subscript) for t in n.targets):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("remove", "pop"):
            return True
    return False


def _read_options(node: ast.AST) -> Iterator[list[tuple[str, int]]]:
    """The option strings each comparison of the words reads, those of one comparison together
    (`arg in ("-q", "--quiet")`: one option)."""
    for n in walk.every(node):
        together: list[tuple[str, int]] = []
        if isinstance(n, ast.Compare) and len(n.ops) == 1:
            op, right = n.ops[0], n.comparators[0]
            if isinstance(op, ast.Eq | ast.NotEq):
                together = list(_options([right]))
            elif isinstance(op, ast.In | ast.NotIn) and isinstance(right, ast.Tuple | ast.List | ast.Set):
                together = list(_options(right.elts))
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "startswith"
            and len(n.args) == 1
        ):
            arg = n.args[0]
            together = list(_options(arg.elts if isinstance(arg, ast.Tuple) else [arg], prefix=True))
        if together:
            yield together


def _options(nodes: list[ast.expr], prefix: bool = False) -> Iterator[tuple[str, int]]:
    for node in nodes:
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        token = node.value.removesuffix("=") if prefix else node.value
        if prefix and token == node.value:
            continue  # `startswith("--x")` alone may be any option beginning so
        if _is_option(token):
            yield token, node.lineno


def _is_option(token: str) -> bool:
    if token.startswith("--"):
        rest = token[2:]
        return len(rest) > 1 and rest[0].isalpha() and all(c.isalnum() or c in "-_" for c in rest)
    return len(token) == 2 and token[0] == "-" and token[1].isalpha()


def _last(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
