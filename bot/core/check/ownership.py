"""Which cited tokens belong to the repository, before anything is judged.

A page cites far more than its repository: images (`org/name:tag`), model ids (`Qwen/Qwen3-4B`),
metric names (`rollout/raw_reward`), platforms (`linux/amd64`), placeholders (`weight_vNNNNNN/`),
other programs' flags (`docker run --gpus`). A token is checked only where the repository owns
it; anything else is left alone, with no list of foreign names to keep.

- A path is the repository's when its first segment exists at base or at head, or when it
  names a file next to the page. A link (`[x](../pkg/mod.py)`, `./x.md`) is read from the
  page's folder, as GitHub reads it, and never to a path outside the repository.
- A flag passed in a command (a fence, or a code span that starts with one) is the repository's
  when the command runs one of its programs (bot/core/programs.py) and the rule reads that
  program's parser; it is judged against that program's flags alone, so the same flag in two
  command lines does not collide. `docker run --gpus`, `torchrun --nproc-per-node` (before the
  script), `pytest --ignore` are nobody's here.
- A flag cited on its own (prose, a table, a fragment of flags) is about the program of the
  repository its section runs (the nearest command before it in the section), else the one
  program the whole page runs if the rule reads it, else the program the rule names for the
  page, else any of the rule's flags. When that program's parser is not one the rule reads,
  the flag is left alone. A flag none of the rule's parsers has is left alone too when the
  page passes it to another program's command, or when the page runs a program of ours whose
  parser the rule does not read (it may be that program's).
- A flag the repository's own scripts pass to the program (or list for anyone) is no typo.
"""

from __future__ import annotations

import ast
import fnmatch
import itertools
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, NamedTuple

from bot.core import lazyre
from bot.core.check import spellings, undeclared_spellings
from bot.core.check.tools import tool_words
from bot.core.doclines import fenced_lines
from bot.core.extract import parsed, walk
from bot.core.extract.imports import Modules
from bot.core.model import Fact, Tree, reading
from bot.core.page import DocPage, Ref, Section, parse_doc
from bot.core.page_fences import run_folder
from bot.core.programs import LAUNCHER_WORD, Command, Programs, for_subcommand, invoked, subcommands
from bot.core.rules import Rule
from bot.core.script_urls import is_project_name, names_in_files
from bot.core.spans import command_words

if TYPE_CHECKING:
    from bot.core.facts import ParseCache

_SCRIPT_EXTS = (".py", ".sh")  # a script a command runs by its file name
_BARE_SCRIPT = lazyre.compile(r"[\w.-]+\.py")  # `run_translation.py`: a script by its file name alone
# Characters no file name of a repository holds but placeholders and shell syntax do.
_NOT_A_PATH = lazyre.compile(r"[<>{}*$%\[\]~`|\"'\s]|://|\.\.\.")
# `weight_vNNNNNN`, `run_XXXX`, `YYYY-MM-DD`, `####.bugfix.rst`: a run of one capital letter (or
# of `#`) stands for digits.
_PLACEHOLDER_RUN = lazyre.compile(r"([A-Z#])\1{2,}")
# Words that stand for a name the reader picks: `--something-path`, `my_pkg/`, `test_x.py`,
# `src/mymodule.py`, `tox_myplugin/`, `plugins/pluginname.py` (a kind of thing and "name" run
# together: no module is called so, the reader writes its name there).
PLACEHOLDER_WORD = lazyre.compile(
    r"(?<![A-Za-z0-9])(?:foo|bar|baz|something|xxx|yourname|your[-_][a-z]+|my[-_][a-z]+|test_x"
    r"|(?:plugin|module|package|project|script|app|extension|component|command)name"
    r"|my(?:module|plugin|project|package|pkg|app|lib|script|file|config|model|dataset|tool|repo"
    r"|extension|component|service|task)s?)(?![A-Za-z0-9])"
)


def normalize(path: str) -> str | None:
    """`path` without `.` and `..` segments; None when it leaves the repository."""
    if not path or path.startswith("/"):
        return None
    joined = posixpath.normpath(path)
    if joined == "." or joined == ".." or joined.startswith("../"):
        return None
    return joined


def relative_to(folder: str, path: str) -> str | None:
    """`path` as written in a page of `folder`, read from the repository's root."""
    return normalize(posixpath.join(folder, path) if folder else path)


@dataclass(frozen=True)
class CitedPath:
    """A repository path a page cites."""

    path: str  # from the root of the repository, no trailing `/`
    relative: bool  # the page wrote it relative to its own folder
    folder: str  # the page's folder

    def written(self, new_path: str, as_written: str) -> str:
        """`new_path` as the page would write it in place of `as_written`."""
        if not self.relative:
            return new_path
        text = posixpath.relpath(new_path, self.folder or ".")
        if as_written.startswith("./") and not text.startswith("."):
            text = "./" + text
        return text


