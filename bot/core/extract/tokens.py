"""The names a source file uses in code: what a page may cite in code style (`PERF_ARGS`,
`MILES_DEBUG`, `world_size`) and must stop citing when the code stops using it.

- Python: every NAME token `tokenize` yields (comments and docstrings are no tokens of code), the
  names inside f-string expressions, and the keys the file reads from the environment
  (`os.environ["X"]`, `os.environ.get("X")`, `os.getenv("X")`, `"X" in os.environ`). Names
  spelled by string literals (`env["PYTHONPATH"]`, `"$X"`, `f"A={a} cmd"`) are kept apart, as
  `literals`: they show a name still in use, never that one was.
- Shell: every variable assigned (`X=`, `export X`, `read -ra X`, `for X in`) or expanded (`$X`,
  `${X}`, `${X[@]}`), outside comments and single quotes.

Any other file uses no names we can read. Each name keeps the first line that uses it.
"""

from __future__ import annotations

import ast
import bisect
import io
import keyword
import re
import tokenize
from collections.abc import Callable

from bot.core.extract import walk
from bot.core.model import CodeTokens
from bot.core.source import PYTHON_SUFFIXES

SHELL_SUFFIXES = (".sh", ".bash", ".zsh")
_SHEBANG_PY = re.compile(r"#!.*\bpython[0-9.]*\b")
_SHEBANG_SH = re.compile(r"#!.*\b(?:ba|z|k|da)?sh\b")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Calls on os.environ (or an imported `environ`) whose first argument is the variable read.
_ENVIRON_METHODS = {"get", "setdefault", "pop"}
_GETENV = {"getenv", "getenvb"}


def language(path: str, text: str) -> str | None:
    """ "python", "shell", or None for a file whose code we do not read."""
    if path.endswith(PYTHON_SUFFIXES):
        return "python"
    if path.endswith(SHELL_SUFFIXES):
        return "shell"
    first = text[: text.find("\n")] if "\n" in text else text
    if _SHEBANG_PY.match(first):
        return "python"
    if _SHEBANG_SH.match(first):
        return "shell"
    return None


def code_tokens(path: str, text: str) -> CodeTokens | None:
    """The names `path` uses in code; None when it is in no language we read."""
    lang = language(path, text)
    if lang == "python":
        return python_tokens(text)
    if lang == "shell":
        return shell_tokens(text)
    return None


# -- Python --------------------------------------------------------------------------------------


def python_tokens(text: str) -> CodeTokens:
    names: dict[str, int] = {}
    env: set[str] = set()
    literals: set[str] = set()
    mentioned: set[str] = set()
    window: list[tokenize.TokenInfo] = []  # the last few significant tokens, for environ reads
    statement_start = True
    docstring = False  # in a string that starts a statement: a docstring, not code
    error = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL):
                continue
            if tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                statement_start = True
                continue
            line = tok.start[0]
            if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
                names.setdefault(tok.string, line)
            elif tok.type == tokenize.STRING:
                docstring = statement_start or docstring
                if not docstring and _is_fstring(tok.string):  # before 3.12 an f-string is one token
                    for name in _fstring_names(tok.string):
                        names.setdefault(name, line)
                if not docstring:
                    literals.update(_string_names(tok.string))
                mentioned.update(_VARIABLE_WORD.findall(tok.string))
            elif tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):  # 3.12: an f-string's text
                literals.update(_shell_names(tok.string))
                mentioned.update(_VARIABLE_WORD.findall(tok.string))
            if tok.type != tokenize.STRING:
                docstring = False
            statement_start = False
            window.append(tok)
            if len(window) > 6:
                del window[0]
            read = _environ_read(window) if tok.type == tokenize.STRING or tok.string == "environ" else None
            if read is not None:
                env.add(read)
                names.setdefault(read, line)
    except (tokenize.TokenError, SyntaxError) as e:  # an unclosed bracket or string; bad indent
        where = e.args[1][0] if len(e.args) > 1 and isinstance(e.args[1], tuple) else 1
        error = (int(where or 1), str(e.args[0]) if e.args else "cannot tokenize")
    foreign = _foreign_names(text) if error is None else {}
    return CodeTokens(names, frozenset(env), error, frozenset(literals), frozenset(mentioned), foreign)


