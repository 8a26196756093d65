"""A config against a repository: every doc, source, glob and section a rule names must match
something at base or at head. A rule that reads nothing checks nothing, and says so nowhere:
a typo in a path would otherwise pass as "no findings".

Each problem is a RulesError naming the rules file, the line and the key it was written at.
A check is laxer about one kind (`stale_entries`): a file a rule lists by name that is gone at
both revisions (a script deleted by an earlier pull request), or an exclude whose pages all
went (a folder of proposals renamed), is a `config` finding on that entry, and the rest of the
rule is checked, as GitHub still applies a CODEOWNERS file's valid lines; every later pull
request is not an error until someone edits the config.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.core.globs import Listing, compile_pattern, is_pattern, pairing_names, pairings
from bot.core.model import SEVERITY_RANK, CodeLocation, Finding, Severity, Tree, read_ahead
from bot.core.rules import Origin, Other, Rule, RulesError
from bot.core.submodules import in_submodule, submodule_folders

if TYPE_CHECKING:
    from bot.core.facts import ParseCache

# The page parser (bot.core.page, through facts and doclines) loads only for a rule that names
# sections: it reads their headings.

STALE_SEVERITY: Severity = "warning"


def unmatched(
    rules: Iterable[Rule],
    base: Tree,
    head: Tree,
    renames: Mapping[str, str] | None = None,
    cache: ParseCache | None = None,
) -> list[RulesError]:
    """Every doc, source path, glob and section of `rules` that matches nothing."""
    listing = Listing(base, head, renames or {})
    problems: list[RulesError] = []
    for rule in rules:
        problems.extend(_rule(rule, listing, cache))
    return problems


def stale_entries(
    rules: Iterable[Rule],
    base: Tree,
    head: Tree,
    renames: Mapping[str, str] | None = None,
    existed: Callable[[str], bool] = lambda path: False,
) -> tuple[list[Rule], list[Finding]]:
    """The rules without the paths and globs they list that match nothing in either revision
    but that `existed` (in the history: files deleted, not a typo), and a `config` finding for
    each such entry. A rule left with no page, or a source with no file, is left out whole (and said so).
    (A `{name}` is read as `*`.) Sections and typos are not touched: `unmatched` judges what
    is left."""
    listing = Listing(base, head, renames or {})

    def gone(path: str) -> bool:
        plain = _any(path) if is_pattern(path) and compile_pattern(path).names else path
        return not listing.matches(plain) and existed(plain)

    def _stale(rule: Rule, origin: Origin | None, path: str, what: str) -> Finding:
        # .gitmodules is read only for an entry gone: in the App each read may be a request.
        fixed = path.split("*", 1)[0].split("{", 1)[0]
        folders = sorted(submodule_folders(head))
        folder = next((f for f in folders if in_submodule(fixed, frozenset({f}))), None)
        return _stale_entry(rule, origin, path, what, folder)

    kept: list[Rule] = []
    found: list[Finding] = []
    for rule in rules:
        if rule.site is not None:
            kept.append(rule)
            continue
        docs = []
        for d in rule.docs:
            if gone(d.path):
                found.append(_stale(rule, d.origin, d.path, "doc page"))
                continue
            # An exclude whose pages were all deleted or moved leaves nothing out: said, and
            # dropped, rather than failing every check after a docs folder is renamed.
            at: list[Origin | None] = list(d.exclude_origins) or [None] * len(d.exclude)
            kept_out = [(x, o) for x, o in zip(d.exclude, at, strict=True) if not gone(x)]
            for x, o in zip(d.exclude, at, strict=True):
                if (x, o) not in kept_out:
                    found.append(_config_finding(rule, o, x, _EXCLUDE_GONE.format(x=x, rule=rule.id)))
            if len(kept_out) < len(d.exclude):
                still = tuple(o for _, o in kept_out if o is not None) if d.exclude_origins else ()
                d = replace(d, exclude=tuple(x for x, _ in kept_out), exclude_origins=still)
            docs.append(d)
        sources = []
        for s in rule.sources:
            origins: list[Origin | None] = list(s.origins) or [None] * len(s.paths)
            paths = [(p, o) for p, o in zip(s.paths, origins, strict=True)]
            live = [(p, o) for p, o in paths if not gone(p)]
            for p, o in paths:
                if (p, o) not in live:
                    found.append(_stale(rule, o, p, f"`{s.id}` source"))
            if not s.paths or live:
                sources.append(
                    replace(
                        s,
                        paths=tuple(p for p, _ in live),
                        origins=tuple(o for _, o in live if o is not None) if s.origins else (),
                    )
                )
        if docs and (sources or not rule.sources):
            kept.append(replace(rule, docs=tuple(docs), sources=tuple(sources)))
    return kept, found


def unread_other(rule: Rule, other: Other, why: str) -> Finding:
    """The `config` finding on a rule's other project that could not be read: its flags are
    nobody's for this run, and it says so (a warning, at the entry's line)."""
    message = (
        f"other project {other.name} could not be read ({why}): its flags, subcommands and "
        "config keys are unknown to this run"
    )
    return _config_finding(rule, other.origin, other.name, message)


_EXCLUDE_GONE = (
    "exclude {x!r} matches no file now: what it left out was deleted or moved before this change; "
    "the rest of rule {rule!r} is checked; remove the entry (or point it at the pages' new place)"
)


def _stale_entry(rule: Rule, origin: Origin | None, path: str, what: str, submodule: str | None) -> Finding:
    if submodule is not None:
        message = (
            f"{what} {path!r} is now in the submodule {submodule!r}, another repository, which is not "
            f"read: the rest of rule {rule.id!r} is checked; remove the entry (or name that repository "
            "under `others`)"
        )
    else:
        message = (
            f"{what} {path!r} was deleted before this change: the rest of rule {rule.id!r} is "
            "checked; remove the entry (or point it at the file's new place)"
        )
    return _config_finding(rule, origin, path, message)


def _config_finding(rule: Rule, origin: Origin | None, symbol: str, message: str) -> Finding:
    where = origin or rule.origin
    if where is not None:
        message = f"{where.file}:{where.line}: {where.key}: {message}"
    blocking = rule.fail_on != "never" and SEVERITY_RANK[STALE_SEVERITY] >= SEVERITY_RANK[rule.fail_on]
    return Finding(
        kind="config",
        severity=STALE_SEVERITY,
        symbol=symbol,
        message=message,
        rule=rule.id,
        code=CodeLocation(where.file, where.line) if where is not None else None,
        blocking=blocking,
    )


def _rule(rule: Rule, listing: Listing, cache: ParseCache | None) -> list[RulesError]:
    problems = []
    names = pairing_names(rule)
    for d in rule.docs:
        pages = listing.matches(d.path if not _pairs(d.path) else _any(d.path))
        if not pages:
            problems.append(_error(d.origin, rule, "docs", _nothing(d.path, "doc page")))
        excluded: list[Origin | None] = list(d.exclude_origins) or [None] * len(d.exclude)
        for pattern, origin in zip(d.exclude, excluded, strict=True):
            if pages and not any(compile_pattern(pattern).matches(p) for p in pages):
                problem = f"exclude {pattern!r} matches none of the pages {d.path!r} matches"
                problems.append(_error(origin, rule, "docs", problem))
    for s in rule.sources:
        origins: list[Origin | None] = list(s.origins) or [None] * len(s.paths)
        for path, origin in zip(s.paths, origins, strict=True):
            if not listing.matches(path if not _pairs(path) else _any(path)):
                problems.append(_error(origin, rule, f"sources.{s.id}", _nothing(path, f"`{s.id}` source")))
    if names and not problems and not pairings(rule, listing):
        first = next(d for d in rule.docs if _pairs(d.path))
        problem = f"pairs nothing: no value of {_braced(names)} has a file for every path that uses it"
        problems.append(_error(first.origin, rule, "docs", problem))
    if not problems:
        problems.extend(_sections(rule, listing, cache))
    return problems


def _pairs(path: str) -> bool:
    return is_pattern(path) and bool(compile_pattern(path).names)


def _any(path: str) -> str:
    """A pairing path with each placeholder read as `*`: does it match anything on its own?"""
    compiled = compile_pattern(path)
    out = path
    for name in compiled.names:
        out = out.replace("{" + name + "}", "*")
    return out


def _nothing(path: str, what: str) -> str:
    if is_pattern(path):
        return f"pattern {path!r} matches no file at base or head"
    return f"{what} {path!r} is not in the repository at base or head"


def _sections(rule: Rule, listing: Listing, cache: ParseCache | None) -> list[RulesError]:
    """Each `sections` entry must name a heading of one of its pages (as a heading-path prefix)."""
    from bot.core.doclines import in_scope

    problems = []
    headings: dict[str, list[str]] = {}
    for d in rule.docs:
        if not d.sections:
            continue
        pages = [
            p
            for p in listing.matches(_any(d.path) if _pairs(d.path) else d.path)
            if not any(compile_pattern(x).matches(p) for x in d.exclude)
        ]
        read_ahead(listing.head, [p for p in pages if p not in headings])
        for page in pages:
            if page not in headings:
                headings[page] = _headings(page, listing, cache)
        seen = [h for page in pages for h in headings[page]]
        section_origins: list[Origin | None] = list(d.section_origins) or [None] * len(d.sections)
        for section, origin in zip(d.sections, section_origins, strict=True):
            if any(in_scope(h, [section]) for h in seen):
                continue
            near = _closest_heading(section, seen)
            hint = f" (did you mean {near!r}?)" if near else ""
            where = pages[0] if len(pages) == 1 else f"{len(pages)} pages of {d.path!r}"
            problem = f"section {section!r} matches no heading of {where}{hint}"
            problems.append(_error(origin, rule, "sections", problem))
    return problems


def _closest_heading(section: str, headings: list[str]) -> str | None:
    """A section is a heading path from the top (`Tool > Flags`); one written without its
    parents (`Flags`) is the likeliest mistake."""
    tails = [h for h in headings if h.endswith(" > " + section)]
    if tails:
        return min(tails, key=len)
    import difflib

    near = difflib.get_close_matches(section, headings, n=1)
    return near[0] if near else None


def _headings(path: str, listing: Listing, cache: ParseCache | None) -> list[str]:
    from bot.core.facts import parse_doc_cached

    for tree in (listing.head, listing.base):
        text = tree.read(path)
        if text is not None:
            doc = parse_doc_cached(path, text, tree.blob_id(path), cache)
            return [s.path for s in doc.sections if s.level > 0]
    return []


def _braced(names: tuple[str, ...]) -> str:
    return ", ".join("{" + n + "}" for n in names)


def _error(origin: Origin | None, rule: Rule, key: str, problem: str) -> RulesError:
    if origin is not None:
        return origin.error(problem)
    where = rule.origin
    if where is not None:
        return RulesError(where.file, where.line, f"{where.key}.{key}", problem)
    return RulesError("(rules)", None, f"rule {rule.id}: {key}", problem)