@dataclass(frozen=True)
class Scope:
    """The flags a reference is judged against: those of one program (narrowed to the subcommand
    its command names), or, when nothing says which program, every flag of the rule."""

    program: str | None  # the program's key (its entry module's path); None: any program
    args: tuple[str, ...] = ()  # the command's words after the program
    programs: Programs | None = field(default=None, compare=False, repr=False)
    # the subcommands the program's flags name at base and at head: which of them `args` invokes
    # is decided against all of them, not against the few flags a question is about
    paths: frozenset[tuple[str, ...]] | None = field(default=None, compare=False, repr=False)
    # for a flag cited in prose after a command: the tokens the subcommand it invokes takes. A
    # flag of another subcommand is then about that one (the prose after `tool eval` may name
    # `tool train`'s `--max-steps`), one the invoked subcommand has is about it alone.
    loose: frozenset[str] | None = field(default=None, compare=False, repr=False)

    def takes(self, fact: Fact) -> bool:
        """Is `fact` (a flag at base or at head) one of this program's?"""
        if self.program is None:
            return True
        if self.programs is not None:
            return self.programs.takes(self.program, fact)
        return self.program in (fact.attr("programs") or "").split()

    def unread_subcommand(self) -> bool:
        """Does the command run a subcommand none of the program's flags names (`ns-process-data
        aria`, added in a module the rule does not read)? Its flags are then unknown, not wrong.
        A first word that is no subcommand's kind of name (`input.txt`, `{dir}`) is an argument."""
        if self.program is None or not self.paths or self.loose is not None or not self.args:
            return False
        # Word by word down the subcommands (`tool export onnx` where only `export tflite` is
        # read): a word none of the paths below the words before it takes is an unread one.
        words = list(itertools.takewhile(lambda w: not w.startswith("-"), self.args))
        for depth, word in enumerate(words):
            prefix = tuple(words[:depth])
            if depth and prefix in self.paths:
                return False  # a command of its own: the words after it are its arguments
            below = [p for p in self.paths if len(p) > depth and p[:depth] == prefix]
            if not below:
                return False
            if not any(p[depth] == word for p in below):
                return _SUBCOMMAND_WORD.fullmatch(word) is not None
        return False

    def flags(self, facts: Iterable[Fact]) -> list[Fact]:
        """The flags among `facts` that this program's command line takes."""
        mine = [f for f in facts if f.kind == "flag" and self.takes(f)]
        if self.program is None or (self.loose is not None and not any(f.token in self.loose for f in mine)):
            return mine
        return for_subcommand(mine, self.args, self.paths)


ANY = Scope(None)


