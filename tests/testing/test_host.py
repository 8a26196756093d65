"""GitHubHost: many repositories and installations of one App on one port, each repository with
its own files, pull requests and recorded writes; tokens, ids and the write limit as GitHub
shares them."""

from __future__ import annotations

import time

import httpx
import jwt
import pytest

from bot.testing.standin import GitHubHost, make_repo

APP_ID = 7301  # no other test's: tokens are per App


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    root = tmp_path_factory.mktemp("host")
    host = GitHubHost(APP_ID, content_limit_per_minute=3)
    shas = {}
    for name, installation in (("alpha", 1), ("beta", 2), ("gamma", 1)):
        repo_dir, shas[name] = make_repo(
            root, [{"README.md": f"# {name}\n"}, {"README.md": f"# {name}\n\nMore.\n"}], name=name
        )
        host.add_repository(repo_dir, "acme" if installation == 1 else "other-org", name, installation)
    with host:
        for name in ("alpha", "beta", "gamma"):
            owner = "acme" if name != "beta" else "other-org"
            host.repository(owner, name).open_pull(1, shas[name][0], shas[name][1])
        yield host, shas


def token(host: GitHubHost, installation: int) -> dict[str, str]:
    now = int(time.time())
    signed = jwt.encode(
        {"iss": str(APP_ID), "iat": now - 30, "exp": now + 300}, host.private_key_pem, "RS256"
    )
    answer = httpx.post(
        f"{host.url}/app/installations/{installation}/access_tokens",
        headers={"Authorization": f"Bearer {signed}"},
    )
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"token {answer.json()['token']}"}


def test_each_repository_has_its_own_pull_requests_and_files(host):
    host, shas = host
    acme = token(host, 1)
    for name in ("alpha", "gamma"):
        pull = httpx.get(f"{host.url}/repos/acme/{name}/pulls/1", headers=acme).json()
        assert pull["head"]["sha"] == shas[name][1] and pull["base"]["repo"]["full_name"] == f"acme/{name}"
        readme = httpx.get(
            f"{host.url}/repos/acme/{name}/contents/README.md",
            headers={**acme, "Accept": "application/vnd.github.raw"},
        )
        assert readme.text == f"# {name}\n\nMore.\n"
    ids = {httpx.get(f"{host.url}/repos/acme/{n}", headers=acme).json()["id"] for n in ("alpha", "gamma")}
    assert len(ids) == 2  # every repository its own id


def test_a_token_reaches_only_its_installations_repositories(host):
    host, _ = host
    acme, other = token(host, 1), token(host, 2)
    assert httpx.get(f"{host.url}/repos/other-org/beta/pulls/1", headers=acme).status_code == 404
    assert httpx.get(f"{host.url}/repos/other-org/beta/pulls/1", headers=other).status_code == 200
    assert httpx.get(f"{host.url}/repos/acme/alpha/pulls/1", headers=other).status_code == 404
    assert httpx.get(f"{host.url}/repos/acme/nowhere", headers=acme).status_code == 404
    now = int(time.time())
    signed = jwt.encode(
        {"iss": str(APP_ID), "iat": now - 30, "exp": now + 300}, host.private_key_pem, "RS256"
    )
    jwt_auth = {"Authorization": f"Bearer {signed}"}
    assert httpx.get(f"{host.url}/repos/other-org/beta/installation", headers=jwt_auth).json()["id"] == 2
    assert httpx.get(f"{host.url}/repos/acme/gamma/installation", headers=jwt_auth).json()["id"] == 1
    assert httpx.get(f"{host.url}/app/installations/2", headers=jwt_auth).json()["account"]["login"] == (
        "other-org"
    )
    query = (
        'query { repository(owner: "acme", name: "gamma") '
        '{ r: object(expression: "HEAD:README.md") { ... on Blob { text } } } }'
    )
    mine = httpx.post(f"{host.url}/graphql", json={"query": query}, headers=acme).json()
    assert mine["data"]["repository"]["r"]["text"] == "# gamma\n\nMore.\n"
    theirs = httpx.post(f"{host.url}/graphql", json={"query": query}, headers=other).json()
    assert theirs["data"]["repository"] is None and theirs["errors"][0]["type"] == "NOT_FOUND"


def test_writes_are_recorded_by_repository_with_ids_unique_across_them_and_limited_by_installation(host):
    host, shas = host
    acme = token(host, 1)
    made = []
    for name in ("alpha", "gamma"):
        answer = httpx.post(
            f"{host.url}/repos/acme/{name}/check-runs",
            headers=acme,
            json={"name": "docs-sync", "head_sha": shas[name][1]},
        )
        assert answer.status_code == 201, answer.text
        made.append(answer.json()["id"])
    alpha, gamma = host.repository("acme", "alpha"), host.repository("ACME", "Gamma")
    assert [r["id"] for r in alpha.check_runs] == made[:1] and [r["id"] for r in gamma.check_runs] == made[1:]
    assert host.repository("other-org", "beta").check_runs == []
    # The limit (3 a minute here) counts the installation's writes over all its repositories:
    # the third lands, the fourth is refused, while the other installation still writes.
    body = {"name": "docs-sync", "head_sha": shas["alpha"][1]}
    assert httpx.post(f"{host.url}/repos/acme/alpha/check-runs", headers=acme, json=body).status_code == 201
    refused = httpx.post(f"{host.url}/repos/acme/gamma/check-runs", headers=acme, json=body)
    assert refused.status_code == 403 and "secondary rate limit" in refused.json()["message"]
    other = token(host, 2)
    body = {"name": "docs-sync", "head_sha": shas["beta"][1]}
    assert (
        httpx.post(f"{host.url}/repos/other-org/beta/check-runs", headers=other, json=body).status_code == 201
    )
