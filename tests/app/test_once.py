"""The protocol every GitHub creation goes through: marked pending before the call, its result
kept after; a retry that finds the mark looks on GitHub before writing again. And the gate: every
call of a Repo method that POSTs is made through `write`, unless it is listed as safe to repeat."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.app.github.once import recover, write


class Slot:
    """A slot kept in memory, and a GitHub that holds what was written."""

    def __init__(self) -> None:
        self.kept: int | None = None
        self.marked = False
        self.on_github: list[int] = []
        self.looked = 0

    def result(self) -> int | None:
        return self.kept

    def pending(self) -> bool:
        return self.marked

    def mark(self) -> None:
        self.marked = True

    def keep(self, result: int) -> None:
        self.kept, self.marked = result, False

    def find(self) -> int | None:
        self.looked += 1
        return self.on_github[-1] if self.on_github else None

    def forget(self) -> None:
        self.marked = False

    def send(self, lose_the_answer: bool = False) -> int:
        assert self.marked, "sent before it was marked"
        self.on_github.append(100 + len(self.on_github))
        if lose_the_answer:
            raise TimeoutError("GitHub did the write; its answer never came")
        return self.on_github[-1]


def test_a_write_is_marked_before_the_call_and_kept_after():
    slot = Slot()
    assert recover(slot) is None and slot.looked == 0  # nothing sent: nothing to look for
    assert write(slot, slot.send) == 100
    assert (slot.kept, slot.marked) == (100, False)
    assert recover(slot) == 100 and slot.looked == 0  # kept: GitHub is not asked


def test_a_write_whose_answer_was_lost_is_found_not_made_again():
    slot = Slot()
    with pytest.raises(TimeoutError):
        write(slot, lambda: slot.send(lose_the_answer=True))
    assert slot.marked and slot.kept is None
    assert recover(slot) == 100 and (slot.kept, slot.marked, slot.looked) == (100, False, 1)
    assert slot.on_github == [100]


def test_a_write_that_never_reached_github_is_forgotten_and_made_again():
    slot = Slot()

    def refused() -> int:
        raise ConnectionError("GitHub never saw it")

    with pytest.raises(ConnectionError):
        write(slot, refused)
    assert recover(slot) is None and not slot.marked and slot.looked == 1
    assert write(slot, slot.send) == 100 and slot.on_github == [100]


# -- every creation goes through it ----------------------------------------------------------------

APP = Path(__file__).resolve().parents[2] / "bot" / "app"
# Repo methods that POST and may be sent twice, and why; every other one is made through `write`.
SAFE_TO_REPEAT = {
    "react": "GitHub keeps one reaction of a kind per user on a comment",
    "create_commit": "a tree and a commit no branch points to; apply.py keeps it before the branch moves",
}


def posting_methods() -> set[str]:
    """The methods of bot.app.github.client.Repo that send a POST."""
    tree = ast.parse((APP / "github" / "client.py").read_text())
    (repo,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Repo"]
    found = set()
    for fn in repo.body:
        if isinstance(fn, ast.FunctionDef):
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "_call"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value == "POST"
                ):
                    found.add(fn.name)
    return found


def unguarded(source: str, creations: set[str]) -> list[str]:
    """Calls of `creations` in `source` not made inside a function handed to once.write: a lambda
    written in the call, or a function the enclosing one passes to it."""
    tree = ast.parse(source)
    parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def write_args(node: ast.AST | None) -> list[ast.expr]:
        """The arguments of `node` when it is a call of write, else none."""
        if isinstance(node, ast.Call) and "write" in (
            getattr(node.func, "id", ""),
            getattr(node.func, "attr", ""),
        ):
            return node.args
        return []

    def passed_to_write(node: ast.AST) -> bool:
        return node in write_args(parent.get(node))

    def names_passed_to_write(scope: ast.AST) -> set[str]:
        return {arg.id for call in ast.walk(scope) for arg in write_args(call) if isinstance(arg, ast.Name)}

    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) in creations):
            continue
        fn: ast.AST | None = parent.get(node)
        while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.Lambda)):
            fn = parent.get(fn)
        guarded = fn is not None and (
            passed_to_write(fn)
            if isinstance(fn, ast.Lambda)
            else fn.name in names_passed_to_write(parent.get(fn, tree))
        )
        if not guarded:
            found.append(f"line {node.lineno}: {getattr(node.func, 'attr', '')}")
    return found


def test_every_creation_on_github_goes_through_once_write():
    creations = posting_methods() - SAFE_TO_REPEAT.keys()
    assert {"create_check_run", "create_review", "create_issue_comment"} <= creations
    assert SAFE_TO_REPEAT.keys() <= posting_methods()  # nothing listed that no longer posts
    found = [
        f"{path.relative_to(APP)} {where}"
        for path in sorted(APP.rglob("*.py"))
        if path.name != "client.py"
        for where in unguarded(path.read_text(), creations)
    ]
    assert found == [], "made without once.write (mark pending, write, keep): " + ", ".join(found)


def test_the_checker_sees_a_creation_made_by_hand():
    by_hand = (
        "def post(ctx, body):\n"
        "    ctx.store.save_pull_state(ctx.pr, state)\n"
        "    return ctx.repo.create_issue_comment(1, body)\n"
    )
    through_write = (
        "def post(ctx, slot, body):\n"
        "    def send():\n"
        "        return ctx.repo.create_issue_comment(1, body)\n"
        "    write(slot, send)\n"
        "    write(slot, lambda: ctx.repo.create_issue_comment(1, body))\n"
    )
    assert unguarded(by_hand, {"create_issue_comment"}) == ["line 3: create_issue_comment"]
    assert unguarded(through_write, {"create_issue_comment"}) == []
