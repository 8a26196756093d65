"""A docs site at one revision: which config it has, which files are its pages, the URL that
reaches each page, and where a link, a navigation entry or a redirect lands.

A page's URL is its path under the docs root without the extension, `index` standing for its
folder: `user-guide/usage.md` is `/user-guide/usage`, `user-guide/index.md` is `/user-guide`
(a "route" below is that URL without its slashes). Mintlify names pages by route everywhere;
MkDocs' navigation and redirects name files (`user-guide/usage.md`) and its links are files
relative to the page, resolved the way `mkdocs build` resolves them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import unquote

from bot.core.facts import ParseCache, parse_doc_cached
from bot.core.model import Tree
from bot.core.page import DocPage
from bot.core.rules import SiteTarget
from bot.core.site import ignore, links, mintlify
from bot.core.site.model import PAGE_SUFFIXES, Redirect, SiteConfig, SiteError
from bot.core.site.slugs import Anchors, anchors

# `import Setup from '/snippets/setup.mdx'` in an MDX page, shown as `<Setup />`.
_IMPORT = re.compile(r"""^\s*import\s+(\w+)\s+from\s+["']([^"']+\.mdx?)["']""", re.MULTILINE)
CANDIDATES = (
    "docs.json", "mint.json", "mkdocs.yml", "mkdocs.yaml",
    "docs/docs.json", "docs/mint.json", "docs/mkdocs.yml", "docs/mkdocs.yaml",
)  # fmt: skip


def locate(target: SiteTarget, tree: Tree) -> str | None:
    """The site config a rule names, or the first of the usual places that holds one."""
    if target.config:
        return target.config if tree.exists(target.config) else None
    return next((c for c in CANDIDATES if tree.exists(c)), None)


def read_config(
    path: str, text: str, root: str | None, load: Callable[[str], str | None] | None = None
) -> SiteConfig:
    """Raises SiteError for a config that cannot be read; `load` reads the files a Mintlify
    config's `$ref`s name."""
    if path.endswith((".yml", ".yaml")):
        from bot.core.site import mkdocs  # YAML is loaded only for an MkDocs site

        return mkdocs.read(text, path, root)
    return mintlify.read(text, path, root, load)


def route_key(target: str) -> str:
    """`/user-guide/usage/`, `user-guide/usage.md` and `user-guide/usage/index` all name the
    route `user-guide/usage`; the site's home is ``. (MkDocs also serves a folder's README.md
    as its index: `Site` adds those.)"""
    s = target.strip().strip("/")
    for suffix in (".mdx", ".md", ".html"):
        if s.endswith(suffix):
            s = s[: -len(suffix)]
            break
    parts = s.split("/") if s else []
    if parts and parts[-1] == "index":
        parts.pop()
    return "/".join(parts)


@dataclass(frozen=True)
class Target:
    """Where a link or entry lands."""

    status: Literal["page", "file", "redirected", "outside", "missing", "external", "unknown"]
    page: str | None = None  # the page, under the docs root
    anchor: str = ""  # the `#fragment`, decoded
    path: str = ""  # what was looked up: under the docs root, or from the repository root when outside
    redirect: Redirect | None = None  # `redirected`: the redirect that catches it


