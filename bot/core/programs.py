"""The repository's own programs: which command lines run its code, and whose flags they take.

A program is named by its entry module's path, the key: `lm_eval/__main__.py` for `lm-eval`,
`lm_eval`, `python -m lm_eval` and `python lm_eval/__main__.py` alike. Its command line is
invoked as

- a console script the project declares (pyproject.toml, setup.cfg, setup.py),
- `python path/to/mod.py`, `python -m pkg.mod` (`python -m pkg` runs `pkg/__main__.py`),
- the script or module a launcher runs (`torchrun`, `accelerate launch`, `deepspeed`,
  `python -m torch.distributed.run`, `srun`, `mpirun`, `ray job submit -- ...`, and `numactl`
  or `taskset` wrapping any of them); in the repository that declares the launcher
  (accelerate's `accelerate`), the options before what it runs are its own program's,
- a name a rule gives its sources (`programs: [miles-train]`).

Its flags are those of the modules its entry point leads to (bot/core/extract/imports.py): the
program's parsers. Facts of a parser module carry the keys of the programs that take them in the
attribute `programs` (space-separated paths); a flag added under `sub.add_parser("run")` carries
`subcommand` too. Any other command (docker, git, pip, pytest, a script outside the repository)
is nobody's here: `owner_of` answers None and its flags are left alone.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass

from bot.core.blobcache import cached
from bot.core.extract import extract, launchers
from bot.core.extract.imports import MAIN, PROJECT_FILES, TOP, Modules
from bot.core.extract.scripts import (
    EntryPoint,
    from_pyproject,
    from_setup_cfg,
    from_setup_py,
    script_entry,
    setup_scripts,
)
from bot.core.model import Fact, Tree
from bot.core.rules import Source
from bot.core.script_urls import is_project_name, names_in_files, own_repositories, url_path

# Words before the command that do not change which program runs.
# `usage:` opens the usage line of argparse's help (`usage: tool-cli export [-h] ...`), pasted
# into a page: what follows is the program's own command line.
_PREFIXES = frozenset({"$", ">", "sudo", "env", "time", "nohup", "exec", "command", "!", "usage:", "Usage:"})
_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
_RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye", "conda"})  # `<runner> run`
# Commands that run a script with uv elsewhere (Hugging Face Jobs), their own options first.
_REMOTE_RUNNERS = (("hf", "jobs", "uv", "run"), ("huggingface-cli", "jobs", "uv", "run"))
_PYTHON = re.compile(r"(?:.*/)?(?:python[23]?(?:\.\d+)?|pypy3?|py)")
# A shell variable holding the interpreter, as launch scripts write it: `$PY -m pkg.server`,
# `"${PYTHON}" -m pkg`, `$VENV_PYTHON script.py`.
_PYTHON_VAR = re.compile(r"\$\{?[A-Z_]*PY(?:THON[23]?)?(?:_?(?:BIN|EXE|CMD))?\}?")
_PYTHON_VALUE_OPTIONS = frozenset({"-X", "-W", "--check-hash-based-pycs"})
# Launchers run a Python script or module given among their own options.
_LAUNCHERS: tuple[tuple[str, ...], ...] = (
    ("torchrun",),
    ("deepspeed",),
    ("accelerate", "launch"),
    ("ray", "job", "submit"),
    ("srun",),
    ("mpirun",),
    ("mpiexec",),
    ("horovodrun",),
    # wrappers that run a command on chosen CPUs or NUMA nodes: `numactl -N 0 --localalloc python ...`
    ("numactl",),
    ("taskset",),
    # a container running a command given after its image: `docker run -v x:/app -it img python3
    # main.py --model m` runs the image's copy of main.py, which is the repository's
    *(("docker", "run"), ("docker", "exec"), ("podman", "run"), ("podman", "exec")),
)
# A launcher of one word named in prose (`adjust --nproc_per_node in the torchrun command`): a
# flag of that line none of ours has is the launcher's own (`accelerate` and `ray` are words
# of prose too).
_ONE_WORD = "|".join(sorted(x[0] for x in _LAUNCHERS if len(x) == 1))
LAUNCHER_WORD = re.compile(rf"(?<![\w./-])({_ONE_WORD})(?![\w./-])")
_PLACEHOLDER = re.compile(r"\{[^{}]+\}|<[^<>]+>")  # `{training_script}`, `<script>`
_LAUNCHER_MODULES = frozenset(
    {
        "torch.distributed.run",
        "torch.distributed.launch",
        "accelerate.commands.launch",
        "deepspeed",
        "deepspeed.launcher.runner",
    }
)
# Whatever declares a module's flags: argparse, and click or typer where the module names them.
# Shells that run a script given them: `bash scripts/train.sh --lr 1e-4`.
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "source", "."})
_ANY_PARSER = (
    Source(id="programs", kind="argparse"),
    Source(id="programs", kind="click"),
    Source(id="programs", kind="typer"),
)
_OPTIONS_FORMAT = "options-9"  # cache key prefix of a module's option strings


@dataclass(frozen=True)
class Command:
    """A command line that runs one of the repository's programs."""

    program: str  # the program's key: its entry module's path
    args: tuple[str, ...]  # the words after the program (and after the launcher's own options)


