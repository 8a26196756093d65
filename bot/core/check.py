"""The check: two revisions, the files a change touched and the rules -> findings.

Pure: it reads files only through the `Tree` objects it is handed and returns a `Report`.
Two directions are checked for every rule whose files the change touched:

- code -> doc: facts the doc cites that the change removed, renamed or changed in meaning
  while the doc still says the old thing; new members of sets the doc enumerates.
- doc -> code: lines the change added to the doc must cite flags, paths and names that exist
  at head, and claim the defaults the code has.

`audit` runs the doc -> code direction over every line of a single revision.
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.core.doclines import (
    display,
    enumerating_line,
    first_cell_token,
    flag_aliases,
    in_scope,
    is_mark,
    normalize_default,
    paragraph,
    replace_token,
)
from bot.core.facts import Facts, FactsCache, gather, parse_doc_cached
from bot.core.linediff import LineDiff, line_diff
from bot.core.model import (
    Change,
    CodeLocation,
    DocLocation,
    Fact,
    Finding,
    Report,
    Suggestion,
    Tree,
)
from bot.core.page import DocPage, Ref
from bot.core.rules import Rule

# What a script that parses its own command line contains.
_CLI_MARKERS = ("argparse", "add_argument(", "import click", "import typer", "getopt", "sys.argv")

# Share of a source's flags a page must cite before a new flag there is worth a notice.
DOCUMENTED_SHARE = 0.2

# Attributes of a flag whose change alters what a doc line means.
MEANING_ATTRS = ("default", "choices", "sets", "type")


# ---------------------------------------------------------------------------------------------
# Helpers over doc lines


def _is_external(token: str, patterns: Sequence[str]) -> bool:
    return bool(patterns) and _external_regex(tuple(patterns)).match(token) is not None


@functools.cache
def _external_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(fnmatch.translate(p) for p in patterns))


def _closest(token: str, candidates: Iterable[str], cutoff: float) -> str | None:
    found = difflib.get_close_matches(token, list(candidates), n=1, cutoff=cutoff)
    return found[0] if found else None


# ---------------------------------------------------------------------------------------------
# The check of one rule


@dataclass(frozen=True)
class _Delta:
    """What happened to one fact the base revision had."""

    kind: str  # removed | renamed | changed
    old: Fact
    new: Fact | None
    attr: str | None = None
    old_value: str | None = None
    new_value: str | None = None


class _RuleCheck:
    def __init__(
        self,
        rule: Rule,
        base: Tree,
        head: Tree,
        changes: Sequence[Change],
        cache: FactsCache | None,
        audit: bool = False,
    ):
        self.rule = rule
        self.audit = audit
        self.base, self.head = base, head
        self.changes = changes
        self.renames = {c.old_path: c.path for c in changes if c.status == "renamed" and c.old_path}
        self.removed_paths = {c.path for c in changes if c.status == "removed"}
        self.changed_paths = {c.path for c in changes} | set(self.renames)
        self.cache = cache
        self.findings: list[Finding] = []
        # (doc path, line) -> list of (old, new) token replacements, merged into one suggestion.
        self._line_edits: dict[tuple[str, int], list[tuple[str, str]]] = defaultdict(list)
        self._pending: list[tuple[Finding, str, int]] = []

    # -- the rule's inputs ------------------------------------------------------------------

    def touched(self) -> bool:
        watched = self.rule.watched_paths()
        if watched & self.changed_paths:
            return True
        # A rule that checks cited paths cares about any file moved or deleted.
        has_paths = any(s.kind == "paths" for s in self.rule.sources)
        return has_paths and bool(self.renames or self.removed_paths)

    def run(self) -> list[Finding]:
        base_facts = gather(self.rule, self.base, self.cache)
        head_facts = gather(self.rule, self.head, self.cache, self.renames)
        self._parse_errors(head_facts, base_facts)
        deltas = self._deltas(base_facts, head_facts)
        code_diffs = self._code_diffs()
        if self.audit:
            self._missing_files()
        for target in self.rule.docs:
            head_path = self.renames.get(target.path, target.path)
            head_text = self.head.read(head_path)
            if head_text is None:
                continue
            base_text = self.base.read(target.path)
            head_doc = parse_doc_cached(head_path, head_text, self.head.blob_id(head_path), self.cache)
            doc_diff = line_diff(base_text, head_text)
            refs = [r for r in head_doc.refs if in_scope(r.section.path, target.sections)]
            if not self.audit:
                self._code_to_doc(head_doc, refs, deltas, code_diffs, head_facts, base_facts)
                successors = {
                    d.new.token for ds in deltas.values() for d in ds if d.kind == "renamed" and d.new
                }
                self._undocumented(head_doc, refs, base_facts, head_facts, code_diffs, successors)
                self._paths_moved(head_doc, refs)
            if base_text is None:  # a new page (or an audit): every line is the change's own
                new_refs = refs
            else:
                new_refs = [r for r in refs if r.line in doc_diff.changed_head_lines]
            self._doc_to_code(head_doc, new_refs, head_facts, target.sections)
        return self._finish()

    def _missing_files(self) -> None:
        """An audit names the files a rule expects and the revision lacks: a rule that reads
        nothing checks nothing, silently."""
        wanted = [(d.path, "doc page") for d in self.rule.docs]
        wanted += [(p, f"`{s.id}` source") for s in self.rule.sources for p in s.paths]
        for path, what in wanted:
            if self.head.read(path) is None:
                self._emit(
                    "unresolved",
                    path,
                    f"{path} ({what} of rule `{self.rule.id}`) does not exist in this revision",
                    code=CodeLocation(path, 1),
                )

    def _code_diffs(self) -> dict[str, LineDiff]:
        diffs = {}
        for source in self.rule.sources:
            for path in source.paths:
                head_path = self.renames.get(path, path)
                if path in self.changed_paths or head_path in self.changed_paths:
                    diffs[head_path] = line_diff(self.base.read(path), self.head.read(head_path))
        return diffs

    # -- findings plumbing --------------------------------------------------------------------

    def _doc_loc(self, doc: DocPage, line: int) -> DocLocation:
        section = doc.section_at(line)
        return DocLocation(doc.path, line, section.path, section.anchor)

    def _emit(
        self,
        kind: str,
        symbol: str,
        message: str,
        *,
        doc: DocPage | None = None,
        line: int | None = None,
        code: CodeLocation | None = None,
        edit: tuple[str, str] | None = None,
        replacement: str | None = None,
        why: str = "",
    ) -> None:
        severity = self.rule.severity.get(kind, "error")
        blocking = self.rule.fail_on != "never" and _rank(severity) >= _rank(self.rule.fail_on)
        loc = self._doc_loc(doc, line) if doc is not None and line is not None else None
        suggestion = None
        if doc is not None and line is not None and replacement is not None:
            suggestion = Suggestion(doc.path, line, line, replacement)
        finding = Finding(
            kind=kind,  # type: ignore[arg-type]
            severity=severity,  # type: ignore[arg-type]
            symbol=symbol,
            message=message,
            rule=self.rule.id,
            doc=loc,
            code=code,
            suggestion=suggestion,
            why=why,
            blocking=blocking,
        )
        if edit is not None and doc is not None and line is not None:
            self._line_edits[(doc.path, line)].append(edit)
            self._pending.append((finding, doc.lines[line - 1], line))
        else:
            self.findings.append(finding)

    def _finish(self) -> list[Finding]:
        # Every finding on a line suggests the same text: the line with all its fixes applied,
        # so accepting any one of them leaves the line right.
        for finding, original, line in self._pending:
            assert finding.doc is not None
            fixed = original
            for old, new in self._line_edits[(finding.doc.path, line)]:
                fixed = replace_token(fixed, old, new)
            suggestion = Suggestion(finding.doc.path, line, line, fixed) if fixed != original else None
            self.findings.append(_with_suggestion(finding, suggestion))
        unique: dict[tuple, Finding] = {}
        for f in self.findings:
            key = (f.kind, f.symbol, f.doc.path if f.doc else None, f.doc.line if f.doc else None, f.message)
            unique.setdefault(key, f)
        return sorted(
            unique.values(),
            key=lambda f: (f.doc.path if f.doc else "~", f.doc.line if f.doc else 0, f.symbol, f.kind),
        )

    # -- parse errors ---------------------------------------------------------------------------

    def _parse_errors(self, head: Facts, base: Facts) -> None:
        already = {(e.path, e.message) for e in base.errors}
        for err in head.errors:
            if (err.path, err.message) in already and err.path not in self.changed_paths:
                continue
            self._emit(
                "parse-error",
                err.path,
                f"{err.path}:{err.line}: cannot parse ({err.message}); the facts it defines were not checked",
                code=CodeLocation(err.path, err.line),
            )

    # -- code -> doc ----------------------------------------------------------------------------

    def _deltas(self, base: Facts, head: Facts) -> dict[str, list[_Delta]]:
        """For each token the base had: what became of it at head (nothing, if unchanged)."""
        out: dict[str, list[_Delta]] = defaultdict(list)
        if head.errors and not head.facts:
            return out  # an unparsable head is reported as such, not as every fact removed
        head_tokens = set(head.by_token)
        base_tokens = set(base.by_token)
        new_tokens = head_tokens - base_tokens
        for token, olds in base.by_token.items():
            old = olds[0]
            news = [f for f in head.by_token.get(token, ()) if f.kind == old.kind]
            if news:
                if old.kind == "flag":
                    for attr in MEANING_ATTRS:
                        a, b = old.attr(attr), news[0].attr(attr)
                        if normalize_default(a) != normalize_default(b) and not (
                            a is None and attr != "default"
                        ):
                            out[token].append(_Delta("changed", old, news[0], attr, a, b))
                continue
            if any(e.path == old.path for e in head.errors):
                continue  # the file does not parse at head; that is the finding
            successor = self._successor(old, base, head, new_tokens)
            out[token].append(_Delta("renamed" if successor else "removed", old, successor))
        return out

    def _successor(self, old: Fact, base: Facts, head: Facts, new_tokens: set[str]) -> Fact | None:
        if old.kind == "flag":
            # Same dest and same polarity: `--disable-fp32-master` (sets false) -> `--no-keep-fp32-master`.
            same_key = [
                f
                for f in head.by_key.get((old.source, "flag", old.key), ())
                if f.attr("sets") == old.attr("sets") and f.token in new_tokens
            ]
            if same_key:
                best = _closest(old.token, [f.token for f in same_key], 0.0)
                return next(f for f in same_key if f.token == best)
            candidates = [
                f
                for f in head.flags()
                if f.token in new_tokens and f.source == old.source and f.attr("sets") == old.attr("sets")
            ]
            best = _closest(old.token, [f.token for f in candidates], 0.75)
            return next((f for f in candidates if f.token == best), None)
        if old.kind == "string":
            candidates = [f for f in head.group(old.group or "").values() if f.token in new_tokens]
            best = _closest(old.token, [f.token for f in candidates], 0.6)
            return next((f for f in candidates if f.token == best), None)
        candidates = [
            f
            for f in head.facts
            if f.kind == "symbol" and f.token in new_tokens and f.attr("kind") == old.attr("kind")
        ]
        if old.attr("kind") == "method":
            # One method gone from a class and one new in it: a rename, whatever the names.
            owner = old.key.rpartition(".")[0] + "."
            gone = {f.token for f in base.facts if f.kind == "symbol" and f.key.startswith(owner)} - set(
                head.by_token
            )
            added = [f for f in candidates if f.key.startswith(owner) and f.path == old.path]
            if len(gone) == 1 and len(added) == 1:
                return added[0]
        best = _closest(old.token, [f.token for f in candidates], 0.7)
        return next((f for f in candidates if f.token == best), None)

    def _code_line(self, old: Fact, new: Fact | None, code_diffs: dict[str, LineDiff]) -> CodeLocation:
        """The head line that made the doc wrong: where the change touched the fact."""
        path = self.renames.get(old.path, old.path)
        diff = code_diffs.get(path)
        if new is not None and (diff is None or new.line in diff.changed_head_lines):
            return CodeLocation(new.path, new.line)
        if diff is None:
            return CodeLocation(path, new.line if new else old.line)
        mapped = diff.head_line_for(old.line)
        if new is not None and new.path == path and mapped not in diff.touched_head_lines:
            # The fact's own line did not change (a builder did): point at the nearest change.
            near = min(diff.touched_head_lines, key=lambda n: abs(n - new.line), default=new.line)
            return CodeLocation(path, near)
        return CodeLocation(path, mapped)

    def _code_to_doc(
        self,
        doc: DocPage,
        refs: Sequence[Ref],
        deltas: dict[str, list[_Delta]],
        code_diffs: dict[str, LineDiff],
        head: Facts,
        base: Facts,
    ) -> None:
        for ref in refs:
            for delta in deltas.get(ref.token, ()):
                if (ref.kind == "flag") != (delta.old.kind == "flag"):
                    continue
                if delta.kind == "changed":
                    self._changed(doc, ref, delta, code_diffs)
                    continue
                if head.knows(ref.token, flag=ref.kind == "flag"):
                    continue  # another source still defines it
                if _is_choice(delta.old) and not self._cites_choice(doc, ref, delta.old, base):
                    continue
                self._gone(doc, ref, delta, code_diffs)
        self._claims(doc, deltas, code_diffs, base)

    def _cites_choice(self, doc: DocPage, ref: Ref, choice: Fact, base: Facts) -> bool:
        """Is this bare value (`fsdp`) cited as a choice of its flag, rather than in passing?"""
        flag = (choice.group or "").removeprefix("choices of ")
        first, last = paragraph(doc, ref.line) if ref.where != "table" else (ref.line, ref.line)
        if any(r.token == flag for n in range(first, last + 1) for r in doc.refs_on(n)):
            return True
        if ref.where == "table":
            siblings = set(base.group(choice.group or ""))
            return any(
                r.where == "table" and r.column == ref.column and r.token in siblings and r.token != ref.token
                for r in doc.refs
                if r.section == ref.section
            )
        return False

    def _gone(self, doc: DocPage, ref: Ref, delta: _Delta, code_diffs: dict[str, LineDiff]) -> None:
        old, new = delta.old, delta.new
        where = f"{old.path}:{old.line}"
        code = self._code_line(old, new, code_diffs)
        if new is not None:
            self._emit(
                "renamed",
                ref.token,
                f"{_subject(old)} is now `{new.token}` ({new.path}:{new.line}); "
                f"the doc still says `{old.token}`",
                doc=doc,
                line=ref.line,
                code=code,
                edit=(old.token, new.token),
                why=_why_renamed(old, new, where),
            )
            return
        replacement = None
        line_text = doc.lines[ref.line - 1]
        if ref.where == "table" and ref.row is not None and first_cell_token(line_text) == ref.token:
            replacement = ""  # the table row exists for this fact alone: drop it
        self._emit(
            "removed",
            ref.token,
            f"{_gone_subject(old)} (defined at {where} before this change); the doc still cites it",
            doc=doc,
            line=ref.line,
            code=code,
            replacement=replacement,
            why=f"Rule `{self.rule.id}` reads {old.path} with source `{old.source}`. At the base revision "
            f"`{old.token}` was defined at {where}; at head nothing in the rule's sources defines it, and no "
            "flag with the same destination or a close name replaces it.",
        )

    def _changed(self, doc: DocPage, ref: Ref, delta: _Delta, code_diffs: dict[str, LineDiff]) -> None:
        old, new = delta.old, delta.new
        assert new is not None
        code = self._code_line(old, new, code_diffs)
        if (
            delta.attr == "default"
            and old.attr("sets") is not None
            and {
                normalize_default(delta.old_value),
                normalize_default(delta.new_value),
            }
            == {"True", "False"}
        ):
            # A switch whose default flipped: it now does nothing, or its opposite does.
            noop = normalize_default(delta.new_value) == ("True" if old.attr("sets") == "true" else "False")
            effect = (
                "passing it no longer changes anything"
                if noop
                else "it is now the only way to get the old default"
            )
            self._emit(
                "changed",
                ref.token,
                f"`{old.key}` now defaults to {normalize_default(delta.new_value)} "
                f"(was {normalize_default(delta.old_value)}): {effect}; the doc describes the old default",
                doc=doc,
                line=ref.line,
                code=code,
            )
        elif delta.attr == "sets":
            self._emit(
                "changed",
                ref.token,
                f"`{ref.token}` now sets `{old.key}` to {new.attr('sets')} (it set {old.attr('sets')}); "
                "the doc describes the old polarity",
                doc=doc,
                line=ref.line,
                code=code,
                why=f"The flag's action changed from {old.attr('action')} to {new.attr('action')}.",
            )
        elif delta.attr == "choices" and ref.value is not None:
            allowed = (new.attr("choices") or "").split(",")
            if ref.value not in allowed:
                self._emit(
                    "changed",
                    f"{ref.token} {ref.value}",
                    f"`{ref.value}` is no longer a choice of `{ref.token}` (choices: {', '.join(allowed)})",
                    doc=doc,
                    line=ref.line,
                    code=code,
                )
        elif delta.attr == "type" and ref.value is not None and not _fits_type(ref.value, new.attr("type")):
            self._emit(
                "changed",
                f"{ref.token} {ref.value}",
                f"`{ref.token}` now takes {new.attr('type')} (it took {old.attr('type')}); "
                f"`{ref.value}` does not fit",
                doc=doc,
                line=ref.line,
                code=code,
            )

    def _claims(
        self, doc: DocPage, deltas: dict[str, list[_Delta]], code_diffs: dict[str, LineDiff], base: Facts
    ) -> None:
        """Default claims that were true at base and are false at head."""
        for claim in doc.claims:
            if claim.subject is None and len(_choice_owners(claim.value, base)) != 1:
                continue  # a bare value is only a claim about a flag when one flag offers it
            for delta in self._claim_deltas(claim, deltas, flag_aliases(doc)):
                old, new = delta.old, delta.new
                assert new is not None
                if normalize_default(claim.value) != normalize_default(delta.old_value):
                    continue
                new_default = delta.new_value
                edit = None
                # A "Default:" row describes the old default's behaviour: renaming its value
                # would make the row wrong in a new way, so it gets the finding without a rewrite.
                row_claim = first_cell_token(doc.lines[claim.line - 1]) is not None and (
                    old.token in doc.lines[claim.line - 1].split("|")[1]
                )
                if not is_mark(claim.text) and new_default is not None and not row_claim:
                    edit = (claim.text, claim.text.replace(claim.value, display(new_default)))
                self._emit(
                    "changed",
                    new.token,
                    f"the default of `{new.token}` is now `{display(new_default)}` "
                    f"(was `{display(delta.old_value)}`); the doc still says `{claim.value}`",
                    doc=doc,
                    line=claim.line,
                    code=self._code_line(old, new, code_diffs),
                    edit=edit,
                )

    def _claim_deltas(
        self, claim, deltas: dict[str, list[_Delta]], aliases: dict[str, str]
    ) -> Iterable[_Delta]:
        for token_deltas in deltas.values():
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

    def _undocumented(
        self,
        doc: DocPage,
        refs: Sequence[Ref],
        base: Facts,
        head: Facts,
        code_diffs: dict[str, LineDiff],
        successors: set[str],
    ) -> None:
        """New members of sets the doc lists; a rename's new name is reported as the rename."""
        cited = {r.token for r in refs} | successors
        groups: dict[str, bool] = {}
        for source in self.rule.sources:
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
                anchor_line = enumerating_line([r for r in refs if r.token in listed])
                self._emit(
                    "undocumented",
                    token,
                    f"`{token}` is new in {group} ({fact.path}:{fact.line}); the doc lists "
                    f"{', '.join(f'`{t}`' for t in listed)} but not `{token}`",
                    doc=doc,
                    line=anchor_line,
                    code=self._code_line(fact, fact, code_diffs),
                )
        self._new_flags(doc, cited, base, head, code_diffs)

    def _new_flags(
        self, doc: DocPage, cited: set[str], base: Facts, head: Facts, code_diffs: dict[str, LineDiff]
    ) -> None:
        base_keys = {(f.source, f.key) for f in base.flags()}
        base_tokens = set(base.by_token)
        sources = {s.id: s for s in self.rule.sources}
        # A page that cites three of a module's 300 flags is not documenting that module: only
        # sources whose flags the page covers in good part get told about new ones.
        keys: dict[str, set[str]] = defaultdict(set)
        cited_keys: dict[str, set[str]] = defaultdict(set)
        for f in head.flags():
            keys[f.source].add(f.key)
            if f.token in cited:
                cited_keys[f.source].add(f.key)
        coverage = {src: len(cited_keys[src]) / len(k) for src, k in keys.items()}
        for flag in head.flags():
            if flag.token.startswith("--no-") and flag.attr("sets") == "false" and flag.attr("action"):
                continue  # the negative half of a BooleanOptionalAction pair
            if flag.token in base_tokens or flag.token in cited or (flag.source, flag.key) in base_keys:
                continue
            if coverage.get(flag.source, 0.0) < DOCUMENTED_SHARE:
                continue
            kind = (
                "undocumented" if sources.get(flag.source) and sources[flag.source].enumerated else "new-flag"
            )
            self._emit(
                kind,
                flag.token,
                f"new flag `{flag.token}` ({flag.path}:{flag.line}) is not mentioned in {doc.path}",
                code=self._code_line(flag, flag, code_diffs),
            )

    def _paths_moved(self, doc: DocPage, refs: Sequence[Ref]) -> None:
        if not any(s.kind == "paths" for s in self.rule.sources):
            return
        for ref in refs:
            if ref.kind != "path" or _is_external(ref.token, self.rule.external):
                continue
            token = ref.token.rstrip("/")
            new = self.renames.get(token) or self._moved_folder(token)
            if new is not None:
                self._emit(
                    "renamed",
                    ref.token,
                    f"`{ref.token}` was moved to `{new}` by this change",
                    doc=doc,
                    line=ref.line,
                    code=CodeLocation(new, 1),
                    edit=(token, new),
                )
            elif not self.head.exists(token) and (
                token in self.removed_paths or any(p.startswith(token + "/") for p in self.removed_paths)
            ):
                self._emit(
                    "removed",
                    ref.token,
                    f"`{ref.token}` was deleted by this change; the doc still cites it",
                    doc=doc,
                    line=ref.line,
                )

    def _moved_folder(self, folder: str) -> str | None:
        """Where a cited folder went, when the change moved every file in it to one new folder."""
        if self.head.exists(folder):
            return None
        targets = set()
        for old, new in self.renames.items():
            if old.startswith(folder + "/"):
                rest = old[len(folder) :]
                if not new.endswith(rest):
                    return None
                targets.add(new[: -len(rest)])
        return targets.pop() if len(targets) == 1 else None

    # -- doc -> code ----------------------------------------------------------------------------

    def _doc_to_code(self, doc: DocPage, refs: Sequence[Ref], head: Facts, sections: Sequence[str]) -> None:
        check_paths = any(s.kind == "paths" for s in self.rule.sources)
        names = {f.token for f in head.facts if f.kind != "flag"}
        flag_tokens = {f.token for f in head.flags()}
        for ref in refs:
            if _is_external(ref.token, self.rule.external):
                continue
            if ref.kind == "flag":
                self._resolve_flag(doc, ref, head, flag_tokens)
            elif ref.kind == "path" and check_paths:
                self._resolve_path(doc, ref)
            elif ref.kind == "name" and ref.token not in names and len(ref.token) >= 6:
                # Only near misses of known names: most names a page cites (`torch_dist`,
                # `config.json`) come from elsewhere, and short ones (`fsdp2`) sit close to
                # everything.
                near = _closest(ref.token, names, 0.85)
                if near is not None and near not in {r.token for r in doc.refs_on(ref.line)}:
                    self._emit(
                        "unresolved",
                        ref.token,
                        f"`{ref.token}` is not defined by the code this page is checked against; "
                        f"did you mean `{near}`?",
                        doc=doc,
                        line=ref.line,
                        edit=(ref.token, near),
                    )
        changed_lines = {r.line for r in refs}
        for claim in doc.claims:
            if claim.line in changed_lines and in_scope(claim.section.path, sections):
                self._check_claim(doc, claim, head, flag_aliases(doc))

    def _resolve_flag(self, doc: DocPage, ref: Ref, head: Facts, flag_tokens: set[str]) -> None:
        facts = [f for f in head.by_token.get(ref.token, ()) if f.kind == "flag"]
        if not facts and self._own_cli(ref.program):
            return  # `python tools/convert.py --input x`: that script's flags, not the rule's
        if not facts:
            near = _closest(ref.token, flag_tokens, 0.6)
            self._emit(
                "unresolved",
                ref.token,
                f"`{ref.token}` is not a flag at head" + (f"; did you mean `{near}`?" if near else ""),
                doc=doc,
                line=ref.line,
                edit=(ref.token, near) if near else None,
            )
            return
        choices = facts[0].attr("choices")
        if ref.value is not None and choices:
            allowed = choices.split(",")
            if ref.value not in allowed and not _is_external(ref.value, self.rule.external):
                near = _closest(ref.value, allowed, 0.6)
                self._emit(
                    "unresolved",
                    f"{ref.token} {ref.value}",
                    f"`{ref.value}` is not a choice of `{ref.token}` (choices: {', '.join(allowed)})",
                    doc=doc,
                    line=ref.line,
                    code=CodeLocation(facts[0].path, facts[0].line),
                    edit=(ref.value, near) if near else None,
                )

    def _own_cli(self, program: str | None) -> bool:
        """Is `program` a script in the repository that parses its own command line?"""
        if program is None:
            return False
        path = program.removeprefix("./")
        if any(path in s.paths for s in self.rule.sources):
            return False
        text = self.head.read(path)
        return text is not None and any(m in text for m in _CLI_MARKERS)

    def _resolve_path(self, doc: DocPage, ref: Ref) -> None:
        token = ref.token
        if token.startswith(("/", "~", "$", "http:", "https:", ".")) or "<" in token or "*" in token:
            return
        if "/" not in token:
            return  # a bare file name (`config.json`) names a kind of file, not a place in this repo
        bare = token.rstrip("/")
        if self.head.exists(bare):
            return
        paths = self.head.paths()
        # A partial path (`fsdp_utils/kernels/`) resolves when some real path ends with it.
        suffix = "/" + bare
        if any(p.endswith(suffix) or ("/" + bare + "/") in ("/" + p) for p in paths):
            return
        base_name = bare.rsplit("/", 1)[-1]
        same_name = [p for p in paths if p.rsplit("/", 1)[-1] == base_name]
        near = _closest(bare, same_name, 0.0) if same_name else _closest(bare, paths, 0.75)
        self._emit(
            "unresolved",
            token,
            f"`{token}` does not exist at head" + (f"; did you mean `{near}`?" if near else ""),
            doc=doc,
            line=ref.line,
            edit=(bare, near) if near else None,
        )

    def _check_claim(self, doc: DocPage, claim, head: Facts, aliases: dict[str, str]) -> None:
        flags: list[Fact] = []
        if claim.subject is None:
            flags = _choice_owners(claim.value, head)
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
        if claim.subject is None and is_mark(claim.text):
            message = f"the default of `{flag.token}` is `{display(actual)}`, not `{claim.value}`"
            edit = None
        else:
            message = f"the default of `{flag.token}` is `{display(actual)}`; the doc says `{claim.value}`"
            edit = (
                (claim.text, claim.text.replace(claim.value, display(actual))) if actual is not None else None
            )
        self._emit(
            "wrong-default",
            flag.token,
            message,
            doc=doc,
            line=claim.line,
            code=CodeLocation(flag.path, flag.line),
            edit=edit,
        )


