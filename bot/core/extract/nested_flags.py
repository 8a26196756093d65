"""Flags of typed parameters nested by dots (`--optimizer.lr`), as tyro and jsonargparse make
them: one flag per parameter of a class or function, a parameter whose type is a dataclass of
the same file opening a group of its own under its name.

A framework is a `Style`: how a name is spelled on the command line, how a bool is given, what
an Enum offers. A nested parameter whose class lives in another module gives no flags here:
the rule names that class with its prefix (`names: ["optimizer=AdamConfig"]`), and its own
file yields them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.extract import walk
from bot.core.extract.constants import Module, as_text, dotted, value
from bot.core.extract.scopes import Scope
from bot.core.extract.typed_fields import (
    MAX_DEPTH,
    NO_FIELDS,
    Param,
    bases,
    class_fields,
    constructed,
    enum_member,
    enum_names,
    init_method,
    is_dataclass,
    last,
    literal_choices,
    module_functions,
    named_roots,
    nested_classes,
    origin,
    signature,
    text_of,
    union_members,
    without_none,
)
from bot.core.model import Fact
from bot.core.rules import Source


@dataclass(frozen=True)
class Style:
    separator: str  # what an underscore of a name becomes: tyro "-", jsonargparse "_"
    bool_pair: bool  # a bool with a default is `--x` / `--no-x` (tyro); else it takes a value
    dataclass_fields: bool  # a class's parameters are its fields when it is a dataclass
    # (else, and for jsonargparse's plain classes, those of its __init__)
    open: bool = False  # the framework adds flags of its own (jsonargparse's --config, Lightning's groups)
    flag_conversion: bool = True  # tyro's FlagConversionOff turns bool pairs into `--x True`
    either_spelling: bool = False  # `-` and `_` are one (tyro): its flags say `spelling: either`
    bare_params: bool = False  # a parameter with neither annotation nor default is a flag (fire)


@dataclass(frozen=True)
class Root:
    prefix: str  # "" or the group its flags are under: `model`, `model.init_args`
    name: str  # a class or a function of the file
    subcommand: str | None = None  # the subcommand whose flags they are (`ns-export pointcloud`)
    made: ast.Call | None = None  # the constructor call giving its defaults (`Config(lr=1e-3)`)


def facts(
    source: Source, path: str, tree: ast.Module, style: Style, roots: Callable[[ast.Module], list[Root]]
) -> list[Fact]:
    # What the file's own builder call parses (its subcommands too), and the rule's `names`:
    # classes of this file another file's call nests or derives from.
    found = roots(tree)
    found += [
        Root(p, n) for p, n in named_roots(source.names) if all((r.prefix, r.name) != (p, n) for r in found)
    ]
    named = {n for _, n in named_roots(source.names)}
    walker = _Walker(tree, style, source.id, path, {r.prefix for r in found if r.prefix}, named)
    for root in found:
        params = walker.params_of(root.name)
        if params is not None:
            walker.subcommand = root.subcommand
            given = {k.arg: k.value for k in root.made.keywords if k.arg} if root.made else {}
            walker.walk(params, root.prefix, root.prefix.replace("-", "_"), given, 0)
    if not walker.opened and not style.open:
        return walker.out
    return [opened(f) for f in walker.out]


def opened(fact: Fact) -> Fact:
    """The flag of a command line that takes more than the file shows (`open`)."""
    return fact.with_attrs({"open": "true"})


LIGHTNING_CLI = frozenset({"LightningCLI", "cli.LightningCLI", "pl.cli.LightningCLI", "L.cli.LightningCLI"})
# Types a framework reads as one value; any other class from elsewhere may be a group of flags.
PRIMITIVES = frozenset(
    {
        "int",
        "float",
        "str",
        "bool",
        "bytes",
        "Path",
        "list",
        "dict",
        "tuple",
        "set",
        "List",
        "Dict",
        "Tuple",
        "Set",
        "Sequence",
        "Literal",
        "Any",
        "Optional",
        "Union",
        "Callable",
        "type",
        "complex",
    }
)


class _Walker:
    def __init__(
        self, tree: ast.Module, style: Style, source_id: str, path: str, groups: set[str], named: set[str]
    ):
        self.named = named  # the classes the rule names, in any file
        self.groups = groups  # the prefixes the rule's `names` give: groups another file fills
        self.opened = False  # a parameter's class is another module's: flags this file cannot show
        self.classes = nested_classes(tree)
        self.functions = module_functions(tree)
        self.scope, self.module = Scope(tree, None), Module(tree)
        self.style, self.source_id, self.path = style, source_id, path
        self.out: list[Fact] = []
        self.seen: set[tuple[str, str | None]] = set()
        self.subcommand: str | None = None

    def params_of(self, name: str) -> list[Param] | None:
        if name in self.functions:
            return signature(self.functions[name], self.scope, self.module)
        cls = self.classes.get(name)
        if cls is None:
            return None
        if any(
            b not in self.classes and b not in self.named and b not in NO_FIELDS
            for b in bases(self.classes, name)
        ):
            self.opened = True  # a base from elsewhere: fields this file does not show
        init = init_method(cls)
        if (self.style.dataclass_fields or init is None) and (is_dataclass(cls) or init is None):
            return class_fields(self.classes, name, self.scope, self.module)
        return signature(init, self.scope, self.module, skip_self=True) if init is not None else None

    def walk(
        self, params: list[Param], prefix: str, key_prefix: str, overrides: dict[str, ast.expr], depth: int
    ) -> None:
        if depth > MAX_DEPTH:
            return
        for param in params:
            if param.annotation is None and not param.has_default and not self.style.bare_params:
                continue
            conf = _conf(param)
            if conf is None:
                continue  # suppressed, fixed or positional: no flag
            name = conf.get("name") or param.name.replace("_", self.style.separator)
            flag = f"{prefix}.{name}" if prefix else name
            key = f"{key_prefix}.{param.name}" if key_prefix else param.name
            default_node = overrides.get(param.name, param.default_node)
            default = param.default
            if param.name in overrides:
                default = value(overrides[param.name], self.scope.lookup, self.module)
            kind, converted = _conversion(param.annotation, conf)
            inner, optional = without_none(kind) if kind is not None else (None, False)
            nested = self._nested(inner)
            made = constructed(default_node, self.classes)
            if made is None and param.name not in overrides:
                made = constructed(_called(param.factory), self.classes)
            if made is not None and is_dataclass(self.classes[made[0]]):
                nested = made[0]  # tyro reads a default's own class (a subclass of the field's)
            if nested is not None:
                child = made[1] if made is not None and made[0] == nested else {}
                inner_params = self.params_of(nested)
                if inner_params is not None:
                    self.walk(inner_params, flag, key, child, depth + 1)
                continue
            if (
                inner is not None
                and len(union_members(inner)) > 1
                and any(self._nested(m) for m in union_members(inner))
            ):
                continue  # a union of classes is a choice of subcommands
            if flag in self.groups:
                continue  # a group the rule names with the class that fills it
            elsewhere = inner is not None and origin(inner) not in PRIMITIVES and self._nested(inner) is None
            if elsewhere and not (
                isinstance(inner, ast.Name | ast.Attribute) and dotted(inner) in self.classes
            ):
                self.opened = True
            has_default = param.has_default or param.name in overrides
            if converted:
                conf = {**conf, "converted": "off"}
            self._emit(param, flag, key, inner, optional, default, has_default, conf)

    def _nested(self, node: ast.expr | None) -> str | None:
        name = dotted(node) if isinstance(node, ast.Name | ast.Attribute) else None
        if name is not None and name in self.classes and is_dataclass(self.classes[name]):
            return name
        return None

    def _emit(
        self,
        param: Param,
        flag: str,
        key: str,
        kind: ast.expr | None,
        optional: bool,
        default: object,
        has_default: bool,
        conf: dict[str, str],
    ) -> None:
        attrs: dict[str, str] = {"spelling": "either"} if self.style.either_spelling else {}
        if param.help:
            attrs["help"] = param.help
        text = text_of(default)
        member = enum_member(param.default_node, self.module) if text is None else None
        if member is not None:  # an Enum default is given by its member's name
            text = member[0]
        if has_default and text is None:
            attrs["unknown"] = "default"
        elif text is not None:
            attrs["default"] = text
        elif not has_default:
            attrs["required"] = "true"
        tokens = [f"--{flag}", *conf.get("aliases", "").split()]
        pairs: list[tuple[str, dict[str, str]]] = []
        if kind is not None and last(kind) == "bool":
            attrs["type"] = "bool"
            paired = self.style.flag_conversion and conf.get("converted") != "off"
            if self.style.bool_pair and paired and has_default and not optional:
                attrs["action"] = "BooleanOptionalAction"
                left, dot, right = flag.rpartition(".")
                off = f"--{left}{dot}no{self.style.separator}{right}"
                pairs = [(t, {**attrs, "sets": "true"}) for t in tokens] + [(off, {**attrs, "sets": "false"})]
            elif self.style.bool_pair:  # tyro: `--x True`, `--x None` when it may be None
                attrs["choices"] = "None,True,False" if optional else "True,False"
        elif kind is not None:
            choices = literal_choices(kind, self.scope, self.module)
            names = enum_names(kind, self.module)
            if names is not None:
                attrs["choices"] = ",".join(names)
            elif choices is not None:
                attrs["choices"] = ",".join(as_text(c) for c in choices)
            elif origin(kind) in ("list", "tuple", "set", "sequence"):
                attrs["nargs"] = "*"
                if isinstance(kind, ast.Subscript):
                    attrs["type"] = ast.unparse(kind.slice)
            else:
                attrs["type"] = ast.unparse(kind)
                if origin(kind) not in PRIMITIVES and not (
                    isinstance(kind, ast.Name | ast.Attribute) and dotted(kind) in self.classes
                ):
                    # an alias or an Enum of another module: its choices are not in this file
                    attrs["unknown"] = " ".join(filter(None, [attrs.get("unknown"), "choices", "type"]))
        if self.subcommand:
            attrs["subcommand"] = self.subcommand
        for token, these in pairs or [(t, attrs) for t in tokens]:
            if self.subcommand:
                these = {**these, "subcommand": self.subcommand}
            if (token, self.subcommand) in self.seen:
                continue
            self.seen.add((token, self.subcommand))
            ordered = tuple(sorted(these.items()))
            self.out.append(Fact("flag", token, key, self.source_id, self.path, param.line, ordered))


def _called(factory: ast.expr | None) -> ast.expr | None:
    """`default_factory=Profiler.Config` as the call it makes, `Profiler.Config()`."""
    if isinstance(factory, ast.Name | ast.Attribute):
        return ast.Call(func=factory, args=[], keywords=[])
    return None


NO_FLAG = frozenset({"Suppress", "SuppressFixed", "Fixed", "Positional"})


def _conversion(annotation: ast.expr | None, conf: dict[str, str]) -> tuple[ast.expr | None, bool]:
    """A field's type without `tyro.conf.FlagConversionOff[...]`, and whether it (or its
    `Annotated` extras) turns bool pairs off."""
    off = conf.get("converted") == "off"
    while isinstance(annotation, ast.Subscript) and last(annotation.value) == "FlagConversionOff":
        annotation, off = annotation.slice, True
    return annotation, off


def _conf(param: Param) -> dict[str, str] | None:
    """What `Annotated[T, tyro.conf.arg(name=..., aliases=...)]` and markers say; None when the
    parameter is no flag (`tyro.conf.Suppress`, `Fixed`, `Positional`)."""
    out: dict[str, str] = {}
    for extra in param.extras:
        if last(extra) in NO_FLAG:
            return None
        if last(extra) == "FlagConversionOff":
            out["converted"] = "off"
        if isinstance(extra, ast.Call) and last(extra.func) == "arg":
            for k in extra.keywords:
                if k.arg == "name" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                    out["name"] = k.value.value
                elif k.arg == "aliases" and isinstance(k.value, ast.Tuple | ast.List):
                    names = [
                        e.value
                        for e in k.value.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    ]
                    out["aliases"] = " ".join(n for n in names if n.startswith("-"))
    if isinstance(param.annotation, ast.Subscript) and last(param.annotation.value) in NO_FLAG:
        return None
    return out


def call_targets(tree: ast.Module, calls: frozenset[str]) -> list[ast.Call]:
    """The calls of `calls` (dotted, or their last part) in the module."""
    found = []
    for node in walk.nodes(tree):
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name in calls:
                found.append(node)
    return found
