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

import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PureWindowsPath

import yaml

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

_TAG = "tag:yaml.org,2002:"
_STR, _INT, _BOOL, _NULL, _MAP, _SEQ = (_TAG + t for t in ("str", "int", "bool", "null", "map", "seq"))
_TAG_NAMES = {
    _STR: "a string",
    _INT: "an integer",
    _BOOL: "a boolean",
    _NULL: "null",
    _TAG + "float": "a number",
    _TAG + "timestamp": "a date",
    _MAP: "a mapping",
    _SEQ: "a list",
}
_SCALARS = yaml.constructor.SafeConstructor()  # only used to read YAML 1.1 ints and bools from nodes


class _Loader(yaml.SafeLoader):
    """SafeLoader without aliases and with bounded nesting: an alias can repeat a large subtree
    many times over (or make a node contain itself), and deep nesting exhausts the recursive
    composer; an untrusted rules file needs neither."""

    def __init__(self, stream):
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent, index):
        mark = self.peek_event().start_mark
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not supported", mark)
        if self.depth >= MAX_NESTING:
            raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_NESTING} levels", mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


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
        raise _too_large(file)
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
    r = _Reader(file)
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
    r = _Reader(file)
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
        seen[name] = _line(node)
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


def _too_large(file: str) -> RulesError:
    return RulesError(file, None, "file", f"larger than {MAX_RULES_BYTES} bytes; rules files must stay small")


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _value(mapping: yaml.MappingNode, name: str) -> yaml.Node:
    """The value under `name` in a mapping that has already been checked to have it."""
    return next(v for k, v in mapping.value if k.value == name)


def _describe(node: yaml.Node) -> str:
    if node.tag in _TAG_NAMES:
        return _TAG_NAMES[node.tag]
    tag = "!!" + node.tag.removeprefix(_TAG) if node.tag.startswith(_TAG) else node.tag
    return f"a value tagged {tag} (YAML tags are not supported)"


def _closest(word: str, choices: Iterable[str]) -> str:
    match = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {match[0]!r}?)" if match else ""


def _check_path(value: str) -> str | None:
    """Why `value` is not a repo-relative POSIX path, or None when it is."""
    if value.startswith("/") or PureWindowsPath(value).drive:
        return "must be relative to the repository root, not absolute"
    if "\\" in value:
        return "must use '/' as the separator"
    parts = value.removesuffix("/").split("/")
    if ".." in parts:
        return "must not contain '..'"
    if "" in parts or "." in parts:
        return "must be a normalized path (no '//' or '.' parts)"
    return None


