"""The keys of a config file that sets a program's options (configargparse: each long option
without its dashes, `expect-workers = 5` for `--expect-workers`), against the page blocks that
set them: a flag renamed or removed makes its key in a page's INI, TOML or YAML block as stale
as `--expect-workers` in a command.

A block is taken for the program's config file only when it sets two or more keys that are its
options side by side (a compose file's `host:` alone is about something else), under one section
path: the file's top (`app.conf`) or the table the program reads (`[tool.app]`), whichever the
page writes.
"""

from __future__ import annotations

from collections import Counter

from bot.core.check import wording
from bot.core.check.deltas import Deltas
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.near import closest
from bot.core.model import Fact
from bot.core.page import Ref

MIN_KEYS = 2  # option keys a block must set to be the program's config file


def config_flags(facts: list[Fact]) -> dict[str, Fact]:
    """Config key -> the long option a config file sets with it."""
    return {
        f.token[2:]: f
        for f in facts
        if f.kind == "flag" and f.attr("configfile") and f.token.startswith("--") and len(f.token) > 2
    }


def stale_keys(inputs: RuleInputs, page: Page, found: Deltas, out: Findings) -> None:
    """code -> doc: a block's key whose option the change renamed or removed."""
    base = config_flags([f for token in found for f in inputs.base_facts.by_token.get(token, ())])
    if not base:
        return  # the change renamed or removed no option a config file sets
    every = config_flags(list(inputs.base_facts.flags()))
    refs = [r for r in page.refs if r.kind == "key" and r.where == "fence"]
    blocks = _blocks(page, refs)
    settings = Counter(blocks[id(r)] for r in refs if _leaf(r) in every)
    for ref in refs:
        flag = base.get(_leaf(ref))
        if (
            flag is None
            or settings[blocks[id(ref)]] < MIN_KEYS
            or is_external(flag.token, inputs.rule.external)
        ):
            continue
        if inputs.head_facts.knows(flag.token, flag=True):
            continue  # another parser of the rule still declares it
        gone = [d for d in found.get(flag.token, ()) if d.kind != "changed"]
        renamed = {d.new.token for d in gone if d.kind == "renamed" and d.new is not None}
        if len(renamed) == 1 and len(gone) == len([d for d in gone if d.kind == "renamed"]):
            new = next(d.new for d in gone if d.new is not None)
            if new.token.startswith("--"):
                _renamed(inputs, page, ref, flag, new, out)
                continue
        if gone:
            out.emit(
                "removed",
                _leaf(ref),
                wording.key_of_flag_removed(_leaf(ref), flag),
                doc=page.doc,
                line=ref.line,
                code=inputs.code_line(flag, None),
                why=wording.why_removed(flag, inputs.rule.id),
            )


def unknown_keys(inputs: RuleInputs, page: Page, out: Findings) -> None:
    """doc -> code: a key a line the change wrote sets in a block of the program's options that
    is none of them but a near miss of one (`expect-worker = 5`). configargparse refuses a key
    it does not know; one far from every option is left alone, since the block may be another
    program's file that shares a few names."""
    every = config_flags(list(inputs.head_facts.flags()))
    if not every:
        return
    refs = [r for r in page.refs if r.kind == "key" and r.where == "fence"]
    blocks = _blocks(page, refs)
    settings = Counter(blocks[id(r)] for r in refs if _leaf(r) in every)
    new = {(r.line, r.token) for r in page.new_refs}
    for ref in refs:
        key = _leaf(ref)
        if (ref.line, ref.token) not in new or key in every or ref.value is None:
            continue  # a section's header is no option
        if settings[blocks[id(ref)]] < MIN_KEYS or inputs.head_facts.knows("--" + key, flag=True):
            continue
        near = closest(key, every, 0.85, unique=True)
        if near is None or is_external("--" + key, inputs.rule.external):
            continue
        out.emit(
            "unresolved",
            key,
            wording.key_of_no_flag(key, near),
            doc=page.doc,
            line=ref.line,
            edit=(key, near),
        )


def _renamed(inputs: RuleInputs, page: Page, ref: Ref, old: Fact, new: Fact, out: Findings) -> None:
    key, new_key = old.token[2:], new.token[2:]
    out.emit(
        "renamed",
        key,
        wording.key_of_flag_renamed(key, new_key, new),
        doc=page.doc,
        line=ref.line,
        code=inputs.code_line(old, new),
        edit=(key, new_key),
        why=wording.why_renamed(old, new),
    )


def _blocks(page: Page, refs: list[Ref]) -> dict[int, int]:
    """id of each key ref -> the run of keys it sets with: keys of one section on lines with
    nothing between them but blank lines and other keys (a fence's edge, prose or another
    section starts a new run)."""
    keyed = {r.line for r in refs}
    out: dict[int, int] = {}
    run, last = 0, None
    for ref in sorted(refs, key=lambda r: r.line):
        if last is not None and (
            _section(ref) != _section(last)
            or any(page.doc.lines[n - 1].strip() and n not in keyed for n in range(last.line + 1, ref.line))
        ):
            run += 1
        out[id(ref)] = run
        last = ref
    return out


def _leaf(ref: Ref) -> str:
    return ref.token.rpartition(".")[2]


def _section(ref: Ref) -> str:
    return ref.token.rpartition(".")[0]
