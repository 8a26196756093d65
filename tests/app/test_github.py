"""The GitHub adapter against the stand-in: answers as plain JSON, failures sorted for the worker,
every call counted, writes spaced."""

from __future__ import annotations

import socket
import time

import pytest

from bot.app.github.client import GitHubApp, GitHubError
from bot.app.metrics import Metrics
from bot.app.queue.worker import RetryableError
from bot.testing.standin import GitHubStandIn, add_commit, make_repo

GUIDE = "# Guide\n\nRun `app --foo`.\n"


@pytest.fixture(scope="module")
def repo_and_shas(tmp_path_factory):
    root = tmp_path_factory.mktemp("github")
    bulk = {f"bulk/f{i:03}.txt": f"{i}\n" for i in range(150)}
    return make_repo(
        root, [{"docs/guide.md": GUIDE, "src/app.py": "x = 1\n"}, {**bulk, "src/app.py": "x = 2\n"}]
    )


@pytest.fixture(scope="module")
def server(repo_and_shas):
    repo_dir, _ = repo_and_shas
    with GitHubStandIn(repo_dir) as standin:
        yield standin


@pytest.fixture
def standin(server, repo_and_shas):
    _, (base, head) = repo_and_shas
    server.reset()
    server.open_pull(3, base, head)
    return server


class FakeTime:
    def __init__(self):
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def app_for(standin: GitHubStandIn, **kw) -> tuple[GitHubApp, Metrics]:
    metrics = Metrics()
    kw.setdefault("write_interval_s", 0)
    return GitHubApp(standin.app_id, standin.private_key_pem, standin.url, metrics, **kw), metrics


def test_installation_is_looked_up_with_the_app_jwt_once(standin):
    app, _ = app_for(standin)
    assert app.installation_id(standin.owner, standin.name) == standin.installation_id
    assert app.installation_id(standin.owner.upper(), standin.name) == standin.installation_id
    assert standin.calls("GET", r"/installation$") == [
        ("GET", f"/repos/{standin.owner}/{standin.name}/installation", 200)
    ]


def test_answers_are_plain_json_and_every_call_is_counted(standin, repo_and_shas):
    _, (base, head) = repo_and_shas
    app, metrics = app_for(standin)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    with app.session(standin.installation_id):
        pull = repo.pull(3)
        files = repo.pull_files(3)
        assert repo.permission("nobody") == "none"
    assert pull["head"]["sha"] == head and pull["base"]["sha"] == base
    assert len(files) == 151 and {f["status"] for f in files} == {"added", "modified"}
    assert len(standin.calls("GET", r"/pulls/3/files$")) == 2  # 100 a page, Link header followed
    repo_calls = [r for r in standin.requests if r[1].startswith("/repos/")]
    counted = sum(metrics.value("docs_sync_github_calls_total", status=s) for s in ("200", "201", "404"))
    assert counted >= len(repo_calls) == 4
    assert metrics.value("docs_sync_github_calls_total", status="404") == 1


def test_blobs_come_in_one_graphql_query(standin, repo_and_shas):
    _, (base, head) = repo_and_shas
    app, _ = app_for(standin)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    found = repo.blobs([f"{base}:docs/guide.md", f"{head}:src/app.py", f"{head}:missing.md", f"{head}:docs"])
    assert found[0]["text"] == GUIDE and found[0]["isBinary"] is False and len(found[0]["oid"]) == 40
    assert found[1]["text"] == "x = 2\n"
    assert found[2] is None and found[3] is None  # nothing there, and a directory
    assert len(standin.calls("POST", r"^/graphql$")) == 1
    entries, truncated = repo.tree(head)
    assert {"docs", "docs/guide.md", "bulk/f149.txt"} <= {e["path"] for e in entries} and not truncated


