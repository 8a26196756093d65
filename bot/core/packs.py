"""Where rule packs come from: files given on the command line, the packs shipped with the
package (the repository's top-level `rules/`, installed as the `bot.packs` resource folder), and a
repository's `.github/docs-sync.yml`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.core.packfiles import REPO_CONFIG, builtin_pack_path
from bot.core.rules import (
    CONFIG_KEYS,
    FAIL_ON,
    MAX_RULES_BYTES,
    PACK_KEYS,
    RulePack,
    RulesError,
    too_large,
)

if TYPE_CHECKING:
    from importlib.abc import Traversable

    import yaml

    from bot.core.rulefile import Reader

# YAML and its reader (bot.core.rulefile) are imported where a file is parsed: a warm check finds
# its rules in the cache and never loads them.


def load_pack(path: str | Path | Traversable, file: str | None = None) -> RulePack:
    """`file` is the name errors give (a built-in pack is named by its place in the repository)."""
    file = file or str(path)
    return parse_pack(_read(path, file), file)


def load_rules_file(path: str | Path) -> tuple[RulePack, ...]:
    """A rules file as `--rules` takes it: a rule pack (`pack:`), or a repository config
    (`packs:` and/or `rules:`, the `.github/docs-sync.yml` format)."""
    return parse_rules_file(_read(path, str(path)), str(path))


def _read(path: str | Path | Traversable, file: str) -> str:
    try:
        with (Path(path) if isinstance(path, str) else path).open("rb") as fh:
            data = fh.read(MAX_RULES_BYTES + 1)
    except OSError as e:
        raise RulesError(file, None, "file", f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_RULES_BYTES:
        raise too_large(file)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise RulesError(file, line, "file", "not UTF-8 text") from None
    return text


def load_builtin(name: str) -> RulePack:
    return load_pack(builtin_pack_path(name), f"rules/{name}.yml")


def load_packs(paths: Iterable[str | Path]) -> tuple[RulePack, ...]:
    return _unique_packs([pack for p in paths for pack in load_rules_file(p)])


def resolve_rule_args(values: Iterable[str]) -> tuple[RulePack, ...]:
    """Command-line `--rules` values: a value with a path separator or a .yml/.yaml suffix is a
    file, anything else names a built-in pack."""
    packs: list[RulePack] = []
    for value in values:
        if "/" in value or os.sep in value or value.endswith((".yml", ".yaml")):
            packs.extend(load_rules_file(value))
        else:
            packs.append(load_builtin(value))
    return _unique_packs(packs)


def parse_rules_file(text: str, file: str) -> tuple[RulePack, ...]:
    """A pack when the file has a `pack:` key, else a repository config."""
    import yaml

    from bot.core.rulefile import Reader

    r = Reader(file)
    root = r.compose(text)
    if not isinstance(root, yaml.MappingNode):
        return (_pack(r, root),)  # says what the top level should be
    keys = {k.value for k, _ in root.value}
    if "pack" in keys:
        return (_pack(r, root),)
    if keys & {"packs", "rules"}:
        return _config(r, root)
    problem = "expected 'pack' and 'rules' (a rule pack) or 'packs' and/or 'rules' (a repository config)"
    raise r.error(root, "(top level)", problem)


def parse_pack(text: str, file: str) -> RulePack:
    from bot.core.rulefile import Reader

    r = Reader(file)
    return _pack(r, r.compose(text))


def _pack(r: Reader, root: yaml.Node) -> RulePack:
    file = r.file
    fields = r.fields(root, "", PACK_KEYS, required=("pack", "rules"))
    name = r.string(fields["pack"], "pack")
    stem = Path(file).stem
    if name != stem:
        raise r.error(fields["pack"], "pack", f"{name!r} must equal the file name without .yml ({stem!r})")
    description = r.optional_string(fields.get("description"), "description", empty=True) or ""
    return RulePack(pack=name, file=file, rules=r.rules(fields["rules"], "rules"), description=description)


def parse_repo_config(text: str, file: str = REPO_CONFIG) -> tuple[RulePack, ...]:
    """The per-repository config: built-in packs by name, inline rules, and a `fail_on` that
    overrides every rule's own."""
    from bot.core.rulefile import Reader

    r = Reader(file)
    return _config(r, r.compose(text))


def _config(r: Reader, root: yaml.Node) -> tuple[RulePack, ...]:
    from bot.core.rulefile import line_of

    file = r.file
    fields = r.fields(root, "", CONFIG_KEYS)
    if "packs" not in fields and "rules" not in fields:
        raise r.error(root, "packs", "the config needs 'packs' or 'rules'")
    packs: list[RulePack] = []
    seen: dict[str, int] = {}
    for i, node in enumerate(r.seq(fields.get("packs"), "packs")):
        key = f"packs[{i}]"
        name = r.string(node, key)
        if name in seen:
            raise r.error(node, key, f"pack {name!r} is already listed on line {seen[name]}")
        seen[name] = line_of(node)
        try:
            path = builtin_pack_path(name)
        except RulesError as e:
            raise r.error(node, key, e.problem) from None
        packs.append(load_pack(path, f"rules/{name}.yml"))
    if "rules" in fields:
        rules = r.rules(fields["rules"], "rules", allow_empty=True)
        if rules:
            packs.append(RulePack(pack=Path(file).name, file=file, rules=rules))
    if "fail_on" in fields:
        fail_on = r.choice(fields["fail_on"], "fail_on", FAIL_ON)
        packs = [replace(p, rules=tuple(replace(rule, fail_on=fail_on) for rule in p.rules)) for p in packs]
    return _unique_packs(packs)


def _unique_packs(packs: list[RulePack]) -> tuple[RulePack, ...]:
    # Rule ids are only unique within a pack, so one pack loaded twice would report everything twice.
    first: dict[str, str] = {}
    for p in packs:
        if p.pack in first:
            raise RulesError(p.file, None, "pack", f"pack {p.pack!r} is also loaded from {first[p.pack]}")
        first[p.pack] = p.file
    return tuple(packs)
