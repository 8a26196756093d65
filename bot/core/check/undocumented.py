"""New facts a page does not mention: a new member of a set the page lists (`undocumented`), and
a new flag of a source whose flags the page documents in good part (`new-flag`).

A rename's new name is not new: it is reported as the rename.
"""

from __future__ import annotations

from collections import defaultdict

from bot.core.check import wording
from bot.core.check.findings import Findings
from bot.core.check.inputs import Page, RuleInputs
from bot.core.doclines import enumerating_line
from bot.core.model import FindingKind

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
        for token, fact in after.items():
            if token in before or token in cited or token in reported:
                continue
            reported.add(token)
            out.emit(
                "undocumented",
                token,
                wording.new_member(token, group, fact, listed),
                doc=page.doc,
                line=enumerating_line([r for r in refs if r.token in listed]),
                code=inputs.code_line(fact, fact),
            )
    new_flags(inputs, page, cited, out)


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
    for f in head.flags():
        keys[f.path].add(f.key)
        if f.token in cited:
            cited_keys[f.path].add(f.key)
    coverage = {path: len(cited_keys[path]) / len(k) for path, k in keys.items()}
    for flag in head.flags():
        if flag.token.startswith("--no-") and flag.attr("sets") == "false" and flag.attr("action"):
            continue  # the negative half of a BooleanOptionalAction pair
        if flag.token in base_tokens or flag.token in cited or (flag.source, flag.key) in base_keys:
            continue
        # A source the rule declares enumerated is one the page lists in full.
        source = sources.get(flag.source)
        if coverage.get(flag.path, 0.0) < REFERENCE_SHARE and not (source and source.enumerated):
            continue
        kind: FindingKind = "undocumented" if source and source.enumerated else "new-flag"
        out.emit(
            kind,
            flag.token,
            wording.new_flag(flag, page.doc.path),
            code=inputs.code_line(flag, flag),
        )
