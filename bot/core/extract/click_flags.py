"""Flags declared with click or typer, read as those libraries read them (never imported or run).

click: `@click.command()` / `@click.group()` make commands, `@cli.command("name")` (or
`cli.add_command(fn, "name")`) puts one under a group, and each `@click.option("--x", "-x", ...)`
is a flag of the command it decorates (an option assigned to a module-level name and used as
`@name` counts too, and so does an instance of the class, `click.Option(["-A", "--app"], ...)`,
which a group or command takes in its params). A command not named takes its function's name,
lowercased, `_` -> `-` (click 7 and later); click 8.2 also drops a `_command`, `_cmd`, `_group`
or `_grp` suffix, so such a command answers to both spellings. `"--shout/--no-shout"` is a
switch and its opposite; `is_flag=True` sets `not default` (True unless the default is True); an
option's destination is the name written without dashes, else its first long option, dashes to
underscores; under an `auto_envvar_prefix` each option reads PREFIX_NAME from the environment
(PREFIX_COMMAND_NAME under a subcommand). Options a module assigns to names and no command of
its own uses are kept for commands elsewhere: flags under no subcommand.

typer: `app = typer.Typer()`, `@app.command()` (named like click's commands, no suffix dropped),
`@app.callback()` for the app's own options, `app.add_typer(sub, name="users")`, `typer.run(fn)`.
Each parameter of a command with a default is an option (`typer.Option(...)` as its default or in
`Annotated[..., typer.Option(...)]`): `--` and its name with `_` -> `-` unless names are given;
a `bool` is `--x/--no-x` unless names are given. A parameter without a default, or a
`typer.Argument`, is positional: no flag. An app with one command and no callback runs that
command with no subcommand word.

The facts are argparse's (kind "flag", token the option string, key the destination, attrs
default, choices, type, help, required, envvar, action, sets), with `subcommand` for a command
under a group: the words that invoke it, `,`-separated when it answers to several.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from bot.core.extract import walk
from bot.core.extract.applied_options import applied_option, root
from bot.core.extract.click_names import (
    CLICK_MODULES,
    TYPER_MODULES,
    Names,
    annotated,
    takes_unknown_options,
)
from bot.core.extract.click_options import (
    BUILTIN_OPTIONS,
    OptionContext,
    click_option,
    flag_fact,
    is_true,
    parameters,
    typer_param,
    with_attrs,
)
from bot.core.extract.command_links import ALIAS, ALIAS_NAME, LINK
from bot.core.extract.constants import Module
from bot.core.extract.group_options import group_options
from bot.core.extract.scopes import Scope
from bot.core.model import Fact
from bot.core.rules import Source

_SUFFIXES = ("_command", "_cmd", "_group", "_grp")  # click 8.2 drops these from a command's name
_MAX_COMMANDS = 2_000

Path = tuple[str, ...]
# Decorators that add one option: click.option, and click's `--version` and `--help` switches.
_OPTION_MAKERS = frozenset({"option", *BUILTIN_OPTIONS})


@dataclass
class _Command:
    names: tuple[str, ...]  # the words that invoke it ("" for a group that is the program itself)
    parent: str | None  # the group (function or variable name) it is under
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    framework: str = "click"
    options: list[ast.Call] = field(default_factory=list)  # click: the option decorators' calls
    applied: list[ast.expr] = field(default_factory=list)  # `@options.upgrade`: another module's
    assigned: dict[int, str] = field(default_factory=dict)  # id(call) -> the name a shared one has
    completion: int | None = None  # typer: the line of an app that adds --install-completion
    # `context_settings={"ignore_unknown_options": True}`: click hands options it does not know
    # to the command (axolotl's config overrides), so its flags are more than it declares.
    open: bool = False
    # A function or app of another module registered here (`app.command()(download)`,
    # `app.add_typer(cache_cli, name="cache")`): (its name as imported, how, called: a factory's
    # product, `make_cp()`). bot/core/extract/command_links.py finds it.
    link: tuple[str, str, bool, int] | None = None  # ... and the line


def click_facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    return _facts(source, path, tree, CLICK_MODULES)


def typer_facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    return _facts(source, path, tree, TYPER_MODULES)


def _facts(source: Source, path: str, tree: ast.Module, frameworks: frozenset[str]) -> list[Fact]:
    names = Names(tree, frameworks)
    if not names.modules and not names.members and not _registers(tree, names.imported):
        return []
    context = OptionContext(names, Scope(tree, None), Module(tree), source.id, path)
    commands = _commands(tree, names)
    out: list[Fact] = group_options(tree, source.id, path)
    if names.framework == "typer":
        _candidates(tree, names, commands)
        out.extend(_alias_facts(context))
    for key, command in commands.items():
        paths = _paths(key, commands)
        where = ",".join(sorted(" ".join(p) for p in paths)) if paths != {()} else None
        if command.link is not None:
            out.append(_link_fact(key, command, commands, names, source.id, path))
            continue
        at = replace(context, where=where)
        found: list[Fact] = []
        if command.framework == "typer" and command.function is not None:
            for arg, default in parameters(command.function):
                found.extend(typer_param(arg, default, at))
        for call in command.options:
            options = click_option(call, at)
            if id(call) in command.assigned:
                options = [with_attrs(f, assigned=command.assigned[id(call)]) for f in options]
            found.extend(options)
        out.extend(applied_option(ref, source.id, path, where) for ref in command.applied)
        if command.completion is not None and command.parent is None:
            for token, words in _COMPLETION.items():
                dest = token[2:].replace("-", "_")
                attrs = {"help": words, "default": "False", "sets": "true", "completion": "true"}
                found.append(flag_fact(token, dest, command.completion, attrs, source.id, path))
        if command.open:
            found = [with_attrs(f, open="true") for f in found]
        out.extend(_tag(found, key, commands))
    prefix = _auto_envvar_prefix(tree)
    return [_auto_envvar(f, prefix) for f in out] if prefix else out


_AUTO = "auto_envvar_prefix"


def _auto_envvar_prefix(tree: ast.Module) -> str | None:
    """The prefix click reads each option's environment variable under (`auto_envvar_prefix`,
    given to the program's call, a command's `context_settings`, or a group that sets it in
    them, as flask's `FlaskGroup` does), when the module gives one."""
    found: set[str] = set()
    for node in walk.nodes(tree):
        if isinstance(node, ast.keyword) and node.arg == _AUTO:
            value: ast.expr | None = node.value
        elif isinstance(node, ast.Dict):
            value = next(
                (v for k, v in zip(node.keys, node.values, strict=False) if _is_str(k, _AUTO)),
                None,
            )
        elif isinstance(node, ast.Call) and len(node.args) == 2 and _is_str(node.args[0], _AUTO):
            value = node.args[1]  # `context_settings.setdefault("auto_envvar_prefix", "FLASK")`
        else:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value:
            found.add(value.value)
    return found.pop() if len(found) == 1 else None


