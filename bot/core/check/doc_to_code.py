"""doc -> code: lines the change wrote must cite flags, choices, paths and names that exist at
head (`unresolved`), and claim the defaults the code has (`wrong-default`)."""

from __future__ import annotations

import posixpath
import re

from bot.core import doclines, lazyre
from bot.core.check import paths, spellings, undeclared_spellings, wording
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.near import closest, fits_name, misspelt, subject
from bot.core.check.ownership import PLACEHOLDER_WORD, Scope, is_fragment
from bot.core.check.touched import cites_paths
from bot.core.extract.argparse_calls import takes_choice
from bot.core.kinds import FLAG_KINDS
from bot.core.model import CodeLocation, Fact
from bot.core.page import DefaultClaim, DocPage, Ref
from bot.core.programs import invoked, subcommands


def doc_to_code(inputs: RuleInputs, page: Page, out: Findings) -> None:
    doc, refs, head = page.doc, page.new_refs, inputs.head_facts
    check_paths = cites_paths(inputs.rule)
    # A rule that reads no parser has nothing to say about flags (a launcher folder's names).
    check_flags = any(s.kind in FLAG_KINDS for s in inputs.rule.sources)
    # Names a page may misspell: symbols and the sets the rule reads, not a flag's choices
    # (prose cites values of other things that sit close to those: `qwen35`, `qwen3`).
    names = {f.token for f in head.facts if f.kind == "symbol" or (f.kind == "string" and not _is_choice(f))}
    for ref in refs:
        if is_external(ref.token, inputs.rule.external):
            continue
        if ref.kind == "flag":
            if not check_flags:
                continue
            scope = inputs.own.scope(doc, ref, page.program)
            if scope is not None:
                _resolve_flag(inputs, doc, ref, scope, out)
        elif ref.kind == "path" and check_paths:
            paths.unresolved(inputs, doc, ref, out)
        elif (
            ref.kind == "name"
            and ref.token not in names
            and len(ref.token) >= 6
            and not inputs.others.word(ref.token)
        ):
            # Only near misses of known names: most names a page cites (`torch_dist`,
            # `config.json`) come from elsewhere, and short ones (`fsdp2`) sit close to
            # everything.
            near = closest(ref.token, names, 0.85)
            if near is not None and near not in {r.token for r in doc.refs_on(ref.line)}:
                message = wording.unknown_name(ref.token, near)
                out.emit("unresolved", ref.token, message, doc=doc, line=ref.line, edit=(ref.token, near))
    _row_choices(inputs, page, out)
    changed_lines = {r.line for r in refs}
    run: frozenset[str] | None = None  # the page's programs' modules, read for the first claim
    for claim in doc.claims:
        if claim.subject is not None and is_external(claim.subject, inputs.rule.external):
            continue
        if claim.line in changed_lines and doclines.in_scope(claim.section.path, page.sections):
            scope = inputs.own.line_scope(doc, claim.line, claim.subject, page.program)
            if scope is not None:
                run = _run_parsers(inputs, doc) if run is None else run
                _check_claim(doc, claim, scope.flags(head.facts), doclines.flag_aliases(doc), out, run)


def _row_choices(inputs: RuleInputs, page: Page, out: Findings) -> None:
    """A table row about one flag that lists its choices in a cell (`grpo`, `gspo`, `ppo`): every
    value of that list must still be one. Two of them at least must be, or the cell is not
    the flag's list of choices. A row no program owns, about a flag two command lines declare
    with other choices (a server's `--dtype` and a benchmark's), is judged by neither."""
    doc = page.doc
    rows: dict[int, list[Ref]] = {}
    for ref in page.new_refs:
        if ref.where == "table":
            rows.setdefault(ref.line, []).append(ref)
    for line, cells in rows.items():
        flag = cells[0]
        if flag.kind != "flag" or doclines.first_cell_token(doc.lines[line - 1]) != flag.token:
            continue
        if is_external(flag.token, inputs.rule.external):
            continue
        scope = inputs.own.scope(doc, flag, page.program)
        facts = scope.flags(inputs.head_facts.by_token.get(flag.token, ())) if scope else []
        choices = (facts[0].attr("choices") or "").split(",") if facts else []
        if not choices or not choices[0] or any(f.attr("choices") != facts[0].attr("choices") for f in facts):
            continue  # none, or two command lines' flags of that name taking other values: whose?
        columns: dict[str | None, list[Ref]] = {}
        for ref in cells[1:]:
            if ref.kind in ("name", "value"):
                columns.setdefault(ref.column, []).append(ref)
        for column in columns.values():
            for values in _lists(doc.lines[line - 1], column):
                if sum(v.token in choices for v in values) < 2:
                    continue
                for v in values:
                    if v.token not in choices and not is_external(v.token, inputs.rule.external):
                        out.emit(
                            "unresolved",
                            f"{flag.token} {v.token}",
                            wording.not_a_choice(v.token, flag.token, choices),
                            doc=doc,
                            line=line,
                            code=CodeLocation(facts[0].path, facts[0].line),
                        )


