"""The anchor each page format gives a heading: the `#fragment` a link (or a finding's
section) uses to reach it.

- Markdown on GitHub: lowercase, punctuation but `-` and `_` dropped, spaces to `-`.
- MDX (Mintlify): `.` to `-`, `'` to a curly apostrophe, parentheses and brackets dropped,
  `/`, `&`, `:` and `$` kept (bot/core/site/slugs.py holds the variants a site may render).
- Quarto (Pandoc's auto identifiers): lowercase, everything but letters, digits, `_`, `-` and
  `.` dropped, spaces to `-`, nothing before the first letter; `{#sec-id}` names its own.
- reStructuredText (docutils' `make_id`, which Sphinx keeps): ASCII only, every run of other
  characters one `-`, no digits or `-` at the start.
"""

from __future__ import annotations

import re
import unicodedata

_MINTLIFY_DROPPED = re.compile(r"""[()\[\]{}<>?!,;"`*|]""")
_MINTLIFY_NOT_PLAIN = re.compile(r"[^\w\s\-\u2019/&]")
_NON_ID = re.compile(r"[^a-z0-9]+")
_ID_ENDS = re.compile(r"^[-0-9]+|-+$")
_DIGRAPHS = str.maketrans({"ß": "sz", "æ": "ae", "œ": "oe", "ȸ": "db", "ȹ": "qp"})
_CUSTOM_ID = re.compile(r"\s*\{:?\s*#([^\s}]+)[^}]*\}\s*$")


def github_anchor(title: str) -> str:
    """The slug GitHub gives a heading (without the -1, -2 suffix for repeats)."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def mintlify_slug(title: str, plain: bool = False) -> str:
    """Mintlify's generated id: lowercase, whitespace to `-`, `.` to `-`, `'` to `’`,
    parentheses dropped, `/`, `&`, `:` and `$` kept; `plain` drops all other punctuation."""
    text = title.strip().lower().replace("'", "\u2019").replace(".", "-")
    text = (_MINTLIFY_NOT_PLAIN if plain else _MINTLIFY_DROPPED).sub("", text)
    return re.sub(r"\s", "-", text)


def pandoc_id(title: str) -> str:
    """Pandoc's auto identifier (Quarto's headings); "section" when nothing is left."""
    text = re.sub(r"[^\w\s.-]", "", title.lower())
    text = re.sub(r"\s+", "-", text.strip())
    text = re.sub(r"^[^a-z]+", "", text)
    return text or "section"


def docutils_id(title: str) -> str:
    """docutils' `nodes.make_id`: the id of a reStructuredText section or target."""
    text = title.lower().translate(_DIGRAPHS)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _ID_ENDS.sub("", _NON_ID.sub("-", " ".join(text.split())))


def custom_id(title: str) -> tuple[str, str] | None:
    """(title without it, id) for a heading that names its own id: `## Title {#custom-id}`."""
    m = _CUSTOM_ID.search(title)
    return (title[: m.start()], m.group(1)) if m else None