def _is_str(node: ast.expr | None, text: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == text


def _auto_envvar(fact: Fact, prefix: str) -> Fact:
    """An option with no environment variable of its own reads PREFIX_NAME (PREFIX_COMMAND_NAME
    under a subcommand), its name upper-cased, as click's automatic variables are named."""
    if fact.kind != "flag" or fact.attr("envvar") or fact.attr("completion") or not fact.key:
        return fact
    command = (fact.attr("subcommand") or "").split(",")[0].split()
    name = "_".join([prefix, *command, fact.key]).upper().replace("-", "_")
    # `derived`: the name rests on the command the option is found under, which a command added
    # by a group's own code (flask's `run`) is not: good to follow, not to suggest.
    return with_attrs(fact, envvar=name, envvar_derived="true")


# The options typer adds to an app's own command line unless `add_completion=False`.
_COMPLETION = {
    "--install-completion": "Install completion for the current shell.",
    "--show-completion": "Show completion for the current shell, to copy it or customize the installation.",
}


# --- the command tree ----------------------------------------------------------------------------


def _commands(tree: ast.Module, names: Names) -> dict[str, _Command]:
    """Every command and group of the module, keyed by the name the module calls it by."""
    commands: dict[str, _Command] = {}
    options: dict[str, ast.Call] = {}  # `verbose = click.option("--verbose", ...)`, used as @verbose
    typer_apps: set[str] = set()
    for name in _registers(tree, names.imported):
        # A group or app of another module its commands are added to (`from .main import app`):
        # the program's own, as far as this module can tell.
        commands[name] = _Command(("",), None, framework=names.framework)
        if names.framework == "typer":
            typer_apps.add(name)
    groups = _option_groups(tree, names)
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            if names.is_call_of(stmt.value, *_OPTION_MAKERS) or (
                names.framework == "click" and names.is_call_of(stmt.value, "Option")
            ):
                # `verbose = click.option(...)`, or the class itself (`click.Option(["-A",
                # "--app"], ...)`, flask's), which a command or group takes in its params
                assert isinstance(stmt.value, ast.Call)
                options[target] = stmt.value
            elif isinstance(stmt.value, ast.Call) and (
                applied := _applied(stmt.value, names, options, groups)
            ):
                groups[target] = applied  # mkdocs: `common_options = add_options(quiet_option, ...)`
            elif names.is_call_of(stmt.value, "Typer") or (
                names.framework == "typer"
                and isinstance(stmt.value, ast.Call)
                and names.of(stmt.value.func) is None
                and _decorates_commands(tree, target)
            ):
                # `app = typer.Typer()`, or a project's own maker of one (`auth_cli =
                # typer_factory(help=...)`) whose commands the module declares.
                assert isinstance(stmt.value, ast.Call)
                typer_apps.add(target)
                given = _given_name(stmt.value) if names.of(stmt.value.func) else None
                commands[target] = _Command(given or ("",), None, framework="typer")
                if not any(k.arg == "add_completion" and not is_true(k.value) for k in stmt.value.keywords):
                    commands[target].completion = stmt.lineno  # typer's default, a maker's too
            elif names.is_call_of(stmt.value, "Group", "group"):
                assert isinstance(stmt.value, ast.Call)
                commands[target] = _Command(_given_name(stmt.value) or ("",), None)
    for fn in _functions(tree):
        if len(commands) > _MAX_COMMANDS:
            break
        command: _Command | None = None
        found: list[ast.Call] = []
        elsewhere: list[ast.expr] = []
        for decorator in fn.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            func = call.func if call is not None else decorator
            meant = names.of(func)
            if meant is not None and meant[1] in ("command", "group"):
                command = _Command(_given_name(call) or _click_name(fn.name), None, fn)
                command.open = takes_unknown_options(call)
            elif meant is not None and meant[1] in _OPTION_MAKERS and call is not None:
                found.append(call)
            elif isinstance(func, ast.Name) and func.id in options and call is None:
                found.append(options[func.id])
            elif isinstance(func, ast.Name) and func.id in groups:
                found.extend(groups[func.id])  # `@tool_options`, `@common_options(...)`
            elif call is None and root(func) in names.imported:
                elsewhere.append(func)  # `@options.upgrade`: applied_options.py resolves it
            elif (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.attr in ("command", "group", "callback")
                and (
                    func.value.id in commands
                    or func.value.id in typer_apps
                    or _is_decorated(tree, func.value.id)
                )
            ):
                parent = func.value.id
                typer = parent in typer_apps
                if func.attr == "callback":
                    if parent in commands:
                        commands[parent].function = fn  # the app's own options
                    continue
                given = _given_name(call)
                if typer:
                    command = _Command(given or (_typer_name(fn.name),), parent, fn, framework="typer")
                else:
                    command = _Command(given or _click_name(fn.name), parent, fn)
                command.open = takes_unknown_options(call)
        if command is not None:
            command.options, command.applied = found, elsewhere
            commands[fn.name] = command
    _attach(tree, names, commands, typer_apps)
    _single_commands(commands, typer_apps - names.imported)  # an imported app has commands elsewhere
    used = {id(call) for c in commands.values() for call in c.options}
    named = [*groups.items(), *((name, [call]) for name, call in options.items())]
    kept = {id(call): name for name, calls in named for call in calls}
    shared = list({id(call): call for _, calls in named for call in calls if id(call) not in used}.values())
    if shared:
        # Options a module keeps for commands elsewhere (pip-tools' `options.py`, used as
        # `@options.dry_run`): flags of whatever command line takes them, under no subcommand here.
        # Each keeps the name it is applied by: applied_options.py gives it to the command.
        commands["<options>"] = _Command(("",), None, options=shared, assigned=kept)
    return commands


def _option_groups(tree: ast.Module, names: Names) -> dict[str, list[ast.Call]]:
    """Module-level functions that apply a set of options to the command they decorate
    (`def tool_options(fn): for d in (click.option(...), ...): fn = d(fn)`): name -> the option
    calls they make. A function that is a command itself is none. The set may be kept under a
    module-level name the function's loop reads (`for d in reversed(_import_options)`, or spliced
    into its own tuple, `(...) + _import_options + (...)`), and may hold another such function by
    name (`load_extension_option`): their options are the function's too, in line order."""
    kept: dict[str, list[ast.Call]] = {}  # `_import_options = (click.option(...), ...)`
    bodies: dict[str, list[ast.stmt]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if calls := _option_calls(walk.every(stmt.value), names):
                kept[stmt.targets[0].id] = calls
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and not stmt.decorator_list:
            bodies[stmt.name] = stmt.body
    done: dict[str, list[ast.Call]] = {}

    def options_of(name: str, seen: frozenset[str]) -> list[ast.Call]:
        if name in done:
            return done[name]
        nodes = [node for stmt in bodies[name] for node in walk.every(stmt)]
        calls = _option_calls(nodes, names)
        for node in nodes:
            if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load) or node.id in seen:
                continue
            if node.id in kept:
                calls += kept[node.id]
            elif node.id in bodies:
                calls += options_of(node.id, seen | {node.id})  # a cycle stops at a name seen
        done[name] = sorted({id(c): c for c in calls}.values(), key=lambda c: (c.lineno, c.col_offset))
        return done[name]

    return {name: found for name in bodies if (found := options_of(name, frozenset({name})))}


def _option_calls(nodes: list[ast.AST], names: Names) -> list[ast.Call]:
    return [n for n in nodes if isinstance(n, ast.Call) and (names.of(n.func) or ("", ""))[1] == "option"]


def _applied(
    call: ast.Call, names: Names, options: dict[str, ast.Call], groups: dict[str, list[ast.Call]]
) -> list[ast.Call]:
    """The options a call builds a decorator of, `add_options(click.option(...), verbose_option)`:
    its arguments' option calls and the options and option groups its arguments name."""
    found: list[ast.Call] = []
    for arg in call.args:
        if isinstance(arg, ast.Name):
            found += [options[arg.id]] if arg.id in options else groups.get(arg.id, [])
        else:
            found += [
                node
                for node in walk.every(arg)
                if isinstance(node, ast.Call) and (names.of(node.func) or ("", ""))[1] == "option"
            ]
    return found


def _registers(tree: ast.Module, imported: set[str]) -> list[str]:
    """The imported names this module's functions are registered on as commands (`@app.command()`)."""
    found: list[str] = []
    for fn in _functions(tree):
        for d in fn.decorator_list:
            func = d.func if isinstance(d, ast.Call) else d
            if (
                isinstance(func, ast.Attribute)
                and func.attr in ("command", "group", "callback")
                and isinstance(func.value, ast.Name)
                and func.value.id in imported
                and func.value.id not in found
            ):
                found.append(func.value.id)
    return found


def _decorates_commands(tree: ast.Module, name: str) -> bool:
    """Is `name` used as `@name.command(...)` or `@name.callback()` by a function of the module, or
    does the module register commands on it (`name.command()(fn)`, `name.add_typer(...)`)?"""
    for fn in _functions(tree):
        for d in fn.decorator_list:
            func = d.func if isinstance(d, ast.Call) else d
            if (
                isinstance(func, ast.Attribute)
                and func.attr in ("command", "callback")
                and isinstance(func.value, ast.Name)
                and func.value.id == name
            ):
                return True
    for node in walk.nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        called: ast.expr | None = node.func.func if isinstance(node.func, ast.Call) else None
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("add_typer", "add_command"):
            called = node.func
        if (
            isinstance(called, ast.Attribute)
            and isinstance(called.value, ast.Name)
            and called.value.id == name
        ):
            return called.attr in ("command", "add_typer", "add_command")
    return False


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in walk.nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.decorator_list:
            yield node


def _is_decorated(tree: ast.Module, name: str) -> bool:
    """Is `name` a function of the module with a decorator (a group defined further down)?"""
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name and n.decorator_list
        for n in tree.body
    )


