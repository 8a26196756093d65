"""Config keys (sources of kind `pydantic` and `config`) against the lines that cite them: a key
set in a page's YAML or TOML block (`lr: 3e-4` under `optimizer:`), a key or environment
variable in a code span (`optimizer.lr`, `APP_DATABASE_URL`), a row of a table with a
Default column.

- code -> doc: a cited key the change removed or renamed (the suggestion renames it where it is
  written: the key's last name in a block, the whole path in a span); a value the page gives
  that was the key's value (a config file's) or default (a model's) at base and is not at head;
  a value no longer among a `Literal`'s or Enum's choices.
- doc -> code, on lines the change wrote: a key no source defines. Said only for a near miss
  of a real key (the nearest is suggested when it could be a misspelling of it), or, when a
  model is the schema, for a key in a section the model defines in full: a page's block is
  often about something else (a workflow, a compose file), and shipped configs do not hold
  every key a model allows.
"""

from __future__ import annotations

import re

from bot.core.check import wording
from bot.core.check.deltas import Delta, Deltas
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.near import closest, misspelt
from bot.core.doclines import display, same_default
from bot.core.facts import Facts
from bot.core.page import Ref

KEY_KINDS = ("pydantic", "config")
_CITES = ("key", "name", "value")  # ref kinds that may be a key: set in a block, or in a span


def reads_keys(inputs: RuleInputs) -> bool:
    return any(s.kind in KEY_KINDS for s in inputs.rule.sources)


def stale(inputs: RuleInputs, page: Page, found: Deltas, out: Findings) -> None:
    """code -> doc: lines citing a key the change removed, renamed or gave another value."""
    if not reads_keys(inputs):
        return
    head, doc, external = inputs.head_facts, page.doc, inputs.rule.external
    cited = {r.token for r in page.refs if r.kind == "key"}
    for ref in page.refs:
        if ref.kind not in _CITES:
            continue
        deltas = [d for d in found.get(ref.token, ()) if d.old.kind == "key"]
        if not deltas or is_external(ref.token, external):
            continue
        if not _knows(head, ref.token):
            parent = ref.token.rpartition(".")[0]
            if parent in cited and not _knows(head, parent) and ref.kind == "key":
                continue  # its whole section is gone: said on the section's line
            _gone(inputs, page, ref, [d for d in deltas if d.kind != "changed"], out)
        elif ref.value is not None and ref.kind == "key":
            _value(inputs, page, ref.token, ref.value, ref.line, deltas, out)
    for claim in doc.claims:
        subject = claim.subject
        if subject is None or not _knows(head, subject) or is_external(subject, external):
            continue
        deltas = [d for d in found.get(subject, ()) if d.old.kind == "key"]
        if deltas:
            _value(inputs, page, subject, claim.value, claim.line, deltas, out, claim.text)


def _knows(facts: Facts, token: str) -> bool:
    return any(f.kind == "key" for f in facts.by_token.get(token, ()))


def _gone(inputs: RuleInputs, page: Page, ref: Ref, gone: list[Delta], out: Findings) -> None:
    if not gone:
        return
    renamed = [d for d in gone if d.kind == "renamed" and d.new is not None]
    successors = {d.new.token for d in renamed if d.new is not None}
    if renamed and len(successors) == 1 and len(renamed) == len(gone):
        delta = renamed[0]
        assert delta.new is not None
        old, new = delta.old, delta.new
        out.emit(
            "renamed",
            ref.token,
            wording.renamed(old, new) + wording.key_rename_evidence(delta.because),
            doc=page.doc,
            line=ref.line,
            code=inputs.code_line(old, new),
            edit=_rename_edit(ref, new.token),
            why=wording.why_renamed_because(old, new, delta.because),
        )
        return
    old = gone[0].old
    out.emit(
        "removed",
        ref.token,
        wording.removed(old),
        doc=page.doc,
        line=ref.line,
        code=inputs.code_line(old, None),
        why=wording.why_removed(old, inputs.rule.id),
    )


def _rename_edit(ref: Ref, new: str) -> tuple[str, str] | None:
    """A span is rewritten whole; a block writes only the key's last name on its line, so only a
    key that stays in its section can be renamed there."""
    if ref.kind != "key":
        return (ref.token, new)
    parent, _, leaf = ref.token.rpartition(".")
    new_parent, _, new_leaf = new.rpartition(".")
    return (leaf, new_leaf) if parent == new_parent else None


