"""What replaced a token the doc cites and the code no longer has, read from the repository's
history: "`--disable-fp32-master` became `--no-keep-fp32-master` in 0daa9ff (#2384)".

A post-pass over one rule's findings. A token that does not resolve at head (an `unresolved`
finding, a `removed` one with no suggestion, a flag on a line the change wrote that none of the
rule's parsers has) is looked up in the history of the rule's sources: the newest commit whose
diff added or removed a line citing the token there (git's pickaxe), where the rule's facts at
that commit's parent have the token and the facts at the commit do not. What became of it there is
decided as for a change (deltas.py: same destination and polarity first, a close name last);
the successor is followed forward (at most `HOPS` times) until it is one the head has. A path
follows git's renames of the file, or of every file under a folder, the same way.

Pure: the history is read through the `History` protocol, which the git adapter
(bot/trees/history.py) implements; facts at old commits come from `gather` and its cache.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.core import doclines
from bot.core.check import wording
from bot.core.check.deltas import deltas
from bot.core.check.doc_to_code import open_parser_takes
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.ownership import is_fragment
from bot.core.extract.imports import Modules
from bot.core.facts import Facts, ParseCache, gather
from bot.core.kinds import FLAG_KINDS
from bot.core.linediff import line_diff
from bot.core.model import CodeLocation, EmptyTree, Fact, Finding, FindingKind, Tree
from bot.core.page import Ref
from bot.core.programs import Programs
from bot.core.rules import Rule

# How many times a successor that is itself gone at head is followed forward.
HOPS = 3
# Lookups per run, by default: a page full of stale tokens costs a bounded number of git calls.
DEFAULT_LOOKUPS = 16
# The flags argparse gives every parser.
_BUILTIN_FLAGS = frozenset({"-h", "--help"})


@dataclass(frozen=True)
class Commit:
    """A commit of the history, as a finding names it."""

    id: str
    subject: str

    def label(self) -> str:
        """`0daa9ff (#2384)`: the short id and the pull request its subject names."""
        number = pull_request(self.subject)
        return f"{self.id[:7]} (#{number})" if number else self.id[:7]


def pull_request(subject: str) -> str | None:
    """The pull request a commit subject names: a squash merge's `title (#2384)`, or a merge
    commit's `Merge pull request #2384 from ...`."""
    found = re.search(r"\(#(\d+)\)\s*$", subject) or re.match(r"Merge pull request #(\d+)\b", subject)
    return found.group(1) if found else None


@dataclass(frozen=True)
class Move:
    """A commit that renamed or deleted a path (or files under a folder): every rename it made."""

    commit: Commit
    renames: Mapping[str, str]  # old path -> new path, the whole commit's


class History(Protocol):
    """The history of the revision under check, newest first, bounded by the implementation in
    commits and time (it answers less, never wrongly)."""

    def touching(self, strings: Sequence[str], paths: Sequence[str]) -> Sequence[Commit]:
        """Commits, at or before the checked revision, whose diff on `paths` added or removed a
        line holding one of `strings` as a whole token, not inside a longer name (git's pickaxe,
        `git log -G`)."""
        ...

    def prefetch(self, questions: Sequence[Sequence[str]], paths: Sequence[str]) -> None:
        """A hint: `touching` will be asked each of `questions` over `paths`; one pass over the
        history may answer them all."""
        ...

    def never(self, strings: Sequence[str], paths: Sequence[str]) -> bool:
        """Did no commit at or before the checked revision ever add or remove a line holding one
        of `strings` on `paths`? True only when the whole history of the paths was read; False
        when it was not (a bound, a shallow clone): unknown is never said to be "never"."""
        ...

    def never_had(self, paths: Sequence[str]) -> frozenset[str]:
        """Those of `paths` (files or folders) no commit at or before the checked revision ever
        had; only what a complete read of the history shows, nothing when it cannot say."""
        ...

    def trees(self, commit: Commit) -> tuple[Tree, Tree] | None:
        """The revisions before and at `commit`; None when it has no (readable) parent."""
        ...

    def moves(self, path: str) -> Sequence[Move]:
        """Commits, at or before the checked revision, that renamed or deleted `path` or a file
        under it."""
        ...


@dataclass
class Lookups:
    """What one run may still ask the history, shared by every rule of the run."""

    left: int = DEFAULT_LOOKUPS
    memo: dict[tuple[str, str, str], Succession | None] = field(default_factory=dict)

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


