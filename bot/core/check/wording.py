"""The words of a finding: its message, its longer explanation and the text it suggests.

Every sentence a check hands out is written here, so the checks hold only the decisions and
the wording reads the same across them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.core.doclines import display, first_cell_token, replace_token
from bot.core.model import Fact, ParseError
from bot.core.page import DefaultClaim, Ref

if TYPE_CHECKING:
    from bot.core.check.evidence import Because

# -- suggested text ------------------------------------------------------------------------------


def fixed_line(original: str, edits: Iterable[tuple[str, str]]) -> str:
    """The line with every (old, new) token replacement applied, in order."""
    fixed = original
    for old, new in edits:
        fixed = replace_token(fixed, old, new)
    return fixed


def claim_edit(claim: DefaultClaim, value: str, line: str) -> tuple[str, str] | None:
    """The claim's text on `line` rewritten to state `value` as the default, in the page's
    spelling of a switch (`false` -> `true`, not Python's `True`). When the claim's text is
    written more than once on the line (`| `grpo` | `grpo` or `rloo` |`), the edit widens to
    the text around the claim until it is the line's only one; None when it cannot."""
    new_value = display(value)
    if new_value in ("True", "False") and claim.value.islower():
        new_value = new_value.lower()
    old, new = claim.text, claim.text.replace(claim.value, new_value)
    if line.count(old) <= 1:
        return (old, new)
    if claim.col is None or line[claim.col : claim.col + len(old)] != old:
        return None
    start, end = claim.col, claim.col + len(old)
    while True:
        wide_old = line[start:end]
        wide_new = line[start : claim.col] + new + line[claim.col + len(old) : end]
        if line.count(wide_old) == 1 and replace_token(line, wide_old, wide_new) == (
            line[:start] + wide_new + line[end:]
        ):
            return (wide_old, wide_new)
        if start == 0 and end == len(line):
            return None
        start, end = max(start - 1, 0), min(end + 1, len(line))


def row_deletion(line: str, ref: Ref) -> str | None:
    """ "" (delete the line) when the line is a table row that exists for `ref` alone."""
    if ref.where == "table" and ref.row is not None and first_cell_token(line) == ref.token:
        return ""
    return None


_SPAN = re.compile(r"`([^`\s][^`]*)`")
_BULLET_KEY = re.compile(r"[ \t]*[-*+][ \t]+(?:\*\*)?`([^`]+)`")


def removal(line: str, ref: Ref, next_line: str | None = None) -> str | None:
    """The line without what `ref` (a removed fact) stands for, when the page says exactly
    where it ends: a table row or a one-line bullet that exists for it alone ("": delete the
    line), a continuation line of a command holding only the flag and its value, or the flag
    and its value cut out of a command line. None otherwise."""
    deleted = row_deletion(line, ref)
    if deleted is not None:
        return deleted
    bullet = _BULLET_KEY.match(line)
    others = [m for m in _SPAN.finditer(line) if m.group(1).split()[0] != ref.token] if bullet else []
    keyed = bullet is not None and bullet.group(1).split()[0] == ref.token
    if ref.where == "inline" and keyed and not others:
        ends = next_line is None or not next_line.strip() or _BULLET_KEY.match(next_line) is not None
        one_line = ends and (next_line is None or not next_line.startswith((" ", "\t")))
        return "" if one_line else None
    if ref.where != "fence" or ref.col is None:
        return None
    written = ref.token if ref.value is None else None
    for sep in ("", " ", "="):
        if ref.value is not None and line.startswith(ref.token + sep + ref.value, ref.col):
            written = ref.token + sep + ref.value
            break
    if written is None or not line.startswith(written, ref.col):
        return None
    before, after = line[: ref.col], line[ref.col + len(written) :]
    if not before.strip() and after.strip() == "\\":
        return ""  # `  --old-knob 3 \`: the command goes on without it
    if before.strip() and before.endswith(" ") and (not after or after.startswith(" ")):
        return before.rstrip(" ") + after  # `... --lr 1 --old-knob 3 --seed 2`
    return None


# -- what a fact is called -----------------------------------------------------------------------


def describe(fact: Fact) -> str:
    if fact.kind == "flag":
        sub = fact.attr("subcommand")
        # The same flag may be every subcommand's: say which one's changed.
        return f"`{sub.split(',')[0]}` flag" if sub else "flag"
    if fact.kind == "key":
        return "environment variable" if fact.attr("kind") == "env" else "config key"
    if fact.kind == "symbol":
        return fact.attr("kind") or "symbol"
    return (fact.group or "value").replace("-", " ")


def subject(fact: Fact) -> str:
    if fact.kind == "string":
        return f"`{fact.token}` (one of the {fact.group or 'values'})"
    return f"{describe(fact)} `{fact.token}`"


def gone_subject(fact: Fact) -> str:
    if fact.kind == "string":
        return f"`{fact.token}` is no longer one of the {fact.group or 'values'}"
    return f"{describe(fact)} `{fact.token}` no longer exists"


def did_you_mean(near: str | None) -> str:
    return f"; did you mean `{near}`?" if near else ""


# -- the rule's own inputs -----------------------------------------------------------------------


def missing_file(path: str, what: str, rule_id: str) -> str:
    return f"{path} ({what} of rule `{rule_id}`) does not exist in this revision"


def parse_error(err: ParseError) -> str:
    return f"{err.path}:{err.line}: cannot parse ({err.message}); the facts it defines were not checked"


# -- code -> doc ---------------------------------------------------------------------------------


def renamed(old: Fact, new: Fact) -> str:
    where = f"defined at {new.path}:{new.line}"
    return f"{subject(old)} is now `{new.token}` ({where}); the doc still says `{old.token}`"


def turned_around(new: Fact) -> str:
    return f"; its name says the opposite, so the line needs rewording rather than `{new.token}` put in"


def why_renamed(old: Fact, new: Fact) -> str:
    where = f"{old.path}:{old.line}"
    if old.kind == "flag" and old.key == new.key:
        return (
            f"Both flags set `{old.key}` to {old.attr('sets') or 'a value'}: `{old.token}` was defined "
            f"at {where} before the change, and at head `{new.token}` ({new.path}:{new.line}) is the flag "
            "that does it."
        )
    return (
        f"`{old.token}` ({where}) disappeared and `{new.token}` ({new.path}:{new.line}) appeared; "
        "it is the closest match."
    )


def removed(old: Fact) -> str:
    where = f"{old.path}:{old.line}"
    return f"{gone_subject(old)} (defined at {where} before this change); the doc still cites it"


def why_removed(old: Fact, rule_id: str) -> str:
    where = f"{old.path}:{old.line}"
    return (
        f"Rule `{rule_id}` reads {old.path} with source `{old.source}`. At the base revision "
        f"`{old.token}` was defined at {where}; at head nothing in the rule's sources defines it, and no "
        "flag with the same destination or a close name replaces it."
    )


def switch_flipped(key: str, old_default: str | None, new_default: str | None, noop: bool) -> str:
    """`old_default` and `new_default` are normalized ("True"/"False")."""
    effect = (
        "passing it no longer changes anything" if noop else "it is now the only way to get the old default"
    )
    return (
        f"`{key}` now defaults to {new_default} (was {old_default}): {effect}; "
        "the doc describes the old default"
    )


def polarity_changed(token: str, old: Fact, new: Fact) -> str:
    return (
        f"`{token}` now sets `{old.key}` to {new.attr('sets')} (it set {old.attr('sets')}); "
        "the doc describes the old polarity"
    )


def why_polarity_changed(old: Fact, new: Fact) -> str:
    return f"The flag's action changed from {old.attr('action')} to {new.attr('action')}."


def choice_dropped(value: str, token: str, allowed: list[str]) -> str:
    return f"`{value}` is no longer a choice of `{token}` (choices: {', '.join(allowed)})"


def type_changed(token: str, value: str, old: Fact, new: Fact) -> str:
    return f"`{token}` now takes {new.attr('type')} (it took {old.attr('type')}); `{value}` does not fit"


def default_changed(token: str, old_default: str | None, new_default: str | None, claimed: str) -> str:
    return (
        f"the default of `{token}` is now `{display(new_default)}` "
        f"(was `{display(old_default)}`); the doc still says `{claimed}`"
    )


# -- new facts the page does not mention ---------------------------------------------------------


def new_member(token: str, group: str, fact: Fact, listed: list[str]) -> str:
    return (
        f"`{token}` is new in {group} ({fact.path}:{fact.line}); the doc lists "
        f"{', '.join(f'`{t}`' for t in listed)} but not `{token}`"
    )


def new_flag(flag: Fact, doc_path: str) -> str:
    return f"new flag `{flag.token}` ({flag.path}:{flag.line}) is not mentioned in {doc_path}"


# -- cited paths ---------------------------------------------------------------------------------


def path_moved(token: str, new: str) -> str:
    return f"`{token}` was moved to `{new}` by this change"


def path_deleted(token: str) -> str:
    return f"`{token}` was deleted by this change; the doc still cites it"


def path_missing(token: str, near: str | None) -> str:
    return f"`{token}` does not exist at head" + did_you_mean(near)


# -- doc -> code ---------------------------------------------------------------------------------


def unknown_name(token: str, near: str) -> str:
    return f"`{token}` is not defined by the code this page is checked against; did you mean `{near}`?"


def key_value_changed(fact: Fact, old_value: str | None, new_value: str | None, claimed: str) -> str:
    where = f" in {fact.path}" if fact.attr("file") else ""
    what = "value" if fact.attr("file") else "default"
    return (
        f"the {what} of {describe(fact)} `{fact.token}`{where} is now `{display(new_value)}` "
        f"(was `{display(old_value)}`); the doc still says `{claimed}`"
    )


def key_rename_evidence(because: Because | None) -> str:
    if because is not None and because.kind == "same-place":
        return "; it took the place of the old key, with the same type and value"
    return rename_evidence(because)


def unknown_key(token: str, near: str | None, section: str | None) -> str:
    if near:
        return f"no config or model this page is checked against has `{token}`; did you mean `{near}`?"
    return f"`{section}` has no key `{token.rpartition('.')[2]}` in the models this page is checked against"


def unknown_flag(token: str, near: str | None) -> str:
    return f"`{token}` is not a flag at head" + did_you_mean(near)


def other_subcommands_flag(token: str, invoked: tuple[str, ...] | None, owners: list[tuple[str, ...]]) -> str:
    """`--max-log-len` given to `lite auto_awq`, a flag of `serve api_server` only."""
    named = ", ".join(f"`{' '.join(p)}`" for p in owners)
    return f"`{token}` is not a flag of `{' '.join(invoked or ())}` at head; it is a flag of {named}"


def not_a_choice(value: str, token: str, allowed: list[str]) -> str:
    return f"`{value}` is not a choice of `{token}` (choices: {', '.join(allowed)})"


def wrong_default(token: str, actual: str | None, claimed: str, *, mark: bool) -> str:
    """`mark`: the claim is a check mark in a choices table, so the doc "says" nothing to quote."""
    if mark:
        return f"the default of `{token}` is `{display(actual)}`, not `{claimed}`"
    return f"the default of `{token}` is `{display(actual)}`; the doc says `{claimed}`"


# -- names the code stopped using ------------------------------------------------------------------


def vanished(name: str, path: str, line: int, *, env: bool, files: int = 1) -> str:
    what = f"the environment variable `{name}`" if env else f"`{name}`"
    verb = "read" if env else "used"
    more = files - 1
    where = f"{path}:{line}" + (f" and {more} more file{'s' if more > 1 else ''}" if more else "")
    return (
        f"{what} is no longer {verb} by the code this page is checked against "
        f"({verb} at {where} before this change); the doc still cites it"
    )


def why_vanished(name: str, path: str, line: int, rule_id: str) -> str:
    return (
        f"At the base revision {path}:{line} used `{name}` in code. At head no source of rule "
        f"`{rule_id}` uses it outside comments and docstrings, so what the page says about "
        "it describes code that is gone."
    )


# -- why a rename is believed --------------------------------------------------------------------


def kind_of_file(path: str) -> str:
    """How a finding names a file it cites as evidence."""
    name = path.rsplit("/", 1)[-1]
    top = path.split("/", 1)[0]
    if top in ("tests", "test") or name.startswith("test_") or name.endswith("_test.py"):
        return "test"
    if top in ("scripts", "examples") or name.endswith((".sh", ".bash")):
        return "launcher script"
    if name.endswith((".md", ".mdx", ".rst", ".txt")):
        return "doc page"
    if name.endswith((".yml", ".yaml", ".json", ".toml", ".cfg", ".ini")):
        return "config file"
    return "module"


def _files_by_kind(files: Iterable[str]) -> str:
    """`5 launcher scripts and 2 tests`: the files a change rewrote, counted by what they are."""
    counts: dict[str, int] = {}
    for path in files:
        kind = kind_of_file(path)
        counts[kind] = counts.get(kind, 0) + 1
    parts = [
        f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1])
    ]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def rename_evidence(because: Because | None) -> str:
    """The short reason a rename is believed, appended to its message ("" when the same
    destination or a close name says it: the message's own words do)."""
    if because is None:
        return ""
    if because.kind == "replaced":
        also = "".join(f" (and `{a}` with `{b}`)" for a, b in because.also[:1])
        return (
            f"; the same change replaced `{because.old}` with `{because.new}`{also} in "
            f"{_files_by_kind(because.files)}"
        )
    if because.kind == "same-place":
        return f"; `{because.new}` took the place of `{because.old}` with the same type, default and action"
    if because.kind == "same-call":
        return f"; `{because.old}` is declared with it, as it was with the old name"
    if because.kind == "git-rename":
        return f"; the change moved {because.old} to {because.new} and this is the one name it replaced there"
    return ""


