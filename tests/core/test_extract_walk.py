"""The shared walk is `ast.walk` in another form: the same nodes in the same order."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from bot.core.extract import walk

BOT = Path(__file__).resolve().parents[2] / "bot"


def test_the_same_nodes_in_the_same_order_as_ast_walk() -> None:
    modules = sorted(BOT.rglob("*.py"))
    assert len(modules) > 50
    for path in modules:
        tree = ast.parse(path.read_text(), filename=str(path))
        assert walk.nodes(tree) == list(ast.walk(tree)), path


def test_a_subtree_and_a_new_tree_are_walked_afresh() -> None:
    tree = ast.parse("def f(x):\n    return g(x)\n\nclass C:\n    y = 1\n")
    whole = walk.nodes(tree)
    function = tree.body[0]
    assert walk.nodes(function) == list(ast.walk(function))
    assert walk.nodes(tree) == whole
    other = ast.parse("a = 1\n")
    assert walk.nodes(other) == list(ast.walk(other))


def test_children_are_ast_iter_child_nodes() -> None:
    tree = ast.parse((BOT / "core" / "extract" / "argparse_flags.py").read_text())
    for node in ast.walk(tree):
        assert walk.children(node) == list(ast.iter_child_nodes(node))


@pytest.mark.skipif(sys.version_info < (3, 12), reason="`type X = ...` is Python 3.12 syntax")
def test_a_type_alias_names_itself_with_a_node() -> None:
    tree = ast.parse("type Pair[T] = tuple[T, T]\n")
    assert walk.nodes(tree) == list(ast.walk(tree))