class Site:
    """The site at one revision. Pages are parsed only when their anchors are asked for."""

    def __init__(self, config: SiteConfig, tree: Tree, cache: ParseCache | None = None):
        self.config = config
        self.tree = tree
        self.cache = cache
        prefix = f"{config.root}/" if config.root else ""
        if config.kind == "mintlify":
            mintignore = tree.read(config.page_file(".mintignore")) or ""
            self.ignored = (*ignore.MINTLIFY_DEFAULTS, *_lines(mintignore))
        else:
            self.ignored = (*ignore.MKDOCS_DEFAULTS, *config.exclude)
        self.files = frozenset(p[len(prefix) :] for p in tree.paths() if p.startswith(prefix))
        self.folders = frozenset(posixpath.dirname(f) for f in self.files) - {""}
        self.folders |= frozenset(posixpath.dirname(f) for f in self.folders) - {""}
        self.pages = frozenset(f for f in self.files if f.endswith(PAGE_SUFFIXES) and not self.excluded(f))
        self.by_route: dict[str, str] = {}
        for page in sorted(self.pages, key=lambda p: (p.endswith(".md"), p)):  # .mdx wins a tie
            self.by_route.setdefault(route_key(page), page)
        if config.kind == "mkdocs":
            for page in sorted(p for p in self.pages if posixpath.basename(p) == "README.md"):
                self.by_route.setdefault(posixpath.dirname(page), page)  # when there is no index.md
        self._sources = {route_key(r.source): r for r in config.redirects if not r.wildcard}
        self._patterns = [(r, _Wildcard(r.source)) for r in config.redirects if r.wildcard]
        self._anchors: dict[str, Anchors] = {}
        self._links: dict[str, list[links.Link]] = {}

    def excluded(self, rel: str) -> bool:
        """A file the site does not publish."""
        return ignore.ignored(rel, self.ignored)

    # -- pages --

    def repo_path(self, page: str) -> str:
        return self.config.page_file(page)

    def text(self, page: str) -> str:
        return self.tree.read(self.repo_path(page)) or ""

    def doc(self, page: str) -> DocPage:
        path = self.repo_path(page)
        return parse_doc_cached(path, self.text(page), self.tree.blob_id(path), self.cache)

    def anchors(self, page: str) -> Anchors:
        """The page's anchors, and under Mintlify those of the snippets it imports and shows."""
        if page not in self._anchors:
            self._anchors[page] = anchors(self.doc(page), self.config.slug_styles)  # before: cycles
            text = self.text(page)
            if self.config.kind == "mintlify" and "import" in text:
                shown: set[str] = set()
                for name, target in _IMPORT.findall(text):
                    rel = posixpath.normpath(
                        target.lstrip("/")
                        if target.startswith("/")
                        else posixpath.join(posixpath.dirname(page), target)
                    )
                    if f"<{name}" in text and rel in self.files and rel != page:
                        shown |= self.anchors(rel).all
                if shown:
                    own = self._anchors[page]
                    self._anchors[page] = replace(own, ids=own.ids | shown)
        return self._anchors[page]

    def links(self, page: str) -> list[links.Link]:
        if page not in self._links:
            self._links[page] = links.scan(self.text(page))
        return self._links[page]

    def url(self, page: str) -> str:
        """How the config names a page: `/user-guide/usage` (Mintlify) or the file (MkDocs)."""
        return "/" + route_key(page) if self.config.kind == "mintlify" else page

    # -- resolving --

    def page_at(self, target: str) -> str | None:
        """The page a navigation entry, a redirect's source or a destination's path names."""
        rel = posixpath.normpath(unquote(target).strip().lstrip("/"))
        rel = "" if rel == "." else rel
        if rel in self.pages:
            return rel
        if self.config.kind == "mkdocs" and rel.endswith(PAGE_SUFFIXES):
            return None  # MkDocs names files: `x.md` is x.md, never x/index.md
        return self.by_route.get(route_key(rel))

    def redirect_of(self, target: str) -> Redirect | None:
        """The redirect whose source catches a URL or file, if any."""
        key = route_key(unquote(target).split("#", 1)[0])
        if key in self._sources:
            return self._sources[key]
        for redirect, pattern in self._patterns:
            if pattern.fullmatch("/" + key):
                return redirect
        return None

    def resolve(self, target: str, from_page: str | None = None) -> Target:
        """Where a link on `from_page` lands; `from_page` None: a destination in the config."""
        if links.is_external(target):
            return Target("external")
        if "{" in target or "$" in target:
            return Target("unknown")  # a templated link: its value is not in the page
        path, _, anchor = target.partition("#")
        path = unquote(path.split("?", 1)[0])
        anchor = unquote(anchor)
        if not path:
            return Target("page", from_page, anchor) if from_page else Target("unknown")
        if path.startswith("/"):
            rel = posixpath.normpath(path.lstrip("/")) if path.strip("/") else ""
        else:
            folder = posixpath.dirname(from_page) if from_page else ""
            rel = posixpath.normpath(posixpath.join(folder, path))
            if rel == ".." or rel.startswith("../"):
                return self._outside(rel)
        rel = "" if rel == "." else rel
        if rel in self.pages:
            return Target("page", rel, anchor, rel)
        if rel in self.files:
            # A page file the site does not publish (README.md under Mintlify) is not there.
            return Target("missing" if rel.endswith(PAGE_SUFFIXES) else "file", None, anchor, rel)
        mkdocs_file = self.config.kind == "mkdocs" and rel.endswith(PAGE_SUFFIXES)
        page = None if mkdocs_file else self.by_route.get(route_key(rel))
        if page is not None:
            return Target("page", page, anchor, rel)
        if rel in self.folders:
            return Target("file", None, anchor, rel)
        if self.config.kind == "mintlify" or from_page is None:
            redirect = self.redirect_of(rel)
            if redirect is not None:
                return Target("redirected", None, anchor, rel, redirect)
        return Target("missing", None, anchor, rel)

    def _outside(self, rel: str) -> Target:
        """A relative link out of the docs root: a file of the repository (GitHub shows it)."""
        repo = posixpath.normpath(posixpath.join(self.config.root, rel)) if self.config.root else rel
        if repo == ".." or repo.startswith("../"):
            return Target("unknown", path=repo)  # out of the repository: not ours to judge
        return Target("outside" if self.tree.exists(repo) else "missing", path=repo)