# What separates the items of a list a sentence writes: `a`, `b`, or `c`; `a` / `b`.
_LIST_GAP = lazyre.compile(r"[\s,/|`]*(?:(?:or|and)\b[\s`]*)?")


def _lists(text: str, refs: list[Ref]) -> list[list[Ref]]:
    """The refs of one cell grouped into the lists the text writes them in."""
    out: list[list[Ref]] = []
    placed = sorted((r for r in refs if r.col is not None), key=lambda r: r.col or 0)
    for ref in placed:
        if out:
            last = out[-1][-1]
            gap = text[(last.col or 0) + len(last.token) : ref.col]
            if _LIST_GAP.fullmatch(gap):
                out[-1].append(ref)
                continue
        out.append([ref])
    return out


def _is_choice(fact: Fact) -> bool:
    return (fact.group or "").startswith("choices of ")


def _names_one_flag(token: str) -> bool:
    """`--debug-*-only`, `--fp8-`, `--<name>`, `--{script-argument}`, `--no-OPTION` and
    `--override.flags` (a group's flags) name families of flags, and `--something-path` a flag
    the reader makes up: not a flag."""
    return (
        not any(c in token for c in "*<>{}")
        and not token.endswith("-")
        and not PLACEHOLDER_WORD.search(token)
        and not _CAPITAL_WORD.search(token)
        and not ("." in token and token.rpartition(".")[2] in ("flags", "options"))
    )


# A word of capitals in a long option stands for any option: `--no-OPTION`, `--OPTIONS`.
_CAPITAL_WORD = lazyre.compile(r"(?:^--|-)[A-Z]{3,}(?:$|-)")


def _negated_family(doc: DocPage, token: str, known: list[Fact]) -> bool:
    """`--no-style` on a page saying every option has its `--no-OPTION` (HTTPie makes them at
    run time): a flag the parser has, negated as the page says."""
    family = any(
        r.kind == "flag" and r.token.startswith("--no-") and _CAPITAL_WORD.search(r.token) for r in doc.refs
    )
    return family and token.startswith("--no-") and any(f.token == "--" + token[5:] for f in known)


# `the --disallow-any family of flags`: the words after a flag naming the flags that go on from it.
_FAMILY_AFTER = lazyre.compile(r"[`*_]*\s+famil(?:y|ies)\b", re.IGNORECASE)


def _family_named(doc: DocPage, ref: Ref, known: list[Fact]) -> bool:
    """`The --disallow-any family of flags` (mypy's `--disallow-any-expr`, `--disallow-any-generics`,
    ...): the flags the parser has that go on from the one named, two at least, not a flag."""
    if ref.col is None or not 0 < ref.line <= len(doc.lines):
        return False
    after = doc.lines[ref.line - 1][ref.col + len(ref.token) :]
    if not _FAMILY_AFTER.match(after):
        return False
    return sum(f.token.startswith(ref.token + "-") for f in known) >= 2


# argparse gives every parser these unless told not to.
_BUILTIN_FLAGS = frozenset({"-h", "--help"})


# Calls that declare a flag in a snippet: argparse's, pytest's (a conftest.py), click's, typer's.
_DECLARING_SNIPPET = lazyre.compile(r"\b(?:add_argument|addoption|option|Option)\(")


def declared_by_page(doc: DocPage, token: str) -> bool:
    """Does the page's own snippet declare the flag (`parser.addoption("--runslow", ...)` in the
    conftest.py it shows)? Then the page defines it for its example: no flag of ours is meant."""
    if token not in doc.text or not _DECLARING_SNIPPET.search(doc.text):
        return False
    return f'"{token}"' in doc.text or f"'{token}'" in doc.text


