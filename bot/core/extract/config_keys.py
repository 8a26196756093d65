"""Config files as facts (`kind: config`): the keys of a YAML, TOML or JSON file the project ships
(a recipe, an example config) and their values, which are the defaults a page copying the file
cites. A key is its dotted path from the top (`optimizer.lr`); the items of a list are seen
through (`datasets.path` for `datasets: [{path: x}]`), as a page writes them.

Read as data, never constructed into objects: YAML is composed into nodes by the safe loader
(tags are never acted on, aliases are walked within a budget), TOML and JSON are parsed by the
standard library (tomli before Python 3.11). Bounded: files over MAX_BYTES, deeper than
MAX_DEPTH or with more than MAX_KEYS keys are reported, not read.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

from bot.core.model import Extraction, Fact, ParseError
from bot.core.rules import Source
from bot.core.yamlwalk import walk

MAX_BYTES = 1_000_000
MAX_DEPTH = 16
MAX_KEYS = 20_000
FORMATS = (".yaml", ".yml", ".toml", ".json")

# (dotted key, value as text or None for a mapping, line)
Entry = tuple[str, str | None, int]


class TooLarge(ValueError):
    pass


def facts(source: Source, path: str, text: str) -> Extraction:
    import yaml  # here, not at the top: a check whose rules read no config file never loads it

    if len(text) > MAX_BYTES:
        return _error(path, 1, f"larger than {MAX_BYTES} bytes; config files read as facts must stay small")
    try:
        entries = list(entries_of(path, text))
    except TooLarge as e:
        return _error(path, 1, str(e))
    except yaml.YAMLError as e:
        if _TEMPLATE.search(text):
            # A template a tool renders into YAML (a Helm chart's templates/, Jinja): its keys
            # are the rendered file's, which no page copies from this text.
            return Extraction(facts=())
        if isinstance(e, yaml.MarkedYAMLError):
            line = e.problem_mark.line + 1 if e.problem_mark is not None else 1
            return _error(path, line, e.problem or str(e))
        return _error(path, 1, str(e).splitlines()[0] if str(e) else type(e).__name__)
    except (ValueError, RecursionError) as e:
        return _error(
            path, getattr(e, "lineno", 1) or 1, str(e).splitlines()[0] if str(e) else type(e).__name__
        )
    seen: set[str] = set()
    out: list[Fact] = []
    for key, value, line in entries:
        if key in seen:
            continue  # the first item of a list stands for the key; a page cites it once
        seen.add(key)
        attrs = {"kind": "key", "file": path}
        if value is not None:
            attrs["default"] = value
        out.append(Fact.of("key", key, key, source.id, path, line, attrs))
    return Extraction(facts=tuple(out))


def entries_of(path: str, text: str) -> Iterator[Entry]:
    lower = path.lower()
    if lower.endswith((".yaml", ".yml")):
        yield from yaml_entries(text)
    elif lower.endswith(".toml"):
        yield from _toml_entries(text)
    elif lower.endswith(".json"):
        yield from _json_entries(text)
    else:
        raise ValueError(f"not a config format docs-sync reads ({', '.join(FORMATS)})")


# Template actions: Go's and Helm's `{{ .Values.x }}`, Jinja's `{{ x }}` and `{% if %}`.
_TEMPLATE = re.compile(r"\{\{[^{}\n]{0,200}\}\}|\{%[^{}\n]{0,200}%\}")  # bounded: text is hostile


def _error(path: str, line: int, message: str) -> Extraction:
    return Extraction(facts=(), errors=(ParseError(path, line, message),))


# --- YAML -------------------------------------------------------------------------------------------


def yaml_entries(text: str) -> Iterator[Entry]:
    """Every key of every document in the text, with its scalar value and line."""
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    budget = [MAX_KEYS]
    for node in yaml.compose_all(text, Loader=loader):
        if node is not None:
            for key, value, key_node in walk(
                node, budget, max_depth=MAX_DEPTH, too_large=_too_large, merge=True, keys_count=True
            ):
                yield key, value, key_node.start_mark.line + 1


def _too_large(what: str) -> TooLarge:
    if what == "deep":
        return TooLarge(f"nested more than {MAX_DEPTH} levels deep, more than docs-sync reads")
    if what == "nodes":
        return TooLarge(f"more than {MAX_KEYS} keys and values, more than docs-sync reads")
    return TooLarge(f"more than {MAX_KEYS} keys, more than docs-sync reads")


# --- TOML and JSON: parsed whole, lines found by the keys' spellings ------------------------------------


def _toml_entries(text: str) -> Iterator[Entry]:
    try:  # the standard library's from Python 3.11; tomli, its original, before
        toml: Any = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
    except ModuleNotFoundError:
        raise ValueError("reading TOML needs Python 3.11 or the tomli package") from None
    try:
        data = toml.loads(text)
    except toml.TOMLDecodeError as e:
        raise ValueError(str(e)) from None
    yield from _data_entries(data, text, r"^\s*(?:\[+\s*)?(?:[\w.\"'-]*\.)?[\"']?{}[\"']?\s*[=\].]")


def _json_entries(text: str) -> Iterator[Entry]:
    yield from _data_entries(json.loads(text), text, r"\"{}\"\s*:")


def _data_entries(data: object, text: str, spelled: str) -> Iterator[Entry]:
    lines = text.split("\n")
    budget = [MAX_KEYS]

    def line_of(name: str, after: int) -> int:
        pattern = re.compile(spelled.format(re.escape(name)))
        for i in range(after, len(lines)):
            if pattern.search(lines[i]):
                return i + 1
        return after + 1 if after < len(lines) else 1

    def walk(value: object, prefix: str, after: int, depth: int) -> Iterator[Entry]:
        if depth > MAX_DEPTH:
            raise TooLarge(f"nested more than {MAX_DEPTH} levels deep, more than docs-sync reads")
        if isinstance(value, list):
            for item in value:
                yield from walk(item, prefix, after, depth + 1)
            return
        if not isinstance(value, dict):
            return
        for name, child in value.items():
            budget[0] -= 1
            if budget[0] < 0:
                raise TooLarge(f"more than {MAX_KEYS} keys, more than docs-sync reads")
            key = f"{prefix}.{name}" if prefix else str(name)
            line = line_of(str(name), after)
            text_value = _text(child)
            yield key, text_value, line
            if text_value is None:
                yield from walk(child, key, line - 1, depth + 1)

    yield from walk(data, "", 0, 0)


def _text(value: object) -> str | None:
    if isinstance(value, dict) or (
        isinstance(value, list) and any(isinstance(v, dict | list) for v in value)
    ):
        return None
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) or "" for v in value) + "]"
    if value is None:
        return "None"
    return str(value)
