"""The stand-in's commit history: GET commits (sha, path, pages) and GET commits/{ref} with files."""

from __future__ import annotations

import pytest
from githubkit import AppAuthStrategy, GitHub

from bot.testing.standin import GitHubStandIn, add_commit, make_repo

OWNER, REPO = "octo-org", "docs-repo"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("commits")
    repo_dir, _ = make_repo(root, [{"pkg/old/a.py": "A = 1\n", "pkg/args.py": "FLAG = '--x'\n"}])
    moved = add_commit(
        repo_dir,
        {"pkg/old/a.py": None, "pkg/new/a.py": "A = 1\n"},
        message="move the package (#12)",
        branch="main",
    )
    renamed = add_commit(
        repo_dir, {"pkg/args.py": "FLAG = '--y'\n"}, message="rename the flag (#13)", branch="main"
    )
    add_commit(repo_dir, {"README.md": "hi\n"}, message="readme", branch="main")
    with GitHubStandIn(repo_dir) as standin:
        yield standin, {"moved": moved, "renamed": renamed}


def client(server: GitHubStandIn) -> GitHub:
    gh = GitHub(AppAuthStrategy(server.app_id, server.private_key_pem), base_url=server.url, auto_retry=False)
    return gh.with_auth(gh.auth.as_installation(server.installation_id))


def test_commits_of_a_path_newest_first_and_paginated(server):
    standin, shas = server
    with client(standin) as gh:
        every = gh.rest.repos.list_commits(OWNER, REPO).parsed_data
        assert [c.commit.message for c in every][:2] == ["readme", "rename the flag (#13)"]
        of_args = gh.rest.repos.list_commits(OWNER, REPO, path="pkg/args.py", sha="main").parsed_data
        assert [c.sha for c in of_args][0] == shas["renamed"] and len(of_args) == 2
        of_folder = gh.rest.repos.list_commits(OWNER, REPO, path="pkg/old").parsed_data
        assert [c.sha for c in of_folder][0] == shas["moved"]
        first = gh.rest.repos.list_commits(OWNER, REPO, per_page=1)
        assert len(first.parsed_data) == 1 and 'rel="next"' in first.headers["link"]
        older = gh.rest.repos.list_commits(OWNER, REPO, sha=shas["moved"]).parsed_data
        assert older[0].sha == shas["moved"]


def test_a_commit_lists_its_files_with_patches_and_renames(server):
    standin, shas = server
    with client(standin) as gh:
        moved = gh.rest.repos.get_commit(OWNER, REPO, shas["moved"]).parsed_data
        (entry,) = moved.files
        assert (entry.status, entry.previous_filename, entry.filename) == (
            "renamed",
            "pkg/old/a.py",
            "pkg/new/a.py",
        )
        renamed = gh.rest.repos.get_commit(OWNER, REPO, shas["renamed"]).parsed_data
        assert "-FLAG = '--x'" in renamed.files[0].patch and "+FLAG = '--y'" in renamed.files[0].patch
        assert renamed.stats.total == 2
        assert renamed.parents[0].sha == shas["moved"]
