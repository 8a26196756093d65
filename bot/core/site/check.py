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

import difflib
import json
import posixpath
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bot.core.facts import ParseCache
from bot.core.linediff import line_diff
from bot.core.model import (
    SEVERITY_RANK,
    Change,
    DocLocation,
    Finding,
    FindingKind,
    Severity,
    Suggestion,
    Tree,
)
from bot.core.rules import Rule, SiteTarget
from bot.core.site.edits import Editor
from bot.core.site.ignore import ignored
from bot.core.site.links import Link, is_external
from bot.core.site.model import PAGE_SUFFIXES, Redirect, SiteConfig, SiteError
from bot.core.site.pages import Site, Target, load, locate, read_config, route_key

__all__ = ["site_audit", "site_check", "touches"]


@dataclass(frozen=True)
class Problem:
    kind: FindingKind
    path: str  # the file it sits in, from the repository root
    line: int
    symbol: str  # what the file says: the link, the entry, the redirect's source
    detail: str  # what is wrong with it, short: tells problems apart across revisions
    message: str
    cap: Severity | None = None  # advice: the most it is worth, whatever the rule says of its kind
    edit: tuple[int, str, str] | None = None  # on a page: (column, text there, its replacement)
    suggestion: Suggestion | None = None  # in the config: whole lines
    why: str = ""
    meant: str | None = None  # a nav entry to nowhere: the page it should name (not reported off-nav)

    def identity(self, path: str | None = None) -> tuple[str, str, str, str]:
        return (self.kind, self.path if path is None else path, self.symbol, self.detail)


@dataclass(frozen=True)
class Moves:
    """What a change did to files: renames (old -> new) and deletions."""

    renames: dict[str, str] = field(default_factory=dict)
    removed: frozenset[str] = frozenset()
    paths: frozenset[str] = frozenset()

    @classmethod
    def of(cls, changes: Sequence[Change]) -> Moves:
        renames = {c.old_path: c.path for c in changes if c.status == "renamed" and c.old_path}
        removed = frozenset(c.path for c in changes if c.status == "removed")
        return cls(renames, removed, frozenset(c.path for c in changes) | frozenset(renames))

    def old_path(self, path: str) -> str:
        return next((old for old, new in self.renames.items() if new == path), path)


@dataclass
class Past:
    """The base of a change, asked what the head's problems used to be."""

    site: Site
    moves: Moves

    def page_before(self, now: Site, page: str) -> str | None:
        """The base's name of a head page, under the base's docs root."""
        return _under(self.site.config, self.moves.old_path(now.repo_path(page)))

    def moved(self, now: Site, page: str) -> tuple[str, str | None] | None:
        """What the change did to a base page: ("moved", its head page) or ("deleted", None)."""
        repo = self.site.repo_path(page)
        if repo in self.moves.renames:
            new = _under(now.config, self.moves.renames[repo])
            return ("moved", new) if new in now.pages else ("deleted", None)
        if repo in self.moves.removed:
            return ("deleted", None)
        return None


# --- entry points -----------------------------------------------------------------------------


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
    reread = _pages_to_check(before, now, moves) if before is not None else None
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
        for p in _with_orphans(problems(now, past, suggest=True, pages=reread), now)
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
        rule, site, [*_with_orphans(problems(site, None, suggest=True), site), *permanence(site, None)]
    )


# --- problems at one revision -----------------------------------------------------------------


def problems(
    site: Site, past: Past | None, *, suggest: bool, pages: Iterable[str | None] | None = None
) -> list[Problem]:
    """Navigation entries, redirects and links (of `pages`, default every page) that do not
    reach what they name. With `suggest`, each says what it should be when that can be told
    (from the change, or a near match)."""
    editor = Editor(site.config, site.tree.read) if suggest else None
    out = nav_problems(site, past, editor)
    out += redirect_problems(site, past, editor)
    for page in sorted(site.pages if pages is None else {p for p in pages if p in site.pages}):
        out += link_problems(site, page, past, suggest)
    return out