def _attach(tree: ast.Module, names: Names, commands: dict[str, _Command], typer_apps: set[str]) -> None:
    """`cli.add_command(fn, "name")`, `app.add_typer(sub, name="users")`, `typer.run(main)`."""
    for node in walk.nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if names.of(func) == ("typer", "run") and node.args and isinstance(node.args[0], ast.Name):
            fn = next((f for f in _top_functions(tree) if f.name == node.args[0].id), None)
            if fn is not None:
                commands[fn.name] = _Command(("",), None, fn, framework="typer")
            continue
        if _registered(tree, names, commands, node):
            continue
        if not (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in commands
            and func.attr in ("add_command", "add_typer")
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            continue
        child = commands.get(node.args[0].id)
        if child is None and node.args[0].id in names.imported:
            link = (node.args[0].id, func.attr, False, node.lineno)
            given = _given_name(node, position=1)
            commands[f"<link {node.lineno}>"] = _Command(given or (), func.value.id, link=link)
            continue
        if child is None or node.args[0].id == func.value.id:
            continue
        given = _given_name(node, position=1)
        child.parent = func.value.id
        if given:
            child.names = given
        elif func.attr == "add_typer" and child.names == ("",):
            child.parent = func.value.id  # no name: its commands are the parent's own
    for key in list(commands):
        if commands[key].parent is not None and commands[key].parent not in commands:
            commands[key].parent = None  # a group of another module: its words are unknown here


def _registered(tree: ast.Module, names: Names, commands: dict[str, _Command], node: ast.Call) -> bool:
    """`app.command(name="x")(fn)`: the module's function `fn`, or the function its factory
    returns (`app.command()(make_cp())`), is a command; one imported from another module is a
    link (command_links.py)."""
    outer = node.func
    if not (
        isinstance(outer, ast.Call)
        and isinstance(outer.func, ast.Attribute)
        and outer.func.attr == "command"
        and isinstance(outer.func.value, ast.Name)
        and outer.func.value.id in commands
        and len(node.args) == 1
    ):
        return False
    parent, target = outer.func.value.id, node.args[0]
    called = isinstance(target, ast.Call)  # `make_cp()`, `make_cp("buckets")`: the function it returns
    name = target.func if isinstance(target, ast.Call) and called else target
    if not isinstance(name, ast.Name):
        return False
    framework = commands[parent].framework
    given = _given_name(outer)
    local = next((f for f in _top_functions(tree) if f.name == name.id), None)
    fn = _product(local) if called and local is not None else local
    if fn is not None:
        words = given or ((_typer_name(fn.name),) if framework == "typer" else _click_name(fn.name))
        commands[fn.name if not called else f"{name.id}()"] = _Command(words, parent, fn, framework=framework)
    elif name.id in names.imported:
        link = (name.id, "command", called, node.lineno)
        commands[f"<link {node.lineno}>"] = _Command(given or (), parent, framework=framework, link=link)
    return True


def _product(
    factory: ast.FunctionDef | ast.AsyncFunctionDef,
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function a factory defines and returns (`def make_cp(): def cp(...): ...; return cp`)."""
    inner = {n.name: n for n in factory.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for stmt in walk.every(factory):
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Name) and stmt.value.id in inner:
            return inner[stmt.value.id]
    return None


def _candidates(tree: ast.Module, names: Names, commands: dict[str, _Command]) -> None:
    """Functions with typer parameters that no decorator of the module makes a command, and the
    functions its factories return: commands when another module registers them, kept as
    candidates (no words) until command_links.py finds that it does."""
    taken = {id(c.function) for c in commands.values()}
    for fn in _top_functions(tree):
        if fn.decorator_list or fn.name in commands:
            continue
        product = _product(fn)
        for key, function in ((fn.name, fn), (f"{fn.name}()", product)):
            if function is not None and id(function) not in taken and _has_typer_params(function, names):
                commands[key] = _Command((), None, function, framework="typer")


def _has_typer_params(fn: ast.FunctionDef | ast.AsyncFunctionDef, names: Names) -> bool:
    for arg, default in parameters(fn):
        if names.is_call_of(default, "Option", "Argument"):
            return True
        if any(names.is_call_of(m, "Option", "Argument") for m in annotated(names.alias(arg.annotation))):
            return True
        alias = arg.annotation
        if isinstance(alias, ast.Name) and alias.id in names.imported and default is not None:
            return True  # `token: TokenOpt = None`: an alias of another module's
    return False


def _root(key: str, commands: dict[str, _Command]) -> str:
    for _ in range(16):
        parent = commands[key].parent
        if parent is None or parent not in commands:
            break
        key = parent
    return key


def _alias_facts(at: OptionContext) -> list[Fact]:
    """What each `X = Annotated[T, typer.Option(...)]` of the module declares, for the commands
    of other modules typed with it (command_links.py): kind `option-alias`, key the alias."""
    out: list[Fact] = []
    for name, alias in at.names.aliases.items():
        if not any(at.names.is_call_of(m, "Option", "Argument") for m in annotated(alias)):
            continue
        arg = ast.arg(arg=ALIAS_NAME, annotation=alias, lineno=alias.lineno, col_offset=0)
        found = typer_param(arg, ast.Constant(None), at)
        if not found:  # a typer.Argument: the parameter is positional
            found = [flag_fact("", name, alias.lineno, {"argument": "true"}, at.source_id, at.path)]
        out.extend(replace(f, kind=ALIAS, key=name) for f in found)
    return out


def _tag(facts: list[Fact], key: str, commands: dict[str, _Command]) -> list[Fact]:
    """The facts of a command with the name of the group or app its module holds it under (`root`),
    which another module may register under words of its own (command_links.py): with the
    words a click group answers to (`named`), or, for a function no decorator makes a command,
    the word typer would give it (`candidate`)."""
    root = _root(key, commands)
    top = commands[root]
    if root == "<options>" or not facts:
        return facts
    attrs = {"root": root}
    if not top.names and top.function is not None:
        attrs["candidate"] = _typer_name(top.function.name)
    elif top.framework == "click" and top.names != ("",):
        attrs["named"] = ",".join(top.names)
    return [replace(f, attrs=tuple(sorted({**dict(f.attrs), **attrs}.items()))) for f in facts]


def _link_fact(
    key: str, command: _Command, commands: dict[str, _Command], names: Names, source_id: str, path: str
) -> Fact:
    assert command.link is not None and command.parent is not None
    target, how, called, line = command.link
    parent = commands[command.parent]
    attrs = {"root": _root(command.parent, commands)}
    top = commands[attrs["root"]]
    if top.framework == "click" and top.names and top.names != ("",):
        # The words of the group this module registers on: the word of a module that adds
        # the group to its own (`cli.add_command(check)` then `check.add_command(code)`).
        attrs["root_named"] = ",".join(top.names)
    if command.names:
        attrs["words"] = ",".join(command.names)
    if called:
        attrs["called"] = "true"
    under = _paths(command.parent, commands)
    if under != {()}:
        attrs["under"] = ",".join(sorted(" ".join(p) for p in under))
    siblings = [c for c in commands.values() if c.parent == command.parent]
    if (
        how == "command"
        and len(siblings) == 1
        and parent.parent is None
        and parent.function is None
        and parent.framework == "typer"
        and command.parent not in names.imported
    ):
        attrs["alone"] = "true"  # typer runs an app's one command without its name
    return Fact.of(LINK, target, how, source_id, path, line, attrs)


def _single_commands(commands: dict[str, _Command], typer_apps: set[str]) -> None:
    """A typer app that is the program, with one command and no callback, runs that command
    without its name."""
    for app in typer_apps:
        if commands[app].parent is not None or commands[app].function is not None:
            continue
        children = [c for c in commands.values() if c.parent == app]
        if len(children) == 1 and children[0].framework == "typer" and children[0].function is not None:
            children[0].names = ("",)


def _top_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _paths(key: str, commands: dict[str, _Command], depth: int = 0) -> set[Path]:
    """The words that invoke a command from its program: () for the program itself."""
    command = commands[key]
    if command.parent is None or depth > 16:
        return {()}  # a command no group holds is a program of its own
    parents = _paths(command.parent, commands, depth + 1)
    words = [n for n in command.names if n]
    if not words:
        return parents
    return {(*p, w) for p in parents for w in words}


def _given_name(call: ast.Call | None, position: int = 0) -> tuple[str, ...] | None:
    """The name a command is given; `"list | ls"` (no word has a space or a bar) names aliases."""
    if call is None:
        return None
    named = next((k.value for k in call.keywords if k.arg == "name"), None)
    if named is None and len(call.args) > position:
        named = call.args[position]
    if isinstance(named, ast.Constant) and isinstance(named.value, str) and named.value:
        words = tuple(w.strip() for w in named.value.split("|") if w.strip())
        return words if words and all(" " not in w for w in words) else (named.value,)
    return None


def _click_name(function: str) -> tuple[str, ...]:
    dashed = function.lower().replace("_", "-")
    for suffix in _SUFFIXES:
        if function.endswith(suffix) and len(function) > len(suffix):
            return (dashed, function[: -len(suffix)].lower().replace("_", "-"))
    return (dashed,)


def _typer_name(function: str) -> str:
    return function.lower().replace("_", "-")
