"""What argparse makes of one `add_argument` call: its flags, each option string's dest, and
the default, choices, type and help as a doc would quote them (argparse_flags.py reads a module's
calls; the dataclass and builder readers hand their calls here too)."""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from bot.core.extract import walk
from bot.core.extract.constants import (
    NO_MODULE,
    UNKNOWN,
    Lookup,
    Module,
    as_text,
    dotted,
    enum_lookup,
    members,
    value,
)

BOOLEAN_OPTIONAL = frozenset({"argparse.BooleanOptionalAction", "BooleanOptionalAction"})
SUPPRESS = frozenset({"argparse.SUPPRESS", "SUPPRESS"})
# `type=` callables that convert a value and check nothing else: no choices hide in them.
PLAIN_TYPES = frozenset(
    {
        "int",
        "float",
        "str",
        "bool",
        "complex",
        "bytes",
        "Path",
        "pathlib.Path",
        "os.path.expanduser",
        "str.lower",
        "str.upper",
        "str.strip",
    }
)


# A `type=` that only folds a string (`str.lower`, `lambda s: s.lower()`): argparse converts a
# value with it before it checks `choices=`, so `--optimizer Adam` passes `choices=["adam"]`.
_FOLDING_TYPE = re.compile(
    r"str\.(lower|upper|casefold|strip)|lambda (\w+): \2\.(lower|upper|casefold|strip)\(\)"
)


def converted(type_text: str | None, value: str) -> str:
    """`value` as argparse hands it to the choices check, given the flag's `type` as written."""
    m = _FOLDING_TYPE.fullmatch(type_text.strip()) if type_text else None
    method = (m.group(1) or m.group(3)) if m else None
    return getattr(value, method)() if method else value


def takes_choice(value: str, allowed: list[str], type_text: str | None, case_sensitive: str | None) -> bool:
    """Whether the parser accepts `value` for a flag offering `allowed`: as its `type` converts
    it, and in any case when the flag folds case (click's `Choice(..., case_sensitive=False)`)."""
    value = converted(type_text, value)
    if case_sensitive == "false":
        return value.casefold() in {a.casefold() for a in allowed}
    return value in allowed


class Flag(NamedTuple):
    token: str
    dest: str
    line: int
    attrs: tuple[tuple[str, str], ...]


def flags(
    options: list[tuple[str, int]],
    keywords: dict[str, ast.expr],
    literals: Lookup,
    values: Lookup | None = None,
    module: Module = NO_MODULE,
) -> list[Flag]:
    """What argparse makes of one add_argument call, given its option strings and keywords.

    `literals` resolves the names in `dest`, `default`, `choices` and `const`; `values` gives the
    final text of `default`, `type`, `action` and `help` when it knows it (a dataclass field's
    default); `type`, `action` and `help` are otherwise quoted as written.
    """
    values = values or _nothing
    if not options:
        return []
    attrs: dict[str, str] = {}
    unknown: list[str] = []
    if "default" in keywords:
        default = default_text(keywords["default"], literals, values, module)
        if default is None:
            unknown.append("default")
        else:
            attrs["default"] = default
    if "choices" in keywords:
        choices = choices_text(keywords["choices"], literals, module)
    elif (
        "type" in keywords
        and values(keywords["type"]) is None
        and dotted(keywords["type"]) not in PLAIN_TYPES
    ):
        # A callable written in the call (not a dataclass field's type): it may check the choices.
        choices = type_choices(keywords["type"], keywords.get("action"), literals, module)
    else:
        choices = ""
    if choices is None:
        unknown.append("choices")
    elif choices or "choices" in keywords:
        attrs["choices"] = choices
    if "type" in keywords:
        attrs["type"] = text(keywords["type"], values)
    if "help" in keywords and dotted(keywords["help"]) in SUPPRESS:
        attrs["hidden"] = "true"  # argparse leaves it out of --help: no page owes it a line
    elif "help" in keywords:
        attrs["help"] = text(keywords["help"], values)
    metavar = keywords.get("metavar")
    if isinstance(metavar, ast.Constant) and isinstance(metavar.value, str):
        attrs["metavar"] = metavar.value  # `--tb=style` in a help listing names no choice
    if "nargs" in keywords:
        attrs["nargs"] = text(keywords["nargs"], values)
    env = string_value(keywords["env_var"], literals) if "env_var" in keywords else None
    if env:
        attrs["envvar"] = env  # configargparse's: the variable that sets it too (click's name)
    action = text(keywords["action"], values) if "action" in keywords else None
    if action is not None:
        attrs["action"] = action
    if "const" in keywords:
        const = value(keywords["const"], literals, module)
        if const is not UNKNOWN:
            attrs["const"] = as_text(const)
        if attrs.get("nargs") == "?" and action is None and isinstance(const, bool):
            # `--flag` alone sets the const; absent, the attribute is None, which reads as off.
            attrs["sets"] = "true" if const else "false"
            if attrs.get("default", "None") == "None" and "default" not in unknown:
                attrs["default"] = repr(not const)
    dest = keywords.get("dest")
    dest_text = string_value(dest, literals) if dest is not None else None
    if dest is not None and dest_text is None:
        # `dest=field.name`: not the one argparse derives from the option strings, which the key
        # is only for want of it; what the flag sets true or false is then of an unknown variable
        unknown.append("dest")
    key = dest_text or derived_dest([o for o, _ in options])
    if unknown:
        attrs["unknown"] = " ".join(unknown)

    out: list[Flag] = []
    if action in BOOLEAN_OPTIONAL:
        for option, line in options:
            out.append(Flag(option, key, line, sorted_attrs({**attrs, "sets": "true"})))
            if option.startswith("--"):
                out.append(Flag("--no-" + option[2:], key, line, sorted_attrs({**attrs, "sets": "false"})))
        return out
    if action == "store_true":
        if "default" not in unknown:
            attrs.setdefault("default", "False")
        attrs["sets"] = "true"
    elif action == "store_false":
        if "default" not in unknown:
            attrs.setdefault("default", "True")
        attrs["sets"] = "false"
    return [Flag(option, key, line, sorted_attrs(attrs)) for option, line in options]


