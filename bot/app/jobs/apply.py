"""`/docs-sync apply`: commit the last check's suggested doc changes to the pull request's branch.

GitHub takes ```suggestion blocks only on lines of the diff; a doc line the pull request did not
touch gets its fix as a patch instead (bot.render.comments: the review comment on the code line
and the summary comment). This commits that patch, as the App, in one commit:

    the pull request now -> a fork? the App cannot push there: the reply says how to apply the
    patch locally -> the stored report (what the summary showed) was computed on this head?
    else refused, asking for a recheck -> each page read at that head, the patch
    (bot.render.patch, the one `--format patch` writes) applied to it -> one commit through the
    git data API -> the reply; GitHub's pull_request.synchronize for the App's own push starts
    the next check.

The git data API, not the contents API: the contents API makes one commit per file, and each
commit a check of its own; the data API writes every page in one tree, one commit whose parent
is the analysed head, and moves the branch with `force: false`, so a push that lands between
the head check here and the ref update is refused by GitHub (422, not a fast-forward) rather
than overwritten. Needs `contents: write` (app.yml).

Only the base branch's config decides what is written: the doc pages its rules check and the
files of their docs sites, never a file under `.github/` (`may_write`). A suggestion elsewhere
(a `$ref` the pull request pointed at a workflow) is left out, and the reply names it.

The commit is recorded (Store.applied, by job) before the branch is moved to it: a job retried
after a crash between the ref update and the reply finds the branch at its own commit and
answers as the first attempt would have, never "the branch moved".
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from bot.app.github import shapes
from bot.app.github.client import GitHubError
from bot.app.github.context import Context, Pull
from bot.app.jobs.repoconfig import rules_of
from bot.app.queue.store import Applied, PullRef
from bot.core.globs import compile_pattern
from bot.core.model import Report
from bot.core.rules import Rule, SiteTarget
from bot.core.site.model import PAGE_SUFFIXES
from bot.core.site.pages import CANDIDATES
from bot.render.comments import (
    applied,
    apply_fork,
    apply_message,
    apply_moved,
    not_doc_files,
    nothing_to_apply,
)
from bot.render.patch import to_patch


class PatchError(ValueError):
    """A patch that does not fit the text it is applied to."""


def apply_command(ctx: Context, number: int) -> str:
    """Commit the stored report's suggestions to pull request `number`'s branch; the answer."""
    data = ctx.repo.pull(number)
    pull = Pull.from_api(data)
    if data.get("state", "open") != "open":
        return nothing_to_apply(pull.head_sha, "this pull request is closed")
    if is_fork(data, ctx.repo.full_name):
        return apply_fork(pull.base_sha, pull.head_sha)
    own = ctx.store.applied(ctx.job_id)
    if own is not None and own.commit == pull.head_sha:
        return own.answer  # this job's commit landed; the reply was not sent (a crash, a lost answer)
    stored = ctx.store.last_report(PullRef(ctx.repo.full_name, number))
    if stored is None or stored.head_sha != pull.head_sha:
        return apply_moved(stored.head_sha if stored else None, pull.head_sha)
    suggested = [f for f in stored.report.findings if f.suggestion]
    if not suggested:
        return nothing_to_apply(pull.head_sha)
    # What the check suggests can follow the pull request's own files (a `$ref` of its docs.json):
    # only the base branch's doc pages and site files are written.
    rules = base_rules(ctx, pull)
    fixes = Report(tuple(f for f in suggested if f.suggestion and may_write(rules, f.suggestion.path)))
    left_out = sorted({f.suggestion.path for f in suggested if f.suggestion} - _paths(fixes))
    if not fixes.findings:
        return nothing_to_apply(pull.head_sha, not_doc_files(left_out))
    pages = sorted(_paths(fixes))
    read = read_pages(ctx, pull.head_sha, pages)
    texts = {p: t for p, t in read.items() if t is not None}
    missing = [p for p in pages if p not in texts]
    if missing:
        return nothing_to_apply(pull.head_sha, f"{', '.join(missing)} cannot be read as text at that commit")
    new = apply_patch(texts, {p: to_patch(_on(fixes, p), texts.get) for p in pages})
    changed = {p: t for p, t in new.items() if t != texts[p]}
    if not changed:
        return nothing_to_apply(pull.head_sha, "the pages already read as the suggestions say")
    sha = ctx.repo.create_commit(pull.head_sha, apply_message(fixes), changed)
    answer = applied(sha, sorted(changed), fixes, left_out)
    # Recorded before the branch moves: a retry after a crash between the two recognises its commit.
    ctx.store.save_applied(ctx.job_id, Applied(pull.head_sha, sha, answer))
    try:
        ctx.repo.move_branch(str(data["head"]["ref"]), sha)
    except GitHubError as exc:
        if exc.status != 422:
            raise
        # The branch moved between the look-up above and the ref update: not a fast-forward.
        return apply_moved(pull.head_sha, None)
    return answer


def base_rules(ctx: Context, pull: Pull) -> tuple[Rule, ...]:
    """The rules of the config last seen on the pull request's base branch (none: nothing)."""
    seen = ctx.store.config(ctx.repo.full_name, pull.base_ref or pull.base_sha)
    return rules_of(ctx, seen.oid if seen is not None else None).rules or ()


