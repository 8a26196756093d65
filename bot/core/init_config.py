"""`docs-sync init` for config keys: the pydantic models, dicts of settings' defaults and shipped
config files (YAML, TOML, JSON) whose keys pages cite, as one rule of kinds `pydantic`,
`settings` and `config`; and the config
systems it finds and cannot read (Hydra's composed groups, gin, draccus, ml_collections), said
rather than skipped.

A source counts when pages cite at least MIN_KEYS of its keys that name something (`optimizer.lr`,
`warmup_steps`, `APP_DATABASE_URL`: dotted, with an underscore, or an environment variable;
`name` or `model` alone say nothing about which config a page is about). Pure: it reads the
tree it is given.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.core.extract import extract
from bot.core.globs import compile_pattern
from bot.core.model import Fact, Tree
from bot.core.page import parse_doc
from bot.core.rules import Source

MIN_KEYS = 2  # distinct telling keys of one source a page must cite
MAX_CONFIG = 200_000  # a config file larger than this is data, not a recipe
_CONFIG_EXTS = (".yaml", ".yml", ".toml", ".json")
# Files with keys of their own that are no config of the project's code.
_NOT_CONFIGS = frozenset(
    {
        "pyproject.toml", "package.json", "package-lock.json", "tsconfig.json", "mkdocs.yml",
        "mkdocs.yaml", "docs.json", "mint.json", ".pre-commit-config.yaml", "environment.yml",
        "environment.yaml", "codecov.yml", ".readthedocs.yaml", ".readthedocs.yml", "citation.cff",
        "compose.yaml", "docker-compose.yml", "docker-compose.yaml", "renovate.json", "ruff.toml",
        "setup.cfg", "tox.ini", "poetry.lock", "uv.lock", "pixi.toml", "cargo.toml", "netlify.toml",
        "vercel.json", "_config.yml", "book.toml", "typos.toml", ".markdownlint.json",
    }
)  # fmt: skip
_NOT_CONFIG_DIRS = frozenset({".github", "docs", "doc", "site", "node_modules", "tests", "test", ".circleci"})
_TELLING = re.compile(r"[A-Za-z][\w-]*(?:[._][\w-]+)+")
# A module-level dict whose first key is a capitalised string (`DEFAULT_CONFIG = {\n 'PATH': ...`):
# a dict of settings' defaults, read by bot/core/extract/settings_keys.py. A cheap test first.
_SETTINGS_DICT = re.compile(r"""^[A-Z][A-Z0-9_]*\s*=\s*\{\s*['"][A-Z][A-Z0-9_]*['"]\s*:""", re.M)

# Config systems init recognises and does not read, each with how it is recognised.
_UNREAD: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("Hydra", re.compile(r"^\s*(?:import hydra|from hydra\b)", re.M), "its config groups compose keys"),
    ("draccus", re.compile(r"^\s*(?:import draccus|from draccus\b)", re.M), "dataclass configs"),
    (
        "ml_collections",
        re.compile(r"^\s*(?:import ml_collections|from ml_collections\b)", re.M),
        "ConfigDicts",
    ),
    ("gin", re.compile(r"^\s*(?:import gin\b|from gin\b)", re.M), ".gin bindings"),
)


@dataclass(frozen=True)
class KeysPlan:
    models: tuple[str, ...]  # Python files of pydantic models pages cite
    settings: tuple[str, ...]  # Python files of dicts of settings' defaults pages cite
    configs: tuple[str, ...]  # config files pages cite
    pages: tuple[str, ...]
    unread: tuple[str, ...]  # "found Hydra (train.py): not read, its config groups compose keys"


def plan_keys(
    tree: Tree, paths: Iterable[str], source_test: Callable[[str], bool], page_test: Callable[[str], bool]
) -> KeysPlan:
    """`source_test` and `page_test` are init's own tests of what is code and what is a page."""
    paths = sorted(paths)
    by_source: dict[str, frozenset[str]] = {}
    settings: set[str] = set()  # the files of by_source read as dicts of settings
    unread: dict[str, list[str]] = {}
    for path in paths:
        if source_test(path):
            text = tree.read(path)
            if text is None or len(text) > MAX_CONFIG * 10:
                continue
            for name, pattern, _ in _UNREAD:
                if pattern.search(text):
                    unread.setdefault(name, []).append(path)
            if "BaseModel" in text or "BaseSettings" in text:
                keys = _keys(Source(id="m", kind="pydantic", paths=(path,)), path, text)
                if keys:
                    by_source[path] = keys
            elif _SETTINGS_DICT.search(text):
                keys = _keys(Source(id="s", kind="settings", paths=(path,)), path, text)
                if keys:
                    by_source[path] = keys
                    settings.add(path)
        elif _is_config(path):
            text = tree.read(path)
            if text is not None and len(text) <= MAX_CONFIG and not _manifest(text):
                keys = _keys(Source(id="c", kind="config", paths=(path,)), path, text)
                if keys:
                    by_source[path] = keys
        elif path.endswith(".gin"):
            unread.setdefault("gin", []).append(path)
    by_key: dict[str, list[str]] = {}
    for path, keys in by_source.items():
        for key in keys:
            by_key.setdefault(key, []).append(path)
    pages: list[str] = []
    cited: Counter[str] = Counter()
    for path in paths:
        if not page_test(path):
            continue
        text = tree.read(path)
        if text is None or len(text) > 2_000_000:
            continue
        tokens = {r.token for r in parse_doc(path, text).refs if r.kind in ("key", "name", "value")}
        shared: Counter[str] = Counter()
        for token in tokens & by_key.keys():
            for source in by_key[token]:
                shared[source] += 1
        hits = [s for s, n in shared.items() if n >= MIN_KEYS]
        if hits:
            pages.append(path)
            cited.update(hits)
    models = tuple(p for p in by_source if cited[p] and p.endswith(".py") and p not in settings)
    settings_files = tuple(p for p in by_source if cited[p] and p in settings)
    configs = tuple(p for p in by_source if cited[p] and not p.endswith(".py"))
    notes = tuple(
        f"found {name} ({_few(found)}): not read, {why}"
        for name, _, why in _UNREAD
        if (found := unread.get(name))
    )
    return KeysPlan(models, settings_files, configs, tuple(pages), notes)


