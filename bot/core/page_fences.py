"""The refs of a page's fenced blocks: the flags and scripts of a shell command, the keys a
YAML or TOML block sets."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.core import lazyre
from bot.core.page_inline import (
    PageSource,
    RawRef,
)
from bot.core.spans import (
    ASSIGN_RE,
    FLAG_RE,
    PREFIX_WORDS,
    WORD_RE,
    bracketed,
    good_value,
    quoted_value,
)

if TYPE_CHECKING:
    from markdown_it.token import Token


# A plain-text block holding a program's help (`usage: server.py [-h] ...`, then its option rows)
# lists that program's flags, as the same listing in a shell block does.
_TEXT_LANGS = {"text", "txt", "plain", "plaintext", "none", "output"}
_HELP_LISTING = lazyre.compile(r"(?:usage|Usage|USAGE):\s+\S")
_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "shell-session", "shellsession", "terminal"}
# Windows' shells: the same commands (`python networks\merge.py --ratios 1`), a folder written
# with backslashes. Their words name the repository's scripts with `/` once turned.
_WINDOWS_LANGS = {"powershell", "ps1", "pwsh", "batchfile", "batch", "bat", "cmd"}
_SHELL_LANGS |= _WINDOWS_LANGS
_SEPARATORS = {"&&", "||", "|", ";", "--"}
# The prompts a session shows before its commands: its other lines are their output.
_PROMPTS = ("$ ", "> ", "% ", "# ", ">>> ")
# MPI launchers, whose lone `:` starts the next program of the job (`mpirun -n 1 numactl -N 0
# python a.py : -n 1 numactl -N 1 python a.py`), its launcher options written again.
_MPI_LAUNCHERS = frozenset({"mpirun", "mpiexec", "orterun"})
_SCRIPT_EXTS = (".py", ".sh")
# `python -m pkg.tool`: the module a Python interpreter runs, cited by its dotted name.
_PYTHON_RE = lazyre.compile(r"python(?:[0-9.]*)")
_MODULE_RE = lazyre.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


# `-s/--session`: a short option and its long spelling written as one word (a README's usage)
_EITHER_RE = lazyre.compile(r"-[A-Za-z]/(?=--[A-Za-z])")


def _nowhere(col: int) -> bool:
    return False


_NOWHERE: Callable[[int], bool] = _nowhere


def _quoted_spans(text: str) -> Callable[[int], bool]:
    """Whether a column of a shell line sits inside a quoted string (a `$(...)` in one is a
    command again: `A="$(python3 x.py)"`)."""
    if '"' not in text and "'" not in text:
        return _NOWHERE  # most lines: nothing is quoted, and no character need be looked at
    inside: list[bool] = []
    stack: list[str] = []  # open quotes and `$(` substitutions, innermost last
    escaped = False
    for i, c in enumerate(text):
        inside.append(bool(stack) and stack[-1] in "\"'")
        if escaped:
            escaped = False
        elif stack and stack[-1] == "'":
            if c == "'":
                stack.pop()
        elif c == "\\":
            escaped = True
        elif c == "$" and text[i + 1 : i + 2] == "(":
            stack.append("(")
        elif c == ")" and stack and stack[-1] == "(":
            stack.pop()
        elif c in "\"'":
            if stack and stack[-1] == c:
                stack.pop()
            else:
                stack.append(c)
    return lambda col: 0 <= col < len(inside) and inside[col]


def _backtick_comments(text: str) -> list[tuple[int, int]]:
    """The columns of each `` `# note` `` on a shell line: a command substitution holding only a
    comment expands to nothing, the idiom for a comment inside a continued command line
    (`--height 1024 `# in pixels` \\`), whose `\\` still continues it."""
    out: list[tuple[int, int]] = []
    quote, start, escaped = "", -1, False
    for i, c in enumerate(text):
        if escaped:
            escaped = False
        elif c == "\\" and quote != "'":
            escaped = True
        elif start < 0 and c in "\"'":
            quote = "" if quote == c else quote or c
        elif c == "`" and quote != "'":
            if start < 0:
                start = i
            else:
                if text[start + 1 : i].lstrip().startswith("#"):
                    out.append((start, i))
                start = -1
    return out


# `alias NAME='...'` (or "..."), the quote opening the command the alias stands for (group 1).
_ALIAS = lazyre.compile(r"\s*alias\s+[A-Za-z_][\w.-]*=(['\"])")


def _unquoted_alias(text: str, alias: re.Match[str]) -> str:
    """`text` without the quotes around an alias's command, so its words read as a command's."""
    quote, start = alias.group(1), alias.end(1) - 1
    end = text.rfind(quote)
    text = text[:start] + " " + text[start + 1 :]
    return text[:end] + " " + text[end + 1 :] if end > start else text


def _fence_lang(tok: Token) -> str:
    info = (tok.info or "").strip()
    return info.split(maxsplit=1)[0].lower() if info else ""


def _cd(moved: list[str] | None, target: str, quoted: bool) -> list[str] | None:
    """Where `cd target` leads from `moved` (the folders entered since the block started): a
    relative path is followed, `..` included; anything else (`cd /opt/x`, `cd ~`, `cd -`,
    `cd $DIR`, a quoted or globbed name) loses the way, and the commands after it are read as
    if run from where the block started, as before any `cd`."""
    if moved is None or quoted or target[:1] in ("/", "-", "$") or any(c in target for c in "*?$`{"):
        return None
    if target[:1] == "~":  # `cd ~/proj/pkg`: the home folder, where the clone may be (run_folder)
        if not target.startswith("~/"):
            return None
        moved, target = [], target[2:]
        out = ["~"]
    else:
        out = list(moved)
    for part in target.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and out and out[-1] != "..":
            out.pop()
        else:
            out.append(part)
    return out


def run_folder(page_folder: str, cwd: str | None, is_folder: Callable[[str], bool]) -> str:
    """The repository folder a fenced command runs in, `cwd` being where its block's `cd` led
    (Ref.cwd): that folder from the page's own, else from the root (a README's commands are
    run from the clone), else below the clone's own folder (`cd proj/examples/x` after
    `git clone .../proj`, `cd ~/proj/examples/x`). A folder the repository lacks (`mkdir build
    && cd build`): the page's, as for a command no `cd` moved."""
    if not cwd:
        return page_folder
    if cwd.startswith("~/"):  # the clone in the home folder (`~/proj/pkg`): its root, or below
        below = posixpath.normpath(cwd[2:].partition("/")[2] or ".")
        if below == ".":
            return ""
        return below if not below.startswith("..") and is_folder(below) else page_folder
    for candidate in (posixpath.join(page_folder, cwd), cwd):
        path = posixpath.normpath(candidate)
        if path == ".":
            return ""
        if path != ".." and not path.startswith("../") and is_folder(path):
            return path
    rest = posixpath.normpath(cwd.partition("/")[2] or ".")
    return rest if rest != "." and not rest.startswith("..") and is_folder(rest) else page_folder


def config_refs(tok: Token, first_line0: int, source: PageSource, lines: list[str]) -> list[RawRef]:
    """The keys a YAML or TOML block sets (kind "key", bot/core/configblocks.py), each at its name."""
    from bot.core.configblocks import CONFIG_LANGS, block_keys

    lang = _fence_lang(tok)
    if lang not in CONFIG_LANGS:
        return []
    content = tok.content.split("\n")
    out = []
    for key, value, i, col in block_keys(lang, tok.content):
        line0 = first_line0 + i
        if line0 >= len(lines) or i >= len(content):
            continue
        shift = max(lines[line0].find(content[i]), 0) if content[i] else 0
        out.append(RawRef(key, "key", source.offset(line0) + shift + col, "fence", value))
    return out


@dataclass
class Shell:
    """Where a page's commands run: the folders `cd` entered since its first block, block after
    block in page order (a reader runs a tutorial's blocks in one shell: `cd examples/x` under
    "Setup", `python train.py` under "Training"); None once one went where we cannot follow."""

    moved: list[str] | None = field(default_factory=list)


def _substitutions(text: str, depth: int) -> list[tuple[int, bool]]:
    """Where a shell line's command substitutions open (`$(` at its `$`: True) and close (its `)`:
    False), `depth` of them open when the line starts (a `\\` continuation inside one). A
    parenthesis inside one nests (`$(f (x))`)."""
    if "(" not in text and ")" not in text:
        return []
    events: list[tuple[int, bool]] = []
    nested: list[bool] = [True] * depth  # per open parenthesis: whether it opened a substitution
    for i, c in enumerate(text):
        if c == "(":
            opens = i > 0 and text[i - 1] == "$"
            nested.append(opens)
            if opens:
                events.append((i - 1, True))
        elif c == ")" and nested and nested.pop():
            events.append((i, False))
    return events


# `from pkg.tool import x`, `import pkg.tool as t`: the module a Python block's line imports.
_PY_IMPORT = lazyre.compile(r"\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*))")


def python_imports(tok: Token, first_line0: int, source: PageSource, lines: list[str]) -> list[RawRef]:
    """The modules a Python block imports (kind "module": judged only when the change moved or
    deleted a file of the repository's that the name was, bot/core/check/paths.py)."""
    out = []
    for i, content_line in enumerate(tok.content.split("\n")):
        line0 = first_line0 + i
        if line0 >= len(lines):
            break
        m = _PY_IMPORT.match(content_line)
        if m is None:
            continue
        shift = lines[line0].find(content_line) if content_line else 0
        group = 1 if m.group(1) else 2
        at = source.offset(line0) + max(shift, 0) + m.start(group)
        out.append(RawRef(m.group(group), "module", at, "fence"))
    return out


def _remark(text: str, word: tuple[str, int]) -> bool:
    """Is the word after a flag a remark in parentheses (`--mode (default None)`, a listing's
    `--mode （默认为None）`) rather than its value? No shell takes a `(` there."""
    value, col = word
    return value.startswith("（") or (col > 0 and text[col - 1] == "(" and text[col - 2 : col] != "$(")


def fence_refs(
    tok: Token, first_line0: int, source: PageSource, lines: list[str], shell: Shell | None = None
) -> list[RawRef]:
    """Flags (with values) and script paths a shell block passes, each with the words of its
    command before it; other languages cite nothing. Whose flags they are is the check's call."""
    lang = _fence_lang(tok)
    if lang in ("python", "py"):
        return python_imports(tok, first_line0, source, lines)
    first = next((line.lstrip() for line in tok.content.split("\n") if line.strip()), "")
    if lang not in _SHELL_LANGS and not (lang in _TEXT_LANGS and _HELP_LISTING.match(first)):
        return []
    windows = lang in _WINDOWS_LANGS
    # A session: its commands follow a `$ ` prompt and the other lines are their output (a
    # `shell` block whose first line has the prompt too).
    # A `console` block with no prompt on any line (`python label.py --config c.yaml`) is written
    # in that language for its colours: its lines are commands.
    prompted = any(line.lstrip().startswith(_PROMPTS) for line in tok.content.split("\n"))
    console = (
        lang in ("console", "shell-session", "shellsession", "terminal") and prompted
    ) or first.startswith("$ ")
    out: list[RawRef] = []
    # A help listing (`Usage: tool query [OPTIONS]`, then its rows): a row opening with a flag is
    # a row of its own, never the line above's (a row's help wrapped onto a line of its own,
    # `unsafehtml, youtrack`, is no command the next row's flag is given to).
    listing = any(_HELP_LISTING.match(line.lstrip()) for line in tok.content.split("\n"))
    # A command runs across `\` continuations; segments split at && | ; and a bare `--`.
    command: list[str] = []
    continued, script_seen = False, False
    # The commands a `$(...)` interrupted (`--out $(date +%s) --lr 1`: `--lr` is the outer one's).
    outer: list[tuple[list[str], bool]] = []
    shell = shell if shell is not None else Shell()
    for i, content_line in enumerate(tok.content.split("\n")):
        line0 = first_line0 + i
        if line0 >= len(lines):
            break
        text = content_line
        if console:
            stripped = text.lstrip()
            if stripped.startswith("$ "):
                text = text.replace("$ ", "  ", 1)
            elif not continued:
                continue
        source_line = lines[line0]
        shift = source_line.find(content_line) if content_line else 0
        base = source.offset(line0) + max(shift, 0)
        alias = None if continued else _ALIAS.match(text)
        # `alias drun='docker run --privileged ...'`: the quoted words are the command it names.
        quoted = _quoted_spans(_unquoted_alias(text, alias) if alias else text)
        words = [(m.group(0), m.start()) for m in WORD_RE.finditer(text)]
        comments = _backtick_comments(text) if "`" in text else []
        words = [(w, c) for w, c in words if not any(a < c < b for a, b in comments)]
        cut = next((k for k, (w, c) in enumerate(words) if w.startswith("#") and not quoted(c)), len(words))
        words = words[:cut]
        # A line opening with a flag is no command of its own: the block writes the command
        # above it over several lines without `\` ("type it on one line"), its flags the
        # command's. Not a help listing's rows (`Usage: tool [OPTIONS]`, `Options:`).
        wrapped = (
            bool(command)
            and not listing
            and not command[0].endswith(":")
            and bool(words)
            and FLAG_RE.fullmatch(words[0][0].partition("=")[0]) is not None
        )
        if not continued and not wrapped:
            command, script_seen, outer = [], False, []
        continued = bool(words) and words[-1][0].endswith("\\")
        if continued and words[-1][0] != "\\":  # `--deepspeed $DS_CONFIG\`: the word, then the continuation
            words[-1] = (words[-1][0][:-1], words[-1][1])
        events = _substitutions(text, len(outer))
        skip_to = -1
        for k, (word, col) in enumerate(words):
            # A `$(` before this word starts another command (`$(uv python dir --color never)`);
            # its `)` gives the interrupted one back.
            while events and events[0][0] < col:
                if events.pop(0)[1]:
                    outer.append((command, script_seen))
                    command, script_seen = [], False
                elif outer:
                    command, script_seen = outer.pop()
            if word == "\\" or k <= skip_to or word == "$":
                continue
            if word.endswith("$") and text[col + len(word) : col + len(word) + 1] == "(":
                word = word[:-1]  # `--out=$(date)`: the flag's value is the substitution's output
            if word in _SEPARATORS or word.endswith(";"):
                # A bare `--` followed by a flag passes the words after it on to the command the
                # program runs (`tox run -e py -- --pdb`): they start a command `--` of their own.
                passed = word == "--" and bool(command) and k + 1 < len(words) and words[k + 1][0][:1] == "-"
                command, script_seen = (["--"] if passed else []), False
                continue
            if word == ":" and command and command[0].rpartition("/")[2] in _MPI_LAUNCHERS:
                command, script_seen = [command[0]], False  # the launcher's again, then a program
                continue
            if alias is not None and not command and col < alias.end():
                continue  # `alias drun=`: what runs is the quoted command after it
            if not command and (ASSIGN_RE.match(word) or word in PREFIX_WORDS):
                skip_to = k + quoted_value(words, k, text)  # `A="x.py y"`: the value is no command
                continue
            if command == ["cd"]:
                shell.moved = _cd(shell.moved, word, quoted(col))
                command.append(word)
                continue
            cwd = "/".join(shell.moved) if shell.moved else None
            either = _EITHER_RE.match(word)
            if either:  # `nox -s/--session test`: a usage line's two spellings; the long one is read
                word, col = word[either.end() :], col + either.end()
            m = FLAG_RE.match(word)
            if quoted(col):
                pass  # inside a quoted argument (`extra_args="--no-rope-fusion"`): a value, not a flag
            elif m:
                flag, rest = m.group(0), word[m.end() :]
                value, vpos = None, None
                if rest.startswith("=") and len(rest) > 1:
                    value, vpos = rest[1:], base + col + m.end() + 1
                elif (
                    not rest
                    and k + 1 < len(words)
                    and good_value(words[k + 1][0])
                    and not any(col < at < words[k + 1][1] for at, _ in events)  # `$(x --a) y`
                    and not _remark(text, words[k + 1])
                ):
                    value, vpos = words[k + 1][0], base + words[k + 1][1]
                    joined = bracketed(words, k + 1, text)
                    if joined is not None:  # `[fp8 | bf16]`: its `|` is no pipe
                        value, skip_to = joined
                made = tuple(command) or None
                out.append(RawRef(flag, "flag", base + col, "fence", value, vpos, command=made, cwd=cwd))
            elif (
                len(command) >= 2
                and command[-1] == "-m"
                and _PYTHON_RE.fullmatch(command[-2].rpartition("/")[2])
                and _MODULE_RE.fullmatch(word)
            ):
                # Kind "module": only a module of the repository that the change moved or deleted
                # is judged (bot/core/check/paths.py); `python -m pip` names no file of ours.
                out.append(RawRef(word, "module", base + col, "fence", command=tuple(command), cwd=cwd))
            elif (
                not script_seen
                and word.endswith(_SCRIPT_EXTS)
                # not `--config x.py`; `--checkpointing=TRUE x.py` gave its flag its value
                and not (command and command[-1].startswith("-") and "=" not in command[-1])
            ):
                # The script a command runs: `python3 tools/x.py`, `./run.sh`, `torchrun ... train.py`.
                if not (windows and "\\" in word):  # `networks\x.py`: runs, but no path as written
                    out.append(
                        RawRef(word, "path", base + col, "fence", command=tuple(command) or None, cwd=cwd)
                    )
                script_seen = True
            command.append(word.replace("\\", "/") if windows and len(word) > 1 else word)
    return out
