"""The folders a revision holds as submodules, read from its .gitmodules."""

from __future__ import annotations

from bot.core.submodules import in_submodule, submodule_folders
from bot.trees.memory import MemoryTree

GITMODULES = """[submodule "recipe"]
\tpath = recipe
\turl = https://github.com/org/recipe.git
[submodule "third_party/lib"]
    path = "third_party/lib/"
    url = ../lib.git
[submodule "bad"]
\tpath = ../outside
"""


def test_every_submodule_folder_is_read_and_paths_under_it_are_in_it():
    folders = submodule_folders(MemoryTree({".gitmodules": GITMODULES}))
    assert folders == {"recipe", "third_party/lib"}
    assert in_submodule("recipe/dapo/run.sh", folders) and in_submodule("recipe/", folders)
    assert not in_submodule("recipes/x.sh", folders) and not in_submodule("third_party/other", folders)


def test_a_revision_without_gitmodules_has_none():
    assert submodule_folders(MemoryTree({"README.md": ""})) == frozenset()