def _foreign_names(text: str) -> dict[str, str]:
    """`CodeTokens.foreign`: each name whose every use in code binds or reads it through an
    absolute import (`from torch import nn` then `nn.LayerNorm`), with the imports' top packages."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    imported: dict[str, str] = {}  # a name an absolute import binds -> its top package
    for node in walk.nodes(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                imported[alias.asname or alias.name] = node.module.split(".")[0]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported[alias.asname or alias.name.split(".")[0]] = alias.name.split(".")[0]
    if not imported:
        return {}
    tops: dict[str, set[str]] = {name: {top} for name, top in imported.items()}
    own: set[str] = set()
    for node in walk.nodes(tree):
        if isinstance(node, ast.Attribute):
            head = node.value
            while isinstance(head, ast.Attribute):
                head = head.value
            if isinstance(head, ast.Name) and head.id in imported:
                tops.setdefault(node.attr, set()).add(imported[head.id])
            else:
                own.add(node.attr)  # `self.x`, `config.x`: an attribute of the file's own values
        elif isinstance(node, ast.Name) and node.id not in imported:
            own.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(node.name)
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            own.add(node.arg)
    # A name also stored (`x = ...`) is a Name node not in `imported` only if never imported; one
    # both imported and assigned is the file's own.
    stored = {n.id for n in walk.nodes(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return {name: " ".join(sorted(t)) for name, t in tops.items() if name not in own and name not in stored}


# In a string of code, what names a variable: `$X`, `${X}`, `X=` at a word's start (a command
# line or an environment written as text: f"PYTHONPATH={path} python3 train.py").
_IN_STRING = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)|(?:^|(?<=[\s;&|(\"']))([A-Z_][A-Z0-9_]*)=")


# A word shaped like an environment variable (`PIPX_HOME`), written anywhere in a string.
_VARIABLE_WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])")


def _shell_names(text: str) -> set[str]:
    return {a or b for a, b in _IN_STRING.findall(text)}


def _string_names(literal: str) -> set[str]:
    """The names a string literal of code spells: the whole string when it is one (a dict key,
    `getattr(args, "perf_args")`, `env["PYTHONPATH"]`) and the variables of a command line in it."""
    if _is_fstring(literal):
        return _shell_names(literal)
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return set()
    if not isinstance(value, str):
        return set()
    out = _shell_names(value)
    if _NAME.fullmatch(value):
        out.add(value)
    return out


def _is_fstring(literal: str) -> bool:
    prefix = literal[: len(literal) - len(literal.lstrip("rRbBuUfF"))]
    return "f" in prefix.lower()


def _fstring_names(literal: str) -> set[str]:
    try:
        tree = ast.parse(literal, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    out: set[str] = set()
    for node in walk.nodes(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            out.add(node.arg)
    return out


def _environ_read(window: list[tokenize.TokenInfo]) -> str | None:
    """The variable read when `window` ends with one: `environ["X"`, `environ.get("X"`,
    `getenv("X"`, `"X" in [os.]environ`."""
    s = [t.string for t in window]
    last = window[-1]
    if last.type == tokenize.STRING:
        if s[-3:-1] == ["environ", "["] or (len(s) >= 3 and s[-2] == "(" and s[-3] in _GETENV):
            return _key(last)
        if len(s) >= 5 and s[-2] == "(" and s[-3] in _ENVIRON_METHODS and s[-5:-3] == ["environ", "."]:
            return _key(last)
        return None
    if last.string != "environ":
        return None
    i = len(s) - 3 if s[-3:-1] == ["os", "."] else len(s) - 1  # where `[os.]environ` starts
    if i >= 2 and s[i - 1] == "in":
        before = i - 2
        if s[before] == "not":
            before -= 1
        if before >= 0 and window[before].type == tokenize.STRING:
            return _key(window[before])
    return None


def _key(tok: tokenize.TokenInfo) -> str | None:
    if _is_fstring(tok.string):
        return None
    try:
        value = ast.literal_eval(tok.string)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) and _NAME.fullmatch(value) else None


# -- shell ---------------------------------------------------------------------------------------

_WORD_BREAK = " \t\n;&|()<>`"
_OPENS = {'"': "dq", "(": "paren"}  # in code, what each of these opens (`$(` opens "sub": _dollar)
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]\n]*\])?\+?=")
# Builtins whose operands (after their options) name variables: `read -ra ARGS`, `export A B`.
_DECLARES = re.compile(
    r"(?:read|export|declare|local|readonly|typeset|unset)((?:[ \t]+-[A-Za-z]+)*)"
    r"((?:[ \t]+[A-Za-z_][A-Za-z0-9_]*(?=[\s=;)|&]|$))+)"
    r"|(?:for|select)()[ \t]+([A-Za-z_][A-Za-z0-9_]*)(?=[\s;])"
)
_PLAIN = re.compile(r"[^\s#\\'\"$()<>;&|`]+")
_DQ_PLAIN = re.compile(r'[^"\\$]+')
_HEREDOC = re.compile(r"<<-?[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_EXPANSION = re.compile(r"\$(?:\{[#!]?)?([A-Za-z_][A-Za-z0-9_]*)")


def shell_tokens(text: str) -> CodeTokens:
    """Variables assigned or expanded. A small scanner, not a parser: it tracks quotes, `$(...)`,
    comments and here-documents, which is what decides whether a `$X` or a `#` is code."""
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    names: dict[str, int] = {}

    def use(name: str, at: int) -> None:
        if name not in names:
            names[name] = bisect.bisect_left(newlines, at) + 1

    stack = ["code"]  # code | dq (inside "...") | sub (a $( ... )) | paren
    heredocs: list[tuple[str, bool, bool]] = []  # (delimiter, expands, strip tabs) opened on this line
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        top = stack[-1]
        if top == "dq":
            if c == "\\":
                i += 2
            elif c == '"':
                stack.pop()
                i += 1
            elif c == "$":
                i = _dollar(text, i, use, stack)
            else:
                i = _DQ_PLAIN.match(text, i).end()  # type: ignore[union-attr]  # c is plain
            continue
        at_word = i == 0 or text[i - 1] in _WORD_BREAK
        if c == "\n":
            i += 1
            if heredocs:
                i = _skip_heredocs(text, i, heredocs, use)
                heredocs = []
            continue
        if c == "#" and at_word:
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        opens = _OPENS.get(c)
        if opens is not None:
            stack.append(opens)
            i += 1
            continue
        if c == "$":
            i = _dollar(text, i, use, stack)
            continue
        if c == ")":
            if len(stack) > 1:
                stack.pop()
            i += 1
            continue
        if c == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
            m = _HEREDOC.match(text, i)
            if m:
                heredocs.append((m.group(2), not m.group(1), text.startswith("<<-", i)))
                i = m.end()
                continue
        if at_word:
            m = _ASSIGNMENT.match(text, i)
            if m:
                use(m.group(1), i)
                i = m.end()
                continue
            m = _DECLARES.match(text, i)
            if m:
                group = 2 if m.group(2) is not None else 4
                for w in _NAME.finditer(m.group(group)):
                    use(w.group(0), m.start(group) + w.start())
                i = m.end()
                continue
        # Nothing to see up to the next character that means something (a `#` inside a word, an
        # `=` after its first character, are plain).
        m = _PLAIN.match(text, i + 1) if c not in _WORD_BREAK else None
        i = m.end() if m else i + 1
    return CodeTokens(names, frozenset())


def _dollar(text: str, i: int, use: Callable[[str, int], None], stack: list[str]) -> int:
    """Past the `$` at i: a variable expanded (recorded), `$(` opening a command, or a special."""
    if text.startswith("$(", i):
        stack.append("sub")
        return i + 2
    m = _EXPANSION.match(text, i)
    if m:
        use(m.group(1), i)
        return m.end()
    return i + 2 if i + 1 < len(text) else i + 1


def _skip_heredocs(
    text: str, i: int, heredocs: list[tuple[str, bool, bool]], use: Callable[[str, int], None]
) -> int:
    """Past the bodies of the here-documents opened on the line that ended at i. An unquoted
    delimiter's body expands `$X`; a quoted one's is data."""
    for delimiter, expands, strip in heredocs:
        while i < len(text):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            line = text[i:end]
            i = end + 1
            if (line.lstrip("\t") if strip else line) == delimiter:
                break
            if expands:
                for m in _EXPANSION.finditer(line):
                    use(m.group(1), i - len(line) - 1 + m.start())
    return i
