"""What one rule's check reads, built once per rule before anything is judged: the files the
change touched, the rule's facts at base and at head, the line diffs of its changed sources and
its pages as they read at head."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.core.check.codenames import Environment, Gone, env_name, environment, vanished_names
from bot.core.check.others import NOTHING, Known
from bot.core.check.ownership import Ownership
from bot.core.check.reach import Reach
from bot.core.check.touched import Touched
from bot.core.doclines import in_scope
from bot.core.facts import Facts, ParseCache, gather, named_programs, parse_doc_cached
from bot.core.kinds import FLAG_KINDS
from bot.core.linediff import LineDiff, line_diff
from bot.core.model import CodeLocation, Fact, Tree
from bot.core.page import DocPage, Ref
from bot.core.pageindex import page_index_cached
from bot.core.programs import programs
from bot.core.rules import Rule


@dataclass(frozen=True)
class Page:
    """One of the rule's pages as it reads at head."""

    doc: DocPage
    sections: tuple[str, ...]  # the rule's sections of it; () for the whole page
    refs: tuple[Ref, ...]  # the references in those sections
    new_refs: tuple[Ref, ...]  # those on lines the change wrote: all of them on a new page
    program: str | None = None  # the program the rule says the page documents (`lm-eval run`)
    # long options in plain text (DocPage.mentions) in those sections: all of them in an audit,
    # in a check those on lines the change wrote and those of flags the base's facts have
    mentions: tuple[Ref, ...] = ()


@dataclass(frozen=True)
class RuleInputs:
    """Everything one rule's checks read, built once."""

    rule: Rule
    base: Tree
    head: Tree
    touched: Touched
    base_facts: Facts
    head_facts: Facts
    code_diffs: Mapping[str, LineDiff]  # head path of each changed source -> its line diff
    pages: tuple[Page, ...]
    own: Ownership  # which cited tokens are the repository's
    vanished: Mapping[str, Gone] = field(default_factory=dict)  # names the change took out of the code
    # what the sources read from the environment at head: only when a line the change wrote cites
    # a name that may be an environment variable (vanished.py)
    environment: Environment | None = None
    others: Known = NOTHING  # what the rule's other projects declare (others.py)

    def code_line(self, old: Fact, new: Fact | None) -> CodeLocation:
        """The head line that made the doc wrong: where the change touched the fact."""
        path = self.touched.head_path(old.path)
        diff = self.code_diffs.get(path)
        if new is not None and (diff is None or new.line in diff.changed_head_lines):
            return CodeLocation(new.path, new.line)
        if diff is None:
            return CodeLocation(path, new.line if new else old.line)
        mapped = diff.head_line_for(old.line)
        if new is not None and new.path == path and mapped not in diff.touched_head_lines:
            # The fact's own line did not change (a builder did): point at the nearest change.
            near = min(diff.touched_head_lines, key=lambda n: abs(n - new.line), default=new.line)
            return CodeLocation(path, near)
        return CodeLocation(path, mapped)


def build(
    rule: Rule,
    base: Tree,
    head: Tree,
    touched: Touched,
    cache: ParseCache | None,
    others: Known = NOTHING,
) -> RuleInputs:
    base_programs = head_programs = None
    if any(s.kind in FLAG_KINDS for s in rule.sources):
        named = named_programs(rule)
        base_programs, head_programs = programs(base, cache, named), programs(head, cache, named)
    base_facts = gather(rule, base, cache, found=base_programs)
    head_facts = gather(rule, head, cache, dict(touched.renames), found=head_programs)
    # Names a page cites that the change took out of the sources (codenames.py).
    owned = base_facts.by_token.keys() | head_facts.by_token.keys()
    owned |= {f.key for f in (*base_facts.facts, *head_facts.facts)}
    # An environment variable an option reads at head is still read (click's automatic ones).
    owned |= {v for f in head_facts.facts if (read := f.attr("envvar")) for v in read.split(",")}
    gone = vanished_names(rule, base, head, touched.paths, touched.renames, cache, owned)
    # Pages the change cannot reach are neither read nor judged (reach.py).
    reach = Reach.of(rule, base_facts, head_facts, _gone_parts(touched, head), gone)
    pages = tuple(_pages(rule, base, head, touched, cache, reach, owned, base_facts))
    env = None
    cited = {n for p in pages for r in p.new_refs if (n := env_name(r.token)) is not None and n not in owned}
    if cited:
        env = environment(rule, head, touched.renames, cache, cited)
    return RuleInputs(
        rule=rule,
        base=base,
        head=head,
        touched=touched,
        base_facts=base_facts,
        head_facts=head_facts,
        code_diffs=_code_diffs(rule, base, head, touched),
        pages=pages,
        own=Ownership(
            base,
            head,
            programs=head_programs,
            flags=[*base_facts.flags(), *head_facts.flags()],
            changed=touched.paths - touched.removed,
            cache=cache,
        ),
        vanished=gone,
        environment=env,
        others=others,
    )