@dataclass
class Ownership:
    """What one rule's check may judge, asked of the revisions before and after the change.

    `programs` finds which program a command runs; `flags` are the rule's flags at base and at
    head, which say whether the rule reads that program's parser.
    """

    base: Tree
    head: Tree
    programs: Programs | None = None
    flags: Sequence[Fact] = ()
    changed: frozenset[str] = frozenset()  # the paths the change wrote (at head)
    cache: ParseCache | None = None  # what depends only on files' content is kept by blob id
    _read: dict[str, bool] = field(default_factory=dict)
    _paths: dict[str, frozenset[tuple[str, ...]]] = field(default_factory=dict)
    _flag_tokens: frozenset[str] | None = None
    _written: list[str] | None = None
    _script_flags: dict[str, set[str | None]] | None = None
    _exists: dict[str, bool] = field(default_factory=dict)
    _ignored: dict[str, list[str]] = field(default_factory=dict)  # folder -> its .gitignore's patterns
    _page_runs: dict[str, list[Run]] = field(default_factory=dict)
    _foreign_flags: dict[str, frozenset[str]] = field(default_factory=dict)
    _declared: frozenset[str] | None = None
    _fields: set[str] = field(default_factory=set)  # every dataclass field name read
    _plugin_flags: set[str] = field(default_factory=set)  # options plugins declare for their host
    _dataclass_cli: bool = False  # a module builds a command line from dataclasses
    _tool_words: frozenset[str] | None = None
    _tool_lines: dict[str, frozenset[int]] = field(default_factory=dict)
    _rewrites: dict[str, spellings.Rewrites] = field(default_factory=dict)
    _names: frozenset[str] | None = None
    # per page: the bare file names of the repository's scripts it cites by their full path
    # (a link to the file on GitHub), each naming one file
    _named_scripts: dict[str, dict[str, str]] = field(default_factory=dict)

    def takes_either_spelling(self, path: str) -> bool:
        """Does the parser of `path` take `--a-b` and `--a_b` alike (bot/core/check/spellings.py)?"""
        return self.rewrites(path).either

    def rewrites(self, path: str) -> spellings.Rewrites:
        """What the parser of `path` takes beyond its option strings (bot/core/check/spellings.py)."""
        if path not in self._rewrites:
            modules = self.programs.modules if self.programs is not None else Modules(self.head)
            self._rewrites[path] = spellings.rewrites(modules, path)
        return self._rewrites[path]

    def named_from_above(self, path: str) -> bool:
        """Is `path` (which the tree lacks) a file of the repository named from the folder it is
        cloned into: `lmdeploy/generate.sh` for the root's `generate.sh`, the project being
        lmdeploy (whose package folder `lmdeploy/` has no `generate.sh`)?"""
        top, _, rest = path.partition("/")
        if not rest or not self.head.exists(rest) or self.head.exists(path):
            return False
        return is_project_name(top, self._project_names())

    def _other_repository(self, name: str) -> bool:
        """Is `name` (a GitHub repository's, lowercase) none of the names the project goes by,
        when its project files name its GitHub repository? Without that, any may be ours (a
        distribution's name need not be its repository's)."""
        if self.programs is None or not self.programs.own_repositories():
            return False
        return not is_project_name(name, self._project_names())

    def _project_names(self) -> frozenset[str]:
        if self._names is None:
            named = self.programs.project_names() if self.programs is not None else None
            self._names = named if named is not None else names_in_files(self.head.read, frozenset())
        return self._names

    def exists(self, path: str) -> bool:
        """Is `path` a file or folder at base or at head?"""
        if path not in self._exists:
            self._exists[path] = self.head.exists(path) or self.base.exists(path)
        return self._exists[path]

    def path(self, ref: Ref, doc_path: str) -> CitedPath | None:
        """The repository path a path reference names, or None when it names none of the
        repository's (another repository's file, an image, a model id, a placeholder)."""
        token = ref.token.rstrip("/")
        if (
            not token
            or _NOT_A_PATH.search(token)
            or _PLACEHOLDER_RUN.search(token)
            or PLACEHOLDER_WORD.search(token)
        ):
            return None
        folder = posixpath.dirname(doc_path)
        if ref.where == "url":
            # A GitHub URL may name any repository's file: it is ours when the file is, and when
            # the URL's repository is not another one the project files do not call ours (a
            # sibling's `github.com/org/proj-habana/tree/main/examples` is not our `examples/`).
            path = normalize(token)
            if ref.repo is not None and self._other_repository(ref.repo):
                return None
            return CitedPath(path, False, folder) if path and self.exists(path) else None
        if ref.where == "link":
            path = relative_to(folder, token)
            return CitedPath(path, True, folder) if path else None
        if ref.cwd is not None:  # a script a command runs after its block's `cd`
            moved = run_folder(folder, ref.cwd, self.exists)
            path = relative_to(moved, token) if moved != folder else None
            if path is not None and self.exists(path):
                return CitedPath(path, True, moved)
        # Code (`./run.sh`, `pkg/mod.py`) is mostly run or read from the repository's root; a
        # path that is not there may still sit next to the page.
        root = normalize(token.removeprefix("./")) if not token.startswith("../") else None
        if root is not None and self.exists(root.split("/", 1)[0]) and not self._hub_id(root):
            return CitedPath(root, False, folder)
        beside = relative_to(folder, token) if folder or token.startswith("./") else None
        if beside is not None and self.exists(beside):
            return CitedPath(beside, True, folder)
        return None

    def _hub_id(self, path: str) -> bool:
        """Is `path` a model or dataset id whose owner is spelt as one of our packages
        (`swift/self-cognition` beside the `swift/` package)? An `owner/name-with-dashes` that is
        no file or folder: a package holds modules and packages, whose names take no dash, so a
        dashed name without an extension in it is the hub's. One that exists is a path."""
        owner, _, name = path.partition("/")
        return (
            bool(name)
            and "/" not in name
            and "-" in name
            and "." not in name
            and not self.exists(path)
            and self.exists(f"{owner}/__init__.py")
        )

    def ignored(self, path: str) -> bool:
        """Does a .gitignore of the repository (at head: the root's, or one in a folder above
        `path`, like `docs/reference/.gitignore` naming the page a docs build makes) say `path`
        is made at run time?"""
        parts = path.split("/")
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            if _ignores(self._gitignore(folder), parts[depth:]):
                return True
        return False

    def _gitignore(self, folder: str) -> list[str]:
        if folder not in self._ignored:
            text = self.head.read(f"{folder}/.gitignore" if folder else ".gitignore") or ""
            self._ignored[folder] = [
                line.strip() for line in text.splitlines() if line.strip() and not line.startswith(("#", "!"))
            ]
        return self._ignored[folder]

    # --- flags ----------------------------------------------------------------------------------

    def declared_elsewhere(self, token: str, rule: Rule) -> bool:
        """Does a Python module the change wrote, one the rule does not read, declare the flag
        `token` (as a string literal)? Flags moved out of a parser the rule reads are not gone."""
        if self._written is None:
            read = {p for s in rule.sources for p in s.paths}
            texts = (self.head.read(p) for p in sorted(self.changed) if p.endswith(".py") and p not in read)
            self._written = [t for t in texts if t]
        quoted = re.compile(r"""(["'])""" + re.escape(token) + r"\1")
        return any(quoted.search(text) for text in self._written)

    def passed_by_scripts(self, token: str, program: str | None = None) -> bool:
        """Do the repository's own scripts (shell scripts, Python files outside its packages)
        pass the flag `token` to `program` (or, with None, to anything)? Then it is a flag of a
        command line the repository runs, one built on a parser it does not hold (Megatron's),
        not a typo, though no parser the rule reads has it. A flag a script gives another of the
        repository's programs says nothing about this one; one it only lists (an array, a
        string) may be for any."""
        if self._script_flags is None:
            self._script_flags = self._read_scripts()
        keys = self._script_flags.get(token, set())
        return bool(keys) and (program is None or program in keys or None in keys)

    def _other_tool_named(self, doc: DocPage, line: int, since: int) -> bool:
        """Does a code span on `line`, or one between `since` and it in its section, name a
        program that is not the repository's: `python -m sglang.launch_server` (a module no
        file of ours is), or a tool the repository runs (`gh`, `isort`: its CI workflows',
        pre-commit hooks' and shell scripts' commands), or a launcher (`torchrun`) on the line
        itself? Flags cited after it are that tool's."""
        if doc.path not in self._tool_lines:
            self._tool_lines[doc.path] = frozenset(
                n for n, text in enumerate(doc.lines, 1) if "`" in text and self._names_tool(text, doc.path)
            )
        found = self._tool_lines[doc.path]
        said = LAUNCHER_WORD.search(doc.lines[line - 1]) if 0 < line <= len(doc.lines) else None
        named = said is not None and self.programs is not None and said.group(1) not in self.programs.scripts
        return (
            line in found or any(since <= n < line for n in found) or self._names_script(doc, line) or named
        )

    def _after_tool_word(self, doc: DocPage, ref: Ref) -> bool:
        """Is the flag's code span right after a word naming a tool the repository runs that is
        not its own, or followed by one: "the constraint file in pip(`--constraint x`)", "uv's
        `--color`", "see `--shm-size` for docker"?"""
        text = doc.lines[ref.line - 1] if 0 < ref.line <= len(doc.lines) else ""
        before = _WORD_BEFORE_SPAN.search(text[: ref.col or 0])
        close = text.find("`", (ref.col or 0) + len(ref.token))
        after = _WORD_AFTER_SPAN.match(text, close) if close >= 0 else None
        return any(
            m is not None and m[1] in self._tools() and self._run([m[1]], doc.path).kind == _FOREIGN
            for m in (before, after)
        )

    def _names_script(self, doc: DocPage, line: int) -> bool:
        """Does `line` name, by its bare file name, a script no file of ours is (the
        `run_translation.py` script of another library)? A flag cited beside it is that
        script's. The line alone: an example file named in passing (`mis.py`) says nothing of
        the flags of the lines after it."""
        for m in _CODE_SPAN.finditer(doc.lines[line - 1] if 0 < line <= len(doc.lines) else ""):
            word = m.group(2).strip()
            if _BARE_SCRIPT.fullmatch(word) and self._run([word], doc.path).kind == _FOREIGN:
                return True
        return False

    def _names_tool(self, text: str, doc_path: str) -> bool:
        for m in _CODE_SPAN.finditer(text):
            words = command_words(m.group(2))
            if not words or words[0].startswith("-"):
                continue
            # A command linked to another site's page ([`dvc run`](https://dvc.org/...)) is that
            # site's tool.
            linked = text[max(m.start() - 1, 0) : m.start()] == "[" and text[m.end() :].startswith("](http")
            # A package of the index named by Sphinx's role (:pypi:`pytest-pep8`): a plugin's flags.
            linked = linked or text[max(m.start() - 6, 0) : m.start()] == ":pypi:"
            named = _PYTHON_M.match(m.group(2).strip()) or words[0] in self._tools() or linked
            if named and self._run(words, doc_path).kind == _FOREIGN:
                return True
        return False

    def _tools(self) -> frozenset[str]:
        if self._tool_words is None:
            self._tool_words = tool_words(self.head, self.cache)
        return self._tool_words

    def declared_unread(self, token: str, program: str | None) -> bool:
        """Does a module making `program`'s command line that the rule does not read declare
        `token` (flake8's option manager adds its `--version`)? Then it is the program's flag."""
        if self.programs is None or program is None:
            return False
        read = {f.path for f in self.flags}
        parsers = self.programs.parsers(program) - read
        strings = [s for p in sorted(parsers) for s in self.programs.option_strings(p)]
        # `--model-name` for `--model-name-or-path`: argparse takes a prefix of one option
        return token in strings or undeclared_spellings.abbreviates(token, strings)

    def declared_somewhere(self, token: str, fields: bool = True) -> bool:
        """Does any Python file of the repository declare the flag `token`: an `add_argument`,
        a test runner's `addoption` (pytest's conftest.py), a click or typer option, or a field
        of a dataclass a launcher's typer command line is built from (`use_single_node: bool`
        is `--use-single-node` and `--no-use-single-node`)? Then it is a flag of one of the
        repository's command lines the rule does not read, not nobody's. `fields`: a dotted
        flag whose last part is any dataclass's field counts (not when the rule reads its group)."""
        if self._declared is None:
            self._declared = self._read_declared()
        if token in self._declared:
            return True
        # A dataclass command line (draccus, tyro, simple_parsing, HfArgumentParser): a flag is
        # a field's path (`--policy.pretrained_path`), ours when its last part is a field.
        last = token.lstrip("-").rpartition(".")[2].replace("-", "_")
        return fields and self._dataclass_cli and last in self._fields

    def _read_declared(self) -> frozenset[str]:
        found: set[str] = set()
        all_paths = self.head.paths()
        packages = {p.rpartition("/")[0] for p in all_paths if p.endswith("__init__.py")}

        def likely(path: str) -> tuple[int, str]:
            # Modules named for a command line first, then scripts, then the rest: in the App
            # each read may be a request, and a large package holds thousands of modules.
            name = path.rpartition("/")[2]
            if _CLI_NAME.search(name):
                return (0, path)
            return (1 if path.rpartition("/")[0] not in packages else 2, path)

        paths = sorted((p for p in all_paths if p.endswith(".py")), key=likely)
        for path, read in reading(self.head, paths[:_MAX_MODULES]):
            text = read or ""
            if len(text) > _MAX_MODULE_TEXT:
                continue
            found.update(_OPTION_CALL.findall(text))
            if _TEXT_SPLIT.search(text):
                found.update("--" + word for word in _TEXT_OPTION.findall(text))
            if "typer" in text:
                found.update(_typer_options(path, text))
            if _ARGUMENT_DECORATOR.search(text):
                self._plugin_flags.update(_plugin_arguments(path, text))
            if "dataclass" in text:
                self._fields.update(_DATACLASS_FIELD.findall(text))
                self._dataclass_cli = self._dataclass_cli or bool(_DATACLASS_CLI.search(text))
        return frozenset(found | self._plugin_flags)

    def declared_by_plugin(self, token: str) -> bool:
        """Does a plugin module declare `token` for the program hosting it (`_plugin_arguments`)?
        The host adds its plugins' options in a loop no reading ties to a program, so a command of
        ours given it takes it, as a flag cited alone does."""
        if self._declared is None:
            self._declared = self._read_declared()
        return token in self._plugin_flags

    def _read_scripts(self) -> dict[str, set[str | None]]:
        paths = self.head.paths()
        packages = {p.rpartition("/")[0] for p in paths if p.endswith("__init__.py")}
        scripts = sorted(
            p
            for p in paths
            if p.endswith(".sh") or (p.endswith(".py") and p.rpartition("/")[0] not in packages)
        )
        found: dict[str, set[str | None]] = {}
        for path, read in reading(self.head, scripts[:_MAX_SCRIPTS]):
            text = read or ""
            if path.endswith(".py"):
                # A flag a script declares for its own parser is not one it passes on, nor one its
                # docstring's usage example cites (`python launcher.py --run_name x`, of an
                # older parser, maybe).
                declared = set(_DECLARED_FLAG.findall(text))
                code = _MODULE_DOCSTRING.sub("", text, count=1)
                for token in set(_SCRIPT_FLAG.findall(code)) - declared:
                    found.setdefault(token, set()).add(None)
                continue
            fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
            refs = parse_doc(path + ".md", f"{fence}bash\n{text}\n{fence}\n").refs
            runs = [
                (r, self._run(r.command, path, r.cwd) if r.command and not is_fragment(r.command) else None)
                for r in refs
                if r.kind == "flag"
            ]
            # Flags kept in an array or a variable go to the script's one program, if it has one
            # (`python3 -m pkg.train ${ARGS[@]}`).
            commands = (command_words(line) for line in text.replace("\\\n", " ").splitlines())
            ours = {run.program for run in (self._run(words, path) for words in commands if words)}
            ours.discard(None)
            listed = next(iter(ours)) if len(ours) == 1 else None
            for ref, run in runs:
                if run is None:
                    found.setdefault(ref.token, set()).add(listed)
                elif run.kind != _FOREIGN:
                    found.setdefault(ref.token, set()).add(run.program)
        return found

    def command_scope(self, command: Sequence[str], doc_path: str, cwd: str | None = None) -> Scope | None:
        """The program a command runs, when it is one whose flags the rule reads; else None."""
        return self._run(command, doc_path, cwd).scope

    def _run(self, command: Sequence[str], doc_path: str, cwd: str | None = None) -> Run:
        """What a command runs: a program whose flags the rule reads (with its scope), another
        program of the repository, or nothing of the repository's. `cwd`: where a `cd` before it
        led (Ref.cwd)."""
        if self.programs is None:
            return Run(_FOREIGN)
        folder = run_folder(posixpath.dirname(doc_path), cwd, self.exists)
        found = self.programs.command(list(command), folder)
        if found is None:
            found = self._named_script(command, doc_path)
        if found is None:
            return Run(_FOREIGN)
        if found.program not in self._read:
            self._read[found.program] = any(self.programs.takes(found.program, f) for f in self.flags)
        if not self._read[found.program]:
            return Run(_UNREAD, program=found.program)  # its parser is not one the rule reads
        paths = self._paths.get(found.program)
        if paths is None:
            taken = (f for f in self.flags if self.programs.takes(found.program, f))
            paths = self._paths[found.program] = frozenset(p for f in taken for p in subcommands(f))
        return Run(_READ, Scope(found.program, found.args, self.programs, paths), found.program)

    def _note_scripts(self, doc: DocPage) -> None:
        """Which scripts of ours the page names: `python ds_to_universal.py --input x` runs the
        file its link points at (`[ds_to_universal.py](.../checkpoint/ds_to_universal.py)`), or
        the rule's one parser of that name when the page writes the name alone in prose, though
        no file of that name sits at the root or beside the page."""
        if doc.path in self._named_scripts:
            return
        found: dict[str, set[str]] = {}
        parsers: dict[str, set[str]] | None = None
        for ref in doc.refs:
            if ref.kind == "path" and ref.token.endswith(_SCRIPT_EXTS) and "/" in ref.token:
                cited = self.path(ref, doc.path)
                if cited is not None and self.exists(cited.path):
                    found.setdefault(posixpath.basename(cited.path), set()).add(cited.path)
            elif (
                ref.kind == "path"
                and ref.where == "inline"
                and ref.token.endswith(".py")
                and "/" not in ref.token
            ):
                # A script named in prose by its file name alone (`` `get_versions.py` is a
                # general-purpose tool``), not beside the page: the one parser of the rule's of
                # that name. Two of that name, or none, name no file.
                if parsers is None:
                    parsers = {}
                    for path in {f.path for f in self.flags}:
                        parsers.setdefault(posixpath.basename(path), set()).add(path)
                cited = self.path(ref, doc.path)
                if (cited is None or not self.exists(cited.path)) and len(parsers.get(ref.token, ())) == 1:
                    found.setdefault(ref.token, set()).update(parsers[ref.token])
        self._named_scripts[doc.path] = {name: next(iter(p)) for name, p in found.items() if len(p) == 1}

    def _named_script(self, command: Sequence[str], doc_path: str) -> Command | None:
        """The command run with its bare script name read as the file the page names in full."""
        named = self._named_scripts.get(doc_path)
        if not named or self.programs is None:
            return None
        for i, word in enumerate(command):
            if word in named:
                return self.programs.command([*command[:i], named[word], *command[i + 1 :]], "")
        return None

    def scope(self, doc: DocPage, ref: Ref, program: str | None = None) -> Scope | None:
        """The flags `ref` (a flag) is judged against; None when it is another program's.

        `program` is the program the rule names for the page (a command line, `lm-eval run`).
        """
        self._note_scripts(doc)
        if ref.command is not None and passed_on(ref.command):
            return None
        if ref.command is None and ref.token not in self._tokens() and self._after_tool_word(doc, ref):
            return None
        if ref.command is not None and not is_fragment(ref.command):
            return self.command_scope(ref.command, doc.path, ref.cwd)
        return self.line_scope(doc, ref.line, ref.token, program)

    def line_scope(
        self, doc: DocPage, line: int, token: str | None = None, program: str | None = None
    ) -> Scope | None:
        """What a flag cited on its own on `line` is about (see the module's docstring)."""
        runs = self._runs(doc)
        ours = token is None or token in self._tokens()
        if not ours and token in self._foreign(doc):
            return None  # the page passes it to another program and none of ours has it
        section = doc.section_at(line)
        near = [r for r in runs if section.line <= r.line <= line]
        if not ours and self._other_tool_named(doc, line, near[-1].line if near else section.line):
            return None  # the line, or its section since our last command, names another tool
        if not near and not ours:
            # A flag none of the rule's parsers has may be that of a program a parent section runs.
            near = [r for r in runs if r.line <= line and _within(doc.section_at(r.line), section)]
        if not near and runs and len({r.program for r in runs}) == 1 and runs[0].kind == _READ:
            near = runs[:1]  # a page that runs one program of the rule's is about it throughout
        if near:
            run = near[-1]
            if run.kind == _READ or ours or token is None:
                return self._loose(run.scope)  # None for a program whose parser the rule does not read
            # Another program of ours runs here: the flag is its, or nobody's when that
            # program's whole command line is read and does not have it.
            return ANY if self._nobodys(token, run.program) else None
        if program:
            named = self.command_scope(program.split(), doc.path)
            if named is not None:
                return named
        return ANY

    def _loose(self, scope: Scope | None) -> Scope | None:
        """`scope` for prose after its command (Scope.loose)."""
        if scope is None or scope.program is None or invoked(scope.args, scope.paths or ()) is None:
            return scope
        return replace(scope, loose=frozenset(f.token for f in scope.flags(self.flags)))

    def _nobodys(self, token: str, program: str | None) -> bool:
        """Is `token` a flag no parser of `program` declares, when its parsers are all read: it
        builds its own parser (`ArgumentParser(...)`) rather than extending one from elsewhere
        (Megatron's), its options are add_argument calls (not typer's, click's), and it does not
        take what it leaves over (`parse_known_args`)?"""
        if self.programs is None or program is None:
            return False
        parsers = self.programs.parsers(program)
        if not parsers or any(token in self.programs.option_strings(p) for p in parsers):
            return False
        if self._takes_leftovers(program):
            return False  # `parse_known_args`: the flags it does not declare go on, to a config's overrides
        summaries = [self.programs.modules.summary(p) for p in parsers]
        return any(s is not None and s.creates_parser for s in summaries)

    def runs_open(self, doc: DocPage) -> bool:
        """Does the page run a program of ours whose parser takes what it leaves over
        (`parse_known_args`, then a config's overrides: `train.py cfg.py --lr 1e-5`)? Any flag
        cited on its own there may be that program's."""
        return any(
            r.program is not None and self._takes_leftovers(r.program)
            for r in self._runs(doc)
            if r.kind != _FOREIGN
        )

    def _takes_leftovers(self, program: str) -> bool:
        if self.programs is None:
            return False
        summaries = (self.programs.modules.summary(p) for p in self.programs.parsers(program))
        return any(s is not None and s.takes_leftovers for s in summaries)

    def runs_built(self, doc: DocPage, line: int) -> bool:
        """Does the page run a program the repository builds rather than holds: a path its
        .gitignore names (`./target/release/gateway`, a compiled binary), whose command line no
        reader here reads, while the section of `line` runs nothing of ours?"""
        section = doc.section_at(line)
        if any(section.line <= r.line <= line for r in self._runs(doc)):
            return False
        for ref in doc.refs:
            if ref.where != "fence" or not ref.command or "/" not in ref.command[0]:
                continue
            path = normalize(ref.command[0].removeprefix("./"))
            if path is not None and not self.exists(path) and self.ignored(path):
                return True
        return False

    def runs_unread(self, doc: DocPage) -> bool:
        """Does the page run a program of ours whose parser the rule does not read?"""
        return any(r.kind == _UNREAD for r in self._runs(doc))

    def _tokens(self) -> frozenset[str]:
        if self._flag_tokens is None:
            self._flag_tokens = frozenset(f.token for f in self.flags)
        return self._flag_tokens

    def runs(self, doc: DocPage) -> list[Run]:
        """The repository's programs the page runs (or cites with a parser of their own)."""
        return list(self._runs(doc))

    def _runs(self, doc: DocPage) -> list[Run]:
        """The repository's programs the page runs, in page order. A fenced command runs one
        where it is written; so does a prose citation of a script with a parser of its own that
        the rule does not read (`docker/build.py` builds the images: select one with `--variant`)."""
        self._note_scripts(doc)
        if doc.path not in self._page_runs:
            found: list[Run] = []
            for ref in doc.refs:
                if ref.command is not None and ref.where == "fence":
                    # A command a code span writes in a sentence scopes its own flags only.
                    words = ref.command if ref.kind == "flag" else (*ref.command, ref.token)
                    run = self._launcher_usage(words, doc.path, self._run(words, doc.path, ref.cwd))
                elif (
                    ref.kind == "path" and ref.token.endswith(".py") and self._has_own_parser(ref.token, doc)
                ):
                    run = self._run(("python", ref.token), doc.path)
                    if run.kind != _UNREAD:
                        continue
                else:
                    continue
                if run.kind != _FOREIGN:
                    found.append(run._replace(line=ref.line))
            found += self._bare_runs(doc, {r.line for r in found})
            found += self._usage_runs(doc, {r.line for r in found})
            self._page_runs[doc.path] = sorted(found, key=lambda r: r.line)
        return self._page_runs[doc.path]

    def _bare_runs(self, doc: DocPage, lines: set[int]) -> list[Run]:
        """Commands in fenced blocks that cite no flag or path (`python -m weasel assets
        [project_dir]`), when they name a subcommand of a program the rule reads: the table of
        that subcommand's flags below it is about it."""
        out: list[Run] = []
        for number, stripped in fenced_lines(doc):
            if number in lines or not stripped or stripped.startswith("#"):
                continue
            words = command_words(stripped)
            run = self._launcher_usage(words, doc.path, self._run(words, doc.path)) if words else None
            if run is not None and run.kind == _READ and run.scope is not None:
                paths = run.scope.paths or frozenset()
                if invoked(run.scope.args, paths) is not None:
                    out.append(run._replace(line=number))
        return out

    def _launcher_usage(self, words: Sequence[str], doc_path: str, run: Run) -> Run:
        """`accelerate launch [arguments] {training_script}` runs no script of ours, yet is about
        the launcher when the repository declares it: the flags listed under it are its own."""
        if run.kind != _FOREIGN or self.programs is None:
            return run
        usage = self.programs.usage_of_own_launcher(words)
        return self._run(usage, doc_path) if usage else run

    def _usage_runs(self, doc: DocPage, lines: set[int]) -> list[Run]:
        """The usage line of a help listing a page shows (`Usage: tool plugins [OPTIONS]`, in a
        fence or a reStructuredText literal block), when it names a subcommand of a program the
        rule reads: the option rows below it are that subcommand's, though another subcommand
        has a flag of the same name (`--all`)."""
        out: list[Run] = []
        for number, text in enumerate(doc.lines[:_MAX_PAGE_LINES], 1):
            m = _USAGE.match(text)
            if m is None or number in lines:
                continue
            words = command_words(m.group(1))
            # The program and its subcommand words, not what follows (`[OPTIONS]`, `FILES...`).
            end = next(
                (i for i, w in enumerate(words) if i and not _SUBCOMMAND_WORD.fullmatch(w)), len(words)
            )
            run = self._run(words[:end], doc.path) if end > 1 else None
            scope = run.scope if run is not None and run.kind == _READ else None
            if run is not None and scope is not None and invoked(scope.args, scope.paths or ()) is not None:
                out.append(run._replace(line=number))
        return out

    def _has_own_parser(self, script: str, doc: DocPage) -> bool:
        if self.programs is None:
            return False
        found = self.programs.command(["python", script], posixpath.dirname(doc.path))
        return found is not None and bool(self.programs.parsers(found.program))

    def _foreign(self, doc: DocPage) -> frozenset[str]:
        """The flags the page passes to commands that are nothing of the repository's: the long
        ones its fences cite, and the short ones written there (`python -m pytest x.py -v`)."""
        self._note_scripts(doc)
        if doc.path not in self._foreign_flags:
            self._foreign_flags[doc.path] = frozenset(
                r.token
                for r in doc.refs
                if r.kind == "flag"
                and r.command is not None
                and (
                    passed_on(r.command)
                    or (not is_fragment(r.command) and self._run(r.command, doc.path, r.cwd).kind == _FOREIGN)
                )
            ) | self._foreign_short(doc)
        return self._foreign_flags[doc.path]

    def _foreign_short(self, doc: DocPage) -> frozenset[str]:
        """The short options (`-v`) of the commands in the page's fences that run nothing of ours,
        and those a launcher of ours takes before the program it runs (`docker run -v x:/app img
        python3 main.py`: docker's)."""
        out: set[str] = set()
        for _, text in fenced_lines(doc):
            if not _SHORT_WORD.search(text):
                continue
            for segment in _SEGMENTS.split(text.removeprefix("$ ")):
                words = command_words(segment)
                if not words or is_fragment(words) or not any(_SHORT_WORD.fullmatch(w) for w in words):
                    continue
                if self._run(words, doc.path).kind == _FOREIGN:
                    out.update(w for w in words if _SHORT_WORD.fullmatch(w))
                    continue
                out.update(
                    w
                    for i, w in enumerate(words)
                    if _SHORT_WORD.fullmatch(w) and self._run(words[:i], doc.path).kind == _FOREIGN
                )
        return frozenset(out)


