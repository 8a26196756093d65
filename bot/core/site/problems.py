"""What does not reach what it names in a docs site at one revision: navigation entries,
redirects (to nowhere, chained, looping, hiding a live page), links and anchors of the pages,
and pages off the navigation. Each is a `Problem`: where it is, what it is, how bad it can be.

Given the base of a change (`Past`), a problem also says what the change did (moved or deleted
the page, retitled the heading) and suggests the fix that follows from it; otherwise a near
match, when there is one.
"""

from __future__ import annotations

import difflib
import json
import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bot.core.model import Change, FindingKind, Severity, Suggestion
from bot.core.site.edits import Editor
from bot.core.site.ignore import ignored
from bot.core.site.links import Link, is_external
from bot.core.site.model import PAGE_SUFFIXES, Redirect, SiteConfig
from bot.core.site.pages import Site, Target, route_key


@dataclass(frozen=True)
class Problem:
    """Something wrong with a docs site, in the file that has it."""

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
        return under(self.site.config, self.moves.old_path(now.repo_path(page)))

    def moved(self, now: Site, page: str) -> tuple[str, str | None] | None:
        """What the change did to a base page: ("moved", its head page) or ("deleted", None)."""
        repo = self.site.repo_path(page)
        if repo in self.moves.renames:
            new = under(now.config, self.moves.renames[repo])
            return ("moved", new) if new in now.pages else ("deleted", None)
        if repo in self.moves.removed:
            return ("deleted", None)
        return None


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
            j = max(range(j1, j2), key=lambda k: alike(old_titles[i], new_titles[k]))
            if alike(old_titles[i], new_titles[j]) < 0.5:
                return None
        heading = new.headings[j]
        made = heading.anchors.get(style)
        return (made, heading.title) if made and made != anchor else None
    return None


def alike(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def with_orphans(found: list[Problem], site: Site) -> list[Problem]:
    """The problems and the pages off the navigation, but for a page a broken entry meant to name:
    the entry's finding already says so."""
    meant = {p.meant for p in found}
    return found + [p for p in orphans(site) if under(site.config, p.path) not in meant]


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


def under(config: SiteConfig, repo: str) -> str | None:
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
