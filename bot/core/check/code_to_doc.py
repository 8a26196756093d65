"""code -> doc: lines of a page that still cite a fact the change removed, renamed or changed in
meaning, and default claims that were true at base and are false at head."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence

from bot.core import doclines
from bot.core.check import wording
from bot.core.check.deltas import Delta, Deltas
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.new_rows import in_default_column
from bot.core.check.overrides import overrides_a_base
from bot.core.check.ownership import Scope
from bot.core.extract.argparse_calls import takes_choice
from bot.core.facts import Facts
from bot.core.model import Fact
from bot.core.page import DefaultClaim, DocPage, Ref
from bot.core.submodules import in_submodule, submodule_folders


def code_to_doc(inputs: RuleInputs, page: Page, found: Deltas, out: Findings) -> None:
    doc = page.doc
    for ref in (*page.refs, *page.mentions):
        deltas = found.get(ref.token, ())
        if ref.where in ("prose", "item"):
            # An option in plain text (or a parameter list's item head) is that flag only by its
            # name: it goes stale when the change takes the flag away, and a change of its
            # meaning is not the text's to say.
            deltas = [d for d in deltas if d.kind != "changed"]
        if not deltas:
            continue
        if ref.kind == "flag":
            scope = inputs.own.scope(doc, ref, page.program)
            if scope is None:
                continue  # another program's flag
            if scope.unread_subcommand():
                continue  # a subcommand no flag of the program names: its flags are unknown here
            deltas = _one_per_successor(for_scope(deltas, scope, inputs.base_facts))
        for delta in deltas:
            if (ref.kind == "flag") != (delta.old.kind == "flag") or delta.old.kind == "key":
                continue  # config keys: keys.py
            if delta.kind == "changed":
                _changed(inputs, doc, ref, delta, out)
                continue
            if _still_known(inputs, ref, scope if ref.kind == "flag" else None):
                continue  # another source (or parser of the program) still defines it
            if delta.old.kind == "flag" and inputs.own.declared_elsewhere(delta.old.token, inputs.rule):
                continue  # moved to a module the rule does not read: not gone, only out of sight
            if _overrode_a_base(inputs, delta.old):
                continue  # the base class of another package still has the field: unknown
            if _is_choice(delta.old) and (
                _choices_unknown(delta.old, inputs.head_facts)
                or not _cites_choice(doc, ref, delta.old, inputs.base_facts)
            ):
                continue
            _gone(inputs, doc, ref, delta, out)
    _claims(inputs, page, found, out)


def _one_per_successor(deltas: list[Delta]) -> list[Delta]:
    """A flag several subcommands shared, gone from all (one option a decorator gives each), is
    a delta of each subcommand: a line naming none of them hears of it once, from the first."""
    seen: set[tuple[str, str | None]] = set()
    out = []
    for d in deltas:
        if d.kind != "changed":
            key = (d.kind, d.new.token if d.new is not None else None)
            if key in seen:
                continue
            seen.add(key)
        out.append(d)
    return out


def for_scope(deltas: Sequence[Delta], scope: Scope, base: Facts) -> list[Delta]:
    """The deltas of a flag's token that concern the program `scope` is about. With no program
    named, a change in meaning counts only when every command line that had the flag agreed on
    what changed: otherwise the doc line may be about any of them."""
    if scope.program is not None:
        # Of the program's, those of the subcommand the line invokes (`tool serve --output`).
        taken = {id(f) for f in scope.flags([d.old for d in deltas])}
        taking = {id(f) for f in scope.flags([d.new for d in deltas if d.new is not None])}
        return [d for d in deltas if id(d.old) in taken or (d.new is not None and id(d.new) in taking)]
    out = []
    for d in deltas:
        if d.kind == "changed" and d.attr is not None:
            olds = [f for f in base.by_token.get(d.old.token, ()) if f.kind == "flag"]
            if len({doclines.normalize_default(f.attr(d.attr)) for f in olds}) > 1:
                continue
        out.append(d)
    return out


def _still_known(inputs: RuleInputs, ref: Ref, scope: Scope | None) -> bool:
    """Does head still have what `ref` cites: for a flag, in the command line (and subcommand)
    the line is about?"""
    if scope is None or scope.program is None:
        return inputs.head_facts.knows(ref.token, flag=ref.kind == "flag")
    return bool(scope.flags(inputs.head_facts.by_token.get(ref.token, ())))


def _names_flag_in_section(doc: DocPage, ref: Ref, flag: str) -> bool:
    first, last = ref.section.line, ref.section.end_line
    return any(r.token == flag for r in (*doc.refs, *doc.mentions) if first <= r.line <= last)


_BULLET_KEY = re.compile(r"[ \t]*[-*+][ \t]+(?:\*\*)?`([^`\s]+)`")


def _bullet_key(line: str) -> str | None:
    m = _BULLET_KEY.match(line)
    return m.group(1) if m else None


def _is_choice(fact: Fact) -> bool:
    return fact.kind == "string" and (fact.group or "").startswith("choices of ")


def _choices_unknown(choice: Fact, head: Facts) -> bool:
    """Does the flag `choice` belonged to still exist with choices nobody can list (checked by
    a `type=` function, or held in an expression)? Its values are then unknown, not removed."""
    flag = (choice.group or "").removeprefix("choices of ")
    return any(f.kind == "flag" and not f.attr("choices") for f in head.by_token.get(flag, ()))


def _cites_choice(doc: DocPage, ref: Ref, choice: Fact, base: Facts) -> bool:
    """Is this bare value (`fsdp`) cited as a choice of its flag, rather than in passing?"""
    flag = (choice.group or "").removeprefix("choices of ")
    first, last = doclines.paragraph(doc, ref.line) if ref.where != "table" else (ref.line, ref.line)
    if any(r.token == flag for n in range(first, last + 1) for r in doc.refs_on(n)):
        return True
    if (
        ref.where == "inline"
        and _bullet_key(doc.lines[ref.line - 1]) == ref.token
        and _names_flag_in_section(doc, ref, flag)
    ):
        # A bullet list whose keys are the flag's choices (`- `fsdp`: ...`, `- `megatron`: ...`),
        # in a section that names the flag: a list of `float16`, `bfloat16` in a guide to data
        # types that never names `--torch-dtype` is about the types, not the flag's choices.
        siblings = set(base.group(choice.group or "")) - {ref.token}
        keys = {_bullet_key(doc.lines[n - 1]) for n in range(first, last + 1)}
        return bool(siblings & keys)
    if ref.where == "table":
        siblings = set(base.group(choice.group or ""))
        return any(
            r.where == "table" and r.column == ref.column and r.token in siblings and r.token != ref.token
            for r in doc.refs
            if r.section == ref.section
        )
    return False


def _overrode_a_base(inputs: RuleInputs, old: Fact) -> bool:
    """Was `old` a field overriding one of another package's base class (check/overrides.py)?"""
    if old.kind != "flag" or not old.attr("open"):
        return False
    text = inputs.base.read(old.path)
    return text is not None and overrides_a_base(text, old.line)