class Programs:
    """The programs of one revision. Built by `programs(tree)`; reads lazily and remembers."""

    def __init__(
        self,
        modules: Modules,
        scripts: Sequence[EntryPoint],
        named: Mapping[str, Iterable[str]] | None = None,
    ):
        self.modules = modules
        self.scripts: dict[str, EntryPoint] = {}
        for script in scripts:
            self.scripts.setdefault(script.name, script)
        self.named: dict[str, tuple[str, ...]] = {
            name: tuple(sorted(set(paths))) for name, paths in (named or {}).items() if paths
        }
        self._parsers: dict[str, frozenset[str]] = {}
        self._programs_of: dict[str, tuple[str, ...]] | None = None
        self._extends_memo: dict[str, bool] = {}
        self._options: dict[str, frozenset[str]] = {}
        self._forwards: dict[str, list[launchers.Forward]] = {}
        self._own_names: frozenset[str] | None = None
        self._project_names: frozenset[str] | None = None
        self._tops: dict[frozenset[str], frozenset[str | None]] = {}
        self._scripts: list[tuple[str, str]] | None = None  # (path, text) of each loose script

    # --- command lines ---------------------------------------------------------------------------

    def owner_of(self, words: Sequence[str], cwd: str = "") -> str | None:
        """The key of the repository program `words` (a shell command, split) runs, or None.

        `cwd` is the folder a relative script path is tried from first (the page's own folder).
        """
        found = self.command(words, cwd)
        return found.program if found else None

    def command(self, words: Sequence[str], cwd: str = "") -> Command | None:
        return self._command(list(words), cwd, depth=0)

    def usage_of_own_launcher(self, words: Sequence[str]) -> list[str] | None:
        """`accelerate launch [arguments] {training_script} ...`, in the repository declaring the
        launcher: a usage line whose script is a placeholder documents the launcher itself. The
        words before the placeholder (its own command), else None."""
        words = _strip_prefixes(list(words))
        for launcher in _LAUNCHERS:
            if tuple(words[: len(launcher)]) != launcher or words[0] not in self.scripts:
                continue
            rest = words[len(launcher) :]
            for i, word in enumerate(rest):
                if _PLACEHOLDER.fullmatch(word) and not (i > 0 and rest[i - 1].startswith("-")):
                    return [*launcher, *rest[:i]]
        return None

    def facts_for(self, words: Sequence[str], facts: Iterable[Fact], cwd: str = "") -> list[Fact] | None:
        """The flags the command `words` can be judged against (those its program takes, narrowed
        to the subcommand the words name); None when it runs no program of the repository (its
        flags are somebody else's), [] when its parser is a module `facts` do not cover (a script
        of the repository the rule does not read)."""
        found = self.command(words, cwd)
        if found is None:
            return None
        return for_subcommand(
            [f for f in facts if f.kind == "flag" and self.takes(found.program, f)], found.args
        )

    def takes(self, program: str, fact: Fact) -> bool:
        """Does the command line of `program` (a key) take this flag?

        Those of the modules its entry point leads to, and of the modules of the same top-level
        package that only add flags to a parser they are given (they create none), that no known
        program leads to and that are no program of their own: they are presumed to extend this
        command line through a path given on it (miles' rollout generators add their flags that
        way).
        """
        parsers = self.parsers(program)
        handed = fact.attr("handed")  # a helper's flag, added to the parsers these modules hand it
        if handed and not any(self._reads(parsers, p) for p in handed.split()):
            return False
        if fact.path in parsers or program in (fact.attr("programs") or "").split():
            return True
        return self._reads(parsers, fact.path)

    def _reads(self, parsers: frozenset[str], path: str) -> bool:
        """Is `path` one of `parsers`, or a module presumed to extend them (see `takes`)?"""
        if path in parsers:
            return True
        tops = self._tops.get(parsers)
        if tops is None:  # asked once per flag: the packages of a program's parsers are kept
            tops = self._tops[parsers] = frozenset(_top(p) for p in parsers)
        return _top(path) in tops and self._extends(path)

    def _command(self, words: list[str], cwd: str, depth: int) -> Command | None:
        if depth > 4:
            return None
        words = _strip_prefixes(words)
        if not words:
            return None
        for name, paths in self.named.items():
            spelled = name.split()
            if words[: len(spelled)] == spelled:
                return Command(paths[0], tuple(words[len(spelled) :]))
        if _PYTHON.fullmatch(words[0]) or _PYTHON_VAR.fullmatch(words[0]):
            return self._python(words[1:], cwd, depth)
        for launcher in _LAUNCHERS:
            if tuple(words[: len(launcher)]) == launcher:
                rest = words[len(launcher) :]
                if words[0] in self.scripts and not _names_target(rest):
                    break  # the repository's own launcher, and no script yet: its own options
                return self._launched(rest, cwd, depth, module=False)
        script = self.scripts.get(words[0])
        if script is not None:
            path = self.modules.find(script.module)
            if path is None:
                return None
            return self._dispatch(Command(path, tuple(words[1:])), words[0])
        if words[0].endswith(".py"):
            return self._python_script(words[0], words[1:], cwd, depth)
        if words[0] in _SHELLS:
            rest = words[1:]
            while rest and rest[0].startswith("-") and rest[0] not in ("-c", "--"):
                rest = rest[1:]  # `bash -x script.sh`; `bash -c "..."` runs no script of ours
            return self._wrapper(rest[0], rest[1:], cwd, depth) if rest and rest[0] != "-c" else None
        if words[0].endswith(".sh"):
            return self._wrapper(words[0], words[1:], cwd, depth)
        return None

    def _python_script(self, word: str, args: Sequence[str], cwd: str, depth: int) -> Command | None:
        """`python train.py ...`: that script, or, when it declares no flags itself and runs
        another program with its own arguments (`[sys.executable, "-m", "pkg.train",
        *sys.argv[1:]]`, `main(sys.argv[1:])` of an imported `pkg.train`), that program."""
        path = self._script(word, cwd)
        if path is None:
            return None
        if depth < 4 and path not in self.parsers(path):
            found = self._forwarded(path, args, depth, python=True)
            if found is not None:
                return found
        return Command(path, tuple(args))

    def _wrapper(self, word: str, args: Sequence[str], cwd: str, depth: int) -> Command | None:
        """A shell script of the repository that runs one of its programs with `"$@"`: that program,
        given the script's own words and then `args`."""
        path = self._script(word, cwd)
        return self._forwarded(path, args, depth, python=False) if path is not None else None

    def _forwarded(self, path: str, args: Sequence[str], depth: int, python: bool) -> Command | None:
        if path not in self._forwards:
            self._forwards[path] = _forwards_of(self.modules.tree, path, python, self.modules.cache)
        folder = posixpath.dirname(path)
        forwards = self._forwards[path]
        # A branch the first argument selects (`./run.sh train --lr 1`) takes the rest; else the
        # commands of no branch take them all.
        chosen = [(f, args[1:]) for f in forwards if f.when is not None and args and args[0] in f.when]
        chosen = chosen or [(f, args) for f in forwards if f.when is None]
        found: list[Command] = []
        for forward, rest in chosen:
            spelled = [
                posixpath.join(folder, inner) if (inner := launchers.beside(w)) is not None else w
                for w in forward.words
            ]
            command = self._command([*spelled, *rest], folder, depth + 1)
            if command is not None:
                found.append(command)
        if len({c.program for c in found}) != 1:
            return None  # no program of ours, or several the words do not choose between
        return found[0]

    def _python(self, args: list[str], cwd: str, depth: int) -> Command | None:
        i = 0
        while i < len(args):
            word = args[i]
            if word == "-m" or (word.startswith("-m") and len(word) > 2 and not word.startswith("--")):
                module = args[i + 1] if word == "-m" and i + 1 < len(args) else word[2:]
                rest = args[i + 2 :] if word == "-m" else args[i + 1 :]
                if not module:
                    return None
                if module in _LAUNCHER_MODULES:
                    return self._launched(rest, cwd, depth, module=False)
                path = self.modules.package_main(module) or self.modules.find(module)
                if path is None:
                    return None
                return self._dispatch(Command(path, tuple(rest)), module)
            if word in ("-c", "-") or word.startswith("-c"):
                return None  # code given inline or on stdin: no module of ours parses its flags
            if word in _PYTHON_VALUE_OPTIONS:
                i += 2
                continue
            if word.startswith("-"):
                i += 1
                continue
            return self._python_script(word, args[i + 1 :], cwd, depth)
        return None

    def _launched(self, args: list[str], cwd: str, depth: int, module: bool) -> Command | None:
        """The script or module a launcher runs, found among the launcher's own options."""
        for i, word in enumerate(args):
            if word == "--":
                return self._command(args[i + 1 :], cwd, depth + 1)
            if _PYTHON.fullmatch(word):
                return self._python(args[i + 1 :], cwd, depth + 1)
            if word in ("-m", "--module"):
                module = True
                continue
            if word.startswith("-"):
                continue
            if word.endswith(".py"):
                return self._python_script(word, args[i + 1 :], cwd, depth)
            if module:
                path = self.modules.package_main(word) or self.modules.find(word)
                if path is not None:
                    return Command(path, tuple(args[i + 1 :]))
            # otherwise the value of one of the launcher's options (`--nproc-per-node 8`)
        return None

    def _script(self, word: str, cwd: str) -> str | None:
        if "://" in word:  # `uv run https://raw.githubusercontent.com/org/proj/main/train.py`
            return url_path(word, self._own(), self.modules.paths)
        word = word.removeprefix("./")
        candidates = [posixpath.normpath(posixpath.join(cwd, word))] if cwd else []
        candidates.append(posixpath.normpath(word))
        for candidate in candidates:
            if not candidate.startswith("../") and candidate in self.modules.paths:
                return candidate
        top, _, rest = word.partition("/")
        if rest and rest in self.modules.paths and is_project_name(top, self.project_names()):
            return rest  # `python proj/tools/x.py`, from the folder the project is cloned into
        return None

    def own_repositories(self) -> frozenset[str]:
        """The GitHub repositories (`owner/name`) the project files call this project's."""
        return self._own()

    def project_names(self) -> frozenset[str]:
        """The names the project goes by (bot/core/script_urls.py)."""
        if self._project_names is None:
            self._project_names = names_in_files(self.modules.tree.read, self._own())
        return self._project_names

    def _own(self) -> frozenset[str]:
        """The GitHub repositories (`owner/name`) the project files call this project's."""
        if self._own_names is None:
            texts = (self.modules.tree.read(r + n) for r in self.modules.roots for n in PROJECT_FILES)
            self._own_names = own_repositories(t for t in texts if t is not None)
        return self._own_names

    def _dispatch(self, found: Command, name: str) -> Command:
        """`mlx_lm generate ...`: an entry point that parses no flags and hands its first word to
        a sibling program (`mlx_lm.generate`, `mlx_lm/generate.py`) is that program."""
        if not found.args or found.args[0].startswith("-") or self.parsers(found.program):
            return found
        word = found.args[0]
        for separator in (".", "-", "_"):
            script = self.scripts.get(f"{name}{separator}{word}")
            path = self.modules.find(script.module) if script else None
            if path is not None:
                return Command(path, found.args[1:])
        folder = posixpath.dirname(found.program)
        path = self.modules.file(posixpath.join(folder, word.replace(".", "/"))) if folder else None
        if path is not None and path != found.program and self.parsers(path):
            return Command(path, found.args[1:])
        return found

    # --- modules ---------------------------------------------------------------------------------

    def declares(self, fact: Fact) -> bool:
        """Does a parser of a program `fact` (a flag of another revision) belonged to declare its
        option string in this revision? A flag moved to a module the rule does not read (aider's
        `--opus`, from args.py to deprecated.py) is still there."""
        keys = (fact.attr("programs") or fact.path).split()
        return any(fact.token in self.option_strings(p) for key in keys for p in self.parsers(key))

    def option_strings(self, path: str) -> frozenset[str]:
        """Every option string the add_argument calls of module `path` declare."""
        if path not in self._options:
            blob = self.modules.tree.blob_id(path)
            key = f"{_OPTIONS_FORMAT}:{blob}" if blob else None
            cache = self.modules.cache
            hit = cache.get(key) if cache is not None and key is not None else None
            if isinstance(hit, frozenset):
                found: frozenset[str] = hit
            else:
                text = self.modules.tree.read(path)
                found = frozenset(
                    f.token
                    for source in _ANY_PARSER
                    if text is not None and (source.kind == "argparse" or source.kind in text)
                    for f in extract(source, path, text).facts
                )
                if cache is not None and key is not None:
                    cache[key] = found
            self._options[path] = found
        return self._options[path]

    def parsers(self, program: str) -> frozenset[str]:
        """The modules whose add_argument calls make the command line of `program` (a key)."""
        if program not in self._parsers:
            starts = [(program, TOP), (program, MAIN)]
            starts += [(program, s.function) for s in self._scripts_of(program) if s.function]
            found = set(self.modules.reach(starts))
            found |= {r for path in list(found) for r in self.modules.registered_on(path)}
            for paths in self.named.values():
                if paths[0] == program:
                    found.update(paths)
            self._parsers[program] = frozenset(found)
        return self._parsers[program]

    def programs_of(self, path: str) -> tuple[str, ...]:
        """The keys of the programs whose command line takes the flags declared in `path`: the
        console scripts, `python -m pkg` packages and named programs that lead to it, and the
        module itself run as a script."""
        return tuple(sorted({path, *self._index().get(path, ())}))

    def known(self, path: str) -> bool:
        """Does a console script, a `python -m pkg` package or a named program lead to `path`?"""
        return path in self._index()

    def _extends(self, path: str) -> bool:
        """A module that adds flags to a parser it is given, that no known program leads to and
        that is no program of its own, nor a part of a script's (below)."""
        if path not in self._extends_memo:
            summary = self.modules.summary(path)
            self._extends_memo[path] = (
                summary is not None
                and not summary.creates_parser
                and not self.known(path)
                and path not in self.modules.reach([(path, MAIN)])
                and not self._script_leads_to(path)
            )
        return self._extends_memo[path]

    def _script_leads_to(self, path: str) -> bool:
        """Does a script (`python anima_train.py`: a file with a main guard outside the packages)
        lead to `path`? Then the flags it adds are that script's command line's, not those of
        every program of its package (`library/anima_train_utils.py`'s `--timestep_sampling`, a
        helper of `anima_train.py`, is not `flux_train.py`'s, which has its own)."""
        if self._scripts is None:
            packages = {p.rpartition("/")[0] for p in self.modules.paths if p.endswith("__init__.py")}
            loose = sorted(
                p for p in self.modules.paths if p.endswith(".py") and p.rpartition("/")[0] not in packages
            )
            self._scripts = []
            for script in loose[:_MAX_SCRIPTS]:
                text = self.modules.tree.read(script)
                if text is not None and "__main__" in text:
                    self._scripts.append((script, text))
        stem = posixpath.basename(path).removesuffix(".py")
        return any(
            script != path and stem in text and path in self.modules.reach([(script, MAIN)])
            for script, text in self._scripts
        )

    def _index(self) -> dict[str, tuple[str, ...]]:
        if self._programs_of is None:
            index: dict[str, set[str]] = {}
            for key in self._known_programs():
                for parser in self.parsers(key):
                    index.setdefault(parser, set()).add(key)
            self._programs_of = {p: tuple(sorted(keys)) for p, keys in index.items()}
        return self._programs_of

    def names_of(self, program: str) -> tuple[str, ...]:
        """How a command line invokes `program` (a key), for messages: `lm-eval`, `python -m lm_eval`."""
        names = [n for n, paths in self.named.items() if paths[0] == program]
        names += [s.name for s in self._scripts_of(program)]
        module = _module_name(program, self.modules.roots)
        if module is not None:
            names.append(f"python -m {module}")
        names.append(f"python {program}")
        return tuple(dict.fromkeys(names))

    def _scripts_of(self, program: str) -> list[EntryPoint]:
        return [s for s in self.scripts.values() if self.modules.find(s.module) == program]

    def scripts_parsers(self) -> frozenset[str]:
        """The modules whose flags the console scripts take, wherever they sit (`vllm bench`'s
        in `vllm/benchmarks/`): what the project installs is its own command line."""
        keys = {p for s in self.scripts.values() if (p := self.modules.find(s.module)) is not None}
        return frozenset(path for key in keys for path in self.parsers(key))

    def _known_programs(self) -> list[str]:
        keys = [p for s in self.scripts.values() if (p := self.modules.find(s.module)) is not None]
        keys += [p for p in self.modules.paths if p.endswith("/__main__.py")]
        keys += [paths[0] for paths in self.named.values()]
        return sorted(set(keys))