class _Reader:
    """Builds the rule dataclasses from a composed node tree; `key` arguments are the dotted path
    of the node in the file (`rules[0].sources[1].kind`) for error messages."""

    def __init__(self, file: str):
        self.file = file

    def error(self, node: yaml.Node, key: str, problem: str) -> RulesError:
        return RulesError(self.file, _line(node), key or "(top level)", problem)

    def compose(self, text: str) -> yaml.Node:
        if len(text) > MAX_RULES_BYTES or len(text.encode("utf-8")) > MAX_RULES_BYTES:
            raise _too_large(self.file)
        try:
            root = yaml.compose(text, Loader=_Loader)
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            problem = ", ".join(p for p in (e.context, e.problem) if p)
            raise RulesError(self.file, mark.line + 1 if mark else None, "syntax", problem) from None
        except yaml.reader.ReaderError as e:
            line = text[: e.position].count("\n") + 1
            char = f"U+{e.character:04X}" if isinstance(e.character, int) else repr(e.character)
            raise RulesError(self.file, line, "syntax", f"character {char} is not allowed") from None
        except yaml.YAMLError as e:
            raise RulesError(self.file, None, "syntax", str(e)) from None
        if root is None:
            raise RulesError(self.file, None, "(top level)", "the file is empty")
        return root

    # -- shapes --

    def fields(
        self,
        node: yaml.Node,
        key: str,
        allowed: tuple[str, ...],
        required: tuple[str, ...] = (),
        noun: str = "key",
    ) -> dict[str, yaml.Node]:
        """A mapping's values by key, after checking for unknown, duplicate and missing keys."""
        if node.tag != _MAP:
            raise self.error(node, key, f"expected a mapping, got {_describe(node)}")
        out: dict[str, yaml.Node] = {}
        for k, v in node.value:
            if k.tag != _STR:
                raise self.error(k, key, f"{noun}s must be strings, got {_describe(k)}")
            where = f"{key}.{k.value}" if key else k.value
            if k.value in out:
                raise self.error(k, where, f"duplicate {noun} {k.value!r}")
            if k.value not in allowed:
                raise self.error(k, where, f"unknown {noun} {k.value!r}{_closest(k.value, allowed)}")
            out[k.value] = v
        for name in required:
            if name not in out:
                where = f"{key}.{name}" if key else name
                raise self.error(node, where, f"required {noun} {name!r} is missing")
        return out

    def seq(self, node: yaml.Node | None, key: str, nonempty: bool = False) -> list[yaml.Node]:
        if node is None:
            return []
        if node.tag != _SEQ:
            raise self.error(node, key, f"expected a list, got {_describe(node)}")
        if nonempty and not node.value:
            raise self.error(node, key, "must not be empty")
        return node.value

    # -- scalars --

    def string(self, node: yaml.Node, key: str, empty: bool = False) -> str:
        if node.tag != _STR:
            hint = " (quote it to make it a string)" if isinstance(node, yaml.ScalarNode) else ""
            raise self.error(node, key, f"expected a string, got {_describe(node)}{hint}")
        if not empty and not node.value:
            raise self.error(node, key, "must not be empty")
        return node.value

    def optional_string(self, node: yaml.Node | None, key: str, empty: bool = False) -> str | None:
        if node is None or node.tag == _NULL:
            return None
        return self.string(node, key, empty)

    def strings(self, node: yaml.Node | None, key: str) -> tuple[str, ...]:
        return tuple(self.string(n, f"{key}[{i}]") for i, n in enumerate(self.seq(node, key)))

    def path(self, node: yaml.Node, key: str) -> str:
        value = self.string(node, key)
        problem = _check_path(value)
        if problem:
            raise self.error(node, key, f"path {value!r} {problem}")
        return value

    def integer(self, node: yaml.Node | None, key: str, minimum: int) -> int | None:
        if node is None or node.tag == _NULL:
            return None
        if node.tag != _INT:
            raise self.error(node, key, f"expected an integer, got {_describe(node)}")
        value = _SCALARS.construct_yaml_int(node)
        if value < minimum:
            raise self.error(node, key, f"must be at least {minimum}, got {value}")
        return value

    def boolean(self, node: yaml.Node, key: str) -> bool:
        if node.tag != _BOOL:
            raise self.error(node, key, f"expected true or false, got {_describe(node)}")
        return _SCALARS.construct_yaml_bool(node)

    def choice(self, node: yaml.Node, key: str, choices: tuple[str, ...]) -> str:
        value = self.string(node, key)
        if value not in choices:
            raise self.error(
                node, key, f"{value!r} is not one of {', '.join(choices)}{_closest(value, choices)}"
            )
        return value

    # -- schema --

    def rules(self, node: yaml.Node, key: str, allow_empty: bool = False) -> tuple[Rule, ...]:
        rules: list[Rule] = []
        seen: dict[str, int] = {}
        for i, item in enumerate(self.seq(node, key, nonempty=not allow_empty)):
            rule = self.rule(item, f"{key}[{i}]")
            if rule.id in seen:
                problem = f"duplicate rule id {rule.id!r} (first on line {seen[rule.id]})"
                raise self.error(_value(item, "id"), f"{key}[{i}].id", problem)
            seen[rule.id] = _line(item)
            rules.append(rule)
        return tuple(rules)

    def rule(self, node: yaml.Node, key: str) -> Rule:
        f = self.fields(node, key, RULE_KEYS, required=("id", "docs", "sources"))
        rule_id = self.string(f["id"], f"{key}.id")
        docs = tuple(
            self.doc(n, f"{key}.docs[{i}]") for i, n in enumerate(self.seq(f["docs"], f"{key}.docs", True))
        )
        sources: list[Source] = []
        seen: dict[str, int] = {}
        for i, n in enumerate(self.seq(f["sources"], f"{key}.sources", nonempty=True)):
            where = f"{key}.sources[{i}]"
            source = self.source(n, where)
            if source.id in seen:
                problem = f"duplicate source id {source.id!r} (first on line {seen[source.id]})"
                raise self.error(_value(n, "id"), f"{where}.id", problem)
            seen[source.id] = _line(n)
            sources.append(source)
        severity = dict(DEFAULT_SEVERITY)
        if "severity" in f:
            levels = self.fields(f["severity"], f"{key}.severity", FINDING_KINDS, noun="finding kind")
            for kind, level in levels.items():
                severity[kind] = self.choice(level, f"{key}.severity.{kind}", LEVELS)
        return Rule(
            id=rule_id,
            docs=docs,
            sources=tuple(sources),
            external=self.strings(f.get("external"), f"{key}.external"),
            severity=severity,
            fail_on=self.choice(f["fail_on"], f"{key}.fail_on", FAIL_ON) if "fail_on" in f else "error",
            examples=self.examples(f.get("examples"), f"{key}.examples"),
        )

    def doc(self, node: yaml.Node, key: str) -> DocTarget:
        f = self.fields(node, key, DOC_KEYS, required=("path",))
        return DocTarget(
            path=self.path(f["path"], f"{key}.path"),
            sections=self.strings(f.get("sections"), f"{key}.sections"),
        )

    def source(self, node: yaml.Node, key: str) -> Source:
        f = self.fields(node, key, SOURCE_KEYS, required=("id", "kind"))
        source_id = self.string(f["id"], f"{key}.id")
        kind = self.choice(f["kind"], f"{key}.kind", SOURCE_KINDS)
        for name, kinds in SOURCE_KEY_KINDS.items():
            if name in f and kind not in kinds:
                problem = f"only applies to kind {' or '.join(kinds)}, not {kind}"
                raise self.error(f[name], f"{key}.{name}", problem)

        if "path" in f and "paths" in f:
            raise self.error(f["paths"], f"{key}.paths", "give either 'path' or 'paths', not both")
        if "path" in f:
            paths: tuple[str, ...] = (self.path(f["path"], f"{key}.path"),)
        elif "paths" in f:
            items = self.seq(f["paths"], f"{key}.paths", nonempty=True)
            paths = tuple(self.path(n, f"{key}.paths[{i}]") for i, n in enumerate(items))
        elif kind == "paths":
            paths = ()  # the paths a doc cites are checked against the whole tree
        else:
            raise self.error(node, f"{key}.paths", "required key 'path' or 'paths' is missing")

        dataclass_name = self.optional_string(f.get("dataclass"), f"{key}.dataclass")
        if kind == "dataclass-flags" and dataclass_name is None:
            raise self.error(node, f"{key}.dataclass", "required for kind dataclass-flags")
        calls = self.strings(f.get("calls"), f"{key}.calls")
        compared_with = self.strings(f.get("compared_with"), f"{key}.compared_with")
        if kind == "strings" and not calls and not compared_with:
            raise self.error(node, f"{key}.calls", "kind strings needs 'calls' or 'compared_with'")
        for name in ("keyword", "position"):
            if name in f and not calls:
                raise self.error(f[name], f"{key}.{name}", "only means something together with 'calls'")

        return Source(
            id=source_id,
            kind=kind,
            paths=paths,
            dataclass=dataclass_name,
            builder=self.optional_string(f.get("builder"), f"{key}.builder"),
            convention=self.convention(f["convention"], f"{key}.convention") if "convention" in f else None,
            calls=calls,
            keyword=self.optional_string(f.get("keyword"), f"{key}.keyword"),
            position=self.integer(f.get("position"), f"{key}.position", minimum=0),
            compared_with=compared_with,
            group=self.optional_string(f.get("group"), f"{key}.group"),
            names=self.strings(f.get("names"), f"{key}.names"),
            enumerated=self.boolean(f["enumerated"], f"{key}.enumerated") if "enumerated" in f else False,
        )

    def convention(self, node: yaml.Node, key: str) -> Convention:
        f = self.fields(node, key, CONVENTION_KEYS)
        default = Convention()
        return Convention(
            prefix=self.string(f["prefix"], f"{key}.prefix", empty=True) if "prefix" in f else default.prefix,
            separator=(
                self.string(f["separator"], f"{key}.separator", empty=True)
                if "separator" in f
                else default.separator
            ),
            bool=self.choice(f["bool"], f"{key}.bool", BOOL_STYLES) if "bool" in f else default.bool,
        )

    def examples(self, node: yaml.Node | None, key: str) -> tuple[Example, ...]:
        examples: list[Example] = []
        seen: dict[str, int] = {}
        for i, item in enumerate(self.seq(node, key)):
            where = f"{key}[{i}]"
            example = self.example(item, where)
            if example.name in seen:
                problem = f"duplicate example name {example.name!r} (first on line {seen[example.name]})"
                raise self.error(_value(item, "name"), f"{where}.name", problem)
            seen[example.name] = example.line
            examples.append(example)
        return tuple(examples)

    def example(self, node: yaml.Node, key: str) -> Example:
        f = self.fields(node, key, EXAMPLE_KEYS, required=("name", "files", "expect"))
        files_node = f["files"]
        if files_node.tag != _MAP:
            raise self.error(files_node, f"{key}.files", f"expected a mapping, got {_describe(files_node)}")
        files: dict[str, ExampleFile] = {}
        for path_node, file_node in files_node.value:
            path = self.path(path_node, f"{key}.files")
            where = f"{key}.files.{path}"
            if path in files:
                raise self.error(path_node, where, f"duplicate file {path!r}")
            sides = self.fields(file_node, where, EXAMPLE_FILE_KEYS)
            base = self.optional_string(sides.get("base"), f"{where}.base", empty=True)
            # A file given only at base is unchanged; `head: null` is how an example deletes it.
            head = base
            if "head" in sides:
                head = self.optional_string(sides["head"], f"{where}.head", empty=True)
            if base is None and head is None:
                raise self.error(file_node, where, "needs 'base' or 'head'")
            files[path] = ExampleFile(base=base, head=head)
        expect = tuple(
            self.expectation(n, f"{key}.expect[{i}]")
            for i, n in enumerate(self.seq(f["expect"], f"{key}.expect"))
        )
        name = self.string(f["name"], f"{key}.name")
        return Example(name=name, files=files, expect=expect, line=_line(node))

    def expectation(self, node: yaml.Node, key: str) -> Expectation:
        f = self.fields(node, key, EXPECT_KEYS, required=("kind",))
        severity = f.get("severity")
        return Expectation(
            kind=self.choice(f["kind"], f"{key}.kind", FINDING_KINDS),
            symbol=self.optional_string(f.get("symbol"), f"{key}.symbol"),
            line=self.integer(f.get("line"), f"{key}.line", minimum=1),
            severity=(
                self.choice(severity, f"{key}.severity", LEVELS)
                if severity is not None and severity.tag != _NULL
                else None
            ),
            replacement=self.optional_string(f.get("replacement"), f"{key}.replacement", empty=True),
        )
