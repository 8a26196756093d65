"""GitHub's JSON as docs-sync reads and writes it: one TypedDict per shape.

The adapter (client.py: `Repo`, `GitHubApp`) returns these, the callers read them and the GitHub stand-in
(bot.testing) builds them. Each holds the fields docs-sync reads or sends, not GitHub's whole
schema: GitHub sends many more, and its shapes gain fields every REST version. They are plain
dicts at run time, never validated, so a caller that reads a field GitHub may leave out (or
send as null) still reads it with `.get` and a fallback: such a field is `NotRequired`, or
`X | None` where GitHub's schema says it can be null. REST version 2026-03-10 (bot.app.github.client);
the GraphQL `Blob` is the one selection docs-sync makes.

Write bodies (`NewCheckRun`, `CheckRunUpdate`, `NewReview`) are what docs-sync sends, as GitHub's
API takes them; the check run annotations inside them are bot.render.comments' `Annotation`.
"""

from __future__ import annotations

from typing import TypedDict

from typing_extensions import NotRequired

from bot.render.comments import Annotation

# -- people, Apps, repositories -----------------------------------------------------------------


class Account(TypedDict):
    """A user or an organisation (`user`, `owner`, `account`)."""

    login: str
    id: NotRequired[int]
    type: NotRequired[str]  # "User", "Bot", "Organization"


class AppRef(TypedDict):
    """The App behind a check run or a comment (`app`, `performed_via_github_app`)."""

    id: int
    slug: NotRequired[str]


class Repository(TypedDict):
    """A repository as pulls and installations list it."""

    name: str
    full_name: str
    owner: Account
    id: NotRequired[int]
    html_url: NotRequired[str]
    default_branch: NotRequired[str]
    private: NotRequired[bool]


class Installation(TypedDict):
    """An installation of the App (`/app/installations`, `/repos/{o}/{r}/installation`)."""

    id: int
    account: NotRequired[Account | None]


class InstallationRepositories(TypedDict):
    """One page of `/installation/repositories`."""

    total_count: int
    repositories: list[Repository]


class Permission(TypedDict):
    """`/repos/{o}/{r}/collaborators/{user}/permission`."""

    permission: str  # admin, write, read or none (maintain reads as write, triage as read)
    user: NotRequired[Account | None]


# -- pull requests and their files ---------------------------------------------------------------


class PullEnd(TypedDict):
    """A pull request's `head` or `base`: the branch and the commit it is at."""

    sha: str
    ref: str
    repo: NotRequired[Repository | None]  # null when the head's fork was deleted
    label: NotRequired[str]


class Pull(TypedDict):
    """A pull request (`/pulls/{n}`, `/pulls`, `/commits/{sha}/pulls`)."""

    number: int
    state: str  # open, closed
    head: PullEnd
    base: PullEnd
    id: NotRequired[int]
    title: NotRequired[str]
    user: NotRequired[Account | None]
    draft: NotRequired[bool]
    html_url: NotRequired[str]


class ChangedFile(TypedDict):
    """One file of a pull request's or a commit's diff (GitHub's "diff entry").

    `patch` is missing for a binary file or a diff too large; docs-sync's own entries for files
    a truncated list left out (bot.app.snapshot.unlisted) have neither `patch` nor the links.
    """

    filename: str
    status: str  # added, removed, modified, renamed, copied, changed, unchanged
    sha: str  # the blob at head; at the base for a removed file
    previous_filename: NotRequired[str]  # renamed (and copied) files
    patch: NotRequired[str]
    changes: NotRequired[int]
    additions: NotRequired[int]
    deletions: NotRequired[int]
    blob_url: NotRequired[str]  # https://github.com/{o}/{r}/blob/{head sha}/{path}


# -- commits, trees, blobs ---------------------------------------------------------------------


class ShaRef(TypedDict):
    """An object named by its SHA (a commit's `parents`, `tree`; a created tree or commit)."""

    sha: str


class GitActor(TypedDict):
    name: NotRequired[str]
    email: NotRequired[str]
    date: str


class GitCommit(TypedDict):
    """The git part of a commit (`commit` of a REST commit)."""

    message: str
    tree: ShaRef
    author: NotRequired[GitActor | None]
    committer: NotRequired[GitActor | None]


class Commit(TypedDict):
    """A commit (`/commits`, and `/commits/{sha}`, which adds its files: at most 300)."""

    sha: str
    commit: GitCommit
    parents: list[ShaRef]
    files: NotRequired[list[ChangedFile]]
    html_url: NotRequired[str]


class Comparison(TypedDict):
    """`/compare/{base}...{head}`: only its merge base is read."""

    merge_base_commit: ShaRef


class TreeEntry(TypedDict):
    """One entry of a recursive tree listing."""

    path: str
    type: str  # blob, tree, commit (a submodule)
    sha: str
    mode: NotRequired[str]
    size: NotRequired[int]  # blobs only


class Tree(TypedDict):
    """`/git/trees/{sha}?recursive=1`; `truncated` when GitHub cut the listing short."""

    sha: str
    tree: list[TreeEntry]
    truncated: bool


class GitBlob(TypedDict):
    """`/git/blobs/{sha}`: the bytes, base64 encoded."""

    sha: str
    content: str
    encoding: str  # base64
    size: NotRequired[int]