def _ignores(patterns: list[str], parts: list[str]) -> bool:
    """Does a .gitignore's pattern match the path (its parts, below the file's folder)?"""
    for pattern in patterns:
        pat = pattern.strip("/")
        if "/" in pattern.rstrip("/"):
            # `lm_eval/caching/.cache`, `/cli.md`: the path itself or anything under it
            if any(fnmatch.fnmatchcase("/".join(parts[:i]), pat) for i in range(1, len(parts) + 1)):
                return True
        elif any(fnmatch.fnmatchcase(part, pat) for part in parts):
            return True
    return False


def passed_on(words: Sequence[str]) -> bool:
    """Command words after a bare `--` (`tox run -e py -- --pdb`): flags the program passes on to
    the command it runs, none of its own (bot.core.page_fences)."""
    return bool(words) and words[0] == "--"


def is_fragment(words: Sequence[str]) -> bool:
    """Command words that start with a flag: a fragment of a command line (a continuation line,
    a block of flags to add), no command of its own."""
    return not words or words[0].startswith("-")


def _within(outer: Section, inner: Section) -> bool:
    """Is `inner` the section `outer` or one of its subsections?"""
    return inner.path == outer.path or outer.level == 0 or inner.path.startswith(outer.path + " > ")


# What a command runs (Ownership._run).
_READ, _UNREAD, _FOREIGN = "read", "unread", "foreign"