# Scripts read for the modules they lead to (Programs._script_leads_to): a bound on the reads.
_MAX_SCRIPTS = 1000

# Part of the cache keys of what launchers and project files say: bump when that changes.
FORWARDS_FORMAT = "fwd2"
SCRIPTS_FORMAT = "scripts2"


def _forwards_of(
    tree: Tree, path: str, python: bool, cache: MutableMapping[str, object] | None
) -> list[launchers.Forward]:
    """The commands the launcher at `path` forwards its arguments to, kept by blob id: a warm
    check neither reads nor parses it (a module that mentions `sys.argv` may be a large one)."""
    blob = tree.blob_id(path)
    key = f"{FORWARDS_FORMAT}:{'py' if python else 'sh'}:{blob}" if blob else None

    def forwards() -> list[launchers.Forward]:
        text = tree.read(path)
        if text is None or len(text) > launchers.MAX_BYTES:
            return []
        return launchers.python_forwards(text) if python else launchers.shell_forwards(text)

    return cached(cache, key, list, forwards)


_SCRIPT_READERS = {"pyproject.toml": from_pyproject, "setup.cfg": from_setup_cfg, "setup.py": from_setup_py}


def _entry_points(
    tree: Tree, path: str, cache: MutableMapping[str, object] | None
) -> list[EntryPoint] | None:
    """The console scripts a project file (pyproject.toml, setup.cfg, setup.py) declares, kept by
    blob id; None when there is no such file."""
    blob = tree.blob_id(path)
    name = posixpath.basename(path)
    key = f"{SCRIPTS_FORMAT}:{blob}:{name}" if blob else None

    def declared() -> list[EntryPoint] | None:
        text = tree.read(path)
        return None if text is None else list(_SCRIPT_READERS[name](text))

    return cached(cache, key, list, declared)