class Blob(TypedDict):
    """A blob as docs-sync's GraphQL query selects it (`... on Blob`).

    `text` is null for a binary blob; `isTruncated` when GraphQL cut a large one (the REST blob
    then gives its bytes).
    """

    oid: str
    byteSize: int
    text: str | None
    isBinary: bool | None
    isTruncated: bool


class NewTreeEntry(TypedDict):
    """A file in a tree docs-sync creates (`POST /git/trees`)."""

    path: str
    mode: str
    type: str
    content: str


class NewTree(TypedDict):
    base_tree: str
    tree: list[NewTreeEntry]


class NewCommit(TypedDict):
    message: str
    tree: str
    parents: list[str]


class RefUpdate(TypedDict):
    sha: str
    force: bool


# -- check runs ----------------------------------------------------------------------------------


class CheckRunOutput(TypedDict):
    """A check run's `output`: GitHub answers with title and summary (either may be null);
    docs-sync sends its annotations, 50 a request."""

    title: str | None
    summary: str | None
    text: NotRequired[str | None]
    annotations: NotRequired[list[Annotation]]
    annotations_count: NotRequired[int]


class CheckRunAction(TypedDict):
    """A button on a completed check run (at most 3; label <= 20, description <= 40,
    identifier <= 20 characters)."""

    label: str
    description: str
    identifier: str


class CheckRun(TypedDict):
    """A check run as GitHub answers for it (`/check-runs`, `/commits/{sha}/check-runs`)."""

    id: int
    head_sha: str
    status: str  # queued, in_progress, completed, ...
    name: NotRequired[str]
    conclusion: NotRequired[str | None]
    external_id: NotRequired[str | None]
    html_url: NotRequired[str | None]
    app: NotRequired[AppRef | None]
    output: NotRequired[CheckRunOutput]


class CheckRunList(TypedDict):
    """`/commits/{sha}/check-runs`."""

    total_count: int
    check_runs: list[CheckRun]


class NewCheckRun(TypedDict):
    """`POST /check-runs`."""

    name: str
    head_sha: str
    status: NotRequired[str]
    external_id: NotRequired[str]
    output: NotRequired[CheckRunOutput]


class CheckRunUpdate(TypedDict):
    """`PATCH /check-runs/{id}`: completed when it carries a conclusion."""

    output: CheckRunOutput
    status: NotRequired[str]
    conclusion: NotRequired[str]
    actions: NotRequired[list[CheckRunAction]]


# -- reviews and comments ----------------------------------------------------------------------


class DraftComment(TypedDict):
    """One inline comment of a review docs-sync posts, on the head side of the diff."""

    path: str
    line: int
    side: str  # RIGHT
    body: str
    start_line: NotRequired[int]  # a multi-line comment (a suggestion); never equal to `line`
    start_side: NotRequired[str]


class NewReview(TypedDict):
    """`POST /pulls/{n}/reviews`: GitHub refuses the whole review (422) when one comment's
    line is outside the diff."""

    commit_id: str
    event: str  # COMMENT
    comments: list[DraftComment]
    body: NotRequired[str]


class Review(TypedDict):
    """A review as GitHub answers for its creation: it does not list its comments' ids."""

    id: int
    user: NotRequired[Account | None]
    commit_id: NotRequired[str]
    body: NotRequired[str | None]
    state: NotRequired[str]


class ReviewComment(TypedDict):
    """An inline review comment (`/pulls/{n}/comments`)."""

    id: int
    body: str
    pull_request_review_id: int | None
    user: Account | None
    path: NotRequired[str]
    line: NotRequired[int | None]
    start_line: NotRequired[int | None]
    side: NotRequired[str]
    commit_id: NotRequired[str]


class IssueComment(TypedDict):
    """A comment on a pull request's conversation (`/issues/{n}/comments`)."""

    id: int
    body: str
    user: Account | None
    performed_via_github_app: NotRequired[AppRef | None]
    created_at: NotRequired[str]
    updated_at: NotRequired[str]
    html_url: NotRequired[str]


class Reaction(TypedDict):
    id: int
    content: str  # +1, eyes, ...


# -- the App's webhook ---------------------------------------------------------------------------


class Delivery(TypedDict):
    """One attempt to deliver the App's webhook (`/app/hook/deliveries`); `guid` is the
    X-GitHub-Delivery header, kept by a redelivery."""

    id: int
    guid: str
    delivered_at: str
    status_code: int
    status: NotRequired[str]
    redelivery: NotRequired[bool]
    event: NotRequired[str]
    action: NotRequired[str | None]
    installation_id: NotRequired[int | None]
    repository_id: NotRequired[int | None]


# -- reading them ------------------------------------------------------------------------------


def app_id(run: CheckRun) -> int | None:
    """The id of the App that made the check run; None where GitHub does not say."""
    app = run.get("app")
    return app.get("id") if app else None


def output_of(run: CheckRun) -> CheckRunOutput:
    """The check run's output; empty where GitHub sends none."""
    return run.get("output") or CheckRunOutput(title=None, summary=None)


def by_bot(comment: IssueComment | ReviewComment) -> bool:
    """Was the comment written by a bot (an App's account, docs-sync's among them)?"""
    user = comment.get("user")
    return user is not None and user.get("type") == "Bot"
