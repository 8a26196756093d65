"""What only a change can get wrong in a docs site, and what it cannot have touched: pages it
deleted or moved whose old URL no redirect takes, redirects it added unlike the file's others
(`permanent`), and the pages whose links it can have broken at all.
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict

from bot.core.linediff import line_diff
from bot.core.site.edits import Editor
from bot.core.site.links import Link
from bot.core.site.pages import Site, route_key
from bot.core.site.problems import Moves, Problem, alike, under


def pages_to_check(before: Site, now: Site, moves: Moves) -> set[str] | None:
    """The pages whose links a change can have broken: the ones it edited, unless it removed or
    moved a file of the site, changed the config or what is published, or took a heading's
    anchor away: then any page's (None). Every other page reads the same at base and head, and
    so do its links' targets; reading it again would only find what was already there."""
    placed = [(p, under(before.config, p)) for p in moves.paths]
    if any(rel is not None for p, rel in placed if p in moves.removed or p in moves.renames):
        return None
    if {*before.config.files, *now.config.files} & moves.paths or any(
        rel is not None and rel.endswith(".mintignore") for _, rel in placed
    ):
        return None
    edited = {rel for p, rel in placed if rel is not None and rel in now.pages}
    for page in edited & before.pages:
        if before.anchors(page).all - now.anchors(page).all:
            return None
    return edited


def missing_redirects(before: Site, now: Site, moves: Moves) -> list[Problem]:
    """Pages the change deleted or moved whose old URL now leads nowhere; one suggestion adds a
    redirect for each."""
    if not now.config.can_redirect:
        return []
    entries: list[tuple[str, str, str, str]] = []  # (source, destination, old path, what happened)
    for repo in sorted(moves.removed | set(moves.renames)):
        page = under(before.config, repo)
        if page is None or page not in before.pages:
            continue
        url = before.url(page)
        if now.by_route.get(route_key(page)) is not None or now.redirect_of(url) is not None:
            continue  # the URL still reaches a page (x.md became x.mdx), or a redirect takes it
        new = under(now.config, moves.renames.get(repo, ""))
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
        head_page = under(now.config, moves.renames.get(repo, repo))
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
            best = max(by_line, key=lambda n: alike(text, new_lines[n - 1]), default=None)
            if best is None or alike(text, new_lines[best - 1]) < 0.6:
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
