"""Console scripts a project declares: the commands `pip install` puts on the PATH.

Read from `pyproject.toml` ([project.scripts], [tool.poetry.scripts], or their dotted keys:
`scripts.tool = "..."` under [project]), `setup.cfg`
([options.entry_points] console_scripts) and `setup.py` (the `console_scripts` entry of an
`entry_points=` argument, read with `ast`: never executed). Each gives a name and an entry
point, `package.module:function`. setup.py's `scripts=` lists files installed as commands
under their own names (`bin/deepspeed`); one that imports a function and calls it
(`from deepspeed.launcher.runner import main`, then `main()`) is that entry point. Pure: text
in, (name, entry point) pairs out; a file that does not parse yields nothing.

The TOML reader covers the two tables and nothing else of TOML: `tomllib` is Python 3.11 and
later, and the same files must read the same way on 3.10.
"""

from __future__ import annotations

import ast
import configparser
import re
from typing import NamedTuple

from bot.core import lazyre
from bot.core.extract import walk


class EntryPoint(NamedTuple):
    name: str  # the command: "lm-eval", "mlx_lm.generate"
    module: str  # dotted: "lm_eval.__main__"
    function: str | None  # "cli_evaluate"; None for an entry point naming a module alone


def entry_point(name: str, spec: str) -> EntryPoint | None:
    """`mod.sub:func [extra]` as setuptools reads it; None when it is not one."""
    spec = spec.split("[", 1)[0].strip()
    module, _, function = spec.partition(":")
    module, function = module.strip(), function.strip()
    if not name or not _DOTTED.fullmatch(module) or (function and not _DOTTED.fullmatch(function)):
        return None
    return EntryPoint(name, module, function.split(".")[0] or None)


_DOTTED = lazyre.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*")


# --- pyproject.toml ------------------------------------------------------------------------------

_TABLES = ("project.scripts", "tool.poetry.scripts")
_HEADER = lazyre.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_KEY = r'(?:"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_.-]+)'
_PAIR = lazyre.compile(rf"^\s*({_KEY})\s*=\s*(.+?)\s*$")
_STRING = lazyre.compile(r'^"((?:[^"\\]|\\.)*)"|^\'([^\']*)\'')
_INLINE = lazyre.compile(rf"({_KEY})\s*=\s*(\"(?:[^\"\\]|\\.)*\"|'[^']*')")


def from_pyproject(text: str) -> list[EntryPoint]:
    out: list[EntryPoint] = []
    table: str | None = None
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            table = _unquote_key(header.group(1).replace(" ", ""))
            continue
        pair = _PAIR.match(line)
        if pair is None:
            continue
        key, value = _unquote_key(pair.group(1)), pair.group(2)
        full = f"{table}.{key}" if table else key
        dotted = next((t for t in _TABLES if full.startswith(t + ".")), None)
        if dotted is not None and table not in _TABLES:
            # A dotted key: `scripts.pipx = "pipx.main:cli"` under [project]
            spec = _toml_string(value)
            found = entry_point(full[len(dotted) + 1 :], spec) if spec is not None else None
        elif table in _TABLES:
            spec = _toml_string(value)
            if spec is None and value.startswith("{"):
                # Poetry: `name = { reference = "mod:func", type = "console" }` or `{ callable = ... }`
                fields = {_unquote_key(k): _toml_string(v) for k, v in _INLINE.findall(value)}
                spec = fields.get("callable") or fields.get("reference")
            found = entry_point(key, spec) if spec is not None else None
        elif table == "project" and key == "scripts" and value.startswith("{"):
            # `scripts = { name = "mod:func", ... }` written inline under [project]
            for k, v in _INLINE.findall(value):
                spec = _toml_string(v)
                found = entry_point(_unquote_key(k), spec) if spec is not None else None
                if found is not None:
                    out.append(found)
            continue
        else:
            continue
        if found is not None:
            out.append(found)
    return out


