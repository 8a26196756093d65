"""Launchers that forward their arguments: a shell script running `python -m pkg.train "$@"`
(or `python $SCRIPT "$@"` with `SCRIPT=pkg/train.py` set in the script), or a Python script
running `subprocess.run([sys.executable, "train.py", *sys.argv[1:]])` or calling an imported
module's `main(sys.argv[1:])`, is that program under another name, and `./run_train.sh --lr 1e-4`
passes `--lr` to its parser.

Pure and bounded: text in, the command lines that forward (their words before the forwarded
arguments) out; nothing is run. Only the first MAX_BYTES of a file and its first MAX_LINES
lines are read, and at most MAX_COMMANDS forwarding lines are kept.
"""

from __future__ import annotations

import ast
import re
import shlex
from typing import NamedTuple

from bot.core import lazyre
from bot.core.extract import parsed, walk

MAX_BYTES = 200_000
MAX_LINES = 2_000
MAX_COMMANDS = 16

# What a shell script writes for "all my arguments", once the shell has removed the quotes.
_FORWARDS = frozenset({"$@", "${@}", "$*", "${*}", "${@:1}", "${*:1}"})
# A `case` arm (`train)`, `train|fit)`; not `*)`, which any argument selects) and a test of the
# first argument (`if [ "$1" = "train" ]`, `[[ $1 == train ]]`).
_ARM = re.compile(r"^\(?\s*([A-Za-z0-9_.-]+(?:\|[A-Za-z0-9_.-]+)*)\s*\)(?!\))")
_TEST = re.compile(r"""\$\{?1\}?"?\s*==?\s*["']?([A-Za-z0-9_.-]+)""")
_BRANCH_END = re.compile(r"^(?:esac|fi|else|elif\b)|;;\s*$|\bfi\s*$")
_OPENERS = frozenset({"{", "then", "do", "else", "!", "exec"})  # words before a command that runs
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "()", ";;"})
# `$(dirname "$0")/train.py`, `${SCRIPT_DIR}/train.py`, `$DIR/train.py`: a path next to the script
# (the variable is taken to name the script's folder, which is what launchers use them for).
_BESIDE = re.compile(r"^(?:\$\(\s*dirname\s+[^)]*\)|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\.)/(.+)$")
# `SCRIPT=pkg/train.py`, `export ENTRY="$(dirname "$0")/train.py"`: a name the script sets.
_ASSIGN = lazyre.compile(r"^(?:export\s+|readonly\s+|local\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S.*)$")
_VARIABLE = lazyre.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
MAX_VARIABLES = 64


class Forward(NamedTuple):
    """A command a launcher runs with its own arguments."""

    words: list[str]  # its words up to the forwarded arguments
    when: tuple[str, ...] | None = None  # the first arguments that select it (a `case` arm), if any


def shell_forwards(text: str) -> list[Forward]:
    """The commands of a shell script that pass it its own arguments: each as its words up to
    the forwarded ones (`["python", "-m", "pkg.train", "--config", "x.yaml"]`). One in a branch
    that a first argument selects (`train) python train.py "$@" ;;`, `if [ "$1" = train ]`) says
    which (`when`)."""
    if not any(f in text for f in ("$@", "${@", "$*", "${*")):
        return []
    out: list[Forward] = []
    when: tuple[str, ...] | None = None
    lines = text[:MAX_BYTES].replace("\\\n", " ").splitlines()[:MAX_LINES]
    variables: dict[str, str | None] = {}  # None: set twice to different values
    for line in lines:
        if len(out) >= MAX_COMMANDS:
            break
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        assigned = _ASSIGN.match(stripped)
        if assigned is not None and len(variables) < MAX_VARIABLES:
            spelled = _commands(assigned.group(2))
            given = spelled[0][0] if len(spelled) == 1 and len(spelled[0]) == 1 else None
            name = assigned.group(1)
            variables[name] = given if variables.get(name, given) == given else None
        arm = _ARM.match(stripped) or _TEST.search(stripped)
        if arm is not None:
            when = tuple(arm.group(1).split("|"))
        elif _BRANCH_END.match(stripped):
            when = None
        if any(f in line for f in ("$@", "${@", "$*", "${*")):
            for words in _commands(_ARM.sub("", stripped, count=1) if _ARM.match(stripped) else line):
                while words and words[0] in _OPENERS:
                    words = words[1:]
                forward = next((i for i, w in enumerate(words) if w in _FORWARDS), None)
                if forward:
                    out.append(Forward([_expanded(w, variables) for w in words[:forward]], when))
        if stripped.endswith(";;") or _BRANCH_END.search(stripped):
            when = None
    return out


