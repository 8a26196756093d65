"""One click option or typer parameter, read as the library reads it: its option strings (a
`--x/--no-x` declaration split in two), destination, default, choices, type and the switch it
sets. The command tree these belong to is click_flags.py's."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from bot.core.extract.argparse_calls import string_value, text
from bot.core.extract.click_names import Names, annotated, choices_of, is_context, named_type
from bot.core.extract.command_links import with_alias
from bot.core.extract.constants import UNKNOWN, Module, as_text, value
from bot.core.extract.scopes import Scope
from bot.core.model import Fact

BUILTIN_OPTIONS = {"version_option": "--version", "help_option": "--help"}


@dataclass(frozen=True)
class OptionContext:
    """What reading an option needs besides its own call: the module's click or typer names and
    its constants (`scope`, `module`), the rule source and file its facts are of, and the command
    it belongs to (`where`: the words that invoke it, `,`-separated; None for the program's own)."""

    names: Names
    scope: Scope
    module: Module
    source_id: str
    path: str
    where: str | None = None


# --- click's options -----------------------------------------------------------------------------


def click_option(call: ast.Call, at: OptionContext) -> list[Fact]:
    maker = (at.names.of(call.func) or ("", ""))[1]
    args = call.args[1:] if maker == "version_option" else call.args  # its first is the version
    if maker == "Option" and args and isinstance(args[0], ast.List | ast.Tuple):
        args = [*args[0].elts, *args[1:]]  # the class takes its names as one list
    decls = [(s, a.lineno) for a in args if (s := string_value(a, at.scope.lookup)) is not None]
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    if maker in BUILTIN_OPTIONS:
        # click's own eager switches: `--version` / `--help` unless other names are given.
        decls = decls or [(BUILTIN_OPTIONS[maker], call.lineno)]
        helped = {"help": keywords["help"]} if "help" in keywords else {}
        keywords = {"is_flag": ast.Constant(True), **helped}
    return option(decls, keywords, None, at, implicit_bool=False)


def option(
    decls: list[tuple[str, int]],
    keywords: dict[str, ast.expr],
    param: tuple[str, ast.expr | None, ast.expr | None, int] | None,
    at: OptionContext,
    implicit_bool: bool,
) -> list[Fact]:
    """The flags of one option: its names (`--x/--no-x` split in two), destination and attributes.
    `param` is typer's (name, annotation type, default, line); click's options have none."""
    primary: list[tuple[str, int]] = []
    secondary: list[tuple[str, int]] = []
    dest: str | None = None
    for decl, line in decls:
        if "/" in decl and decl[:1] in "-/ ":
            first, _, second = decl.partition("/")
            if first.strip():
                primary.append((first.strip(), line))
            if second.strip():
                secondary.append((second.strip(), line))
        elif decl.startswith("-"):
            primary.append((decl, line))
        elif decl.isidentifier():
            dest = decl
    attrs: dict[str, str] = {}
    unknown: list[str] = []
    type_node = keywords.get("type")
    annotation = param[1] if param is not None else None
    names, scope, module = at.names, at.scope, at.module
    is_bool = named_type(type_node, annotation, names) == "bool"
    if param is not None:
        name, _, _, line = param
        dest = name
        if not primary:
            flag = "--" + name.lower().replace("_", "-")
            primary = [(flag, line)]
            if is_bool and implicit_bool:
                secondary = [("--no-" + flag[2:], line)]
    if not primary:
        return []
    if dest is None:
        longs = [o for o, _ in primary + secondary if o.startswith("--")]
        dest = (longs[0] if longs else primary[0][0]).lstrip("-").replace("-", "_").lower()
    default_node = keywords.get("default", param[2] if param is not None else None)
    required = keywords.get("required")
    if isinstance(default_node, ast.Constant) and default_node.value is Ellipsis:
        default_node, attrs["required"] = None, "True"
    elif required is not None:
        attrs["required"] = text(required, _nothing)
    default: object = UNKNOWN
    if default_node is not None:
        default = value(default_node, scope.lookup, module)
        if default is UNKNOWN:
            unknown.append("default")
        else:
            attrs["default"] = as_text(default)
    flag_value = keywords.get("flag_value")
    is_flag = (
        is_true(keywords.get("is_flag"))
        or bool(secondary)
        or flag_value is not None
        or (param is not None and is_bool)
    )
    sets: str | None = None
    if is_flag and flag_value is None:
        if default_node is None and "required" not in attrs:
            attrs["default"] = "False"
            default = False
        # click: a flag with no opposite sets `not default`; `--x/--no-x` sets True and False.
        sets = "false" if default is True and not secondary else "true"
    choices = choices_of(type_node, annotation, names, scope, module)
    if choices is not None:
        attrs["choices"] = choices
        if _folds_case(type_node, keywords):
            attrs["case_sensitive"] = "false"  # `POLYGON` is the choice `polygon`
    type_name = named_type(type_node, annotation, names)
    if type_name is not None and not is_flag:
        attrs["type"] = type_name
    for attr in ("help", "envvar", "metavar"):
        if attr in keywords:
            attrs[attr] = text(keywords[attr], _nothing)
    if is_true(keywords.get("hidden")):
        attrs["hidden"] = "true"  # left out of --help, as argparse's help=SUPPRESS
    if is_true(keywords.get("multiple")):
        attrs["nargs"] = "*"
    if is_true(keywords.get("count")):
        attrs["action"] = "count"
    if unknown:
        attrs["unknown"] = " ".join(unknown)
    if at.where is not None:
        attrs["subcommand"] = at.where
    out = []
    for token, line in primary:
        own = {**attrs, "sets": sets} if sets is not None else attrs
        out.append(flag_fact(token, dest, line, own, at.source_id, at.path))
    for token, line in secondary:
        own = {**attrs, "sets": "false"} if is_flag and flag_value is None else attrs
        out.append(flag_fact(token, dest, line, own, at.source_id, at.path))
    return out


def flag_fact(token: str, dest: str, line: int, attrs: dict[str, str], source_id: str, path: str) -> Fact:
    return Fact.of("flag", token, dest, source_id, path, line, attrs)


def with_attrs(fact: Fact, **attrs: str) -> Fact:
    return fact.with_attrs(attrs)


def _folds_case(type_node: ast.expr | None, keywords: dict[str, ast.expr]) -> bool:
    """`click.Choice([...], case_sensitive=False)`, or typer's `Option(case_sensitive=False)`
    (handed to the Choice it makes of an Enum): the value is matched to a choice in any case."""
    given = (
        [k.value for k in type_node.keywords if k.arg == "case_sensitive"]
        if isinstance(type_node, ast.Call)
        else []
    )
    given += [keywords["case_sensitive"]] if "case_sensitive" in keywords else []
    return any(isinstance(v, ast.Constant) and v.value is False for v in given)


def is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _nothing(node: ast.expr) -> None:
    return None


# --- typer's parameters --------------------------------------------------------------------------


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[ast.arg, ast.expr | None]]:
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    yield from zip(positional, defaults, strict=True)
    yield from zip(args.kwonlyargs, args.kw_defaults, strict=True)