def _resolve_flag(inputs: RuleInputs, doc: DocPage, ref: Ref, scope: Scope, out: Findings) -> None:
    facts = (
        scope.flags(inputs.head_facts.by_token.get(ref.token, ()))
        or _spelt_otherwise(inputs, ref.token, scope)
        or _abbreviated(inputs, ref, scope)
        or _abbreviated_as_passed(inputs, doc, ref)
    )
    if not facts:
        if ref.token in _BUILTIN_FLAGS or not _names_one_flag(ref.token) or inputs.others.flag(ref.token):
            return  # argparse's own, a family of flags, or another project's (others.py)
        if _key_of_a_flag(inputs, ref.token, scope):
            return  # `--compilation-config.mode`: a key of the flag's value, which no parser lists
        if _negative_of_unknown_action(inputs, ref.token, scope):
            return  # `--no-x` of a `--x` whose action a mapping of keywords may make BooleanOptional
        if scope.unread_subcommand():
            return  # a subcommand no flag of the program names: its flags are unknown here
        if (
            ref.command is None
            and scope.program is not None
            and inputs.head_facts.knows(ref.token, flag=True)
        ):
            return  # prose near one program's command, citing another program of the rule's flag
        short = scope.program is None and not ref.token.startswith("--")
        # A flag given to a command of ours must be that command's; one cited on its own may be
        # any of the repository's command lines'.
        cited_alone = ref.command is None or is_fragment(ref.command)
        # A flag the program declares for other subcommands only: the scripts passing it (to
        # those) say nothing of this one.
        elsewhere = _of_other_subcommands(inputs, ref.token, scope)
        if (
            short
            or (not elsewhere and inputs.own.passed_by_scripts(ref.token, scope.program))
            or (cited_alone and inputs.own.declared_somewhere(ref.token, not _group_read(ref.token, inputs)))
            or inputs.own.declared_unread(ref.token, scope.program)
            or inputs.own.declared_by_plugin(ref.token)
            or declared_by_page(doc, ref.token)
            or (
                cited_alone
                and ref.where != "fence"  # a help listing's rows are its own program's
                and (
                    (scope.program is None and inputs.own.runs_open(doc))
                    or inputs.own.runs_built(doc, ref.line)
                )
            )
        ):
            # With no program named, a short flag (`-f`) may be anyone's; a flag the
            # repository's own scripts pass, or one of its modules declares (a launcher's, a
            # test runner's option), or one a program the page runs takes unread (its leftover
            # arguments), is one of a command line it runs: only nobody's is said.
            # Cited on its own in a section running nothing of ours, on a page running a
            # binary the repository builds (a Rust or C++ command line), it may be that binary's.
            return
        known = scope.flags(inputs.head_facts.facts)
        near = _near_flag(ref.token, _of_heading_script(doc, ref, known))
        if near in _cited_beside(doc, ref) or _spaced_out(ref, known):
            near = None  # the line cites it too: the token is something else
        if (
            open_parser_takes(ref.token, _open_to(inputs, doc, scope, known), _item_flag(doc, ref.line))
            or _negated_family(doc, ref.token, known)
            or _family_named(doc, ref, known)
            or undeclared_spellings.taken_by_shape(ref.token, known)
        ):
            return
        if doclines.shown_refused(doc, ref.line, ref.token):
            return  # the page shows the program refusing it
        if doclines.not_yet_there(doc, ref.line, ref.token):
            return  # the sentence says the code does not have it yet
        if doclines.no_longer_there(doc, ref.line, ref.token):
            return  # the sentence says the code had it once
        if elsewhere:
            # The program has it, under another subcommand: no other flag of this one is meant.
            message = wording.other_subcommands_flag(
                ref.token, invoked(scope.args, scope.paths or ()), elsewhere
            )
            out.emit("unresolved", ref.token, message, doc=doc, line=ref.line)
            return
        edit = (ref.token, near) if near else None
        out.emit(
            "unresolved", ref.token, wording.unknown_flag(ref.token, near), doc=doc, line=ref.line, edit=edit
        )
        return
    choices = facts[0].attr("choices")
    if not choices or any(f.attr("choices") != choices for f in facts):
        return  # a flag of that name that takes other values (`pdm lock --with`, `venv --with`)
    if scope.program is None and ref.command is None and inputs.own.runs_unread(doc):
        return  # cited on its own, on a page running a program we cannot read: its flag, maybe
    allowed = choices.split(",")
    # The value placeholder a help listing shows (`--capture=method`) is no choice cited.
    placeholders = {m.lower() for f in facts if (m := f.attr("metavar"))}
    for value in doclines.cited_values(ref.value, allowed):
        if value.lower() in placeholders:
            continue
        if all(takes_choice(value, allowed, f.attr("type"), f.attr("case_sensitive")) for f in facts):
            continue  # the flag's `type=` (or click's case folding) makes it a choice
        if value not in allowed and not is_external(value, inputs.rule.external):
            near = closest(value, allowed, 0.6)
            if near is not None and not misspelt(value, near):
                near = None  # another word (`cpu_offload_all` is not `sac_and_offload`): no guess
            out.emit(
                "unresolved",
                f"{ref.token} {value}",
                wording.not_a_choice(value, ref.token, allowed),
                doc=doc,
                line=ref.line,
                code=CodeLocation(facts[0].path, facts[0].line),
                edit=(value, near) if near else None,
            )


