"""What a page cites, kept by blob id, so that a check knows without reading a page that a change
cannot make it wrong (bot/core/check/reach.py, bot/core/check/codenames.py).

A page is parsed for its index only when the caller could want it: a page not indexed yet is read
for its words (`PageWords`), and one whose words cannot make any token the caller looks for is not
parsed; its words are kept instead, so the next check need not read it either. On a cold check of
a large docs tree most pages stop there. Before its words, the text itself is asked whether it
holds every word of some sought token at all (a substring search, a tenth of the cost of the
words): most pages fail that, and only their lowercased text is kept, for the next check's
search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.core import lazyre
from bot.core.blobcache import cached
from bot.core.facts import PAGE_FORMAT, ParseCache, parse_doc_cached
from bot.core.model import Tree
from bot.core.page import DocPage


@dataclass(frozen=True)
class PageIndex:
    """Every reference's token and value, every claim's subject and value, every option the page
    writes in plain text (a change removing one may make that line wrong)."""

    tokens: frozenset[str]
    paths: bool  # does it cite a repository path (or a module `python -m` runs)


def page_index(doc: DocPage) -> PageIndex:
    tokens = {r.token for r in doc.refs} | {r.value for r in doc.refs if r.value}
    tokens |= {c.subject for c in doc.claims if c.subject} | {c.value for c in doc.claims}
    tokens |= {m.token for m in doc.mentions}
    return PageIndex(frozenset(tokens), any(r.kind in ("path", "module") for r in doc.refs))


# Runs of ASCII letters, digits and `_`: the names a page writes, and the stuff of its words.
_RUN = lazyre.compile(r"[A-Za-z0-9_]+")
# Words an index may hold that the page need not write: the normal forms claims give a default
# (`on` is `True`, `1e-4` is `0.0001`, sizes in bytes; bot/core/doclines.py).
_NORMAL_WORD = lazyre.compile(r"true|false|none|inf|nan|[0-9]+e?[0-9]*|e[0-9]+")


# What may join the parts of an index's token that the page wrote apart: a YAML key under
# another is `optimizer.lr`, a path resolves from the page's folder. Only `-` and `_` (and case)
# join the words of one part, and the page writes those words in a row.
_PART_BREAK = lazyre.compile(r"[^A-Za-z0-9_-]+")
_TAG = lazyre.compile(r"<[^<>\n]{0,200}>")  # an inline HTML tag


def _words(runs: frozenset[str] | list[str]) -> set[str]:
    return {w for run in runs for w in run.lower().split("_") if w}


# The words of the runs: what `_` separates in them, in the order the text writes them.
_WORD = lazyre.compile(r"[A-Za-z0-9]+")


def _sequence(text: str) -> list[str]:
    """The words of this text in order, lowercased, normal forms left out (an index may hold them
    unwritten). Each distinct word is matched against the normal forms once: a page repeats most."""
    words = [w.lower() for w in _WORD.findall(text)]
    normal = {w for w in set(words) if _NORMAL_WORD.fullmatch(w)}
    return [w for w in words if w not in normal] if normal else words


def written_words(token: str) -> tuple[str, ...]:
    """The words a page writes, in some case, wherever it cites `token`: all of the token's but
    the normal forms, which an index may hold unwritten."""
    return tuple(sorted(w for w in _words(_RUN.findall(token)) if not _NORMAL_WORD.fullmatch(w)))


def may_write(lowered: str, sought: Iterable[tuple[str, ...]]) -> bool:
    """Does the lowercased text hold every word of one of the `sought` word lists (each
    `written_words` of a token)? False is a promise that `PageWords.citable` is false for each of
    those tokens: every word of the page is a run's part, so a substring of the text."""
    return any(all(w in lowered for w in words) for words in sought)


@dataclass(frozen=True)
class PageText:
    """The lowercased text of a page that was not split into words: what the next check searches."""

    lowered: str


def _pairs(words: list[str]) -> set[str]:
    return {f"{a} {b}" for a, b in zip(words, words[1:], strict=False)}


@dataclass(frozen=True)
class PageWords:
    """The runs of letters, digits and `_` of a page that was not parsed, and which of its words
    it writes one after the other."""

    runs: frozenset[str]
    pairs: frozenset[str] = frozenset()  # "a b": word `b` follows word `a` somewhere on the page

    @classmethod
    def of(cls, text: str) -> PageWords:
        pairs = _pairs(_sequence(text))
        # With inline tags and without: `<model_id>` is a placeholder, `<wbr>` splits no name.
        if _TAG.search(text):
            pairs |= _pairs(_sequence(_TAG.sub(" ", text)))
        return cls(frozenset(_RUN.findall(text)), frozenset(pairs))

    def names(self, wanted: frozenset[str]) -> bool:
        """Does the page write any of these code names? A code span holds a name as written."""
        return not wanted.isdisjoint(self.runs)

    def citable(self) -> Callable[[str], bool]:
        """Can the page's index hold a token? Every word of a token a page cites is one of the
        page's words, in any case and between any separators (`lr:` under `optimizer:` in a YAML
        block is `optimizer.lr`, `--max-steps` may be `max_steps:`), or a normal form; and the
        words of each part of it (between separators other than `-` and `_`) follow each other
        on the page. False is a promise: tests/core/test_page_words.py holds every index of its
        corpus to it."""
        words = _words(self.runs)
        pairs = self.pairs

        def could(token: str) -> bool:
            if not all(w in words or _NORMAL_WORD.fullmatch(w) for w in _words(_RUN.findall(token))):
                return False
            return all(pairs.issuperset(_pairs(_sequence(part))) for part in _PART_BREAK.split(token))

        return could


def page_index_cached(
    path: str,
    tree: Tree,
    cache: ParseCache | None,
    wanted: Callable[[PageWords], bool] | None = None,
    written: Callable[[str], bool] | None = None,
) -> PageIndex | None:
    """The index of the page at `path` (None: no such page); a kept one costs no read. With
    `wanted`, a page not indexed yet that `wanted` rejects by its words is not parsed: None, as
    for no page, and its words are kept for the next check. `written` is asked first, of the
    lowercased text: False (which must imply that `wanted` would reject its words) is None, and
    that text is kept instead."""
    blob = tree.blob_id(path)
    if blob is None:
        return None
    key = f"{PAGE_FORMAT}:index:{blob}:{path}"
    words_key = f"{PAGE_FORMAT}:words:{blob}:{path}"
    if cache is not None:
        hit = cache.get(key)
        if isinstance(hit, PageIndex):
            return hit
        kept = cache.get(words_key)
        if written is not None and isinstance(kept, PageText) and not written(kept.lowered):
            return None
        if wanted is not None and isinstance(kept, PageWords) and not wanted(kept):
            return None

    def index() -> PageIndex | None:
        text = tree.read(path)
        if text is None:
            return None
        if written is not None and not written(lowered := text.lower()):
            if cache is not None:
                cache[words_key] = PageText(lowered)
            return None
        if wanted is not None and not wanted(words := PageWords.of(text)):
            if cache is not None:
                cache[words_key] = words
            return None
        return page_index(parse_doc_cached(path, text, blob, cache))

    return cached(cache, key, PageIndex, index)