# ---------------------------------------------------------------------------------------------


def _choice_owners(value: str, facts: Facts) -> list[Fact]:
    """The flags (one per dest) that offer `value` among their choices."""
    owners: dict[str, Fact] = {}
    for f in facts.flags():
        if value in (f.attr("choices") or "").split(",") and not f.token.startswith("--no-"):
            owners.setdefault(f.key, f)
    return list(owners.values())


def _is_choice(fact: Fact) -> bool:
    return fact.kind == "string" and (fact.group or "").startswith("choices of ")


def _rank(severity: str) -> int:
    return {"notice": 0, "warning": 1, "error": 2}.get(severity, 3)


def _with_suggestion(f: Finding, suggestion: Suggestion | None) -> Finding:
    from dataclasses import replace

    return replace(f, suggestion=suggestion)


def _fits_type(value: str, type_name: str | None) -> bool:
    try:
        if type_name == "int":
            int(value)
        elif type_name == "float":
            float(value)
    except ValueError:
        return False
    return True


def _subject(fact: Fact) -> str:
    if fact.kind == "string":
        return f"`{fact.token}` (one of the {fact.group or 'values'})"
    return f"{_describe(fact)} `{fact.token}`"


def _gone_subject(fact: Fact) -> str:
    if fact.kind == "string":
        return f"`{fact.token}` is no longer one of the {fact.group or 'values'}"
    return f"{_describe(fact)} `{fact.token}` no longer exists"


