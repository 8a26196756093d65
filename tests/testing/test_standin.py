"""The GitHub stand-in answers as github.com does: shapes githubkit parses, and GitHub's limits."""

from __future__ import annotations

import base64
import functools
import re
import time
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from githubkit import AppAuthStrategy, GitHub
from githubkit.exception import (
    GraphQLFailed,
    PrimaryRateLimitExceeded,
    RequestFailed,
    SecondaryRateLimitExceeded,
)

from bot.testing.standin import GitHubStandIn, add_commit, make_app_key, make_repo, run_git

OWNER, REPO = "octo-org", "docs-repo"

APP_PY = "".join(f"line {i}\n" for i in range(1, 41))
GUIDE = "# Guide\n\nRun `app --foo` to start.\n\nThe default is 3.\n"
OLD_TXT = "".join(f"keep {i}\n" for i in range(20))
LOGO = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256))


@pytest.fixture(scope="session")
def fixture_repo(tmp_path_factory):
    """main: code, doc, a text file, an image; feature: edits all four and renames the text file."""
    root = tmp_path_factory.mktemp("standin")
    repo_dir, (base,) = make_repo(
        root, [{"src/app.py": APP_PY, "docs/guide.md": GUIDE, "old.txt": OLD_TXT, "assets/logo.png": LOGO}]
    )
    feature = add_commit(
        repo_dir,
        {
            "src/app.py": APP_PY.replace("line 20\n", "line twenty\n"),
            "docs/guide.md": GUIDE.replace("is 3.", "is 4.") + "\nSee also `--bar`.\n",
            "old.txt": None,
            "new.txt": OLD_TXT + "more\n",
            "assets/logo.png": LOGO + b"\0",
        },
        parent="main",
        branch="feature",
    )
    bulk = add_commit(
        repo_dir, {f"bulk/f{i:03}.txt": f"{i}\n" for i in range(150)}, parent="main", branch="bulk"
    )
    return repo_dir, {"base": base, "feature": feature, "bulk": bulk}


@pytest.fixture(scope="session")
def http():
    with httpx.Client(timeout=10) as session:
        yield session


@pytest.fixture(scope="session")
def other_key() -> str:
    return make_app_key()[0]


@pytest.fixture(scope="session")
def running_standin(fixture_repo):
    repo_dir, _ = fixture_repo
    with GitHubStandIn(repo_dir) as server:
        yield server


@pytest.fixture
def standin(running_standin):
    running_standin.reset()
    running_standin.open_pull(1, "main", "feature")
    running_standin.open_pull(2, "main", "bulk")
    yield running_standin
    assert running_standin.server_errors == []


def client(server: GitHubStandIn) -> GitHub:
    # The stand-in checks bodies itself; githubkit's own body checks would stop some requests first.
    gh = GitHub(
        AppAuthStrategy(server.app_id, server.private_key_pem),
        base_url=server.url,
        auto_retry=False,
        rest_api_validate_body=False,
    )
    return gh.with_auth(gh.auth.as_installation(server.installation_id))


@pytest.fixture
def gh(standin):
    with client(standin) as github:
        yield github


@functools.cache
def loaded_key(pem: str):
    return serialization.load_pem_private_key(pem.encode(), None)  # slow: it checks the key


def app_jwt(server: GitHubStandIn, **claims) -> str:
    now = int(time.time())
    claims = {"iss": str(server.app_id), "iat": now - 60, "exp": now + 540, **claims}
    return jwt.encode(claims, loaded_key(claims.pop("key", server.private_key_pem)), algorithm="RS256")


def raw_token(http: httpx.Client, server: GitHubStandIn) -> str:
    """An installation token fetched without githubkit, for calls made with plain httpx."""
    url = f"{server.url}/app/installations/{server.installation_id}/access_tokens"
    return http.post(url, headers={"Authorization": f"Bearer {app_jwt(server)}"}).json()["token"]


# -- auth ---------------------------------------------------------------------------------------


def test_repository_endpoints_want_an_installation_token(standin, http):
    url = f"{standin.url}/repos/{OWNER}/{REPO}/pulls/1"
    anonymous = http.get(url)
    assert anonymous.status_code == 401
    assert anonymous.json()["message"] == "Requires authentication"
    assert http.get(url, headers={"Authorization": "token ghs_madeup"}).status_code == 401
    assert http.get(url, headers={"Authorization": f"Bearer {app_jwt(standin)}"}).status_code == 401
    for scheme in ("token", "Bearer"):
        assert (
            http.get(url, headers={"Authorization": f"{scheme} {raw_token(http, standin)}"}).status_code
            == 200
        )


def test_app_jwt_is_exchanged_for_an_installation_token_once(fixture_repo, other_key):
    repo_dir, _ = fixture_repo
    # an app_id of its own: githubkit caches JWTs and tokens per app_id for the whole process
    with GitHubStandIn(repo_dir, app_id=9001, private_key_pem=other_key) as server:
        server.open_pull(1, "main", "feature")
        with client(server) as gh:
            assert gh.rest.pulls.get(OWNER, REPO, 1).parsed_data.number == 1
            assert gh.rest.pulls.list_files(OWNER, REPO, 1).parsed_data
        assert server.requests == [
            ("POST", "/app/installations/42/access_tokens", 201),
            ("GET", "/repos/octo-org/docs-repo/pulls/1", 200),
            ("GET", "/repos/octo-org/docs-repo/pulls/1/files", 200),
        ]


def test_app_endpoints_check_the_jwt(standin, http, other_key):
    url = f"{standin.url}/app/installations/{standin.installation_id}/access_tokens"

    def post(**claims) -> httpx.Response:
        return http.post(url, headers={"Authorization": f"Bearer {app_jwt(standin, **claims)}"})

    answer = post()
    assert answer.status_code == 201
    assert answer.json()["token"].startswith("ghs_")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", answer.json()["expires_at"])
    assert post(key=other_key).status_code == 401  # signed by another key
    assert post(exp=int(time.time()) - 1).status_code == 401  # expired
    assert post(exp=int(time.time()) + 3600).status_code == 401  # more than 10 minutes ahead
    assert post(iss="2").status_code == 401  # another App
    assert http.post(url).status_code == 401
    assert http.post(url, headers={"Authorization": f"token {raw_token(http, standin)}"}).status_code == 401
    other = f"{standin.url}/app/installations/7/access_tokens"
    assert http.post(other, headers={"Authorization": f"Bearer {app_jwt(standin)}"}).status_code == 404


