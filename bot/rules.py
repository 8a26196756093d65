"""Rule packs: which doc pages are coupled to which code, read from `rules/*.yml`.

A pack file looks like this (see rules/miles.yml for a real one):

    pack: miles                      # must equal the file name without .yml
    description: ...
    rules:
      - id: fsdp-backend-page        # unique in the pack
        docs:
          - path: docs/user-guide/training-backend.md
            sections: ["FSDP"]       # optional: heading-path prefixes; default: the whole page
        sources:
          - id: fsdp-args            # unique in the rule
            kind: dataclass-flags    # argparse | dataclass-flags | symbols | strings | paths
            paths: [miles/backends/fsdp_utils/arguments.py]   # or `path: ...`
            dataclass: FSDPArgs      # dataclass-flags only
            builder: build_fsdp_parser          # dataclass-flags: function whose loop builds flags
            convention:              # dataclass-flags, optional: when the builder is too dynamic
              prefix: "--"
              separator: "-"
              bool: boolean-optional # boolean-optional | store-true
            calls: [init_device_mesh, _unflatten]   # strings: literals in these calls' arguments...
            keyword: mesh_dim_names                 # ...passed as this keyword or positionally at `position`
            position: 2
            compared_with: [args.train_backend, backend]  # strings: literals compared against these
            group: mesh-dims         # strings: name of the enumerated set (default: the source id)
            names: [init, train]     # symbols, optional: only these names
            enumerated: true         # the doc lists this set in full: a new member is a warning
        external: ["--sglang-*", "<*>"]   # fnmatch patterns of tokens never reported
        severity: {removed: error, undocumented: warning}   # per finding kind, overrides defaults
        fail_on: error               # error | warning | notice | never
        examples:                    # each becomes a test case
          - name: flag renamed
            files:                   # path -> {base, head}; a missing side means absent
              pkg/args.py: {base: "...", head: "..."}
              docs/page.md: {base: "..."}   # head defaults to base
            expect:                  # [] means "no finding"
              - {kind: renamed, symbol: --old, line: 3, replacement: "..."}

Loading validates everything and raises RulesError naming file, line and key.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

SOURCE_KINDS = ("argparse", "dataclass-flags", "symbols", "strings", "paths")

DEFAULT_SEVERITY: dict[str, str] = {
    "removed": "error",
    "renamed": "error",
    "changed": "error",
    "undocumented": "warning",
    "new-flag": "notice",
    "unresolved": "error",
    "wrong-default": "error",
    "parse-error": "error",
}


class RulesError(ValueError):
    """A rules file that cannot be used; the message names file, line and key."""

    def __init__(self, file: str, line: int | None, key: str, problem: str):
        self.file, self.line, self.key, self.problem = file, line, key, problem
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {key}: {problem}")


@dataclass(frozen=True)
class Convention:
    prefix: str = "--"
    separator: str = "-"
    bool: str = "boolean-optional"  # boolean-optional | store-true


@dataclass(frozen=True)
class Source:
    id: str
    kind: str
    paths: tuple[str, ...] = ()
    dataclass: str | None = None
    builder: str | None = None
    convention: Convention | None = None
    calls: tuple[str, ...] = ()
    keyword: str | None = None
    position: int | None = None
    compared_with: tuple[str, ...] = ()
    group: str | None = None
    names: tuple[str, ...] = ()
    enumerated: bool = False


@dataclass(frozen=True)
class DocTarget:
    path: str
    sections: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExampleFile:
    base: str | None
    head: str | None


@dataclass(frozen=True)
class Expectation:
    kind: str
    symbol: str | None = None
    line: int | None = None
    severity: str | None = None
    replacement: str | None = None


@dataclass(frozen=True)
class Example:
    name: str
    files: dict[str, ExampleFile]
    expect: tuple[Expectation, ...]
    line: int  # where the example starts in the rules file, for test ids and errors


@dataclass(frozen=True)
class Rule:
    id: str
    docs: tuple[DocTarget, ...]
    sources: tuple[Source, ...]
    external: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SEVERITY))
    fail_on: str = "error"
    examples: tuple[Example, ...] = ()

    def watched_paths(self) -> frozenset[str]:
        """Every file whose change can make this rule's docs wrong."""
        paths = {d.path for d in self.docs}
        for s in self.sources:
            paths.update(s.paths)
        return frozenset(paths)


@dataclass(frozen=True)
class RulePack:
    pack: str
    file: str
    rules: tuple[Rule, ...]
    description: str = ""