def derived_dest(options: list[str]) -> str:
    """argparse's rule: the first long option, else the first short one, dashes to underscores."""
    longs = [o for o in options if o.startswith("--") and len(o) > 2]
    chosen = longs[0] if longs else options[0]
    return chosen.lstrip("-").replace("-", "_")


def text(node: ast.expr, lookup: Lookup) -> str:
    """An argument as a doc would quote it: strings unquoted, other constants by repr, else source."""
    found = lookup(node)
    if isinstance(found, str):
        return found
    if found is not None:
        node = found
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else repr(node.value)
    return ast.unparse(node)


def default_text(node: ast.expr, literals: Lookup, values: Lookup, module: Module = NO_MODULE) -> str | None:
    """The default as a doc would quote it; None when the file does not say what it is."""
    found = values(node)
    if isinstance(found, str):
        return found
    if dotted(node) in SUPPRESS:
        return None
    result = value(node, literals, module)
    return None if result is UNKNOWN else as_text(result)


def choices_text(node: ast.expr, lookup: Lookup, module: Module = NO_MODULE) -> str | None:
    """The choices, comma-separated, in the order written; None when the file does not say them."""
    found = lookup(node)
    if isinstance(found, str):
        return found
    items = members(value(node, lookup, module))
    if items is None:
        return None
    resolved = found if found is not None else node
    if isinstance(resolved, ast.Set):
        # A set literal: the order it is written in, not Python's.
        written = [value(e, lookup, module) for e in resolved.elts]
        items = [as_text(v) for v in dict.fromkeys(written)]
    return ",".join(items)


def type_choices(node: ast.expr, action: ast.expr | None, lookup: Lookup, module: Module) -> str | None:
    """Choices a `type=` of this module checks: an Enum class's (argparse converts the text with
    `E(text)`, which takes a member's value; `E.__getitem__`, a member's name), or a validator
    function's; None when it checks choices the file does not spell out."""
    if isinstance(node, ast.Attribute) and node.attr == "__getitem__":
        argparse_converts = action is None or isinstance(action, ast.Constant)
        taken = enum_lookup(node.value, module, "name") if argparse_converts else None
    else:
        by = _enum_conversion(action, module)
        taken = enum_lookup(node, module, by) if by else None
    if taken is not None:
        return ",".join(taken)
    return validator_choices(node, lookup, module)


def _enum_conversion(action: ast.expr | None, module: Module) -> str | None:
    """How the flag's text becomes the `type=` Enum's member: "value" when argparse converts it
    (no action, or one of argparse's own, named by a string); an Action class of this module
    that takes the type over (the common `EnumAction`: `kwargs.setdefault("choices", tuple(e.value
    for e in enum_type))`) says by the choices it sets; None for any other action."""
    if action is None or isinstance(action, ast.Constant) and isinstance(action.value, str):
        return "value"
    cls = module.classes.get(action.id) if isinstance(action, ast.Name) else None
    if cls is None:
        return None
    nodes = walk.every(cls)
    named = {
        n.targets[0].id: n.value
        for n in nodes
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
    }
    for node in nodes:
        given = _choices_set(node)
        if isinstance(given, ast.Name):  # `choices = tuple(...)` first
            given = named.get(given.id)
        if isinstance(given, ast.Call) and isinstance(given.func, ast.Name) and len(given.args) == 1:
            given = given.args[0]  # tuple(...), list(...), sorted(...)
        if not isinstance(given, ast.ListComp | ast.SetComp | ast.GeneratorExp) or len(given.generators) != 1:
            continue
        elt, target = given.elt, given.generators[0].target
        if (
            isinstance(elt, ast.Attribute)
            and elt.attr in ("value", "name")
            and isinstance(elt.value, ast.Name)
            and isinstance(target, ast.Name)
            and elt.value.id == target.id
        ):
            return elt.attr
    return None


def _choices_set(node: ast.AST) -> ast.expr | None:
    """What `kwargs.setdefault("choices", X)` or `kwargs["choices"] = X` gives the choices."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "setdefault"
        and len(node.args) == 2
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "choices"
    ):
        return node.args[1]
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.slice, ast.Constant)
            and target.slice.value == "choices"
        ):
            return node.value
    return None


def validator_choices(node: ast.expr, lookup: Lookup, module: Module) -> str | None:
    """Choices a `type=` function of this module checks (`if value not in MODES: raise ...`);
    None when it checks none that the file spells out."""
    fn = module.functions.get(node.id) if isinstance(node, ast.Name) else None
    if fn is None or not fn.args.args:
        return None
    param = fn.args.args[0].arg
    for test in walk.every(fn):
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == param
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.In | ast.NotIn)
        ):
            return choices_text(test.comparators[0], lookup, module)
    return None


def string_value(node: ast.expr, lookup: Lookup) -> str | None:
    """The string an option string or dest is: a literal, a name holding one, an f-string or a
    concatenation of those (`f"--{prefix}.lr"` in a loop over prefixes)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    found = lookup(node)
    if isinstance(found, str):
        return found  # what the caller knows the expression to be (a dataclass field's name)
    result = value(node, lookup)
    return result if isinstance(result, str) else None


def sorted_attrs(attrs: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(attrs.items()))


def _nothing(node: ast.expr) -> None:
    return None