def test_revoked_tokens_answer_401_and_new_ones_work(standin, http):
    url = f"{standin.url}/repos/{OWNER}/{REPO}"
    old = {"Authorization": f"token {raw_token(http, standin)}"}
    assert http.get(url, headers=old).status_code == 200
    standin.revoke_tokens()
    refused = http.get(url, headers=old)
    assert (refused.status_code, refused.json()["message"]) == (401, "Bad credentials")
    assert http.get(url, headers={"Authorization": f"token {raw_token(http, standin)}"}).status_code == 200
    standin.reset()  # a reset forgets revocations
    assert http.get(url, headers=old).status_code == 200


def test_githubs_clock_dates_every_answer_and_judges_the_jwt(standin, http):
    url = f"{standin.url}/app/installations/{standin.installation_id}/access_tokens"
    standin.clock_offset_s = -600  # GitHub's clock ten minutes behind this machine's
    answer = http.get(f"{standin.url}/rate_limit")
    dated = parsedate_to_datetime(answer.headers["date"]).timestamp()
    assert abs(dated - (time.time() - 600)) < 5 and len(answer.headers.get_list("date")) == 1
    refused = http.post(url, headers={"Authorization": f"Bearer {app_jwt(standin)}"})
    assert refused.status_code == 401 and "claim" in refused.json()["message"]  # dated by our clock
    now = int(standin.now())
    signed = app_jwt(standin, iat=now - 60, exp=now + 540)  # dated by GitHub's clock
    token = http.post(url, headers={"Authorization": f"Bearer {signed}"})
    assert token.status_code == 201
    expires = datetime.strptime(token.json()["expires_at"], "%Y-%m-%dT%H:%M:%SZ")
    assert abs(expires.replace(tzinfo=timezone.utc).timestamp() - (standin.now() + 3600)) < 5


def test_installation_endpoints_parse_in_githubkit(standin):
    gh = GitHub(
        AppAuthStrategy(standin.app_id, standin.private_key_pem), base_url=standin.url, auto_retry=False
    )
    installation = gh.rest.apps.get_repo_installation(OWNER, REPO).parsed_data
    assert installation.id == standin.installation_id
    assert gh.rest.apps.get_installation(standin.installation_id).parsed_data.app_id == standin.app_id


def test_api_versions(standin, http):
    url = f"{standin.url}/repos/{OWNER}/{REPO}/pulls/1"
    auth = {"Authorization": f"token {raw_token(http, standin)}"}
    assert http.get(url, headers={**auth, "X-GitHub-Api-Version": "2021-01-01"}).status_code == 400
    old = http.get(url, headers={**auth, "X-GitHub-Api-Version": "2022-11-28"})
    new = http.get(url, headers={**auth, "X-GitHub-Api-Version": "2026-03-10"})
    assert "merge_commit_sha" in old.json() and "merge_commit_sha" not in new.json()
    assert new.headers["x-github-api-version-selected"] == "2026-03-10"
    assert "merge_commit_sha" in http.get(url, headers=auth).json()  # no header: 2022-11-28
    assert (
        "rate"
        not in http.get(f"{standin.url}/rate_limit", headers={"X-GitHub-Api-Version": "2026-03-10"}).json()
    )


# -- pulls and files ----------------------------------------------------------------------------


def test_pull_request_parses_and_counts_its_changes(gh, fixture_repo):
    _, shas = fixture_repo
    pr = gh.rest.pulls.get(OWNER, REPO, 1).parsed_data
    assert (pr.head.sha, pr.base.ref, pr.head.ref) == (shas["feature"], "main", "feature")
    assert (pr.changed_files, pr.additions, pr.deletions, pr.commits) == (4, 5, 2, 1)
    assert "merge_commit_sha" not in gh.rest.pulls.get(OWNER, REPO, 1).json()


def test_a_push_moves_the_head_and_older_commits_stay_reviewable(gh, standin, fixture_repo):
    repo_dir, shas = fixture_repo
    pushed = add_commit(repo_dir, {"docs/guide.md": GUIDE.replace("is 3.", "is 5.")}, parent=shas["feature"])
    standin.update_pull(1, head=pushed)
    assert gh.rest.pulls.get(OWNER, REPO, 1).parsed_data.head.sha == pushed
    guide = next(
        f for f in gh.rest.pulls.list_files(OWNER, REPO, 1).parsed_data if f.filename == "docs/guide.md"
    )
    assert guide.patch.endswith("-The default is 3.\n+The default is 5.")
    # line 7 exists only in the first push's diff
    at_first = {"path": "docs/guide.md", "line": 7, "body": "x"}
    old = gh.rest.pulls.create_review(
        OWNER, REPO, 1, commit_id=shas["feature"], event="COMMENT", comments=[at_first]
    )
    assert old.parsed_data.commit_id == shas["feature"]
    with pytest.raises(RequestFailed) as gone:
        gh.rest.pulls.create_review(OWNER, REPO, 1, commit_id=pushed, event="COMMENT", comments=[at_first])
    assert gone.value.response.json()["errors"] == [OUTSIDE]
    with pytest.raises(RequestFailed) as foreign:
        gh.rest.pulls.create_review(OWNER, REPO, 1, commit_id=shas["bulk"], event="COMMENT", body="x")
    assert foreign.value.response.status_code == 422