def _value(
    inputs: RuleInputs,
    page: Page,
    token: str,
    value: str,
    line: int,
    deltas: list[Delta],
    out: Findings,
    text: str | None = None,
) -> None:
    """The page's value for `token` was its value at base and is not at head (in no file)."""
    head = inputs.head_facts
    if any(same_default(value, f.attr("default")) for f in head.by_token.get(token, ()) if f.kind == "key"):
        return  # a config that still says it, or the value is still the default
    moved = [
        d
        for d in deltas
        if d.kind == "changed"
        and d.attr == "default"
        and d.old_value is not None
        and same_default(value, d.old_value)
        and d.new is not None
    ]
    if moved:
        delta = moved[0]
        assert delta.new is not None
        now = {d.new_value for d in moved}
        edit = None
        if len(now) == 1 and delta.new_value is not None:
            edit = (text or value, _styled(delta.new_value, value))
        out.emit(
            "changed",
            token,
            wording.key_value_changed(delta.new, delta.old_value, delta.new_value, text or value),
            doc=page.doc,
            line=line,
            code=inputs.code_line(delta.old, delta.new),
            edit=edit,
        )
        return
    for d in deltas:
        if d.kind != "changed" or d.attr != "choices" or d.new is None:
            continue
        before, allowed = (d.old_value or "").split(","), (d.new_value or "").split(",")
        if value in before and value not in allowed and allowed != [""]:
            out.emit(
                "changed",
                f"{token} {value}",
                wording.choice_dropped(value, token, allowed),
                doc=page.doc,
                line=line,
                code=inputs.code_line(d.old, d.new),
            )
            return


_EXPONENT = re.compile(r"[+-]?\d+(?:\.\d+)?[eE][+-]?\d+")


def _styled(new: str, written: str) -> str:
    """`new` as the page writes numbers: `1e-4` where it wrote `3e-4`, not Python's `0.0001`."""
    if _EXPONENT.fullmatch(written.strip()):
        try:
            mantissa, exponent = f"{float(new):e}".split("e")
        except ValueError:
            return display(new)
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    return display(new)


def unresolved(inputs: RuleInputs, page: Page, out: Findings) -> None:
    """doc -> code: a line the change wrote citing a key no source defines (see the docstring)."""
    if not reads_keys(inputs):
        return
    head = inputs.head_facts
    keys = {f.token for f in head.facts if f.kind == "key"}
    if not keys:
        return
    # pydantic-settings matches environment variables in any case unless told otherwise
    env = {f.token.lower() for f in head.facts if f.kind == "key" and f.attr("kind") == "env"}
    schema = any(s.kind == "pydantic" for s in inputs.rule.sources)
    sections = {t.rpartition(".")[0] for t in keys if "." in t}
    for ref in page.new_refs:
        if ref.kind not in _CITES or ref.token in keys or ref.token.lower() in env:
            continue
        if is_external(ref.token, inputs.rule.external):
            continue
        parent = ref.token.rpartition(".")[0]
        near = _near_key(ref.token, keys)
        if near is None and not (schema and parent and parent in sections):
            continue
        if near is not None and near in {r.token for r in page.doc.refs_on(ref.line)}:
            continue  # the line names the real key too: the other token is something else
        out.emit(
            "unresolved",
            ref.token,
            wording.unknown_key(ref.token, near, parent or None),
            doc=page.doc,
            line=ref.line,
            edit=_rename_edit(ref, near) if near else None,
        )


def _near_key(token: str, keys: set[str]) -> str | None:
    """The real key `token` could be a misspelling of: in the same section, its last name
    misspelt (`optimizer.lrate` is not `optimizer.lr`; `lerning_rate` is `learning_rate`)."""
    parent, _, leaf = token.rpartition(".")
    if len(leaf) < 6:
        return None  # short names sit close to everything
    siblings = {k.rpartition(".")[2]: k for k in keys if k.rpartition(".")[0] == parent}
    candidates = [name for name in siblings if misspelt(leaf.lower(), name.lower())]
    best = closest(leaf, candidates, 0.85)
    return siblings[best] if best is not None else None