def _gone(inputs: RuleInputs, doc: DocPage, ref: Ref, delta: Delta, out: Findings) -> None:
    old, new = delta.old, delta.new
    code = inputs.code_line(old, new)
    if new is not None:
        turned = _turned_around(old, new)
        out.emit(
            "renamed",
            ref.token,
            wording.renamed(old, new)
            + (wording.turned_around(new) if turned else "")
            + wording.rename_evidence(delta.because),
            doc=doc,
            line=ref.line,
            code=code,
            edit=None if turned else _renaming(ref, old.token, new.token),
            why=wording.why_renamed_because(old, new, delta.because),
        )
        return
    if _command_moved_out(inputs, old, ref.token):
        return  # the whole subcommand left for a module the rule does not read, the flag with it
    if in_submodule(old.path, submodule_folders(inputs.head)):
        return  # its parser now lives in the repository a submodule pins, which is not read here
    if old.token in _HELP and _adds_help(inputs.head.read(inputs.touched.head_path(old.path))):
        return  # declared by hand before, argparse's own now: `-h, --help` is still there
    out.emit(
        "removed",
        ref.token,
        wording.removed(old),
        doc=doc,
        line=ref.line,
        code=code,
        replacement=wording.removal(
            doc.lines[ref.line - 1], ref, doc.lines[ref.line] if ref.line < len(doc.lines) else None
        ),
        why=wording.why_removed(old, inputs.rule.id),
    )