@dataclass(frozen=True)
class Step:
    """What one commit did to a token: replaced it, or removed it."""

    new: str | None  # the token (or path) that took the old one's place; None: removed
    commit: Commit


@dataclass(frozen=True)
class Succession:
    """What became of a token, step by step: each step's `new` is the next step's old."""

    old: str
    steps: tuple[Step, ...]

    @property
    def final(self) -> str | None:
        return self.steps[-1].new


def from_history(
    inputs: RuleInputs,
    out: Findings,
    history: History,
    lookups: Lookups,
    cache: ParseCache | None,
    *,
    audit: bool,
) -> None:
    """Rewrite the rule's findings on tokens that do not resolve at head with what history says
    replaced them; in a check, also report flags on lines the change wrote that the rule's
    parsers once had (`--disable-fp32-master`) and no longer do. Options in plain text
    (Page.mentions: "--apex-amp will force APEX") are reported only so, when the history shows
    them the rule's."""
    pages = {p.doc.path: p for p in inputs.pages}
    asked: list[tuple[Finding | None, Page, Ref]] = []
    reported: set[tuple[str, int, str]] = set()
    strangers: list[tuple[Finding, Ref]] = []
    for finding, edit in out.emitted():
        if finding.doc is None:
            continue
        reported.add((finding.doc.path, finding.doc.line, finding.symbol))
        page = pages.get(finding.doc.path)
        ref = _ref(page, finding) if page is not None and _asks(finding, edit) else None
        if page is not None and ref is not None:
            if edit is None and finding.suggestion is None and _cited_as_anyones(inputs, page, finding, ref):
                strangers.append((finding, ref))
            asked.append((finding, page, ref))
    withdrawn = _never_the_rules(inputs, strangers, history) + _never_here(inputs, out, history)
    for finding in withdrawn:
        out.withdraw(finding)
    gone = {id(f) for f in withdrawn}
    asked = [entry for entry in asked if id(entry[0]) not in gone]
    # Options in plain text come last: the lookups go to what the pages cite in code first.
    written = [(page, ref) for page in inputs.pages for ref in (() if audit else page.new_refs)]
    # A list item's head is judged only when the change renames or removes its flag.
    mentioned = [(page, ref) for page in inputs.pages for ref in page.mentions if ref.where != "item"]
    for page, ref in [*written, *mentioned]:
        key = (page.doc.path, ref.line, ref.token)
        if (
            key not in reported
            and _stale_flag(inputs, ref)
            and _judged_here(inputs, page, ref)
            and not _told(page, ref)
        ):
            reported.add(key)
            asked.append((None, page, ref))
    groups: dict[tuple[str, ...], set[str]] = {}
    # Only as many tokens as may still be looked up: the rest are never asked about.
    for token in list(dict.fromkeys(r.token for _, _, r in asked if r.kind != "path"))[: lookups.left]:
        groups.setdefault(tuple(search_paths(inputs.rule, token)), set()).add(token)
    for paths, group in groups.items():
        if len(group) > 1:  # one pass over the history for all of them
            history.prefetch([search_strings(inputs.rule, t) for t in sorted(group)], paths)
    for asking, page, ref in asked:
        found = _succession(inputs, page, ref, history, lookups, cache)
        if found is None:
            continue
        if ref.kind != "path" and found.final in _cited_on(page, ref.line):
            # The line names the successor too (`--a` was renamed to `--b`): it tells of the change.
            if asking is not None:
                out.withdraw(asking)
            continue
        if asking is None:
            if found.final is None and _kept_by_remover(page, ref, found.steps[-1].commit, history):
                continue  # its remover edited the lines around it and left it: another program's
            _emit(inputs, page, ref, found, out, "unresolved")
        elif found.final is not None or asking.kind == "unresolved":
            out.withdraw(asking)
            _emit(inputs, page, ref, found, out, "renamed" if asking.kind == "removed" else "unresolved")


# Flags cited as anyone's asked about in one pass over the history: a bound on the question's size.
MAX_STRANGERS = 64


def _cited_as_anyones(inputs: RuleInputs, page: Page, finding: Finding, ref: Ref) -> bool:
    """An unresolved flag cited on its own (prose, a block of flags to add), where no command of
    ours runs: judged against every parser of the rule only because nothing says whose it is."""
    if finding.kind != "unresolved" or ref.kind != "flag":
        return False
    if ref.command is not None and not is_fragment(ref.command):
        return False
    if cites_ours(inputs, page, files=False):
        return False
    scope = inputs.own.scope(page.doc, ref, page.program)
    return scope is not None and scope.program is None


