"""Every word the App shows on a pull request: check run outputs and annotations, review comment
bodies and their suggestions, the summary comment, "Fixed in" edits, and the replies to
`/docs-sync` commands; and the hidden markers by which a later run recognises what it wrote.

Pure: findings and reports in, strings (and GitHub's JSON shapes for annotations) out. Which
finding goes on which diff line, and every call to GitHub, is the App's (bot.app.github.review,
bot.app.github.checkruns, bot.app.github.summary, bot.app.jobs.commands).

GitHub's limits: check run summary and text at most 65,535 bytes of UTF-8 (GitHub counts bytes,
though its docs say characters), annotation message and raw_details at most 64 KB, title 255
characters; comment bodies at most 65,536 characters. Each function here stays within them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote

from bot.core.model import Finding, Report, Suggestion
from bot.core.packfiles import REPO_CONFIG
from bot.core.rules import RulesError
from bot.render.common import DocText, RenderError, md_code, md_escape, plural
from bot.render.markdown import to_markdown
from bot.render.patch import to_patch

TEXT_LIMIT = 65_535  # check run summary and text, in UTF-8 bytes
NOTE_LIMIT = 65_535  # annotation message and raw_details ("64 KB"), in UTF-8 bytes
TITLE_LIMIT = 255  # check run and annotation titles, in characters
COMMENT_LIMIT = 65_536  # issue and review comment bodies, in characters

Annotation = dict[str, Any]  # one check run annotation, as GitHub's API takes it

_LEVEL = {"error": "failure", "warning": "warning", "notice": "notice"}
_BADGE = {"error": "🔴", "warning": "🟡", "notice": "🔵"}


def clip(text: str, limit: int) -> str:
    """`text` within `limit` bytes of UTF-8, ending in "…" where it was cut (never mid-character)."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: max(0, limit - 3)].decode("utf-8", "ignore") + "…"


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def typed(text: str) -> str:
    """What a person typed (a command's words, a waiver's reason), as inert text: a code span on
    one line, fenced longer than any backtick run in it, so no mention, link, image or HTML
    comes alive when docs-sync repeats it."""
    return md_code(" ".join(text.splitlines()))


def _typed_reasons(report: Report) -> Report:
    """The report with each waiver's reason shown as typed text. The formats escape a reason but
    keep its code spans; escaping leaves `@team` and bare links live, a code span does not."""
    if not report.ignored:
        return report
    return replace(report, ignored=tuple((f, typed(reason)) for f, reason in report.ignored))