def _pages_to_check(before: Site, now: Site, moves: Moves) -> set[str] | None:
    """The pages whose links a change can have broken: the ones it edited, unless it removed or
    moved a file of the site, changed the config or what is published, or took a heading's
    anchor away: then any page's (None). Every other page reads the same at base and head, and
    so do its links' targets; reading it again would only find what was already there."""
    under = [(p, _under(before.config, p)) for p in moves.paths]
    if any(rel is not None for p, rel in under if p in moves.removed or p in moves.renames):
        return None
    if {*before.config.files, *now.config.files} & moves.paths or any(
        rel is not None and rel.endswith(".mintignore") for _, rel in under
    ):
        return None
    edited = {rel for p, rel in under if rel is not None and rel in now.pages}
    for page in edited & before.pages:
        if before.anchors(page).all - now.anchors(page).all:
            return None
    return edited


def nav_problems(site: Site, past: Past | None, editor: Editor | None) -> list[Problem]:
    config = site.config
    out = []
    n = _navs(config)
    for entry in config.nav or ():
        if site.page_at(entry.target) is not None:
            continue
        message = f"navigation entry `{entry.target}` reaches no page under {config.root or 'the root'}"
        suggestion = None
        meant = None
        if editor is not None:
            fate = _fate(site, past, entry.target)
            if fate and fate[0] == "moved" and fate[1]:
                meant = fate[1]
                new = _nav_form(config, fate[1], entry.target)
                message += f": the change moved the page to {site.repo_path(fate[1])}"
                suggestion = editor.replace_value(
                    entry.file, entry.line, entry.target, new, lambda c: _navs(c) == n
                )
            elif fate:
                message += ": the change deleted the page"
                suggestion = _remove_nav(editor, entry.file, entry.line, entry.target, n)
            else:
                forms = {_nav_form(config, p, entry.target): p for p in site.pages}
                near = _closest(entry.target, list(forms))
                if near:
                    meant = forms[near]
                    suggestion = editor.replace_value(
                        entry.file, entry.line, entry.target, near, lambda c: _navs(c) == n
                    )
        out.append(
            Problem(
                "nav",
                entry.file,
                entry.line,
                entry.target,
                "missing",
                message,
                suggestion=suggestion,
                meant=meant,
            )
        )
    return out


def redirect_problems(site: Site, past: Past | None, editor: Editor | None) -> list[Problem]:
    config = site.config
    out = []
    count = len(config.redirects)
    for r in config.redirects:
        if not r.wildcard:
            live = site.page_at(r.source)
            if live is not None:
                suggestion = None
                if editor is not None:
                    suggestion = editor.remove(
                        r.file, r.line, r.end_line, lambda c: len(c.redirects) == count - 1
                    )
                message = (
                    f"redirect from `{r.source}` is stale: {site.repo_path(live)} is a live page at that "
                    "URL, and one of the two hides the other"
                )
                out.append(
                    Problem(
                        "redirect",
                        r.file,
                        r.source_line,
                        r.source,
                        "live",
                        message,
                        "warning",
                        suggestion=suggestion,
                    )
                )
        out += _destination(site, past, editor, r)
    return out


