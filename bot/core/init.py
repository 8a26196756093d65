"""`docs-sync init`: a first `.github/docs-sync.yml` read off a repository revision.

It finds the repository's command-line parsers (modules calling `add_argument`, and dataclasses
whose fields a builder loop turns into flags), the pages that cite their flags, and writes one
rule coupling them, with globs where a folder holds several. A module counts when pages cite at
least two of its flags (`--help` and the like aside): a page citing `docker run --gpus` does
not make the repository's own `--gpus` its subject. A smaller parser counts when the page cites
all its flags and another parser of its folder counts, and so does one whose program a page's
command runs by name with a flag it takes (`python -m pkg.split --in x.json`, `--in` cut short
for `--in-file`). Pure: it reads the tree it is given.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from bot.core import decorated_clis, init_pairs, init_runtime, typed_clis
from bot.core.extract import parsed, walk
from bot.core.init_config import KeysPlan, plan_keys, rule_lines
from bot.core.model import Tree
from bot.core.packfiles import REPO_CONFIG
from bot.core.page import parse_doc
from bot.core.page_fences import run_folder

if TYPE_CHECKING:
    from bot.core.programs import Programs
from bot.core.rules import Source

# Flags every parser has or many tools share: citing them says nothing about which CLI a page is about.
COMMON_FLAGS = frozenset({"--help", "-h", "--version", "-V", "--verbose", "-v", "--quiet", "-q", "--debug"})
MIN_SHARED = 2  # distinct flags of one parser a page must cite
GLOB_AT = 2  # files in one folder (or of one name in sibling folders) written as a glob

_TEST_DIRS = frozenset(
    {"test", "tests", "testing", "benchmarks", "node_modules", "site-packages", "third_party"}
)
_NOT_PAGES: tuple[str, ...] = ("CHANGELOG", "CHANGES", "HISTORY", "LICENSE", "CODE_OF_CONDUCT", "SECURITY")
_NOT_PAGES += ("CONTRIBUTING", "RELEASE", "NEWS")  # release-notes.md: what a release changed, true then
# Dated writing: what a release or a post said then is not wrong now. Folders of any case
# (`CHANGELOG/2.1.0.md`).
_HISTORY_DIRS = frozenset(
    {
        *("_posts", "announce", "blog", "news", "changes", "changelog", "changelogs"),
        *("history", "releases", "release-notes"),
        # towncrier's news fragments: each says what one change did, for its release's notes
        *("changelog.d", "newsfragments", "news.d", "changes.d"),
        # enhancement proposals: what was proposed then, not what the code does now
        *("sep", "seps", "pep", "peps", "rfcs", "adr", "adrs", "proposals"),
    }
)
# Release notes, and pages about what was removed (they cite the flags a release took away).
_HISTORY_PAGES = (
    "CHANGELOG",
    "CHANGES",
    "HISTORY",
    "RELEASE",
    "NEWS",
    "DEPRECATION",
    "DEPRECATED",
    "MIGRATION",
)
# Markdown, MDX, Quarto and reStructuredText (bot/core/page.py reads each).
PAGE_SUFFIXES = (".md", ".mdx", ".qmd", ".rst", ".ipynb")
MAX_TEXT = 2_000_000  # a file larger than this is data, not a parser or a page


@dataclass(frozen=True)
class Parser:
    """A module whose flags a page may cite."""

    path: str
    kind: str  # argparse | dataclass-flags | hf-dataclass | tyro | jsonargparse | click | typer
    flags: frozenset[str]
    dataclass: str | None = None
    builder: str | None = None
    paths: tuple[str, ...] = ()  # typed parameters (bot/core/typed_clis.py): the files it spans
    names: tuple[str, ...] = ()  # and the classes and functions made into its flags
    programs: tuple[str, ...] = ()  # and the console scripts that run it unseen by the reach
    calls: tuple[str, ...] = ()  # argparse: the calls declaring its flags, when not add_argument
    separator: str = "-"  # tyro: how the pages spell its flags' words


@dataclass(frozen=True)
class Plan:
    """What init found: the parsers pages cite and the pages citing them."""

    parsers: tuple[Parser, ...]
    pages: tuple[str, ...]
    cited: dict[str, int]  # parser path -> how many pages cite it
    cites: dict[str, tuple[str, ...]] = field(default_factory=dict)  # page -> the parsers it cites
    decorated: frozenset[str] = frozenset()  # every module of a click or typer command line, cited or not


def plan(tree: Tree) -> Plan:
    from bot.core.programs import programs  # it reads the extractors' modules

    paths = sorted(tree.paths())
    found_programs = programs(tree)
    shipped = found_programs.scripts_parsers()  # a console script's modules, in `benchmarks/` too
    sources = [p for p in paths if _is_source(p) or p in shipped]
    cited, runs = _page_flags(tree, paths)
    parsers = list(_parsers(tree, sources))
    typed = typed_clis.found(tree, sources, MAX_TEXT)
    typed += init_runtime.found(tree, sources, {f for flags in cited.values() for f in flags}, MAX_TEXT)
    for cli in typed:
        parsers.append(
            Parser(
                cli.path,
                cli.kind,
                cli.flags,
                paths=cli.paths,
                names=cli.names,
                programs=cli.programs,
                separator=cli.separator,
            )
        )
    found = list(decorated_clis.parsers(tree, sources))
    parsers += [Parser(path, kind, flags, paths=tuple(sorted(spans))) for path, kind, flags, spans in found]
    by_flag: dict[str, list[Parser]] = defaultdict(list)
    for parser in parsers:
        for flag in parser.flags - COMMON_FLAGS:
            by_flag[flag].append(parser)
    pages: list[str] = []
    cited_by: Counter[str] = Counter()
    cites: dict[str, tuple[str, ...]] = {}
    for path, flags in cited.items():
        shared: Counter[str] = Counter()
        for flag in flags:
            for parser in by_flag.get(flag, ()):
                shared[parser.path] += 1
        hits = [p for p, n in shared.items() if n >= MIN_SHARED]
        hits += _whole_siblings(hits, shared, parsers)
        hits += _run_by_name(runs.get(path, ()), parsers, found_programs, hits)
        if hits:
            pages.append(path)
            cited_by.update(hits)
            cites[path] = tuple(sorted(hits))
    chosen = tuple(p for p in parsers if cited_by[p.path])
    return Plan(
        chosen, tuple(pages), dict(cited_by), cites, frozenset(x for _, _, _, spans in found for x in spans)
    )


def _page_flags(
    tree: Tree, paths: Sequence[str]
) -> tuple[dict[str, set[str]], dict[str, set[tuple[tuple[str, ...], str, str]]]]:
    """Page -> the flags it cites, for each page that may cite one; and page -> the flags its
    commands pass, each with the command's words before it and the folder it runs in."""
    out: dict[str, set[str]] = {}
    runs: dict[str, set[tuple[tuple[str, ...], str, str]]] = {}
    for path in (p for p in paths if _is_page(p)):
        text = tree.read(path)
        if text is None or len(text) > MAX_TEXT or "-" not in text:
            continue
        refs = [r for r in parse_doc(path, text).refs if r.kind == "flag"]
        out[path] = {r.token for r in refs}
        folder = posixpath.dirname(path)
        runs[path] = {
            (r.command, r.token, run_folder(folder, r.cwd, tree.exists))
            for r in refs
            if r.command and r.where == "fence"
        }
    return out, runs


