"""doc -> code: lines the change wrote must cite flags, choices, paths and names that exist at
head (`unresolved`), and claim the defaults the code has (`wrong-default`)."""

from __future__ import annotations

from bot.core.check import paths, wording
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs, cites_paths
from bot.core.check.near import closest
from bot.core.doclines import flag_aliases, in_scope, is_mark, normalize_default
from bot.core.facts import Facts
from bot.core.model import CodeLocation, Fact
from bot.core.page import DefaultClaim, DocPage, Ref

# What a script that parses its own command line contains.
_CLI_MARKERS = ("argparse", "add_argument(", "import click", "import typer", "getopt", "sys.argv")


def doc_to_code(inputs: RuleInputs, page: Page, out: Findings) -> None:
    doc, refs, head = page.doc, page.new_refs, inputs.head_facts
    check_paths = cites_paths(inputs.rule)
    names = {f.token for f in head.facts if f.kind != "flag"}
    flag_tokens = {f.token for f in head.flags()}
    for ref in refs:
        if is_external(ref.token, inputs.rule.external):
            continue
        if ref.kind == "flag":
            _resolve_flag(inputs, doc, ref, flag_tokens, out)
        elif ref.kind == "path" and check_paths:
            paths.unresolved(inputs, doc, ref, out)
        elif ref.kind == "name" and ref.token not in names and len(ref.token) >= 6:
            # Only near misses of known names: most names a page cites (`torch_dist`,
            # `config.json`) come from elsewhere, and short ones (`fsdp2`) sit close to
            # everything.
            near = closest(ref.token, names, 0.85)
            if near is not None and near not in {r.token for r in doc.refs_on(ref.line)}:
                out.emit(
                    "unresolved",
                    ref.token,
                    wording.unknown_name(ref.token, near),
                    doc=doc,
                    line=ref.line,
                    edit=(ref.token, near),
                )
    changed_lines = {r.line for r in refs}
    for claim in doc.claims:
        if claim.line in changed_lines and in_scope(claim.section.path, page.sections):
            _check_claim(doc, claim, head, flag_aliases(doc), out)


def _resolve_flag(inputs: RuleInputs, doc: DocPage, ref: Ref, flag_tokens: set[str], out: Findings) -> None:
    facts = [f for f in inputs.head_facts.by_token.get(ref.token, ()) if f.kind == "flag"]
    if not facts and _own_cli(inputs, ref.program):
        return  # `python tools/convert.py --input x`: that script's flags, not the rule's
    if not facts:
        near = closest(ref.token, flag_tokens, 0.6)
        out.emit(
            "unresolved",
            ref.token,
            wording.unknown_flag(ref.token, near),
            doc=doc,
            line=ref.line,
            edit=(ref.token, near) if near else None,
        )
        return
    choices = facts[0].attr("choices")
    if ref.value is not None and choices:
        allowed = choices.split(",")
        if ref.value not in allowed and not is_external(ref.value, inputs.rule.external):
            near = closest(ref.value, allowed, 0.6)
            out.emit(
                "unresolved",
                f"{ref.token} {ref.value}",
                wording.not_a_choice(ref.value, ref.token, allowed),
                doc=doc,
                line=ref.line,
                code=CodeLocation(facts[0].path, facts[0].line),
                edit=(ref.value, near) if near else None,
            )


def _own_cli(inputs: RuleInputs, program: str | None) -> bool:
    """Is `program` a script in the repository that parses its own command line?"""
    if program is None:
        return False
    path = program.removeprefix("./")
    if any(path in s.paths for s in inputs.rule.sources):
        return False
    text = inputs.head.read(path)
    return text is not None and any(m in text for m in _CLI_MARKERS)


def _check_claim(
    doc: DocPage, claim: DefaultClaim, head: Facts, aliases: dict[str, str], out: Findings
) -> None:
    flags: list[Fact] = []
    if claim.subject is None:
        flags = head.choice_owners(claim.value)
        if len(flags) != 1:
            return
    else:
        flags = [
            f
            for f in head.flags()
            if (claim.subject in (f.token, f.key) or aliases.get(claim.subject) == f.token)
            and not f.token.startswith("--no-")
        ]
    if not flags:
        return
    flag = flags[0]
    actual = flag.attr("default")
    if actual is None or normalize_default(actual) in ("None", normalize_default(claim.value)):
        return  # None means "decided at run time": the doc's default cannot be checked against it
    mark = claim.subject is None and is_mark(claim.text)
    out.emit(
        "wrong-default",
        flag.token,
        wording.wrong_default(flag.token, actual, claim.value, mark=mark),
        doc=doc,
        line=claim.line,
        code=CodeLocation(flag.path, flag.line),
        edit=None if mark else wording.claim_edit(claim, actual),
    )
