"""A docs site's configuration as the check reads it: its navigation, its redirects, where its
pages live. Read from Mintlify's `docs.json` (or the older `mint.json`) or MkDocs' `mkdocs.yml`;
every entry keeps the file and line it is written on, because findings and suggested edits go
there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SiteKind = Literal["mintlify", "mkdocs"]

MAX_CONFIG_BYTES = 5_000_000  # a site config comes from the repository under check
PAGE_SUFFIXES = (".md", ".mdx")


class SiteError(ValueError):
    """A site config that cannot be read: the message says why, `line` where (0: unknown) and
    `file` in which file, when not the config itself."""

    def __init__(self, line: int, message: str, file: str = ""):
        self.line, self.message, self.file = line, message, file
        super().__init__(f"line {line}: {message}" if line else message)


@dataclass(frozen=True)
class NavEntry:
    """A page the navigation lists, as written: `user-guide/usage` (Mintlify, no extension) or
    `user-guide/usage.md` (MkDocs, a file under the docs root)."""

    target: str
    line: int
    file: str  # the file it is written in: the config, or one its `$ref`s name


@dataclass(frozen=True)
class Redirect:
    """An entry of a site's redirects."""

    source: str  # `/old/path` (Mintlify) or `old.md` (MkDocs, a file under the docs root)
    destination: str  # the same forms, optionally with `#anchor`, or a full URL
    permanent: bool | None  # Mintlify's `permanent`; None when the entry does not say
    line: int  # first line of the entry
    end_line: int  # last line of the entry
    source_line: int
    destination_line: int
    file: str  # the file it is written in: the config, or one its `$ref`s name

    @property
    def wildcard(self) -> bool:
        """A pattern (`/beta/:slug*`, `/articles/concepts-*`) rather than one URL."""
        return "*" in self.source or ":" in self.source


@dataclass(frozen=True)
class SiteConfig:
    """A docs site's config: its pages' folder, navigation and redirects."""

    kind: SiteKind
    path: str  # the config file, from the repository root
    root: str  # the folder of the pages, from the repository root ("" for the root itself)
    nav: tuple[NavEntry, ...] | None  # None: no navigation written, every page is listed (MkDocs)
    redirects: tuple[Redirect, ...]
    redirects_at: tuple[str, int] | None  # (file, line) opening the redirect list, when there is one
    can_redirect: bool  # Mintlify always; MkDocs with the redirects plugin
    generated_pages: bool  # the config makes pages no file holds (an OpenAPI spec)
    slug_styles: tuple[str, ...]
    not_in_nav: tuple[str, ...] = ()  # gitignore-style patterns of pages meant to be off the nav
    exclude: tuple[str, ...] = ()  # gitignore-style patterns of files that are not published
    files: tuple[str, ...] = ()  # the config and the files its `$ref`s name (Mintlify)

    def page_file(self, rel: str) -> str:
        """The repository path of a file under the docs root."""
        return f"{self.root}/{rel}" if self.root else rel