def _run_by_name(
    runs: Iterable[tuple[tuple[str, ...], str, str]],
    parsers: Sequence[Parser],
    found: Programs,
    hits: Sequence[str],
) -> list[str]:
    """The parsers of the programs a page's commands run by name (`python -m pkg.data.split --in
    x.json --model-name m`, a console script of a click command line) and pass a flag they take,
    as written or, for argparse, cut short as it takes it (`--in` for `--in-file`): the page
    documents that command line, though it cites fewer of its flags than a page must cite by
    name alone."""
    by_path = {p.path: p for p in parsers}
    out: set[str] = set()
    owners: dict[tuple[tuple[str, ...], str], str | None] = {}
    for command, token, cwd in runs:  # cwd: the folder the command runs in
        if token in COMMON_FLAGS:
            continue
        if (command, cwd) not in owners:
            owners[command, cwd] = found.owner_of(command, cwd)
        owner = owners[command, cwd]
        if owner is None:
            continue
        taken = False
        for module in found.parsers(owner):
            parser = by_path.get(module)
            if parser is None:
                continue
            longer = {f for f in parser.flags if f.startswith(token) and f != token}
            prefix = token.startswith("--") and len(token) >= 4 and "=" not in token and len(longer) == 1
            prefix = prefix and parser.kind == "argparse"  # click and typer take no abbreviations
            if token in parser.flags or prefix:
                taken = True
                if module not in hits:
                    out.add(module)
        # The script run declares flags of its own besides those its helpers add (`train_db.py
        # --learning_rate 1e-6`, a flag of `library/train_util.py`): the page documents its
        # command line, its own flags too.
        if taken and owner in by_path and owner not in hits:
            out.add(owner)
    return sorted(out)