def _destination(site: Site, past: Past | None, editor: Editor | None, r: Redirect) -> list[Problem]:
    dest = r.destination
    if is_external(dest) or "*" in dest or ":" in dest.split("#", 1)[0]:
        return []
    target = site.resolve(dest)

    def replace(new: str) -> Suggestion | None:
        if editor is None:
            return None
        return editor.replace_value(
            r.file, r.destination_line, dest, new, lambda c: any(x.destination == new for x in c.redirects)
        )

    if target.status == "page" and target.page is not None:
        if not target.anchor or site.anchors(target.page).has(target.anchor):
            return []
        new_anchor, why = _anchor_fix(site, past, target.page, target.anchor, editor is not None)
        message = f"`#{target.anchor}` is no heading of {site.repo_path(target.page)}{why}"
        fixed = replace(dest.rsplit("#", 1)[0] + "#" + new_anchor) if new_anchor else None
        return [Problem("anchor", r.file, r.destination_line, dest, "anchor", message, suggestion=fixed)]
    if target.status == "redirected":
        hops = [r]
        current: Redirect | None = target.redirect
        final: Target = target
        while current is not None:
            if any(route_key(h.source) == route_key(current.source) for h in hops):
                loop = " -> ".join([*(h.source for h in hops), current.source])
                return [
                    Problem("redirect", r.file, r.source_line, r.source, "loop", f"redirect loop: {loop}")
                ]
            hops.append(current)
            final = (
                site.resolve(current.destination)
                if not is_external(current.destination)
                else Target("external")
            )
            current = final.redirect if final.status == "redirected" else None
        if final.status in ("page", "file", "external"):
            end = hops[-1].destination
            if "#" not in end and "#" in dest:
                end += "#" + dest.split("#", 1)[1]
            path = " -> ".join([*(h.source for h in hops), end])
            message = f"redirect chain of {len(hops)} hops: {path}; point `{r.source}` at `{end}`"
            line = r.destination_line
            return [
                Problem(
                    "redirect",
                    r.file,
                    line,
                    r.source,
                    "chain",
                    message,
                    "warning",
                    suggestion=replace(end),
                )
            ]
        target = final
    if target.status != "missing":
        return []
    message = f"redirect from `{r.source}` goes to `{dest}`, which reaches no page"
    suggestion = None
    if editor is not None:
        fate = _fate(site, past, dest.split("#", 1)[0])
        anchor = "#" + dest.split("#", 1)[1] if "#" in dest else ""
        if fate and fate[0] == "moved" and fate[1]:
            message += f": the change moved it to {site.repo_path(fate[1])}"
            suggestion = replace(site.url(fate[1]) + anchor)
        elif fate:
            message += ": the change deleted it"
        else:
            near = _closest(route_key(dest.split("#", 1)[0]), list(site.by_route))
            if near is not None and site.by_route[near]:
                suggestion = replace(site.url(site.by_route[near]) + anchor)
    return [
        Problem("redirect", r.file, r.destination_line, r.source, "missing", message, suggestion=suggestion)
    ]


def link_problems(site: Site, page: str, past: Past | None, suggest: bool) -> list[Problem]:
    out: list[Problem] = []
    path = site.repo_path(page)
    for link in site.links(page):
        target = site.resolve(link.target, page)
        if target.status == "page" and target.page is not None:
            if not target.anchor or site.anchors(target.page).has(target.anchor):
                continue
            new_anchor, why = _anchor_fix(site, past, target.page, target.anchor, suggest)
            where = "this page" if target.page == page else site.repo_path(target.page)
            message = f"`#{target.anchor}` is no heading of {where}{why}"
            fixed = link.target.rsplit("#", 1)[0] + "#" + new_anchor if new_anchor else None
            edit = (link.col, link.target, fixed) if fixed else None
            out.append(Problem("anchor", path, link.line, link.target, "anchor", message, edit=edit))
        elif target.status == "missing":
            if site.config.generated_pages and link.target.startswith("/"):
                continue  # the page may be one the OpenAPI spec makes
            out.append(_missing_link(site, page, link, past, suggest))
    return out


def _missing_link(site: Site, page: str, link: Link, past: Past | None, suggest: bool) -> Problem:
    message = f"`{link.target}` reaches no page or file of the site"
    edit = None
    if suggest and past is not None:
        before_page = past.page_before(site, page)
        was = past.site.resolve(link.target, before_page) if before_page is not None else None
        if was is not None and was.page is not None:
            fate = past.moved(site, was.page)
            if fate and fate[1]:
                message += f": the change moved {past.site.repo_path(was.page)} to {site.repo_path(fate[1])}"
                edit = (link.col, link.target, _rewrite(site, link.target, page, fate[1]))
            elif fate:
                message += f": the change deleted {past.site.repo_path(was.page)}"
    if suggest and edit is None and link.target.startswith("/"):
        near = _closest(route_key(link.target.split("#", 1)[0]), [k for k in site.by_route if k])
        if near is not None:
            edit = (link.col, link.target, _rewrite(site, link.target, page, site.by_route[near]))
    return Problem("link", site.repo_path(page), link.line, link.target, "missing", message, edit=edit)


