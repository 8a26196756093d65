"""The GitHub adapter: every REST and GraphQL call docs-sync makes, through githubkit.

One `GitHubApp` per process holds the App's own client (authenticated with the App JWT) and one
client per installation, reused across jobs: the JWT and each installation token are cached
(in the `GitHubApp`, not process-wide) until shortly before they expire. `GitHubApp.repo(...)`
hands out a `Repo`, the calls a job makes on one repository. Every method returns GitHub's JSON
as parsed, typed by shapes.py (TypedDicts of the fields docs-sync reads, never validated):
the callers read it tolerantly, so a field GitHub adds or drops never breaks a model here.

REST version: 2026-03-10, the version githubkit 0.16.1 ships models for (2022-11-28 needs an
extra schema package). Its breaking changes (pulls lose `merge_commit_sha` and `assignee`,
/rate_limit loses `rate`) touch no field docs-sync reads. GitHub Enterprise Server releases
that predate it answer 400 to the header; pin `API_VERSION` to "2022-11-28" for those.

Credentials GitHub refuses are replaced at once: a 401 (a revoked token, an installation
suspended and restored, a token kept past its expiry by a slow clock, a JWT dated by a clock
that is off) drops the cached JWT and the installation's token, mints new ones and retries the
call once. The JWT is dated by GitHub's clock: every answer's `Date` header keeps the offset
from this machine's, so `iat` and `exp` stay inside what GitHub accepts however far off the
local clock is (the first call after a jump is refused, and its answer corrects the next).

Failures are sorted for the worker, which owns the retry policy (githubkit's own retries,
which sleep inside a call for up to an hour, are off):

    5xx, timeouts, connection errors,
    a 401 again with new credentials          -> RetryableError(0): the worker backs off
    403/429 with retry-after or
    x-ratelimit-remaining: 0                  -> RetryableError(retry-after, else reset - now,
                                                 else 60 s)
    429 without those headers, or 403 whose
    message names a rate limit                -> RetryableError(60 s): GitHub's docs say to wait
                                                 at least a minute when no header says how long
    any other 4xx (a plain 403 is a missing
    permission), GraphQL errors               -> GitHubError (status, method, path, message)

Writes (POST, PATCH, PUT, DELETE) to one repository are spaced at least `write_interval_s`
apart, as GitHub asks of integrations; the wait is a sleep in the calling (worker) thread.
Every call that reaches GitHub is counted in `metrics.github_call(status)`, "error" when no
answer came back.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import re
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime
from typing import Any, Final, cast
from urllib.parse import quote

import certifi
import httpx
from githubkit import GitHub
from githubkit.auth.app import AppAuth
from githubkit.exception import (
    GitHubException,
    GraphQLFailed,
    RateLimitExceeded,
    RequestError,
    RequestFailed,
    RequestTimeout,
)

from bot.app.github.auth import AppStrategy, CredentialsStrategy, InstallationStrategy
from bot.app.github.shapes import (
    Blob,
    ChangedFile,
    CheckRun,
    CheckRunList,
    CheckRunUpdate,
    Commit,
    Comparison,
    Delivery,
    GitBlob,
    Installation,
    InstallationRepositories,
    IssueComment,
    NewCheckRun,
    NewCommit,
    NewReview,
    NewTree,
    NewTreeEntry,
    Permission,
    Pull,
    RefUpdate,
    Repository,
    Review,
    ReviewComment,
    ShaRef,
    Tree,
    TreeEntry,
)
from bot.app.metrics import Metrics
from bot.app.queue.worker import RetryableError

log = logging.getLogger(__name__)

API_VERSION: Final = "2026-03-10"
PER_PAGE = 100
MAX_FILE_PAGES = 30  # GitHub lists at most 3,000 files of a pull request
MAX_LIST_PAGES = 10  # open pull requests, review comments: enough for any PR a person reads
GRAPHQL_BATCH = 100  # objects per GraphQL query, well inside GitHub's node limits
TIMEOUT_S = 30.0

_BLOB_FIELDS = "... on Blob { oid byteSize text isBinary isTruncated }"

WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})

# A 403 or 429 that names a rate limit but carries no header saying how long to wait: GitHub
# asks for at least a minute. Other 403s are refusals (a permission the App was not granted).
RATE_LIMIT_WAIT_S = 60.0
_RATE_LIMITED = re.compile(r"rate limit|abuse detection", re.IGNORECASE)
APP_MANIFEST = "app.yml"


class GitHubError(Exception):
    """GitHub refused a call in a way that retrying will not fix."""

    def __init__(self, status: int | None, method: str, what: str, message: str):
        self.status, self.method, self.what, self.message = status, method, what, message
        answer = f"GitHub answered {status}" if status is not None else "GitHub call failed"
        super().__init__(f"{answer} to {method} {what}: {message}")


# -- credentials -------------------------------------------------------------------------------


class GitHubApp:
    """The App's clients: one authenticated as the App, one per installation, shared across jobs."""

    def __init__(
        self,
        app_id: int,
        private_key: str,
        base_url: str,
        metrics: Metrics | None = None,
        *,
        write_interval_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        timeout_s: float = TIMEOUT_S,
    ):
        self.metrics = metrics or Metrics()
        self.write_interval_s = write_interval_s
        self._clock, self._sleep = clock, sleep
        self.app_id, self._private_key = app_id, private_key
        self.clock_offset_s = 0.0  # GitHub's clock minus this machine's, from the last Date header
        self._credentials = CredentialsStrategy()
        self._app = GitHub(
            AppStrategy(app_id, private_key, github_time=self.github_time),
            base_url=base_url,
            cache_strategy=self._credentials,
            auto_retry=False,  # the worker retries, later, without holding a thread asleep
            http_cache=False,  # every GET is needed fresh; revalidation would only add round trips
            timeout=timeout_s,
            event_hooks={"response": [self._count]},
            # One TLS context for every client: githubkit opens a client per job, and loading the
            # CA bundle for each cost half of a typical job's time and native memory that stayed.
            ssl_verify=ssl.create_default_context(cafile=certifi.where()),
        )
        self._installations: dict[int, GitHub[InstallationStrategy]] = {}
        self._installation_of: dict[tuple[str, str], int] = {}
        self._last_write: dict[str, float] = {}
        self._lock = threading.Lock()
        self._sessions = threading.local()

    def _count(self, response: httpx.Response) -> None:
        self.metrics.github_call(response.status_code)
        date = response.headers.get("date")
        if date:
            with contextlib.suppress(TypeError, ValueError):  # not a date: keep the last offset
                self.clock_offset_s = parsedate_to_datetime(date).timestamp() - time.time()

    def github_time(self) -> float:
        """The epoch time on GitHub's clock, as its last answer said (to a second)."""
        return time.time() + self.clock_offset_s

    def _client(self, installation_id: int) -> GitHub[InstallationStrategy]:
        with self._lock:
            gh = self._installations.get(installation_id)
            if gh is None:
                strategy = InstallationStrategy(
                    self.app_id, self._private_key, installation_id, github_time=self.github_time
                )
                gh = self._app.with_auth(strategy)
                self._installations[installation_id] = gh
            return gh

    def forget_credentials(self, installation_id: int | None) -> None:
        """Drop the cached JWT and the installation's token: the next call mints new ones."""
        issuer = str(self.app_id)
        keys = [AppAuth.JWT_CACHE_KEY.format(issuer=issuer)]
        if installation_id is not None:
            keys.append(
                AppAuth.INSTALLATION_CACHE_KEY.format(
                    issuer=issuer,
                    installation_id=installation_id,
                    permissions="",
                    repositories="",
                    repository_ids="",
                )
            )
        self._credentials.credentials.forget(*keys)

    def authorized(
        self,
        installation_id: int | None,
        method: str,
        what: str,
        fn: Callable[..., Any],
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        """`call`, once more with new credentials when GitHub refuses the ones held (401)."""
        try:
            return call(self.metrics, method, what, fn, *args, **kwargs)
        except GitHubError as exc:
            if exc.status != 401:
                raise
            log.warning("GitHub refused the App's credentials (%s); minting new ones", exc)
            self.forget_credentials(installation_id)
        try:
            return call(self.metrics, method, what, fn, *args, **kwargs)
        except GitHubError as exc:
            if exc.status != 401:
                raise
            # GitHub may refuse a token it has just issued for a moment: the worker retries later.
            raise RetryableError(0.0, f"{exc} (refused again with new credentials)") from exc

    def installation_id(self, owner: str, repo: str) -> int:
        """The installation that covers `owner/repo`, asked with the App JWT (remembered)."""
        key = (owner.lower(), repo.lower())
        if key in self._installation_of:
            return self._installation_of[key]
        what = f"/repos/{owner}/{repo}/installation"
        rest = self._app.rest(API_VERSION)
        fn = rest.apps.get_repo_installation
        data = cast(Installation, self.authorized(None, "GET", what, fn, owner, repo).json())
        self._installation_of[key] = int(data["id"])
        return self._installation_of[key]

    # -- the App's own: installations and the webhook's deliveries (bot.app.jobs.recovery) ---------------

    def installations(self) -> list[int]:
        """The ids of the App's installations (App JWT), at most MAX_LIST_PAGES pages."""
        rest = self._app.rest(API_VERSION)
        ids: list[int] = []
        for page in range(1, MAX_LIST_PAGES + 1):
            fn = rest.apps.list_installations
            response = self.authorized(None, "GET", "/app/installations", fn, per_page=PER_PAGE, page=page)
            ids += [int(i["id"]) for i in cast(list[Installation], response.json())]
            if not _has_next(response):
                break
        return ids

    def installation_repositories(self, installation_id: int, page: int) -> tuple[list[Repository], bool]:
        """One page of the repositories an installation reaches, and whether more follow."""
        rest = self._client(installation_id).rest(API_VERSION)
        fn = rest.apps.list_repos_accessible_to_installation
        what = "/installation/repositories"
        response = self.authorized(installation_id, "GET", what, fn, per_page=PER_PAGE, page=page)
        data = cast(InstallationRepositories, response.json())
        return list(data.get("repositories") or []), _has_next(response)

    def hook_deliveries(self, max_pages: int) -> Iterator[Delivery]:
        """The App webhook's deliveries, newest first (App JWT; GitHub pages them by cursor)."""
        rest = self._app.rest(API_VERSION)
        cursor: str | None = None
        for _ in range(max_pages):
            kw: dict[str, Any] = {"per_page": PER_PAGE}
            if cursor:
                kw["cursor"] = cursor
            what = "/app/hook/deliveries"
            response = self.authorized(None, "GET", what, rest.apps.list_webhook_deliveries, **kw)
            yield from cast(list[Delivery], response.json())
            m = _NEXT_CURSOR.search(response.headers.get("link", ""))
            if m is None:
                return
            cursor = m.group(1)

    def redeliver(self, delivery_id: int) -> None:
        """Ask GitHub to send delivery `delivery_id` again (same guid); 202 on GitHub's side."""
        fn = self._app.rest(API_VERSION).apps.redeliver_webhook_delivery
        self.authorized(None, "POST", f"/app/hook/deliveries/{delivery_id}/attempts", fn, delivery_id)

    def repo(self, installation_id: int, owner: str, repo: str) -> Repo:
        return Repo(self, self._client(installation_id), installation_id, owner, repo)

    @contextlib.contextmanager
    def session(self, installation_id: int) -> Iterator[None]:
        """Keep one HTTP connection open for the calls of one job (nested sessions share it)."""
        depth = getattr(self._sessions, "depth", 0)
        if depth:
            self._sessions.depth = depth + 1
            try:
                yield
            finally:
                self._sessions.depth -= 1
            return
        gh = self._client(installation_id)
        self._sessions.depth = 1
        try:
            with gh:
                yield
        finally:
            self._sessions.depth = 0

    # -- write spacing ------------------------------------------------------------------------

    def _before_write(self, repo: str) -> None:
        with self._lock:
            last = self._last_write.get(repo)
        if last is None or self.write_interval_s <= 0:
            return
        wait = last + self.write_interval_s - self._clock()
        if wait > 0:
            self._sleep(wait)

    def _after_write(self, repo: str) -> None:
        with self._lock:
            self._last_write[repo] = self._clock()


def call(metrics: Metrics, method: str, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run one githubkit call, turning its failures into RetryableError or GitHubError."""
    try:
        return fn(*args, **kwargs)
    except GitHubException as exc:
        if _no_answer(exc):
            metrics.github_call("error")  # nothing came back for the response hook to count
        raise _translate(exc, method, what) from exc


def _unwrap(exc: GitHubException) -> GitHubException:
    # A failure inside githubkit's auth flow (the installation token exchange) arrives wrapped
    # in a plain RequestError; the inner error says what happened.
    while type(exc) is RequestError and isinstance(exc.exc, GitHubException):
        exc = exc.exc
    return exc


def _no_answer(exc: GitHubException) -> bool:
    inner = _unwrap(exc)
    return isinstance(inner, RequestTimeout) or (
        type(inner) is RequestError and isinstance(inner.exc, httpx.TransportError)
    )


def _translate(exc: GitHubException, method: str, what: str) -> Exception:
    exc = _unwrap(exc)
    if isinstance(exc, RateLimitExceeded):
        seconds = max(0.0, exc.retry_after.total_seconds())
        return RetryableError(seconds, f"GitHub rate limit on {method} {what}; retry in {seconds:.0f}s")
    if isinstance(exc, RequestFailed):
        status = exc.response.status_code
        message = _error_message(exc.response.raw_response)
        if status >= 500:
            return RetryableError(0.0, f"GitHub answered {status} to {method} {what}: {message}")
        if status == 429 or (status == 403 and _RATE_LIMITED.search(message)):
            return RetryableError(
                RATE_LIMIT_WAIT_S, f"GitHub rate limit on {method} {what} ({status}: {message})"
            )
        if status == 403:
            message += f"; the App may lack a permission this call needs (compare with {APP_MANIFEST})"
        return GitHubError(status, method, what, message)
    if isinstance(exc, RequestTimeout):
        return RetryableError(0.0, f"GitHub did not answer {method} {what} in time")
    if isinstance(exc, RequestError) and isinstance(exc.exc, httpx.TransportError):
        return RetryableError(0.0, f"cannot reach GitHub for {method} {what}: {exc.exc!r}")
    if isinstance(exc, GraphQLFailed):
        errors = exc.response.errors or []
        message = "; ".join(e.message for e in errors) or "GraphQL query failed"
        return GitHubError(None, method, what, message)
    return GitHubError(None, method, what, repr(exc))


def _error_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    if not isinstance(data, dict):
        return str(data)[:300]
    message = str(data.get("message") or response.reason_phrase)
    details = []
    for e in data.get("errors") or []:
        details.append(e if isinstance(e, str) else str(e.get("message") or e.get("code") or e))
    return f"{message} ({'; '.join(details)})" if details else message


_NEXT_CURSOR = re.compile(r'<[^>]*[?&]cursor=([^&>]+)[^>]*>;\s*rel="next"')


def _has_next(response: Any) -> bool:
    return 'rel="next"' in response.headers.get("link", "")


class Repo:
    """The calls a job makes on one repository, as one installation."""

    def __init__(
        self, app: GitHubApp, gh: GitHub[InstallationStrategy], installation_id: int, owner: str, name: str
    ):
        self._app, self._gh, self.installation_id = app, gh, installation_id
        self.owner, self.name = owner, name
        self.full_name = f"{owner}/{name}"
        self._rest = gh.rest(API_VERSION)

    def public(self, owner: str, name: str) -> Repo:
        """Another repository through this installation's client: a public one (a rule's sister
        project) is read with any token, as github.com reads it."""
        return Repo(self._app, self._gh, self.installation_id, owner, name)

    def _call(self, method: str, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        write = method in WRITE_METHODS
        if write:
            self._app._before_write(self.full_name)
        try:
            return self._app.authorized(
                self.installation_id, method, f"/repos/{self.full_name}{what}", fn, *args, **kwargs
            )
        finally:
            if write:
                self._app._after_write(self.full_name)

    def _pages(
        self, what: str, max_pages: int, fn: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> list[Any]:
        """The items of up to `max_pages` pages of `fn(*args, **kwargs)`, PER_PAGE a page, as
        parsed JSON (the caller names their shape)."""
        items: list[Any] = []
        for page in range(1, max_pages + 1):
            response = self._call("GET", what, fn, *args, **kwargs, per_page=PER_PAGE, page=page)
            items.extend(response.json())
            if not _has_next(response):
                break
        return items

    # -- pull requests --------------------------------------------------------------------------

    def pull(self, number: int) -> Pull:
        fn = self._rest.pulls.get
        return cast(Pull, self._call("GET", f"/pulls/{number}", fn, self.owner, self.name, number).json())

    def pulls_of_commit(self, sha: str) -> list[Pull]:
        fn = self._rest.repos.list_pull_requests_associated_with_commit
        what = f"/commits/{sha}/pulls"
        return cast(list[Pull], self._call("GET", what, fn, self.owner, self.name, sha).json())

    def open_pulls(self) -> list[Pull]:
        fn = self._rest.pulls.list
        return cast(
            list[Pull], self._pages("/pulls", MAX_LIST_PAGES, fn, self.owner, self.name, state="open")
        )

    def pull_files(self, number: int) -> list[ChangedFile]:
        """The files of a pull request as GitHub lists them: at most 3,000."""
        fn = self._rest.pulls.list_files
        what = f"/pulls/{number}/files"
        return cast(list[ChangedFile], self._pages(what, MAX_FILE_PAGES, fn, self.owner, self.name, number))

    def merge_base(self, base: str, head: str) -> str:
        """The merge base of two commits, the base side of GitHub's diff of `base...head`.

        One commit per page keeps the answer small; the file list comes with the first page anyway.
        """
        fn = self._rest.repos.compare_commits
        what = f"/compare/{base}...{head}"
        response = self._call("GET", what, fn, self.owner, self.name, f"{base}...{head}", per_page=1)
        return str(cast(Comparison, response.json())["merge_base_commit"]["sha"])

    # -- contents -------------------------------------------------------------------------------

    def blobs(self, expressions: list[str]) -> list[Blob | None]:
        """Blobs named by "REV:path" expressions, in one GraphQL query per 100.

        Each answer is {"oid", "byteSize", "text", "isBinary", "isTruncated"}, or None where the
        expression names nothing (or a tree).
        """
        out: list[Blob | None] = []
        for start in range(0, len(expressions), GRAPHQL_BATCH):
            batch = expressions[start : start + GRAPHQL_BATCH]
            fields = "\n".join(
                f"    f{i}: object(expression: {_gql_string(e)}) {{ {_BLOB_FIELDS} }}"
                for i, e in enumerate(batch)
            )
            query = (
                "query($owner: String!, $name: String!) {\n"
                "  repository(owner: $owner, name: $name) {\n" + fields + "\n  }\n}"
            )
            variables = {"owner": self.owner, "name": self.name}
            data = self._app.authorized(
                self.installation_id, "POST", "/graphql", self._gh.graphql.request, query, variables
            )
            found = cast(dict[str, Any], (data or {}).get("repository") or {})
            for i in range(len(batch)):
                obj = found.get(f"f{i}")
                out.append(cast(Blob, obj) if isinstance(obj, dict) and obj.get("oid") else None)
        return out

    def blob_bytes(self, oid: str) -> bytes:
        """A blob by its SHA, for one GraphQL gave back truncated."""
        fn = self._rest.git.get_blob
        data = cast(GitBlob, self._call("GET", f"/git/blobs/{oid}", fn, self.owner, self.name, oid).json())
        return base64.b64decode(data.get("content") or "")

    def commits(self, sha: str, path: str, per_page: int) -> list[Commit]:
        """The newest `per_page` commits of `sha`'s history that changed `path` (a file or folder)."""
        fn = self._rest.repos.list_commits
        response = self._call(
            "GET", "/commits", fn, self.owner, self.name, sha=sha, path=path, per_page=per_page
        )
        return list(cast(list[Commit], response.json()))

    def commit(self, sha: str) -> Commit:
        """One commit with its files (their patches) as GitHub lists them: at most 300."""
        fn = self._rest.repos.get_commit
        return cast(Commit, self._call("GET", f"/commits/{sha}", fn, self.owner, self.name, sha).json())

    def tree(self, sha: str) -> tuple[list[TreeEntry], bool]:
        """Every entry of the commit's tree (path, type), and whether GitHub truncated the list."""
        fn = self._rest.git.get_tree
        response = self._call("GET", f"/git/trees/{sha}", fn, self.owner, self.name, sha, recursive="1")
        data = cast(Tree, response.json())
        return list(data.get("tree") or []), bool(data.get("truncated"))

    def create_commit(self, parent: str, message: str, files: dict[str, str]) -> str:
        """One commit on `parent` writing `files` (path -> text), on no branch yet: its SHA."""
        git = self._rest.git
        o, n = self.owner, self.name
        base = self.commit(parent)
        entries = [NewTreeEntry(path=p, mode="100644", type="blob", content=t) for p, t in files.items()]
        new_tree = NewTree(base_tree=base["commit"]["tree"]["sha"], tree=entries)
        tree = cast(ShaRef, self._call("POST", "/git/trees", git.create_tree, o, n, data=new_tree).json())
        new_commit = NewCommit(message=message, tree=tree["sha"], parents=[parent])
        commit = cast(
            ShaRef, self._call("POST", "/git/commits", git.create_commit, o, n, data=new_commit).json()
        )
        return str(commit["sha"])

    def move_branch(self, branch: str, sha: str) -> None:
        """Move `branch` to commit `sha` only as a fast-forward: GitHub refuses (422) otherwise."""
        ref = "heads/" + quote(branch, safe="/")
        body = RefUpdate(sha=sha, force=False)
        fn = self._rest.git.update_ref
        self._call("PATCH", f"/git/refs/{ref}", fn, self.owner, self.name, ref, data=body)

    # -- checks ---------------------------------------------------------------------------------

    def create_check_run(self, body: NewCheckRun) -> CheckRun:
        fn = self._rest.checks.create
        return cast(CheckRun, self._call("POST", "/check-runs", fn, self.owner, self.name, data=body).json())

    def check_runs(self, sha: str, name: str) -> list[CheckRun]:
        """Every check run called `name` on commit `sha` (all of them, not only the latest)."""
        fn = self._rest.checks.list_for_ref
        what = f"/commits/{sha}/check-runs"
        response = self._call(
            "GET", what, fn, self.owner, self.name, sha, check_name=name, filter_="all", per_page=PER_PAGE
        )
        return list(cast(CheckRunList, response.json()).get("check_runs") or [])

    def update_check_run(self, run_id: int, body: CheckRunUpdate) -> CheckRun:
        fn = self._rest.checks.update
        what = f"/check-runs/{run_id}"
        return cast(CheckRun, self._call("PATCH", what, fn, self.owner, self.name, run_id, data=body).json())

    # -- reviews and comments -------------------------------------------------------------------

    def create_review(self, number: int, body: NewReview) -> Review:
        fn = self._rest.pulls.create_review
        what = f"/pulls/{number}/reviews"
        return cast(Review, self._call("POST", what, fn, self.owner, self.name, number, data=body).json())

    def review_comments(self, number: int) -> list[ReviewComment]:
        fn = self._rest.pulls.list_review_comments
        what = f"/pulls/{number}/comments"
        return cast(list[ReviewComment], self._pages(what, MAX_LIST_PAGES, fn, self.owner, self.name, number))

    def update_review_comment(self, comment_id: int, body: str) -> ReviewComment:
        fn = self._rest.pulls.update_review_comment
        what = f"/pulls/comments/{comment_id}"
        response = self._call("PATCH", what, fn, self.owner, self.name, comment_id, data={"body": body})
        return cast(ReviewComment, response.json())

    def issue_comments(self, number: int) -> list[IssueComment]:
        fn = self._rest.issues.list_comments
        what = f"/issues/{number}/comments"
        return cast(list[IssueComment], self._pages(what, MAX_LIST_PAGES, fn, self.owner, self.name, number))

    def create_issue_comment(self, number: int, body: str) -> IssueComment:
        fn = self._rest.issues.create_comment
        what = f"/issues/{number}/comments"
        response = self._call("POST", what, fn, self.owner, self.name, number, data={"body": body})
        return cast(IssueComment, response.json())

    def update_issue_comment(self, comment_id: int, body: str) -> IssueComment:
        fn = self._rest.issues.update_comment
        what = f"/issues/comments/{comment_id}"
        response = self._call("PATCH", what, fn, self.owner, self.name, comment_id, data={"body": body})
        return cast(IssueComment, response.json())

    def react(self, comment_id: int, content: str) -> None:
        fn = self._rest.reactions.create_for_issue_comment
        what = f"/issues/comments/{comment_id}/reactions"
        self._call("POST", what, fn, self.owner, self.name, comment_id, data={"content": content})

    def permission(self, user: str) -> str:
        """admin, write, read or none; a user GitHub does not know as a collaborator is none."""
        fn = self._rest.repos.get_collaborator_permission_level
        try:
            response = self._call("GET", f"/collaborators/{user}/permission", fn, self.owner, self.name, user)
            data = cast(Permission, response.json())
        except GitHubError as exc:
            if exc.status == 404:
                return "none"
            raise
        return str(data.get("permission") or "none")


def _gql_string(text: str) -> str:
    # JSON string syntax is valid GraphQL string syntax for everything a path can hold.
    return json.dumps(text)
