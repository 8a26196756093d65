"""Rule packs: which doc pages are coupled to which code, read from `rules/*.yml`.

A pack file looks like this (see rules/miles.yml for a real one):

    pack: miles                      # must equal the file name without .yml
    description: ...
    rules:
      - id: fsdp-backend-page        # unique in the pack
        docs:
          - path: docs/user-guide/training-backend.md   # or a glob: docs/**/*.md
            sections: ["FSDP"]       # optional: heading-path prefixes; default: the whole page
            program: miles-train     # optional: the program whose flags its prose and tables cite
            exclude: ["docs/blog/**"]   # optional, with a glob: pages it matches that are not checked
        sources:
          - id: fsdp-args            # unique in the rule
            kind: dataclass-flags    # a source kind of bot/core/kinds.py: argparse, symbols, ...
            paths: [miles/backends/fsdp_utils/arguments.py]   # or `path: ...`; globs allowed
            programs: [miles-train]  # optional: the commands that run this parser
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
            names: [init, train]     # symbols, optional: only these names; pydantic: the models
                                     #   whose fields are the config's top-level keys
                                     # hf-dataclass | tyro | jsonargparse | fire, optional: the classes or
                                     #   functions whose parameters are flags (`model=LitModel`:
                                     #   under the group --model.); default: what the file parses
            enumerated: true         # the doc lists this set in full: a new member is a warning
          - id: launchers            # tokens: no facts; the names its files use in code (Python,
            kind: tokens             #   shell), so a page still citing one the change stopped
            paths: ["scripts/**"]    #   using in all of the rule's sources is told (`vanished`)
        external: ["--sglang-*", "<*>"]   # fnmatch patterns of tokens never reported
        others:                      # another project's parsers: the flags, subcommands and
          - repo: org/sister         #   config keys their files declare are a known other's,
            ref: v1.2.0              #   never unresolved (a tag or a commit; fetched, cached,
            paths: ["sister/cli/*.py"]   #   never run: bot/trees/others.py)
          - package: transformers    # an installed distribution's files (site-packages)
            paths: ["transformers/training_args.py"]   # optional for a package
        severity: {removed: error, undocumented: warning}   # per finding kind, overrides defaults
        fail_on: error               # error | warning | notice | never
        examples:                    # each becomes a test case
          - name: flag renamed
            files:                   # path -> {base, head}; a missing side means absent
              pkg/args.py: {base: "...", head: "..."}
              docs/page.md: {base: "..."}   # head defaults to base
            expect:                  # [] means "no finding"
              - {kind: renamed, symbol: --old, line: 3, replacement: "..."}
      - id: docs-site                # a rule may check a docs site instead (docs and sources
        site:                        # then optional): navigation, redirects, links, anchors
          config: docs/docs.json     # docs.json | mint.json | mkdocs.yml; default: the first
          root: docs                 #   at the root or in docs/; root: its folder or docs_dir

Paths in `docs` and `sources` may be globs, expanded against the repository at base and at head
(a file only at base still counts, so removing it is seen):

    *          any characters within one path segment      docs/*.md
    **         a whole segment: zero or more folders      docs/**/*.md, src/**/cli/*.py
    ?          one character within a segment
    [abc]      one of these characters ([!abc]: none of them)
    {name}     like `*` (at least one character), and pairs: a rule whose doc path and source
               path share `{name}` is checked as one rule per value, each page against its own
               source (`docs/models/{name}.md` with `scripts/run_{name}.py`; a page with no
               partner is left out). Every doc path that pairs uses the same names; a source
               path may use only those. A `{name}` is the only wildcard of its segment, and a
               path with one has at most one `**`.

A doc pattern's wildcards do not match into a release's frozen copy of the docs (`docs/v1.15.3/`,
`versioned_docs/`: bot/core/globs.py); a pattern naming the folder does.

A pattern has at most 16 wildcards (`*`, `**`, `{name}`) and 512 characters; matching takes
time linear in the path whatever the pattern (bot/core/globs.py), since a pull request can edit
the config that holds it.

Loading validates everything and raises RulesError naming file, line and key. Against a
repository (bot/core/validate.py), every doc, source, glob and section must match something:
a rule that reads nothing would check nothing, silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.core import kinds
from bot.core.model import Severity

SOURCE_KINDS: tuple[str, ...] = tuple(k.name for k in kinds.SOURCE_KINDS)

DEFAULT_SEVERITY: dict[str, Severity] = {k.name: k.severity for k in kinds.FINDING_KINDS}


class RulesError(ValueError):
    """A rules file that cannot be used; the message names file, line and key."""

    def __init__(self, file: str, line: int | None, key: str, problem: str):
        self.file, self.line, self.key, self.problem = file, line, key, problem
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {key}: {problem}")

    def __reduce__(self) -> tuple[type[RulesError], tuple[str, int | None, str, str]]:
        return RulesError, (self.file, self.line, self.key, self.problem)  # pickled to and from the sandbox


class RulesErrors(RulesError):
    """Every problem found in one file, in the order written, so one run reports them all; as a
    RulesError, it is the first of them."""

    problems: tuple[RulesError, ...]

    def __init__(self, problems: Sequence[RulesError]):
        flat = [q for p in problems for q in (p.problems if isinstance(p, RulesErrors) else (p,))]
        first = flat[0]
        super().__init__(first.file, first.line, first.key, first.problem)
        self.problems = tuple(flat)

    def __str__(self) -> str:
        return "\n".join(str(RulesError(p.file, p.line, p.key, p.problem)) for p in self.problems)

    def __reduce__(self) -> tuple[type[RulesErrors], tuple[tuple[RulesError, ...]]]:  # type: ignore[override]
        return RulesErrors, (self.problems,)


def raise_all(problems: Sequence[RulesError]) -> None:
    """Raise what was collected: nothing, the one problem, or all of them."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise RulesErrors(problems)