class Run(NamedTuple):
    """A command of a page: what it runs and where."""

    kind: str  # _READ, _UNREAD or _FOREIGN
    scope: Scope | None = None  # for _READ: the flags it takes
    program: str | None = None  # the program's key, for _READ and _UNREAD
    line: int = 0


_MAX_PAGE_LINES = 20_000  # lines of a page read for its commands that cite no flag
# Scripts read for the flags they pass: launchers, not every file of a large repository.
_MAX_SCRIPTS = 400
_SCRIPT_FLAG = lazyre.compile(r"(?<![\w-])--[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?")
# A module's docstring: after a shebang, comments and blank lines, its first string.
_MODULE_DOCSTRING = lazyre.compile(r"""\A(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*[rRuU]?(\"\"\"|\'\'\')[\s\S]*?\1""")
_DECLARED_FLAG = lazyre.compile(
    r"""add_argument\(\s*(?:["'][^"']*["']\s*,\s*)*["'](--[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?)["']"""
)
# The first line of a help listing: click's `Usage: tool sub [OPTIONS]`, argparse's `usage: tool`.
_USAGE = lazyre.compile(r"\s*(?:[Uu]sage|USAGE):\s+(\S.*)")
_SUBCOMMAND_WORD = lazyre.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
_CODE_SPAN = lazyre.compile(r"(`+)([^`]+)\1")
_SHORT_WORD = lazyre.compile(r"(?<!\S)-[A-Za-z](?!\S)")  # a short option written alone: `-v`
_SEGMENTS = lazyre.compile(r"&&|\|\||[|;]")  # the commands of one shell line
_WORD_BEFORE_SPAN = lazyre.compile(r"\b([a-z][a-z0-9_.-]*)(?:'s)?\s*\(?\s*`+$")
# After the span: "`--shm-size` for docker", "`--pdb` of pytest" (the tool's word, group 1), also
# past the word saying what it is and the other spans it lists: "the `-L` or `--copy-links`
# option to rsync", "`-a`, `-v` flags of rsync".
_WORD_AFTER_SPAN = lazyre.compile(
    r"`+(?:\s*(?:,|,?\s+(?:or|and))\s+`+[^`\n]+`+)*"
    r"\s+(?:(?:option|flag|switch|argument)s?\s+)?(?:for|of|to|in)\s+(?:the\s+)?([a-z][a-z0-9_.-]*)(?![\w-])"
)
_PYTHON_M = lazyre.compile(r"python[0-9.]*\s+-m\s+[A-Za-z_]")

