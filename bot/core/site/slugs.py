"""The anchors a docs site gives a page's headings.

A link's `#fragment` has to match what the site renders, and each generator slugs differently:
GitHub (`page.github_anchor`, repeats get -1, -2), Mintlify (turns `.` into `-` and `'` into a
curly apostrophe, drops parentheses, keeps `/`, `&`, and, as its own docs link them, `:` and
`$`; repeats get -2, -3) and Python-Markdown's `toc`, which MkDocs uses (squeezes runs of
hyphens and spaces, repeats get _1, _2). What Mintlify does with other punctuation is not
documented, so a variant that drops it all is accepted too: a checker had better accept an
anchor the site may render than report one it does.

A heading may also name its own id (`## Title {#id}`), HTML in the page can carry ids
(`<a id="x">`, `<h2 id="x">`), and Mintlify's components make anchors of their own: an
`<Accordion>`, `<Tab>`, `<Step>` or `<Update>` from its title or label, a `<ParamField>` or
`<ResponseField>` as `param-<name>`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from bot.core.anchors import github_anchor, mintlify_slug
from bot.core.page import DocPage

# `## Title {#custom-id}` (Mintlify, attr_list) and `## Title {: #custom-id .class }` (attr_list).
_CUSTOM_ID = re.compile(r"\s*\{:?\s*#([^\s}]+)[^}]*\}\s*$")
_ID_ATTR = re.compile(r"""\bid\s*=\s*(?:\{\s*)?["']([^"'\s]+)["']""")
_TITLED = re.compile(r"""<(?:Accordion|Tab|Step|Update)\b[^>]*?\b(?:title|label)\s*=\s*["']([^"']+)["']""")
_PARAM = re.compile(
    r"""<(?:ParamField|ResponseField)\b[^>]*?\b(?:name|path|query|body|header)\s*=\s*["']([^"']+)["']"""
)


GITHUB, MINTLIFY, MINTLIFY_PLAIN, TOC, TOC_UNICODE = (
    "github",
    "mintlify",
    "mintlify-plain",
    "toc",
    "toc-unicode",
)


def toc_slug(title: str, unicode: bool = False) -> str:
    """Python-Markdown's `toc` slugify (MkDocs' default); `unicode` keeps non-ASCII letters, as
    `pymdownx.slugs.uslugify` does."""
    text = title
    if not unicode:
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _github_repeat(slug: str, n: int) -> str:
    return slug if n == 0 else f"{slug}-{n}"


def _mintlify_repeat(slug: str, n: int) -> str:
    return slug if n == 0 else f"{slug}-{n + 1}"


def _toc_repeat(slug: str, n: int) -> str:
    return slug if n == 0 else f"{slug}_{n}"


_STYLES: dict[str, tuple[Callable[[str], str], Callable[[str, int], str]]] = {
    GITHUB: (github_anchor, _github_repeat),
    MINTLIFY: (mintlify_slug, _mintlify_repeat),
    MINTLIFY_PLAIN: (lambda t: mintlify_slug(t, plain=True), _mintlify_repeat),
    TOC: (toc_slug, _toc_repeat),
    TOC_UNICODE: (lambda t: toc_slug(t, unicode=True), _toc_repeat),
}


@dataclass(frozen=True)
class Heading:
    """A heading of a page and the anchors each site style renders."""

    title: str  # without a custom id
    line: int
    level: int
    anchors: dict[str, str]  # style -> the anchor it renders; every style is the custom id when given


@dataclass(frozen=True)
class Anchors:
    """A page's headings and every anchor a link may use to reach a place in it."""

    headings: tuple[Heading, ...]
    ids: frozenset[str]  # ids written in HTML

    def has(self, anchor: str) -> bool:
        return anchor in self.all or anchor.lower() in self.lowered

    @cached_property
    def all(self) -> frozenset[str]:
        return frozenset(a for h in self.headings for a in h.anchors.values()) | self.ids

    @cached_property
    def lowered(self) -> frozenset[str]:
        return frozenset(a.lower() for a in self.all)

    def heading_of(self, anchor: str) -> tuple[int, str] | None:
        """The heading an anchor reaches and the style that made it."""
        for i, h in enumerate(self.headings):
            for style, a in h.anchors.items():
                if a == anchor or a.lower() == anchor.lower():
                    return i, style
        return None


def anchors(doc: DocPage, styles: tuple[str, ...]) -> Anchors:
    """The anchors of a parsed page in the given slug styles."""
    counts: dict[str, dict[str, int]] = {s: {} for s in styles}
    headings = []
    for section in doc.sections:
        if section.level == 0:
            continue
        title = section.title
        custom = _CUSTOM_ID.search(title)
        if custom:
            title = title[: custom.start()]
        made: dict[str, str] = {}
        for style in styles:
            slug_of, repeat = _STYLES[style]
            if custom:
                made[style] = custom.group(1)
                continue
            slug = slug_of(title)
            n = counts[style].get(slug, 0)
            counts[style][slug] = n + 1
            made[style] = repeat(slug, n)
        headings.append(Heading(title.strip(), section.line, section.level, made))
    ids = set(doc.anchors - {s.anchor for s in doc.sections})
    for line in doc.lines:
        if "id" in line:
            ids.update(_ID_ATTR.findall(line))
        if MINTLIFY in styles and "<" in line:
            for title in _TITLED.findall(line):
                ids.update(
                    (title, github_anchor(title), mintlify_slug(title), mintlify_slug(title, plain=True))
                )
            ids.update("param-" + mintlify_slug(name, plain=True) for name in _PARAM.findall(line))
    return Anchors(tuple(headings), frozenset(ids))