def test_files_are_paginated_with_link_headers(gh, standin):
    first = gh.rest.pulls.list_files(OWNER, REPO, 2, per_page=100)
    assert len(first.parsed_data) == 100
    links = first.headers["link"]
    assert 'page=2>; rel="next"' in links and 'page=2>; rel="last"' in links
    second = gh.rest.pulls.list_files(OWNER, REPO, 2, per_page=100, page=2)
    assert len(second.parsed_data) == 50
    assert 'rel="prev"' in second.headers["link"] and 'rel="next"' not in second.headers["link"]
    every = list(
        gh.rest.paginate(gh.rest.pulls.list_files, owner=OWNER, repo=REPO, pull_number=2, per_page=100)
    )
    assert [f.filename for f in every] == [f"bulk/f{i:03}.txt" for i in range(150)]
    assert all(f.status == "added" and f.patch == f"@@ -0,0 +1 @@\n+{i}" for i, f in enumerate(every))
    assert len(gh.rest.pulls.list_files(OWNER, REPO, 2, per_page=500).parsed_data) == 100


def test_files_stop_at_3000_and_the_diff_at_300(fixture_repo):
    repo_dir, _ = fixture_repo
    huge = add_commit(
        repo_dir, {f"many/{i:04}.txt": "x\n" for i in range(3005)}, parent="main", branch="huge"
    )
    with GitHubStandIn(repo_dir) as server:
        server.open_pull(9, "main", huge)
        with client(server) as gh:
            assert gh.rest.pulls.get(OWNER, REPO, 9).parsed_data.changed_files == 3005
            page30 = gh.rest.pulls.list_files(OWNER, REPO, 9, per_page=100, page=30)
            assert page30.parsed_data[-1].filename == "many/2999.txt"
            assert 'rel="next"' not in page30.headers["link"]
            assert gh.rest.pulls.list_files(OWNER, REPO, 9, per_page=100, page=31).parsed_data == []
            with pytest.raises(RequestFailed) as too_large:
                gh.rest.pulls.get(OWNER, REPO, 9, headers={"Accept": "application/vnd.github.diff"})
            assert too_large.value.response.status_code == 406


def test_patches_of_a_modified_a_renamed_and_a_binary_file(gh, fixture_repo):
    repo_dir, shas = fixture_repo
    files = {f.filename: f for f in gh.rest.pulls.list_files(OWNER, REPO, 1).parsed_data}
    assert sorted(files) == ["assets/logo.png", "docs/guide.md", "new.txt", "src/app.py"]
    app = files["src/app.py"]
    assert (app.status, app.additions, app.deletions, app.changes) == ("modified", 1, 1, 2)
    assert app.patch == (
        "@@ -17,7 +17,7 @@ line 16\n line 17\n line 18\n line 19\n"
        "-line 20\n+line twenty\n line 21\n line 22\n line 23"
    )
    assert app.sha == run_git(repo_dir, "rev-parse", f"{shas['feature']}:src/app.py").decode().strip()
    renamed = files["new.txt"]
    assert (renamed.status, renamed.previous_filename) == ("renamed", "old.txt")
    assert renamed.patch == "@@ -18,3 +18,4 @@ keep 16\n keep 17\n keep 18\n keep 19\n+more"
    assert renamed.contents_url.endswith(f"/contents/new.txt?ref={shas['feature']}")
    raw = {f["filename"]: f for f in gh.rest.pulls.list_files(OWNER, REPO, 1).json()}
    assert raw["assets/logo.png"]["status"] == "modified" and "patch" not in raw["assets/logo.png"]


def test_whole_diff_media_type(gh):
    answer = gh.rest.pulls.get(OWNER, REPO, 1, headers={"Accept": "application/vnd.github.diff"})
    assert answer.text.startswith("diff --git a/assets/logo.png b/assets/logo.png")
    assert "rename from old.txt\nrename to new.txt" in answer.text


def test_finding_the_pull_request_of_a_head_sha(gh, standin, fixture_repo):
    repo_dir, shas = fixture_repo
    fork_head = add_commit(repo_dir, {"docs/guide.md": "# Fork\n"}, parent="main", branch="fork-topic")
    standin.open_pull(3, "main", "fork-topic", user="outsider", head_repo_fork=True)
    by_sha = gh.rest.repos.list_pull_requests_associated_with_commit(OWNER, REPO, shas["feature"]).parsed_data
    assert [p.number for p in by_sha] == [1]
    # github.com does not find a fork's commits from the base repository; the head filter does
    assert gh.rest.repos.list_pull_requests_associated_with_commit(OWNER, REPO, fork_head).parsed_data == []
    by_head = gh.rest.pulls.list(OWNER, REPO, state="open", head="outsider:fork-topic").parsed_data
    assert [(p.number, p.head.sha, p.head.repo.fork) for p in by_head] == [(3, fork_head, True)]


# -- contents and git data ----------------------------------------------------------------------


def test_contents_blobs_and_trees(gh, fixture_repo):
    _, shas = fixture_repo
    content = gh.rest.repos.get_content(OWNER, REPO, "docs/guide.md", ref=shas["feature"]).parsed_data
    assert content.type == "file" and content.encoding == "base64"
    assert base64.b64decode(content.content).decode().startswith("# Guide\n")
    assert (
        base64.b64decode(content.content)
        == GUIDE.replace("is 3.", "is 4.").encode() + b"\nSee also `--bar`.\n"
    )
    raw = gh.rest.repos.get_content(
        OWNER, REPO, "assets/logo.png", ref="main", headers={"Accept": "application/vnd.github.raw"}
    )
    assert raw.content == LOGO
    listing = gh.rest.repos.get_content(OWNER, REPO, "docs").parsed_data
    assert [(e.name, e.type) for e in listing] == [("guide.md", "file")]
    with pytest.raises(RequestFailed) as missing:
        gh.rest.repos.get_content(OWNER, REPO, "docs/nope.md", ref="main")
    assert missing.value.response.status_code == 404
    blob = gh.rest.git.get_blob(OWNER, REPO, content.sha).parsed_data
    assert base64.b64decode(blob.content) == base64.b64decode(content.content)
    tree = gh.rest.git.get_tree(OWNER, REPO, shas["feature"], recursive="1").parsed_data
    paths = {(e.path, e.type) for e in tree.tree}
    assert {("docs", "tree"), ("docs/guide.md", "blob"), ("new.txt", "blob")} <= paths
    assert ("old.txt", "blob") not in paths and tree.truncated is False
    commit = gh.rest.repos.get_commit(OWNER, REPO, "feature").parsed_data
    assert commit.sha == shas["feature"] and commit.parents[0].sha == shas["base"]