def _whole_siblings(hits: Sequence[str], shared: Counter[str], parsers: Sequence[Parser]) -> list[str]:
    """Parsers with fewer flags than a page must cite (`config update --config_file`), each of
    them cited, in the folder of a parser the page is about: the page documents that command
    line's subcommands one by one, the small ones too."""
    folders = {posixpath.dirname(h) for h in hits}
    return sorted(
        {
            p.path
            for p in parsers
            if p.path not in hits
            and 0 < shared[p.path] < MIN_SHARED
            and shared[p.path] == len(p.flags - COMMON_FLAGS)
            and posixpath.dirname(p.path) in folders
        }
    )


def config_for(tree: Tree, revision: str = "") -> str | None:
    """The config text for `tree` (`revision` names it in the header); None when no page cites
    the flags of any parser: a config that checks nothing would pass silently."""
    found = plan(tree)
    keys = plan_keys(tree, tree.paths(), _is_source, _is_page)  # bot/core/init_config.py
    if not found.parsers:
        return _keys_only(tree, keys, revision)
    # Folders of a page and its scripts each get their own check (bot/core/init_pairs.py).
    argparse_paths = {p.path for p in found.parsers if p.kind == "argparse"}
    paired = init_pairs.pairs(found.cites, argparse_paths)
    rest = [p for p in found.pages if not any(pair.takes(p) for pair in paired)]
    still = {q for p in rest for q in found.cites.get(p, ())}
    found = replace(
        found,
        pages=tuple(rest),
        parsers=tuple(
            p for p in found.parsers if p.path in still or not any(x.takes(p.path) for x in paired)
        ),
    )
    taken_ids = {"cli-docs"}
    pair_lines = init_pairs.rule_lines(paired, taken_ids, _quote)
    at = f" at {revision}" if revision else ""
    head = [
        f"# docs-sync configuration, written by `docs-sync init`{at}: the pages that cite the",
        "# flags of this repository's command-line parsers, checked against those parsers.",
        "# `docs-sync validate` checks this file; `docs-sync audit` lists what is stale today.",
    ]
    if not found.pages:
        keys_lines = rule_lines(keys, _grouped, _quote, _history_of(tree))
        return "\n".join([*head, "rules:", *pair_lines, *keys_lines, ""])
    lines = [*head, "rules:", "  - id: cli-docs", "    docs:"]
    for pattern, count in _grouped(found.pages, None, deep=True):
        excluded = _history(tree, pattern) if "*" in pattern else []
        excluded += _paired_pages(tree, pattern, paired)
        lines.append(f"      - path: {_quote(pattern)}{_coupled(tree, pattern, excluded, count)}")
        if excluded:
            why = (
                "changelogs, posts" if len(excluded) > len(_paired_pages(tree, pattern, paired)) else "paired"
            )
            lines.append(f"        exclude: [{', '.join(_quote(x) for x in excluded)}]  # {why}")
    lines.append("    sources:")
    # A dataclass-built parser is read as such; its builder's own add_argument calls are in it.
    built = {p.path for p in found.parsers if p.kind == "dataclass-flags"}
    argparse = [p.path for p in found.parsers if p.kind == "argparse" and p.path not in built]
    if argparse:
        lines += ["      - id: cli", "        kind: argparse"]
        calls = sorted({c for p in found.parsers if p.kind == "argparse" for c in p.calls})
        if calls:  # pytest's addoption
            lines.append(f"        calls: [{', '.join(calls)}]")
        lines.append("        paths:")
        lines += [_source_entry(tree, pattern, n) for pattern, n in _grouped(argparse, "py", deep=False)]
    taken: set[str] = set()
    for parser in found.parsers:
        if parser.kind != "dataclass-flags":
            continue
        source_id = _unique(_kebab(parser.dataclass or "fields"), taken)
        lines += [
            f"      - id: {source_id}",
            "        kind: dataclass-flags",
            f"        path: {_quote(parser.path)}",
            f"        dataclass: {parser.dataclass}",
        ]
        if parser.builder:
            lines.append(f"        builder: {parser.builder}")
    for parser in (p for p in found.parsers if p.kind in typed_clis.KINDS):
        lines += [f"      - id: {_unique(parser.kind, taken)}", f"        kind: {parser.kind}"]
        if parser.separator == "_":  # tyro takes `--a_b` for `--a-b`: the pages' spelling
            lines.append('        convention: {separator: "_"}')
        lines.append("        paths:")
        # A folder of them as a glob: a module added or deleted later needs no edit here.
        lines += [_source_entry(tree, p, n) for p, n in _grouped(parser.paths, "py", deep=False)]
        if parser.names:  # else the file's own builder call says what its flags are
            lines.append(f"        names: [{', '.join(_quote(n) for n in parser.names)}]")
        if parser.programs:  # console scripts that reach the builder through code we do not follow
            lines.append(f"        programs: [{', '.join(_quote(n) for n in parser.programs)}]")
    for kind in decorated_clis.KINDS:  # click, typer: the folders of each command line's modules
        decorated = [p for p in found.parsers if p.kind == kind]
        if decorated:
            lines += [
                f"      - id: {_unique(kind + '-cli', taken)}",
                f"        kind: {kind}",
                "        paths:",
            ]
            folders = _cli_folders(decorated, found.decorated)
            lines += [_source_entry(tree, x, n) for x, n in folders]
    lines += ["      - id: cited-paths", "        kind: paths", *pair_lines]
    lines += rule_lines(keys, _grouped, _quote, _history_of(tree))
    lines += [*(f"# {note}" for note in keys.unread), ""]
    return "\n".join(lines)


