"""Parsers that take a flag spelled with `-` or `_` alike (`--num-processes` for `--num_processes`).

tyro does, always (its `use_underscores` changes the help only): its flags say so
(`spelling: either`).

argparse itself takes only the spelling declared, so `--use-fsdp` for `--use_fsdp` is a typo
there. A project may add the other spelling to every option itself: an `argparse.Action` (or a
parser class) whose `option_strings` get each one's `.replace("_", "-")` appended. When the
module declaring a flag, or a module of the repository it imports, does that, both spellings
are the flag's.
"""

from __future__ import annotations

from bot.core import lazyre
from bot.core.extract.imports import Modules

# `.replace("_", "-")` in a module that rewrites an action's `option_strings`: the idiom that
# adds the dashed spelling of every option.
_DASHED = lazyre.compile(r"""\.replace\(\s*(['"])_\1\s*,\s*(['"])-\2\s*\)""")


def other_spelling(token: str) -> str | None:
    """`--use-fsdp` <-> `--use_fsdp`: the flag with its inner `-` and `_` swapped, or None."""
    body = token.lstrip("-")
    prefix = token[: len(token) - len(body)]
    if prefix != "--" or ("-" in body) == ("_" in body):
        return None  # a short flag, no separator, or both kinds: no one other spelling
    return prefix + (body.replace("-", "_") if "-" in body else body.replace("_", "-"))


def other_spellings(token: str) -> list[str]:
    """`token` with its inner separators swapped, then all `-`, then all `_` (each once, itself
    left out): the spellings of one flag to a parser that takes `-` and `_` alike."""
    body = token.lstrip("-")
    prefix = token[: len(token) - len(body)]
    if prefix != "--":
        return []
    found = [other_spelling(token), prefix + body.replace("_", "-"), prefix + body.replace("-", "_")]
    return [t for t in dict.fromkeys(found) if t is not None and t != token]


def takes_either(modules: Modules, path: str) -> bool:
    """Does the parser declared in `path` take both spellings of its options?"""
    for candidate in (path, *_imported(modules, path)):
        text = modules.tree.read(candidate) or ""
        if "option_strings" in text and _DASHED.search(text):
            return True
    return False


def _imported(modules: Modules, path: str) -> list[str]:
    """The repository's modules `path` imports from (its own folder's too, for `from . import`)."""
    summary = modules.summary(path)
    if summary is None:
        return []
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    out: list[str] = []
    for imports in summary.imports.values():
        for imp in imports:
            if imp.level:
                base = folder.split("/")[: len(folder.split("/")) - (imp.level - 1)] if folder else []
                stem = "/".join([*base, *imp.module.split(".")]) if imp.module else "/".join(base)
                found = modules.file(stem)
            else:
                found = modules.find(imp.module)
            if found is not None and found != path and found not in out:
                out.append(found)
    return out
