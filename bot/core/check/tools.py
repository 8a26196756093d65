"""The commands a repository runs that are not its own: a flag a page cites right after naming
one of them (`sphinx-build` with `-W --keep-going`) is that tool's, not the rule's.

They are the first words of the command lines of its CI workflows, shell scripts, Makefiles,
justfiles and tox and nox configs, and the ids of its pre-commit hooks. The words depend on
those files' content alone, so they are kept under the files' blob ids: a warm check reads none
of them (hundreds in a large repository).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, MutableMapping

from bot.core import lazyre
from bot.core.model import Tree, reading
from bot.core.spans import first_command_word

TOOLS_FORMAT = "tools3"  # part of the cache key of a repository's tool words: bump when they change
_MAX_FILES = 400
_HOOKS = ".pre-commit-config.yaml"
_RUNNERS = ("Makefile", "makefile", "GNUmakefile", "justfile", "tox.ini", "tox.toml", "noxfile.py")

_TOOL_WORD = lazyre.compile(r"[a-z][a-z0-9_.-]*[a-z0-9]")
_HOOK_ID = lazyre.compile(r"^\s*-?\s*id:\s*([a-z][a-z0-9_.-]*)\s*$", re.M)
# tox.ini's `commands = sphinx-build ...` and the indented lines that continue it.
_INI_COMMANDS = lazyre.compile(r"^commands(?:_pre|_post)?\s*=[ \t]*(.*(?:\n[ \t]+.*)*)", re.M)
# A command written as a list of words: tox.toml's `["sphinx-build", "-W"]`, nox's
# `session.run("sphinx-build", ...)`.
_LISTED = lazyre.compile(
    r"""(?:\[\s*|session\.run(?:_install|_always)?\(\s*)["']([a-z][a-z0-9_.-]*[a-z0-9])["']"""
)
# A recipe line of a Makefile (a tab) or a justfile (indented), after its `@`, `-` or `+`.
_RECIPE = lazyre.compile(r"^[ \t]+[@+-]*(.*)$", re.M)


# Tools every reader knows, whose flags pages cite beside the project's ("like pip(`--constraint`)")
# though its own scripts never run them. A repository that is one of them declares it: the
# check asks whether a command is the repository's before calling it another tool's.
WELL_KNOWN = frozenset(
    {
        *("pip", "pip3", "uv", "conda", "mamba", "pipx", "poetry", "pytest", "tox", "nox", "ruff"),
        *("mypy", "flake8", "git", "gh", "docker", "podman", "kubectl", "helm", "npm", "npx", "yarn"),
        *("pnpm", "brew", "apt-get", "curl", "wget", "rsync", "ssh", "cmake", "cargo", "gcc", "nvcc"),
        *("torchrun", "deepspeed", "ipython", "jupyter", "sphinx-build", "mkdocs", "wandb"),
    }
)


def tool_words(head: Tree, cache: MutableMapping[str, object] | None) -> frozenset[str]:
    """The first words of the command lines the repository runs, its hooks' ids, and the tools
    every reader knows."""
    paths = sorted(head.paths())
    workflows = [p for p in paths if p.startswith(".github/workflows/") and p.endswith((".yml", ".yaml"))]
    runners = [p for p in paths if p.rpartition("/")[2] in _RUNNERS]
    shells = [p for p in paths if p.endswith(".sh")]
    scanned = [_HOOKS, *(workflows + runners + shells)[:_MAX_FILES]]
    key = None
    if cache is not None:
        ids = repr([(p, head.blob_id(p)) for p in scanned]).encode()
        key = f"{TOOLS_FORMAT}:{hashlib.sha1(ids).hexdigest()}"
        hit = cache.get(key)
        if isinstance(hit, frozenset):
            return hit
    words = _words(reading(head, scanned)) | WELL_KNOWN
    if cache is not None and key is not None:
        cache[key] = words
    return words


def _words(files: Iterable[tuple[str, str | None]]) -> frozenset[str]:
    words: set[str] = set()
    for path, text in files:
        text = text or ""
        name = path.rpartition("/")[2]
        if path == _HOOKS:
            words.update(_HOOK_ID.findall(text))
        elif name in ("tox.toml", "noxfile.py"):
            words.update(_LISTED.findall(text))
        elif name == "tox.ini":
            words.update(
                _first_words(line for m in _INI_COMMANDS.finditer(text) for line in m[1].splitlines())
            )
        elif name in _RUNNERS:  # Makefile, justfile
            words.update(_first_words(_RECIPE.findall(text)))
        else:  # a workflow's `run:` lines, a shell script's
            words.update(
                _first_words(raw.strip().removeprefix("- ").removeprefix("run:") for raw in text.splitlines())
            )
    return frozenset(words)


def _first_words(lines: Iterable[str]) -> set[str]:
    out = set()
    for raw in lines:
        line = raw.strip()
        first = first_command_word(line) if line and not line.startswith("#") else None
        if first and _TOOL_WORD.fullmatch(first):
            out.add(first)
    return out