def _gone_parts(touched: Touched, head: Tree) -> set[str]:
    """The last parts of the files the change moved or deleted and of the folders it left empty
    (bot/core/check/paths.py judges a cited path that resolves to one of those)."""
    out: set[str] = set()
    emptied: set[str] = set()
    for path in (*touched.removed, *touched.renames):
        out.add(posixpath.basename(path))
        if path.endswith(".py"):  # `python -m pkg.tool` writes `tool`, or `pkg` for pkg/__main__.py
            stem = posixpath.basename(path)[:-3]
            package = stem in ("__main__", "__init__")
            out.add(posixpath.basename(posixpath.dirname(path)) if package else stem)
        folder = posixpath.dirname(path)
        while folder and folder not in emptied and not head.exists(folder):
            emptied.add(folder)
            out.add(posixpath.basename(folder))
            folder = posixpath.dirname(folder)
    return out


def _code_diffs(rule: Rule, base: Tree, head: Tree, touched: Touched) -> dict[str, LineDiff]:
    diffs = {}
    for source in rule.sources:
        for path in source.paths:
            head_path = touched.head_path(path)
            if path in touched.paths or head_path in touched.paths:
                diffs[head_path] = line_diff(base.read(path), head.read(head_path))
    return diffs


def _pages(
    rule: Rule,
    base: Tree,
    head: Tree,
    touched: Touched,
    cache: ParseCache | None,
    reach: Reach,
    owned: set[str],
    base_facts: Facts,
) -> list[Page]:
    """`owned`: the tokens the rule's sources have at base or head."""

    def base_knows(token: str) -> bool:
        return base_facts.knows(token, flag=True)

    pages = []
    for target in rule.docs:
        head_path = touched.head_path(target.path)
        if not _may_change(target.path, head_path, base, head, touched, reach, cache):
            continue
        head_text = head.read(head_path)
        if head_text is None:
            continue
        base_text = base.read(target.path)
        doc = parse_doc_cached(head_path, head_text, head.blob_id(head_path), cache)
        refs = tuple(r for r in doc.refs if in_scope(r.section.path, target.sections) and _judged(r, owned))
        mentions = tuple(r for r in doc.mentions if in_scope(r.section.path, target.sections))
        if base_text is None:  # a new page (or an audit): every line is the change's own
            new_refs = refs
        else:
            changed = line_diff(base_text, head_text).changed_head_lines
            new_refs = tuple(r for r in refs if r.line in changed)
            mentions = tuple(r for r in mentions if r.line in changed or base_knows(r.token))
        pages.append(Page(doc, target.sections, refs, new_refs, target.program, mentions))
    return pages


def _judged(ref: Ref, owned: set[str]) -> bool:
    """A flag written with one dash (`-train_steps`) is judged only where a source declares it,
    at base or at head: elsewhere it is another tool's (`cmake -DCMAKE_BUILD_TYPE=Release`)."""
    return ref.kind != "flag" or ref.token.startswith("--") or len(ref.token) == 2 or ref.token in owned


def _may_change(
    path: str,
    head_path: str,
    base: Tree,
    head: Tree,
    touched: Touched,
    reach: Reach,
    cache: ParseCache | None,
) -> bool:
    """Can the change make this page wrong? One it edited (or a new one, or any page of an audit)
    can; another only through what it cites, which its index says without a read."""
    base_blob = base.blob_id(path)
    if base_blob is None or path in touched.paths or head_path in touched.paths:
        return True
    if head.blob_id(head_path) != base_blob:
        return True  # edited, though the change does not name it (a working tree)
    index = page_index_cached(head_path, head, cache, reach.may_touch, reach.may_write)
    return index is not None and reach.touches(index)