# --- loading ---------------------------------------------------------------------------------------
#
# The YAML is composed into a node tree (SafeLoader, never constructed into Python objects) and the
# dataclasses are built from the nodes by hand, so every error can name the line it comes from.

MAX_RULES_BYTES = 1_000_000  # rules files come from untrusted repositories
MAX_NESTING = 32  # the schema itself is 8 levels deep
RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
REPO_CONFIG = ".github/docs-sync.yml"

LEVELS = ("error", "warning", "notice")
FAIL_ON = (*LEVELS, "never")
BOOL_STYLES = ("boolean-optional", "store-true")
FINDING_KINDS = tuple(DEFAULT_SEVERITY)

PACK_KEYS = ("pack", "description", "rules")
CONFIG_KEYS = ("packs", "rules", "fail_on")
RULE_KEYS = ("id", "docs", "sources", "external", "severity", "fail_on", "examples")
DOC_KEYS = ("path", "sections")
SOURCE_KEYS = (
    "id",
    "kind",
    "path",
    "paths",
    "dataclass",
    "builder",
    "convention",
    "calls",
    "keyword",
    "position",
    "compared_with",
    "group",
    "names",
    "enumerated",
)
CONVENTION_KEYS = ("prefix", "separator", "bool")
EXAMPLE_KEYS = ("name", "files", "expect")
EXAMPLE_FILE_KEYS = ("base", "head")
EXPECT_KEYS = ("kind", "symbol", "line", "severity", "replacement")

# Source keys that mean something for some kinds only; elsewhere they are a mistake worth reporting.
# For argparse, `calls` names the functions that declare flags (add_argument, a project's reset_arg).
SOURCE_KEY_KINDS = {
    "dataclass": ("dataclass-flags",),
    "builder": ("dataclass-flags",),
    "convention": ("dataclass-flags",),
    "calls": ("strings", "argparse"),
    "keyword": ("strings",),
    "position": ("strings",),
    "compared_with": ("strings",),
    "group": ("strings",),
    "names": ("symbols",),
}


def builtin_pack_names() -> tuple[str, ...]:
    """The packs shipped in the repository's rules/ directory."""
    if not RULES_DIR.is_dir():
        return ()
    return tuple(sorted(p.stem for p in RULES_DIR.glob("*.yml") if p.is_file()))


def builtin_pack_path(name: str) -> Path:
    names = builtin_pack_names()
    if name not in names:
        known = ", ".join(names) if names else "(none)"
        problem = f"unknown built-in pack {name!r}; known packs: {known}"
        raise RulesError(str(RULES_DIR), None, "pack", problem)
    return RULES_DIR / f"{name}.yml"


def load_pack(path: str | Path) -> RulePack:
    file = str(path)
    try:
        with Path(path).open("rb") as fh:
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
    return parse_pack(text, file)


def load_packs(paths: Iterable[str | Path]) -> tuple[RulePack, ...]:
    return _unique_packs([load_pack(p) for p in paths])


def resolve_rule_args(values: Iterable[str]) -> tuple[RulePack, ...]:
    """Command-line `--rules` values: a value with a path separator or a .yml/.yaml suffix is a
    file, anything else names a built-in pack."""
    packs = []
    for value in values:
        if "/" in value or os.sep in value or value.endswith((".yml", ".yaml")):
            packs.append(load_pack(value))
        else:
            packs.append(load_pack(builtin_pack_path(value)))
    return _unique_packs(packs)


def parse_pack(text: str, file: str) -> RulePack:
    from bot.rules_yaml import Reader

    r = Reader(file)
    fields = r.fields(r.compose(text), "", PACK_KEYS, required=("pack", "rules"))
    name = r.string(fields["pack"], "pack")
    stem = Path(file).stem
    if name != stem:
        raise r.error(fields["pack"], "pack", f"{name!r} must equal the file name without .yml ({stem!r})")
    description = r.optional_string(fields.get("description"), "description", empty=True) or ""
    return RulePack(pack=name, file=file, rules=r.rules(fields["rules"], "rules"), description=description)


def parse_repo_config(text: str, file: str = REPO_CONFIG) -> tuple[RulePack, ...]:
    """The per-repository config: built-in packs by name, inline rules, and a `fail_on` that
    overrides every rule's own."""
    from bot.rules_yaml import Reader, line_of

    r = Reader(file)
    root = r.compose(text)
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
        packs.append(load_pack(path))
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


def too_large(file: str) -> RulesError:
    return RulesError(file, None, "file", f"larger than {MAX_RULES_BYTES} bytes; rules files must stay small")
