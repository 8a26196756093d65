"""New facts a page does not mention: a new member of a set the page lists (`undocumented`), and
a new flag of a source whose flags the page documents in good part, or declared between two
flags one table or bullet list of the page holds (`new-flag`).

A rename's new name is not new: it is reported as the rename. Where the page lists the new
fact's siblings, the finding sits on the sibling declared next to it and suggests the new row or
bullet in the page's format (new_rows.py), described in the code's own words: `help=`, or a
dataclass field's comments, read with libcst only then (extract/field_comments.py).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.core.check import wording
from bot.core.check.findings import Findings
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.new_rows import (
    Entry,
    Lists,
    NewLine,
    Sibling,
    new_line,
    one_line,
)
from bot.core.doclines import enumerating_line, normalize_default
from bot.core.facts import Facts
from bot.core.model import Fact, FindingKind
from bot.core.rules import Source

if TYPE_CHECKING:
    from bot.core.check.ownership import Scope
    from bot.core.extract.field_comments import FieldComments

# Share of a parser's flags a page must cite to be a reference for it: only a reference is told
# about new flags. A README or a task guide citing a few flags is not.
REFERENCE_SHARE = 0.5


def undocumented(inputs: RuleInputs, page: Page, renamed_to: set[str], out: Findings) -> None:
    """New members of sets the page lists, then new flags next to the ones it documents."""
    base, head = inputs.base_facts, inputs.head_facts
    refs = page.refs
    cited = {r.token for r in refs} | renamed_to
    groups: dict[str, bool] = {}
    for source in inputs.rule.sources:
        if source.kind == "strings":
            groups[source.group or source.id] = source.enumerated
    for flag in head.flags():
        if flag.attr("choices") and not flag.token.startswith("--no-"):
            groups.setdefault(f"choices of {flag.token}", False)
    # One new value is reported once, against the set the doc lists most fully.
    reported: set[str] = set()
    fullest = sorted(groups.items(), key=lambda g: (-sum(t in cited for t in base.group(g[0])), not g[1]))
    for group, enumerated in fullest:
        before, after = base.group(group), head.group(group)
        listed = [t for t in before if t in cited]
        # A flag's choices count as enumerated when the doc cites every one of them (two at
        # least); a set the rule declares enumerated needs only one cited member.
        if not listed or (not enumerated and (len(listed) < 2 or len(listed) < len(before))):
            continue
        order = list(after)
        for token, fact in after.items():
            if token in before or token in cited or token in reported:
                continue
            if group.startswith("choices of ") and _only_new_commands(base, head, group[11:], token):
                continue
            reported.add(token)
            siblings = [Sibling((t,)) for t in order if t != token]
            entry = Entry(token, on=_is_default_choice(head, token))
            # A flag's choices keep the order they are written in; literals sharing a line
            # (`mesh_dim_names=("dp", "tp", "ep")`) are kept by line only: the new one goes last.
            same_line = any(f.line == fact.line and t != token for t, f in after.items())
            at = None if same_line and not group.startswith("choices of ") else order.index(token)
            placed = new_line(page.doc, refs, siblings, at, entry)
            out.emit(
                "undocumented",
                token,
                wording.new_member(token, group, fact, listed),
                doc=page.doc,
                line=placed.line if placed else enumerating_line([r for r in refs if r.token in listed]),
                code=inputs.code_line(fact, fact),
                replacement=placed.replacement if placed else None,
            )
    new_flags(inputs, page, cited, out)


def _only_new_commands(base: Facts, head: Facts, flag: str, value: str) -> bool:
    """Is `value` offered only by `flag`s of subcommands that had no such flag before (a new
    command's `--type`)? Then it is new in no set the page lists: another command's flag of the
    same name keeps its choices."""
    owners = [f for f in head.by_token.get(flag, ()) if value in (f.attr("choices") or "").split(",")]
    before = {f.attr("subcommand") or "" for f in base.by_token.get(flag, ()) if f.kind == "flag"}
    return bool(owners) and all((f.attr("subcommand") or "") not in before for f in owners)


def _is_default_choice(head: Facts, value: str) -> bool | None:
    """Is `value` the default of the one flag offering it (None: no single such flag)?"""
    owners = head.choice_owners(value)
    if len(owners) != 1:
        return None
    return normalize_default(owners[0].attr("default")) == value


def new_flags(inputs: RuleInputs, page: Page, cited: set[str], out: Findings) -> None:
    base, head = inputs.base_facts, inputs.head_facts
    base_keys = {(f.source, f.key) for f in base.flags()}
    base_tokens = set(base.by_token)
    sources = {s.id: s for s in inputs.rule.sources}
    # A page that cites three of a parser's 300 flags is not its reference: only parsers whose
    # flags the page documents for the most part get told about new ones (by file: two command
    # lines in one rule are two references).
    keys: dict[str, set[str]] = defaultdict(set)
    cited_keys: dict[str, set[str]] = defaultdict(set)
    documented = _Documented(inputs, page)
    for f in head.flags():
        if f.attr("hidden"):
            continue  # argparse keeps it out of --help (help=SUPPRESS): no page owes it a line
        keys[f.path].add(f.key)
        if f.token in cited and (documented(f) or f.token not in documented.shared):
            cited_keys[f.path].add(f.key)
    coverage = {path: len(cited_keys[path]) / len(k) for path, k in keys.items()}
    # A flag and its negation are one fact: a page citing `--no-x` documents `--x`.
    known = base_keys | {(f.source, f.key) for f in head.flags() if f.token in cited}
    order = _declared(head)
    parsers: dict[tuple[str, str], _Parser] = {}
    describe = _Descriptions(inputs, sources)
    for flag in head.flags():
        if flag.token.startswith("--no-") and flag.attr("sets") == "false" and flag.attr("action"):
            continue  # the negative half of a BooleanOptionalAction pair
        if flag.token in base_tokens or (flag.source, flag.key) in known or flag.attr("hidden"):
            continue
        # A source the rule declares enumerated is one the page lists in full; a flag declared
        # between two that one list of the page holds is that list's news (flags new beside it
        # are skipped: two new flags side by side are both news).
        source = sources.get(flag.source)
        parser = parsers.get((flag.source, flag.path))
        if parser is None:
            parser = parsers[(flag.source, flag.path)] = _Parser.of(
                head, page, flag.source, order[(flag.source, flag.path)], base_keys
            )
        at = parser.at[flag.key]
        # The new flag itself is cited nowhere on the page (else it would be known), so the
        # page's lists over all of the parser's flags are its siblings' lists, one index on.
        old = bisect_left(parser.old, at)
        before = parser.old[old - 1] if old else None
        after = parser.old[old] if old < len(parser.old) else None
        between = before is not None and after is not None and parser.lists.together(before, after)
        if (
            coverage.get(flag.path, 0.0) < REFERENCE_SHARE
            and not (source and source.enumerated)
            and not between
        ):
            continue
        kind: FindingKind = "undocumented" if source and source.enumerated else "new-flag"
        placed: NewLine | None = None
        # Described only beside a listed neighbour: a dataclass's comments cost a libcst parse.
        entry = describe(flag) if parser.lists.holds(at - 1, at + 1) else None
        if entry is not None:
            siblings = parser.siblings[:at] + parser.siblings[at + 1 :]
            placed = new_line(page.doc, page.refs, siblings, at, entry)
        out.emit(
            kind,
            flag.token,
            wording.new_flag(flag, page.doc.path),
            doc=page.doc if placed else None,
            line=placed.line if placed else None,
            code=inputs.code_line(flag, flag),
            replacement=placed.replacement if placed else None,
        )


class _Documented:
    """Whose flags a page's citations count for. Sibling scripts (examples/a/train.py,
    examples/b/train.py) declare the same flags: a page citing `--lr` documents the script it
    runs or cites, not every script that has `--lr`. A flag only one command line of the rule
    declares counts for it wherever it is cited."""

    def __init__(self, inputs: RuleInputs, page: Page):
        self.inputs, self.page = inputs, page
        owners: dict[str, set[frozenset[str]]] = defaultdict(set)
        for f in inputs.head_facts.flags():
            owners[f.token].add(_programs(f))
        self.shared = frozenset(token for token, programs in owners.items() if len(programs) > 1)
        self._mine: frozenset[str] | None = None
        self._scopes: list[Scope] = []  # the commands of ours the page runs

    def __call__(self, flag: Fact) -> bool:
        if self._mine is None:
            self._mine = self._cited_programs() if self.shared else frozenset()
        if flag.path in self._mine:
            return True
        if not _programs(flag) & self._mine:
            return False
        # A subcommand's flag counts where the page runs that subcommand (or names none): the
        # page running `tool export onnx` documents no flag of `tool export executorch`.
        return not flag.attr("subcommand") or any(s.flags([flag]) for s in self._scopes)

    def _cited_programs(self) -> frozenset[str]:
        own, doc = self.inputs.own, self.page.doc
        runs = own.runs(doc)
        self._scopes = [run.scope for run in runs if run.scope is not None and run.scope.program]
        found = {run.program for run in runs if run.program}
        for ref in doc.refs:
            if ref.kind == "path" and ref.token.endswith(".py"):
                cited = own.path(ref, doc.path)
                if cited is not None:
                    found.add(cited.path)
        return frozenset(found)


def _programs(flag: Fact) -> frozenset[str]:
    return frozenset((flag.attr("programs") or flag.path).split())


def _declared(head: Facts) -> dict[tuple[str, str], list[str]]:
    """Each parser's (source and file's) flag keys in the order the code declares them."""
    first: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for f in head.flags():
        lines = first[(f.source, f.path)]
        lines[f.key] = min(lines.get(f.key, f.line), f.line)
    return {k: sorted(lines, key=lambda key: lines[key]) for k, lines in first.items()}


@dataclass(frozen=True)
class _Parser:
    """One parser's flags in the order the code declares them, as the page lists them."""

    siblings: list[Sibling]
    at: dict[str, int]  # key -> its place in that order
    old: list[int]  # the places of the keys base had, ascending
    lists: Lists

    @classmethod
    def of(
        cls, head: Facts, page: Page, source: str, keys: list[str], base_keys: set[tuple[str, str]]
    ) -> _Parser:
        siblings = [_sibling(head, source, k) for k in keys]
        old = [i for i, k in enumerate(keys) if (source, k) in base_keys]
        lists = Lists(page.doc, page.refs, siblings)
        return cls(siblings, {k: i for i, k in enumerate(keys)}, old, lists)