def may_write(rules: Sequence[Rule], path: str) -> bool:
    """Is `path` a doc page one of `rules` checks, or a file of a rule's docs site? Never a
    file under `.github/` (workflows run with the repository's secrets), nor a path that
    leaves the repository."""
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts) or parts[0].lower() == ".github":
        return False
    for rule in rules:
        for doc in rule.docs:
            if compile_pattern(doc.path).matches(path) and not any(
                compile_pattern(x).matches(path) for x in doc.exclude
            ):
                return True
        if rule.site is not None and _site_file(rule.site, path):
            return True
    return False


def _site_file(site: SiteTarget, path: str) -> bool:
    """The site's config, a page under its root, or a JSON file in its folder (a Mintlify
    `$ref`); a site at the repository's root owns no JSON file but its config."""
    if path == site.config or (site.config is None and path in CANDIDATES):
        return True
    if site.root is not None:
        roots = [site.root.strip("/")]
    else:
        roots = [posixpath.dirname(site.config)] if site.config else ["", "docs"]
    for root in roots:
        inside = not root or path.startswith(root + "/")
        if inside and (path.endswith(PAGE_SUFFIXES) or (root and path.endswith(".json"))):
            return True
    return False


def _paths(report: Report) -> set[str]:
    return {f.suggestion.path for f in report.findings if f.suggestion}


def is_fork(pull: shapes.Pull, full_name: str) -> bool:
    """Does the pull request's branch live outside this repository (a fork, or one deleted)?"""
    head = pull.get("head")
    repo = head.get("repo") if head else None
    return str(repo.get("full_name") or "" if repo else "").lower() != full_name.lower()


def read_pages(ctx: Context, sha: str, paths: list[str]) -> dict[str, str | None]:
    """The pages' text at commit `sha` (None for one missing, binary or not UTF-8)."""
    out: dict[str, str | None] = {}
    for path, blob in zip(paths, ctx.repo.blobs([f"{sha}:{p}" for p in paths]), strict=True):
        if blob is None or blob.get("isBinary"):
            out[path] = None
        elif blob.get("isTruncated"):
            try:
                out[path] = ctx.repo.blob_bytes(str(blob["oid"])).decode("utf-8")
            except UnicodeDecodeError:
                out[path] = None
        else:
            out[path] = blob.get("text")
    return out


def _on(report: Report, path: str) -> Report:
    return Report(tuple(f for f in report.findings if f.suggestion and f.suggestion.path == path))


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file"


def apply_patch(texts: dict[str, str], patches: dict[str, str]) -> dict[str, str]:
    """Each page's text with its patch (one page's section of bot.render.patch) applied, exactly
    as `git apply` would: every context and removed line must match, or PatchError."""
    return {path: _apply_one(texts[path], patch) for path, patch in patches.items()}


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _apply_one(text: str, patch: str) -> str:
    old = _lines(text)
    hunks: list[tuple[int, int, list[tuple[str, str]]]] = []
    for line in _lines(patch):
        m = _HUNK.match(line)
        if m:
            start, length = int(m.group(1)), int(m.group(2) or 1)
            hunks.append((start if length else start + 1, length, []))
        elif hunks and line.rstrip("\n") == _NO_NEWLINE:
            mark, last = hunks[-1][2][-1]
            hunks[-1][2][-1] = (mark, last.removesuffix("\n"))
        elif hunks and line[:1] in (" ", "-", "+"):
            hunks[-1][2].append((line[0], line[1:]))
        # `diff --git`, `---`, `+++` and docs-sync's `#` notes carry nothing to apply here
    out: list[str] = []
    pos = 0
    for start, _, body in hunks:
        at = start - 1
        if at < pos:
            raise PatchError(f"hunk at line {start} overlaps the one before")
        out += old[pos:at]
        pos = at
        for mark, line in body:
            if mark == "+":
                out.append(line)
                continue
            if pos >= len(old) or old[pos] != line:
                raise PatchError(f"line {pos + 1} is not what the patch expects")
            if mark == " ":
                out.append(line)
            pos += 1
    return "".join(out + old[pos:])