def _unquote_key(key: str) -> str:
    key = key.strip()
    parts = re.findall(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^."\']+', key)
    return ".".join(p[1:-1] if p[:1] in "\"'" else p.strip() for p in parts)


def _toml_string(value: str) -> str | None:
    match = _STRING.match(value.strip())
    if match is None:
        return None
    basic, literal = match.group(1), match.group(2)
    # Entry points are plain ASCII names: the only escapes worth undoing are quotes and backslashes.
    return literal if literal is not None else re.sub(r"\\(.)", r"\1", basic)


# --- setup.cfg -----------------------------------------------------------------------------------


def from_setup_cfg(text: str) -> list[EntryPoint]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    if not parser.has_option("options.entry_points", "console_scripts"):
        return []
    return _ini_lines(parser.get("options.entry_points", "console_scripts"))


def _ini_lines(block: str) -> list[EntryPoint]:
    out = []
    for line in block.splitlines():
        name, eq, spec = line.partition("=")
        found = entry_point(name.strip(), spec) if eq else None
        if found is not None:
            out.append(found)
    return out


# --- setup.py ------------------------------------------------------------------------------------


def from_setup_py(text: str) -> list[EntryPoint]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    constants: dict[str, ast.expr | None] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            constants[name] = None if name in constants else stmt.value  # assigned twice: unknown
    out: list[EntryPoint] = []
    for node in walk.nodes(tree):
        if isinstance(node, ast.Call):
            for k in node.keywords:
                if k.arg == "entry_points":
                    out.extend(_setup_entry_points(_resolve(k.value, constants), constants))
    return out


def _resolve(node: ast.expr, constants: dict[str, ast.expr | None]) -> ast.expr | None:
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return node


def _setup_entry_points(node: ast.expr | None, constants: dict[str, ast.expr | None]) -> list[EntryPoint]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        # entry_points="""[console_scripts]\nname = mod:func"""
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(node.value)
        except configparser.Error:
            return []
        if not parser.has_section("console_scripts"):
            return []
        return [e for k, v in parser.items("console_scripts") if (e := entry_point(k, v)) is not None]
    if not isinstance(node, ast.Dict):
        return []
    for key, value in zip(node.keys, node.values, strict=True):
        if isinstance(key, ast.Constant) and key.value == "console_scripts":
            value_node = _resolve(value, constants)
            if isinstance(value_node, ast.List | ast.Tuple):
                lines = [
                    e.value
                    for e in value_node.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                ]
                return _ini_lines("\n".join(lines))
            if isinstance(value_node, ast.Constant) and isinstance(value_node.value, str):
                return _ini_lines(value_node.value)
    return []


def setup_scripts(text: str) -> list[str]:
    """The files setup.py's `scripts=` installs as commands, however many ways a name holding
    them is assigned (`scripts = [...]` on Windows, another list elsewhere: every one)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lists: dict[str, list[ast.expr]] = {}
    given: list[ast.expr] = []
    for node in walk.nodes(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            lists.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.Call):
            given.extend(k.value for k in node.keywords if k.arg == "scripts")
    out: list[str] = []
    for value in given:
        for each in lists.get(value.id, []) if isinstance(value, ast.Name) else [value]:
            if isinstance(each, ast.List | ast.Tuple):
                out.extend(
                    e.value for e in each.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                )
    return list(dict.fromkeys(out))


def script_entry(name: str, text: str) -> EntryPoint | None:
    """The entry point a Python script runs: the one function it imports from a module and calls
    at its top level or under `if __name__ == "__main__":` (`main()`); None for anything else."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    imported = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and not node.level
        for alias in node.names
    }
    body = [
        s
        for stmt in tree.body
        for s in (stmt.body if isinstance(stmt, ast.If) else [stmt])
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name)
    ]
    called = {
        s.value.func.id for s in body if isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name)
    }
    found = [imported[c] for c in called if c in imported]
    if len(found) != 1:
        return None
    module, function = found[0]
    return EntryPoint(name, module, function)