def typer_param(arg: ast.arg, default: ast.expr | None, at: OptionContext) -> list[Fact]:
    names = at.names
    annotation = names.alias(arg.annotation)
    info: ast.Call | None = None
    if names.is_call_of(default, "Option", "Argument"):
        assert isinstance(default, ast.Call)
        info = default
        # typer.Option(default, *names, ...): the first argument is the default.
        default = (
            info.args[0] if info.args else next((k.value for k in info.keywords if k.arg == "default"), None)
        )
        decl_args = info.args[1:]
    else:
        metadata = annotated(annotation)
        info = next(
            (m for m in metadata if isinstance(m, ast.Call) and names.is_call_of(m, "Option", "Argument")),
            None,
        )
        decl_args = info.args if info is not None else []
    if info is not None and (names.of(info.func) or ("", ""))[1] == "Argument":
        return []
    if info is None and default is None:
        return []  # no default: a positional argument
    if is_context(annotation, names):
        return []
    if info is None and isinstance(annotation, ast.Name) and annotation.id in names.imported:
        # `token: TokenOpt = None`, an alias another module defines: command_links.py puts its
        # option strings in place of the parameter's own.
        aliased = (arg.arg, annotation, default, arg.lineno)
        found = option([], {}, aliased, at, implicit_bool=True)
        return [with_alias(f, annotation.id) for f in found]
    decls = [(s, a.lineno) for a in decl_args if (s := string_value(a, at.scope.lookup)) is not None]
    keywords = {k.arg: k.value for k in info.keywords if k.arg is not None} if info is not None else {}
    keywords.pop("default", None)
    param = (arg.arg, annotation, default, arg.lineno)
    return option(decls, keywords, param, at, implicit_bool=True)
