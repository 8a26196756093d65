"""The check: two revisions, the files a change touched and the rules -> findings.

Pure: it reads files only through the `Tree` objects it is handed and returns a `Report`.
Two directions are checked for every rule whose files the change touched:

- code -> doc: facts the doc cites that the change removed, renamed or changed in meaning
  while the doc still says the old thing; new members of sets the doc enumerates.
- doc -> code: lines the change added to the doc must cite flags, paths and names that exist
  at head, and claim the defaults the code has.

`audit` runs the doc -> code direction over every line of a single revision.

One rule's check flows one way: `inputs` (read once) -> `deltas` (what became of each base
fact) -> the checks (`code_to_doc`, `keys`, `undocumented`, `paths`, `vanished`,
`doc_to_code`, `unreadable`), which word their findings with `wording` and hand them to `findings`, which
returns them merged, deduplicated and ordered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.core.check.touched import Touched, touches
from bot.core.globs import expand_all
from bot.core.model import Change, DocLocation, EmptyTree, Finding, Report, Tree
from bot.core.rules import Other, Rule

if TYPE_CHECKING:
    from bot.core.check.history import History, Lookups
    from bot.core.check.inputs import RuleInputs
    from bot.core.check.others import Knowns
    from bot.core.facts import ParseCache

# The checks themselves are imported by the first rule a change touches: a commit that touches
# no rule's files (most commits a pre-commit hook sees) loads none of them.

__all__ = ["audit", "check"]


def check(
    rules: Sequence[Rule],
    base: Tree,
    head: Tree,
    changes: Sequence[Change],
    cache: ParseCache | None = None,
    history: History | None = None,
    others: Mapping[Other, Tree] | None = None,
) -> Report:
    """Findings for one change (base -> head) under the given rules. With a `history` (of head),
    a token the doc cites that head lacks is looked up there for what replaced it. `others`
    holds the files of the rules' other projects that could be read (check/others.py)."""
    lookups: Lookups | None = None
    knowns: Knowns | None = None
    touched = Touched.of(changes)
    findings: list[Finding] = []
    checked: list[str] = []
    for rule in rules:  # a rule's docs site (`site:`): navigation, redirects, links, anchors
        if rule.site is None:
            continue
        from bot.core.site.check import site_check
        from bot.core.site.check import touches as site_touches  # only a rule with a site needs them

        if site_touches(rule.site, base, head, changes):
            checked.append(rule.id)
            findings.extend(site_check(rule, base, head, changes, cache))
    for rule in expand_all(rules, base, head, touched.renames):  # globs -> the files they match
        if not touches(rule, touched):
            continue
        checked.append(rule.id)
        from bot.core.check.history import Lookups
        from bot.core.check.inputs import build
        from bot.core.check.others import Knowns

        lookups = lookups or Lookups()
        knowns = knowns or Knowns(others or {}, cache)
        inputs = build(rule, base, head, touched, cache, knowns(rule))
        findings.extend(_judge(inputs, audit=False, history=history, lookups=lookups, cache=cache))
    from bot.core import suppress

    report, _ = suppress.apply(Report(findings=tuple(findings), rules_checked=tuple(checked)), head.read)
    return report


def audit(
    rules: Sequence[Rule],
    tree: Tree,
    cache: ParseCache | None = None,
    history: History | None = None,
    others: Mapping[Other, Tree] | None = None,
) -> Report:
    """Every doc reference that does not resolve in this revision (the whole page is 'new'); with a
    `history` (of this revision), what replaced a token the page cites."""
    from bot.core import suppress
    from bot.core.check.history import Lookups
    from bot.core.check.inputs import build
    from bot.core.check.others import Knowns
    from bot.core.facts import parse_doc_cached

    lookups = Lookups()
    knowns = Knowns(others or {}, cache)
    findings: list[Finding] = []
    for rule in rules:
        if rule.site is not None:
            from bot.core.site.check import site_audit  # only a rule with a site reads one

            findings.extend(site_audit(rule, tree, cache))
    expanded = expand_all(rules, EmptyTree(), tree, {})
    for rule in expanded:
        inputs = build(rule, EmptyTree(), tree, Touched.of(()), cache, knowns(rule))
        findings.extend(_judge(inputs, audit=True, history=history, lookups=lookups, cache=cache))
    report = Report(findings=tuple(findings), rules_checked=tuple(r.id for r in expanded))
    # A suppression in a page that covers nothing is reported: it would hide the next finding.
    rule_of = {doc.path: rule for rule in reversed(expanded) for doc in rule.docs}
    report, unused = suppress.apply(report, tree.read, list(rule_of))

    def where(path: str, line: int) -> DocLocation:
        from bot.core.check.findings import doc_location

        return doc_location(parse_doc_cached(path, tree.read(path) or "", tree.blob_id(path), cache), line)

    mine = [s for s in unused if s.path in rule_of]  # a docs site's other pages are not read whole
    notices = suppress.unused_notices(mine, rule_of.__getitem__, where)
    return replace(report, findings=report.findings + tuple(notices))


def _judge(
    inputs: RuleInputs,
    *,
    audit: bool,
    history: History | None = None,
    lookups: Lookups | None = None,
    cache: ParseCache | None = None,
) -> list[Finding]:
    """One rule's findings. The checks run in a fixed order: of two findings that say the same
    thing about the same line, the first one emitted is kept."""
    from bot.core.check import evidence, keys, paths, unreadable
    from bot.core.check.code_to_doc import code_to_doc
    from bot.core.check.deltas import deltas, renamed_to
    from bot.core.check.doc_to_code import doc_to_code
    from bot.core.check.findings import Findings
    from bot.core.check.flag_env import gone_env, stale_env
    from bot.core.check.flag_keys import stale_keys, unknown_keys
    from bot.core.check.history import Lookups, from_history
    from bot.core.check.undocumented import undocumented
    from bot.core.check.vanished import unread_env, vanished

    out = Findings(inputs.rule)
    unreadable.parse_errors(inputs, out)
    if audit:
        unreadable.missing_files(inputs, out)
    found = deltas(inputs.base_facts, inputs.head_facts, evidence.of_inputs(inputs))
    successors = renamed_to(found)
    env = {} if audit else gone_env(inputs)
    for page in inputs.pages:
        if not audit:
            code_to_doc(inputs, page, found, out)
            keys.stale(inputs, page, found, out)
            undocumented(inputs, page, successors, out)
            paths.moved_or_deleted(inputs, page, out)
            vanished(inputs, page, out)
            stale_env(inputs, page, env, out)
            stale_keys(inputs, page, found, out)
        doc_to_code(inputs, page, out)
        keys.unresolved(inputs, page, out)
        unknown_keys(inputs, page, out)
        unread_env(inputs, page, out)
    if history is not None:  # last: it rewrites what the checks found
        from_history(inputs, out, history, lookups or Lookups(), cache, audit=audit)
    return out.finish()