_DOC_PAGES = (".md", ".mdx", ".rst", ".qmd", ".txt", ".html", ".ipynb")


def cites_ours(inputs: RuleInputs, page: Page, *, files: bool) -> bool:
    """Does the page cite a flag the rule's parsers have at head (or, with `files`, a file or
    folder of the repository other than a page)? A page citing none of its flags is about
    another project's command lines (a tutorial of a sibling repository's training scripts),
    and one citing none of its code either, about that project's files."""
    doc = page.doc
    for ref in doc.refs:
        if ref.kind == "flag" and inputs.head_facts.knows(ref.token, flag=True):
            return True
        if files and ref.kind == "path" and not ref.token.endswith(_DOC_PAGES):
            cited = inputs.own.path(ref, doc.path)
            if cited is not None and inputs.head.exists(cited.path):
                return True
    return False


def _never_the_rules(
    inputs: RuleInputs, strangers: Sequence[tuple[Finding, Ref]], history: History
) -> list[Finding]:
    """The findings on flags cited as anyone's that no source of the rule ever declared: not one
    line its whole history added or removed held them. They are another program's (a tutorial
    of a sibling repository's training script, `--num-experts`), not stale facts of ours; a
    flag one of our parsers once had is still asked what became of it."""
    tokens = list(dict.fromkeys(ref.token for _, ref in strangers))[:MAX_STRANGERS]
    groups: dict[tuple[str, ...], list[str]] = {}
    for token in tokens:
        groups.setdefault(tuple(search_paths(inputs.rule, token)), []).append(token)
    never: set[str] = set()
    for paths, group in groups.items():
        if not paths:
            continue
        history.prefetch([search_strings(inputs.rule, t) for t in group], paths)
        never.update(t for t in group if history.never(search_strings(inputs.rule, t), paths))
    return [finding for finding, ref in strangers if ref.token in never]


def _never_here(inputs: RuleInputs, out: Findings, history: History) -> list[Finding]:
    """The findings on missing paths written in code (not links), with no near file to offer,
    that the repository never had at any commit: another repository's files, which the page
    tells of (`bash examples/pretrain_gpt.sh` of Megatron-LM, in a tutorial of ours), not a
    file of ours that went. A link is the page's own to keep working: it is still said."""
    pages = {p.doc.path: p for p in inputs.pages}
    missing: dict[str, list[Finding]] = {}
    for finding, edit in out.emitted():
        if finding.kind != "unresolved" or finding.doc is None or edit is not None or finding.suggestion:
            continue
        page = pages.get(finding.doc.path)
        ref = _ref(page, finding) if page is not None else None
        if (
            page is None
            or ref is None
            or ref.kind != "path"
            or ref.where == "link"
            or cites_ours(inputs, page, files=True)
        ):
            continue
        cited = inputs.own.path(ref, page.doc.path)
        if cited is not None and len(missing) < MAX_STRANGERS:
            missing.setdefault(cited.path.rstrip("/"), []).append(finding)
    never = history.never_had(sorted(missing)) if missing else frozenset()
    return [f for path in sorted(never & missing.keys()) for f in missing[path]]


_NEAR_EDIT = 5  # lines around a citation an edit of the removing commit tells it was read


def _kept_by_remover(page: Page, ref: Ref, commit: Commit, history: History) -> bool:
    """Did the commit that took the flag out of the rule's parsers edit the page within a few
    lines of a citation of it, and leave the citation? Its authors read it and kept it: the
    command line still takes the flag from somewhere no file shows (FastChat's vLLM worker,
    whose `--quantization` vLLM's own arguments give it since the worker stopped declaring
    it, in the commit that reworded the sentence above it)."""
    trees = history.trees(commit)
    if trees is None:
        return False
    before, after = (tree.read(page.doc.path) for tree in trees)
    if before is None or after is None or before == after:
        return False
    edited = line_diff(before, after).changed_head_lines
    lines = after.splitlines()
    cited = [n for n, text in enumerate(lines, 1) if ref.token in text]
    return any(abs(n - e) <= _NEAR_EDIT for n in cited for e in edited)


def _cited_on(page: Page, line: int) -> set[str]:
    """The tokens `line` cites, in code or as options in plain text."""
    return {r.token for r in (*page.doc.refs_on(line), *page.mentions) if r.line == line}


