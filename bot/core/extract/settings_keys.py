"""Settings modules as config keys (`kind: settings`): the defaults a program keeps in a dict of
its own module (`DEFAULT_CONFIG = {'PATH': os.curdir, 'SITENAME': 'A Blog', ...}`), which the
user's settings file overrides key by key and a settings page documents one by one (Sphinx's
`.. data:: SITENAME = 'A Blog'`). Read from the syntax tree, never imported.

A settings dict is a dict literal assigned at module level to a capitalised name, whose keys are
all string constants, at least three quarters of them capitalised (`SITENAME`, `ARTICLE_URL`):
that is how such programs tell a setting from anything else (Django's, Pelican's, Flask's
convention), and it keeps a module's lookup tables (`{'md': MarkdownReader}`) out. Each key is
a fact of kind `key` with its value as the default when the value is a constant (`'output'`,
`[]`, `{'index': None}`); a value the code computes (`os.curdir`, `DEFAULT_THEME`) is known by
name only. At most MAX_DICTS dicts of one
module are read, and a dict of fewer than MIN_KEYS keys is none.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from bot.core.extract import walk
from bot.core.extract.constants import UNKNOWN, as_text, value
from bot.core.model import Fact
from bot.core.rules import Source

MIN_KEYS = 3  # `{'A': 1}` is a lookup table as often as settings
MAX_DICTS = 8


def facts(source: Source, path: str, tree: ast.Module) -> list[Fact]:
    out: list[Fact] = []
    seen: set[str] = set()
    for name, node in list(settings_dicts(tree))[:MAX_DICTS]:
        for key, item in zip(node.keys, node.values, strict=True):
            assert isinstance(key, ast.Constant) and isinstance(key.value, str)
            if key.value in seen:
                continue  # the first dict to set a key is the one its default comes from
            seen.add(key.value)
            attrs = {"kind": "key", "settings": name}
            found = value(item, _nothing)
            if found is not UNKNOWN:
                attrs["default"] = as_text(found)
            out.append(Fact.of("key", key.value, key.value, source.id, path, key.lineno, attrs))
    return out


def settings_dicts(tree: ast.Module) -> Iterator[tuple[str, ast.Dict]]:
    """The module-level dicts of settings: (the name they are assigned to, the dict)."""
    for _, target, node in walk.assignments(tree.body):
        if isinstance(target, ast.Name) and _capitalised(target.id) and _settings(node):
            assert isinstance(node, ast.Dict)
            yield target.id, node


def _settings(node: ast.expr) -> bool:
    """Keys all strings, most of them capitalised: one key of another style added later (or
    renamed so) leaves the dict the settings it was, every other key still one."""
    if not isinstance(node, ast.Dict) or len(node.keys) < MIN_KEYS:
        return False
    names = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if len(names) != len(node.keys):
        return False
    capitalised = sum(_capitalised(name) for name in names)
    return capitalised >= MIN_KEYS and capitalised * 4 >= len(node.keys) * 3


def _capitalised(name: str) -> bool:
    """`SITENAME`, `ARTICLE_URL`, `_PRIVATE_DEFAULTS`: letters all capitals, at least two."""
    letters = [c for c in name if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters) and name.replace("_", "").isalnum()


def _nothing(node: ast.expr) -> None:
    return None  # a name the dict's value uses is computed elsewhere: its value is unknown


__all__ = ["MAX_DICTS", "MIN_KEYS", "facts", "settings_dicts"]