def test_server_errors_and_rate_limits_are_retryable(standin):
    app, metrics = app_for(standin)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    standin.fail_next("GET", r"/pulls/3$", 503)
    with pytest.raises(RetryableError) as server_error:
        repo.pull(3)
    assert server_error.value.delay_s == 0 and "503" in str(server_error.value)

    standin.fail_next("POST", r"/issues/3/comments$", 403, headers={"retry-after": "7"})
    with pytest.raises(RetryableError) as secondary:
        repo.create_issue_comment(3, "hello")
    assert secondary.value.delay_s == 7

    reset = int(time.time()) + 30
    standin.fail_next(
        "GET", r"/pulls/3$", 429, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
    )
    with pytest.raises(RetryableError) as primary:
        repo.pull(3)
    assert 25 < primary.value.delay_s <= 30
    assert metrics.value("docs_sync_github_calls_total", status="503") == 1
    assert metrics.value("docs_sync_github_calls_total", status="429") == 1


def test_other_client_errors_are_clear_and_final(standin, repo_and_shas):
    _, (_, head) = repo_and_shas
    app, _ = app_for(standin)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    with pytest.raises(GitHubError) as missing:
        repo.pull(99)
    assert missing.value.status == 404 and "GET /repos/octo-org/docs-repo/pulls/99" in str(missing.value)
    comment = {"path": "docs/guide.md", "line": 1, "side": "RIGHT", "body": "x"}  # not in the diff
    with pytest.raises(GitHubError) as refused:
        repo.create_review(3, {"commit_id": head, "event": "COMMENT", "comments": [comment]})
    assert refused.value.status == 422 and "path is invalid" in refused.value.message
    standin.fail_next(
        "POST", r"/pulls/3/reviews$", 403, body={"message": "Resource not accessible by integration"}
    )  # a plain 403: no rate limit headers, no rate limit message: a permission the App lacks
    with pytest.raises(GitHubError) as forbidden:
        repo.create_review(3, {"commit_id": head, "event": "COMMENT", "body": "x"})
    assert forbidden.value.status == 403
    assert "Resource not accessible by integration" in str(forbidden.value)
    assert "may lack a permission" in str(forbidden.value)