def why_renamed_because(old: Fact, new: Fact, because: Because | None) -> str:
    """The longer explanation of a rename, naming the evidence."""
    if because is None or because.kind in ("same-dest", "similar"):
        return why_renamed(old, new)
    where = (
        f"`{old.token}` ({old.path}:{old.line}) disappeared and "
        f"`{new.token}` ({new.path}:{new.line}) appeared"
    )
    if because.kind == "replaced":
        shown = ", ".join(because.files[:5]) + (
            f" and {len(because.files) - 5} more" if len(because.files) > 5 else ""
        )
        return (
            f"{where}. The same change rewrote lines of other files, swapping "
            + ", ".join(f"`{a}` for `{b}`" for a, b in ((because.old, because.new), *because.also))
            + f" and leaving the rest of each line as it was: {shown}."
        )
    if because.kind == "same-call":
        return (
            f"{where}, each declared together with `{because.old}`, which the parser still has: "
            f"the flag kept that spelling and took a new one."
        )
    if because.kind == "same-place":
        return (
            f"{where}. In the same {describe(old)} source (rule source `{old.source}`), `{because.old}` "
            f"was the only destination removed and `{because.new}` the only one added between the same "
            "neighbours, with the same type, default and action."
        )
    return (
        f"{where}. Git saw {because.old} renamed to {because.new}; in it, `{new.token}` is the only "
        f"{describe(old)} added as `{old.token}` was the only one removed."
    )