def _expanded(word: str, variables: dict[str, str | None]) -> str:
    """`$SCRIPT` and `${SCRIPT}` in a word replaced by the one value the script sets them to; a
    variable it does not set (`$DIR`, the environment's) stays as written."""

    def value(found: re.Match[str]) -> str:
        given = variables.get(found.group(1) or found.group(2))
        if given is not None and ("$" not in given or beside(given) is not None):
            return given
        return found.group(0)

    return _VARIABLE.sub(value, word) if "$" in word else word


def _commands(line: str) -> list[list[str]]:
    """The simple commands of one line, split as the shell splits words (quotes removed)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: not a line we can read
        return []
    out: list[list[str]] = [[]]
    for token in tokens:
        if token in _SEPARATORS:
            out.append([])
        else:
            out[-1].append(token)
    return [words for words in out if words]


def beside(word: str) -> str | None:
    """The path a word names relative to the script's own folder (`$(dirname "$0")/train.py`)."""
    found = _BESIDE.match(word)
    return found.group(1) if found else None


def python_forwards(text: str) -> list[Forward]:
    """The commands a Python script runs with its own arguments appended: the string words of a
    list written with `*sys.argv[1:]` in it or `+ sys.argv[1:]` after it (`sys.executable` is
    `python`), and `python -m pkg.train` for a call handing `sys.argv[1:]` to a function the
    script imports from the repository's `pkg.train` (`from pkg.train import main`,
    `pkg.train.main(...)`)."""
    if "sys.argv" not in text or len(text) > MAX_BYTES:
        return []
    try:
        tree = parsed.module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out: list[Forward] = []
    for node in walk.nodes(tree):
        if len(out) >= MAX_COMMANDS:
            break
        if isinstance(node, ast.List) and node.elts and _is_argv_tail(node.elts[-1], starred=True):
            words = _words(node.elts[:-1])
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _is_argv_tail(node.right):
            words = _words(node.left.elts) if isinstance(node.left, ast.List) else None
        elif isinstance(node, ast.Call) and any(_is_argv_tail(a) for a in node.args):
            module = _imported_from(node.func, tree)
            words = ["python", "-m", module] if module else None
        else:
            continue
        if words:
            out.append(Forward(words))
    return out


def _is_argv_tail(node: ast.expr, starred: bool = False) -> bool:
    if starred:
        if not isinstance(node, ast.Starred):
            return False
        node = node.value
    return (
        isinstance(node, ast.Subscript)
        and ast.unparse(node.value) == "sys.argv"
        and isinstance(node.slice, ast.Slice)
        and isinstance(node.slice.lower, ast.Constant)
        and node.slice.lower.value == 1
        and node.slice.upper is None
    )


def _words(elts: list[ast.expr]) -> list[str] | None:
    words: list[str] = []
    for e in elts:
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            words.append(e.value)
        elif ast.unparse(e) == "sys.executable":
            words.append("python")
        else:
            return None  # a word the file does not spell out
    return words


def _imported_from(func: ast.expr, tree: ast.Module) -> str | None:
    """The module a called function comes from: `main` of `from pkg.train import main` (or
    `... import main as train_main`), `pkg.train.main` of `import pkg.train`; None for the
    script's own functions and relative imports."""
    if isinstance(func, ast.Attribute):
        owner = ast.unparse(func.value)
        for stmt in tree.body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if (alias.asname or alias.name) == owner:
                        return alias.name
        return None
    if not isinstance(func, ast.Name):
        return None
    for node in walk.nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if (alias.asname or alias.name) == func.id:
                    return node.module
    return None
