"""The folders a revision holds as git submodules: other repositories, pinned by commit.

A page citing `recipe/dapo/run.sh` where `recipe` is a submodule cites a file of that other
repository: it exists for whoever clones with `--recurse-submodules`, and nothing of it is in
this repository's tree to check against. The folders come from the revision's `.gitmodules`
(`path = recipe`), which every tree can read, the App's included.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bot.core.model import Tree

_MAX_TEXT = 256_000  # a .gitmodules larger than this is not read (it names no submodule)
_MAX_SUBMODULES = 1_000
_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)


def submodule_folders(tree: Tree) -> frozenset[str]:
    text = tree.read(".gitmodules")
    return _folders(text) if text and len(text) <= _MAX_TEXT else frozenset()


@lru_cache(maxsize=64)
def _folders(text: str) -> frozenset[str]:
    found = (m.group(1).strip("\"'").strip("/") for m in _PATH.finditer(text))
    return frozenset(p for _, p in zip(range(_MAX_SUBMODULES), found, strict=False) if p and ".." not in p)


def in_submodule(path: str, folders: frozenset[str]) -> bool:
    """Whether `path` is a submodule's folder or lies inside one."""
    path = path.strip("/")
    return any(path == f or path.startswith(f + "/") for f in folders)