# Words of a switch's name whose swap turns it around: `--modern-ui` gave way to `--legacy-ui`,
# whose default is the old behaviour. A line about the old switch says the opposite of the new one.
_OPPOSITES = {
    frozenset(pair)
    for pair in (
        ("modern", "legacy"),
        ("new", "old"),
        ("enable", "disable"),
        ("with", "without"),
        ("allow", "deny"),
        ("include", "exclude"),
        ("show", "hide"),
        ("on", "off"),
    )
}


def _renaming(ref: Ref, old: str, new: str) -> tuple[str, str]:
    """The token replacement a rename suggests: a list item's head is the bare name
    (`- lora_rank:` becomes `- lora_r:`)."""
    if ref.where == "item" and old.startswith("--") and new.startswith("--"):
        return old[2:], new[2:]
    return old, new


def _turned_around(old: Fact, new: Fact) -> bool:
    """Is `new` the switch `old` was, named for the opposite (one word swapped for its opposite)?"""
    if old.kind != "flag" or not old.attr("sets") or not new.attr("sets"):
        return False
    before, after = old.token.lstrip("-").split("-"), new.token.lstrip("-").split("-")
    if len(before) != len(after):
        return False
    swapped = [frozenset((a, b)) for a, b in zip(before, after, strict=True) if a != b]
    return len(swapped) == 1 and swapped[0] in _OPPOSITES


_HELP = frozenset({"-h", "--help"})


def _adds_help(text: str | None) -> bool:
    """Does the module make an argparse (or configargparse, or a subclass's) parser not told
    `add_help=False`? Such a parser has `-h, --help` of its own, with no add_argument call for
    it; one given `add_help=add_help` may be made with it."""
    if text is None or "ArgumentParser(" not in text and "ArgParser(" not in text:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if not name.endswith(("ArgumentParser", "ArgParser")):
            continue
        told = next((k.value for k in node.keywords if k.arg == "add_help"), None)
        if not (isinstance(told, ast.Constant) and told.value is False):
            return True
    return False


def _command_moved_out(inputs: RuleInputs, old: Fact, token: str) -> bool:
    """Did the subcommand `old` belonged to leave the rule's parsers altogether, while a module
    of the repository still declares the flag (axolotl's `lm-eval`, now a plugin's command)?"""
    where = old.attr("subcommand")
    if not where or any(f.attr("subcommand") == where for f in inputs.head_facts.facts if f.kind == "flag"):
        return False
    # A command left with no option of its own has no facts: its module still names it.
    text = inputs.head.read(old.path) or ""
    names = {w for path in where.split(",") for w in (path.split()[-1], path.split()[-1].replace("-", "_"))}
    if any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) for name in names):
        return False
    return inputs.own.declared_somewhere(token)


def _changed(inputs: RuleInputs, doc: DocPage, ref: Ref, delta: Delta, out: Findings) -> None:
    old, new = delta.old, delta.new
    assert new is not None
    code = inputs.code_line(old, new)
    was, now = doclines.normalize_default(delta.old_value), doclines.normalize_default(delta.new_value)
    if delta.attr == "default" and old.attr("sets") is not None and {was, now} == {"True", "False"}:
        # A switch whose default flipped: the page telling readers to pass it now tells them to
        # do nothing. Said once a section, and not where the line names both of the pair
        # (`[--x | --no-x]`: right whatever the default). A switch that starts to matter makes
        # no line wrong. What passing it sets is the head's: a click flag's value is the opposite
        # of its default, so its flip is a change of polarity (said as one), not a no-op.
        sets = new.attr("sets") or old.attr("sets")
        noop = now == ("True" if sets == "true" else "False")
        if noop and _first_in_section(doc, ref) and not _names_opposite(doc, ref, old, inputs.base_facts):
            out.emit(
                "changed",
                ref.token,
                wording.switch_flipped(old.key, was, now, noop),
                doc=doc,
                line=ref.line,
                code=code,
            )
    elif delta.attr == "sets":
        out.emit(
            "changed",
            ref.token,
            wording.polarity_changed(ref.token, old, new),
            doc=doc,
            line=ref.line,
            code=code,
            why=wording.why_polarity_changed(old, new),
        )
    elif delta.attr == "choices" and new.attr("choices"):
        # No choices at head (dropped, or a `Literal` moved behind an alias) restricts no value.
        allowed = (new.attr("choices") or "").split(",")
        before = (old.attr("choices") or "").split(",")
        for value in doclines.cited_values(ref.value, before + allowed):
            if value in before and not takes_choice(
                value, allowed, new.attr("type"), new.attr("case_sensitive")
            ):
                message = wording.choice_dropped(value, ref.token, allowed)
                out.emit("changed", f"{ref.token} {value}", message, doc=doc, line=ref.line, code=code)
    elif delta.attr == "type":
        for value in doclines.cited_values(ref.value):
            if not _fits_type(value, new.attr("type")) and _fits_type(value, old.attr("type")):
                message = wording.type_changed(ref.token, value, old, new)
                out.emit("changed", f"{ref.token} {value}", message, doc=doc, line=ref.line, code=code)