@pytest.mark.parametrize(
    "status, message",
    [
        (429, "Too Many Requests"),
        (403, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."),
        (403, "You have triggered an abuse detection mechanism. Please wait a few minutes."),
    ],
)
def test_rate_limits_without_headers_wait_a_minute(standin, status, message):
    # GitHub: no retry-after and no x-ratelimit-remaining of 0 means wait at least a minute.
    app, _ = app_for(standin)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    standin.fail_next("POST", r"/issues/3/comments$", status, body={"message": message})
    with pytest.raises(RetryableError) as limited:
        repo.create_issue_comment(3, "hello")
    assert limited.value.delay_s == 60 and "rate limit" in str(limited.value)


def test_unreachable_and_silent_servers_are_retryable(standin):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    metrics = Metrics()
    app = GitHubApp(standin.app_id, standin.private_key_pem, f"http://127.0.0.1:{port}", metrics)
    with pytest.raises(RetryableError) as refused:
        app.installation_id("octo-org", "docs-repo")
    assert "cannot reach GitHub" in str(refused.value)

    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        app = GitHubApp(standin.app_id, standin.private_key_pem, url, metrics, timeout_s=0.2)
        with pytest.raises(RetryableError) as timeout:
            app.installation_id("octo-org", "docs-repo")
    assert "in time" in str(timeout.value)
    assert metrics.value("docs_sync_github_calls_total", status="error") == 2


def test_token_exchange_failures_are_sorted_too(standin):
    # A fresh app id has no cached token: the exchange itself gets the 503.
    metrics = Metrics()
    app = GitHubApp(9101, standin.private_key_pem, standin.url, metrics, write_interval_s=0)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    standin.fail_next("POST", r"/access_tokens$", 503)
    with pytest.raises(RetryableError):
        repo.pull(3)
    assert metrics.value("docs_sync_github_calls_total", status="503") == 1


def test_writes_to_one_repository_are_a_second_apart(standin):
    fake = FakeTime()
    app, _ = app_for(standin, write_interval_s=1.0, clock=fake.clock, sleep=fake.sleep)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    other = app.repo(standin.installation_id, standin.owner, "elsewhere")
    repo.create_issue_comment(3, "one")
    fake.now += 0.25
    repo.pull(3)  # reads never wait
    repo.create_issue_comment(3, "two")
    with pytest.raises(GitHubError):
        other.create_issue_comment(3, "another repository has its own pace")
    assert fake.slept == [pytest.approx(0.75)]
    fake.now += 5
    repo.create_issue_comment(3, "three")
    assert fake.slept == [pytest.approx(0.75)]
    assert [c["body"] for c in standin.issue_comments] == ["one", "two", "three"]


def test_the_merge_base_is_one_compare_call(standin, repo_and_shas):
    repo_dir, (base, head) = repo_and_shas
    moved = add_commit(repo_dir, {"docs/guide.md": GUIDE + "More.\n"}, parent=base, branch="base-moved-on")
    app, _ = app_for(standin)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    with app.session(standin.installation_id):
        assert repo.merge_base(moved, head) == base  # diverged: where head branched off
        assert repo.merge_base(base, head) == base  # head is ahead: the base itself
        # The answer has the shape githubkit's model of GitHub's comparison expects.
        typed = repo._rest.repos.compare_commits(standin.owner, standin.name, f"{moved}...{head}").parsed_data
    assert (typed.status, typed.ahead_by, typed.behind_by) == ("diverged", 1, 1)
    assert typed.merge_base_commit.sha == base and typed.base_commit.sha == moved
    assert [c.sha for c in typed.commits] == [head] and len(typed.files or []) == 151
    assert [p for _, p, _ in standin.calls("GET", r"/compare/")][0].endswith(f"/compare/{moved}...{head}")


def test_a_rejected_installation_token_is_dropped_and_a_new_one_minted_once(standin):
    app, _ = app_for(standin)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    assert repo.pull(3)["number"] == 3
    standin.revoke_tokens()  # a revoked token, or an installation suspended and restored
    assert repo.pull(3)["number"] == 3  # the cached token is dropped, a new one minted, the call retried
    assert [s for _, _, s in standin.calls("GET", r"/pulls/3$")] == [200, 401, 200]
    assert [s for _, _, s in standin.calls("POST", r"/access_tokens$")][-1:] == [201]
    assert repo.create_issue_comment(3, "written with the new token")["id"]


def test_a_token_refused_twice_is_left_to_the_worker(standin):
    app, _ = app_for(standin)
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    standin.fail_next("GET", r"/pulls/3$", 401, times=2, body={"message": "Bad credentials"})
    with pytest.raises(RetryableError) as refused:
        repo.pull(3)  # GitHub can refuse a token it has just issued for a moment: retried later
    assert "401" in str(refused.value) and "Bad credentials" in str(refused.value)
    assert len(standin.calls("GET", r"/pulls/3$")) == 2


@pytest.mark.parametrize("offset", [-300, 900])  # GitHub five minutes behind us; a quarter hour ahead
def test_the_app_jwt_is_dated_by_githubs_clock(standin, offset):
    standin.clock_offset_s = offset
    app, _ = app_for(standin)
    assert app.installation_id(standin.owner, standin.name) == standin.installation_id
    repo = app.repo(standin.installation_id, standin.owner, standin.name)
    assert repo.pull(3)["number"] == 3  # the token exchange signs with the corrected JWT too
    # The first JWT is dated by this machine's clock and refused; GitHub's Date header corrects it.
    assert [s for _, _, s in standin.calls("GET", r"/installation$")] == [401, 200]
    assert standin.calls("POST", r"/access_tokens$")[-1][2] == 201