def test_contents_past_one_megabyte_come_raw_only(gh, fixture_repo):
    repo_dir, _ = fixture_repo
    big = b"x" * (1024 * 1024 + 1)
    add_commit(repo_dir, {"big.txt": big}, parent="main", branch="big-file")
    content = gh.rest.repos.get_content(OWNER, REPO, "big.txt", ref="big-file").parsed_data
    assert (content.encoding, content.content, content.size) == ("none", "", len(big))
    raw = gh.rest.repos.get_content(
        OWNER, REPO, "big.txt", ref="big-file", headers={"Accept": "application/vnd.github.raw"}
    )
    assert raw.content == big


def test_graphql_fetches_several_files_at_once(gh, fixture_repo):
    repo_dir, shas = fixture_repo
    head = shas["feature"]
    query = f"""
    query($owner: String!, $name: String!) {{
      repository(owner: $owner, name: $name) {{
        f0: object(expression: "{head}:docs/guide.md") {{ ... on Blob {{ text byteSize isBinary oid }} }}
        f1: object(expression: "{head}:old.txt") {{ ... on Blob {{ text }} }}
        f2: object(expression: "main:assets/logo.png") {{ ... on Blob {{ text isBinary byteSize }} }}
        f3: object(expression: "{head}:docs") {{ ... on Blob {{ text }} }}
      }}
    }}"""
    data = gh.graphql(query, {"owner": OWNER, "name": REPO})["repository"]
    guide = GUIDE.replace("is 3.", "is 4.") + "\nSee also `--bar`.\n"
    oid = run_git(repo_dir, "rev-parse", f"{head}:docs/guide.md").decode().strip()
    assert data["f0"] == {"text": guide, "byteSize": len(guide), "isBinary": False, "oid": oid}
    assert data["f1"] is None  # renamed away at head
    assert data["f2"] == {"text": None, "isBinary": True, "byteSize": len(LOGO)}
    assert data["f3"] == {}  # a tree: the Blob fragment does not apply
    with pytest.raises(GraphQLFailed):
        gh.graphql("query { viewer { login } }")
    with pytest.raises(GraphQLFailed):
        gh.graphql(query.replace("byteSize isBinary", "byteSize size"), {"owner": OWNER, "name": REPO})


# -- checks -------------------------------------------------------------------------------------


def annotation(i: int) -> dict:
    return {
        "path": "docs/guide.md",
        "start_line": 5,
        "end_line": 5,
        "annotation_level": "warning",
        "message": f"#{i}",
    }


def test_graphql_gives_no_text_of_a_file_not_in_utf8_and_the_blobs_api_its_bytes(tmp_path, http):
    files = {"latin.py": b"# caf\xe9\n", "nul.py": b"x = 1  # \x00\n", "ok.py": "é = 1\n"}
    repo_dir, (sha,) = make_repo(tmp_path, [files])
    with GitHubStandIn(repo_dir) as server:
        auth = {"Authorization": f"token {raw_token(http, server)}"}
        fields = "{ ... on Blob { oid text isBinary byteSize } }"
        objects = " ".join(f'f{i}: object(expression: "{sha}:{p}") {fields}' for i, p in enumerate(files))
        query = 'query { repository(owner: "octo-org", name: "docs-repo") { ' + objects + " } }"
        found = http.post(f"{server.url}/graphql", json={"query": query}, headers=auth).json()["data"][
            "repository"
        ]
        assert [(found[f"f{i}"]["text"], found[f"f{i}"]["isBinary"]) for i in range(3)] == [
            (None, False),  # latin-1: not binary, and no UTF-8 text to give
            (None, True),  # a NUL byte: binary
            ("é = 1\n", False),
        ]
        blob = http.get(
            f"{server.url}/repos/{OWNER}/{REPO}/git/blobs/{found['f0']['oid']}", headers=auth
        ).json()
        assert base64.b64decode(blob["content"]) == files["latin.py"]


def test_check_run_lifecycle_and_the_50_annotation_limit(gh, standin, fixture_repo):
    _, shas = fixture_repo
    output = {"title": "docs-sync", "summary": "Checking"}
    created = gh.rest.checks.create(
        OWNER, REPO, name="docs-sync", head_sha=shas["feature"], status="in_progress", output=output
    ).parsed_data
    assert created.status == "in_progress" and [p.number for p in created.pull_requests] == [1]
    too_many = {**output, "annotations": [annotation(i) for i in range(51)]}
    with pytest.raises(RequestFailed) as refused:
        gh.rest.checks.update(OWNER, REPO, created.id, output=too_many)
    assert refused.value.response.status_code == 422
    for batch in range(2):
        gh.rest.checks.update(
            OWNER,
            REPO,
            created.id,
            output={**output, "annotations": [annotation(batch * 50 + i) for i in range(50)]},
        )
    done = gh.rest.checks.update(
        OWNER, REPO, created.id, conclusion="neutral", output={"summary": "2 findings", "title": "docs-sync"}
    ).parsed_data
    assert (done.status, done.conclusion, done.output.annotations_count) == ("completed", "neutral", 100)
    assert done.completed_at is not None
    run = standin.check_runs[0]
    assert [a["message"] for a in run["output"]["annotations"]] == [f"#{i}" for i in range(100)]
    assert run["output"]["summary"] == "2 findings"
    listed = gh.rest.checks.list_for_ref(OWNER, REPO, shas["feature"]).parsed_data
    assert listed.total_count == 1 and listed.check_runs[0].id == created.id
    page = gh.rest.checks.list_annotations(OWNER, REPO, created.id, per_page=100).parsed_data
    assert len(page) == 100