@dataclass(frozen=True)
class Origin:
    """Where a value was written: for errors about it that come after loading (a path that
    matches nothing in the repository).

    Origins stay out of equality and repr (compare=False, repr=False): a rule moved down its
    file is the same rule, and a source's repr is the cache key of its facts.
    """

    file: str
    line: int
    key: str  # dotted path in the file: rules[0].docs[1].path

    def error(self, problem: str) -> RulesError:
        return RulesError(self.file, self.line, self.key, problem)


@dataclass(frozen=True)
class Convention:
    """How a source's fields become flags: their prefix, word separator and switches."""

    prefix: str = "--"
    separator: str = "-"
    bool: str = "boolean-optional"  # boolean-optional | store-true


@dataclass(frozen=True)
class Source:
    """Code a rule reads facts from: an extractor kind and the files it reads."""

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
    programs: tuple[str, ...] = ()  # the commands that run this parser (`lm-eval`, `python -m pkg`)
    # where each of `paths` was written, in order (a glob's expansion shares its pattern's)
    origins: tuple[Origin, ...] = field(default=(), compare=False, repr=False)

    def origin_of(self, path: str) -> Origin | None:
        """Where `path` (one of `paths`) was written, when known."""
        for p, origin in zip(self.paths, self.origins, strict=False):
            if p == path:
                return origin
        return None


@dataclass(frozen=True)
class SiteTarget:
    """A rule's docs site: `site: {config: docs/docs.json, root: docs}`; both keys may be left
    out: the config is then the first docs.json, mint.json or mkdocs.yml at the root or in docs/,
    the root its folder (Mintlify) or its docs_dir (MkDocs)."""

    config: str | None = None
    root: str | None = None


