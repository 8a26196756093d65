"""Where rule packs come from, before any is read: the packs shipped with the package (the
repository's top-level `rules/`, installed as the `bot.packs` resource folder) and a repository's
`.github/docs-sync.yml`. Nothing here parses a rule (bot/core/packs.py does): a check whose rules or
report were kept asks these alone and never loads the rule classes or YAML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Traversable

REPO_CONFIG = ".github/docs-sync.yml"
BUILTIN = "bot.packs"


def _builtin_dir() -> Traversable:
    from importlib import resources

    return resources.files(BUILTIN)


def builtin_pack_names() -> tuple[str, ...]:
    """The packs shipped with the package."""
    try:
        entries = list(_builtin_dir().iterdir())
    except (ModuleNotFoundError, FileNotFoundError):
        return ()
    return tuple(sorted(e.name[: -len(".yml")] for e in entries if e.name.endswith(".yml") and e.is_file()))


def builtin_pack_path(name: str) -> Traversable:
    names = builtin_pack_names()
    if name not in names:
        known = ", ".join(names) if names else "(none)"
        problem = f"unknown built-in pack {name!r}; known packs: {known}"
        from bot.core.rules import RulesError

        raise RulesError("rules/", None, "pack", problem)
    return _builtin_dir() / f"{name}.yml"


def config_text(data: bytes, file: str = REPO_CONFIG) -> str:
    """The config's text: UTF-8 (a byte order mark allowed), else a RulesError naming the line
    of the first byte that is not. The command line and the App read it alike."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        from bot.core.rules import RulesError

        line = data.count(b"\n", 0, exc.start) + 1
        raise RulesError(file, line, "file", f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None