def test_check_run_rules(gh, fixture_repo):
    _, shas = fixture_repo
    head = shas["feature"]

    def status_of(**body) -> int:
        try:
            gh.rest.checks.create(OWNER, REPO, **body)
        except RequestFailed as err:
            return err.response.status_code
        return 201

    assert status_of(name="docs-sync", head_sha=head) == 201
    assert status_of(head_sha=head) == 422
    assert status_of(name="docs-sync", head_sha="0" * 40) == 422
    assert status_of(name="docs-sync", head_sha=head, status="completed") == 422  # no conclusion
    assert status_of(name="docs-sync", head_sha=head, status="done") == 422
    assert status_of(name="docs-sync", head_sha=head, conclusion="stale") == 422
    assert status_of(name="docs-sync", head_sha=head, output={"summary": "no title"}) == 422
    assert status_of(name="docs-sync", head_sha=head, output={"title": "t", "summary": "s" * 65535}) == 201
    assert status_of(name="docs-sync", head_sha=head, output={"title": "t", "summary": "s" * 65536}) == 422
    assert (
        status_of(name="docs-sync", head_sha=head, output={"title": "t", "summary": "s", "text": "t" * 65536})
        == 422
    )
    bad_level = {**annotation(0), "annotation_level": "error"}
    assert (
        status_of(
            name="docs-sync", head_sha=head, output={"title": "t", "summary": "s", "annotations": [bad_level]}
        )
        == 422
    )
    actions = [{"label": "Re-run", "description": "Check the docs again", "identifier": "rerun"}]
    assert status_of(name="docs-sync", head_sha=head, actions=actions) == 201
    assert status_of(name="docs-sync", head_sha=head, actions=actions * 4) == 422
    assert status_of(name="docs-sync", head_sha=head, actions=[{**actions[0], "label": "L" * 21}]) == 422


def test_summary_limit_message(gh, fixture_repo):
    _, shas = fixture_repo
    with pytest.raises(RequestFailed) as refused:
        gh.rest.checks.create(
            OWNER,
            REPO,
            name="docs-sync",
            head_sha=shas["feature"],
            output={"title": "t", "summary": "s" * 65536},
        )
    assert refused.value.response.json()["message"] == (
        "Invalid request.\n\nOnly 65535 characters are allowed; 65536 were supplied."
    )


# -- reviews ------------------------------------------------------------------------------------

OUTSIDE = "Pull request review thread line must be part of the diff"
PRECEDE = "pull_request_review_thread.start_line must precede the end line."
SUGGESTION = "The default is now 4.\n\n```suggestion\nThe default is 4.\n```"


def test_review_with_a_line_outside_the_diff_fails_whole(gh, standin, fixture_repo):
    _, shas = fixture_repo
    comments = [
        {"path": "docs/guide.md", "line": 5, "side": "RIGHT", "body": SUGGESTION},
        {"path": "src/app.py", "line": 30, "side": "RIGHT", "body": "outside every hunk"},
    ]
    with pytest.raises(RequestFailed) as refused:
        gh.rest.pulls.create_review(
            OWNER, REPO, 1, commit_id=shas["feature"], event="COMMENT", comments=comments
        )
    assert refused.value.response.status_code == 422
    assert refused.value.response.json()["errors"] == [
        "Pull request review thread line must be part of the diff"
    ]
    assert standin.reviews == [] and standin.review_comments == []


@pytest.mark.parametrize(
    ("comment", "error"),
    [
        ({"path": "src/app.py", "line": 24}, OUTSIDE),
        ({"path": "src/app.py", "line": 16, "side": "LEFT"}, OUTSIDE),
        ({"path": "README.md", "line": 1}, "Pull request review thread path is invalid"),
        ({"path": "assets/logo.png", "line": 1}, "Pull request review thread diff hunk can't be blank"),
        ({"path": "src/app.py", "line": 20, "start_line": 20, "start_side": "RIGHT"}, PRECEDE),
        ({"path": "src/app.py", "line": 20, "start_line": 18}, PRECEDE),
        (
            {"path": "docs/guide.md", "line": 7, "start_line": 1, "start_side": "RIGHT"},
            "Pull request review thread start line must be part of the same hunk as the line",
        ),
    ],
)
def test_review_comment_placement_rules(gh, comment, error):
    with pytest.raises(RequestFailed) as refused:
        gh.rest.pulls.create_review(OWNER, REPO, 1, event="COMMENT", comments=[{**comment, "body": "x"}])
    assert refused.value.response.status_code == 422
    assert refused.value.response.json()["errors"] == [error]


def test_review_with_a_suggestion_is_recorded(gh, standin, fixture_repo):
    _, shas = fixture_repo
    comments = [
        {"path": "docs/guide.md", "line": 5, "side": "RIGHT", "body": SUGGESTION},
        {
            "path": "docs/guide.md",
            "start_line": 3,
            "start_side": "RIGHT",
            "line": 5,
            "side": "RIGHT",
            "body": "range",
        },
        {"path": "src/app.py", "line": 20, "side": "LEFT", "body": "the removed line"},
        {"path": "new.txt", "position": 4, "body": "by position"},
    ]
    review = gh.rest.pulls.create_review(
        OWNER,
        REPO,
        1,
        commit_id=shas["feature"],
        body="docs-sync found 1 stale line",
        event="COMMENT",
        comments=comments,
    ).parsed_data
    assert review.state == "COMMENTED" and review.commit_id == shas["feature"]
    recorded = standin.reviews[0]["comments"]
    assert [(c["path"], c["line"], c["side"], c["start_line"]) for c in recorded] == [
        ("docs/guide.md", 5, "RIGHT", None),
        ("docs/guide.md", 5, "RIGHT", 3),
        ("src/app.py", 20, "LEFT", None),
        ("new.txt", 21, "RIGHT", None),
    ]
    assert recorded[0]["body"] == SUGGESTION and recorded[0]["diff_hunk"].endswith("+The default is 4.")
    listed = gh.rest.pulls.list_review_comments(OWNER, REPO, 1).parsed_data
    assert [c.id for c in listed] == [c["id"] for c in recorded]
    assert listed[0].user.login == standin.bot_login and listed[0].user.type == "Bot"
    edited = gh.rest.pulls.update_review_comment(OWNER, REPO, listed[0].id, body="fixed").parsed_data
    assert edited.body == "fixed" and standin.review_comments[0]["body"] == "fixed"
    reply = gh.rest.pulls.create_reply_for_review_comment(
        OWNER, REPO, 1, listed[0].id, body="thanks"
    ).parsed_data
    assert reply.in_reply_to_id == listed[0].id
    assert [r.state for r in gh.rest.pulls.list_reviews(OWNER, REPO, 1).parsed_data] == [
        "COMMENTED",
        "COMMENTED",
    ]