def search_paths(rule: Rule, token: str) -> list[str]:
    """The rule's source files that could have declared `token`: its parsers' for a flag."""
    kinds = FLAG_KINDS if token.startswith("-") else None
    return sorted(
        {
            p
            for s in rule.sources
            if s.kind not in ("paths", "tokens") and (kinds is None or s.kind in kinds)
            for p in s.paths
        }
    )


def _asks(finding: Finding, edit: tuple[str, str] | None) -> bool:
    """An unresolved token (whatever its guess), or a removed one nothing replaces."""
    if " " in finding.symbol:
        return False  # `--flag value`: a choice, judged against the flag at head
    if finding.kind == "unresolved":
        return True
    return finding.kind == "removed" and edit is None and finding.suggestion is None


def _ref(page: Page, finding: Finding) -> Ref | None:
    assert finding.doc is not None
    return next((r for r in page.doc.refs_on(finding.doc.line) if r.token == finding.symbol), None)


def _stale_flag(inputs: RuleInputs, ref: Ref) -> bool:
    """A flag no parser of the rule has at head, which ownership may have left alone: only the
    history can say it was the rule's."""
    token = ref.token
    return (
        ref.kind == "flag"
        and token.startswith("--")
        and token not in _BUILTIN_FLAGS
        and not any(c in token for c in "*<>=")
        and not token.endswith("-")
        and not inputs.head_facts.knows(token, flag=True)
        and not is_external(token, inputs.rule.external)
        # moved to a command line the rule does not read (llm's `--chat`, now its plugin's)
        and not inputs.own.declared_somewhere(token)
    )


def _told(page: Page, ref: Ref) -> bool:
    """Does the sentence citing the flag say the code no longer has it ("the old `--x` flag",
    "`--x` has been removed") or does not have it yet? Then the history has nothing to add: the
    line is right as written (doc_to_code.py leaves it alone for the same reason)."""
    doc = page.doc
    return doclines.no_longer_there(doc, ref.line, ref.token) or doclines.not_yet_there(
        doc, ref.line, ref.token
    )


def _judged_here(inputs: RuleInputs, page: Page, ref: Ref) -> bool:
    """Is the flag one of the rule's command lines at head? Not when the line passes it to
    another program (`bash data/scripts/get_coco.sh --train`, a shell script's own option), nor
    when the command line the page runs may take it without declaring it (an open parser): that
    the rule's parsers once declared it says nothing of it there."""
    scope = inputs.own.scope(page.doc, ref, page.program)
    return scope is not None and not open_parser_takes(ref.token, scope.flags(inputs.head_facts.facts))


def _succession(
    inputs: RuleInputs, page: Page, ref: Ref, history: History, lookups: Lookups, cache: ParseCache | None
) -> Succession | None:
    if ref.kind == "path":
        cited = inputs.own.path(ref, page.doc.path)
        if cited is None:
            return None
        key = ("", "path", cited.path)
        if key not in lookups.memo and lookups.take():
            lookups.memo[key] = path_succession(cited.path, inputs.head, history)
        return lookups.memo.get(key)
    key = (inputs.rule.id, ref.kind, ref.token)
    if key not in lookups.memo and lookups.take():
        lookups.memo[key] = token_succession(inputs.rule, ref.token, inputs.head_facts, history, cache)
    return lookups.memo.get(key)


def token_succession(
    rule: Rule, token: str, head: Facts, history: History, cache: ParseCache | None
) -> Succession | None:
    """What became of `token`, a fact of the rule's sources some time before head; None when
    the history does not show it as one (never the rule's, or out of reach)."""
    steps: list[Step] = []
    old = token
    for _ in range(HOPS):
        step = _removal(rule, old, history, cache)
        if step is None or (steps and step.commit == steps[-1].commit):
            break
        steps.append(step)
        if step.new is None or head.by_token.get(step.new):
            break
        old = step.new
    if not steps:
        return None
    last = steps[-1]
    if last.new is not None and not head.by_token.get(last.new):
        steps.append(Step(None, last.commit))  # followed as far as allowed; gone at head too
    return Succession(token, tuple(steps))


