"""The docs-site check: a site holds together when every navigation entry, redirect, link and
anchor reaches what it names.

`audit` lists what is broken at one revision. `check` lists what a change broke: the problems
of the head that the base did not have (a link the change did not touch but whose page it
deleted is the change's doing; a link that was already dead is not), and what only a change can
get wrong: a page deleted or moved without a redirect from its old URL, a redirect added unlike
the file's others. Where the change says what a fix is (git saw a page renamed, a heading was
retitled), the finding suggests it.

Every problem is first a `Problem` (where it is, what it is, how bad it can be); the rule then
gives it its severity, capped for advice: a page off the navigation or a `permanent` unlike the
others is a notice, a missing redirect, a chain or a redirect hiding a live page a warning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from bot.core.facts import ParseCache
from bot.core.model import SEVERITY_RANK, Change, DocLocation, Finding, Suggestion, Tree
from bot.core.rules import Rule, SiteTarget
from bot.core.site.change import missing_redirects, pages_to_check, permanence
from bot.core.site.model import SiteError
from bot.core.site.pages import Site, load, locate, read_config
from bot.core.site.problems import Moves, Past, Problem, orphans, problems, under, with_orphans

__all__ = ["site_audit", "site_check", "touches"]


def touches(target: SiteTarget, base: Tree, head: Tree, changes: Sequence[Change]) -> bool:
    """Did the change touch the site's config or anything under its docs root? (A rule whose
    site has no config at head is always checked: the check says so.)"""
    paths = Moves.of(changes).paths
    if locate(target, head) is None:
        return True
    for tree in (head, base):
        path = locate(target, tree)
        if path is None:
            continue
        if path in paths:
            return True
        try:
            config = read_config(path, tree.read(path) or "", target.root, tree.read)
        except SiteError:
            return True  # a config that does not read is reported by the check
        prefix = f"{config.root}/" if config.root else ""
        if set(config.files) & paths or any(p.startswith(prefix) for p in paths):
            return True
    return False


def site_check(
    rule: Rule, base: Tree, head: Tree, changes: Sequence[Change], cache: ParseCache | None = None
) -> list[Finding]:
    """What the change broke in the rule's docs site."""
    assert rule.site is not None
    moves = Moves.of(changes)
    try:
        now = load(rule.site, head, cache)
    except SiteError as e:
        path = locate(rule.site, head) or ""
        try:
            load(rule.site, base, cache)
        except SiteError:
            if path not in moves.paths:
                return []  # it did not read before the change either, and the change left it alone
        return [_unreadable(rule, path, e)]
    if now is None:
        return [_no_config(rule)]
    try:
        before = load(rule.site, base, cache)
    except SiteError:
        before = None
    past = Past(before, moves) if before is not None else None
    reread = pages_to_check(before, now, moves) if before is not None else None
    seen: set[tuple[str, str, str, str]] = set()
    carried: set[tuple[str, str, str, str]] = set()  # in pages the change deleted
    if before is not None:
        was = None if reread is None or past is None else {past.page_before(now, p) for p in reread}
        for p in [*problems(before, None, suggest=False, pages=was), *orphans(before)]:
            seen.add(p.identity(moves.renames.get(p.path, p.path)))
            if p.path in moves.removed:
                carried.add(p.identity(""))
    found = [
        p
        for p in with_orphans(problems(now, past, suggest=True, pages=reread), now)
        if p.identity() not in seen
        # a deleted page's text moved into a new one without git seeing a rename: its old
        # problems are not the change's
        and not (p.identity("") in carried and base.read(moves.old_path(p.path)) is None)
    ]
    if before is not None:
        found += missing_redirects(before, now, moves)
        found += permanence(now, before)
    return _emit(rule, now, found)


def site_audit(rule: Rule, tree: Tree, cache: ParseCache | None = None) -> list[Finding]:
    """Everything broken in the rule's docs site at one revision."""
    assert rule.site is not None
    try:
        site = load(rule.site, tree, cache)
    except SiteError as e:
        return [_unreadable(rule, locate(rule.site, tree) or "", e)]
    if site is None:
        return [_no_config(rule)]
    return _emit(
        rule, site, [*with_orphans(problems(site, None, suggest=True), site), *permanence(site, None)]
    )