def _sibling(head: Facts, source: str, key: str) -> Sibling:
    facts = head.by_key.get((source, "flag", key), [])
    positive = [f for f in facts if f.attr("sets") != "false"] or facts
    if not positive:
        return Sibling(())
    first = positive[0]
    return Sibling(
        tuple(f.token for f in facts), first.attr("default"), _type(first), first.attr("sets") is not None
    )


def _type(flag: Fact) -> str | None:
    """The flag's type as a doc's Type column would write it: a plain type name, else nothing."""
    written = flag.attr("type")
    return written if written in ("int", "float", "str") and not flag.attr("choices") else None


class _Descriptions:
    """A new flag as its new line would say it: `help=`, or for a dataclass-built flag its field's
    comments. A file's comments are read once, and only when a flag of it needs them."""

    def __init__(self, inputs: RuleInputs, sources: dict[str, Source]):
        self.inputs = inputs
        self.sources = sources
        self.read: dict[tuple[str, str], dict[str, FieldComments] | None] = {}

    def __call__(self, flag: Fact) -> Entry | None:
        unknown = (flag.attr("unknown") or "").split()
        default = None if "default" in unknown else flag.attr("default") or "None"
        switch = flag.attr("sets") is not None
        on = default == "True" if switch and default in ("True", "False") else None
        text = flag.attr("help")
        source = self.sources.get(flag.source)
        if text is None and source is not None and source.kind == "dataclass-flags" and source.dataclass:
            text = self._comment(flag.path, source.dataclass, flag.key)
            if text is None:
                return None  # the comments could not be read: a row without them may be wrong
        description = one_line(text or "", default)
        return Entry(flag.token, description, default, switch, on, _type(flag))

    def _comment(self, path: str, dataclass: str, field: str) -> str | None:
        """The field's description from its comments ("" when they say nothing); None when the
        file's comments cannot be read."""
        if (path, dataclass) not in self.read:
            # Imported here: libcst loads only for a check that suggests a dataclass flag's line.
            from bot.core.extract.field_comments import field_comments

            text = self.inputs.head.read(path)
            self.read[(path, dataclass)] = field_comments(text, dataclass) if text is not None else None
        found = self.read[(path, dataclass)]
        if found is None:
            return None
        return found[field].description() if field in found else ""
