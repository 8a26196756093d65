"""Findings about the rule's own inputs: sources that do not parse at head, and files an audit
expects that the revision lacks. A rule that reads nothing checks nothing, silently, otherwise."""

from __future__ import annotations

from bot.core.check import wording
from bot.core.check.findings import Findings
from bot.core.check.inputs import RuleInputs
from bot.core.model import CodeLocation


def parse_errors(inputs: RuleInputs, out: Findings) -> None:
    """Sources that do not parse at head; one that already failed at base only if the change touched it."""
    already = {(e.path, e.message) for e in inputs.base_facts.errors}
    for err in inputs.head_facts.errors:
        if (err.path, err.message) in already and err.path not in inputs.touched.paths:
            continue
        out.emit("parse-error", err.path, wording.parse_error(err), code=CodeLocation(err.path, err.line))


def missing_files(inputs: RuleInputs, out: Findings) -> None:
    """The pages and sources the rule names that this revision does not have."""
    rule = inputs.rule
    wanted = [(d.path, "doc page") for d in rule.docs]
    wanted += [(p, f"`{s.id}` source") for s in rule.sources for p in s.paths]
    for path, what in wanted:
        if inputs.head.read(path) is None:
            out.emit(
                "unresolved", path, wording.missing_file(path, what, rule.id), code=CodeLocation(path, 1)
            )