def _removal(rule: Rule, token: str, history: History, cache: ParseCache | None) -> Step | None:
    """The newest commit where the rule's facts lost `token`, and what took its place there."""
    paths = search_paths(rule, token)
    if not paths:
        return None
    for commit in history.touching(search_strings(rule, token), paths):
        trees = history.trees(commit)
        if trees is None:
            continue
        before = gather(rule, trees[0], cache, found=_NO_PROGRAMS)
        after = gather(rule, trees[1], cache, found=_NO_PROGRAMS)
        had, has = bool(before.by_token.get(token)), bool(after.by_token.get(token))
        if has and not had:
            return None  # put back here: whatever removed it before is undone
        if had == has:
            continue  # the token's text moved, its fact did not
        found = [d for d in deltas(before, after).get(token, ()) if d.kind in ("renamed", "removed")]
        new = found[0].new if found and found[0].kind == "renamed" else None
        if new is not None and not _same_way(found[0].old, new):
            new = None
        return Step(new.token if new else None, commit)
    return None


def _same_way(old: Fact, new: Fact) -> bool:
    """A switch is never succeeded by one that sets its destination the other way."""
    a, b = old.attr("sets"), new.attr("sets")
    return a is None or b is None or a == b


# Sources whose flags are made from a field's or a parameter's name.
FIELD_KINDS = ("dataclass-flags", "hf-dataclass", "tyro", "jsonargparse", "fire")


def search_strings(rule: Rule, token: str) -> list[str]:
    """What the sources wrote when they had `token`: the token itself, and for a flag built from a
    dataclass field, the field's name (`--no-keep-fp32-master` <- `keep_fp32_master`)."""
    strings = [token]
    if token.startswith("--") and any(s.kind in FIELD_KINDS for s in rule.sources):
        name = token[2:].rsplit(".", 1)[-1].removeprefix("no-").removeprefix("no_").replace("-", "_")
        if name and name not in strings:
            strings.append(name)
    return strings


def path_succession(path: str, head: Tree, history: History) -> Succession | None:
    """Where a cited file or folder went: the commit that renamed it (or moved every file under
    the folder to one new folder), followed while the new path is gone at head too."""
    steps: list[Step] = []
    old = path
    for _ in range(HOPS):
        moves = history.moves(old)
        if not moves or (steps and moves[0].commit == steps[-1].commit):
            break
        move = moves[0]
        new = move.renames.get(old) or _folder_target(old, move.renames)
        steps.append(Step(new, move.commit))
        if new is None or head.exists(new):
            break
        old = new
    if not steps:
        return None
    last = steps[-1]
    if last.new is not None and not head.exists(last.new):
        steps.append(Step(None, last.commit))
    return Succession(path, tuple(steps))


def _folder_target(folder: str, renames: Mapping[str, str]) -> str | None:
    """The folder the files under `folder` went to, each keeping its place under it. Git pairs
    identical files by content, so an empty `__init__.py` may be paired with another folder's:
    the target is the one at least three in four of the folder's renames agree on."""
    votes: dict[str, int] = {}
    total = 0
    for old, new in renames.items():
        if old.startswith(folder + "/"):
            total += 1
            rest = old[len(folder) :]
            if new.endswith(rest):
                votes[new[: -len(rest)]] = votes.get(new[: -len(rest)], 0) + 1
    if not votes:
        return None
    target, count = max(votes.items(), key=lambda item: item[1])
    return target if 4 * count >= 3 * total else None


def _emit(
    inputs: RuleInputs, page: Page, ref: Ref, found: Succession, out: Findings, kind: FindingKind
) -> None:
    new = found.final
    edit = None
    code = None
    if ref.kind == "path":
        cited = inputs.own.path(ref, page.doc.path)
        written = ref.token.rstrip("/")
        slash = "/" if ref.token.endswith("/") else ""

        def as_written(path: str | None) -> str | None:
            return None if path is None or cited is None else cited.written(path, written) + slash

        steps = [(as_written(s.new), s.commit.label()) for s in found.steps]
        if new is not None and cited is not None:
            edit = (written, cited.written(new, written))
        message = wording.path_history(ref.token, steps)
    else:
        steps = [(s.new, s.commit.label()) for s in found.steps]
        if new is not None:
            edit = (ref.token, new)
            at_head = inputs.head_facts.by_token.get(new, ())
            code = CodeLocation(at_head[0].path, at_head[0].line) if at_head else None
        message = wording.token_history(ref.token, steps)
    out.emit(
        kind,
        ref.token,
        message,
        doc=page.doc,
        line=ref.line,
        code=code,
        edit=edit,
        why=wording.why_history(ref.token, steps, path=ref.kind == "path"),
    )


# Facts at old commits are compared with each other only: which program takes a flag (a read of
# the whole tree) does not decide what replaced it.
_NO_PROGRAMS = Programs(Modules(EmptyTree()), ())