def test_review_event_and_body_rules(gh, standin):
    for body in (
        {"event": "COMMENT"},
        {"event": "REQUEST_CHANGES", "comments": []},
        {"event": "LGTM", "body": "x"},
    ):
        with pytest.raises(RequestFailed) as refused:
            gh.rest.pulls.create_review(OWNER, REPO, 1, **body)
        assert refused.value.response.status_code == 422
    file_level = {"path": "docs/guide.md", "subject_type": "file", "body": "x"}
    with pytest.raises(RequestFailed) as refused:
        gh.rest.pulls.create_review(OWNER, REPO, 1, event="COMMENT", comments=[file_level])
    assert refused.value.response.status_code == 422  # only the single-comment call takes subject_type
    single = gh.rest.pulls.create_review_comment(
        OWNER, REPO, 1, commit_id=standin.pull(1)["head"]["sha"], **file_level
    )
    assert single.parsed_data.subject_type == "file"
    pending = gh.rest.pulls.create_review(OWNER, REPO, 1, body="draft").parsed_data
    assert pending.state == "PENDING"
    with pytest.raises(RequestFailed):
        gh.rest.pulls.create_review(OWNER, REPO, 1, body="another draft")


# -- issue comments, reactions, permissions -----------------------------------------------------


def test_issue_comments_and_reactions(gh, standin):
    theirs = standin.add_issue_comment(1, "/docs-sync recheck", user="maintainer")
    mine = gh.rest.issues.create_comment(OWNER, REPO, 1, body="<!-- docs-sync -->\nAll good").parsed_data
    assert mine.user.login == "docs-sync[bot]" and mine.performed_via_github_app.id == standin.app_id
    gh.rest.issues.update_comment(OWNER, REPO, mine.id, body="<!-- docs-sync -->\nOne finding")
    assert [c["body"] for c in standin.issue_comments] == [
        "/docs-sync recheck",
        "<!-- docs-sync -->\nOne finding",
    ]
    listed = gh.rest.issues.list_comments(OWNER, REPO, 1).parsed_data
    assert [c.id for c in listed] == [theirs["id"], mine.id]
    with pytest.raises(RequestFailed) as too_long:
        gh.rest.issues.create_comment(OWNER, REPO, 1, body="x" * 65537)
    assert too_long.value.response.status_code == 422
    assert gh.rest.issues.create_comment(OWNER, REPO, 1, body="x" * 65536).status_code == 201

    first = gh.rest.reactions.create_for_issue_comment(OWNER, REPO, theirs["id"], content="eyes")
    assert first.status_code == 201 and first.parsed_data.content == "eyes"
    assert (
        gh.rest.reactions.create_for_issue_comment(OWNER, REPO, theirs["id"], content="eyes").status_code
        == 200
    )
    with pytest.raises(RequestFailed) as refused:
        gh.rest.reactions.create_for_issue_comment(OWNER, REPO, theirs["id"], content="thumbsup")
    assert refused.value.response.status_code == 422
    assert [(r["content"], r["comment_id"]) for r in standin.reactions] == [("eyes", theirs["id"])]
    assert gh.rest.issues.get_comment(OWNER, REPO, theirs["id"]).parsed_data.reactions.eyes == 1


def test_collaborator_permission(gh, standin):
    standin.set_permission("maintainer", "maintain")
    standin.set_permission("reader", "triage")
    standin.set_permission("visitor", "none")
    seen = {}
    for login in ("maintainer", "reader", "visitor"):
        answer = gh.rest.repos.get_collaborator_permission_level(OWNER, REPO, login).parsed_data
        seen[login] = (answer.permission, answer.role_name, answer.user.login)
    assert seen == {
        "maintainer": ("write", "maintain", "maintainer"),
        "reader": ("read", "triage", "reader"),
        "visitor": ("none", "none", "visitor"),
    }
    with pytest.raises(RequestFailed) as unknown:
        gh.rest.repos.get_collaborator_permission_level(OWNER, REPO, "stranger")
    assert unknown.value.response.status_code == 404


# -- failures and limits ------------------------------------------------------------------------


def test_injected_server_error_and_rate_limits_come_back(gh, standin):
    standin.fail_next("GET", r"/pulls/1/files$", 503)
    with pytest.raises(RequestFailed) as server_error:
        gh.rest.pulls.list_files(OWNER, REPO, 1)
    assert server_error.value.response.status_code == 503
    assert gh.rest.pulls.list_files(OWNER, REPO, 1).status_code == 200  # only the next call failed

    standin.fail_next("POST", r"/issues/1/comments$", 403, headers={"retry-after": "7"})
    with pytest.raises(SecondaryRateLimitExceeded) as secondary:
        gh.rest.issues.create_comment(OWNER, REPO, 1, body="hello")
    assert secondary.value.retry_after == timedelta(seconds=7)
    assert "secondary rate limit" in secondary.value.response.json()["message"]

    reset = int(time.time()) + 30
    standin.fail_next(
        "*",
        r"/pulls/1$",
        429,
        times=2,
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)},
    )
    for _ in range(2):
        with pytest.raises(PrimaryRateLimitExceeded) as primary:
            gh.rest.pulls.get(OWNER, REPO, 1)
        assert timedelta(seconds=25) < primary.value.retry_after <= timedelta(seconds=30)
    assert gh.rest.pulls.get(OWNER, REPO, 1).status_code == 200
    assert [r[2] for r in standin.calls("GET", r"/pulls/1$")] == [429, 429, 200]


