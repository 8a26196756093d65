"""The stand-in builds the shapes the adapter declares: every answer the App's `Repo` and `GitHubApp`
return holds each field its TypedDict (bot/app/github/shapes.py) requires, with the declared type.

The adapter casts GitHub's JSON to those TypedDicts without looking; this is where a shape the
stand-in builds and a field the App reads are held together."""

from __future__ import annotations

import collections.abc
import types
from typing import Any, Union, get_args, get_origin, get_type_hints

import pytest
from typing_extensions import NotRequired, is_typeddict

from bot.app.github.client import GitHubApp, Repo
from bot.testing.standin import GitHubStandIn, make_repo


def mismatches(value: Any, shape: Any, where: str = "answer") -> list[str]:
    """Where `value` is not of the type `shape` (a TypedDict, list, union, None or a scalar)."""
    origin = get_origin(shape)
    if shape is Any:
        return []
    if shape is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if origin in (Union, types.UnionType):
        found = [mismatches(value, arm, where) for arm in get_args(shape)]
        return [] if any(not f for f in found) else min(found, key=len)
    if origin is tuple:
        if not isinstance(value, tuple) or len(value) != len(get_args(shape)):
            return [f"{where}: {value!r} is not a {shape}"]
        return [
            m for i, arm in enumerate(get_args(shape)) for m in mismatches(value[i], arm, f"{where}[{i}]")
        ]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, not a list"]
        return [
            m for i, item in enumerate(value) for m in mismatches(item, get_args(shape)[0], f"{where}[{i}]")
        ]
    if is_typeddict(shape):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not an object ({shape.__name__})"]
        found = []
        for key, hint in get_type_hints(shape, include_extras=True).items():
            optional = get_origin(hint) is NotRequired
            if key not in value:
                found += [] if optional else [f"{where}.{key}: missing ({shape.__name__})"]
            else:
                found += mismatches(value[key], get_args(hint)[0] if optional else hint, f"{where}.{key}")
        return found
    # a bool is an int to isinstance, not to GitHub's schema
    ok = isinstance(value, shape) and not (shape is int and isinstance(value, bool))
    return [] if ok else [f"{where}: {value!r} is not {shape.__name__}"]


def returned(method: Any) -> Any:
    shape = get_type_hints(method)["return"]
    return list[get_args(shape)[0]] if get_origin(shape) is collections.abc.Iterator else shape


def _shaped_calls() -> list[Any]:
    def shaped(hint: Any) -> bool:
        return is_typeddict(hint) or any(shaped(arg) for arg in get_args(hint))

    return [
        member
        for cls in (Repo, GitHubApp)
        for name, member in vars(cls).items()
        if callable(member) and not name.startswith("_") and shaped(get_type_hints(member).get("return"))
    ]


@pytest.fixture(scope="module")
def repo_dir_and_shas(tmp_path_factory):
    return make_repo(
        tmp_path_factory.mktemp("shapes"),
        [
            {"docs/guide.md": "# Guide\n\nRun `app --foo`.\n", "src/app.py": "x = 1\n"},
            {"src/app.py": "x = 2\n"},
        ],
    )


def test_every_answer_the_adapter_returns_is_the_shape_it_declares(repo_dir_and_shas):
    repo_dir, (base, head) = repo_dir_and_shas
    with GitHubStandIn(repo_dir, app_id=8317) as standin:
        standin.open_pull(5, base, head)
        standin.set_permission("octocat", "write")
        app = GitHubApp(standin.app_id, standin.private_key_pem, standin.url, write_interval_s=0)
        repo = app.repo(standin.installation_id, standin.owner, standin.name)
        run = repo.create_check_run({"name": "docs-sync", "head_sha": head, "status": "in_progress"})
        review = repo.create_review(
            5,
            {
                "commit_id": head,
                "event": "COMMENT",
                "comments": [{"path": "src/app.py", "line": 1, "side": "RIGHT", "body": "a note"}],
            },
        )
        (comment,) = repo.review_comments(5)
        issue_comment = repo.create_issue_comment(5, "a summary")
        standin.send_hook("ping", {"zen": "Keep it logically awesome.", "hook_id": 1})
        answers = {
            GitHubApp.installation_id: app.installation_id(standin.owner, standin.name),
            GitHubApp.installations: app.installations(),
            GitHubApp.installation_repositories: app.installation_repositories(standin.installation_id, 1),
            GitHubApp.hook_deliveries: list(app.hook_deliveries(1)),
            Repo.pull: repo.pull(5),
            Repo.pulls_of_commit: repo.pulls_of_commit(head),
            Repo.open_pulls: repo.open_pulls(),
            Repo.pull_files: repo.pull_files(5),
            Repo.merge_base: repo.merge_base(base, head),
            Repo.blobs: repo.blobs([f"{head}:src/app.py", f"{head}:nowhere.py"]),
            Repo.commits: repo.commits(head, "src/app.py", 10),
            Repo.commit: repo.commit(head),
            Repo.tree: repo.tree(head),
            Repo.create_check_run: run,
            Repo.check_runs: repo.check_runs(head, "docs-sync"),
            Repo.update_check_run: repo.update_check_run(
                run["id"], {"output": {"title": "Docs", "summary": "ok"}, "conclusion": "success"}
            ),
            Repo.create_review: review,
            Repo.review_comments: [comment],
            Repo.update_review_comment: repo.update_review_comment(comment["id"], "a better note"),
            Repo.issue_comments: repo.issue_comments(5),
            Repo.create_issue_comment: issue_comment,
            Repo.update_issue_comment: repo.update_issue_comment(issue_comment["id"], "a new summary"),
            Repo.permission: repo.permission("octocat"),
        }
    assert answers[Repo.blobs][1] is None and answers[Repo.permission] == "write"
    found = {method.__name__: mismatches(value, returned(method)) for method, value in answers.items()}
    assert {name: m for name, m in found.items() if m} == {}
    # every call of the adapter that returns one of GitHub's shapes is asked here
    assert [m.__qualname__ for m in _shaped_calls() if m not in answers] == []


@pytest.mark.parametrize(
    ("value", "shape"),
    [({"login": 7}, "Account"), ([{"sha": "a"}], "list[Commit]"), ({"number": 1}, "Pull"), (True, "int")],
)
def test_a_shape_the_stand_in_got_wrong_is_named(value, shape):
    from bot.app.github import shapes

    hint = eval(shape, {**vars(shapes), "list": list, "int": int})  # noqa: S307 - the test's own names
    assert mismatches(value, hint) != []