def _describe(fact: Fact) -> str:
    if fact.kind == "flag":
        return "flag"
    if fact.kind == "symbol":
        return fact.attr("kind") or "symbol"
    return (fact.group or "value").replace("-", " ")


def _why_renamed(old: Fact, new: Fact, where: str) -> str:
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


# ---------------------------------------------------------------------------------------------
# Entry points


def check(
    rules: Sequence[Rule],
    base: Tree,
    head: Tree,
    changes: Sequence[Change],
    cache: FactsCache | None = None,
) -> Report:
    """Findings for one change (base -> head) under the given rules."""
    findings: list[Finding] = []
    checked: list[str] = []
    for rule in rules:
        run = _RuleCheck(rule, base, head, changes, cache)
        if not run.touched():
            continue
        checked.append(rule.id)
        findings.extend(run.run())
    return Report(findings=tuple(findings), rules_checked=tuple(checked))


class _EmptyTree:
    def read(self, path: str) -> str | None:
        return None

    def blob_id(self, path: str) -> str | None:
        return None

    def exists(self, path: str) -> bool:
        return False

    def paths(self) -> frozenset[str]:
        return frozenset()


def audit(rules: Sequence[Rule], tree: Tree, cache: FactsCache | None = None) -> Report:
    """Every doc reference that does not resolve in this revision (the whole page is 'new')."""
    findings: list[Finding] = []
    for rule in rules:
        run = _RuleCheck(rule, _EmptyTree(), tree, (), cache, audit=True)
        findings.extend(run.run())
    return Report(findings=tuple(findings), rules_checked=tuple(r.id for r in rules))