# -- successors found in the history -------------------------------------------------------------

# One step of a token's history: what replaced it (None: nothing did) and the commit, as
# `0daa9ff (#2384)`.
HistoryStep = tuple[str | None, str]


def token_history(token: str, steps: list[HistoryStep]) -> str:
    """`--disable-fp32-master` became `--no-keep-fp32-master` in 0daa9ff (#2384)."""
    return _history(token, steps, "became", "was removed")


def path_history(token: str, steps: list[HistoryStep]) -> str:
    """`miles/backends/experimental/fsdp_utils/` moved to `miles/backends/fsdp_utils/` in 800274a (#2272)."""
    return _history(token, steps, "moved to", "was deleted")


def _history(token: str, steps: list[HistoryStep], became: str, gone: str) -> str:
    text = f"`{token}`"
    for i, (new, commit) in enumerate(steps):
        if new is not None:
            text += f" {became} `{new}` in {commit}" if i == 0 else f", then `{new}` in {commit}"
        elif i == 0:
            text += f" {gone} in {commit}"
        elif commit == steps[i - 1][1]:
            text += ", which is gone at head"  # followed as far as allowed
        else:
            text += f", which {gone} in {commit}"
    return text


def why_history(token: str, steps: list[HistoryStep], *, path: bool = False) -> str:
    commits = ", ".join(dict.fromkeys(commit for _, commit in steps))
    where = "git's renames of that path" if path else "the history of the files the rule reads"
    return (
        f"`{token}` does not exist at head; {where} say{'s' * (not path)} what became of it "
        f"({commits}: the newest commit{'s' * (len(steps) > 1)} that removed, renamed or moved it)."
    )