def test_content_creation_limit(fixture_repo):
    repo_dir, _ = fixture_repo
    with GitHubStandIn(repo_dir, content_limit_per_minute=3) as server:
        server.open_pull(1, "main", "feature")
        with client(server) as gh:
            for i in range(3):
                gh.rest.issues.create_comment(OWNER, REPO, 1, body=f"comment {i}")
            with pytest.raises(SecondaryRateLimitExceeded) as limited:
                gh.rest.issues.create_comment(OWNER, REPO, 1, body="one too many")
            assert timedelta(seconds=1) <= limited.value.retry_after <= timedelta(seconds=60)
            assert limited.value.response.status_code == 403
            assert gh.rest.issues.list_comments(OWNER, REPO, 1).status_code == 200  # reads go on
        assert len(server.issue_comments) == 3


def test_etag_revalidation_answers_304(gh, standin, fixture_repo, http):
    _, shas = fixture_repo
    url = f"{standin.url}/repos/{OWNER}/{REPO}/pulls/1"
    auth = {"Authorization": f"token {raw_token(http, standin)}"}
    first = http.get(url, headers=auth)
    assert first.headers["etag"].startswith('W/"')
    assert http.get(url, headers={**auth, "If-None-Match": first.headers["etag"]}).status_code == 304
    assert http.get(url, headers={**auth, "If-None-Match": 'W/"other"'}).status_code == 200
    # githubkit's HTTP cache revalidates every GET; an unchanged answer comes back from its store
    path = "src/app.py"
    for _ in range(2):
        cached = gh.rest.repos.get_content(OWNER, REPO, path, ref=shas["base"])
        assert cached.status_code == 200 and base64.b64decode(cached.parsed_data.content) == APP_PY.encode()
    assert [r[2] for r in standin.calls("GET", f"/contents/{path}$")] == [200, 304]


def test_make_repo_builds_history_and_work_tree(tmp_path):
    repo_dir, shas = make_repo(
        tmp_path, [{"a.py": "a = 1\n", "b.md": "B\n"}, {"a.py": "a = 2\n", "b.md": None}]
    )
    assert (
        len(shas) == 2 and (repo_dir / "a.py").read_text() == "a = 2\n" and not (repo_dir / "b.md").exists()
    )
    assert run_git(repo_dir, "rev-parse", "main").decode().strip() == shas[1]
    side = add_commit(repo_dir, {"c.txt": "C\n"}, parent=shas[0], branch="side")
    assert run_git(repo_dir, "show", f"{side}:b.md") == b"B\n"
    assert run_git(repo_dir, "rev-parse", "side").decode().strip() == side
    assert (repo_dir / "a.py").read_text() == "a = 2\n" and not (repo_dir / "c.txt").exists()
    on_main = add_commit(repo_dir, {"a.py": "a = 3\n"}, branch="main")
    assert (repo_dir / "a.py").read_text() == "a = 3\n"
    assert run_git(repo_dir, "rev-parse", "HEAD^").decode().strip() == shas[1] != on_main


# -- writing commits: the git data API --------------------------------------------------------------


@pytest.fixture
def writable(tmp_path, http):
    """A repository of its own (these tests move branches): main, and topic one commit ahead,
    with pull request 1 from topic; the server and a token's headers."""
    repo_dir, (base,) = make_repo(tmp_path, [{"docs/a.md": "old line\n", "src/x.py": "x = 1\n"}])
    topic = add_commit(repo_dir, {"src/x.py": "x = 2\n"}, parent="main", branch="topic")
    with GitHubStandIn(repo_dir) as server:
        server.open_pull(1, "main", "topic")
        yield server, {"Authorization": f"token {raw_token(http, server)}"}, base, topic


def _commit_on(http, server, auth, parent: str, text: str) -> str:
    api = f"{server.url}/repos/{OWNER}/{REPO}/git"
    tree_sha = run_git(server.repo.path, "rev-parse", f"{parent}^{{tree}}").decode().strip()
    entry = {"path": "docs/a.md", "mode": "100644", "type": "blob", "content": text}
    tree = http.post(f"{api}/trees", json={"base_tree": tree_sha, "tree": [entry]}, headers=auth)
    assert tree.status_code == 201, tree.text
    body = {"message": "docs-sync: fix a.md", "tree": tree.json()["sha"], "parents": [parent]}
    commit = http.post(f"{api}/commits", json=body, headers=auth)
    assert commit.status_code == 201, commit.text
    assert (
        commit.json()["parents"][0]["sha"] == parent and commit.json()["author"]["name"] == "docs-sync[bot]"
    )
    return commit.json()["sha"]


def test_a_tree_a_commit_and_a_fast_forward_move_the_pull_request(writable, http):
    server, auth, _, topic = writable
    sha = _commit_on(http, server, auth, topic, "new line\n")
    repo = server.repo.path
    assert run_git(repo, "show", f"{sha}:docs/a.md") == b"new line\n"
    assert run_git(repo, "show", f"{sha}:src/x.py") == b"x = 2\n"  # the base tree's other files stay
    url = f"{server.url}/repos/{OWNER}/{REPO}/git/refs/heads/topic"
    moved = http.patch(url, json={"sha": sha, "force": False}, headers=auth)
    assert moved.status_code == 200 and moved.json()["object"]["sha"] == sha
    assert moved.json()["ref"] == "refs/heads/topic"
    assert server.pull(1)["head"]["sha"] == sha
    # GitHub sends pull_request.synchronize for the push, the App's own included.
    ((event, payload),) = server.deliveries
    assert (event, payload["action"], payload["before"], payload["after"]) == (
        "pull_request",
        "synchronize",
        topic,
        sha,
    )
    assert payload["pull_request"]["head"]["sha"] == sha and payload["installation"]["id"] == 42


