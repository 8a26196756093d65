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
    sign(secret, body) -> "sha256=<hex>"           the X-Hub-Signature-256 of a webhook body (the
                                                   App's own, bot.app.intake.web.sign)

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
              public repositories and recorded state, so one running stand-in can serve a whole
              test session
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
    webhook's delivery log and redelivery (hooks.py) (App JWT); GET
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
App's `bot.app.github.client.GitHubApp` keeps its own), so installation tokens issued by any
stand-in of this process stay valid in every stand-in with the same app_id and installation_id,
as tokens outlive a test on github.com. A test that needs its own key, or to watch the JWT
exchange happen with a plain githubkit client, uses an app_id no other test uses.

Layout: one module per API area, each a mixin of `GitHubStandIn` (server.py) whose handlers are
marked with `protocol.endpoint(method, path, auth, needs)` and found by the router (dispatch.py):
auth.py (the App, installations, tokens, permissions), pulls.py, gitdata.py (contents, trees,
blobs, commits, refs), graphql.py, checks.py, reviews.py (reviews and review comments),
comments.py (issue comments, reactions), hooks.py (the webhook's deliveries); state.py declares
what a stand-in holds, shapes.py builds GitHub's JSON from it, gitrepo.py reads the git fixture
that fixtures.py builds, keys.py holds the App's keys and the tokens issued, host.py many
repositories on one port. Each area's `needs` are GitHub's "Permissions required for GitHub
Apps"; a new endpoint is a marked handler in its area's module.
"""

from bot.app.intake.web import sign
from bot.testing.standin.fixtures import GitError, add_commit, make_repo, run_git
from bot.testing.standin.host import GitHubHost
from bot.testing.standin.keys import default_app_key, make_app_key
from bot.testing.standin.server import GitHubStandIn
from bot.testing.standin.state import APP_PERMISSIONS

__all__ = [
    "APP_PERMISSIONS",
    "GitError",
    "GitHubHost",
    "GitHubStandIn",
    "add_commit",
    "default_app_key",
    "make_app_key",
    "make_repo",
    "run_git",
    "sign",
]