def _emit(rule: Rule, site: Site, problems: Iterable[Problem]) -> list[Finding]:
    unique: dict[tuple[object, ...], Problem] = {}
    for p in problems:
        unique.setdefault((p.kind, p.path, p.line, p.symbol, p.detail), p)
    # Every finding on a page line suggests the line with all its fixes applied, so accepting any
    # one of them leaves the line right.
    edits: dict[tuple[str, int], list[tuple[int, str, str]]] = defaultdict(list)
    for p in unique.values():
        if p.edit is not None:
            edits[(p.path, p.line)].append(p.edit)
    findings = []
    for p in unique.values():
        severity = rule.severity.get(p.kind, "error")
        if p.cap is not None and SEVERITY_RANK[p.cap] < SEVERITY_RANK.get(severity, 3):
            severity = p.cap
        blocking = _blocking(rule, severity)
        suggestion = p.suggestion
        if p.edit is not None:
            suggestion = _line_edit(site, p.path, p.line, edits[(p.path, p.line)])
        findings.append(
            Finding(
                kind=p.kind,
                severity=severity,
                symbol=p.symbol,
                message=p.message,
                rule=rule.id,
                doc=_location(site, p),
                suggestion=suggestion,
                why=p.why,
                blocking=blocking,
            )
        )
    return sorted(findings, key=lambda f: (f.doc.path if f.doc else "", f.doc.line if f.doc else 0, f.symbol))


def _line_edit(site: Site, path: str, line: int, edits: list[tuple[int, str, str]]) -> Suggestion | None:
    page = under(site.config, path)
    lines = site.text(page).split("\n") if page is not None else []
    if not 0 < line <= len(lines):
        return None
    text = original = lines[line - 1]
    for col, old, new in sorted(set(edits), reverse=True):
        if text[col : col + len(old)] == old:
            text = text[:col] + new + text[col + len(old) :]
    return Suggestion(path, line, line, text) if text != original else None


def _location(site: Site, p: Problem) -> DocLocation:
    if p.path in site.config.files:
        return DocLocation(p.path, p.line, "navigation" if p.kind == "nav" else "redirects", "")
    page = under(site.config, p.path)
    if page is None or page not in site.pages:
        return DocLocation(p.path, p.line, "", "")
    section = site.doc(page).section_at(p.line)
    return DocLocation(p.path, p.line, section.path, section.anchor)


def _blocking(rule: Rule, severity: str) -> bool:
    """The rule's `fail_on` says this finding fails the check."""
    return rule.fail_on != "never" and SEVERITY_RANK.get(severity, 3) >= SEVERITY_RANK.get(rule.fail_on, 0)


def _no_config(rule: Rule) -> Finding:
    """A rule that turns the site check on for a site that is not there checks nothing: it says so."""
    assert rule.site is not None
    if rule.site.config:
        where = f"{rule.site.config}, which the rule names, does not exist"
    else:
        where = "no docs.json, mint.json or mkdocs.yml is at the root or in docs/ (`site: {config: ...}`)"
    severity = rule.severity.get("parse-error", "error")
    return Finding(
        kind="parse-error",
        severity=severity,
        symbol=rule.site.config or "site",
        message=f"rule {rule.id} checks a docs site, but {where}",
        rule=rule.id,
        blocking=_blocking(rule, severity),
    )


def _unreadable(rule: Rule, path: str, e: SiteError) -> Finding:
    severity = rule.severity.get("parse-error", "error")
    return Finding(
        kind="parse-error",
        severity=severity,
        symbol=path,
        message=f"the docs site config does not read: {e.message}",
        rule=rule.id,
        doc=DocLocation(e.file or path, max(e.line, 1), "", ""),
        blocking=_blocking(rule, severity),
    )
