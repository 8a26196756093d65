"""Fixtures shared by the App's tests: the trainer repository of tests/appkit.py served by the
GitHub stand-in, one server per test module, reset before each test.

A module with another repository (tests/app/test_github.py) defines its own `repo_and_shas` and
`server`, which take precedence; so does a module with its own `bot`.
"""

from __future__ import annotations

import pytest

from bot.testing.appkit import build_repo
from bot.testing.standin import GitHubStandIn
from tests.appkit import CheckBot


@pytest.fixture(scope="module")
def repo_and_shas(tmp_path_factory, request):
    return build_repo(tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2]))


@pytest.fixture(scope="module")
def server(repo_and_shas):
    with GitHubStandIn(repo_and_shas[0]) as standin:
        yield standin


@pytest.fixture
def standin(server):
    """The module's stand-in, emptied; the test fails if the App made a call GitHub refuses."""
    server.reset()
    yield server
    refused = [r for r in server.requests if r[2] == 422]
    assert not refused, f"GitHub would refuse {refused}"


@pytest.fixture
def bot(standin, repo_and_shas, tmp_path):
    """The check job's handler over a fresh queue, fed pull_request deliveries (tests.appkit.CheckBot)."""
    b = CheckBot(standin, repo_and_shas[1], tmp_path)
    yield b
    b.queue.close()