def _fence(text: str, info: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


# ---------------------------------------------------------------------------------------------
# markers: how a later run finds what an earlier one wrote

SUMMARY_MARKER = "<!-- docs-sync:summary -->"
_MARKER = re.compile(r"<!-- docs-sync:fp=([0-9a-f]+) -->")


def marker(fingerprint: str) -> str:
    """The hidden line ending every review comment, naming its finding's fingerprint."""
    return f"<!-- docs-sync:fp={fingerprint} -->"


def marked_fingerprint(body: str) -> str | None:
    """The fingerprint a comment body was marked with, None for a comment that is not docs-sync's."""
    m = _MARKER.search(body)
    return m.group(1) if m else None


_CHECKED = re.compile(r"<!-- docs-sync:checked base=([0-9a-f]{40}) rules=([\w:]+) -->\n")


def checked_marker(base_sha: str, rules: str) -> str:
    """The hidden first line of a completed check run's summary: what the head was checked
    against, so a pull request with the same head on another base, or under other rules, does
    not take the run for its own check."""
    return f"<!-- docs-sync:checked base={base_sha} rules={rules} -->\n"


def checked_against(summary: str) -> tuple[str, str] | None:
    """The base and rules a run's summary starts by naming (a marker further down is a user's
    text, quoted), else None."""
    m = _CHECKED.match(summary)
    return (m.group(1), m.group(2)) if m else None


def reply_marker(comment_id: int) -> str:
    """The hidden line ending the reply to the `/docs-sync` comment `comment_id`."""
    return f"<!-- docs-sync:reply-to={comment_id} -->"


@dataclass(frozen=True)
class Links:
    """Permalinks into the repository at the head commit."""

    html_url: str  # https://github.com/owner/repo
    head_sha: str

    def blob(self, path: str, start: int, end: int | None = None) -> str:
        return f"{self.html_url}/blob/{self.head_sha}/{quote(path)}#L{start}-L{end or start}"


# ---------------------------------------------------------------------------------------------
# check runs


@dataclass(frozen=True)
class CheckOutcome:
    """How a check run ends: its conclusion and the output GitHub shows for it."""

    conclusion: str  # success | neutral | failure
    title: str
    summary: str
    annotations: tuple[Annotation, ...] = ()


IN_PROGRESS_TITLE = "Checking the docs"
IN_PROGRESS_SUMMARY = "docs-sync is reading this pull request."
RERUN_LABEL, RERUN_DESCRIPTION = "Re-run", "Run docs-sync again"  # the check run's button


def check_title(report: Report) -> str:
    """'2 doc lines out of date', 'Docs are in sync (1 finding ignored)', ..."""
    ignored = f" ({plural(len(report.ignored), 'finding')} ignored)" if report.ignored else ""
    if not report.findings:
        return "Docs are in sync" + ignored
    doc_lines = {(f.doc.path, f.doc.line) for f in report.findings if f.doc}
    others = sum(1 for f in report.findings if not f.doc)
    if not doc_lines:
        return plural(others, "finding") + ignored
    title = plural(len(doc_lines), "doc line") + " out of date"
    if others:
        title += f", {plural(others, 'more finding')}"
    return title + ignored


def finding_annotations(report: Report, gone: Collection[str] = ()) -> list[Annotation]:
    """One check-run annotation per finding that has a place in the head commit.

    The doc line, else the code line; `gone` are paths the head commit no longer has (removed,
    or renamed away), where an annotation would point at nothing.
    """
    out = []
    for f in report.findings:
        if f.doc and f.doc.path not in gone:
            path, start, end = f.doc.path, f.doc.line, f.doc.line
            s = f.suggestion
            if s and s.path == path and s.start_line <= s.end_line:
                start, end = s.start_line, s.end_line
        elif f.code and f.code.path not in gone:
            path, start, end = f.code.path, f.code.line, f.code.line
        else:
            continue  # the summary still lists it
        if not path or start < 1:
            continue  # GitHub refuses the whole request for one annotation without a place
        message = f.message
        if f.doc and f.code:
            message += f"\ncode: {f.code.path}:{f.code.line}"
        annotation: Annotation = {
            "path": path,
            "start_line": start,
            "end_line": end,
            "annotation_level": _LEVEL[f.severity],
            "title": f"{f.kind}: {f.symbol}"[:TITLE_LIMIT],
            "message": clip(message, NOTE_LIMIT),
        }
        if f.suggestion:
            details = (
                "Suggested text:\n" + f.suggestion.replacement
                if f.suggestion.replacement
                else "Suggested: delete these lines."
            )
            annotation["raw_details"] = clip(details, NOTE_LIMIT)
        out.append(annotation)
    return out


def summary_text(
    report: Report,
    links: Links,
    notes: Sequence[str] = (),
    limit: int = TEXT_LIMIT,
    doc_text: DocText | None = None,
) -> str:
    """The markdown summary of the check run (and of the summary comment), within `limit` bytes.

    `doc_text(path)` reads a doc page at the head, so each suggestion shows the lines it replaces
    as well as the new ones. The markdown is cut at whole findings; GitHub measures the summary in
    bytes, so where badges and non-ASCII text make the bytes outgrow the characters, it is cut
    again, shorter.
    """
    report = _typed_reasons(report)
    tail = "".join(f"\n> {note}\n" for note in notes)
    room = limit - _size(tail) - 100  # bytes for the markdown
    budget = room  # characters asked of to_markdown
    markdown = ""
    for _ in range(8):
        markdown = to_markdown(report, doc_url=links.blob, doc_text=doc_text, limit=max(1000, budget))
        size = _size(markdown)
        if size <= room:
            return markdown + tail
        budget = int(budget * room / size * 0.99)  # as many characters as the bytes per character allow
    return clip(markdown + tail, limit)


def report_outcome(
    report: Report,
    links: Links,
    notes: Sequence[str] = (),
    gone: Collection[str] = (),
    doc_text: DocText | None = None,
) -> CheckOutcome:
    """The check run of a finished check: title, summary with `notes`, one annotation per finding."""
    return CheckOutcome(
        report.conclusion(),
        check_title(report),
        summary_text(report, links, notes, doc_text=doc_text),
        tuple(finding_annotations(report, gone)),
    )


NOT_CONFIGURED = f"""\
docs-sync checks that the docs of this repository still match its code, but it has no rules \
for it yet.

Add `{REPO_CONFIG}` to the default branch (it is read from the base branch of each pull \
request, never from the pull request itself), for example:

```yaml
# Built-in rule packs, by name
packs: []
# Your own rules: which doc pages follow which code
rules:
  - id: usage-page
    docs:
      - path: docs/usage.md
    sources:
      - id: cli-flags
        kind: argparse            # argparse | dataclass-flags | symbols | strings | paths
        path: mypkg/cli.py
      - id: cited-paths
        kind: paths               # paths the page cites must exist
fail_on: error                    # error | warning | notice | never
```

The App's operator can instead set `DOCS_SYNC_RULES` for every repository.
"""


def not_configured() -> CheckOutcome:
    """Neither the repository nor the App has rules: a neutral run that says how to add them."""
    return CheckOutcome("neutral", "docs-sync is not configured", NOT_CONFIGURED)


def invalid_config(error: RulesError, base_ref: str | None, base_sha: str) -> CheckOutcome:
    """The base branch's config cannot be used: a failure naming the file, line and key."""
    where = f"`{base_ref}` at {base_sha[:12]}" if base_ref else base_sha[:12]
    summary = (
        f"docs-sync cannot use `{REPO_CONFIG}` from the base branch ({where}):\n\n"
        f"```\n{error}\n```\n\n"
        "Fix the file on the base branch; nothing in this pull request was checked."
    )
    notes: list[Annotation] = []
    if error.file == REPO_CONFIG and error.line:
        notes.append(
            {
                "path": REPO_CONFIG,
                "start_line": error.line,
                "end_line": error.line,
                "annotation_level": "failure",
                "title": f"{error.key}: invalid",
                "message": error.problem,
            }
        )
    return CheckOutcome("failure", f"Invalid {REPO_CONFIG}", summary, tuple(notes))


SUPERSEDED_TITLE = "Superseded by a newer push"


def superseded(head_sha: str) -> CheckOutcome:
    """A job whose pull request was pushed again before it could publish: it says nothing more."""
    return CheckOutcome(
        "neutral",
        SUPERSEDED_TITLE,
        f"A newer commit was pushed to this pull request after {head_sha[:12]}; "
        "docs-sync checks that one instead.",
    )


def left_behind(head_sha: str) -> CheckOutcome:
    """The run a retried recheck left on a head the pull request has since moved past."""
    return CheckOutcome(
        "neutral",
        SUPERSEDED_TITLE,
        f"A newer commit was pushed after {head_sha[:12]}; docs-sync checks that one.",
    )


def over_budget(budget: str, used: str, limit: str, setting: str) -> CheckOutcome:
    """A pull request past one of the App's budgets: a failure naming the budget and its value.

    Never a success: what was not checked may be wrong. `used` says how far it went ("5,000
    findings", "more than 120 s"), `limit` the budget ("500 findings"), `setting` the variable
    the App's operator can raise it with.
    """
    return CheckOutcome(
        "failure",
        clip(f"Over the {budget} budget: {used} (limit {limit})", TITLE_LIMIT),
        f"docs-sync stopped checking this pull request: its {budget} went past the budget of {limit} "
        f"that keeps one pull request from holding up the others ({used}).\n\n"
        "Nothing else was posted, and the docs were not checked: this run does not say they are "
        "in sync. Split the pull request, or ask the App's operator to raise "
        f"`{setting}`, then use **Re-run** above or comment `/docs-sync`.",
    )


FAILED_TITLE = "docs-sync could not run"


def fail_summary(error: BaseException | str) -> str:
    text = str(error) or type(error).__name__
    return (
        "docs-sync stopped before it could finish checking this pull request:\n\n"
        + _fence(clip(text, TEXT_LIMIT - 500), "")
        + "\n\nThis run says nothing about the docs. Use **Re-run** above, or comment `/docs-sync` "
        "on the pull request, to try again."
    )


def failed(error: BaseException | str) -> CheckOutcome:
    """A job that broke (or was given up): a failure saying what broke, so no check waits forever."""
    return CheckOutcome("failure", FAILED_TITLE, fail_summary(error))


def files_cut_note(listed: int) -> str:
    return (
        f"GitHub lists only the first {listed:,} changed files of a pull request; "
        "changes to files after those were not checked."
    )


def over_cap_note(over: int, cap: int) -> str:
    return (
        f"{over} more finding{'s are' if over > 1 else ' is'} not commented inline: docs-sync "
        f"keeps at most {cap} comments open on a pull request."
    )


# ---------------------------------------------------------------------------------------------
# review comments


def suggestion_block(replacement: str) -> str:
    """A ```suggestion block replacing the commented lines with `replacement`.

    An empty replacement deletes them, which GitHub writes as a block with no line at all (a
    block holding one empty line would replace them with a blank line).
    """
    if replacement == "":
        return "```suggestion\n```"
    return _fence(replacement, "suggestion")


def finding_line(f: Finding) -> str:
    """The one-line markdown form of a finding: badge, kind, symbol, message."""
    return f"{_BADGE[f.severity]} **{f.kind}** {md_code(f.symbol)}: {md_escape(f.message)}"


TOO_LONG = "The rest of this finding is too long for a comment; the check run's annotation has it."


def _comment_body(parts: Sequence[str], fp: str) -> tuple[str, bool]:
    """The comment: its paragraphs and marker, and True; past GitHub's limit (which refuses the
    whole review), the paragraphs that fit whole (else the first, cut), a note, and False."""
    end = marker(fp)
    body = "\n\n".join([*parts, end])
    if len(body) <= COMMENT_LIMIT:
        return body, True
    kept: list[str] = []
    for part in parts:
        if len("\n\n".join([*kept, part, TOO_LONG, end])) > COMMENT_LIMIT:
            break
        kept.append(part)
    if not kept:
        kept = [parts[0][: COMMENT_LIMIT - len(TOO_LONG) - len(end) - 10] + "…"]
    return "\n\n".join([*kept, TOO_LONG, end]), False


def doc_comment(f: Finding, suggestion: Suggestion | None) -> tuple[str, bool]:
    """The body of a comment on the finding's doc line, with `suggestion` as a ```suggestion block.

    The second value is False when the suggestion did not fit in a comment and was left out:
    the comment then belongs on the doc line alone.
    """
    parts = [finding_line(f)]
    if suggestion is not None:
        parts.append(suggestion_block(suggestion.replacement))
    return _comment_body(parts, f.fingerprint())


def code_comment(f: Finding, links: Links, head_text: Callable[[str], str | None]) -> str:
    """The body of a comment on the code line that made the doc wrong: the doc line it affects
    (linked) and, when the doc page can be read at head, the fix as a patch `git apply` takes.

    The doc line is not in the diff, so GitHub offers no one-click suggestion there: the patch
    and `/docs-sync apply` stand in for it."""
    parts = [finding_line(f)]
    if f.doc:
        link = f"[{f.doc.path} line {f.doc.line}]({links.blob(f.doc.path, f.doc.line)})"
        section = f" ({md_escape(f.doc.section)})" if f.doc.section else ""
        parts.append(f"This change makes {link}{section} out of date.")
        patch = doc_patch(Report((f,)), head_text)
        if patch:
            parts.append(APPLY_HINT + "\n\n" + _fence(patch.removesuffix("\n"), "diff"))
    return _comment_body(parts, f.fingerprint())[0]


APPLY_HINT = (
    "The doc line is not in this pull request's diff, so GitHub cannot offer it as a suggestion. "
    "Comment `/docs-sync apply` to have docs-sync commit the fix (write access, branches of this "
    "repository), or save the patch and run `git apply` on it:"
)


def doc_patch(report: Report, doc_text: DocText | None) -> str | None:
    """Every suggestion of `report` as one patch of the doc pages (`git apply` takes it, from the
    repository root), or None when there is none or a page cannot be read."""
    if not any(f.suggestion for f in report.findings):
        return None
    try:
        return to_patch(report, doc_text) or None
    except RenderError:
        return None  # a page that cannot be read, or lacks the lines a suggestion replaces


def fixed_body(message: str, sha: str, fingerprint: str) -> str:
    """A review comment whose finding is gone: struck through, with the commit that fixed it."""
    return f"✅ **Fixed in {sha[:12]}.** ~~{message}~~\n\n{marker(fingerprint)}"


def summary_comment(
    report: Report, links: Links, notes: Sequence[str] = (), doc_text: DocText | None = None
) -> str:
    """The pull request's one summary comment: the check run's summary, marked and signed, and
    every suggestion as one patch of the doc pages (what `/docs-sync apply` commits)."""
    footer = f"\n<sub>docs-sync checked {links.head_sha[:12]}.</sub>\n"
    patch = _patch_section(report, doc_text)
    budget = COMMENT_LIMIT - len(SUMMARY_MARKER) - len(footer) - 2
    if len(patch) > budget // 2:
        patch = ""  # the findings matter more; the patch is one command away (PATCH_COMMAND)
    budget -= len(patch)
    return f"{SUMMARY_MARKER}\n{summary_text(report, links, notes, budget, doc_text)}{patch}{footer}"


PATCH_COMMAND = "docs-sync check --base {base} --head {head} --format patch | git apply"


def _patch_section(report: Report, doc_text: DocText | None) -> str:
    patch = doc_patch(report, doc_text)
    if patch is None:
        return ""
    return (
        "\n<details><summary>All suggested doc changes as one patch</summary>\n\n"
        "Suggestions on lines outside this pull request's diff cannot be accepted with one click. "
        "Comment `/docs-sync apply` to have docs-sync commit this patch to the branch (write "
        "access, branches of this repository), or save it and run `git apply` on it.\n\n"
        + _fence(patch.removesuffix("\n"), "diff")
        + "\n\n</details>\n"
    )


# ---------------------------------------------------------------------------------------------
# replies to /docs-sync commands


def help_text(entries: Sequence[tuple[str, str]]) -> str:
    """The command list: (how to write it, what it does) per command, in markdown."""
    lines = [f"- {usage}: {what}" for usage, what in entries]
    return (
        "docs-sync keeps this repository's docs in step with its code. Commands (first line of a "
        "comment):\n\n" + "\n".join(lines)
    )


def unknown_command(verb: str) -> str:
    """Why the help answers a verb it does not list (the verb as typed, inert)."""
    return f"unknown command {typed(verb)}"


def command_reply(quoted: str, user: str, answer: str, comment_id: int) -> str:
    """The reply to a command: the command quoted as code, the commenter, the answer, the marker."""
    end = "\n\n" + reply_marker(comment_id)
    body = f"> {md_code(quoted)}\n\n@{user} {answer}"
    if len(body) + len(end) > COMMENT_LIMIT:
        body = body[: COMMENT_LIMIT - len(end) - 1] + "…"
    return body + end


def refused_by_github(error: str) -> str:
    return f"docs-sync could not do that: {md_escape(error)}"


def needs_permission(command: str, because: str, needed: str, held: str) -> str:
    """The polite refusal of a command above the commenter's permission (`held`: none, read, ...)."""
    have = "no access" if held == "none" else f"{held} access"
    return (
        f"thanks for looking into this! `/docs-sync {command}` {because}, so it needs {needed} "
        f"access to the repository (you have {have}). A maintainer can run it, or the doc can be "
        "updated instead."
    )


def rechecked(head_sha: str, report: Report | None) -> str:
    if report is None:
        return f"checked {head_sha[:12]} again; the docs-sync check run has the result."
    return f"checked {head_sha[:12]} again: {check_title(report)}."


def ignoring(symbol: str, reason: str, head_sha: str, report: Report | None) -> str:
    """The answer to `/docs-sync ignore`, with what the check said afterwards."""
    said = f" ({typed(reason)})" if reason else ""
    answer = f"docs-sync now ignores findings about {md_code(symbol)} on this pull request{said}."
    if report is None:
        return answer
    if not any(f.symbol.split(" ", 1)[0] == symbol or f.symbol == symbol for f, _ in report.ignored):
        answer += f" No current finding is about {md_code(symbol)}; the waiver applies if one appears."
    return answer + f" Checked {head_sha[:12]} again: {check_title(report)}."


def nothing_to_explain(why: str) -> str:
    return f"docs-sync has no findings to explain: {why}."


def explain_text(report: Report, html_url: str, head_sha: str) -> str:
    """Each finding of `report` (checked at `head_sha`): rule, what, doc line, code line, why."""
    base = f"{html_url}/blob/{head_sha}"
    if not report.findings:
        text = f"docs-sync found nothing out of date at {head_sha[:12]}."
    else:
        text = f"here is why docs-sync reported each finding at {head_sha[:12]}:\n"
        for i, f in enumerate(report.findings, 1):
            text += "\n" + _explain_one(i, f, base)
    if report.ignored:
        text += "\n\nIgnored on this pull request:\n"
        text += "\n".join(
            f"- {md_code(f.symbol)} ({f.kind}): {typed(reason)}" for f, reason in report.ignored
        )
    return text


def _explain_one(i: int, f: Finding, base: str) -> str:
    lines = [f"**{i}. {f.kind} {md_code(f.symbol)}** ({f.severity}, rule {md_code(f.rule)})"]
    lines.append(f"- What: {md_escape(f.message)}")
    if f.doc:
        d = f.doc
        section = f" ({md_escape(d.section)})" if d.section else ""
        lines.append(f"- Doc: [{d.path} line {d.line}]({base}/{d.path}#L{d.line}){section}")
    if f.code:
        c = f.code
        lines.append(f"- Code: [{c.path} line {c.line}]({base}/{c.path}#L{c.line})")
    if f.why:
        lines.append(f"- Why: {md_escape(f.why)}")
    return "\n".join(lines) + "\n"


# `/docs-sync apply`


def apply_message(report: Report) -> str:
    """The commit message of `/docs-sync apply`: docs-sync, and each finding the commit fixes."""
    fixed = [f for f in report.findings if f.suggestion]
    lines = [f"docs-sync: apply {plural(len(fixed), 'suggested doc change')}", ""]
    for f in fixed:
        where = f" ({f.doc.path}:{f.doc.line})" if f.doc else ""
        lines.append(f"- {f.kind} {f.symbol}{where}")
    return "\n".join(lines) + "\n"


def applied(sha: str, pages: Sequence[str], report: Report, left_out: Sequence[str] = ()) -> str:
    """The answer once the commit landed; `left_out`: files suggested that apply does not write."""
    fixed = sum(1 for f in report.findings if f.suggestion)
    names = ", ".join(md_code(p) for p in pages)
    also = f" Left out: {not_doc_files(left_out)}." if left_out else ""
    return (
        f"committed {sha[:12]} to this branch: {plural(fixed, 'suggested doc change')} in {names}.{also} "
        "The push starts a new docs-sync check of it."
    )


def over_limit(who: str, limit: int, window_s: float) -> str:
    """The one answer to the first command past a limit; the ones after it get none."""
    whose = "per commenter" if who == "commenter" else "per repository"
    return (
        f"docs-sync answers at most {limit} commands {whose} in {window_s / 60:g} minutes, and this "
        "one is past it: this and the next commands are not carried out (and not answered) until "
        "the window ends. The check still runs on every push."
    )


def not_doc_files(paths: Sequence[str]) -> str:
    """Why suggestions for `paths` are not committed."""
    names = ", ".join(md_code(p) for p in paths)
    return (
        f"{names} {'is' if len(paths) == 1 else 'are'} not a doc page or docs-site file of the base "
        "branch's config (and nothing under `.github/` is ever written)"
    )


def apply_fork(base_sha: str, head_sha: str) -> str:
    """A pull request from a fork: the App cannot push there; how to apply the patch by hand."""
    command = PATCH_COMMAND.format(base=base_sha[:12], head=head_sha[:12])
    return (
        "this pull request comes from a fork, where docs-sync cannot push (its installation is on "
        "this repository only). In a checkout of the pull request's branch, run:\n\n"
        f"```sh\n{command}\n```\n\nthen commit and push; or copy the patch from the summary comment."
    )


def apply_moved(checked_sha: str | None, head_sha: str | None) -> str:
    """The head is not the commit the findings were computed on: nothing is committed. `head_sha`
    None: GitHub refused the branch update (a push landed while the commit was being made)."""
    if head_sha is None:
        said = (
            f"the branch moved while docs-sync was committing (GitHub refused to move it from "
            f"{(checked_sha or '')[:12]}: not a fast-forward)"
        )
    elif checked_sha is None:
        said = f"docs-sync has not checked this pull request's head ({head_sha[:12]}) yet"
    else:
        said = (
            f"the branch moved since docs-sync checked it (checked {checked_sha[:12]}, "
            f"head is now {head_sha[:12]})"
        )
    return (
        f"nothing was committed: {said}, so its suggestions may no longer fit the pages. Comment "
        "`/docs-sync recheck`, then `/docs-sync apply` once the check is done."
    )


def nothing_to_apply(head_sha: str, why: str = "") -> str:
    reason = why or "no finding of the last check has a suggested doc change"
    return f"nothing to commit at {head_sha[:12]}: {reason}."