# Modules read for the flags they declare: at most this many, each at most this long.
_MAX_MODULES = 800
_DATACLASS_FIELD = lazyre.compile(r"^[ \t]+([a-z_][a-z0-9_]*)[ \t]*:[^=\n]+(?:=|$)", re.M)
_DATACLASS_CLI = lazyre.compile(r"\b(?:draccus|tyro|simple_parsing|HfArgumentParser|jsonargparse)\b")
_CLI_NAME = lazyre.compile(r"cli|arg|opt|conf|command|launch|run|train|main|param|setting", re.IGNORECASE)
_MAX_MODULE_TEXT = 500_000
_OPTION_CALL = lazyre.compile(
    r"""(?:add_argument|addoption|option|Option)\(\s*(?:["'][^"']*["']\s*,\s*)*"""
    r"""["'](--?[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?)["']"""
)
# Options a program reads out of a text rather than its command line: a prompt's `... --w 768
# --n bad hands`, split on " --" and each part matched by a pattern naming its option
# (`re.match(r"w (\d+)", part)`). The pages cite them as `--w`; no parser declares them.
_TEXT_SPLIT = lazyre.compile(r"""\.split\(\s*r?["'] ?--["']\s*\)""")
_TEXT_OPTION = lazyre.compile(r"""\bre\.(?:match|fullmatch)\(\s*r?["']([A-Za-z][A-Za-z0-9_]*)(?: |\\s|=)""")