def load(target: SiteTarget, tree: Tree, cache: ParseCache | None = None) -> Site | None:
    """The site a rule names at one revision; None when the revision has no site config.
    Raises SiteError (with the config's path as `path`) when the config cannot be read."""
    path = locate(target, tree)
    if path is None:
        return None
    text = tree.read(path)
    if text is None:
        return None
    return Site(read_config(path, text, target.root, tree.read), tree, cache)


def _lines(text: str) -> list[str]:
    stripped = (line.strip() for line in text.splitlines())
    return [line for line in stripped if line and not line.startswith("#")]


class _Wildcard:
    """Mintlify's source patterns: `:name*` and `*` match the rest, `:name` one segment.

    Matched by following every way through the pattern at once (a set of positions in it, one
    step a character), never by backtracking: the config is the pull request's, and a regex of
    `/:a*/:b*/:c*/...` takes time exponential in its wildcards on a route that almost matches.
    """

    _ONE, _SEGMENT, _REST = "\x00one", "\x00segment", "\x00rest"  # besides single characters

    def __init__(self, source: str):
        tokens: list[str] = []
        for part in re.split(r"(:\w+\*?|\*)", "/" + source.strip("/")):
            if part == "*" or (part.startswith(":") and part.endswith("*")):
                tokens.append(self._REST)
            elif part.startswith(":"):
                tokens += [self._ONE, self._SEGMENT]  # at least one character, no `/`
            else:
                tokens += list(part)
        while len(tokens) > 1 and tokens[-1] == "/":
            tokens.pop()  # as a route is written: no trailing slash
        self.tokens = tokens

    def _closure(self, states: set[int]) -> set[int]:
        out, todo = set(states), list(states)
        while todo:
            i = todo.pop()
            if i < len(self.tokens) and self.tokens[i] in (self._SEGMENT, self._REST) and i + 1 not in out:
                out.add(i + 1)
                todo.append(i + 1)
        return out

    def fullmatch(self, text: str) -> bool:
        tokens = self.tokens
        states = self._closure({0})
        for ch in text:
            step = set()
            for i in states:
                if i == len(tokens):
                    continue
                token = tokens[i]
                if token == self._REST or (token == self._SEGMENT and ch != "/"):
                    step.add(i)
                elif (token == self._ONE and ch != "/") or token == ch:
                    step.add(i + 1)
            if not step:
                return False
            states = self._closure(step)
        return len(tokens) in states


__all__ = ["Site", "SiteError", "Target", "load", "locate", "read_config", "route_key"]