def _of_other_subcommands(inputs: RuleInputs, token: str, scope: Scope) -> list[tuple[str, ...]]:
    """The subcommands of the command's program that take `token`, when the one the command
    invokes does not (`lmdeploy lite auto_awq --max-log-len`, a flag of `lmdeploy serve
    api_server`)."""
    if scope.program is None or invoked(scope.args, scope.paths or ()) is None:
        return []
    facts = [f for f in inputs.head_facts.by_token.get(token, ()) if f.kind == "flag" and scope.takes(f)]
    return sorted({p for f in facts for p in subcommands(f) if p})


def _spaced_out(ref: Ref, known: list[Fact]) -> bool:
    """Is the flag with the word after it one of `known` written with a space for its separator
    (`--gradient accumulation` for `--gradient_accumulation_steps`)? Then the flag nearest to its
    first word (`--gradient_clip`) is not the one meant."""
    if not ref.value or not ref.value.isidentifier():
        return False
    spelt = (f"{ref.token}_{ref.value}", f"{ref.token}-{ref.value}")
    return any(f.token.startswith(spelt) for f in known)


_SCRIPT_WORD = lazyre.compile(r"[\w./-]+\.py\b")


def _of_heading_script(doc: DocPage, ref: Ref, known: list[Fact]) -> list[Fact]:
    """The flags of the script `ref`'s heading names (### Profiler (`profiler.py`)), when it is
    one of the rule's: a flag that section lists is offered among that script's flags only, not
    a sibling script's (`--with_stack` is not `--with_tracking` of another example)."""
    folder = posixpath.dirname(doc.path)
    for word in _SCRIPT_WORD.findall(doc.section_at(ref.line).title):
        paths = {posixpath.normpath(posixpath.join(folder, word)), posixpath.normpath(word)}
        mine = [f for f in known if f.path in paths]
        if mine:
            return mine
    return known


def _cited_beside(doc: DocPage, ref: Ref) -> set[str]:
    """The other flags `ref`'s line cites (in either spelling): `--dp-size 8 --tp-size 2` means
    neither as the other, so neither is offered for it."""
    out: set[str] = set()
    for r in doc.refs_on(ref.line):
        if r.kind == "flag" and r.token != ref.token:
            out |= {r.token, spellings.other_spelling(r.token) or r.token}
    return out


def _abbreviated(inputs: RuleInputs, ref: Ref, scope: Scope) -> list[Fact]:
    """The flag a prefix given to a command stands for (argparse runs `--trust-remote`); cited
    alone, a prefix names the flag wrongly and is judged as written."""
    if ref.command is None or is_fragment(ref.command):
        return []
    kinds = {s.id: s.kind for s in inputs.rule.sources}
    known = scope.flags(inputs.head_facts.flags())
    if scope.program is not None and scope.programs is not None:
        # The modules the program reaches first: a module presumed to extend every command line
        # of its package (`add_model_args(parser)`, called by others) makes no prefix ambiguous
        # that the program's own parser takes as one flag (`--model` for `--model-name`).
        reached = scope.programs.parsers(scope.program)
        own = [f for f in known if f.path in reached or scope.program in (f.attr("programs") or "").split()]
        found = undeclared_spellings.expanded(ref.token, own, kinds)
        if found:
            return found
    return undeclared_spellings.expanded(ref.token, known, kinds)