# `@pluginargument(` above a class: a plugin declaring the options its host adds for it.
_ARGUMENT_DECORATOR = lazyre.compile(r"^\s*@\w*argument\(", re.M | re.IGNORECASE)
# The keywords of argparse's add_argument a declaration of an option passes on to it.
_ARGPARSE_KEYWORDS = frozenset(
    {"action", "nargs", "const", "default", "type", "choices", "help", "metavar", "dest"}
)


def _plugin_arguments(path: str, text: str) -> set[str]:
    """The options a plugin module declares with class decorators (`@pluginargument("low-latency",
    action="store_true")` over `class Twitch(Plugin)`), named as a plugin host names them when it
    adds them to its parser in a loop over its plugins: `--{module}-{name}` (the module's file
    name, `twitch.py`), or the `argument_name=` the decorator gives. The parser's own module has
    only `add_argument(parg.argument_name(pname), **parg.options)`, no name to read; these are
    the flags that call makes, not nobody's."""
    try:
        module = parsed.module(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    stem = path.rpartition("/")[2].removesuffix(".py")
    out: set[str] = set()
    for node in walk.nodes(module):
        if not isinstance(node, ast.ClassDef):
            continue
        for d in node.decorator_list:
            if not (isinstance(d, ast.Call) and ast.unparse(d.func).lower().endswith("argument")):
                continue
            first = d.args[0] if d.args else None
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                continue
            keywords = {k.arg: k.value for k in d.keywords if k.arg}
            if not _ARGPARSE_KEYWORDS & keywords.keys() or first.value.startswith("-"):
                continue  # no option's declaration, or one naming its flag outright (a CLI's own)
            given = keywords.get("argument_name")
            if isinstance(given, ast.Constant) and isinstance(given.value, str):
                name = given.value
            else:
                name = f"{stem}-{first.value}"
            out.add("--" + name.replace("_", "-").strip("-"))
    return out


def _typer_options(path: str, text: str) -> set[str]:
    """The options typer makes of the module's command functions' parameters given a
    `typer.Option(...)` default, and of the fields of its dataclasses (a command line built
    from one, as `dataclass_cli` helpers do)."""
    try:
        module = parsed.module(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    out: set[str] = set()

    def add(name: str, annotation: ast.expr | None) -> None:
        flag = "--" + name.replace("_", "-")
        out.add(flag)
        if annotation is not None and ast.unparse(annotation) == "bool":
            out.add("--no-" + flag[2:])

    for node in walk.nodes(module):
        if isinstance(node, ast.ClassDef) and any("dataclass" in ast.unparse(d) for d in node.decorator_list):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    add(item.target.id, item.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults)) + list(node.args.defaults)
            defaults += list(node.args.kw_defaults)
            for arg, default in zip(args, defaults, strict=False):
                if isinstance(default, ast.Call) and ast.unparse(default.func).endswith("Option"):
                    add(arg.arg, arg.annotation)
    return out
