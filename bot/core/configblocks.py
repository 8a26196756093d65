"""The config keys a page's fenced YAML, TOML and INI blocks set, and the environment variables its
shell blocks and dotenv files set (`APP_DB_URL=...`): each key as its dotted path from the
top of the block (`optimizer.lr` for `lr:` under `optimizer:`, the items of a list seen
through, as bot/core/extract/config_keys.py reads a config file), with its value and where its
name sits. The page records them whatever the block is about; only rules with config sources
(`pydantic`, `config`) judge them, against the keys those define (bot/core/check/keys.py).

A block that is not valid YAML (a snippet with `...` in it) sets nothing, nor does a Kubernetes
manifest (its keys are the resource's); blocks are bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

from bot.core.yamlwalk import walk

YAML_LANGS = frozenset({"yaml", "yml"})
TOML_LANGS = frozenset({"toml"})
# `key = value` under `[section]` headers, read as TOML's lines are (configargparse's files).
INI_LANGS = frozenset({"ini", "cfg", "conf"})
# Blocks whose `NAME=value` set environment variables: shell commands and dotenv files.
ENV_LANGS = frozenset({"", "bash", "sh", "shell", "zsh", "console", "env", "dotenv", "docker", "dockerfile"})
CONFIG_LANGS = YAML_LANGS | TOML_LANGS | INI_LANGS | ENV_LANGS
MAX_BLOCK = 100_000  # characters of one block
MAX_KEYS = 2_000  # keys of one block
MAX_DEPTH = 16

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# (dotted key, value or None for a section, 0-based line in the block, column of the key's name)
BlockKey = tuple[str, str | None, int, int]


def block_keys(lang: str, content: str) -> list[BlockKey]:
    if len(content) > MAX_BLOCK:
        return []
    if lang in YAML_LANGS:
        try:
            return list(_limited(_yaml_keys(content)))
        except (yaml.YAMLError, RecursionError, _TooMany):
            return []
    if lang in TOML_LANGS or lang in INI_LANGS:
        return list(_limited(_toml_keys(content)))
    if lang in ENV_LANGS:
        try:
            return list(_limited(_env_keys(content)))
        except _TooMany:
            return []
    return []


def _too_many(what: str) -> Exception:
    return _TooMany()


class _TooMany(Exception):
    pass


def _limited(keys: Iterator[BlockKey]) -> Iterator[BlockKey]:
    for n, key in enumerate(keys):
        if n >= MAX_KEYS:
            raise _TooMany
        yield key


def _yaml_keys(content: str) -> Iterator[BlockKey]:
    budget = [MAX_KEYS * 4]
    for node in yaml.compose_all(content, Loader=_Loader):
        if node is not None and not _manifest(node):
            for key, value, key_node in walk(
                node, budget, max_depth=MAX_DEPTH, too_large=_too_many, merge=False, keys_count=False
            ):
                yield key, value, key_node.start_mark.line, key_node.start_mark.column


def _manifest(node: yaml.Node) -> bool:
    """A Kubernetes manifest (`apiVersion:` and `kind:` at its top): its keys are the resource's
    (feast's operator guide: `kind: FeatureStore` with `spec.openlineage.transportType`), set
    by the cluster's schema, not by a config model of the code."""
    if not isinstance(node, yaml.MappingNode):
        return False
    top = {k.value for k, _ in node.value if isinstance(k, yaml.ScalarNode)}
    return {"apiVersion", "kind"} <= top


_TOML_TABLE = re.compile(r"\s*\[\[?\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"(\s*)([A-Za-z0-9_\-.\"']+?)\s*=\s*(.*?)\s*$")


def _toml_keys(content: str) -> Iterator[BlockKey]:
    """Keys of a TOML snippet, line by line: `[table]` headers and `key = value` lines (a snippet
    is rarely a whole file, so it is not parsed as one)."""
    table = ""
    for i, line in enumerate(content.split("\n")):
        header = _TOML_TABLE.match(line)
        if header:
            table = _unquote(header.group(1))
            col = line.find(header.group(1).split(".")[-1])
            yield table, None, i, max(col, 0)
            continue
        m = _TOML_KEY.match(line)
        if not m or line.lstrip().startswith("#"):
            continue
        name = _unquote(m.group(2))
        raw = m.group(3).split(" #", 1)[0].strip()
        if raw.startswith(("{", '"""', "'''")) or (raw.startswith("[") and not raw.endswith("]")):
            value = None  # a table or a value over several lines: nothing to compare
        else:
            value = raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" else raw
        col = len(m.group(1)) + m.group(2).rfind(name.split(".")[-1])
        yield f"{table}.{name}" if table else name, value or None, i, col


# `APP_DB_URL=x cmd`, `export APP_DB_URL=x`, `-e APP_DB_URL=x`, a dotenv line: a variable named
# in capitals with an underscore (`A=1` or `x=1` are shell's own).
_ENV_SET = re.compile(r"(?:^|(?<=[\s;&|(]))(?:export\s+)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=")


def _env_keys(content: str) -> Iterator[BlockKey]:
    """The environment variables a shell block or dotenv file sets. Their values are left out:
    a command setting a variable says what to run with, not what the default is."""
    for i, line in enumerate(content.split("\n")):
        code = line.split(" #", 1)[0]
        if code.lstrip().startswith("#"):
            continue
        for m in _ENV_SET.finditer(code):
            yield m.group(1), None, i, m.start(1)


def _unquote(dotted: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in dotted.split("."))