def test_a_ref_update_that_is_not_a_fast_forward_is_refused_unless_forced(writable, http):
    server, auth, base, topic = writable
    sibling = _commit_on(http, server, auth, base, "from main\n")  # not on top of topic
    url = f"{server.url}/repos/{OWNER}/{REPO}/git/refs/heads/topic"
    refused = http.patch(url, json={"sha": sibling, "force": False}, headers=auth)
    assert refused.status_code == 422 and refused.json()["message"] == "Update is not a fast forward"
    assert server.pull(1)["head"]["sha"] == topic and server.deliveries == []
    assert http.patch(url, json={"sha": sibling}, headers=auth).status_code == 422  # force defaults to false
    assert http.patch(url, json={"sha": sibling, "force": True}, headers=auth).status_code == 200
    missing = http.patch(url.replace("topic", "no-such-branch"), json={"sha": sibling}, headers=auth)
    assert missing.status_code == 422 and missing.json()["message"] == "Reference does not exist"
    unknown = http.patch(url, json={"sha": "0" * 40}, headers=auth)
    assert unknown.status_code == 422 and unknown.json()["message"] == "Object does not exist"


def test_trees_and_commits_are_checked_as_github_checks_them(writable, http):
    server, auth, base, _ = writable
    api = f"{server.url}/repos/{OWNER}/{REPO}/git"
    both = {"path": "a", "mode": "100644", "type": "blob", "content": "x", "sha": base}
    assert http.post(f"{api}/trees", json={"tree": [both]}, headers=auth).status_code == 422
    wrong_mode = {"path": "a", "mode": "040000", "type": "blob", "content": "x"}
    assert http.post(f"{api}/trees", json={"tree": [wrong_mode]}, headers=auth).status_code == 422
    bad_base = {
        "base_tree": "f" * 40,
        "tree": [{"path": "a", "mode": "100644", "type": "blob", "content": "x"}],
    }
    assert http.post(f"{api}/trees", json=bad_base, headers=auth).status_code == 422
    tree = run_git(server.repo.path, "rev-parse", f"{base}^{{tree}}").decode().strip()
    no_parent = http.post(
        f"{api}/commits", json={"message": "m", "tree": tree, "parents": ["e" * 40]}, headers=auth
    )
    assert no_parent.status_code == 422
    assert no_parent.json()["message"] == "Parent SHA does not exist or is not a commit object"
    no_tree = http.post(
        f"{api}/commits", json={"message": "m", "tree": "e" * 40, "parents": [base]}, headers=auth
    )
    assert no_tree.status_code == 422 and no_tree.json()["message"] == "Tree SHA does not exist"


def test_writing_commits_needs_contents_write(writable, http):
    server, auth, base, topic = writable
    server.app_permissions = {**server.app_permissions, "contents": "read"}
    api = f"{server.url}/repos/{OWNER}/{REPO}"
    tree = run_git(server.repo.path, "rev-parse", f"{topic}^{{tree}}").decode().strip()
    entry = {"path": "docs/a.md", "mode": "100644", "type": "blob", "content": "x\n"}
    calls = [
        http.post(f"{api}/git/trees", json={"base_tree": tree, "tree": [entry]}, headers=auth),
        http.post(
            f"{api}/git/commits", json={"message": "m", "tree": tree, "parents": [topic]}, headers=auth
        ),
        http.patch(f"{api}/git/refs/heads/topic", json={"sha": base, "force": True}, headers=auth),
    ]
    assert [c.status_code for c in calls] == [403, 403, 403]
    assert {c.json()["message"] for c in calls} == {"Resource not accessible by integration"}
    assert http.get(f"{api}/contents/docs/a.md", headers=auth).status_code == 200  # reading still works
    assert server.pull(1)["head"]["sha"] == topic


def test_a_forks_repository_is_out_of_the_installations_reach(writable, http):
    server, auth, _, topic = writable
    server.open_pull(2, "main", "topic", user="forker", head_repo_fork=True)
    head_repo = server.pull(2)["head"]["repo"]["full_name"]
    assert head_repo == f"forker/{REPO}"
    url = f"{server.url}/repos/{head_repo}/git/refs/heads/topic"
    assert http.patch(url, json={"sha": topic}, headers=auth).status_code == 404
    assert http.get(f"{server.url}/repos/{head_repo}", headers=auth).status_code == 404


def test_a_published_repository_is_public_read_only(standin, http, tmp_path):
    sister, _ = make_repo(tmp_path, [{"cli.py": "import argparse\n"}], name="sister")
    run_git(sister, "tag", "v1.0")
    standin.publish(sister, "sgl", "sister")
    auth = {"Authorization": f"token {raw_token(http, standin)}"}
    api = f"{standin.url}/repos/sgl/sister"
    tree = http.get(f"{api}/git/trees/v1.0?recursive=1", headers=auth)
    assert tree.status_code == 200 and [e["path"] for e in tree.json()["tree"]] == ["cli.py"]
    query = (
        'query { repository(owner: "sgl", name: "sister") '
        '{ f0: object(expression: "v1.0:cli.py") { ... on Blob { text } } } }'
    )
    answer = http.post(f"{standin.url}/graphql", json={"query": query}, headers=auth).json()
    assert answer["data"]["repository"]["f0"]["text"] == "import argparse\n"
    # Read only, and still behind a token; forgotten on reset.
    assert http.post(f"{api}/git/trees", json={"tree": []}, headers=auth).status_code == 404
    assert http.get(f"{api}/git/trees/v1.0").status_code == 401
    standin.reset()
    assert http.get(f"{api}/git/trees/v1.0", headers=auth).status_code == 404


def test_no_path_reaches_two_endpoints_of_one_method(fixture_repo):
    # The router tries the areas' endpoints in no particular order: that is sound only while a path
    # fullmatches at most one pattern of its method. Each endpoint's own sample path must reach it alone.
    samples = {"path": "docs/a.md", "basehead": "main...feature"}
    group = re.compile(r"\(\?P<(\w+)>(?:\[\^/\]\+|\\d\+|\.\+|\.\*)\)")
    routes = GitHubStandIn(fixture_repo[0])._routes
    assert len(routes) == 45
    for method, pattern, _, handler in routes:
        sample = group.sub(lambda m: samples.get(m.group(1), "7"), pattern.pattern.removesuffix("/?"))
        sample = sample.replace("(?:", "").replace(")?", "").replace("\\", "")
        reached = [h.__name__ for m, p, _, h in routes if m == method and p.fullmatch(sample)]
        assert reached == [handler.__name__], (method, sample)
