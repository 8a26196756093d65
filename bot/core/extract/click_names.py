"""What a module's names mean to click and typer, and what an annotation says a parameter is:
`import typer as t`, `from click import option`, `Opt = typer.Option`; `Annotated[int, ...]`,
`Optional[Path]` and `list[str]` read as the type a doc would name.
"""

from __future__ import annotations

import ast

from bot.core.extract import walk
from bot.core.extract.argparse_calls import choices_text
from bot.core.extract.constants import Module, as_text, value
from bot.core.extract.scopes import Scope

CLICK_MODULES = frozenset({"click", "rich_click", "cloup", "asyncclick"})
TYPER_MODULES = frozenset({"typer"})
# Classes a project's own command group derives from: its methods may read options every command
# under it takes (`--format`, `-q`), whatever the command declares.
GROUP_BASES = frozenset({"Group", "TyperGroup", "MultiCommand", "RichGroup", "DefaultGroup", "AliasedGroup"})
_TYPES = {"INT": "int", "FLOAT": "float", "STRING": "str", "BOOL": "bool", "UUID": "uuid"}
# Names a project gives typer's parameter makers in a module of its own, imported by its commands.
_SHARED_PARAMS = {"Opt": "Option", "Option": "Option", "Arg": "Argument", "Argument": "Argument"}


class Names:
    """The module's names for click's and typer's functions: `click`, `import typer as t`,
    `from click import option`."""

    def __init__(self, tree: ast.Module, frameworks: frozenset[str]):
        self.framework = "typer" if frameworks == TYPER_MODULES else "click"
        self.modules: dict[str, str] = {}  # local name -> framework
        self.members: dict[str, tuple[str, str]] = {}  # local name -> (framework, attribute)
        self.imported: set[str] = set()  # names imported from the project's other modules
        self.aliases: dict[str, ast.expr] = {}  # `TokenOpt = Annotated[str, typer.Option(...)]`
        for node in walk.nodes(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    if top in frameworks and (alias.asname or "." not in alias.name):
                        self.modules[alias.asname or top] = framework(top)
            elif isinstance(node, ast.ImportFrom):
                top = (node.module or "").split(".")[0]
                for alias in node.names:
                    local = alias.asname or alias.name
                    if top in frameworks and not node.level:
                        self.members[local] = (framework(top), alias.name)
                    elif self.framework == "typer" and alias.name in _SHARED_PARAMS:
                        # explosion's projects: `Opt = typer.Option` in main.py, imported by each
                        # command module with the app (`from .main import Arg, Opt, app`).
                        self.members[local] = ("typer", _SHARED_PARAMS[alias.name])
                    else:
                        self.imported.add(local)
        for stmt in tree.body:  # `Opt = typer.Option`
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                meant = self.of(stmt.value)
                if meant is not None:
                    self.members[stmt.targets[0].id] = meant
                elif annotated(stmt.value):
                    self.aliases[stmt.targets[0].id] = stmt.value

    def of(self, node: ast.expr) -> tuple[str, str] | None:
        """(framework, attribute) when `node` names one of its functions: `click.option`, `Option`."""
        if isinstance(node, ast.Name):
            return self.members.get(node.id)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.modules
        ):
            return (self.modules[node.value.id], node.attr)
        return None

    def alias(self, annotation: ast.expr | None) -> ast.expr | None:
        """The `Annotated[...]` a name of the module's own stands for, else `annotation`."""
        if isinstance(annotation, ast.Name) and annotation.id in self.aliases:
            return self.aliases[annotation.id]
        return annotation

    def is_call_of(self, node: ast.expr | None, *attrs: str) -> bool:
        return isinstance(node, ast.Call) and (self.of(node.func) or ("", ""))[1] in attrs


def framework(module: str) -> str:
    return "typer" if module in TYPER_MODULES else "click"


def named_type(type_node: ast.expr | None, annotation: ast.expr | None, names: Names) -> str | None:
    """`int`, `float`, `str`, `bool`, `Path` as a doc would name the type; None when unsaid."""
    node = type_node if type_node is not None else unwrapped(annotation)
    if node is None:
        return None
    meant = names.of(node)
    if meant is not None:
        return _TYPES.get(meant[1], meant[1])
    if isinstance(node, ast.Call):
        node = node.func
        meant = names.of(node)
        if meant is not None:
            return meant[1]
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def unwrapped(annotation: ast.expr | None) -> ast.expr | None:
    """`Annotated[int, ...]`, `Optional[int]`, `int | None` -> `int`; `List[int]` -> `int`."""
    for _ in range(8):
        if isinstance(annotation, ast.Subscript):
            head = annotation.value
            head_name = (
                head.attr
                if isinstance(head, ast.Attribute)
                else head.id
                if isinstance(head, ast.Name)
                else ""
            )
            inner: ast.expr | None = annotation.slice
            if isinstance(inner, ast.Tuple) and inner.elts:
                inner = inner.elts[0] if head_name != "Union" else _not_none(inner.elts)
            annotation = inner
        elif isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            annotation = _not_none([annotation.left, annotation.right])
        elif isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        else:
            return annotation
    return None


def _not_none(options: list[ast.expr]) -> ast.expr | None:
    kept = [o for o in options if not (isinstance(o, ast.Constant) and o.value is None)]
    return kept[0] if len(kept) == 1 else None


def choices_of(
    type_node: ast.expr | None, annotation: ast.expr | None, names: Names, scope: Scope, module: Module
) -> str | None:
    """`click.Choice([...])`'s values, or an Enum's (typer offers its values)."""
    if (
        isinstance(type_node, ast.Call)
        and (names.of(type_node.func) or ("", ""))[1] == "Choice"
        and type_node.args
    ):
        return choices_text(type_node.args[0], scope.lookup, module)
    enum = unwrapped(annotation) if type_node is None else None
    if isinstance(enum, ast.Name) and enum.id in module.classes:
        found = value(ast.Attribute(value=enum, attr="__members__"), scope.lookup, module)
        if isinstance(found, dict):
            return ",".join(as_text(v) for v in found.values())
    return None


def annotated(annotation: ast.expr | None) -> list[ast.expr]:
    """The metadata of `Annotated[T, typer.Option(...)]`."""
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple):
        head = annotation.value
        head_name = (
            head.attr if isinstance(head, ast.Attribute) else head.id if isinstance(head, ast.Name) else ""
        )
        if head_name == "Annotated":
            return list(annotation.slice.elts[1:])
    return []


def is_context(annotation: ast.expr | None, names: Names) -> bool:
    node = unwrapped(annotation)
    return node is not None and (names.of(node) or ("", ""))[1] == "Context"


def takes_unknown_options(call: ast.Call | None) -> bool:
    """Whether a command's decorator lets options it does not declare through
    (`context_settings={"ignore_unknown_options": True}` or `dict(ignore_unknown_options=True)`)."""
    settings = next((k.value for k in call.keywords if k.arg == "context_settings"), None) if call else None
    if isinstance(settings, ast.Dict):
        return any(
            isinstance(k, ast.Constant) and k.value == "ignore_unknown_options" and _is_true(v)
            for k, v in zip(settings.keys, settings.values, strict=True)
        )
    if isinstance(settings, ast.Call) and isinstance(settings.func, ast.Name) and settings.func.id == "dict":
        return any(k.arg == "ignore_unknown_options" and _is_true(k.value) for k in settings.keywords)
    return False


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True