def unread_env(name: str, near: str) -> str:
    return f"the code this page is checked against does not read `{name}`; did you mean `{near}`?"


# -- environment variables options read (flag_env.py) ---------------------------------------------


def env_renamed(old: str, new: str, option: Fact) -> str:
    return (
        f"environment variable `{old}` is now `{new}` (read by `{option.token}`, defined at "
        f"{option.path}:{option.line}); the doc still says `{old}`"
    )


def why_env_renamed(old: str, new: str, before: Fact, after: Fact) -> str:
    return (
        f"At the base revision `{before.token}` ({before.path}:{before.line}) read `{old}` from the "
        f"environment; at head the option setting `{after.key}` ({after.path}:{after.line}) reads "
        f"`{new}` instead, and no option reads `{old}`."
    )


def env_removed(name: str, option: Fact) -> str:
    return (
        f"environment variable `{name}` is no longer read by any option (`{option.token}` read it, "
        f"defined at {option.path}:{option.line} before this change); the doc still cites it"
    )


def why_env_removed(name: str, option: Fact, rule_id: str) -> str:
    return (
        f"Rule `{rule_id}` reads {option.path} with source `{option.source}`. At the base revision "
        f"`{option.token}` ({option.path}:{option.line}) read `{name}` from the environment; at head "
        "no option of the rule's sources reads it."
    )


# -- config-file keys of options (flag_keys.py) ----------------------------------------------------


def key_of_flag_renamed(key: str, new_key: str, option: Fact) -> str:
    return (
        f"config key `{key}` is now `{new_key}` (the key of `{option.token}`, defined at "
        f"{option.path}:{option.line}); the doc still says `{key}`"
    )


def key_of_flag_removed(key: str, option: Fact) -> str:
    return (
        f"config key `{key}` no longer exists: `{option.token}`, which it sets, was defined at "
        f"{option.path}:{option.line} before this change; the doc still cites it"
    )


def key_of_no_flag(key: str, near: str) -> str:
    return (
        f"no option of the program this page is checked against has the config key `{key}`; "
        f"did you mean `{near}`?"
    )