def _abbreviated_as_passed(inputs: RuleInputs, doc: DocPage, ref: Ref) -> list[Fact]:
    """The flag a prefix cited in a sentence stands for when a command of its section (or the one
    the sentence introduces) passes that prefix to a program taking it ("Launch it with the
    argument `--register api.json`:" over `python -m app.web --register api.json`; "keep the
    `--controller` the same" after `python -m app.worker --controller http://...`): the sentence
    tells of those commands, which run as written."""
    if ref.command is not None:
        return []
    block = doclines.introduced_block(doc, ref.line)
    section = doc.section_at(ref.line)
    for other in doc.refs:
        if other.kind != "flag" or other.token != ref.token or other.command is None:
            continue
        if (
            not (block is not None and block[0] <= other.line <= block[1])
            and doc.section_at(other.line) != section
        ):
            continue
        scope = inputs.own.scope(doc, other)
        if scope is not None and scope.program is not None:
            found = _abbreviated(inputs, other, scope)
            if found:
                return found
    return []


def _spelt_otherwise(inputs: RuleInputs, token: str, scope: Scope) -> list[Fact]:
    """The flags `--a_b` when `token` is `--a-b` (or the reverse, or a mix of both: tyro's
    `--profiler.no-enable_profiling`) and their parser takes every spelling; or `--a-b` when
    `token` is `--a_b` and their parser dashes the words it is given."""
    dashed = "--" + token[2:].replace("_", "-") if token.startswith("--") else token
    for other in spellings.other_spellings(token):
        facts = scope.flags(inputs.head_facts.by_token.get(other, ()))
        if facts and all(
            f.attr("spelling") == "either"
            or (rewrites := _rewrites(inputs, f, scope)).either
            or (rewrites.dashed and other == dashed)
            for f in facts
        ):
            return facts
    return []


def _rewrites(inputs: RuleInputs, fact: Fact, scope: Scope) -> spellings.Rewrites:
    """What the parser taking `fact` does to its words: the declaring module's, or the program's
    (a subparser hands on the words its program's parser rewrote)."""
    found = inputs.own.rewrites(fact.path)
    if scope.program is None or scope.program == fact.path:
        return found
    program = inputs.own.rewrites(scope.program)
    return spellings.Rewrites(
        found.either or program.either, found.dashed or program.dashed, found.dotted or program.dotted
    )


def _negative_of_unknown_action(inputs: RuleInputs, token: str, scope: Scope) -> bool:
    """`--no-enable-chunked-prefill` where `--enable-chunked-prefill` is declared with keywords
    from a mapping (`**scheduler_kwargs[...]`) that may give it `argparse.BooleanOptionalAction`."""
    if not token.startswith("--no-"):
        return False
    facts = scope.flags(inputs.head_facts.by_token.get("--" + token[5:], ()))
    return bool(facts) and all("action" in (f.attr("unknown") or "").split() for f in facts)


def _key_of_a_flag(inputs: RuleInputs, token: str, scope: Scope) -> bool:
    """`--kv-transfer-config.kv_role`: a flag and a key of its value, given to a parser that reads
    the words after the dot so (bot/core/check/spellings.py)."""
    flag, dot, _ = token.partition(".")
    if not dot or not flag.startswith("--"):
        return False
    facts = scope.flags(inputs.head_facts.by_token.get(flag, ())) or _spelt_otherwise(inputs, flag, scope)
    return bool(facts) and all(_rewrites(inputs, f, scope).dotted for f in facts)


def _group_read(token: str, inputs: RuleInputs) -> bool:
    """Is `token`'s group (`--optimizer` of `--optimizer.name`) one of a tyro command line the
    rule reads? Then its fields are known: another dataclass's field of that name is not it."""
    group = token.partition(".")[0].replace("_", "-") + "."
    return "." in token and any(
        f.attr("spelling") == "either" and f.token.replace("_", "-").startswith(group)
        for f in inputs.head_facts.flags()
    )


def _open_to(inputs: RuleInputs, doc: DocPage, scope: Scope, known: list[Fact]) -> list[Fact]:
    """The flags judging whether an open parser takes a flag `scope` leaves to any program: on a
    page running programs of the rule, the open parsers are those of the programs it runs (a
    training script's base class with fields no file shows takes no flag cited in a page about
    serving); a page running none of ours may be about any of them."""
    if scope.program is not None or not any(f.attr("open") for f in known):
        return known
    runs = [r.scope for r in inputs.own.runs(doc) if r.scope is not None and r.scope.program is not None]
    if not runs:
        return known
    return [f for f in known if not f.attr("open") or any(s.takes(f) for s in runs)]