def _cli_folders(parsers: Sequence[Parser], modules: frozenset[str]) -> list[tuple[str, int]]:
    """The paths of a click or typer source: each command module, and each module it applies
    options from (pip-tools' `@options.upgrade`), as the glob of its folder when the folder holds
    another module of a command line, so a module added there later (`options.py`, a new
    subcommand's) is read without an edit; else the file."""
    spans = sorted({x for p in parsers for x in (p.path, *p.paths)})
    by_folder = Counter(posixpath.dirname(m) for m in modules | set(spans))
    out: dict[str, int] = {}
    for path in spans:
        folder = posixpath.dirname(path)
        entry = f"{folder}/*.py" if folder and by_folder[folder] > 1 else path
        out[entry] = out.get(entry, 0) + 1
    return list(out.items())


def _source_entry(tree: Tree, pattern: str, parsers: int) -> str:
    """A source's path or glob, a glob with what it matches today: a glob couples the modules
    added there later too."""
    entry = f"          - {_quote(pattern)}"
    if "*" not in pattern:
        return entry
    from bot.core.globs import compile_pattern

    matched = compile_pattern(pattern)
    total = sum(1 for p in tree.paths() if matched.matches(p))
    if total <= parsers:
        return f"{entry}  # {total} modules, each cited by the pages today"
    return f"{entry}  # {total} modules, {parsers} of them cited by the pages today"


def _paired_pages(tree: Tree, pattern: str, paired: Sequence[init_pairs.Pairs]) -> list[str]:
    """The pairing rules' pages a page glob takes in too, as patterns for its `exclude`: each page
    is checked by one rule."""
    if "*" not in pattern:
        return []
    from bot.core.globs import compile_pattern

    matched = compile_pattern(pattern)
    out = []
    for pair in paired:
        theirs = compile_pattern(f"{pair.parent}/*/{pair.page}")
        if any(matched.matches(p) and theirs.matches(p) for p in tree.paths()):
            out.append(f"{pair.parent}/*/{pair.page}")
    return out


def _coupled(tree: Tree, pattern: str, excluded: Sequence[str], citing: int) -> str:
    """The comment on a page glob: how many pages it couples, of which how many cite flags now
    (the others are checked too, for the paths and flags they will cite)."""
    if "*" not in pattern:
        return ""
    from bot.core.globs import compile_pattern

    out = [compile_pattern(x) for x in excluded]
    matched = compile_pattern(pattern)
    total = sum(
        1 for p in tree.paths() if matched.matches(p) and _is_page(p) and not any(x.matches(p) for x in out)
    )
    if total <= citing:
        return f"  # {citing} pages, each citing flags"
    return f"  # {total} pages, {citing} of them citing flags today"


