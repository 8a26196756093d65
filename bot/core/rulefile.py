"""Reading a rules file's YAML into the rule dataclasses, with a line for every error.

Built on `yaml.compose` (nodes keep their marks) and a SafeLoader without aliases, so an
untrusted file can neither run code nor blow up in size. Imported only when a file is parsed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from pathlib import PureWindowsPath
from typing import Any, TypeVar, cast

import yaml

from bot.core.globs import PatternError, compile_pattern, is_pattern
from bot.core.model import Severity
from bot.core.rules import (
    BOOL_STYLES,
    CONVENTION_KEYS,
    DEFAULT_SEVERITY,
    DOC_KEYS,
    EXAMPLE_FILE_KEYS,
    EXAMPLE_KEYS,
    EXPECT_KEYS,
    FAIL_ON,
    FINDING_KINDS,
    LEVELS,
    MAX_NESTING,
    MAX_OTHERS,
    MAX_RULES_BYTES,
    OTHER_KEYS,
    RULE_KEYS,
    SITE_KEYS,
    SOURCE_KEY_KINDS,
    SOURCE_KEYS,
    SOURCE_KINDS,
    Convention,
    DocTarget,
    Example,
    ExampleFile,
    Expectation,
    Origin,
    Other,
    Rule,
    RulesError,
    RulesErrors,
    SiteTarget,
    Source,
    raise_all,
    too_large,
)

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

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]  # untyped in types-PyYAML
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not supported", mark)
        if self.depth >= MAX_NESTING:
            raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_NESTING} levels", mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def line_of(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _value(mapping: yaml.Node, name: str) -> yaml.Node:
    """The value under `name` in a mapping that has already been checked to have it."""
    value: yaml.Node = next(v for k, v in mapping.value if k.value == name)
    return value


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


def _check_pairing(rule: Rule) -> None:
    """Placeholders pair pages with sources: the doc paths that pair use the same names, and a
    source path uses only those (a name no doc path gives has no value)."""
    names: tuple[str, ...] | None = None
    for d in rule.docs:
        if not is_pattern(d.path) or not compile_pattern(d.path).names:
            continue
        these = compile_pattern(d.path).names
        if names is None:
            names = these
        elif set(these) != set(names):
            assert d.origin is not None
            problem = f"pairs on {_braced(these)} but an earlier doc path pairs on {_braced(names)}"
            raise d.origin.error(problem)
    for s in rule.sources:
        for path, origin in zip(s.paths, s.origins, strict=False):
            if not is_pattern(path):
                continue
            unknown = [n for n in compile_pattern(path).names if n not in (names or ())]
            if unknown:
                given = f"the doc paths give {_braced(names)}" if names else "no doc path gives one"
                raise origin.error(f"placeholder {_braced(tuple(unknown))} has no value: {given}")


def _braced(names: tuple[str, ...]) -> str:
    return ", ".join("{" + n + "}" for n in names)


_T = TypeVar("_T")
_I = TypeVar("_I", Rule, Source)  # what has an id

# What `others` may name: a GitHub repository, a git ref (no option, no `..`), a distribution.
_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
_REF = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._/+-]{0,199}")
_PACKAGE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?")


def _id_of(node: yaml.Node) -> str | None:
    """The `id` a mapping gives as a string, read without judging the rest of it."""
    if node.tag != _MAP:
        return None
    for k, v in node.value:
        if k.value == "id" and v.tag == _STR:
            value: str = v.value
            return value
    return None


def _collect(problems: list[RulesError], read: Callable[..., _T], *args: Any) -> _T | None:
    """`read(*args)`, or None with its problems added to `problems`: one mistake does not hide the
    next."""
    try:
        return read(*args)
    except RulesErrors as e:
        problems.extend(e.problems)
    except RulesError as e:
        problems.append(e)
    return None


class Reader:
    """Builds the rule dataclasses from a composed node tree; `key` arguments are the dotted path
    of the node in the file (`rules[0].sources[1].kind`) for error messages."""

    def __init__(self, file: str):
        self.file = file

    def error(self, node: yaml.Node, key: str, problem: str) -> RulesError:
        return RulesError(self.file, line_of(node), key or "(top level)", problem)

    def compose(self, text: str) -> yaml.Node:
        if len(text) > MAX_RULES_BYTES or len(text.encode("utf-8")) > MAX_RULES_BYTES:
            raise too_large(self.file)
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
        items: list[yaml.Node] = node.value
        return items

    # -- scalars --

    def string(self, node: yaml.Node, key: str, empty: bool = False) -> str:
        if node.tag != _STR:
            hint = " (quote it to make it a string)" if isinstance(node, yaml.ScalarNode) else ""
            raise self.error(node, key, f"expected a string, got {_describe(node)}{hint}")
        if not empty and not node.value:
            raise self.error(node, key, "must not be empty")
        value: str = node.value
        return value

    def optional_string(self, node: yaml.Node | None, key: str, empty: bool = False) -> str | None:
        if node is None or node.tag == _NULL:
            return None
        return self.string(node, key, empty)

    def strings(self, node: yaml.Node | None, key: str) -> tuple[str, ...]:
        return tuple(self.string(n, f"{key}[{i}]") for i, n in enumerate(self.seq(node, key)))

    def path(self, node: yaml.Node, key: str, pattern: bool = False) -> str:
        """A repo-relative path; with `pattern`, a glob is allowed (and must be readable)."""
        value = self.string(node, key)
        problem = _check_path(value)
        if problem:
            raise self.error(node, key, f"path {value!r} {problem}")
        if pattern and is_pattern(value):
            try:
                compile_pattern(value)
            except PatternError as e:
                raise self.error(node, key, f"pattern {value!r}: {e}") from None
        return value

    def origin(self, node: yaml.Node, key: str) -> Origin:
        return Origin(self.file, line_of(node), key)

    def integer(self, node: yaml.Node | None, key: str, minimum: int) -> int | None:
        if node is None or node.tag == _NULL:
            return None
        if node.tag != _INT:
            raise self.error(node, key, f"expected an integer, got {_describe(node)}")
        value = _SCALARS.construct_yaml_int(cast(yaml.ScalarNode, node))  # an !!int is a scalar
        if value < minimum:
            raise self.error(node, key, f"must be at least {minimum}, got {value}")
        return value

    def boolean(self, node: yaml.Node, key: str) -> bool:
        if node.tag != _BOOL:
            raise self.error(node, key, f"expected true or false, got {_describe(node)}")
        return _SCALARS.construct_yaml_bool(cast(yaml.ScalarNode, node))  # a !!bool is a scalar

    def choice(self, node: yaml.Node, key: str, choices: tuple[str, ...]) -> str:
        value = self.string(node, key)
        if value not in choices:
            raise self.error(
                node, key, f"{value!r} is not one of {', '.join(choices)}{_closest(value, choices)}"
            )
        return value

    # -- schema --

    def rules(self, node: yaml.Node, key: str, allow_empty: bool = False) -> tuple[Rule, ...]:
        """Every rule, or RulesErrors with the problems of all of them (one run reports them all)."""
        problems: list[RulesError] = []
        rules = self.unique(problems, self.seq(node, key, nonempty=not allow_empty), key, self.rule, "rule")
        raise_all(problems)
        return tuple(rules)

    def unique(
        self,
        problems: list[RulesError],
        nodes: list[yaml.Node],
        key: str,
        read: Callable[[yaml.Node, str], _I],
        what: str,
    ) -> list[_I]:
        """Each of `nodes` read by `read`, its problems and a repeated id added to `problems`; a
        broken item's id is taken too."""
        out: list[_I] = []
        seen: dict[str, int] = {}
        for i, n in enumerate(nodes):
            where = f"{key}[{i}]"
            item = _collect(problems, read, n, where)
            item_id = item.id if item is not None else _id_of(n)
            if item_id is not None and item_id in seen:
                problem = f"duplicate {what} id {item_id!r} (first on line {seen[item_id]})"
                problems.append(self.error(_value(n, "id"), f"{where}.id", problem))
                continue
            if item_id is not None:
                seen[item_id] = line_of(n)
            if item is not None:
                out.append(item)
        return out

    def rule(self, node: yaml.Node, key: str) -> Rule:
        # A rule that checks a docs site (`site:`) may couple no pages to code.
        site_only = isinstance(node, yaml.MappingNode) and any(k.value == "site" for k, _ in node.value)
        required = ("id",) if site_only else ("id", "docs", "sources")
        f = self.fields(node, key, RULE_KEYS, required=required)
        problems: list[RulesError] = []  # each doc, source and setting on its own: all reported
        rule_id = self.string(f["id"], f"{key}.id")
        site = _collect(problems, self.site, f["site"], f"{key}.site") if "site" in f else None
        doc_nodes = _collect(problems, self.seq, f.get("docs"), f"{key}.docs", not site_only) or []
        docs = tuple(
            d for i, n in enumerate(doc_nodes) if (d := _collect(problems, self.doc, n, f"{key}.docs[{i}]"))
        )
        source_nodes = _collect(problems, self.seq, f.get("sources"), f"{key}.sources", not site_only) or []
        sources = self.unique(problems, source_nodes, f"{key}.sources", self.source, "source")
        severity = dict(DEFAULT_SEVERITY)
        if "severity" in f:
            levels = _collect(
                problems, self.fields, f["severity"], f"{key}.severity", FINDING_KINDS, (), "finding kind"
            )
            for kind, level in (levels or {}).items():
                chosen = _collect(problems, self.choice, level, f"{key}.severity.{kind}", LEVELS)
                if chosen is not None:
                    severity[kind] = cast(Severity, chosen)  # LEVELS holds only the three
        raise_all(problems)
        rule = Rule(
            id=rule_id,
            docs=docs,
            sources=tuple(sources),
            external=self.strings(f.get("external"), f"{key}.external"),
            severity=severity,
            fail_on=self.choice(f["fail_on"], f"{key}.fail_on", FAIL_ON) if "fail_on" in f else "error",
            examples=self.examples(f.get("examples"), f"{key}.examples"),
            origin=self.origin(node, key),
            site=site,
            others=self.others(f.get("others"), f"{key}.others"),
        )
        _check_pairing(rule)
        return rule

    def others(self, node: yaml.Node | None, key: str) -> tuple[Other, ...]:
        items = self.seq(node, key)
        if len(items) > MAX_OTHERS:
            problem = f"at most {MAX_OTHERS} other projects per rule, got {len(items)}"
            raise self.error(items[MAX_OTHERS], f"{key}[{MAX_OTHERS}]", problem)
        return tuple(self.other(n, f"{key}[{i}]") for i, n in enumerate(items))

    def other(self, node: yaml.Node, key: str) -> Other:
        """`{repo: org/name, ref: v1.0, paths: [...]}` or `{package: name, paths: [...]}`."""
        f = self.fields(node, key, OTHER_KEYS)
        if ("repo" in f) == ("package" in f):
            raise self.error(node, key, "give either 'repo' (with 'ref' and 'paths') or 'package'")
        items = self.seq(f.get("paths"), f"{key}.paths", nonempty="repo" in f)
        paths = tuple(self.path(n, f"{key}.paths[{i}]", pattern=True) for i, n in enumerate(items))
        origin = self.origin(node, key)
        if "package" in f:
            if "ref" in f:
                raise self.error(f["ref"], f"{key}.ref", "only means something with 'repo'")
            package = self.string(f["package"], f"{key}.package")
            if not _PACKAGE.fullmatch(package):
                raise self.error(f["package"], f"{key}.package", f"{package!r} is not a distribution name")
            return Other(package=package, paths=paths, origin=origin)
        for name in ("ref", "paths"):
            if name not in f:
                raise self.error(node, f"{key}.{name}", f"required with 'repo': {name!r} is missing")
        repo = self.string(f["repo"], f"{key}.repo")
        if not _REPO.fullmatch(repo):
            raise self.error(f["repo"], f"{key}.repo", f"{repo!r} is not a GitHub repository (owner/name)")
        ref = self.string(f["ref"], f"{key}.ref")
        if not _REF.fullmatch(ref) or ".." in ref or "//" in ref or ref.endswith(("/", ".lock")):
            raise self.error(f["ref"], f"{key}.ref", f"{ref!r} is not a tag, branch or commit name")
        return Other(repo=repo, ref=ref, paths=paths, origin=origin)

    def site(self, node: yaml.Node, key: str) -> SiteTarget:
        """`site: {config: docs/docs.json, root: docs}`; `site: {}` or `site: true` finds both."""
        if node.tag == _BOOL and self.boolean(node, key):
            return SiteTarget()
        f = self.fields(node, key, SITE_KEYS)
        config = self.path(f["config"], f"{key}.config") if "config" in f else None
        if config is not None and not config.endswith((".json", ".yml", ".yaml")):
            problem = "must be a docs.json, mint.json or mkdocs.yml file"
            raise self.error(f["config"], f"{key}.config", problem)
        root = self.string(f["root"], f"{key}.root", empty=True) if "root" in f else None
        wrong = _check_path(root) if root else None
        if wrong:
            raise self.error(f["root"], f"{key}.root", f"path {root!r} {wrong}")
        return SiteTarget(config=config, root=root.strip("/") if root is not None else None)

    def doc(self, node: yaml.Node, key: str) -> DocTarget:
        f = self.fields(node, key, DOC_KEYS, required=("path",))
        sections = self.seq(f.get("sections"), f"{key}.sections")
        excluded = self.seq(f.get("exclude"), f"{key}.exclude")
        if excluded and not is_pattern(self.string(f["path"], f"{key}.path")):
            raise self.error(f["exclude"], f"{key}.exclude", "only means something with a glob in 'path'")
        return DocTarget(
            path=self.path(f["path"], f"{key}.path", pattern=True),
            sections=tuple(self.string(n, f"{key}.sections[{i}]") for i, n in enumerate(sections)),
            program=self.optional_string(f.get("program"), f"{key}.program"),
            origin=self.origin(f["path"], f"{key}.path"),
            section_origins=tuple(self.origin(n, f"{key}.sections[{i}]") for i, n in enumerate(sections)),
            exclude=tuple(self.path(n, f"{key}.exclude[{i}]", pattern=True) for i, n in enumerate(excluded)),
            exclude_origins=tuple(self.origin(n, f"{key}.exclude[{i}]") for i, n in enumerate(excluded)),
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
            paths: tuple[str, ...] = (self.path(f["path"], f"{key}.path", pattern=True),)
            origins: tuple[Origin, ...] = (self.origin(f["path"], f"{key}.path"),)
        elif "paths" in f:
            items = self.seq(f["paths"], f"{key}.paths", nonempty=True)
            paths = tuple(self.path(n, f"{key}.paths[{i}]", pattern=True) for i, n in enumerate(items))
            origins = tuple(self.origin(n, f"{key}.paths[{i}]") for i, n in enumerate(items))
        elif kind == "paths":
            paths, origins = (), ()  # the paths a doc cites are checked against the whole tree
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
            programs=self.strings(f.get("programs"), f"{key}.programs"),
            origins=origins,
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
        return Example(name=name, files=files, expect=expect, line=line_of(node))

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
