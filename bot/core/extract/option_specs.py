"""Option specs a loop declares flags from: a list of dict literals, one per option
(`{"name": "model", "nickname": "m", "type": str}`), looped over into `add_argument(*flags,
dest=arg["name"], ...)` (argparse_flags.py reads each round's entries through
constants.literal_entry). The list may be written whole, concatenated (`common_args() + [...]`)
or built up in steps before the loop; a part made by a call handed arguments (the specs of a
model's fields) leaves the loop's parser open.
"""

from __future__ import annotations

import ast

from bot.core.extract import walk
from bot.core.extract.constants import Lookup

MAX_ROUNDS = 64  # rounds of one loop read (its values or its specs): more is no list of options


def listed(node: ast.expr, lookup: Lookup) -> list[ast.Dict] | None:
    """The dict literals of a list the loop iterates, each keyed by strings only."""
    held = lookup(node) if isinstance(node, ast.Name) else node
    if isinstance(held, ast.BinOp):
        # `common_args() + [{...}, ...]`: the literal parts; a part the file does not spell out
        # (a call into another module) declares nothing here, as `args.extend(common_args())` does.
        parts = _summands(held, None, [])
        return _keyed([e for part in parts if part is not None for e in part]) if parts else None
    if not isinstance(held, ast.List | ast.Tuple):
        return None
    return _keyed(held.elts)


def _keyed(elts: list[ast.expr]) -> list[ast.Dict] | None:
    """The elements when every one is a dict literal keyed by strings only (and there are some)."""
    if not elts or len(elts) > MAX_ROUNDS:
        return None
    specs = [e for e in elts if isinstance(e, ast.Dict)]
    keyed = all(isinstance(k, ast.Constant) and isinstance(k.value, str) for d in specs for k in d.keys)
    return specs if len(specs) == len(elts) and keyed else None


def _summands(
    node: ast.expr, name: str | None, held: list[ast.expr], unread: list[ast.expr] | None = None
) -> list[list[ast.expr] | None]:
    """The lists `a + b + ...` concatenates, in order: a list literal's elements, `held` for the
    name itself (`args = common_args() + args`), None for a part not spelled out here (kept in
    `unread`)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _summands(node.left, name, held, unread) + _summands(node.right, name, held, unread)
    if isinstance(node, ast.List | ast.Tuple):
        return [list(node.elts)]
    if isinstance(node, ast.Name) and node.id == name:
        return [held]
    if unread is not None:
        unread.append(node)
    return [None]


def open_loops(tree: ast.Module) -> list[tuple[int, int]]:
    """The lines of each loop over a list of option specs a function builds up with a part it
    cannot read: a call handed arguments (`get_field_info(LLMTrainingParams)`, the specs of a
    model's fields). A call without arguments of an imported function is read where it is defined
    (imported_rounds.py) and leaves the loop closed."""
    out: list[tuple[int, int]] = []
    for func in walk.nodes(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for loop in func.body:
            if not isinstance(loop, ast.For):
                continue
            unread: list[ast.expr] = []
            if isinstance(loop.iter, ast.Name):
                held = _accumulated(loop.iter.id, loop, func, unread)
            else:  # `for arg in get_field_info(Params) + [...]:`
                held = [e for part in _summands(loop.iter, None, [], unread) if part for e in part]
            if held and any(isinstance(u, ast.Call) and (u.args or u.keywords) for u in unread):
                out.append((loop.lineno, loop.end_lineno or loop.lineno))
    return out


def accumulated(name: str, loop: ast.For, owner: ast.AST) -> list[ast.Dict] | None:
    """The option specs `owner` builds up in `name` before `loop` (`_accumulated`)."""
    held = _accumulated(name, loop, owner, [])
    return _keyed(held) if held is not None else None


def _accumulated(name: str, loop: ast.For, owner: ast.AST, unread: list[ast.expr]) -> list[ast.expr] | None:
    """The option specs of a list the function builds up in steps before looping over it:
    `arg_list = [{...}, ...]`, then `arg_list = common_args() + arg_list` (or `arg_list += [...]`,
    `arg_list.extend([...])`). The name is bound more than once, so the scope holds no one value
    for it; the statements of the body before the loop, read in order, do. Anything else that
    binds or changes the name there (a branch, a loop, another method call) leaves it unknown."""
    body = getattr(owner, "body", None)
    if not isinstance(body, list):
        return None
    held: list[ast.expr] | None = None
    for stmt in body:
        if stmt.lineno >= loop.lineno:
            break
        target = _assigned(stmt)
        if target is not None and target[0] == name:
            parts = _summands(target[1], name, held or [], unread)
            if target[2]:  # `name += [...]`
                parts = [held or [], *parts]
            held = [e for part in parts if part is not None for e in part]
            continue
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.value.id == name
            and held is not None
        ):
            call = stmt.value
            if call.func.attr == "extend" and len(call.args) == 1:  # type: ignore[attr-defined]
                held = held + [e for part in _summands(call.args[0], None, [], unread) if part for e in part]
                continue
            if call.func.attr == "append" and len(call.args) == 1:  # type: ignore[attr-defined]
                held = [*held, call.args[0]]
                continue
            return None
        if any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
            for n in walk.every(stmt)
        ):
            return None  # bound in a branch or a loop: which value reaches the loop is not known
    return held


def _assigned(stmt: ast.stmt) -> tuple[str, ast.expr, bool] | None:
    """(name, value, augmented) of `name = value` or `name += value`."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value, False
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id, stmt.value, False
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name):
        return stmt.target.id, stmt.value, True
    return None