def programs(
    tree: Tree,
    cache: MutableMapping[str, object] | None = None,
    named: Mapping[str, Iterable[str]] | None = None,
) -> Programs:
    """The programs of a revision: its console scripts (from every project file near the top of the
    repository), its modules, and the programs `named` (name -> the parser paths a rule gives)."""
    modules = Modules(tree, cache)
    scripts: list[EntryPoint] = []
    for root in modules.roots:
        for name in PROJECT_FILES:
            found = _entry_points(tree, root + name, cache) if root + name in modules.paths else None
            if found is not None:
                scripts.extend(found)
        if root + "setup.py" in modules.paths:
            scripts.extend(_installed_scripts(tree, root, cache))
    return Programs(modules, scripts, named)


def _installed_scripts(tree: Tree, root: str, cache: MutableMapping[str, object] | None) -> list[EntryPoint]:
    """The files setup.py's `scripts=` installs, as the entry points they call; a symbolic link
    (`bin/deepspeed` -> `ds`, whose blob is the target's name) is its target's, by the link's name."""
    setup = root + "setup.py"
    blob = tree.blob_id(setup)

    def listed() -> list[str] | None:
        text = tree.read(setup)
        return None if text is None else setup_scripts(text)

    out: list[EntryPoint] = []
    scripts = cached(cache, f"{SCRIPTS_FORMAT}:listed:{blob}" if blob else None, list, listed) or []
    for script in scripts[:50]:
        path = posixpath.normpath(posixpath.join(root, script))
        name = posixpath.basename(path)
        text = tree.read(path)
        if text is not None and "\n" not in text.strip():  # a link: its target beside it
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), text.strip()))
            text = tree.read(target) if tree.exists(target) else None
        if text is not None and len(text) < launchers.MAX_BYTES:
            found = script_entry(name, text)
            if found is not None:
                out.append(found)
    return out