@dataclass(frozen=True)
class DocTarget:
    """A doc page (or pattern of pages) a rule keeps honest, and the sections of it."""

    path: str
    sections: tuple[str, ...] = ()
    program: str | None = None  # the program whose flags the page's prose and tables cite
    origin: Origin | None = field(default=None, compare=False, repr=False)
    section_origins: tuple[Origin, ...] = field(default=(), compare=False, repr=False)
    exclude: tuple[str, ...] = ()  # globs of pages `path` matches that are not checked (release notes)
    exclude_origins: tuple[Origin, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Other:
    """Another project whose parsers a rule's pages cite: a sister repository's files at a tag or
    commit (`repo`, `ref`, `paths`), or an installed distribution's (`package`, optional
    `paths` inside it). What their files declare is a known other's (bot/core/others.py)."""

    repo: str | None = None  # owner/name on GitHub
    ref: str | None = None
    paths: tuple[str, ...] = ()
    package: str | None = None
    origin: Origin | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """How findings name it: `org/sister@v1.2.0`, `package transformers`."""
        return f"{self.repo}@{self.ref}" if self.repo else f"package {self.package}"


@dataclass(frozen=True)
class ExampleFile:
    """One file of an example, as the base and the head of its change have it."""

    base: str | None
    head: str | None


@dataclass(frozen=True)
class Expectation:
    """A finding an example says the check makes."""

    kind: str
    symbol: str | None = None
    line: int | None = None
    severity: str | None = None
    replacement: str | None = None


@dataclass(frozen=True)
class Example:
    """A change a rules file carries with the findings it must produce."""

    name: str
    files: dict[str, ExampleFile]
    expect: tuple[Expectation, ...]
    line: int  # where the example starts in the rules file, for test ids and errors


@dataclass(frozen=True)
class Rule:
    """Pages, the code they document, and what is checked between them."""

    id: str
    docs: tuple[DocTarget, ...]
    sources: tuple[Source, ...]
    external: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=lambda: dict(DEFAULT_SEVERITY))
    fail_on: str = "error"
    examples: tuple[Example, ...] = ()
    origin: Origin | None = field(default=None, compare=False, repr=False)
    site: SiteTarget | None = None  # check the docs site's navigation, redirects, links and anchors
    others: tuple[Other, ...] = ()  # other projects' parsers: what they declare is not nobody's

    def watched_paths(self) -> frozenset[str]:
        """Every file whose change can make this rule's docs wrong."""
        paths = {d.path for d in self.docs}
        for s in self.sources:
            paths.update(s.paths)
        return frozenset(paths)


@dataclass(frozen=True)
class RulePack:
    """The rules of one file: a pack or a repository's config."""

    pack: str
    file: str
    rules: tuple[Rule, ...]
    description: str = ""


# --- loading ---------------------------------------------------------------------------------------
#
# The YAML is composed into a node tree (SafeLoader, never constructed into Python objects) and the
# dataclasses are built from the nodes by hand, so every error can name the line it comes from.

MAX_RULES_BYTES = 1_000_000  # rules files come from untrusted repositories
MAX_OTHERS = 8  # other projects a rule reads: each is a fetch
MAX_NESTING = 32  # the schema itself is 8 levels deep

LEVELS = ("error", "warning", "notice")
FAIL_ON = (*LEVELS, "never")
BOOL_STYLES = ("boolean-optional", "store-true")
FINDING_KINDS = tuple(k.name for k in kinds.FINDING_KINDS)

PACK_KEYS = ("pack", "description", "rules")
CONFIG_KEYS = ("packs", "rules", "fail_on")
RULE_KEYS = ("id", "docs", "sources", "external", "severity", "fail_on", "examples", "site", "others")
OTHER_KEYS = ("repo", "ref", "paths", "package")
SITE_KEYS = ("config", "root")
DOC_KEYS = ("path", "sections", "program", "exclude")
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
    "programs",
)
CONVENTION_KEYS = ("prefix", "separator", "bool")
EXAMPLE_KEYS = ("name", "files", "expect")
EXAMPLE_FILE_KEYS = ("base", "head")
EXPECT_KEYS = ("kind", "symbol", "line", "severity", "replacement")

# Source keys that mean something for some kinds only (kinds.SOURCE_KINDS says which); elsewhere
# they are a mistake worth reporting.
SOURCE_KEY_KINDS: dict[str, tuple[str, ...]] = {
    key: tuple(k.name for k in kinds.SOURCE_KINDS if key in k.keys)
    for key in SOURCE_KEYS
    if key not in kinds.COMMON_SOURCE_KEYS
}


def too_large(file: str) -> RulesError:
    return RulesError(file, None, "file", f"larger than {MAX_RULES_BYTES} bytes; rules files must stay small")
