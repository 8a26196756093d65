"""A GitHub stand-in for the App's tests: a real HTTP server that enforces GitHub's documented rules.

`GitHubStandIn` serves the REST (and a sliver of GraphQL) endpoints docs-sync uses, on
127.0.0.1 and a free port, from a uvicorn thread. Repository data comes from a real git
repository fixture read through `git` (commits, trees, blobs, diffs), so patches, renames and
line numbers are the ones git computes. What a test sends is checked the way github.com checks
it, so a client that passes here does not trip over a limit on the real service.

Usage::

    repo_dir, shas = make_repo(tmp_path, [{"a.py": "x = 1\\n"}, {"a.py": "x = 2\\n", "b.md": "B\\n"}])
    with GitHubStandIn(repo_dir) as gh_standin:
        pr = gh_standin.open_pull(7, base=shas[0], head=shas[1])
        gh = GitHub(AppAuthStrategy(gh_standin.app_id, gh_standin.private_key_pem), base_url=gh_standin.url)
        gh = gh.with_auth(gh.auth.as_installation(gh_standin.installation_id))
        ...
        assert gh_standin.check_runs[0]["conclusion"] == "success"

Git fixtures:
    make_repo(root, commits, *, name="repo", branch="main") -> (repo_dir, [shas])
        A fresh repository `root/name` whose branch gets one commit per dict; a dict maps a path
        to its new content (str or bytes) or to None to delete it. The work tree is checked out
        at the branch tip. A deleted path plus an added path with similar content is a rename.
    add_commit(repo_dir, files, *, parent="main", branch=None, message=None) -> sha
        One more commit on top of `parent`; `branch` (created or moved) points at it, and the
        work tree follows when `branch` is the checked-out one.
    run_git(repo_dir, *args) -> bytes
        git's stdout, run without the machine's git configuration.

Keys and signatures:
    make_app_key() -> (private_pem, public_pem)   a fresh 2048-bit RSA key
    default_app_key() -> (private_pem, public_pem) one key per process, the stand-in's default
    sign(secret, body) -> "sha256=<hex>"           the X-Hub-Signature-256 of a webhook body

GitHubStandIn(repo_dir, owner="octo-org", name="docs-repo", app_id=1, private_key_pem=None,
              installation_id=42, app_slug="docs-sync", default_branch=None,
              content_limit_per_minute=80, content_limit_per_hour=500, app_permissions=None,
              clock_offset_s=0.0)
    Context manager; `.url` is "http://127.0.0.1:PORT" once entered. `private_key_pem` defaults
    to `default_app_key()`; `.private_key_pem`, `.app_id`, `.installation_id`, `.bot_login`
    ("docs-sync[bot]") are attributes. `app_permissions` (default `APP_PERMISSIONS`, app.yml's)
    are the installation's: a token call they do not cover gets 403 "Resource not accessible by
    integration", as on github.com. `clock_offset_s` (an attribute too) sets GitHub's clock
    apart from this machine's: every answer's `Date` header, the App JWT's `iat` and `exp`
    checks and installation token expiry follow it, as a machine whose clock is off sees.
    open_pull(number, base, head, *, title=..., body="", user="octocat", head_repo_fork=False,
              draft=False) -> dict   registers a PR between two refs or SHAs of the fixture
    update_pull(number, *, head=None, base=None, state=None, title=None) -> dict  a push or an edit
    pull(number) -> dict                                 the PR's current JSON
    add_issue_comment(number, body, *, user="octocat") -> dict   a comment someone else wrote
    publish(repo_dir, owner, name)   serves another repository as a public one, read-only: its
              GET endpoints and GraphQL answer any installation token (a rule's sister project)
    reset()   forgets PRs, permissions, injections, revocations, the clock offset, the tree limit,
              public repositories and recorded state, so one running stand-in can serve a whole test session
    tree_entry_limit   entries a recursive git tree lists before it says `truncated` (GitHub:
              100,000), settable so a test can reach the limit with a small repository
    revoke_tokens()   every installation token issued so far answers 401 "Bad credentials" (a
              revoked token; a suspended and restored installation); tokens minted later work
    now() -> float    the epoch time on GitHub's clock
    set_permission(user, permission)   admin|maintain|write|triage|read|none
    fail_next(method, path_regex, status, times=1, headers=None, body=None, after=False, skip=0)
        The next `times` requests whose method matches ("*" for any) and whose path matches
        `re.search(path_regex)` get `status`; 403/429 with `retry-after` carry the secondary
        rate limit message. Injection comes before authentication and every other rule. With
        `after=True` the request is carried out first and only its answer is replaced, as when
        a proxy times out on a write GitHub did make. `skip` lets that many matching requests
        through before the failures start.
    omit_patches(path_regex)
        File lists (pull request files, compare) leave `patch` out for files whose name matches
        `re.search(path_regex)`, as github.com does for a diff too large to show (its size limit
        is undocumented, so a test names the files).
    calls(method, path_regex) -> list of the recorded (method, path, status) that match
    Recorded state, lists of dicts updated in place as calls arrive:
        check_runs: list[dict]  id, name, head_sha, status, conclusion, details_url, external_id,
                                started_at, completed_at, output{title, summary, text,
                                annotations (all accumulated)}, actions
        reviews: list[dict]     the review JSON plus "comments" (its review comments)
        review_comments: list[dict]  every review comment, replies included (current state)
        issue_comments: list[dict]   current state, edits applied, deletions removed
        reactions: list[dict]   id, content, user, subject ("issue_comment" or "review_comment"),
                                comment_id
        requests: list[tuple[str, str, int]]  (method, path, status) of every call
        deliveries: list[tuple[str, dict]]  (event, payload) of the webhooks GitHub would send
                                the App for pushes through the API; a test routes them
        server_errors: list[str]  tracebacks of faults in the stand-in itself (answered with 500)

GitHubHost(app_id=1, private_key_pem=None, *, app_slug="docs-sync", content_limit_per_minute=80,
           content_limit_per_hour=500)
    Many repositories and installations of one App on one port (a load test's organisations):
    add_repository(repo_dir, owner, name, installation_id, **GitHubStandIn options) -> the
    repository's GitHubStandIn (its pull requests, check runs, reviews and comments, recorded
    as above), before `with host:`; repository(owner, name) finds it again. Requests go to the
    repository their path or GraphQL query names; object and user ids are unique across
    repositories; an installation token reaches only its installation's repositories (404
    elsewhere); the content-creation limit counts an installation's writes to all its
    repositories together.

Endpoints (JSON shaped as github.com shapes them, so githubkit's models parse them):
    POST /app/installations/{id}/access_tokens (App JWT), GET /app, GET /app/installations
    (the one installation), GET /app/installations/{id}, GET /repos/{o}/{r}/installation, the
    webhook's delivery log and redelivery (bot.testing.hooks) (App JWT); GET
    /installation/repositories (the installation's token: the one repository); every other
    endpoint wants `token <t>` or `Bearer <t>` with an installation token, else 401. GET
    /rate_limit needs nothing.
    GET /repos/{o}/{r}; pulls: GET pulls (state, head "owner:ref", base), GET pulls/{n} (also
    the vnd.github.diff media type, 406 past 300 files or 20,000 lines), GET pulls/{n}/files
    (100 a page, at most 3,000 files), GET commits/{sha}/pulls (not for fork PRs: on github.com
    a fork's commits are not in the base repository). GET compare/{BASE}...{HEAD} (refs or
    SHAs): status, ahead_by, behind_by, base_commit, merge_base_commit (`git merge-base`),
    commits (the last 250; `per_page`/`page` paginate them), and files (at most 300, on the
    first page only).
    Contents and git data: GET contents/{path}?ref= (base64 JSON, directories, raw media type,
    content "" with encoding "none" past 1 MB), GET git/blobs/{sha}, GET git/trees/{sha}
    ?recursive=1, GET commits/{ref} (with its files and their patches), GET commits?sha=&path=
    (newest first, paginated); POST git/trees (base_tree, entries by sha or content, sha
    null deletes), POST git/commits (authored by the App when no author is given), PATCH
    git/refs/heads/{branch}; POST /graphql answers only
    `repository(owner:, name:) { alias: object(expression: "REV:path") { ... on Blob { text
    byteSize isBinary isTruncated oid abbreviatedOid } } ... }` queries (`isBinary`: a NUL in
    the first 8,000 bytes, git's test; `text` null for a binary file and for one not in UTF-8).
    Checks: POST check-runs, PATCH/GET check-runs/{id}, GET check-runs/{id}/annotations,
    GET commits/{ref}/check-runs.
    Reviews: POST/GET pulls/{n}/reviews, GET/POST pulls/{n}/comments, GET/PATCH
    pulls/comments/{id}, POST pulls/{n}/comments/{id}/replies, POST pulls/comments/{id}/reactions.
    Issue comments: GET/POST issues/{n}/comments, GET/PATCH/DELETE issues/comments/{id},
    POST issues/comments/{id}/reactions. GET collaborators/{user}/permission.

Rules enforced (each answers as github.com does, 422 unless said otherwise):
    X-GitHub-Api-Version must be 2022-11-28 (the default) or 2026-03-10 (400 otherwise); under
    2026-03-10 pulls lose `merge_commit_sha` and `assignee` and /rate_limit loses `rate`.
    Check runs: name and head_sha (a commit of the repo) on create; status queued|in_progress|
    completed; conclusion one of action_required, cancelled, failure, neutral, success, skipped,
    timed_out ("stale" is GitHub's alone) and required with status completed or completed_at;
    a conclusion completes the run; output needs title (on create) and summary; summary and
    text at most 65,535 characters and 65,535 bytes of UTF-8 (github.com checks both: "summary
    exceeds a maximum bytesize of 65535"); at most 50 annotations a request, each with path,
    start_line, end_line >= start_line, annotation_level notice|warning|failure and message,
    columns only on one-line annotations; annotations accumulate over updates; at most 3
    actions with label <= 20, description <= 40, identifier <= 20 characters.
    Reviews: event COMMENT|APPROVE|REQUEST_CHANGES (absent: a PENDING review, one per user);
    REQUEST_CHANGES needs a body, COMMENT a body or comments; commit_id must be a commit of
    the PR. Every comment needs path and body and is checked against the PR's diff at that
    commit, and one bad comment fails the whole review: a path outside the diff ("Pull request
    review thread path is invalid"), a file without hunks ("... diff hunk can't be blank"), a
    line outside every hunk on its side ("Pull request review thread line must be part of the
    diff"; RIGHT counts added and context lines by head numbers, LEFT removed and context
    lines by base numbers), a start_line without start_side, at or after the line
    ("pull_request_review_thread.start_line must precede the end line.") or in another hunk.
    `position` (lines below the file's first @@) is accepted too. Replies to replies are refused.
    Bodies of comments and reviews at most 65,536 characters; reaction content one of +1, -1,
    laugh, confused, heart, hooray, rocket, eyes (201 new, 200 when the user already reacted so).
    Git data writes need contents: write (403 otherwise). A tree entry takes sha or content, not
    both, with a mode its type allows; a commit's tree and parents must exist ("Tree SHA does not
    exist", "Parent SHA does not exist or is not a commit object"); a ref update must name a
    branch ("Reference does not exist") and a commit ("Object does not exist"), and without
    `force: true` only moves forward ("Update is not a fast forward"). A branch moved that way
    moves every open same-repository pull request whose head it is, and queues in `deliveries`
    the pull_request.synchronize webhook GitHub sends for it (the App's own pushes included).
    A fork's repository is not the installation's: every call on it is 404.
    Collaborator permission: admin|write|read|none (maintain reads as write, triage as read,
    role_name keeps the role); a user never given a permission is 404.
    Content creation: POST/PATCH/PUT/DELETE under /repos beyond `content_limit_per_minute`
    in 60 s (or `content_limit_per_hour` in an hour) get 403 with `retry-after` and the
    secondary rate limit message.
    GET answers carry a weak ETag, as github.com's do, and `If-None-Match` gets 304. githubkit's
    HTTP cache (hishel) revalidates every GET, and after an answer changed it can send the same GET
    twice; count writes rather than reads, or build the client with `http_cache=False`.

githubkit caches the App JWT and installation tokens per app_id for the whole process (the
App's `bot.app.github.client.GitHubApp` keeps its own), so installation tokens issued by any stand-in
of this process stay valid in every stand-in with the same app_id and installation_id, as
tokens outlive a test on github.com. A test that needs its own key, or to watch the JWT
exchange happen with a plain githubkit client, uses an app_id no other test uses.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import socket
import subprocess
import tempfile
import threading
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import formatdate
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import jwt
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.testing.hooks import HookLog

# ---------------------------------------------------------------------------------------------
# git

# Reads and writes must not depend on the machine's git configuration.
_GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "LC_ALL": "C",
}
_EPOCH = 1_700_000_000  # fixture commits are dated from here, one minute apart


class GitError(RuntimeError):
    pass


def run_git(repo_dir: Path, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
    """`git -C repo_dir args...` with no user or system configuration; its stdout."""
    proc = subprocess.run(
        ["git", "-C", str(repo_dir), "-c", "core.quotePath=false", "--literal-pathspecs", *args],
        input=input,
        capture_output=True,
        env=_GIT_ENV,
    )
    if check and proc.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def _git_with(repo_dir: Path, env: dict[str, str], *args: str, input: bytes | None = None) -> bytes:
    """`run_git` with more environment (a scratch index, a commit's author)."""
    proc = subprocess.run(
        ["git", "-C", str(repo_dir), "--literal-pathspecs", *args],
        input=input,
        capture_output=True,
        env={**_GIT_ENV, **env},
    )
    if proc.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


@contextlib.contextmanager
def _scratch_index(repo: Any) -> Any:
    """A git runner over an index of its own, so building a tree leaves the work tree's alone."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}

        def git(*args: str, input: bytes | None = None) -> bytes:
            try:
                return _git_with(repo.path, env, *args, input=input)
            except GitError as exc:
                raise _refused(str(exc)) from None

        yield git


def _fast_import_commit(
    ref: str, mark: int, parent: str | None, files: dict[str, str | bytes | None], message: str, when: int
) -> bytes:
    def data(payload: bytes) -> bytes:
        return b"data %d\n%s\n" % (len(payload), payload)

    ident = b"Fixture Author <fixture@example.com> %d +0000" % when
    out = [b"commit %s\nmark :%d\nauthor %s\ncommitter %s\n" % (ref.encode(), mark, ident, ident)]
    out.append(data(message.encode()))
    if parent:
        out.append(b"from %s\n" % parent.encode())
    for path, content in files.items():
        quoted = (
            json.dumps(path, ensure_ascii=False).encode()
            if path.startswith('"') or "\n" in path
            else path.encode()
        )
        if content is None:
            out.append(b"D %s\n" % quoted)
        else:
            raw = content.encode() if isinstance(content, str) else content
            out.append(b"M 100644 inline %s\n" % quoted)
            out.append(data(raw))
    return b"".join(out)


def _import(repo_dir: Path, stream: bytes) -> dict[int, str]:
    marks = repo_dir / ".git" / "fixture-marks"
    run_git(repo_dir, "fast-import", "--quiet", f"--export-marks={marks}", input=stream)
    result = {}
    for line in marks.read_text().splitlines():
        mark, sha = line.split()
        result[int(mark[1:])] = sha
    marks.unlink()
    return result


def make_repo(
    root: Path, commits: list[dict[str, str | bytes | None]], *, name: str = "repo", branch: str = "main"
) -> tuple[Path, list[str]]:
    """Create `root/name` with one commit per dict on `branch`; return the directory and the SHAs."""
    repo_dir = Path(root) / name
    repo_dir.mkdir(parents=True)
    run_git(repo_dir, "init", "-q", "-b", branch)
    stream = b"".join(
        _fast_import_commit(f"refs/heads/{branch}", i + 1, None, files, f"Commit {i + 1}", _EPOCH + 60 * i)
        for i, files in enumerate(commits)
    )
    marks = _import(repo_dir, stream)
    if commits:
        run_git(repo_dir, "reset", "-q", "--hard", branch)
    return repo_dir, [marks[i + 1] for i in range(len(commits))]


def add_commit(
    repo_dir: Path,
    files: dict[str, str | bytes | None],
    *,
    parent: str = "main",
    branch: str | None = None,
    message: str | None = None,
) -> str:
    """Commit `files` on top of `parent`; point `branch` at it when given.

    The work tree follows when `branch` is the checked-out branch, and is left alone otherwise.
    """
    parent_sha = run_git(repo_dir, "rev-parse", "--verify", f"{parent}^{{commit}}").decode().strip()
    count = int(run_git(repo_dir, "rev-list", "--all", "--count").decode())
    ref = f"refs/heads/{branch}" if branch else "refs/fixture/scratch"
    stream = _fast_import_commit(
        ref, 1, parent_sha, files, message or f"Commit {count + 1}", _EPOCH + 60 * count
    )
    sha = _import(Path(repo_dir), stream)[1]
    if not branch:
        run_git(repo_dir, "update-ref", "-d", ref)
    elif run_git(repo_dir, "symbolic-ref", "--short", "HEAD").decode().strip() == branch:
        run_git(repo_dir, "reset", "-q", "--hard", branch)
    return sha


# ---------------------------------------------------------------------------------------------
# keys and signatures


def make_app_key() -> tuple[str, str]:
    """A fresh RSA key for a GitHub App: (private PEM, public PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@functools.cache
def default_app_key() -> tuple[str, str]:
    """One key per process, so githubkit's process-wide JWT cache stays valid across stand-ins."""
    return make_app_key()


@functools.cache
def _public_key(private_pem: str) -> Any:
    # loading checks the key, which takes a while; stand-ins of one test session share keys
    return serialization.load_pem_private_key(private_pem.encode(), None).public_key()


def sign(secret: str | bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` header GitHub sends with a webhook delivery of `body`."""
    key = secret.encode() if isinstance(secret, str) else secret
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()


# Installation tokens issued in this process: token -> (app_id, installation_id, expiry epoch).
_ISSUED_TOKENS: dict[str, tuple[int, int, float]] = {}
_ISSUED_LOCK = threading.Lock()

# ---------------------------------------------------------------------------------------------
# diffs


@dataclass(frozen=True)
class _DiffLine:
    kind: str  # " ", "+", "-"
    old: int | None
    new: int | None
    position: int  # lines below the file's first @@ header, that header being 0


@dataclass(frozen=True)
class _Hunk:
    index: int
    header_position: int
    lines: tuple[_DiffLine, ...]
    text_lines: tuple[str, ...]  # the hunk as patch text, header first


@dataclass(frozen=True)
class _FileDiff:
    filename: str
    previous_filename: str | None
    status: str
    old_blob: str | None
    new_blob: str | None
    additions: int
    deletions: int
    patch: str | None
    hunks: tuple[_Hunk, ...]

    def find(self, side: str, line: int) -> tuple[_Hunk, _DiffLine] | None:
        for hunk in self.hunks:
            for dl in hunk.lines:
                if side == "RIGHT" and dl.kind != "-" and dl.new == line:
                    return hunk, dl
                if side == "LEFT" and dl.kind != "+" and dl.old == line:
                    return hunk, dl
        return None

    def at_position(self, position: int) -> tuple[_Hunk, _DiffLine] | None:
        for hunk in self.hunks:
            for dl in hunk.lines:
                if dl.position == position:
                    return hunk, dl
        return None


_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_STATUS = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "C": "copied", "T": "changed"}
_ZERO_SHA = "0" * 40


def _parse_hunks(patch_lines: list[str]) -> tuple[_Hunk, ...]:
    hunks: list[_Hunk] = []
    lines: list[_DiffLine] = []
    texts: list[str] = []
    header_pos = old = new = 0
    for position, text in enumerate(patch_lines):
        m = _HUNK_HEADER.match(text)
        if m:
            if texts:
                hunks.append(_Hunk(len(hunks), header_pos, tuple(lines), tuple(texts)))
            header_pos, old, new = position, int(m.group(1)), int(m.group(3))
            lines, texts = [], [text]
            continue
        texts.append(text)
        kind = text[:1]
        if kind == "+":
            lines.append(_DiffLine("+", None, new, position))
            new += 1
        elif kind == "-":
            lines.append(_DiffLine("-", old, None, position))
            old += 1
        elif kind == " ":
            lines.append(_DiffLine(" ", old, new, position))
            old += 1
            new += 1
        # "\ No newline at end of file" belongs to the patch text but is no line of the file
    if texts:
        hunks.append(_Hunk(len(hunks), header_pos, tuple(lines), tuple(texts)))
    return tuple(hunks)


class _GitRepo:
    """Reads the fixture repository through git, caching what does not change."""

    _REV = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/@{}^~-]*$")

    def __init__(self, path: Path):
        self.path = Path(path)
        self._diffs: dict[tuple[str, str], tuple[list[_FileDiff], str]] = {}
        self._facts: dict[tuple, Any] = {}  # answers about immutable objects (full SHAs)

    def _fact(self, key: tuple, compute: Any) -> Any:
        if key not in self._facts:
            self._facts[key] = compute()
        return self._facts[key]

    def git(self, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
        return run_git(self.path, *args, input=input, check=check)

    def resolve(self, rev: str, kind: str = "commit") -> str | None:
        if not rev or not self._REV.match(rev) or ".." in rev:
            return None

        def compute() -> str | None:
            out = self.git("rev-parse", "--verify", "-q", f"{rev}^{{{kind}}}", check=False).decode().strip()
            return out or None

        # a full SHA always names the same object; a branch name may move
        return (
            self._fact(("resolve", rev, kind), compute) if re.fullmatch(r"[0-9a-f]{40}", rev) else compute()
        )

    def is_branch(self, name: str) -> bool:
        return bool(self._REV.match(name)) and bool(
            self.git("rev-parse", "--verify", "-q", f"refs/heads/{name}", check=False).strip()
        )

    def head_branch(self) -> str:
        return self.git("symbolic-ref", "--short", "HEAD").decode().strip()

    def object_type(self, sha: str) -> str | None:
        if not re.fullmatch(r"[0-9a-f]{4,40}", sha):
            return None
        return self.git("cat-file", "-t", sha, check=False).decode().strip() or None

    def read(self, sha: str) -> bytes:
        return self.git("cat-file", "blob", sha)

    def ls_tree(self, treeish: str, paths: tuple[str, ...] = (), recursive: bool = False) -> list[dict]:
        args = ["ls-tree", "-l", "-z"] + (["-r", "-t"] if recursive else []) + [treeish]
        if paths:
            args += ["--", *paths]
        entries = []
        for record in self.git(*args).decode(errors="surrogateescape").split("\0"):
            if not record:
                continue
            meta, path = record.split("\t", 1)
            mode, otype, sha, size = meta.split()
            entries.append(
                {
                    "mode": mode,
                    "type": otype,
                    "sha": sha,
                    "size": None if size == "-" else int(size),
                    "path": path,
                }
            )
        return entries

    def entry(self, commit: str, path: str) -> dict | None:
        path = path.strip("/")
        if not path:
            tree = self.resolve(commit, "tree")
            return {"mode": "040000", "type": "tree", "sha": tree, "size": None, "path": ""}
        found = self.ls_tree(commit, (path,))
        return found[0] if found and found[0]["path"] == path else None

    def commit_info(self, sha: str) -> dict:
        fmt = "%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B"
        parts = self.git("show", "-s", f"--format={fmt}", sha).decode().split("\0")
        return {
            "sha": parts[0],
            "tree": parts[1],
            "parents": parts[2].split(),
            "author": {"name": parts[3], "email": parts[4], "date": _iso(parts[5])},
            "committer": {"name": parts[6], "email": parts[7], "date": _iso(parts[8])},
            "message": parts[9].rstrip("\n"),
        }

    def merge_base(self, a: str, b: str) -> str:
        return self.git("merge-base", a, b).decode().strip()

    def is_ancestor(self, a: str, b: str) -> bool:
        def compute() -> bool:
            args = ["git", "-C", str(self.path), "merge-base", "--is-ancestor", a, b]
            return subprocess.run(args, env=_GIT_ENV, capture_output=True).returncode == 0

        return self._fact(("is-ancestor", a, b), compute)

    def count_commits(self, base: str, head: str) -> int:
        return int(self.git("rev-list", "--count", f"{base}..{head}").decode())

    def diff(self, base: str, head: str) -> tuple[list[_FileDiff], str]:
        """The files of `base...head` as GitHub lists them, and the whole diff text."""
        key = (base, head)
        if key not in self._diffs:
            self._diffs[key] = self._compute_diff(self.merge_base(base, head), head)
        return self._diffs[key]

    def _compute_diff(self, base: str, head: str) -> tuple[list[_FileDiff], str]:
        opts = ["-M", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"]
        raw = self.git("diff", *opts, "--raw", "-z", "--no-abbrev", base, head).decode(errors="replace")
        text = self.git("diff", *opts, "-p", base, head).decode(errors="replace")
        tokens = raw.split("\0")
        entries = []
        i = 0
        while i < len(tokens) and tokens[i]:
            meta = tokens[i].lstrip(":").split()
            letter = meta[4][0]
            if letter in "RC":
                entries.append((meta, tokens[i + 1], tokens[i + 2]))
                i += 3
            else:
                entries.append((meta, None, tokens[i + 1]))
                i += 2
        chunks: list[list[str]] = []
        for line in text.split("\n"):
            if line.startswith("diff --git "):
                chunks.append([])
            if chunks:
                chunks[-1].append(line)
        if len(chunks) != len(entries):
            raise GitError(f"diff of {base}..{head}: {len(entries)} files but {len(chunks)} patches")
        files = []
        for (meta, old_path, new_path), chunk in zip(entries, chunks, strict=True):
            old_blob = None if meta[2] == _ZERO_SHA else meta[2]
            new_blob = None if meta[3] == _ZERO_SHA else meta[3]
            first = next((n for n, line in enumerate(chunk) if line.startswith("@@")), None)
            binary = any(line.startswith(("Binary files ", "GIT binary patch")) for line in chunk)
            patch_lines = [] if first is None or binary else chunk[first:]
            while patch_lines and patch_lines[-1] == "":
                patch_lines.pop()
            hunks = _parse_hunks(patch_lines)
            files.append(
                _FileDiff(
                    filename=new_path,
                    previous_filename=old_path,
                    status=_STATUS.get(meta[4][0], "modified"),
                    old_blob=old_blob,
                    new_blob=new_blob,
                    additions=sum(1 for h in hunks for dl in h.lines if dl.kind == "+"),
                    deletions=sum(1 for h in hunks for dl in h.lines if dl.kind == "-"),
                    patch="\n".join(patch_lines) if patch_lines else None,
                    hunks=hunks,
                )
            )
        return files, text

    def cat_batch(self, specs: list[str]) -> list[tuple[str, str, bytes] | None]:
        """(sha, type, content) for each `rev:path` spec, None when it names nothing."""
        if not specs:
            return []
        if any("\n" in s for s in specs):
            raise ValueError("object names cannot hold newlines")
        out = self.git("cat-file", "--batch", input=("\n".join(specs) + "\n").encode())
        results: list[tuple[str, str, bytes] | None] = []
        pos = 0
        for _ in specs:
            end = out.index(b"\n", pos)
            header = out[pos:end].decode(errors="replace").split()
            pos = end + 1
            if len(header) == 3 and header[1] in ("blob", "tree", "commit", "tag"):
                size = int(header[2])
                results.append((header[0], header[1], out[pos : pos + size]))
                pos += size + 1
            else:
                results.append(None)
        return results


# ---------------------------------------------------------------------------------------------
# helpers


def _iso(value: str | datetime | None = None) -> str:
    if value is None:
        value = datetime.now(timezone.utc)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _b64(data: bytes) -> str:
    # GitHub wraps base64 content at 60 characters a line, newline-terminated
    encoded = base64.b64encode(data).decode()
    return "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))


def _is_binary(data: bytes) -> bool:
    return b"\0" in data[:8000]


def _utf8(data: bytes) -> str | None:
    # GraphQL's Blob.text is UTF-8 text: a file in another encoding (latin-1, say) has none,
    # and is not binary either.
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class _HTTPError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        errors: list | None = None,
        headers: dict[str, str] | None = None,
        docs: str = "https://docs.github.com/rest",
    ):
        super().__init__(message)
        self.status = status
        self.body: dict[str, Any] = {"message": message, "documentation_url": docs, "status": str(status)}
        if errors is not None:
            self.body["errors"] = errors
        self.headers = headers or {}


def _invalid(message: str) -> _HTTPError:
    return _HTTPError(422, f"Invalid request.\n\n{message}")


def _unprocessable(*errors: str) -> _HTTPError:
    return _HTTPError(422, "Unprocessable Entity", list(errors))


def _refused(message: str) -> _HTTPError:
    """422 with GitHub's message alone, as the git data API gives it."""
    return _HTTPError(422, message)


def _too_long(supplied: int, allowed: int = 65535) -> _HTTPError:
    return _invalid(f"Only {allowed} characters are allowed; {supplied} were supplied.")


def _too_big(field: str, allowed: int = 65535) -> _HTTPError:
    return _HTTPError(
        422,
        "Validation Failed",
        [
            {
                "resource": "CheckRun",
                "code": "custom",
                "field": field,
                "message": f"{field} exceeds a maximum bytesize of {allowed}",
            }
        ],
    )


_SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach "
    "out to GitHub Support for help, please include the request ID {rid}."
)
_API_VERSIONS = ("2022-11-28", "2026-03-10")
_TREE_LIMIT = 100_000  # entries of a recursive tree listing; GitHub sets "truncated" past them
_CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out")
_LEVELS = ("notice", "warning", "failure")
_REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
_PERMISSIONS = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}
# The installation's permissions unless a test says otherwise: app.yml's (a test keeps them equal).
APP_PERMISSIONS = {
    "checks": "write",
    "contents": "write",
    "issues": "read",
    "metadata": "read",
    "pull_requests": "write",
}
# What each endpoint needs of an installation token, as GitHub's "Permissions required for GitHub
# Apps" lists it; any one of the alternatives is enough, and write includes read.
_NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "_h_graphql": (("contents", "read"),),  # the only query served reads blobs
    "_h_repository": (("metadata", "read"),),
    "_h_list_pulls": (("pull_requests", "read"),),
    "_h_get_pull": (("pull_requests", "read"),),
    "_h_pull_files": (("pull_requests", "read"),),
    "_h_commit_pulls": (("pull_requests", "read"), ("contents", "read")),
    "_h_compare": (("contents", "read"),),
    "_h_contents": (("contents", "read"),),
    "_h_blob": (("contents", "read"),),
    "_h_tree": (("contents", "read"),),
    "_h_commit": (("contents", "read"),),
    "_h_create_tree": (("contents", "write"),),
    "_h_create_commit": (("contents", "write"),),
    "_h_update_ref": (("contents", "write"),),
    "_h_create_check_run": (("checks", "write"),),
    "_h_update_check_run": (("checks", "write"),),
    "_h_get_check_run": (("checks", "read"),),
    "_h_check_annotations": (("checks", "read"),),
    "_h_list_check_runs": (("checks", "read"),),
    "_h_create_review": (("pull_requests", "write"),),
    "_h_list_reviews": (("pull_requests", "read"),),
    "_h_list_review_comments": (("pull_requests", "read"),),
    "_h_create_review_comment": (("pull_requests", "write"),),
    "_h_get_review_comment": (("pull_requests", "read"),),
    "_h_update_review_comment": (("pull_requests", "write"),),
    "_h_reply": (("pull_requests", "write"),),
    "_h_review_reaction": (("pull_requests", "write"),),
    "_h_list_issue_comments": (("issues", "read"), ("pull_requests", "read")),
    "_h_create_issue_comment": (("issues", "write"), ("pull_requests", "write")),
    "_h_get_issue_comment": (("issues", "read"), ("pull_requests", "read")),
    "_h_update_issue_comment": (("issues", "write"), ("pull_requests", "write")),
    "_h_delete_issue_comment": (("issues", "write"), ("pull_requests", "write")),
    "_h_issue_reaction": (("issues", "write"), ("pull_requests", "write")),
    "_h_permission": (("metadata", "read"),),
}
_APP_EVENTS = ["check_run", "check_suite", "issue_comment", "pull_request"]
_RAW_TYPES = ("application/vnd.github.raw", "application/vnd.github.v3.raw")
_DIFF_TYPES = ("application/vnd.github.diff", "application/vnd.github.v3.diff")


@dataclass
class _Pull:
    number: int
    id: int
    title: str
    body: str
    user: str
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    fork: bool
    draft: bool
    state: str = "open"
    created_at: str = field(default_factory=_iso)
    updated_at: str = field(default_factory=_iso)
    closed_at: str | None = None


@dataclass
class _Injection:
    method: str
    pattern: re.Pattern
    status: int
    times: int
    headers: dict[str, str]
    body: dict | None
    after: bool = False
    skip: int = 0  # matching requests to let through first


@dataclass
class _Req:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    headers: Any
    body: bytes
    version: str
    rid: str

    def json(self) -> dict:
        if not self.body:
            return {}
        try:
            data = json.loads(self.body)
        except ValueError:
            raise _HTTPError(400, "Problems parsing JSON") from None
        if not isinstance(data, dict):
            raise _HTTPError(400, "Body should be a JSON object")
        return data

    def accepts(self, media_types: tuple[str, ...]) -> bool:
        accept = self.headers.get("accept", "")
        return any(m in accept for m in media_types)


class _Raw:
    """A non-JSON answer from a handler."""

    def __init__(self, status: int, body: bytes, media_type: str, headers: dict[str, str] | None = None):
        self.status, self.body, self.media_type, self.headers = status, body, media_type, headers or {}


class _Serving:
    """An ASGI app served by uvicorn from a thread, on 127.0.0.1 and a free port."""

    def __init__(self, app: Starlette, name: str):
        self.app, self.name = app, name
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    def start(self) -> str:
        """Serve; the base URL ("http://127.0.0.1:PORT")."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        self._socket = sock
        config = uvicorn.Config(
            self.app,
            log_level="error",
            access_log=False,
            lifespan="off",
            ws="none",
            http="h11",
            timeout_graceful_shutdown=2,
            date_header=False,  # every answer carries the Date of GitHub's clock (clock_offset_s)
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=self.name, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the GitHub stand-in did not start")
            time.sleep(0.005)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None


# ---------------------------------------------------------------------------------------------
# the stand-in


class GitHubStandIn(HookLog):
    """github.com for one repository and one App installation; see the module docstring."""

    def __init__(
        self,
        repo_dir: Path,
        owner: str = "octo-org",
        name: str = "docs-repo",
        app_id: int = 1,
        private_key_pem: str | None = None,
        installation_id: int = 42,
        *,
        app_slug: str = "docs-sync",
        default_branch: str | None = None,
        content_limit_per_minute: int = 80,
        content_limit_per_hour: int = 500,
        app_permissions: dict[str, str] | None = None,
        clock_offset_s: float = 0.0,
        repository_id: int = 7000,
    ):
        self.repo = _GitRepo(repo_dir)
        self.repository_id = repository_id  # a fork of it is repository_id + 1
        self.clock_offset_s = clock_offset_s  # GitHub's clock minus this machine's
        self.tree_entry_limit = _TREE_LIMIT  # entries of a recursive tree before it is truncated
        self.app_permissions = dict(APP_PERMISSIONS if app_permissions is None else app_permissions)
        self.owner, self.name = owner, name
        self.app_id, self.installation_id, self.app_slug = app_id, installation_id, app_slug
        if private_key_pem is None:
            private_key_pem = default_app_key()[0]
        self.private_key_pem = private_key_pem
        self._public_key = _public_key(private_key_pem)
        self.default_branch = default_branch or self.repo.head_branch()
        self.content_limit_per_minute = content_limit_per_minute
        self.content_limit_per_hour = content_limit_per_hour
        self.bot_login = f"{app_slug}[bot]"
        self.html = "https://github.com"
        self.url = ""

        self.check_runs: list[dict] = []
        self.reviews: list[dict] = []
        self.review_comments: list[dict] = []
        self.issue_comments: list[dict] = []
        self.reactions: list[dict] = []
        self.requests: list[tuple[str, str, int]] = []
        self.deliveries: list[tuple[str, dict]] = []  # webhooks GitHub would send the App
        self.server_errors: list[str] = []  # tracebacks of the stand-in's own faults
        self._manifest_codes: dict[str, tuple[dict, float]] = {}  # manifest_code() -> conversions
        self._init_hooks()

        self._lock = threading.RLock()
        self._ids = iter(range(1_000_001, 2**31))
        self._user_ids: dict[str, int] = {}
        self._permissions: dict[str, str] = {}
        self._pulls: dict[int, _Pull] = {}
        self._injections: list[_Injection] = []
        self._no_patch: list[re.Pattern] = []
        self._revoked: set[str] = set()
        self._writes: deque[float] = deque()
        self._suites: dict[str, int] = {}
        self._used = 0
        self._created_at = _iso(datetime.fromtimestamp(_EPOCH, timezone.utc))
        self._routes = self._build_routes()
        self.app = Starlette(
            routes=[Route("/{path:path}", self._endpoint, methods=["GET", "POST", "PATCH", "PUT", "DELETE"])]
        )
        self._serving = _Serving(self.app, "github-standin")
        # Other public repositories any token reads (GET calls and GraphQL): full name -> stand-in.
        self.public: dict[str, GitHubStandIn] = {}

    def publish(self, repo_dir: Path, owner: str, name: str) -> None:
        """Serve another repository as a public one, read-only: github.com lets an installation's
        token read any public repository (a rule's sister project)."""
        self.public[f"{owner}/{name}".lower()] = GitHubStandIn(repo_dir, owner, name)

    # -- server ---------------------------------------------------------------------------------

    def __enter__(self) -> GitHubStandIn:
        self.url = self._serving.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._serving.stop()

    @property
    def api(self) -> str:
        return self.url

    # -- test controls --------------------------------------------------------------------------

    def open_pull(
        self,
        number: int,
        base: str,
        head: str,
        *,
        title: str = "Update the code and its docs",
        body: str = "",
        user: str = "octocat",
        head_repo_fork: bool = False,
        draft: bool = False,
    ) -> dict:
        """Register PR `number` from `head` into `base` (branch names or SHAs); return its JSON."""
        with self._lock:
            if number in self._pulls:
                raise ValueError(f"pull request #{number} already exists")
            base_sha, head_sha = self._commit_or_fail(base), self._commit_or_fail(head)
            self._pulls[number] = _Pull(
                number=number,
                id=self._next_id(),
                title=title,
                body=body,
                user=user,
                base_ref=base if self.repo.is_branch(base) else self.default_branch,
                base_sha=base_sha,
                head_ref=head if self.repo.is_branch(head) else f"topic-{number}",
                head_sha=head_sha,
                fork=head_repo_fork,
                draft=draft,
            )
            return self._pull_json(self._pulls[number], _API_VERSIONS[-1])

    def update_pull(
        self,
        number: int,
        *,
        head: str | None = None,
        base: str | None = None,
        state: str | None = None,
        title: str | None = None,
    ) -> dict:
        """Move a PR's head (a push) or base, close or reopen it, retitle it; return its JSON."""
        with self._lock:
            pr = self._pulls[number]
            if head is not None:
                pr.head_sha = self._commit_or_fail(head)
                if self.repo.is_branch(head):
                    pr.head_ref = head
            if base is not None:
                pr.base_sha = self._commit_or_fail(base)
                if self.repo.is_branch(base):
                    pr.base_ref = base
            if state is not None:
                pr.state = state
                pr.closed_at = _iso() if state == "closed" else None
            if title is not None:
                pr.title = title
            pr.updated_at = _iso()
            return self._pull_json(pr, _API_VERSIONS[-1])

    def add_issue_comment(self, number: int, body: str, *, user: str = "octocat") -> dict:
        """A comment on PR `number` written by `user` (not by the App); return its JSON."""
        with self._lock:
            return self._new_issue_comment(self._pull(number), body, user)

    def reset(self) -> None:
        """Forget PRs, permissions, injected failures and everything recorded; the server keeps running."""
        with self._lock:
            for recorded in (
                self.check_runs,
                self.reviews,
                self.review_comments,
                self.issue_comments,
                self.reactions,
                self.requests,
                self.deliveries,
                self.server_errors,
            ):
                recorded.clear()
            self._pulls.clear()
            self._permissions.clear()
            self._injections.clear()
            self._no_patch.clear()
            self._revoked.clear()
            self.clock_offset_s = 0.0
            self.tree_entry_limit = _TREE_LIMIT
            self._writes.clear()
            self._suites.clear()
            self.public.clear()
        self._reset_hooks()

    def set_permission(self, user: str, permission: str) -> None:
        if permission not in (*_PERMISSIONS, "none"):
            raise ValueError(f"unknown permission {permission!r}")
        with self._lock:
            self._permissions[user] = permission

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: dict | None = None,
        after: bool = False,
        skip: int = 0,
    ) -> None:
        with self._lock:
            self._injections.append(
                _Injection(
                    method.upper(),
                    re.compile(path_regex),
                    status,
                    times,
                    dict(headers or {}),
                    body,
                    after,
                    skip,
                )
            )

    def revoke_tokens(self) -> None:
        """Every installation token issued so far answers 401 "Bad credentials" here from now on,
        as after a revocation or a suspended and restored installation; new ones work."""
        with self._lock, _ISSUED_LOCK:
            self._revoked.update(
                t for t, grant in _ISSUED_TOKENS.items() if grant[:2] == (self.app_id, self.installation_id)
            )

    def now(self) -> float:
        """The time on GitHub's clock: this machine's plus `clock_offset_s`."""
        return time.time() + self.clock_offset_s

    def omit_patches(self, path_regex: str) -> None:
        with self._lock:
            self._no_patch.append(re.compile(path_regex))

    def pull(self, number: int) -> dict:
        """The PR's current JSON (2026-03-10 shape)."""
        with self._lock:
            return self._pull_json(self._pull(number), _API_VERSIONS[-1])

    def calls(self, method: str, path_regex: str) -> list[tuple[str, str, int]]:
        """The recorded requests with this method whose path matches `path_regex`."""
        pattern = re.compile(path_regex)
        return [r for r in self.requests if r[0] == method.upper() and pattern.search(r[1])]

    # -- plumbing -------------------------------------------------------------------------------

    def _next_id(self) -> int:
        return next(self._ids)

    def _commit_or_fail(self, rev: str) -> str:
        sha = self.repo.resolve(rev)
        if sha is None:
            raise ValueError(f"{rev!r} is no commit of {self.repo.path}")
        return sha

    def _build_routes(self) -> list[tuple[str, re.Pattern, str, Any]]:
        repo = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
        table = [
            ("POST", r"/app/installations/(?P<iid>\d+)/access_tokens", "jwt", self._h_access_token),
            ("GET", r"/app", "jwt", self._h_app),
            ("POST", r"/app-manifests/(?P<code>[^/]+)/conversions", "any", self._h_manifest_conversion),
            ("GET", r"/app/installations", "jwt", self._h_installations),
            ("GET", r"/app/hook/deliveries", "jwt", self._h_hook_deliveries),
            ("POST", r"/app/hook/deliveries/(?P<id>\d+)/attempts", "jwt", self._h_redeliver),
            ("GET", r"/installation/repositories", "token", self._h_installation_repositories),
            ("GET", r"/app/installations/(?P<iid>\d+)", "jwt", self._h_installation),
            ("GET", repo + r"/installation", "jwt", self._h_repo_installation),
            ("GET", r"/rate_limit", "any", self._h_rate_limit),
            ("POST", r"/graphql", "token", self._h_graphql),
            ("GET", repo, "token", self._h_repository),
            ("GET", repo + r"/pulls", "token", self._h_list_pulls),
            ("GET", repo + r"/pulls/(?P<n>\d+)", "token", self._h_get_pull),
            ("GET", repo + r"/pulls/(?P<n>\d+)/files", "token", self._h_pull_files),
            ("GET", repo + r"/commits", "token", self._h_list_commits),
            ("GET", repo + r"/commits/(?P<sha>[^/]+)/pulls", "token", self._h_commit_pulls),
            ("GET", repo + r"/compare/(?P<basehead>.+)", "token", self._h_compare),
            ("GET", repo + r"/contents(?:/(?P<path>.*))?", "token", self._h_contents),
            ("GET", repo + r"/git/blobs/(?P<sha>[^/]+)", "token", self._h_blob),
            ("GET", repo + r"/git/trees/(?P<sha>.+)", "token", self._h_tree),
            ("GET", repo + r"/commits/(?P<ref>[^/]+)", "token", self._h_commit),
            ("POST", repo + r"/git/trees", "token", self._h_create_tree),
            ("POST", repo + r"/git/commits", "token", self._h_create_commit),
            ("PATCH", repo + r"/git/refs/(?P<ref>.+)", "token", self._h_update_ref),
            ("POST", repo + r"/check-runs", "token", self._h_create_check_run),
            ("PATCH", repo + r"/check-runs/(?P<id>\d+)", "token", self._h_update_check_run),
            ("GET", repo + r"/check-runs/(?P<id>\d+)", "token", self._h_get_check_run),
            ("GET", repo + r"/check-runs/(?P<id>\d+)/annotations", "token", self._h_check_annotations),
            ("GET", repo + r"/commits/(?P<ref>.+)/check-runs", "token", self._h_list_check_runs),
            ("POST", repo + r"/pulls/(?P<n>\d+)/reviews", "token", self._h_create_review),
            ("GET", repo + r"/pulls/(?P<n>\d+)/reviews", "token", self._h_list_reviews),
            ("GET", repo + r"/pulls/(?P<n>\d+)/comments", "token", self._h_list_review_comments),
            ("POST", repo + r"/pulls/(?P<n>\d+)/comments", "token", self._h_create_review_comment),
            ("GET", repo + r"/pulls/comments/(?P<id>\d+)", "token", self._h_get_review_comment),
            ("PATCH", repo + r"/pulls/comments/(?P<id>\d+)", "token", self._h_update_review_comment),
            ("POST", repo + r"/pulls/(?P<n>\d+)/comments/(?P<id>\d+)/replies", "token", self._h_reply),
            ("POST", repo + r"/pulls/comments/(?P<id>\d+)/reactions", "token", self._h_review_reaction),
            ("GET", repo + r"/issues/(?P<n>\d+)/comments", "token", self._h_list_issue_comments),
            ("POST", repo + r"/issues/(?P<n>\d+)/comments", "token", self._h_create_issue_comment),
            ("GET", repo + r"/issues/comments/(?P<id>\d+)", "token", self._h_get_issue_comment),
            ("PATCH", repo + r"/issues/comments/(?P<id>\d+)", "token", self._h_update_issue_comment),
            ("DELETE", repo + r"/issues/comments/(?P<id>\d+)", "token", self._h_delete_issue_comment),
            ("POST", repo + r"/issues/comments/(?P<id>\d+)/reactions", "token", self._h_issue_reaction),
            ("GET", repo + r"/collaborators/(?P<user>[^/]+)/permission", "token", self._h_permission),
        ]
        return [(m, re.compile(p + r"/?"), auth, h) for m, p, auth, h in table]

    async def _endpoint(self, request: Request) -> Response:
        body = await request.body()
        # Handlers run on the server's event loop one at a time; the lock keeps test-side
        # controls (open_pull, set_permission) from interleaving with them.
        with self._lock:
            try:
                response = self._handle(request, body)
            except Exception:
                # a fault of the stand-in itself: answer 500 and keep the traceback for the test
                self.server_errors.append(traceback.format_exc())
                response = self._json(500, {"message": "Stand-in failure", "documentation_url": ""})
            self.requests.append((request.method, request.url.path, response.status_code))
        return response

    def _handle(self, request: Request, body: bytes) -> Response:
        rid = secrets.token_hex(8).upper()
        headers = {"x-github-request-id": rid}
        version = request.headers.get("x-github-api-version", _API_VERSIONS[0])
        resource = "graphql" if request.url.path == "/graphql" else "core"
        try:
            if version not in _API_VERSIONS:
                raise _HTTPError(400, f"API version {version} is not supported.")
            headers["x-github-api-version-selected"] = version
            injected = self._injected(request.method, request.url.path, rid)
            if injected is not None:
                return self._finish(injected, headers, resource, request)
            req, auth, handler = self._route(request, body, version, rid)
            self._authenticate(request, auth)
            if auth == "token":
                self._authorize(handler)
            if request.method != "GET" and req.path.startswith("/repos/"):
                self._count_write(rid)
            result = handler(req)
            lost = self._injected(request.method, request.url.path, rid, after=True)
            if lost is not None:  # the call took effect; its answer is replaced by the failure
                return self._finish(lost, headers, resource, request)
        except _HTTPError as err:
            headers.update(err.headers)
            return self._finish(self._json(err.status, err.body), headers, resource, request)
        if isinstance(result, _Raw):
            headers.update(result.headers)
            return self._finish(
                Response(result.body, result.status, media_type=result.media_type), headers, resource, request
            )
        status, payload, extra = result if len(result) == 3 else (*result, {})
        headers.update(extra)
        return self._finish(self._json(status, payload), headers, resource, request)

    def _finish(
        self, response: Response, headers: dict[str, str], resource: str, request: Request
    ) -> Response:
        self._used += 1
        defaults = {
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": str(max(0, 5000 - self._used)),
            "x-ratelimit-reset": str(int(self.now()) + 3600),
            "x-ratelimit-used": str(self._used),
            "x-ratelimit-resource": resource,
        }
        for k, v in {**defaults, **headers}.items():
            if k not in response.headers:  # an injected failure keeps the headers it was given
                response.headers[k] = v
        response.headers["date"] = formatdate(self.now(), usegmt=True)
        if request.method == "GET" and response.status_code == 200:
            etag = 'W/"' + hashlib.sha256(response.body).hexdigest()[:40] + '"'
            response.headers["etag"] = etag
            response.headers["cache-control"] = "private, max-age=60, s-maxage=60"
            response.headers["vary"] = "Accept, Authorization, Cookie, X-GitHub-OTP"
            sent = [t.strip() for t in request.headers.get("if-none-match", "").split(",")]
            if etag in sent:
                not_modified = Response(b"", 304)
                for k in ("etag", "cache-control", "vary", "x-github-request-id", "date"):
                    not_modified.headers[k] = response.headers[k]
                return not_modified
        return response

    @staticmethod
    def _json(status: int, payload: Any) -> Response:
        if status == 204:
            return Response(b"", 204)
        body = json.dumps(payload, separators=(",", ":")).encode()
        return Response(body, status, media_type="application/json; charset=utf-8")

    def _injected(self, method: str, path: str, rid: str, after: bool = False) -> Response | None:
        for inj in self._injections:
            if inj.after != after:
                continue
            if inj.times > 0 and inj.method in ("*", method) and inj.pattern.search(path):
                if inj.skip > 0:
                    inj.skip -= 1
                    continue
                inj.times -= 1
                if inj.times == 0:
                    self._injections.remove(inj)
                lower = {k.lower() for k in inj.headers}
                if inj.body is not None:
                    payload = dict(inj.body)
                elif inj.status in (403, 429) and "retry-after" in lower:
                    payload = {"message": _SECONDARY_MESSAGE.format(rid=rid)}
                elif inj.status in (403, 429) and inj.headers.get("x-ratelimit-remaining") == "0":
                    payload = {
                        "message": f"API rate limit exceeded for installation ID {self.installation_id}."
                    }
                elif inj.status >= 500:
                    payload = {"message": "Server Error"}
                else:
                    payload = {"message": "Forbidden" if inj.status == 403 else "Error"}
                payload.setdefault("documentation_url", "https://docs.github.com/rest")
                response = self._json(inj.status, payload)
                for k, v in inj.headers.items():
                    response.headers[k] = v
                return response
        return None

    def _route(self, request: Request, body: bytes, version: str, rid: str) -> tuple[_Req, str, Any]:
        path = request.url.path
        for method, pattern, auth, handler in self._routes:
            m = pattern.fullmatch(path)
            if m and method == request.method:
                params = {k: v for k, v in m.groupdict().items() if v is not None}
                public = self.public.get(f"{params.get('owner')}/{params.get('repo')}".lower())
                if public is not None and method == "GET":
                    handler = getattr(public, handler.__name__)  # the same endpoint, on that repository
                elif "owner" in params and (
                    params["owner"].lower() != self.owner.lower()
                    or params["repo"].lower() != self.name.lower()
                ):
                    # an installation token only reaches the installation's repositories
                    self._authenticate(request, auth)
                    raise _HTTPError(404, "Not Found")
                query = dict(parse_qsl(request.url.query, keep_blank_values=True))
                return (
                    _Req(request.method, path, params, query, request.headers, body, version, rid),
                    auth,
                    handler,
                )
        raise _HTTPError(404, "Not Found")

    def _authenticate(self, request: Request, auth: str) -> None:
        header = request.headers.get("authorization", "")
        scheme, _, credential = header.partition(" ")
        scheme = scheme.lower()
        if auth == "any":
            return
        if auth == "jwt":
            if scheme != "bearer" or not credential:
                raise _HTTPError(
                    401, "A JSON web token could not be decoded", docs="https://docs.github.com/rest"
                )
            self._verify_jwt(credential.strip())
            return
        if scheme not in ("token", "bearer") or not credential:
            raise _HTTPError(401, "Requires authentication")
        with _ISSUED_LOCK:
            grant = _ISSUED_TOKENS.get(credential.strip())
        token = credential.strip()
        if (
            grant is None
            or grant[:2] != (self.app_id, self.installation_id)
            or grant[2] < self.now()
            or token in self._revoked
        ):
            raise _HTTPError(401, "Bad credentials")

    def _authorize(self, handler: Any) -> None:
        """403 as github.com answers a call the installation's permissions do not cover."""
        rank = {"read": 1, "write": 2}
        needs = _NEEDS.get(handler.__name__, ())
        granted = self.app_permissions
        if needs and not any(rank.get(granted.get(p, ""), 0) >= rank[level] for p, level in needs):
            raise _HTTPError(403, "Resource not accessible by integration")

    def _verify_jwt(self, token: str) -> dict:
        try:
            claims = jwt.decode(
                token,
                self._public_key,
                algorithms=["RS256"],
                options={"verify_exp": False, "verify_iat": False, "verify_iss": False, "verify_aud": False},
            )
        except jwt.InvalidTokenError:
            raise _HTTPError(401, "A JSON web token could not be decoded") from None
        now = self.now()
        exp, iat, iss = claims.get("exp"), claims.get("iat"), claims.get("iss")
        if not isinstance(exp, int | float) or exp <= now:
            raise _HTTPError(
                401,
                "'Expiration time' claim ('exp') must be a numeric value representing the future time at "
                "which the assertion expires",
            )
        if exp > now + 600 + 30:
            raise _HTTPError(401, "'Expiration time' claim ('exp') is too far in the future")
        if not isinstance(iat, int | float) or iat > now + 60:
            raise _HTTPError(
                401,
                "'Issued at' claim ('iat') must be an Integer representing the time that the "
                "assertion was issued",
            )
        if str(iss) != str(self.app_id):
            raise _HTTPError(401, "'Issuer' claim ('iss') must be an Integer")
        return claims

    def _count_write(self, rid: str) -> None:
        now = time.monotonic()
        while self._writes and self._writes[0] <= now - 3600:
            self._writes.popleft()
        last_minute = [t for t in self._writes if t > now - 60]
        wait = None
        if len(last_minute) >= self.content_limit_per_minute:
            wait = last_minute[len(last_minute) - self.content_limit_per_minute] + 60 - now
        elif len(self._writes) >= self.content_limit_per_hour:
            wait = self._writes[len(self._writes) - self.content_limit_per_hour] + 3600 - now
        if wait is not None:
            raise _HTTPError(
                403,
                _SECONDARY_MESSAGE.format(rid=rid),
                headers={"retry-after": str(max(1, math.ceil(wait)))},
                docs="https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
            )
        self._writes.append(now)

    # -- shapes ---------------------------------------------------------------------------------

    def _user(self, login: str, kind: str | None = None) -> dict:
        if login not in self._user_ids:
            self._user_ids[login] = 5000 + len(self._user_ids)
        uid = self._user_ids[login]
        kind = kind or (
            "Bot" if login.endswith("[bot]") else "Organization" if login == self.owner else "User"
        )
        api = f"{self.api}/users/{quote(login)}"
        return {
            "login": login,
            "id": uid,
            "node_id": f"U_kgDO{uid}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
            "gravatar_id": "",
            "url": api,
            "html_url": f"{self.html}/{quote(login)}",
            "followers_url": f"{api}/followers",
            "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}",
            "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions",
            "organizations_url": f"{api}/orgs",
            "repos_url": f"{api}/repos",
            "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events",
            "type": kind,
            "user_view_type": "public",
            "site_admin": False,
        }

    def _bot(self) -> dict:
        return self._user(self.bot_login, "Bot")

    def _association(self, login: str) -> str:
        if login == self.bot_login:
            return "NONE"
        permission = self._permissions.get(login)
        if permission in ("admin", "maintain"):
            return "MEMBER"
        if permission in ("write", "triage", "read"):
            return "COLLABORATOR"
        return "CONTRIBUTOR" if any(p.user == login for p in self._pulls.values()) else "NONE"

    def _repo_json(self, owner: str, fork: bool, version: str, full: bool = False) -> dict:
        name = self.name
        api = f"{self.api}/repos/{owner}/{name}"
        html = f"{self.html}/{owner}/{name}"
        rid = self.repository_id + (1 if fork else 0)
        d = {
            "id": rid,
            "node_id": f"R_kgDO{rid}",
            "name": name,
            "full_name": f"{owner}/{name}",
            "private": False,
            "owner": self._user(owner),
            "html_url": html,
            "description": "Documentation fixture",
            "fork": fork,
            "url": api,
            "forks_url": f"{api}/forks",
            "keys_url": f"{api}/keys{{/key_id}}",
            "collaborators_url": f"{api}/collaborators{{/collaborator}}",
            "teams_url": f"{api}/teams",
            "hooks_url": f"{api}/hooks",
            "issue_events_url": f"{api}/issues/events{{/number}}",
            "events_url": f"{api}/events",
            "assignees_url": f"{api}/assignees{{/user}}",
            "branches_url": f"{api}/branches{{/branch}}",
            "tags_url": f"{api}/tags",
            "blobs_url": f"{api}/git/blobs{{/sha}}",
            "git_tags_url": f"{api}/git/tags{{/sha}}",
            "git_refs_url": f"{api}/git/refs{{/sha}}",
            "trees_url": f"{api}/git/trees{{/sha}}",
            "statuses_url": f"{api}/statuses/{{sha}}",
            "languages_url": f"{api}/languages",
            "stargazers_url": f"{api}/stargazers",
            "contributors_url": f"{api}/contributors",
            "subscribers_url": f"{api}/subscribers",
            "subscription_url": f"{api}/subscription",
            "commits_url": f"{api}/commits{{/sha}}",
            "git_commits_url": f"{api}/git/commits{{/sha}}",
            "comments_url": f"{api}/comments{{/number}}",
            "issue_comment_url": f"{api}/issues/comments{{/number}}",
            "contents_url": f"{api}/contents/{{+path}}",
            "compare_url": f"{api}/compare/{{base}}...{{head}}",
            "merges_url": f"{api}/merges",
            "archive_url": f"{api}/{{archive_format}}{{/ref}}",
            "downloads_url": f"{api}/downloads",
            "issues_url": f"{api}/issues{{/number}}",
            "pulls_url": f"{api}/pulls{{/number}}",
            "milestones_url": f"{api}/milestones{{/number}}",
            "notifications_url": f"{api}/notifications{{?since,all,participating}}",
            "labels_url": f"{api}/labels{{/name}}",
            "releases_url": f"{api}/releases{{/id}}",
            "deployments_url": f"{api}/deployments",
            "created_at": self._created_at,
            "updated_at": self._created_at,
            "pushed_at": self._created_at,
            "git_url": f"git://github.com/{owner}/{name}.git",
            "ssh_url": f"git@github.com:{owner}/{name}.git",
            "clone_url": f"{html}.git",
            "svn_url": html,
            "homepage": None,
            "size": 1,
            "stargazers_count": 0,
            "watchers_count": 0,
            "language": "Python",
            "has_issues": True,
            "has_projects": True,
            "has_wiki": False,
            "has_pages": False,
            "has_discussions": False,
            "forks_count": 1,
            "mirror_url": None,
            "archived": False,
            "disabled": False,
            "open_issues_count": sum(1 for p in self._pulls.values() if p.state == "open"),
            "license": None,
            "allow_forking": True,
            "is_template": False,
            "web_commit_signoff_required": False,
            "topics": [],
            "visibility": "public",
            "forks": 1,
            "open_issues": sum(1 for p in self._pulls.values() if p.state == "open"),
            "watchers": 0,
            "default_branch": self.default_branch,
        }
        if version == "2022-11-28":
            d["has_downloads"] = True
        if full:
            d.update(subscribers_count=0, network_count=1, temp_clone_token=None)
            d["permissions"] = {
                "admin": False,
                "maintain": False,
                "push": False,
                "triage": False,
                "pull": True,
            }
        return d

    def _pull_json(self, pr: _Pull, version: str, simple: bool = False) -> dict:
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        html = f"{self.html}/{self.owner}/{self.name}/pull/{pr.number}"
        head_owner = pr.user if pr.fork else self.owner
        d = {
            "url": f"{api}/pulls/{pr.number}",
            "id": pr.id,
            "node_id": f"PR_kwDO{pr.id}",
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{api}/issues/{pr.number}",
            "commits_url": f"{api}/pulls/{pr.number}/commits",
            "review_comments_url": f"{api}/pulls/{pr.number}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{api}/issues/{pr.number}/comments",
            "statuses_url": f"{api}/statuses/{pr.head_sha}",
            "number": pr.number,
            "state": pr.state,
            "locked": False,
            "title": pr.title,
            "user": self._user(pr.user),
            "body": pr.body or None,
            "labels": [],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": pr.created_at,
            "updated_at": pr.updated_at,
            "closed_at": pr.closed_at,
            "merged_at": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "draft": pr.draft,
            "head": {
                "label": f"{head_owner}:{pr.head_ref}",
                "ref": pr.head_ref,
                "sha": pr.head_sha,
                "user": self._user(head_owner),
                "repo": self._repo_json(head_owner, pr.fork, version),
            },
            "base": {
                "label": f"{self.owner}:{pr.base_ref}",
                "ref": pr.base_ref,
                "sha": pr.base_sha,
                "user": self._user(self.owner),
                "repo": self._repo_json(self.owner, False, version),
            },
            "_links": {
                "self": {"href": f"{api}/pulls/{pr.number}"},
                "html": {"href": html},
                "issue": {"href": f"{api}/issues/{pr.number}"},
                "comments": {"href": f"{api}/issues/{pr.number}/comments"},
                "review_comments": {"href": f"{api}/pulls/{pr.number}/comments"},
                "review_comment": {"href": f"{api}/pulls/comments{{/number}}"},
                "commits": {"href": f"{api}/pulls/{pr.number}/commits"},
                "statuses": {"href": f"{api}/statuses/{pr.head_sha}"},
            },
            "author_association": self._association(pr.user),
            "auto_merge": None,
        }
        if version == "2022-11-28":
            d["merge_commit_sha"] = None
            d["assignee"] = None
        if not simple:
            files, _ = self.repo.diff(pr.base_sha, pr.head_sha)
            d.update(
                merged=False,
                mergeable=None,
                rebaseable=None,
                mergeable_state="unknown",
                merged_by=None,
                comments=sum(1 for c in self.issue_comments if c["pull_number"] == pr.number),
                review_comments=sum(1 for c in self.review_comments if c["pull_number"] == pr.number),
                maintainer_can_modify=pr.fork,
                commits=self.repo.count_commits(self.repo.merge_base(pr.base_sha, pr.head_sha), pr.head_sha),
                additions=sum(f.additions for f in files),
                deletions=sum(f.deletions for f in files),
                changed_files=len(files),
            )
        return d

    def _pull(self, number: str | int) -> _Pull:
        pr = self._pulls.get(int(number))
        if pr is None:
            raise _HTTPError(404, "Not Found")
        return pr

    def _integration(self) -> dict:
        return {
            "id": self.app_id,
            "slug": self.app_slug,
            "node_id": f"A_kwDO{self.app_id}",
            "client_id": f"Iv1.{self.app_id:016x}",
            "owner": self._user(self.owner),
            "name": self.app_slug,
            "description": "Keeps documentation honest",
            "external_url": f"https://{self.app_slug}.example.com",
            "html_url": f"{self.html}/apps/{self.app_slug}",
            "created_at": self._created_at,
            "updated_at": self._created_at,
            "permissions": dict(self.app_permissions),
            "events": list(_APP_EVENTS),
        }

    def _installation_json(self) -> dict:
        return {
            "id": self.installation_id,
            "account": self._user(self.owner),
            "repository_selection": "selected",
            "access_tokens_url": f"{self.api}/app/installations/{self.installation_id}/access_tokens",
            "repositories_url": f"{self.api}/installation/repositories",
            "html_url": f"{self.html}/organizations/{self.owner}/settings/installations/"
            f"{self.installation_id}",
            "app_id": self.app_id,
            "app_slug": self.app_slug,
            "target_id": self._user(self.owner)["id"],
            "target_type": "Organization",
            "permissions": dict(self.app_permissions),
            "events": list(_APP_EVENTS),
            "created_at": self._created_at,
            "updated_at": self._created_at,
            "single_file_name": None,
            "has_multiple_single_files": False,
            "single_file_paths": [],
            "suspended_by": None,
            "suspended_at": None,
        }

    def _paginate(self, req: _Req, items: list, cap: int | None = None) -> tuple[int, list, dict]:
        try:
            per_page = min(100, max(1, int(req.query.get("per_page", 30))))
        except ValueError:
            per_page = 30
        try:
            page = max(1, int(req.query.get("page", 1)))
        except ValueError:
            page = 1
        if cap is not None:
            items = items[:cap]
        last = max(1, math.ceil(len(items) / per_page))

        def link(p: int, rel: str) -> str:
            query = {**req.query, "per_page": str(per_page), "page": str(p)}
            return f'<{self.api}{req.path}?{urlencode(query)}>; rel="{rel}"'

        links = []
        if page > 1:
            links.append(link(min(page - 1, last), "prev"))
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links.append(link(1, "first"))
        headers = {"link": ", ".join(links)} if links else {}
        return 200, items[(page - 1) * per_page : page * per_page], headers

    # -- app and auth ---------------------------------------------------------------------------

    def _check_installation(self, iid: str) -> None:
        if int(iid) != self.installation_id:
            raise _HTTPError(404, "Not Found")

    def _h_access_token(self, req: _Req):
        self._check_installation(req.params["iid"])
        token = "ghs_" + secrets.token_urlsafe(27).replace("-", "a").replace("_", "b")[:36]
        expires = datetime.fromtimestamp(self.now(), timezone.utc) + timedelta(hours=1)
        with _ISSUED_LOCK:
            _ISSUED_TOKENS[token] = (self.app_id, self.installation_id, expires.timestamp())
        permissions = req.json().get("permissions") or dict(self.app_permissions)
        return 201, {
            "token": token,
            "expires_at": _iso(expires),
            "permissions": permissions,
            "repository_selection": "selected",
        }

    def manifest_code(self, manifest: dict) -> str:
        """What github.com's "Create GitHub App" button does with a posted manifest: registers the
        App and hands the browser a code, good once and for an hour, to `redirect_url?code=`."""
        code = secrets.token_hex(10)
        with self._lock:
            self._manifest_codes[code] = (dict(manifest), self.now() + 3600)
        return code

    def _h_manifest_conversion(self, req: _Req):
        """POST /app-manifests/{code}/conversions: no authentication, the code is the secret."""
        with self._lock:
            entry = self._manifest_codes.pop(req.params["code"], None)
        if entry is None or entry[1] < self.now():
            raise _HTTPError(404, "Not Found")
        manifest = entry[0]
        slug = re.sub(r"[^a-z0-9]+", "-", str(manifest.get("name", "app")).lower()).strip("-")
        return 201, {
            "id": self.app_id,
            "slug": slug,
            "name": manifest.get("name"),
            "html_url": f"{self.html}/apps/{slug}",
            "owner": {"login": self.owner, "type": "Organization"},
            "permissions": manifest.get("default_permissions", {}),
            "events": manifest.get("default_events", []),
            "client_id": "Iv1." + secrets.token_hex(8),
            "client_secret": secrets.token_hex(20),
            "webhook_secret": secrets.token_hex(20),
            "pem": self.private_key_pem,
        }

    def _h_app(self, req: _Req):
        return 200, self._integration()

    def _h_installation(self, req: _Req):
        self._check_installation(req.params["iid"])
        return 200, self._installation_json()

    def _h_installations(self, req: _Req):
        return self._paginate(req, [self._installation_json()])

    def _h_installation_repositories(self, req: _Req):
        status, repos, headers = self._paginate(req, [self._repo_json(self.owner, False, req.version)])
        return status, {"total_count": 1, "repository_selection": "selected", "repositories": repos}, headers

    def _h_repo_installation(self, req: _Req):
        return 200, self._installation_json()

    def _h_rate_limit(self, req: _Req):
        reset = int(self.now()) + 3600
        core = {"limit": 5000, "used": self._used, "remaining": max(0, 5000 - self._used), "reset": reset}
        body: dict[str, Any] = {
            "resources": {
                "core": core,
                "search": {"limit": 30, "used": 0, "remaining": 30, "reset": reset},
                "graphql": {"limit": 5000, "used": 0, "remaining": 5000, "reset": reset},
            }
        }
        if req.version == "2022-11-28":
            body["rate"] = dict(core)
        return 200, body

    # -- repository, pulls, git data ------------------------------------------------------------

    def _h_repository(self, req: _Req):
        return 200, self._repo_json(self.owner, False, req.version, full=True)

    def _h_list_pulls(self, req: _Req):
        state = req.query.get("state", "open")
        pulls = sorted(self._pulls.values(), key=lambda p: -p.number)
        if state != "all":
            pulls = [p for p in pulls if p.state == state]
        if "head" in req.query:
            owner, _, ref = req.query["head"].partition(":")
            pulls = [
                p
                for p in pulls
                if (p.user if p.fork else self.owner) == owner and (not ref or p.head_ref == ref)
            ]
        if "base" in req.query:
            pulls = [p for p in pulls if p.base_ref == req.query["base"]]
        status, page, headers = self._paginate(req, pulls)
        return status, [self._pull_json(p, req.version, simple=True) for p in page], headers

    def _h_get_pull(self, req: _Req):
        pr = self._pull(req.params["n"])
        if req.accepts(_DIFF_TYPES):
            files, text = self.repo.diff(pr.base_sha, pr.head_sha)
            if len(files) > 300:
                raise _HTTPError(
                    406,
                    "Sorry, the diff exceeded the maximum number of files (300). Consider using 'List pull "
                    "requests files' API or locally cloning the repository instead.",
                    [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                )
            if text.count("\n") > 20000:
                raise _HTTPError(
                    406,
                    "Sorry, the diff exceeded the maximum number of lines (20000). Consider using 'List pull "
                    "requests files' API or locally cloning the repository instead.",
                    [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                )
            return _Raw(200, text.encode(), "application/vnd.github.diff; charset=utf-8")
        return 200, self._pull_json(pr, req.version)

    def _h_pull_files(self, req: _Req):
        pr = self._pull(req.params["n"])
        files, _ = self.repo.diff(pr.base_sha, pr.head_sha)
        status, page, headers = self._paginate(req, files, cap=3000)
        return status, [self._file_json(f, pr.head_sha) for f in page], headers

    def _file_json(self, f: _FileDiff, head_sha: str) -> dict:
        path = quote(f.filename)
        d: dict[str, Any] = {
            "sha": f.new_blob or f.old_blob,
            "filename": f.filename,
            "status": f.status,
            "additions": f.additions,
            "deletions": f.deletions,
            "changes": f.additions + f.deletions,
            "blob_url": f"{self.html}/{self.owner}/{self.name}/blob/{head_sha}/{path}",
            "raw_url": f"{self.html}/{self.owner}/{self.name}/raw/{head_sha}/{path}",
            "contents_url": f"{self.api}/repos/{self.owner}/{self.name}/contents/{path}?ref={head_sha}",
        }
        if f.patch is not None and not any(p.search(f.filename) for p in self._no_patch):
            d["patch"] = f.patch
        if f.previous_filename is not None:
            d["previous_filename"] = f.previous_filename
        return d

    def _h_commit_pulls(self, req: _Req):
        sha = self.repo.resolve(req.params["sha"])
        if sha is None:
            raise _HTTPError(422, f"No commit found for SHA: {req.params['sha']}")
        found = []
        for pr in sorted(self._pulls.values(), key=lambda p: -p.number):
            if pr.fork:
                continue  # a fork's commits are not objects of the base repository
            mb = self.repo.merge_base(pr.base_sha, pr.head_sha)
            if sha == pr.head_sha or (
                self.repo.is_ancestor(sha, pr.head_sha) and not self.repo.is_ancestor(sha, mb)
            ):
                found.append(pr)
        status, page, headers = self._paginate(req, found)
        return status, [self._pull_json(p, req.version, simple=True) for p in page], headers

    def _ref_or_404(self, ref: str | None) -> str:
        sha = self.repo.resolve(ref or self.default_branch)
        if sha is None:
            raise _HTTPError(404, f"No commit found for the ref {ref}")
        return sha

    def _content_entry(self, entry: dict, ref: str, sha: str) -> dict:
        path = entry["path"]
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        kind = {"blob": "file", "tree": "dir", "commit": "submodule"}[entry["type"]]
        if entry["mode"] == "120000":
            kind = "symlink"
        html_kind = "tree" if kind == "dir" else "blob"
        git_url = f"{api}/git/{'trees' if kind == 'dir' else 'blobs'}/{entry['sha']}"
        d = {
            "type": kind,
            "size": entry["size"] or 0,
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": entry["sha"],
            "url": f"{api}/contents/{quote(path)}?ref={quote(ref)}",
            "git_url": git_url,
            "html_url": f"{self.html}/{self.owner}/{self.name}/{html_kind}/{quote(ref)}/{quote(path)}",
            "download_url": (
                f"https://raw.githubusercontent.com/{self.owner}/{self.name}/{sha}/{quote(path)}"
                if kind == "file"
                else None
            ),
        }
        d["_links"] = {"self": d["url"], "git": git_url, "html": d["html_url"]}
        return d

    def _h_contents(self, req: _Req):
        ref = req.query.get("ref") or self.default_branch
        sha = self._ref_or_404(ref)
        path = req.params.get("path", "").strip("/")
        entry = self.repo.entry(sha, path)
        if entry is None:
            raise _HTTPError(404, "Not Found")
        if entry["type"] == "tree":
            children = self.repo.ls_tree(entry["sha"])
            listing = []
            for child in children:
                child = {**child, "path": f"{path}/{child['path']}" if path else child["path"]}
                listing.append(self._content_entry(child, ref, sha))
            return 200, listing
        size = entry["size"] or 0
        if size > 100 * 1024 * 1024:
            raise _HTTPError(
                403,
                "This API returns blobs up to 100 MB in size. The requested blob is too large "
                "to fetch via the API, but you can use the Git Data API to request blobs up to "
                "100 MB in size.",
                [{"resource": "Blob", "field": "data", "code": "too_large"}],
            )
        data = self.repo.read(entry["sha"]) if entry["type"] == "blob" else b""
        if req.accepts(_RAW_TYPES) and entry["type"] == "blob":
            return _Raw(200, data, "text/plain; charset=utf-8")
        d = self._content_entry(entry, ref, sha)
        if d["type"] == "symlink":
            d["target"] = data.decode(errors="replace")
        elif d["type"] == "submodule":
            d["submodule_git_url"] = ""
        elif size > 1024 * 1024:
            d.update(content="", encoding="none")
        else:
            d.update(content=_b64(data), encoding="base64")
        return 200, d

    def _h_blob(self, req: _Req):
        sha = req.params["sha"]
        if self.repo.object_type(sha) != "blob":
            raise _HTTPError(404, "Not Found")
        data = self.repo.read(sha)
        if req.accepts(_RAW_TYPES):
            return _Raw(200, data, "application/vnd.github.raw")
        full = self.repo.git("rev-parse", sha).decode().strip()
        return 200, {
            "sha": full,
            "node_id": f"B_kwDO{full[:12]}",
            "size": len(data),
            "url": f"{self.api}/repos/{self.owner}/{self.name}/git/blobs/{full}",
            "content": _b64(data),
            "encoding": "base64",
        }

    def _h_tree(self, req: _Req):
        tree = self.repo.resolve(req.params["sha"], "tree")
        if tree is None:
            raise _HTTPError(404, "Not Found")
        recursive = req.query.get("recursive", "") not in ("", "0", "false")
        entries = self.repo.ls_tree(tree, recursive=recursive)
        truncated = len(entries) > self.tree_entry_limit
        api = f"{self.api}/repos/{self.owner}/{self.name}/git"
        items = []
        for e in entries[: self.tree_entry_limit]:
            item = {"path": e["path"], "mode": e["mode"], "type": e["type"], "sha": e["sha"]}
            if e["type"] == "blob":
                item["size"] = e["size"]
                item["url"] = f"{api}/blobs/{e['sha']}"
            elif e["type"] == "tree":
                item["url"] = f"{api}/trees/{e['sha']}"
            items.append(item)
        return 200, {"sha": tree, "url": f"{api}/trees/{tree}", "tree": items, "truncated": truncated}

    def _h_compare(self, req: _Req):
        base_rev, sep, head_rev = req.params["basehead"].partition("...")
        base, head = self.repo.resolve(base_rev), self.repo.resolve(head_rev)
        if not sep or base is None or head is None:
            raise _HTTPError(404, "Not Found")
        merge_base = self.repo.merge_base(base, head)
        ahead = self.repo.git("rev-list", "--reverse", f"{merge_base}..{head}").decode().split()
        behind = self.repo.count_commits(merge_base, base)
        if base == head:
            status = "identical"
        elif merge_base == base:
            status = "ahead"
        elif merge_base == head:
            status = "behind"
        else:
            status = "diverged"
        paged = "per_page" in req.query or "page" in req.query
        headers: dict[str, str] = {}
        if paged:
            _, commits, headers = self._paginate(req, ahead)
        else:
            commits = ahead[-250:]  # unpaged: the 250 most recent, the newest last
        html = f"{self.html}/{self.owner}/{self.name}/compare/{req.params['basehead']}"
        body: dict[str, Any] = {
            "url": f"{self.api}/repos/{self.owner}/{self.name}/compare/{req.params['basehead']}",
            "html_url": html,
            "permalink_url": f"{self.html}/{self.owner}/{self.name}/compare/"
            f"{self.owner}:{base[:7]}...{self.owner}:{head[:7]}",
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "base_commit": self._commit_json(base),
            "merge_base_commit": self._commit_json(merge_base),
            "status": status,
            "ahead_by": len(ahead),
            "behind_by": behind,
            "total_commits": len(ahead),
            "commits": [self._commit_json(sha) for sha in commits],
        }
        if not paged or req.query.get("page", "1") == "1":  # files come with the first page only
            files, _ = self.repo.diff(base, head)
            body["files"] = [self._file_json(f, head) for f in files[:300]]
        return 200, body, headers

    def _h_commit(self, req: _Req):
        """GET commits/{ref}: the commit, with the files its first parent's diff lists (at most
        300, as on github.com's first page; a root commit's files are left out here)."""
        sha = self.repo.resolve(req.params["ref"])
        if sha is None:
            raise _HTTPError(422, f"No commit found for SHA: {req.params['ref']}")
        body = self._commit_json(sha)
        parents = body["parents"]
        files = self.repo.diff(parents[0]["sha"], sha)[0] if parents else []
        body["files"] = [self._file_json(f, sha) for f in files[:300]]
        body["stats"] = {
            "additions": sum(f.additions for f in files),
            "deletions": sum(f.deletions for f in files),
            "total": sum(f.additions + f.deletions for f in files),
        }
        return 200, body

    def _h_list_commits(self, req: _Req):
        """GET commits?sha=&path=&per_page=&page=: the history of `sha` (default: the default
        branch), newest first, only the commits that changed `path` (a file, or any file under a
        folder) when given, as `git log` simplifies it."""
        ref = req.query.get("sha") or self.default_branch
        sha = self.repo.resolve(ref)
        if sha is None:
            raise _HTTPError(404, "Not Found")
        path = req.query.get("path", "").strip("/")
        args = ["log", "--format=%H", sha] + (["--", path] if path else [])
        shas = self.repo.git(*args).decode().split()
        _, page, headers = self._paginate(req, shas)
        return 200, [self._commit_json(c) for c in page], headers

    def _commit_json(self, sha: str) -> dict:
        info = self.repo.commit_info(sha)
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        html = f"{self.html}/{self.owner}/{self.name}/commit"
        return {
            "url": f"{api}/commits/{sha}",
            "sha": sha,
            "node_id": f"C_kwDO{sha[:12]}",
            "html_url": f"{html}/{sha}",
            "comments_url": f"{api}/commits/{sha}/comments",
            "commit": {
                "url": f"{api}/git/commits/{sha}",
                "author": info["author"],
                "committer": info["committer"],
                "message": info["message"],
                "comment_count": 0,
                "tree": {"sha": info["tree"], "url": f"{api}/git/trees/{info['tree']}"},
            },
            "author": None,
            "committer": None,
            "parents": [
                {"sha": p, "url": f"{api}/commits/{p}", "html_url": f"{html}/{p}"} for p in info["parents"]
            ],
        }

    # -- writing commits (git data API) ---------------------------------------------------------

    _MODES = {"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree", "160000": "commit"}

    def _h_create_tree(self, req: _Req):
        """POST git/trees: `tree` entries over `base_tree` (content becomes a blob, sha null deletes)."""
        data = req.json()
        entries = data.get("tree")
        if not isinstance(entries, list) or not entries:
            raise _refused("tree is not an array")
        base = data.get("base_tree")
        if base is not None and (not isinstance(base, str) or self.repo.resolve(base, "tree") is None):
            raise _refused("base_tree is not a valid tree oid")
        with _scratch_index(self.repo) as git:
            if base is not None:
                git("read-tree", base)
            for e in entries:
                if not isinstance(e, dict) or not isinstance(e.get("path"), str) or not e["path"]:
                    raise _refused("tree.path is missing")
                path, mode, kind = e["path"].strip("/"), e.get("mode"), e.get("type")
                if self._MODES.get(str(mode)) != kind:
                    raise _refused(f"tree.mode {mode!r} and tree.type {kind!r} do not go together")
                if "content" in e and "sha" in e:
                    raise _refused("Must supply either tree.sha or tree.content, not both")
                if "content" in e:
                    if kind != "blob" or not isinstance(e["content"], str):
                        raise _refused("tree.content must be a string, for a blob")
                    sha = git("hash-object", "-w", "--stdin", input=e["content"].encode()).decode().strip()
                elif e.get("sha") is None:
                    git("update-index", "--force-remove", "--", path)
                    continue
                else:
                    sha = str(e["sha"])
                    if self.repo.object_type(sha) != kind:
                        raise _refused(f"tree.sha {sha} is not a valid {kind}")
                git("update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}")
            tree = git("write-tree").decode().strip()
        api = f"{self.api}/repos/{self.owner}/{self.name}/git"
        items = [
            {
                "path": x["path"],
                "mode": x["mode"],
                "type": x["type"],
                "sha": x["sha"],
                "url": f"{api}/{x['type']}s/{x['sha']}",
            }
            for x in self.repo.ls_tree(tree)
        ]
        return 201, {"sha": tree, "url": f"{api}/trees/{tree}", "tree": items, "truncated": False}

    def _h_create_commit(self, req: _Req):
        """POST git/commits: a commit of `tree` on `parents`, by the App when no author is given."""
        data = req.json()
        message, tree, parents = data.get("message"), data.get("tree"), data.get("parents", [])
        if not isinstance(message, str):
            raise _refused("message wasn't supplied.")
        if not isinstance(tree, str) or self.repo.object_type(tree) != "tree":
            raise _refused("Tree SHA does not exist")
        if not isinstance(parents, list) or any(
            not isinstance(p, str) or self.repo.object_type(p) != "commit" for p in parents
        ):
            raise _refused("Parent SHA does not exist or is not a commit object")
        when = f"{int(self.now())} +0000"
        bot = f"{self.bot_login}"
        email = f"{self.app_id}+{self.bot_login}@users.noreply.github.com"
        env = {"GIT_AUTHOR_NAME": bot, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_DATE": when}
        env |= {"GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@github.com"}
        env["GIT_COMMITTER_DATE"] = when
        args = ["commit-tree", tree, *(a for p in parents for a in ("-p", p)), "-F", "-"]
        sha = _git_with(self.repo.path, env, *args, input=message.encode()).decode().strip()
        c = self._commit_json(sha)
        git = c["commit"]
        git.update(sha=sha, html_url=c["html_url"], parents=c["parents"])
        git["verification"] = {"verified": True, "reason": "valid", "signature": None, "payload": None}
        return 201, git

    def _h_update_ref(self, req: _Req):
        """PATCH git/refs/{ref}: move a branch, only forward unless `force`; a push to a pull
        request's head branch moves the pull request and queues its synchronize delivery."""
        ref = req.params["ref"]
        data = req.json()
        sha, force = data.get("sha"), data.get("force", False)
        branch = ref.removeprefix("heads/")
        if not ref.startswith("heads/") or not self.repo.is_branch(branch):
            raise _refused("Reference does not exist")
        if not isinstance(sha, str) or self.repo.object_type(sha) != "commit":
            raise _refused("Object does not exist")
        old = self._commit_or_fail(branch)
        if force is not True and not self.repo.is_ancestor(old, sha):
            raise _refused("Update is not a fast forward")
        self.repo.git("update-ref", f"refs/heads/{branch}", sha, old)
        for pr in self._pulls.values():
            if pr.state == "open" and not pr.fork and pr.head_ref == branch and pr.head_sha != sha:
                before, pr.head_sha, pr.updated_at = pr.head_sha, sha, _iso()
                self.deliveries.append(("pull_request", self._synchronize(pr, before, req.version)))
        api = f"{self.api}/repos/{self.owner}/{self.name}/git"
        return 200, {
            "ref": f"refs/{ref}",
            "node_id": f"REF_kwDO{sha[:12]}",
            "url": f"{api}/refs/{ref}",
            "object": {"type": "commit", "sha": sha, "url": f"{api}/commits/{sha}"},
        }

    def _synchronize(self, pr: _Pull, before: str, version: str) -> dict:
        """The pull_request.synchronize delivery of a push by the App to `pr`'s head branch."""
        return {
            "action": "synchronize",
            "number": pr.number,
            "before": before,
            "after": pr.head_sha,
            "pull_request": self._pull_json(pr, version),
            "repository": self._repo_json(self.owner, False, version),
            "installation": {"id": self.installation_id, "node_id": f"MDIz{self.installation_id}"},
            "sender": self._bot(),
        }

    # -- graphql --------------------------------------------------------------------------------

    _GQL_REPO = re.compile(r"repository\s*\(([^)]*)\)\s*\{")
    _GQL_ARG = re.compile(r'(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|\$\w+)')
    _GQL_OBJECT = re.compile(
        r'(\w+)\s*:\s*object\s*\(\s*expression\s*:\s*("(?:[^"\\]|\\.)*"|\$\w+)\s*\)\s*\{\s*(?:__typename\s*)?'
        r"\.\.\.\s*on\s+Blob\s*\{([^{}]*)\}\s*(?:__typename\s*)?\}"
    )
    _GQL_FIELDS = ("text", "byteSize", "isBinary", "isTruncated", "oid", "abbreviatedOid", "__typename")

    def _h_graphql(self, req: _Req):
        data = req.json()
        query, variables = data.get("query"), data.get("variables") or {}
        if not isinstance(query, str):
            return 200, {"errors": [{"message": "A query attribute must be specified and must be a string."}]}

        def fail(message: str):
            return 200, {"errors": [{"message": message}]}

        def value(token: str) -> Any:
            if token.startswith("$"):
                if token[1:] not in variables:
                    raise KeyError(token)
                return variables[token[1:]]
            return json.loads(token)

        m = self._GQL_REPO.search(query)
        prefix = query[: m.start()] if m else ""
        if not m or not re.fullmatch(r"\s*(query\b[^{]*)?\{\s*", prefix):
            return fail(
                "This stand-in answers only `query { repository(owner:, name:) { alias: object(...) "
                "{ ... on Blob { ... } } } }` queries."
            )
        depth, end = 1, m.end()
        while depth and end < len(query):
            depth += {"{": 1, "}": -1}.get(query[end], 0)
            end += 1
        body, suffix = query[m.end() : end - 1], query[end:]
        if depth or not re.fullmatch(r"\s*\}\s*", suffix):
            return fail("Parse error: unbalanced braces or a second top-level field.")
        try:
            args = {k: value(v) for k, v in self._GQL_ARG.findall(m.group(1))}
        except KeyError as missing:
            return fail(f"Variable {missing.args[0]} was provided no value")
        public = self.public.get(f"{args.get('owner')}/{args.get('name')}".lower())
        if public is not None:
            return public._h_graphql(req)
        if (
            str(args.get("owner")).lower() != self.owner.lower()
            or str(args.get("name")).lower() != self.name.lower()
        ):
            full = f"{args.get('owner')}/{args.get('name')}"
            return 200, {
                "data": {"repository": None},
                "errors": [
                    {
                        "type": "NOT_FOUND",
                        "path": ["repository"],
                        "message": f"Could not resolve to a Repository with the name '{full}'.",
                    }
                ],
            }
        objects, pos = [], 0
        for om in self._GQL_OBJECT.finditer(body):
            if body[pos : om.start()].strip(" \t\r\n,"):
                break
            pos = om.end()
            objects.append(om)
        if not objects or body[pos:].strip(" \t\r\n,"):
            return fail(
                'This stand-in answers only `alias: object(expression: "REV:path") '
                "{ ... on Blob { text byteSize isBinary oid } }` selections."
            )
        try:
            expressions = [value(om.group(2)) for om in objects]
        except KeyError as missing:
            return fail(f"Variable {missing.args[0]} was provided no value")
        for om in objects:
            for name in om.group(3).split():
                if name not in self._GQL_FIELDS:
                    return 200, {
                        "errors": [
                            {
                                "path": ["query", "repository", om.group(1), "... on Blob", name],
                                "extensions": {
                                    "code": "undefinedField",
                                    "typeName": "Blob",
                                    "fieldName": name,
                                },
                                "message": f"Field '{name}' doesn't exist on type 'Blob'",
                            }
                        ]
                    }
        specs = []
        for expr in expressions:
            rev, sep, path = str(expr).partition(":")
            ok = sep and "\n" not in path and self.repo.resolve(rev) is not None
            specs.append(f"{self.repo.resolve(rev)}:{path}" if ok else None)
        found = iter(self.repo.cat_batch([s for s in specs if s is not None]))
        result: dict[str, Any] = {}
        for om, spec in zip(objects, specs, strict=True):
            obj = next(found) if spec is not None else None
            alias, fields = om.group(1), om.group(3).split()
            if obj is None:
                result[alias] = None
                continue
            sha, otype, content = obj
            if otype != "blob":
                result[alias] = {"__typename": otype.capitalize()} if "__typename" in om.group(0) else {}
                continue
            binary = _is_binary(content)
            values = {
                "text": None if binary else _utf8(content),
                "byteSize": len(content),
                "isBinary": binary,
                "isTruncated": False,
                "oid": sha,
                "abbreviatedOid": sha[:7],
                "__typename": "Blob",
            }
            result[alias] = {f: values[f] for f in fields}
            if "__typename" in om.group(0):
                result[alias]["__typename"] = "Blob"
        return 200, {"data": {"repository": result}}

    # -- checks ---------------------------------------------------------------------------------

    def _suite_id(self, head_sha: str) -> int:
        if head_sha not in self._suites:
            self._suites[head_sha] = self._next_id()
        return self._suites[head_sha]

    def _check_run(self, run_id: str) -> dict:
        for run in self.check_runs:
            if run["id"] == int(run_id):
                return run
        raise _HTTPError(404, "Not Found")

    def _check_json(self, run: dict) -> dict:
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        url = f"{api}/check-runs/{run['id']}"
        out = run["output"]
        pulls = [
            {
                "url": f"{api}/pulls/{p.number}",
                "id": p.id,
                "number": p.number,
                "head": {
                    "ref": p.head_ref,
                    "sha": p.head_sha,
                    "repo": {"id": self.repository_id, "url": api, "name": self.name},
                },
                "base": {
                    "ref": p.base_ref,
                    "sha": p.base_sha,
                    "repo": {"id": self.repository_id, "url": api, "name": self.name},
                },
            }
            for p in self._pulls.values()
            if p.head_sha == run["head_sha"] and p.state == "open" and not p.fork
        ]
        return {
            "id": run["id"],
            "head_sha": run["head_sha"],
            "node_id": f"CR_kwDO{run['id']}",
            "external_id": run["external_id"],
            "url": url,
            "html_url": f"{self.html}/{self.owner}/{self.name}/runs/{run['id']}",
            "details_url": run["details_url"],
            "status": run["status"],
            "conclusion": run["conclusion"],
            "started_at": run["started_at"],
            "completed_at": run["completed_at"],
            "output": {
                "title": out["title"],
                "summary": out["summary"],
                "text": out["text"],
                "annotations_count": len(out["annotations"]),
                "annotations_url": f"{url}/annotations",
            },
            "name": run["name"],
            "check_suite": {"id": self._suite_id(run["head_sha"])},
            "app": self._integration(),
            "pull_requests": pulls,
        }

    def _validate_check(self, data: dict, run: dict | None) -> dict:
        """The changes `data` makes to a check run, after GitHub's checks; `run` is None on create."""
        changes: dict[str, Any] = {}
        if run is None:
            name = data.get("name")
            if not isinstance(name, str) or not name.strip():
                raise _invalid("`name` is a required property.")
            head_sha = data.get("head_sha")
            if not isinstance(head_sha, str):
                raise _invalid("`head_sha` is a required property.")
            resolved = self.repo.resolve(head_sha) if re.fullmatch(r"[0-9a-f]{40}", head_sha) else None
            if resolved is None:
                raise _HTTPError(422, f"No commit found for SHA: {head_sha}")
            changes.update(name=name, head_sha=resolved)
        elif "name" in data:
            if not isinstance(data["name"], str) or not data["name"].strip():
                raise _invalid("For 'properties/name', it must be a non-empty string.")
            changes["name"] = data["name"]
        status, conclusion = data.get("status"), data.get("conclusion")
        if status is not None and status not in ("queued", "in_progress", "completed"):
            raise _invalid(
                f'For \'properties/status\', "{status}" is not one of ["queued", "in_progress", "completed"].'
            )
        if conclusion is not None and conclusion not in _CONCLUSIONS:
            raise _invalid(
                f"For 'properties/conclusion', \"{conclusion}\" is not one of "
                f"{json.dumps(list(_CONCLUSIONS))}."
            )
        if conclusion is not None:
            status = "completed"  # GitHub: providing a conclusion sets the status to completed
        has_conclusion = conclusion is not None or (run is not None and run["conclusion"] is not None)
        if (status == "completed" or data.get("completed_at")) and not has_conclusion:
            raise _invalid(
                '`conclusion` is required when `status` is "completed" or `completed_at` is given.'
            )
        if status is not None:
            changes["status"] = status
        if conclusion is not None:
            changes["conclusion"] = conclusion
        for key in ("details_url", "external_id", "started_at", "completed_at"):
            if key in data:
                changes[key] = data[key]
        if "output" in data:
            changes["output"] = self._validate_output(data["output"], creating=run is None)
        if "actions" in data:
            changes["actions"] = self._validate_actions(data["actions"])
        return changes

    def _validate_output(self, output: Any, creating: bool) -> dict:
        if not isinstance(output, dict):
            raise _invalid("For 'properties/output', it is not an object.")
        if creating and not isinstance(output.get("title"), str):
            raise _invalid("`title` is a required property of `output`.")
        if not isinstance(output.get("summary"), str):
            raise _invalid("`summary` is a required property of `output`.")
        for key in ("summary", "text"):
            value = output.get(key)
            if isinstance(value, str) and len(value) > 65535:
                raise _too_long(len(value))
            if isinstance(value, str) and len(value.encode("utf-8")) > 65535:
                raise _too_big(key)
        annotations = output.get("annotations") or []
        if not isinstance(annotations, list):
            raise _invalid("For 'properties/annotations', it is not an array.")
        if len(annotations) > 50:
            raise _invalid(f"Only 50 annotations are allowed per request; {len(annotations)} were supplied.")
        for i, a in enumerate(annotations):
            where = f"annotations[{i}]"
            if not isinstance(a, dict):
                raise _invalid(f"For '{where}', it is not an object.")
            for key in ("path", "start_line", "end_line", "annotation_level", "message"):
                if key not in a or a[key] is None:
                    raise _invalid(f"`{key}` is a required property of `{where}`.")
            if (
                not isinstance(a["start_line"], int)
                or not isinstance(a["end_line"], int)
                or a["start_line"] < 1
            ):
                raise _invalid(f"For '{where}', start_line and end_line must be positive integers.")
            if a["end_line"] < a["start_line"]:
                raise _invalid(f"For '{where}', end_line must not come before start_line.")
            if a["annotation_level"] not in _LEVELS:
                raise _invalid(
                    f"For '{where}/annotation_level', \"{a['annotation_level']}\" is not one of "
                    '["notice", "warning", "failure"].'
                )
            if ("start_column" in a or "end_column" in a) and a["start_line"] != a["end_line"]:
                raise _invalid(f"For '{where}', columns are only allowed when start_line equals end_line.")
            if len(str(a["message"])) > 65535 or len(str(a.get("raw_details") or "")) > 65535:
                raise _too_long(max(len(str(a["message"])), len(str(a.get("raw_details") or ""))))
            for key in ("message", "raw_details"):  # "The maximum size is 64 KB."
                if len(str(a.get(key) or "").encode("utf-8")) > 64 * 1024:
                    raise _too_big(f"{where}/{key}", 64 * 1024)
            if len(str(a.get("title") or "")) > 255:
                raise _too_long(len(str(a["title"])), 255)
        return {
            "title": output.get("title"),
            "summary": output["summary"],
            "text": output.get("text"),
            "annotations": [dict(a) for a in annotations],
        }

    @staticmethod
    def _validate_actions(actions: Any) -> list[dict]:
        if not isinstance(actions, list):
            raise _invalid("For 'properties/actions', it is not an array.")
        if len(actions) > 3:
            raise _invalid(f"Only 3 actions are allowed; {len(actions)} were supplied.")
        for i, action in enumerate(actions):
            if not isinstance(action, dict):
                raise _invalid(f"For 'actions[{i}]', it is not an object.")
            for key, limit in (("label", 20), ("description", 40), ("identifier", 20)):
                value = action.get(key)
                if not isinstance(value, str) or not value:
                    raise _invalid(f"`{key}` is a required property of `actions[{i}]`.")
                if len(value) > limit:
                    raise _too_long(len(value), limit)
        return [dict(a) for a in actions]

    def _h_create_check_run(self, req: _Req):
        changes = self._validate_check(req.json(), None)
        now = _iso()
        run = {
            "id": self._next_id(),
            "name": changes["name"],
            "head_sha": changes["head_sha"],
            "status": changes.get("status", "queued"),
            "conclusion": changes.get("conclusion"),
            "details_url": changes.get("details_url"),
            "external_id": changes.get("external_id", ""),
            "started_at": changes.get("started_at", now),
            "completed_at": None,
            "output": {"title": None, "summary": None, "text": None, "annotations": []},
            "actions": changes.get("actions", []),
        }
        if "output" in changes:
            run["output"] = changes["output"]
        if run["status"] == "completed":
            run["completed_at"] = changes.get("completed_at", now)
        self.check_runs.append(run)
        return 201, self._check_json(run)

    def _h_update_check_run(self, req: _Req):
        run = self._check_run(req.params["id"])
        changes = self._validate_check(req.json(), run)
        output = changes.pop("output", None)
        for key, value in changes.items():
            run[key] = value
        if output is not None:
            run["output"]["title"] = output["title"] or run["output"]["title"]
            run["output"]["summary"] = output["summary"]
            if output["text"] is not None:
                run["output"]["text"] = output["text"]
            run["output"]["annotations"].extend(output["annotations"])
        if run["status"] == "completed" and run["completed_at"] is None:
            run["completed_at"] = _iso()
        return 200, self._check_json(run)

    def _h_get_check_run(self, req: _Req):
        return 200, self._check_json(self._check_run(req.params["id"]))

    def _h_check_annotations(self, req: _Req):
        run = self._check_run(req.params["id"])
        blob = f"{self.html}/{self.owner}/{self.name}/blob/{run['head_sha']}"
        items = [
            {
                "path": a["path"],
                "start_line": a["start_line"],
                "end_line": a["end_line"],
                "start_column": a.get("start_column"),
                "end_column": a.get("end_column"),
                "annotation_level": a["annotation_level"],
                "title": a.get("title"),
                "message": a["message"],
                "raw_details": a.get("raw_details"),
                "blob_href": f"{blob}/{quote(a['path'])}",
            }
            for a in run["output"]["annotations"]
        ]
        return self._paginate(req, items)

    def _h_list_check_runs(self, req: _Req):
        sha = self.repo.resolve(req.params["ref"])
        if sha is None:
            raise _HTTPError(422, f"No commit found for SHA: {req.params['ref']}")
        runs = [r for r in self.check_runs if r["head_sha"] == sha]
        if "check_name" in req.query:
            runs = [r for r in runs if r["name"] == req.query["check_name"]]
        if "status" in req.query:
            runs = [r for r in runs if r["status"] == req.query["status"]]
        if req.query.get("filter", "latest") == "latest":
            latest: dict[str, dict] = {}
            for r in runs:
                latest[r["name"]] = r
            runs = list(latest.values())
        runs = sorted(runs, key=lambda r: -r["id"])
        status, page, headers = self._paginate(req, runs)
        return status, {"total_count": len(runs), "check_runs": [self._check_json(r) for r in page]}, headers

    # -- reviews --------------------------------------------------------------------------------

    def _review_json(self, review: dict) -> dict:
        return {k: v for k, v in review.items() if k not in ("comments", "pull_number")}

    def _comment_json(self, c: dict) -> dict:
        out = {k: v for k, v in c.items() if k != "pull_number"}
        if "reactions" in out:
            out["reactions"] = self._reaction_summary(out["reactions"]["url"], out["id"])
        return out

    def _pr_commit(self, pr: _Pull, commit_id: Any) -> str:
        if commit_id is None:
            return pr.head_sha
        sha = self.repo.resolve(commit_id) if isinstance(commit_id, str) else None
        if sha is None:
            raise _unprocessable(f"No commit found for SHA: {commit_id}")
        mb = self.repo.merge_base(pr.base_sha, pr.head_sha)
        if sha != pr.head_sha and not (
            self.repo.is_ancestor(sha, pr.head_sha) and not self.repo.is_ancestor(sha, mb)
        ):
            raise _unprocessable("Pull request review thread commit_oid is not part of the pull request")
        return sha

    def _place(self, pr: _Pull, commit: str, c: dict) -> dict:
        """Where comment `c` lands in the PR's diff at `commit`, or the 422 GitHub gives."""
        if not isinstance(c, dict) or not isinstance(c.get("path"), str):
            raise _invalid("`path` is a required property of each comment.")
        if not isinstance(c.get("body"), str):
            raise _invalid("`body` is a required property of each comment.")
        if len(c["body"]) > 65536:
            raise _unprocessable("Body is too long (maximum is 65536 characters)")
        files, _ = self.repo.diff(pr.base_sha, commit)
        fdiff = next((f for f in files if f.filename == c["path"]), None)
        if fdiff is None:
            raise _unprocessable("Pull request review thread path is invalid")
        if c.get("subject_type") == "file":
            return {
                "path": c["path"],
                "subject_type": "file",
                "diff_hunk": fdiff.patch or "",
                "position": None,
                "line": None,
                "side": None,
                "start_line": None,
                "start_side": None,
            }
        if not fdiff.hunks:
            raise _unprocessable("Pull request review thread diff hunk can't be blank")
        if c.get("line") is None and c.get("position") is not None:
            found = fdiff.at_position(c["position"]) if isinstance(c["position"], int) else None
            if found is None:
                raise _unprocessable("Pull request review thread line must be part of the diff")
            hunk, dl = found
            side = "LEFT" if dl.kind == "-" else "RIGHT"
            line = dl.old if side == "LEFT" else dl.new
            start = None
        else:
            line, side = c.get("line"), c.get("side") or "RIGHT"
            if side not in ("LEFT", "RIGHT"):
                raise _invalid(f'For \'side\', "{side}" is not one of ["LEFT", "RIGHT"].')
            if not isinstance(line, int):
                raise _unprocessable("Pull request review thread line must be part of the diff")
            found = fdiff.find(side, line)
            if found is None:
                raise _unprocessable("Pull request review thread line must be part of the diff")
            hunk, dl = found
            start = None
            if c.get("start_line") is not None:
                start_side = c.get("start_side")
                start_line = c["start_line"]
                if start_side not in ("LEFT", "RIGHT") or not isinstance(start_line, int):
                    raise _unprocessable("pull_request_review_thread.start_line must precede the end line.")
                start = fdiff.find(start_side, start_line)
                if start is not None and start[1].position >= dl.position:
                    raise _unprocessable("pull_request_review_thread.start_line must precede the end line.")
                if start is None or start[0].index != hunk.index:
                    raise _unprocessable(
                        "Pull request review thread start line must be part of the same hunk as the line"
                    )
                start = (start_line, start_side)
        upto = dl.position - hunk.header_position
        return {
            "path": c["path"],
            "subject_type": "line",
            "diff_hunk": "\n".join(hunk.text_lines[: upto + 1]),
            "position": dl.position,
            "line": line,
            "side": side,
            "start_line": start[0] if start else None,
            "start_side": start[1] if start else None,
        }

    def _new_review_comment(
        self, pr: _Pull, review_id: int, commit: str, place: dict, body: str, reply_to: int | None = None
    ) -> dict:
        cid = self._next_id()
        now = _iso()
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        html = f"{self.html}/{self.owner}/{self.name}/pull/{pr.number}#discussion_r{cid}"
        comment = {
            "url": f"{api}/pulls/comments/{cid}",
            "pull_request_review_id": review_id,
            "id": cid,
            "node_id": f"PRRC_kwDO{cid}",
            "diff_hunk": place["diff_hunk"],
            "path": place["path"],
            "position": place["position"],
            "original_position": place["position"],
            "commit_id": commit,
            "original_commit_id": commit,
            "user": self._bot(),
            "body": body,
            "created_at": now,
            "updated_at": now,
            "html_url": html,
            "pull_request_url": f"{api}/pulls/{pr.number}",
            "author_association": "NONE",
            "_links": {
                "self": {"href": f"{api}/pulls/comments/{cid}"},
                "html": {"href": html},
                "pull_request": {"href": f"{api}/pulls/{pr.number}"},
            },
            "start_line": place["start_line"],
            "original_start_line": place["start_line"],
            "start_side": place["start_side"],
            "line": place["line"],
            "original_line": place["line"],
            "side": place["side"],
            "subject_type": place["subject_type"],
            "pull_number": pr.number,
        }
        if reply_to is not None:
            comment["in_reply_to_id"] = reply_to
        self.review_comments.append(comment)
        return comment

    def _new_review(self, pr: _Pull, commit: str, body: str, state: str) -> dict:
        rid = self._next_id()
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        html = f"{self.html}/{self.owner}/{self.name}/pull/{pr.number}#pullrequestreview-{rid}"
        review = {
            "id": rid,
            "node_id": f"PRR_kwDO{rid}",
            "user": self._bot(),
            "body": body,
            "state": state,
            "html_url": html,
            "pull_request_url": f"{api}/pulls/{pr.number}",
            "_links": {"html": {"href": html}, "pull_request": {"href": f"{api}/pulls/{pr.number}"}},
            "submitted_at": None if state == "PENDING" else _iso(),
            "commit_id": commit,
            "author_association": "NONE",
            "comments": [],
            "pull_number": pr.number,
        }
        self.reviews.append(review)
        return review

    def _h_create_review(self, req: _Req):
        pr = self._pull(req.params["n"])
        data = req.json()
        event, body, comments = data.get("event"), data.get("body") or "", data.get("comments") or []
        states = {
            "COMMENT": "COMMENTED",
            "APPROVE": "APPROVED",
            "REQUEST_CHANGES": "CHANGES_REQUESTED",
            None: "PENDING",
        }
        if event not in states:
            raise _invalid(
                f'For \'properties/event\', "{event}" is not one of ["APPROVE", "REQUEST_CHANGES", '
                '"COMMENT"].'
            )
        if not isinstance(body, str) or not isinstance(comments, list):
            raise _invalid("`body` must be a string and `comments` an array.")
        if len(body) > 65536:
            raise _unprocessable("Body is too long (maximum is 65536 characters)")
        if event == "REQUEST_CHANGES" and not body.strip():
            raise _unprocessable("Body can't be blank when requesting changes")
        if event == "COMMENT" and not body.strip() and not comments:
            raise _unprocessable("Review body can't be blank when commenting without review comments")
        if event is None and any(
            r["pull_number"] == pr.number and r["state"] == "PENDING" for r in self.reviews
        ):
            raise _unprocessable("User can only have one pending review per pull request")
        commit = self._pr_commit(pr, data.get("commit_id"))
        placed, errors = [], []
        for c in comments:
            if isinstance(c, dict) and "subject_type" in c:
                raise _invalid(
                    "`subject_type` is not a property of review comments; use the single comment call."
                )
            try:
                placed.append((self._place(pr, commit, c), c["body"]))
            except _HTTPError as err:
                if "errors" not in err.body:
                    raise
                errors += [e for e in err.body["errors"] if e not in errors]
        if errors:
            raise _unprocessable(*errors)  # one bad comment fails the whole review
        review = self._new_review(pr, commit, body, states[event])
        for place, text in placed:
            review["comments"].append(self._new_review_comment(pr, review["id"], commit, place, text))
        return 200, self._review_json(review)

    def _h_list_reviews(self, req: _Req):
        pr = self._pull(req.params["n"])
        reviews = [self._review_json(r) for r in self.reviews if r["pull_number"] == pr.number]
        return self._paginate(req, reviews)

    def _visible_comments(self, number: int) -> list[dict]:
        pending = {r["id"] for r in self.reviews if r["state"] == "PENDING"}
        return [
            c
            for c in self.review_comments
            if c["pull_number"] == number and c["pull_request_review_id"] not in pending
        ]

    def _h_list_review_comments(self, req: _Req):
        pr = self._pull(req.params["n"])
        return self._paginate(req, [self._comment_json(c) for c in self._visible_comments(pr.number)])

    def _review_comment(self, cid: str | int) -> dict:
        for c in self.review_comments:
            if c["id"] == int(cid):
                return c
        raise _HTTPError(404, "Not Found")

    def _reply(self, pr: _Pull, parent: dict, body: Any) -> dict:
        if not isinstance(body, str) or not body:
            raise _invalid("`body` is a required property.")
        if len(body) > 65536:
            raise _unprocessable("Body is too long (maximum is 65536 characters)")
        if parent.get("in_reply_to_id") is not None:
            raise _unprocessable("Replies to replies are not supported; reply to the thread's first comment")
        place = {
            k: parent[k]
            for k in (
                "path",
                "diff_hunk",
                "position",
                "line",
                "side",
                "start_line",
                "start_side",
                "subject_type",
            )
        }
        review = self._new_review(pr, parent["commit_id"], "", "COMMENTED")
        comment = self._new_review_comment(pr, review["id"], parent["commit_id"], place, body, parent["id"])
        review["comments"].append(comment)
        return comment

    def _h_create_review_comment(self, req: _Req):
        pr = self._pull(req.params["n"])
        data = req.json()
        if data.get("in_reply_to") is not None:
            parent = self._review_comment(data["in_reply_to"])
            return 201, self._comment_json(self._reply(pr, parent, data.get("body")))
        if not isinstance(data.get("commit_id"), str):
            raise _invalid("`commit_id` is a required property.")
        commit = self._pr_commit(pr, data["commit_id"])
        place = self._place(pr, commit, data)
        review = self._new_review(pr, commit, "", "COMMENTED")
        comment = self._new_review_comment(pr, review["id"], commit, place, data["body"])
        review["comments"].append(comment)
        return 201, self._comment_json(comment)

    def _h_get_review_comment(self, req: _Req):
        return 200, self._comment_json(self._review_comment(req.params["id"]))

    def _h_update_review_comment(self, req: _Req):
        comment = self._review_comment(req.params["id"])
        body = req.json().get("body")
        if not isinstance(body, str) or not body:
            raise _invalid("`body` is a required property.")
        if len(body) > 65536:
            raise _unprocessable("Body is too long (maximum is 65536 characters)")
        comment["body"] = body
        comment["updated_at"] = _iso()
        return 200, self._comment_json(comment)

    def _h_reply(self, req: _Req):
        pr = self._pull(req.params["n"])
        parent = self._review_comment(req.params["id"])
        if parent["pull_number"] != pr.number:
            raise _HTTPError(404, "Not Found")
        return 201, self._comment_json(self._reply(pr, parent, req.json().get("body")))

    # -- issue comments and reactions -----------------------------------------------------------

    def _issue_comment(self, cid: str | int) -> dict:
        for c in self.issue_comments:
            if c["id"] == int(cid):
                return c
        raise _HTTPError(404, "Not Found")

    def _new_issue_comment(self, pr: _Pull, body: str, login: str) -> dict:
        cid = self._next_id()
        now = _iso()
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        comment = {
            "id": cid,
            "node_id": f"IC_kwDO{cid}",
            "url": f"{api}/issues/comments/{cid}",
            "html_url": f"{self.html}/{self.owner}/{self.name}/pull/{pr.number}#issuecomment-{cid}",
            "body": body,
            "user": self._user(login),
            "created_at": now,
            "updated_at": now,
            "issue_url": f"{api}/issues/{pr.number}",
            "author_association": self._association(login),
            "performed_via_github_app": self._integration() if login == self.bot_login else None,
            "reactions": self._reaction_summary(f"{api}/issues/comments/{cid}/reactions", cid),
            "pull_number": pr.number,
        }
        self.issue_comments.append(comment)
        return self._comment_json(comment)

    def _reaction_summary(self, url: str, cid: int) -> dict:
        summary: dict[str, Any] = {"url": url, "total_count": 0, **dict.fromkeys(_REACTIONS, 0)}
        for r in self.reactions:
            if r["comment_id"] == cid:
                summary[r["content"]] += 1
                summary["total_count"] += 1
        return summary

    @staticmethod
    def _check_body(body: Any) -> str:
        if not isinstance(body, str) or not body:
            raise _invalid("`body` is a required property.")
        if len(body) > 65536:
            raise _HTTPError(
                422,
                "Validation Failed",
                [
                    {
                        "resource": "IssueComment",
                        "code": "unprocessable",
                        "field": "data",
                        "message": "Body is too long (maximum is 65536 characters)",
                    }
                ],
            )
        return body

    def _h_list_issue_comments(self, req: _Req):
        pr = self._pull(req.params["n"])
        comments = [self._comment_json(c) for c in self.issue_comments if c["pull_number"] == pr.number]
        if "since" in req.query:
            comments = [c for c in comments if c["updated_at"] >= req.query["since"]]
        return self._paginate(req, comments)

    def _h_create_issue_comment(self, req: _Req):
        pr = self._pull(req.params["n"])
        return 201, self._new_issue_comment(pr, self._check_body(req.json().get("body")), self.bot_login)

    def _h_get_issue_comment(self, req: _Req):
        return 200, self._comment_json(self._issue_comment(req.params["id"]))

    def _h_update_issue_comment(self, req: _Req):
        comment = self._issue_comment(req.params["id"])
        comment["body"] = self._check_body(req.json().get("body"))
        comment["updated_at"] = _iso()
        return 200, self._comment_json(comment)

    def _h_delete_issue_comment(self, req: _Req):
        comment = self._issue_comment(req.params["id"])
        self.issue_comments.remove(comment)
        return 204, None

    def _react(self, req: _Req, subject: str, comment_id: int):
        content = req.json().get("content")
        if content not in _REACTIONS:
            raise _HTTPError(
                422,
                "Validation Failed",
                [
                    {
                        "resource": "Reaction",
                        "code": "custom",
                        "field": "content",
                        "message": f"content {content!r} is not included in the list",
                    }
                ],
            )
        for r in self.reactions:
            if (
                r["comment_id"] == comment_id
                and r["content"] == content
                and r["user"]["login"] == self.bot_login
            ):
                return 200, self._comment_json(r)
        rid = self._next_id()
        reaction = {
            "id": rid,
            "node_id": f"REA_lADO{rid}",
            "user": self._bot(),
            "content": content,
            "created_at": _iso(),
            "subject": subject,
            "comment_id": comment_id,
        }
        self.reactions.append(reaction)
        return 201, {k: v for k, v in reaction.items() if k not in ("subject", "comment_id")}

    def _h_issue_reaction(self, req: _Req):
        return self._react(req, "issue_comment", self._issue_comment(req.params["id"])["id"])

    def _h_review_reaction(self, req: _Req):
        return self._react(req, "review_comment", self._review_comment(req.params["id"])["id"])

    # -- permissions ----------------------------------------------------------------------------

    def _h_permission(self, req: _Req):
        login = req.params["user"]
        role = self._permissions.get(login)
        if role is None:
            raise _HTTPError(404, "Not Found")
        permission = _PERMISSIONS.get(role, "none")
        levels = ("read", "triage", "write", "maintain", "admin")
        rank = levels.index(role) if role in levels else -1
        user = self._user(login)
        user["permissions"] = {
            "pull": rank >= 0,
            "triage": rank >= 1,
            "push": rank >= 2,
            "maintain": rank >= 3,
            "admin": rank >= 4,
        }
        user["role_name"] = role
        return 200, {"permission": permission, "role_name": role, "user": user}


# ---------------------------------------------------------------------------------------------
# many repositories


class GitHubHost:
    """github.com for many repositories and installations of one App, on one port.

    Each repository is a `GitHubStandIn` of its own (its git fixture, pull requests, check runs,
    reviews, comments, permissions), added with `add_repository` before the host is entered;
    the host routes each request to the repository its path (or its GraphQL query) names. What
    GitHub keeps per App or per installation is shared as GitHub shares it: the App's key,
    object ids (a check run id is unique across repositories), user ids, and the secondary
    rate limit on content creation, counted per installation over all its repositories. An
    installation token reaches only its own installation's repositories (404 elsewhere, as for
    a private repository), and GET /repos/{o}/{r}/installation names the installation a
    repository belongs to.
    """

    def __init__(
        self,
        app_id: int = 1,
        private_key_pem: str | None = None,
        *,
        app_slug: str = "docs-sync",
        content_limit_per_minute: int = 80,
        content_limit_per_hour: int = 500,
    ):
        self.app_id, self.app_slug = app_id, app_slug
        self.private_key_pem = private_key_pem or default_app_key()[0]
        self.content_limit_per_minute = content_limit_per_minute
        self.content_limit_per_hour = content_limit_per_hour
        self.repositories: list[GitHubStandIn] = []
        self.url = ""
        self._by_name: dict[tuple[str, str], GitHubStandIn] = {}
        self._writes: dict[int, deque[float]] = {}  # by installation
        self._ids = iter(range(1_000_001, 2**31))
        self._user_ids: dict[str, int] = {}
        self._serving = _Serving(
            Starlette(
                routes=[
                    Route("/{path:path}", self._endpoint, methods=["GET", "POST", "PATCH", "PUT", "DELETE"])
                ]
            ),
            "github-host",
        )

    def add_repository(
        self, repo_dir: Path, owner: str, name: str, installation_id: int, **options: Any
    ) -> GitHubStandIn:
        """Serve the git repository `repo_dir` as `owner/name`, in installation `installation_id`
        (created with its first repository); `options` are GitHubStandIn's other keywords."""
        if self.url:
            raise RuntimeError("add repositories before entering the host")
        key = (owner.lower(), name.lower())
        if key in self._by_name:
            raise ValueError(f"{owner}/{name} is served already")
        standin = GitHubStandIn(
            repo_dir,
            owner,
            name,
            self.app_id,
            self.private_key_pem,
            installation_id,
            app_slug=self.app_slug,
            content_limit_per_minute=self.content_limit_per_minute,
            content_limit_per_hour=self.content_limit_per_hour,
            repository_id=7000 + 10 * len(self.repositories),
            **options,
        )
        # What GitHub keeps once for the App or the installation, not per repository.
        standin._ids = self._ids
        standin._user_ids = self._user_ids
        standin._writes = self._writes.setdefault(installation_id, deque())
        self.repositories.append(standin)
        self._by_name[key] = standin
        return standin

    def repository(self, owner: str, name: str) -> GitHubStandIn:
        return self._by_name[(owner.lower(), name.lower())]

    def __enter__(self) -> GitHubHost:
        if not self.repositories:
            raise RuntimeError("a host serves at least one repository")
        self.url = self._serving.start()
        for standin in self.repositories:
            standin.url = self.url
        return self

    def __exit__(self, *exc: object) -> None:
        self._serving.stop()

    async def _endpoint(self, request: Request) -> Response:
        body = await request.body()  # kept by the request: the stand-in reads it again
        path = request.url.path
        target: GitHubStandIn | None = None
        if m := re.match(r"/repos/([^/]+)/([^/]+)", path):
            target = self._by_name.get((m.group(1).lower(), m.group(2).lower()))
            if target is None or self._other_installation(request, target):
                return GitHubStandIn._json(404, {"message": "Not Found", "documentation_url": ""})
        elif m := re.match(r"/app/installations/(\d+)", path):
            iid = int(m.group(1))
            target = next((s for s in self.repositories if s.installation_id == iid), None)
        elif path.rstrip("/") == "/graphql":
            target = self._graphql_target(request, body)
        return await (target or self.repositories[0])._endpoint(request)

    def _other_installation(self, request: Request, target: GitHubStandIn) -> bool:
        """A live token of this App minted for another installation than the repository's."""
        installation = self._token_installation(request)
        return installation is not None and installation != target.installation_id

    def _token_installation(self, request: Request) -> int | None:
        """The installation a request's token was minted for (None: no token of this App)."""
        scheme, _, credential = request.headers.get("authorization", "").partition(" ")
        with _ISSUED_LOCK:
            grant = _ISSUED_TOKENS.get(credential.strip())
        if scheme.lower() not in ("token", "bearer") or grant is None or grant[0] != self.app_id:
            return None
        return grant[1]

    def _graphql_target(self, request: Request, body: bytes) -> GitHubStandIn | None:
        """The repository a query names; when it is unknown or not the token's to see, one of the
        token's installation, which answers "Could not resolve to a Repository" as GitHub does."""
        target = None
        try:
            data = json.loads(body)
            query, variables = data["query"], data.get("variables") or {}
            m = GitHubStandIn._GQL_REPO.search(query)
            args = {}
            for k, v in GitHubStandIn._GQL_ARG.findall(m.group(1) if m else ""):
                args[k] = variables.get(v[1:]) if v.startswith("$") else json.loads(v)
            target = self._by_name.get((str(args["owner"]).lower(), str(args["name"]).lower()))
        except (ValueError, KeyError, TypeError, AttributeError):
            pass  # a malformed query: any repository answers it as github.com would
        installation = self._token_installation(request)
        if target is not None and installation in (None, target.installation_id):
            return target
        return next((s for s in self.repositories if s.installation_id == installation), None)