def for_subcommand(
    flags: Sequence[Fact], args: Sequence[str], paths: Iterable[tuple[str, ...]] | None = None
) -> list[Fact]:
    """The flags a command with these words after the program takes: when the words start with a
    subcommand the flags name (`lm-eval run ...`), that subcommand's and the top parser's.

    `paths` are the subcommands of the whole program (default: those `flags` name): `tool serve`
    takes none of `flags` when they are all `tool build`'s."""
    chosen = invoked(args, {p for f in flags for p in subcommands(f)} if paths is None else paths)
    if chosen is None:
        return list(flags)
    return [f for f in flags if any(chosen[: len(p)] == p for p in subcommands(f))]


def invoked(args: Sequence[str], paths: Iterable[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The longest of the subcommand `paths` that the words after the program start with; None
    when they start with none (a legacy command line, or no subcommand named)."""
    leading: list[str] = []
    for word in args:
        if word.startswith("-"):
            break
        leading.append(word)
    named = [p for p in paths if p and tuple(leading[: len(p)]) == p]
    return max(named, key=len) if named else None


def subcommands(fact: Fact) -> tuple[tuple[str, ...], ...]:
    """The subcommand paths a flag belongs to (`("run",)`); `((),)` for the top parser's flags."""
    value = fact.attr("subcommand")
    if not value:
        return ((),)
    return tuple(tuple(p.split()) for p in value.split(","))


def _names_target(args: Sequence[str]) -> bool:
    """Do a launcher's words name what it runs (a script, `-m module`, `-- cmd`, `python ...`)?
    Words before that are the launcher's own options; in the repository that is the launcher
    (accelerate's `accelerate launch --cpu`), they are its own program's flags."""
    module = False
    for i, word in enumerate(args):
        after_option = i > 0 and args[i - 1].startswith("-")
        if word in ("-m", "--module"):
            module = True
        elif word == "--" or _PYTHON.fullmatch(word) or word.strip("{}<>[]").endswith((".py", ".sh")):
            return True  # `{script_name.py}` stands for the script too
        elif _PLACEHOLDER.fullmatch(word) and not after_option:
            return True  # `[arguments] {training_script}`: a placeholder not after an option
        elif module and not word.startswith("-"):
            return True
    return False


def _strip_prefixes(words: list[str]) -> list[str]:
    i = 0
    while i < len(words):
        word = words[i]
        if word in _PREFIXES or _ENV_ASSIGNMENT.fullmatch(word):
            i += 1
        elif (word in _RUNNERS and i + 1 < len(words) and words[i + 1] == "run") or any(
            tuple(words[i : i + len(r)]) == r for r in _REMOTE_RUNNERS
        ):
            i += 2 if words[i + 1] == "run" else 4
            # The runner's own options (`uv run --with x`, `conda run -n env`): up to the command,
            # an option right before a script or a URL being a switch.
            while i < len(words) and words[i].startswith("-"):
                after = words[i + 1] if i + 1 < len(words) else ""
                switch = "=" in words[i] or not after or after.endswith(".py") or "://" in after
                i += 1 if switch else 2
        else:
            break
    rest = words[i:]
    if rest and rest[0].startswith("!") and len(rest[0]) > 1:
        rest = [rest[0][1:], *rest[1:]]  # a notebook cell's shell escape: `!python train.py`
    return rest


def _top(path: str) -> str | None:
    return path.split("/", 1)[0] if "/" in path else None


def _module_name(path: str, roots: Sequence[str]) -> str | None:
    if not path.endswith(".py"):
        return None
    for root in sorted(roots, key=len, reverse=True):
        if path.startswith(root):
            stem = path[len(root) : -3]
            stem = stem.removesuffix("/__main__").removesuffix("/__init__")
            return stem.replace("/", ".") if stem and "-" not in stem and " " not in stem else None
    return None