def _first_in_section(doc: DocPage, ref: Ref) -> bool:
    return next(r for r in doc.refs if r.token == ref.token and r.section == ref.section) == ref


def _names_opposite(doc: DocPage, ref: Ref, flag: Fact, base: Facts) -> bool:
    """Does the line also cite the switch that sets `flag`'s destination the other way?"""
    opposite = {
        f.token
        for f in base.flags()
        if f.key == flag.key and f.path == flag.path and f.attr("sets") not in (None, flag.attr("sets"))
    }
    return any(r.token in opposite for r in doc.refs_on(ref.line))


def _fits_type(value: str, type_name: str | None) -> bool:
    try:
        if type_name == "int":
            int(value)
        elif type_name == "float":
            float(value)
    except ValueError:
        return False
    return True


def _claims(inputs: RuleInputs, page: Page, found: Deltas, out: Findings) -> None:
    """Default claims (in the rule's sections of the page) that were true at base and are false at head."""
    doc = page.doc
    aliases = doclines.flag_aliases(doc)
    for claim in doc.claims:
        if not doclines.in_scope(claim.section.path, page.sections):
            continue
        if claim.subject is None and (
            len(owners := inputs.base_facts.choice_owners(claim.value)) != 1
            or not doclines.may_mean(doc, owners[0].token)
        ):
            continue  # a bare value is a claim about the one flag offering it (doclines.may_mean)
        if claim.subject is not None and is_external(claim.subject, inputs.rule.external):
            continue
        about = list(_claim_deltas(claim, found, aliases))
        if not about:
            continue  # no default it may claim changed: which program it is about does not matter
        scope = inputs.own.line_scope(doc, claim.line, claim.subject, page.program)
        if scope is None:
            continue  # a claim about another program's flag
        for delta in for_scope(about, scope, inputs.base_facts):
            old, new = delta.old, delta.new
            assert new is not None
            was_true = doclines.same_default(claim.value, delta.old_value)
            if not was_true or doclines.same_default(claim.value, delta.new_value):
                continue  # wrong at base already, or still right at head
            new_default = delta.new_value
            edit = None
            # A "Default:" row describes the old default's behaviour: renaming its value
            # would make the row wrong in a new way, so it gets the finding without a rewrite.
            line = doc.lines[claim.line - 1]
            row_claim = doclines.first_cell_token(line) is not None and old.token in line.split("|")[1]
            if row_claim and in_default_column(doc, claim.line, claim.col):
                row_claim = False  # the row's Default cell says the default and nothing else
            if not doclines.is_mark(claim.text) and new_default is not None and not row_claim:
                edit = wording.claim_edit(claim, doclines.in_unit_of(claim.value, new_default), line)
            out.emit(
                "changed",
                new.token,
                wording.default_changed(new.token, delta.old_value, new_default, claim.value),
                doc=doc,
                line=claim.line,
                code=inputs.code_line(old, new),
                edit=edit,
            )


def _claim_deltas(claim: DefaultClaim, found: Deltas, aliases: dict[str, str]) -> Iterable[Delta]:
    """The default changes of the flag the claim is about."""
    for token_deltas in found.values():
        for d in token_deltas:
            if d.kind != "changed" or d.attr != "default" or d.old.kind != "flag":
                continue
            if d.old.token.startswith("--no-"):
                continue
            if claim.subject is None:
                choices = (d.old.attr("choices") or "").split(",")
                if claim.value in choices:
                    yield d
            elif claim.subject in (d.old.token, d.old.key) or aliases.get(claim.subject) == d.old.token:
                yield d