_API_VERSION = re.compile(r"^apiVersion\s*:", re.M)
_KIND = re.compile(r"^kind\s*:", re.M)


def _manifest(text: str) -> bool:
    """A Kubernetes manifest (`apiVersion:` and `kind:` at its top): a resource for a cluster,
    whose keys its schema defines (an operator's bundle, RBAC roles), not a config of the code."""
    return _API_VERSION.search(text) is not None and _KIND.search(text) is not None


def _keys(source: Source, path: str, text: str) -> frozenset[str]:
    """The telling keys a file defines (none when it does not parse)."""
    found = extract(source, path, text)
    return frozenset(f.token for f in found.facts if _telling(f))


def _telling(fact: Fact) -> bool:
    return fact.kind == "key" and (fact.attr("kind") == "env" or _TELLING.fullmatch(fact.token) is not None)


def _is_config(path: str) -> bool:
    name = posixpath.basename(path).lower()
    if not name.endswith(_CONFIG_EXTS) or name in _NOT_CONFIGS:
        return False
    parts = path.split("/")[:-1]
    return not any(p in _NOT_CONFIG_DIRS or p.startswith(".") for p in parts)


def _few(paths: list[str]) -> str:
    return ", ".join(paths[:2]) + (f" and {len(paths) - 2} more" if len(paths) > 2 else "")


def rule_lines(
    found: KeysPlan,
    tree: Tree,
    group: Callable[..., list[tuple[str, int]]],
    q: Callable[[str], str],
    history: Callable[[str], list[str]],
) -> list[str]:
    """The rule's YAML lines (under `rules:`); `group` and `q` are init's writers of globs and
    paths, `history` its excludes of a page glob (changelogs, posts, docs snapshots). Configs are
    globbed by their top folder (`examples/**/*.yaml`): every recipe there says which keys
    exist; a glob that would take in what is no config (tests' recordings) is written folder by
    folder instead."""
    if not found.pages or not (found.models or found.settings or found.configs):
        return []
    lines = ["  - id: config-docs", "    docs:"]
    for pattern, count in group(list(found.pages), None, deep=True):  # each kind of page apart
        note = f"  # {count} pages cite config keys" if count > 1 else ""
        lines.append(f"      - path: {q(pattern)}{note}")
        lines += _excludes(history(pattern) if "*" in pattern else [], "changelogs, posts", q)
    lines.append("    sources:")
    if found.models:
        lines += ["      - id: config-models", "        kind: pydantic", "        paths:"]
        lines += [f"          - {q(p)}" for p, _ in group(list(found.models), "py", deep=False)]
    if found.settings:
        lines += ["      - id: settings-defaults", "        kind: settings", "        paths:"]
        lines += [f"          - {q(p)}" for p in found.settings]  # each by name: one dict each
    if found.configs:
        lines += ["      - id: shipped-configs", "        kind: config", "        paths:"]
        for ext in sorted({posixpath.splitext(p)[1] for p in found.configs}):
            same = [p for p in found.configs if p.endswith(ext)]
            for pattern, _ in group(same, ext[1:], deep=True):
                lines += [f"          - {q(p)}" for p in _configs_only(tree, pattern, same, ext, group)]
    return lines


def _configs_only(
    tree: Tree, pattern: str, configs: list[str], ext: str, group: Callable[..., list[tuple[str, int]]]
) -> list[str]:
    """`pattern`, or where it would take in what is no config (a test's recorded HTTP exchanges
    and a cluster's manifests are YAML too) each folder's glob, or the folder's files by name."""
    if "*" not in pattern or not _takes_others(tree, pattern):
        return [pattern]
    mine = [p for p in configs if compile_pattern(pattern).matches(p)]
    out: list[str] = []
    for folder, _ in group(mine, ext[1:], deep=False):
        if "*" in folder and _takes_others(tree, folder):
            out += [p for p in mine if compile_pattern(folder).matches(p)]
        else:
            out.append(folder)
    return out


def _excludes(entries: list[str], why: str, q: Callable[[str], str]) -> list[str]:
    return [f"        exclude: [{', '.join(q(x) for x in entries)}]  # {why}"] if entries else []


def _takes_others(tree: Tree, pattern: str) -> bool:
    """Does the glob match a file of a folder init reads no configs in (tests, docs), or a
    Kubernetes manifest?"""
    compiled = compile_pattern(pattern)
    for path in tree.paths():
        if not compiled.matches(path):
            continue
        if any(p in _NOT_CONFIG_DIRS or p.startswith(".") for p in path.split("/")[:-1]):
            return True
        text = tree.read(path)
        if text is not None and len(text) <= MAX_CONFIG and _manifest(text):
            return True
    return False