def open_parser_takes(token: str, known: list[Fact], item: str | None = None) -> bool:
    """Whether a parser with flags it cannot list (another package's base class, a group it
    cannot read, a click command passing unknown options on) may take `token`: only a near miss
    of one of its own flags, in the same group, is a misspelling. Not one of the flag `item`
    its line's list item describes ("- optimizer: the plugin, over `--optim`"): the line names
    both, and the other is meant (transformers' `--optim`, a field no file shows)."""
    if not any(f.attr("open") for f in known):
        return False
    near = _near_flag(token, known)
    return near is None or _group(near) != _group(token) or near.lstrip("-").replace("-", "_") == item


# A parameter list's item: its parameter's name and a colon ("- 🔥optimizer: ...").
_ITEM_HEAD = lazyre.compile(
    r"\s*(?:[-*+]|\d+[.)])\s+[^\w`]{0,4}(?:\*\*|__)?([a-z][a-z0-9_]*)(?:\*\*|__)?\s*[:：]"
)


def _item_flag(doc: DocPage, line: int) -> str | None:
    """The parameter a list item on `line` opens with (`optimizer` of "- optimizer: ..."), if any."""
    m = _ITEM_HEAD.match(doc.lines[line - 1]) if 0 < line <= len(doc.lines) else None
    return m.group(1) if m else None


def _group(token: str) -> str:
    """`--train.micro_batch_size` -> `--train`: the group of a nested flag ("" for none)."""
    return token.rpartition(".")[0]


def _near_flag(token: str, flags: list[Fact]) -> str | None:
    """The flag to offer for `token`, one the code does not have: the closest of those pointing
    the same way (`--disable-x` is never offered `--x`, its opposite) that `token` could be a
    misspelling of (`--no-load-optim`, another program's flag, is not `--no-save-optim`). No
    suggestion beats a wrong one."""
    about = subject(token)
    candidates = {
        f.token
        for f in flags
        if f.kind == "flag"
        and fits_name(token, f)
        and closest(about, [subject(f.token)], 0.6) is not None
        and misspelt(token, f.token)
    }
    # A name cut short (`--nsa-prefill` for `--nsa-prefill-backend`) is the one flag it begins,
    # as argparse would read it, not a flag as near that lacks its first word (`--prefill`).
    longer = {f.token for f in flags if f.kind == "flag" and f.token.startswith((token + "-", token + "_"))}
    if len(longer) == 1 and longer <= candidates:
        return next(iter(longer))
    return closest(token, candidates, 0.6, unique=True)  # of two as near, either is a guess


def _members(default: str | None) -> list[str]:
    """The values of a list or tuple default (`['float32', 'int8']`); none for any other."""
    text = (default or "").strip()
    if not text.startswith(("[", "(")) or not text.endswith(("]", ")")):
        return []
    return [v.strip().strip("'\"") for v in text[1:-1].split(",") if v.strip()]


def _not_its_value(claimed: str, flag: Fact) -> bool:
    """A value the flag cannot hold, or one holding its default among other parts (a path in its
    default folder too): the claim is about something else. `the default `cutedsl_mla`` near
    `--kv-cache-dtype` (whose choices do not include it) is another setting's, and so is a word
    near a number-typed flag; `--host`/`--port` "defaults to `0.0.0.0:29000`" is both."""
    choices = [c for c in (flag.attr("choices") or "").split(",") if c]
    if choices and claimed not in choices and claimed.lower() not in {c.lower() for c in choices}:
        return True
    if flag.attr("type") in ("int", "float") and _WORD.fullmatch(doclines.normalize_default(claimed) or ""):
        return True  # "requires `--accum-freq 1` and ... the default `amp_bf16`": the precision's
    actual = doclines.normalize_default(flag.attr("default"))
    parts = [p for p in _PARTS.split(claimed) if p]
    if len(parts) > 1 and actual in parts:
        return True
    # `prod_env/model_metadata.yaml` "by default" near `--local-path` (default `prod_env`): a file
    # in the flag's default folder, the claim that file's.
    folder = doclines.as_path(actual or "")
    return bool(folder) and folder not in (".", "/") and doclines.as_path(claimed).startswith(folder + "/")


