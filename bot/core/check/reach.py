"""Which pages a change can make wrong, decided before any page is read.

A page the change did not edit can only be made wrong through what it cites: a fact whose token,
meaning or program changed (code -> doc), a set it lists that gained a member, a parser whose
flags it covers that gained one (undocumented, new-flag), a path the change moved or deleted, or
a name the change took out of the rule's sources (vanished).
`Reach` holds those tokens; a page whose index (`bot.core.pageindex.PageIndex`, kept by blob id)
shares none of them is neither read nor judged. So the cost of a check follows the change, not
the size of the docs tree.

The tokens are a superset, never a guess: a help text edited counts as a change to its flag. A
new flag (a new destination, not `--no-x` beside `--x`) reaches the pages citing its parser's
other flags, and every page when the rule says its pages list the parser in full.
Pages the change edited, and every page of an audit, are always read. A page not indexed yet
(a cold cache) is read but not parsed when its text lacks a word of each of the tokens, or its
words cannot make any of them (`bot.core.pageindex`): most pages of a large docs tree, on most
changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from bot.core.check.codenames import spellings
from bot.core.facts import Facts
from bot.core.model import Fact
from bot.core.pageindex import PageIndex, PageWords, may_write, written_words
from bot.core.rules import Rule


@dataclass(frozen=True)
class Reach:
    """What a change can make wrong in a page it did not edit."""

    tokens: frozenset[str]  # cited tokens through which the change can reach a page
    # When the rule checks the paths pages cite: the last parts of the files the change moved or
    # deleted and of the folders it left empty; a page citing one of those paths writes that part.
    paths: frozenset[str] = frozenset()
    every_page: bool = False  # a new flag of a parser the rule says its pages list in full

    def touches(self, index: PageIndex) -> bool:
        if self.every_page or (self.paths and index.paths):
            return True
        return not self.tokens.isdisjoint(index.tokens)

    @cached_property
    def _written(self) -> tuple[tuple[str, ...], ...]:
        return tuple(written_words(t) for t in self.paths | self.tokens)

    def may_write(self, lowered: str) -> bool:
        """Could a page of this lowercased text (not indexed yet) be touched? False, the answer
        for most pages, spares splitting it into words (`may_touch`)."""
        return self.every_page or may_write(lowered, self._written)

    def may_touch(self, words: PageWords) -> bool:
        """Could a page of these words (not indexed yet) be touched? False spares parsing it."""
        if self.every_page:
            return True
        could = words.citable()
        return any(map(could, self.paths)) or any(map(could, self.tokens))

    @classmethod
    def of(
        cls,
        rule: Rule,
        base: Facts,
        head: Facts,
        moved_or_deleted: Iterable[str] = (),
        vanished: Iterable[str] = (),
    ) -> Reach:
        """`moved_or_deleted`: the last parts of the paths the change moved or deleted (files, and
        folders it left empty); `vanished`: names the change took out of the rule's sources
        (codenames.py), a page citing one in any spelling is reached."""
        tokens, grown = _tokens(base, head)
        tokens.update(spelling for name in vanished for spelling in spellings(name))
        enumerated = {s.id for s in rule.sources if s.enumerated}
        cites_paths = any(s.kind == "paths" for s in rule.sources)
        paths = frozenset(moved_or_deleted) if cites_paths else frozenset()
        return cls(frozenset(tokens), paths, bool(grown & enumerated))


def _meaning(fact: Fact) -> tuple[object, ...]:
    # Everything but where the fact sits: a line moved by an edit above it changes no page.
    return (fact.kind, fact.key, fact.source, fact.attrs, fact.group)


def _tokens(base: Facts, head: Facts) -> tuple[set[str], set[str]]:
    """The tokens, and the sources that gained a flag (a new destination, not a new spelling)."""
    changed = {
        token
        for token in base.by_token.keys() | head.by_token.keys()
        if {_meaning(f) for f in base.by_token.get(token, ())}
        != {_meaning(f) for f in head.by_token.get(token, ())}
    }
    out = set(changed)
    base_keys = {(f.source, f.key) for f in base.flags()}
    grown: set[str] = set()  # sources with a flag that is new at head
    for token in changed:
        facts = [*base.by_token.get(token, ()), *head.by_token.get(token, ())]
        out.update(_names(facts))
        for fact in facts:
            if fact.group is not None:
                out.update(base.group(fact.group))  # a page listing the set's other members
            if (
                fact.kind == "flag"
                and token not in base.by_token
                and (fact.source, fact.key) not in base_keys
            ):
                grown.add(fact.source)
    if grown:
        out.update(f.token for f in base.flags() if f.source in grown)  # a page covering the parser
    return out, grown


def _names(facts: Iterable[Fact]) -> set[str]:
    """How a page may name these facts besides their tokens: a default claim names a flag by its
    destination (`keep_fp32_master=True`) or by one of its choices (`fsdp` is the default), a
    page setting it from the environment by the variable it reads, a config file by its key."""
    out: set[str] = set()
    for fact in facts:
        out.add(fact.key)
        if fact.kind == "flag":
            out.update(c for c in (fact.attr("choices") or "").split(",") if c)
            out.update(v for v in (fact.attr("envvar") or "").split(",") if v)  # `APP_HOST=x app`
            if fact.attr("configfile") and fact.token.startswith("--"):
                out.add(fact.token[2:])  # `expect-workers = 5` in a config file (flag_keys.py)
    return out