def _anchor_fix(
    site: Site, past: Past | None, page: str, anchor: str, suggest: bool
) -> tuple[str | None, str]:
    """The anchor a broken one should be, and why: the retitled heading, else the nearest."""
    if past is not None:
        renamed = _renamed_anchor(site, past, page, anchor)
        if renamed is not None:
            return renamed[0], f": the change retitled the heading to “{renamed[1]}”"
    if suggest:
        return _closest(anchor, sorted(site.anchors(page).all), 0.7), ""
    return None, ""


def _renamed_anchor(site: Site, past: Past, page: str, anchor: str) -> tuple[str, str] | None:
    """The head anchor of the heading that had `anchor` at base, when the change retitled it."""
    before = past.page_before(site, page)
    if before is None or before not in past.site.pages:
        return None
    old, new = past.site.anchors(before), site.anchors(page)
    found = old.heading_of(anchor)
    if found is None:
        return None
    i, style = found
    old_titles = [h.title for h in old.headings]
    new_titles = [h.title for h in new.headings]
    matcher = difflib.SequenceMatcher(None, old_titles, new_titles, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if not i1 <= i < i2 or tag == "delete":
            continue
        if tag == "equal" or i2 - i1 == j2 - j1:
            j = j1 + i - i1
        else:
            j = max(range(j1, j2), key=lambda k: _alike(old_titles[i], new_titles[k]))
            if _alike(old_titles[i], new_titles[j]) < 0.5:
                return None
        heading = new.headings[j]
        made = heading.anchors.get(style)
        return (made, heading.title) if made and made != anchor else None
    return None


def _alike(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def _with_orphans(found: list[Problem], site: Site) -> list[Problem]:
    """The problems and the pages off the navigation, but for a page a broken entry meant to name:
    the entry's finding already says so."""
    meant = {p.meant for p in found}
    return found + [p for p in orphans(site) if _under(site.config, p.path) not in meant]


def orphans(site: Site) -> list[Problem]:
    """Published pages that no navigation entry reaches (none when the config writes no
    navigation, which lists every page)."""
    config = site.config
    if config.nav is None:
        return []
    reached = {site.page_at(e.target) for e in config.nav}
    out = []
    for page in sorted(site.pages - reached):
        if route_key(page) == "":
            continue  # the home page is reached from every page's header
        if config.kind == "mintlify" and (page.startswith("snippets/") or "/snippets/" in page):
            continue  # reusable snippets, imported by pages, never pages of their own
        if config.not_in_nav and ignored(page, config.not_in_nav):
            continue
        if site.redirect_of(site.url(page)) is not None:
            continue  # a redirect from it is reported as stale
        path = site.repo_path(page)
        message = "no navigation entry reaches this page: it is published, but only a link to it leads there"
        out.append(Problem("nav", path, 1, path, "orphan", message, "notice"))
    return out


# --- what only a change can get wrong ---------------------------------------------------------


def missing_redirects(before: Site, now: Site, moves: Moves) -> list[Problem]:
    """Pages the change deleted or moved whose old URL now leads nowhere; one suggestion adds a
    redirect for each."""
    if not now.config.can_redirect:
        return []
    entries: list[tuple[str, str, str, str]] = []  # (source, destination, old path, what happened)
    for repo in sorted(moves.removed | set(moves.renames)):
        page = _under(before.config, repo)
        if page is None or page not in before.pages:
            continue
        url = before.url(page)
        if now.by_route.get(route_key(page)) is not None or now.redirect_of(url) is not None:
            continue  # the URL still reaches a page (x.md became x.mdx), or a redirect takes it
        new = _under(now.config, moves.renames.get(repo, ""))
        if new is not None and new in now.pages:
            what = f"moved {repo} to {now.repo_path(new)}, and no redirect takes its old URL `{url}` there"
            entries.append((url, now.url(new), repo, what))
            continue
        dest, how = _repointed(before, now, moves, page) or _fallback(now, page)
        what = f"deleted {repo}, and no redirect takes its URL `{url}` anywhere (suggested: to {how})"
        entries.append((url, dest, repo, what))
    if not entries:
        return []
    values = {r.permanent for r in now.config.redirects}
    permanent = values.pop() if now.config.kind == "mintlify" and len(values) == 1 else None
    suggestion = Editor(now.config, now.tree.read).add_redirects(
        [(s, d) for s, d, _, _ in entries], permanent
    )
    file, line = now.config.redirects_at or (now.config.path, 1)
    if suggestion is not None:
        file, line = suggestion.path, suggestion.start_line
    out = []
    for source, _, _, what in entries:
        message = f"the change {what}"
        why = "Bookmarks, search engines and other sites keep the old URL; without a redirect it is a 404."
        out.append(
            Problem(
                "redirect",
                file,
                line,
                source,
                "unredirected",
                message,
                "warning",
                suggestion=suggestion,
                why=why,
            )
        )
    return out


def _repointed(before: Site, now: Site, moves: Moves, gone: str) -> tuple[str, str] | None:
    """Where the change repointed the links that led to a page it deleted: the destination most
    of them now reach."""
    votes: Counter[str] = Counter()
    for page in sorted(before.pages):
        repo = before.repo_path(page)
        if repo not in moves.paths:
            continue  # only a page the change edited can have had its links repointed
        old_links = [link for link in before.links(page) if before.resolve(link.target, page).page == gone]
        head_page = _under(now.config, moves.renames.get(repo, repo))
        if not old_links or head_page is None or head_page not in now.pages:
            continue
        old_lines = before.text(page).split("\n")
        new_lines = now.text(head_page).split("\n")
        rewritten = line_diff(before.text(page), now.text(head_page)).changed_head_lines
        by_line: dict[int, list[Link]] = defaultdict(list)
        for link in now.links(head_page):
            if link.line in rewritten:
                by_line[link.line].append(link)
        for link in old_links:
            # The line the change made of it: the most alike of the lines it rewrote.
            text = old_lines[link.line - 1]
            best = max(by_line, key=lambda n: _alike(text, new_lines[n - 1]), default=None)
            if best is None or _alike(text, new_lines[best - 1]) < 0.6:
                continue
            there = {before.resolve(x.target, page).page for x in before.links(page) if x.line == link.line}
            for new in by_line[best]:
                target = now.resolve(new.target, head_page)
                if target.status != "page" or target.page is None or target.page in there:
                    continue  # not a page, or one the line already linked to
                anchor = (
                    target.anchor if target.anchor and now.anchors(target.page).has(target.anchor) else ""
                )
                votes[now.url(target.page) + (f"#{anchor}" if anchor else "")] += 1
    if not votes:
        return None
    dest = votes.most_common(1)[0][0]
    return dest, f"`{dest}`, where the change repointed its links"


def _fallback(now: Site, gone: str) -> tuple[str, str]:
    """The nearest section page above a deleted page, else the home page."""
    parts = posixpath.dirname(gone).split("/") if posixpath.dirname(gone) else []
    while parts:
        page = now.by_route.get("/".join(parts))
        if page is not None:
            return now.url(page), f"`{now.url(page)}`, the nearest section page"
        parts.pop()
    home = now.by_route.get("")
    dest = now.url(home) if home is not None else "/"
    return dest, f"`{dest}`, the home page"


def permanence(now: Site, before: Site | None) -> list[Problem]:
    """Mintlify redirects whose `permanent` differs from the file's others: in a change, the
    redirects it added against the base's common value; in an audit, against the majority."""
    config = now.config
    if config.kind != "mintlify" or not config.redirects:
        return []
    if before is None:
        counts = Counter(r.permanent for r in config.redirects)
        value, n = counts.most_common(1)[0]
        if n * 2 <= len(config.redirects):
            return []
        odd = [r for r in config.redirects if r.permanent is not value]
        others = "most of the file's redirects"
    else:
        old = {r.source: r for r in before.config.redirects}
        values = {r.permanent for r in old.values()}
        if len(values) != 1:
            return []
        value = values.pop()
        odd = [r for r in config.redirects if r.source not in old and r.permanent is not value]
        others = "the file's other redirects"
    editor = Editor(config, now.tree.read)
    out = []
    for r in odd:
        suggestion = editor.set_permanent(r, value)
        message = (
            f"redirect from `{r.source}` {_says(r.permanent, True)} while {others} {_says(value, False)}"
        )
        why = (
            "Mintlify redirects are permanent (308) unless `permanent` is false; writing every entry "
            "the same way keeps the file's intent readable."
        )
        line = suggestion.start_line if suggestion else r.line
        out.append(
            Problem(
                "redirect",
                r.file,
                line,
                r.source,
                "permanent",
                message,
                "notice",
                suggestion=suggestion,
                why=why,
            )
        )
    return out


def _says(value: bool | None, one: bool) -> str:
    if value is None:
        return "leaves out `permanent`" if one else "leave it out"
    verb = "says" if one else "say"
    return f'{verb} `"permanent": {"true" if value else "false"}`'


# --- findings ---------------------------------------------------------------------------------


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
                severity=severity,  # type: ignore[arg-type]  # the rule file admits only the three levels
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
    page = _under(site.config, path)
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
    page = _under(site.config, p.path)
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
        severity=severity,  # type: ignore[arg-type]  # the rule file admits only the three levels
        symbol=rule.site.config or "site",
        message=f"rule {rule.id} checks a docs site, but {where}",
        rule=rule.id,
        blocking=_blocking(rule, severity),
    )


def _unreadable(rule: Rule, path: str, e: SiteError) -> Finding:
    severity = rule.severity.get("parse-error", "error")
    return Finding(
        kind="parse-error",
        severity=severity,  # type: ignore[arg-type]  # the rule file admits only the three levels
        symbol=path,
        message=f"the docs site config does not read: {e.message}",
        rule=rule.id,
        doc=DocLocation(e.file or path, max(e.line, 1), "", ""),
        blocking=_blocking(rule, severity),
    )


# --- helpers ----------------------------------------------------------------------------------


def _under(config: SiteConfig, repo: str) -> str | None:
    """A repository path as a path under the docs root, or None when it is outside."""
    if not repo:
        return None
    if not config.root:
        return repo
    prefix = config.root + "/"
    return repo[len(prefix) :] if repo.startswith(prefix) else None


def _fate(site: Site, past: Past | None, target: str) -> tuple[str, str | None] | None:
    """What the change did to the page a config value named at base."""
    if past is None:
        return None
    page = past.site.page_at(target)
    return past.moved(site, page) if page is not None else None


def _nav_form(config: SiteConfig, page: str, like: str) -> str:
    """A page as the navigation names it, the way `like` is written."""
    if config.kind == "mkdocs" or like.endswith(PAGE_SUFFIXES):
        return page
    return page.rsplit(".", 1)[0]


def _navs(config: SiteConfig) -> int:
    return len(config.nav or ())


def _remove_nav(editor: Editor, file: str, line: int, target: str, n: int) -> Suggestion | None:
    """The entry's line deleted, when the line holds only that entry."""
    lines = editor.lines(file)
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    if file.endswith(".json"):
        alone = text.rstrip(",") == json.dumps(target)
    else:
        alone = text.startswith("- ") and text.endswith(target)
    return editor.remove(file, line, line, lambda c: _navs(c) == n - 1) if alone else None


def _closest(word: str, candidates: Sequence[str], cutoff: float = 0.8) -> str | None:
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=cutoff)
    return found[0] if found else None


def _rewrite(site: Site, target: str, from_page: str, new_page: str) -> str:
    """A link to another page, written the way `target` was (absolute or relative, with or
    without the extension), keeping its anchor."""
    path, sep, anchor = target.partition("#")
    if path.startswith("/"):
        new = "/" + (new_page if path.endswith(PAGE_SUFFIXES) else route_key(new_page))
        if site.config.kind == "mkdocs" and path.endswith("/") and new != "/":
            new += "/"
    else:
        folder = posixpath.dirname(from_page) or "."
        keep = path.endswith(PAGE_SUFFIXES) or site.config.kind == "mkdocs"
        new = posixpath.relpath(new_page if keep else new_page.rsplit(".", 1)[0], folder)
        if path.startswith("./") and not new.startswith("../"):
            new = "./" + new
    return new + sep + anchor