_PARTS = lazyre.compile(r"[:@]")
# A word a number-typed flag cannot hold as its default (`amp_bf16`, `auto`): its own spellings of
# "no value" and infinity aside.
_WORD = lazyre.compile(r"(?!(?:None|inf|nan|True|False)$)[A-Za-z_][A-Za-z0-9_.-]*", re.IGNORECASE)

_SWITCH = ("True", "False")
_SWITCH_WORDS = (*_SWITCH, "0", "1")  # what a switch's default can be written as


def _run_parsers(inputs: RuleInputs, doc: DocPage) -> frozenset[str]:
    """The modules making the command lines the page runs."""
    programs = inputs.own.programs
    if programs is None:
        return frozenset()
    keys = {r.program for r in inputs.own.runs(doc) if r.program is not None}
    return frozenset(p for key in keys for p in programs.parsers(key))


def _table_of(doc: DocPage, claim: DefaultClaim, flag: Fact, flags: list[Fact]) -> bool:
    """Is the claim's table one the flag's command line may be written in? A row of a table
    naming two keys or more is the flag's when two of them are flags of its module or of a
    program taking it: feast's table of an online store's options (`batch_size`, `tags`, ...)
    is not an example script's `--batch-size`."""
    if claim.subject is None or doclines.first_cell_token(doc.lines[claim.line - 1]) != claim.subject:
        return True
    keys = doclines.table_keys(doc, claim.line)
    if len(keys) < 2:
        return True
    programs = set((flag.attr("programs") or "").split())
    mine = {
        n
        for f in flags
        if f.path == flag.path or not programs.isdisjoint((f.attr("programs") or "").split())
        for n in (f.token, f.key)
    }
    return len(keys & mine) >= 2


def _check_claim(
    doc: DocPage,
    claim: DefaultClaim,
    flags_in_scope: list[Fact],
    aliases: dict[str, str],
    out: Findings,
    run: frozenset[str] = frozenset(),
) -> None:
    """`run`: the modules of the command lines the page runs; of two flags alike, the one the
    page's commands take is the one the finding points at."""
    flags: list[Fact] = []
    if claim.subject is None:
        owners: dict[str, Fact] = {}
        for f in flags_in_scope:
            if claim.value in (f.attr("choices") or "").split(",") and not f.token.startswith("--no-"):
                owners.setdefault(f.key, f)
        flags = list(owners.values())
        if len(flags) != 1 or not doclines.may_mean(doc, flags[0].token):
            return
        if claim.value in _members(flags[0].attr("default")):
            return  # "we return `int4` through `float32` by default": a list default, some of it named
    else:
        flags = [
            f
            for f in flags_in_scope
            if (claim.subject in (f.token, f.key) or aliases.get(claim.subject) == f.token)
            and not f.token.startswith("--no-")
        ]
    if not flags or len({doclines.normalize_default(f.attr("default")) for f in flags}) > 1:
        return  # no flag, or two command lines whose defaults differ: which one is meant?
    flag = next((f for f in flags if f.path in run), flags[0])
    if not _table_of(doc, claim, flag, flags_in_scope):
        return
    actual = flag.attr("default")
    if (
        actual is None
        or doclines.normalize_default(actual) == "None"
        or doclines.same_default(claim.value, actual)
    ):
        return  # None means "decided at run time": the doc's default cannot be checked against it
    if _members(actual) == [claim.value.strip("'\"")]:
        return  # `['tensorboard']` of a list flag is what `--report_to tensorboard` gives: the same
    if (
        doclines.normalize_default(actual) in _SWITCH
        and doclines.normalize_default(claim.value) not in _SWITCH_WORDS
    ):
        return  # "`--x true` serves at `/v1` instead of the default `/predict`": another thing's default
    if _not_its_value(claim.value, flag):
        return
    mark = claim.subject is None and doclines.is_mark(claim.text)
    out.emit(
        "wrong-default",
        flag.token,
        wording.wrong_default(flag.token, actual, claim.value, mark=mark),
        doc=doc,
        line=claim.line,
        code=CodeLocation(flag.path, flag.line),
        edit=None
        if mark
        else wording.claim_edit(claim, doclines.in_unit_of(claim.value, actual), doc.lines[claim.line - 1]),
    )
