"""The values that flow through docs-sync: facts from code, changes between revisions, findings.

Everything here is a frozen dataclass so the analysis core stays pure: it takes these in,
hands these out, and never learns where the bytes came from or where the findings go.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

Severity = Literal["error", "warning", "notice"]
SEVERITY_RANK: dict[str, int] = {"notice": 0, "warning": 1, "error": 2}

# Finding kinds, a stable part of the JSON contract.
#   removed       a documented fact is gone from the code and nothing replaces it
#   renamed       a documented fact now has another name (same dest/field, git rename, closest match)
#   changed       a documented fact changed meaning: default, choices, bool polarity, type
#   undocumented  a new member appeared in a set the doc enumerates (a third backend choice)
#   new-flag      a new flag next to documented ones, on a page that does not claim to list them all
#   unresolved    a doc line added by the PR cites a flag, path or symbol the head does not have
#   wrong-default a doc line added by the PR claims a default the code does not have
#   parse-error   a source file the rules read (or a docs site's config) does not parse at head
#   vanished      a name the doc cites in code style (`PERF_ARGS`, an env var) that the rule's
#                 sources used in code at base and no longer use at head
# A docs site (a rule's `site:`):
#   nav           a navigation entry that reaches no page; a page no navigation entry reaches
#   redirect      a redirect to nowhere, chained, looping or hiding a live page; a moved page's
#                 old URL left without one; a `permanent` unlike the file's other redirects
#   link          a link in the docs that reaches no page or file
#   anchor        a link's or redirect's `#anchor` that no heading of its page has
# An audit:
#   unused-ignore a `docs-sync: ignore` comment in a page that suppresses no finding
# The config:
#   config        a file a rule lists by name that neither revision has (the rest is checked)
FindingKind = Literal[
    "removed", "renamed", "changed", "undocumented", "new-flag", "unresolved", "wrong-default", "parse-error",
    "vanished", "nav", "redirect", "link", "anchor", "unused-ignore", "config",
]  # fmt: skip


# "applied-option": a command's reference to an option of another module, resolved (and gone)
# before any check sees the facts (bot/core/extract/applied_options.py); "command-link" and
# "option-alias": what bot/core/extract/command_links.py joins across modules, gone likewise;
# "built-fields": a dataclass handed to a flag builder of another module, replaced by the flags it
# makes (bot/core/extract/field_builders.py); "runtime-root": a `tyro.cli` handed a type made at
# run time, which makes the rule's named classes its flags (bot/core/extract/runtime_root.py);
# "imported-rounds": a loop over another module's constant declaring flags, replaced by them
# (bot/core/extract/imported_values.py); "handed-parser": a subparser handed to another module's
# helper, whose flags then belong to that subcommand (bot/core/extract/handed_parsers.py);
# "option-record": calls of another module's option records (`_option_set.Option("-s", ...)`),
# replaced by the flags its parser makes of them (bot/core/extract/option_records.py)
FactKind = Literal[
    "flag",
    "symbol",
    "string",
    "key",
    "applied-option",
    "command-link",
    "option-alias",
    "built-fields",
    "runtime-root",
    "imported-rounds",
    "handed-parser",
    "option-record",
]


@dataclass(frozen=True)
class Fact:
    """One thing the code says that a doc page may cite.

    `token` is the fact as a doc writes it (`--no-keep-fp32-master`, `FSDPTrainRayActor`,
    `dp_shard`). `key` identifies the fact across revisions when its token changes: a flag's
    dest, a symbol's qualified name, a string's group. `attrs` holds what the doc may claim
    about it, as text: for flags `default`, `choices` (comma-separated), `type`, `action`,
    `sets` ("true"/"false" for boolean switches), `help`. A config key (`kind="key"`: a
    pydantic field or a key of a shipped config file, bot/core/extract/pydantic_keys.py and
    config_keys.py) is its dotted path (`optimizer.lr`) or, for a settings field, the
    environment variable that sets it (`APP_DATABASE_URL`, attribute `kind` "env"); its `key`
    is the field's path by name, so an alias or prefix changed is a rename.
    """

    kind: FactKind
    token: str
    key: str
    source: str  # id of the rule source that produced it
    path: str
    line: int
    attrs: tuple[tuple[str, str], ...] = ()
    group: str | None = None  # strings: the enumerated set this literal belongs to

    @classmethod
    def of(
        cls, kind: FactKind, token: str, key: str, source: str, path: str, line: int, attrs: Mapping[str, str]
    ) -> Fact:
        """A fact with `attrs` as an extractor collects them, kept sorted by name: facts that say
        the same things are equal whatever order the code (or the extractor) gave them in."""
        return cls(kind, token, key, source, path, line, tuple(sorted(attrs.items())))

    def attr(self, name: str) -> str | None:
        for k, v in self.attrs:
            if k == name:
                return v
        return None

    def with_attrs(self, attrs: Mapping[str, str]) -> Fact:
        """The fact with these attributes set, the others kept. Built directly rather than by
        dataclasses.replace, which costs a cold check of a large parser a few milliseconds per
        thousand flags in field lookups."""
        merged = tuple(sorted({**dict(self.attrs), **attrs}.items()))
        return Fact(self.kind, self.token, self.key, self.source, self.path, self.line, merged, self.group)


@dataclass(frozen=True)
class ParseError:
    """A source file that could not be read into facts."""

    path: str
    line: int
    message: str


@dataclass(frozen=True)
class Extraction:
    """What an extractor made of one file: its facts and what it could not read."""

    facts: tuple[Fact, ...]
    errors: tuple[ParseError, ...] = ()


@dataclass(frozen=True)
class CodeTokens:
    """The names one file uses in code (bot/core/extract/tokens.py). `error`: (line, message)
    when the file could not be read whole; its names are then incomplete and nothing may be
    concluded from their absence."""

    names: Mapping[str, int] = field(default_factory=dict)  # name -> first line using it
    env: frozenset[str] = frozenset()  # environment variables the file reads
    error: tuple[int, str] | None = None
    # Names written only inside string literals of code (a dict key, `env["PYTHONPATH"]`, a
    # command line built as text): a use at head, but no evidence of a name at base, where the
    # literal may be a value other checks own (a default, a choice).
    literals: frozenset[str] = frozenset()
    # Words shaped like environment variables that any string of the file writes (a help text
    # listing `PIPX_HOME`, which another module reads): the code knows of them.
    mentioned: frozenset[str] = frozenset()
    # Names the file only ever uses as another package's: imported by name from an absolute
    # module (`from transformers.modeling_outputs import ModelOutput`) or read as an attribute of
    # a module imported so (`nn.LayerNorm`). Name -> the top-level packages they come from
    # (space-separated); which of those are the repository's own is the reader's to decide.
    foreign: Mapping[str, str] = field(default_factory=dict)

    def uses(self, name: str) -> bool:
        return name in self.names or name in self.literals


@dataclass(frozen=True)
class Change:
    """One file the PR touches, as git (or GitHub's file list) names it."""

    status: Literal["added", "modified", "removed", "renamed"]
    path: str
    old_path: str | None = None  # for renamed


class Tree(Protocol):
    """A revision of the repository, read lazily. Implemented by the git and GitHub adapters."""

    def read(self, path: str) -> str | None: ...

    def blob_id(self, path: str) -> str | None: ...

    def exists(self, path: str) -> bool: ...

    def paths(self) -> frozenset[str]: ...


READ_AHEAD = 100  # files a read-ahead hint names at once: one GraphQL query's worth in the App


def read_ahead(tree: Tree, paths: Sequence[str]) -> None:
    """Tell a tree that reads over a network (the App's) which files come next, so they are
    fetched together rather than one query each; other trees have no such method."""
    prefetch = getattr(tree, "prefetch", None)
    if paths and callable(prefetch):
        prefetch(list(paths))


def reading(tree: Tree, paths: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    """Each path with its text, in order, told to the tree `READ_AHEAD` at a time: a scan of many
    files that stops early has asked for at most `READ_AHEAD` more than it read."""
    for start in range(0, len(paths), READ_AHEAD):
        chunk = paths[start : start + READ_AHEAD]
        read_ahead(tree, chunk)
        for path in chunk:
            yield path, tree.read(path)


class EmptyTree:
    """A revision with no files: the base of an audit (every line of every page is new), or a
    tree nothing is read from."""

    def read(self, path: str) -> str | None:
        return None

    def blob_id(self, path: str) -> str | None:
        return None

    def exists(self, path: str) -> bool:
        return False

    def paths(self) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True)
class DocLocation:
    """A line of a doc page, with the section it sits in."""

    path: str
    line: int
    section: str
    anchor: str


@dataclass(frozen=True)
class CodeLocation:
    """A line of a source file."""

    path: str
    line: int


@dataclass(frozen=True)
class Suggestion:
    """Lines of a page and the text that replaces them."""

    path: str
    start_line: int
    end_line: int
    replacement: str  # the new full text of lines start_line..end_line, no trailing newline


@dataclass(frozen=True)
class Finding:
    """One doc line a change made wrong (or one the doc never had right), and what to write."""

    kind: FindingKind
    severity: Severity
    symbol: str  # the token as the doc shows it
    message: str
    rule: str
    doc: DocLocation | None = None
    code: CodeLocation | None = None
    suggestion: Suggestion | None = None
    why: str = ""  # longer explanation, for `/docs-sync explain`
    blocking: bool = True  # the rule's `fail_on` says this finding fails the check

    def fingerprint(self) -> str:
        """Stable identity across re-runs: independent of line numbers that shift."""
        import hashlib

        doc = self.doc.path if self.doc else ""
        text = "\0".join((self.rule, self.kind, self.symbol, doc))
        return hashlib.sha1(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Report:
    """What one check or audit found, and the rules it ran."""

    findings: tuple[Finding, ...]
    # (finding, reason) pairs waived by `/docs-sync ignore`
    ignored: tuple[tuple[Finding, str], ...] = field(default=())
    rules_checked: tuple[str, ...] = ()

    def conclusion(self, fail_on: str | None = None) -> Literal["success", "neutral", "failure"]:
        """`fail_on` (error|warning|notice|never) overrides each rule's own `fail_on`."""
        if not self.findings:
            return "success"
        if fail_on is None:
            failing = any(f.blocking for f in self.findings)
        else:
            failing = fail_on != "never" and any(
                SEVERITY_RANK[f.severity] >= SEVERITY_RANK[fail_on] for f in self.findings
            )
        return "failure" if failing else "neutral"