def _keys_only(tree: Tree, keys: KeysPlan, revision: str) -> str | None:
    """The config of a repository whose pages cite config keys and no flags (None: neither)."""
    rules = rule_lines(keys, _grouped, _quote, _history_of(tree))
    if not rules:
        return None
    at = f" at {revision}" if revision else ""
    head = [
        f"# docs-sync configuration, written by `docs-sync init`{at}: the pages that cite the",
        "# keys of this repository's config models and shipped configs, checked against them.",
        "# `docs-sync validate` checks this file; `docs-sync audit` lists what is stale today.",
    ]
    return "\n".join([*head, "rules:", *rules, *(f"# {note}" for note in keys.unread), ""])


def not_read(tree: Tree) -> list[str]:
    """What init saw and cannot read, for the message of an init that writes nothing."""
    return list(plan_keys(tree, tree.paths(), _is_source, _is_page).unread)


# --- what is a parser, what is a page ------------------------------------------------------------


def _is_source(path: str) -> bool:
    if not path.endswith(".py"):
        return False
    parts = path.split("/")
    name = parts[-1]
    if any(p in _TEST_DIRS or p.startswith(".") for p in parts[:-1]):
        return False
    return not (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


def _is_page(path: str) -> bool:
    if not path.endswith(PAGE_SUFFIXES):
        return False
    parts = path.split("/")
    if any(p in _TEST_DIRS or p.lower() in _HISTORY_DIRS or p.startswith(".") for p in parts[:-1]):
        return False
    return not parts[-1].upper().startswith(_NOT_PAGES)


def _history_of(tree: Tree) -> Callable[[str], list[str]]:
    return lambda pattern: _history(tree, pattern)


def _history(tree: Tree, pattern: str) -> list[str]:
    """The pages a page glob takes in that are release notes, changelogs or dated posts, as
    patterns for its `exclude`: a folder of them as one."""
    from bot.core.globs import compile_pattern

    compiled = compile_pattern(pattern)
    out: list[str] = []
    for path in sorted(tree.paths()):
        if not compiled.matches(path):
            continue
        parts = path.split("/")
        dated = next((i for i, part in enumerate(parts[:-1]) if part.lower() in _HISTORY_DIRS), None)
        if dated is None and not parts[-1].upper().startswith(_HISTORY_PAGES):
            continue
        entry = "/".join(parts[: dated + 1]) + "/**" if dated is not None else path
        if entry not in out and not any(entry.startswith(x[:-2]) for x in out if x.endswith("/**")):
            out.append(entry)
    return out


def _parsers(tree: Tree, paths: Iterable[str]) -> Iterable[Parser]:
    from bot.core.extract import extract  # imported when init runs: the check alone never needs it
    from bot.core.extract.built_fields import BUILT
    from bot.core.extract.option_records import RECORD
    from bot.core.facts import file_facts

    for path in paths:
        text = tree.read(path)
        if text is None or len(text) > MAX_TEXT:
            continue
        # A module with no declaring call may hand a dataclass to a builder of another module,
        # or have a configuring file override its settings (`exec(open('configurator.py')...)`).
        declares = any(call in text for call in _DECLARING) or "configargparse" in text
        # ... or call another module's option records with option strings (`Option("-s", ...)`).
        cites = _OPTION_LITERAL.search(text) is not None
        if not declares and not cites and "dataclass" not in text and "exec(" not in text:
            continue
        named = tuple(c for c in _DECLARING if c + "(" in text)
        calls = ("add_argument", *named) if set(named) - {"add_argument"} else ()
        source = Source(id="cli", kind="argparse", paths=(path,), calls=calls)
        found = extract(source, path, text).facts
        if any(f.kind in (BUILT, RECORD) for f in found):
            # A dataclass handed to a builder of another module: the flags it makes of its fields;
            # option records another module's parser is made from: the flags it makes of them.
            found = tuple(file_facts(source, path, tree))
        flags = _flags(found)
        if flags:
            yield Parser(path, "argparse", flags, calls=calls)
        for cls, builder in _builders(path, text):
            source = Source(
                id="fields", kind="dataclass-flags", paths=(path,), dataclass=cls, builder=builder
            )
            fields = _flags(extract(source, path, text).facts)
            if fields:
                yield Parser(path, "dataclass-flags", fields, cls, builder)


# argparse's add_argument, and pytest's: its Parser and OptionGroup's `addoption(*opts, **attrs)`
# (`_addoption` for its own short options) hand argparse the same arguments; so do optparse's
# `add_option` and the option managers modelled on it (flake8's `add_option("--select", ...)`).
_DECLARING = ("add_argument", "addoption", "_addoption", "add_option")
_OPTION_LITERAL = re.compile(r"""["']--[A-Za-z]""")  # a long option string in quotes


def _flags(facts: Iterable[object]) -> frozenset[str]:
    return frozenset(getattr(f, "token", "") for f in facts if getattr(f, "kind", None) == "flag")


def _builders(path: str, text: str) -> list[tuple[str, str]]:
    """(dataclass, function) for each module-level function that loops over `fields(Cls)` and
    declares flags in the loop: the dataclass-built parsers."""
    if "fields(" not in text:
        return []
    try:
        module = parsed.module(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for fn in module.body:
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in walk.every(fn):
            if not (isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and node.iter.args):
                continue
            called, first = _dotted(node.iter.func), node.iter.args[0]
            if called not in ("fields", "dataclasses.fields") or not isinstance(first, ast.Name):
                continue
            if any(
                _dotted(c.func).endswith("add_argument") for c in walk.every(node) if isinstance(c, ast.Call)
            ):
                found.append((first.id, fn.name))
    return found


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


# --- writing it short ---------------------------------------------------------------------------


def _grouped(paths: Sequence[str], ext: str | None, deep: bool) -> list[tuple[str, int]]:
    """Paths, with GLOB_AT or more of them written as one glob; (pattern, how many it stands for).
    A glob names one extension: `ext`, or (None) each path's own, pages of each kind apart.

    `deep`: pages under one top folder become the glob of the folder they share (`docs/**/*.md`,
    a page tree). Otherwise only files side by side share a glob (`pkg/cli/*.py`): a package's
    whole tree would make every module a parser to read.
    """
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in paths:
        suffix = ext or path.rsplit(".", 1)[-1]
        if deep:
            groups[(path.split("/", 1)[0] if "/" in path else "", suffix)].append(path)
        else:
            groups[(posixpath.dirname(path), suffix)].append(path)
    out: list[tuple[str, int]] = []
    alone: list[str] = []
    for (key, suffix), members in sorted(groups.items()):
        if not key or len(members) < GLOB_AT:
            if deep:
                out += [(p, 1) for p in members]
            else:
                alone += members
            continue
        folder = posixpath.commonpath([posixpath.dirname(p) for p in members])
        flat = all(posixpath.dirname(p) == folder for p in members)
        out.append((f"{folder}/*.{suffix}" if flat else f"{folder}/**/*.{suffix}", len(members)))
    if deep:
        return out
    # Modules of one name in sibling folders (`rewards/sarm/compute.py`, `rewards/topreward/
    # compute.py`): one glob, which takes a sibling added later.
    siblings: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in alone:
        folder, name = posixpath.split(path)
        siblings[(posixpath.dirname(folder), name)].append(path)
    for (parent, name), members in sorted(siblings.items()):
        if len(members) >= GLOB_AT:
            out.append((f"{parent}/*/{name}" if parent else f"*/{name}", len(members)))
        else:
            out += [(p, 1) for p in members]
    return sorted(out)


def _quote(path: str) -> str:
    # YAML reads `*` and `{` at the start of a plain scalar as syntax: quote every pattern.
    return f'"{path}"' if any(c in path for c in "*?[]{}#:") else path


def _kebab(name: str) -> str:
    out = []
    for i, c in enumerate(name):
        if c.isupper() and i and not name[i - 1].isupper():
            out.append("-")
        out.append(c.lower())
    return "".join(out).replace("_", "-")


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while candidate in taken or candidate in ("cli", "cited-paths"):
        candidate, n = f"{name}-{n}", n + 1
    taken.add(candidate)
    return candidate


__all__ = ["REPO_CONFIG", "Parser", "Plan", "config_for", "plan"]
