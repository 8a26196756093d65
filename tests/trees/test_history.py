"""The history of a git revision: git's pickaxe and renames, bounded, cached, and silent on a
shallow clone."""

from __future__ import annotations

import json
import subprocess

import pytest

from bot import cli
from bot.core.check.history import Commit
from bot.trees.git import GitRepo
from bot.trees.history import GitHistory

ARGS = "pkg/args.py"
DOC = "docs/guide.md"


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def parser(*flags: str) -> str:
    calls = "".join(f"p.add_argument({f})\n" for f in flags)
    return f"import argparse\n\np = argparse.ArgumentParser()\n{calls}"


def commit(repo, message, files, remove=()):
    for path in remove:
        git(repo, "rm", "-rq", path)
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD").strip()


RULES = """\
rules:
  - id: guide
    docs:
      - path: docs/guide.md
    sources:
      - id: cli
        kind: argparse
        path: pkg/args.py
      - id: cited
        kind: paths
"""


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    commit(
        path,
        "add the trainer (#1)",
        {
            ARGS: parser('"--disable-fp32-master", dest="keep_fp32_master", action="store_false"'),
            "pkg/experimental/fsdp/actor.py": "class Actor:\n    pass\n",
            "pkg/experimental/fsdp/parallel.py": "MESH = ('dp',)\n",
            DOC: "# Guide\n\nTrain with `--disable-fp32-master`.\n",
            "rules.yml": RULES,
        },
    )
    commit(
        path,
        "refactor: move the FSDP backend out of experimental (#2272)",
        {"pkg/fsdp/actor.py": "class Actor:\n    pass\n", "pkg/fsdp/parallel.py": "MESH = ('dp',)\n"},
        remove=["pkg/experimental"],
    )
    commit(
        path,
        "fix(fsdp): stop store_true from shadowing bool defaults (#2384)",
        {
            ARGS: parser('"--keep-fp32-master", action=argparse.BooleanOptionalAction, default=True'),
            DOC: "# Guide\n\nTrain with `--no-keep-fp32-master`.\n",
        },
    )
    commit(path, "docs: a typo (#2400)", {"README.md": "hello\n"})
    return path


def test_pickaxe_finds_the_commits_that_changed_a_token_newest_first(repo):
    with GitRepo(repo) as r:
        history = GitHistory(r, "HEAD")
        found = history.touching(["--disable-fp32-master"], [ARGS])
        assert [c.subject for c in found] == [
            "fix(fsdp): stop store_true from shadowing bool defaults (#2384)",
            "add the trainer (#1)",
        ]
        before, after = history.trees(found[0])
        assert "--disable-fp32-master" in before.read(ARGS) and "--disable" not in after.read(ARGS)
        assert history.trees(found[1]) is None  # the first commit has no parent
        # A whole token only: `--keep-fp32-master` is no occurrence of `--fp32-master`.
        assert history.touching(["--fp32-master"], [ARGS]) == []
        # Paths limit the search.
        assert history.touching(["--disable-fp32-master"], ["README.md"]) == []
        # Only history at or before the revision asked about.
        assert GitHistory(r, "HEAD~2").touching(["--disable-fp32-master"], [ARGS])[0].subject == (
            "add the trainer (#1)"
        )


def test_moves_name_the_commit_and_its_renames(repo):
    with GitRepo(repo) as r:
        (move,) = GitHistory(r, "HEAD").moves("pkg/experimental/fsdp/")
        assert move.commit.subject.endswith("(#2272)")
        assert move.renames == {
            "pkg/experimental/fsdp/actor.py": "pkg/fsdp/actor.py",
            "pkg/experimental/fsdp/parallel.py": "pkg/fsdp/parallel.py",
        }
        assert GitHistory(r, "HEAD").moves("pkg/never") == []


def test_answers_are_cached_by_revision(repo):
    cache: dict[str, object] = {}
    with GitRepo(repo) as r:
        cold = GitHistory(r, "HEAD", cache)
        first = cold.touching(["--disable-fp32-master"], [ARGS]), cold.moves("pkg/experimental/fsdp")
        warm = GitHistory(r, "HEAD", cache)
        again = warm.touching(["--disable-fp32-master"], [ARGS]), warm.moves("pkg/experimental/fsdp")
        assert again == first
        assert cold.calls >= 3 and warm.calls == 1  # the shallowness check only
        assert warm.trees(again[0][0]) is not None  # parents come back with the answer


def test_out_of_time_answers_nothing(repo):
    with GitRepo(repo) as r:
        history = GitHistory(r, "HEAD", total_seconds=0)
        assert history.touching(["--disable-fp32-master"], [ARGS]) == []
        assert history.moves("pkg/experimental/fsdp") == []
        assert history.timed_out and history.calls == 0


def test_a_shallow_clone_has_no_history(repo, tmp_path):
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{repo}", str(shallow))
    with GitRepo(shallow) as r:
        history = GitHistory(r, "HEAD")
        assert history.shallow()
        assert history.touching(["--disable-fp32-master"], [ARGS]) == []
        assert history.moves("pkg/experimental/fsdp") == []
        assert history.trees(Commit(r.resolve("HEAD"), "x")) is None


def stale_line(repo):
    """A doc edit in the working tree citing what the history renamed and moved."""
    page = repo / DOC
    page.write_text(
        page.read_text() + "\nOr `--disable-fp32-master`; the code is in `pkg/experimental/fsdp/`.\n"
    )


def run(repo, *extra, capsys):
    code = cli.main(
        ["check", "--repo", str(repo), "--base", "HEAD", "--worktree", "--rules", str(repo / "rules.yml"),
         "--format", "json", "--no-cache", *extra]
    )  # fmt: skip
    return code, json.loads(capsys.readouterr().out)


def test_check_suggests_what_history_says_replaced_a_token(repo, capsys):
    stale_line(repo)
    code, report = run(repo, capsys=capsys)
    assert code == 1
    messages = sorted(f["message"] for f in report["findings"])
    head = git(repo, "rev-parse", "--short=7", "HEAD~1").strip()
    move = git(repo, "rev-parse", "--short=7", "HEAD~2").strip()
    assert messages == [
        f"`--disable-fp32-master` became `--no-keep-fp32-master` in {head} (#2384)",
        f"`pkg/experimental/fsdp/` moved to `pkg/fsdp/` in {move} (#2272)",
    ]
    (replacement,) = {f["suggestion"]["replacement"] for f in report["findings"]}
    assert replacement == "Or `--no-keep-fp32-master`; the code is in `pkg/fsdp/`."


def test_a_line_the_change_wrote_saying_a_flag_is_gone_gets_no_history(repo, capsys):
    # An upgrade guide's line: the history would say what became of the flag, the line says it.
    page = repo / DOC
    told = (
        "\nPreviously you passed `--disable-fp32-master` to keep it.\n\n"
        "The `--disable-fp32-master` flag has been removed.\n"
    )
    page.write_text(page.read_text() + told)
    code, report = run(repo, capsys=capsys)
    assert (code, report["findings"]) == (0, [])
    page.write_text(page.read_text() + "\nTrain with `--disable-fp32-master`.\n")
    code, report = run(repo, capsys=capsys)
    assert [f["doc"]["line"] for f in report["findings"]] == [len(page.read_text().splitlines())]


def test_no_history_switch_and_a_shallow_clone_check_without_it(repo, tmp_path, capsys):
    stale_line(repo)
    _, report = run(repo, "--no-history", capsys=capsys)
    assert not any("#2384" in f["message"] or "#2272" in f["message"] for f in report["findings"])
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    stale_line(shallow)
    code, report = run(shallow, capsys=capsys)
    assert code in (0, 1)  # a check, not a crash
    assert not any("#2384" in f["message"] or "#2272" in f["message"] for f in report["findings"])


def test_prefetch_answers_many_tokens_in_one_pass_as_each_alone(repo):
    questions = [["--disable-fp32-master"], ["--keep-fp32-master", "keep_fp32_master"], ["--never-there"]]
    with GitRepo(repo) as r:
        alone = GitHistory(r, "HEAD")
        expected = [alone.touching(q, [ARGS]) for q in questions]
        batch = GitHistory(r, "HEAD")
        batch.prefetch(questions, [ARGS])
        calls = batch.calls
        assert [batch.touching(q, [ARGS]) for q in questions] == expected
        assert batch.calls == calls == 2  # the shallowness check and one git log
        assert expected[0] and expected[1] and not expected[2]


def test_never_is_said_only_of_what_a_whole_read_of_the_history_did_not_find(repo, tmp_path):
    with GitRepo(repo) as r:
        history = GitHistory(r, "HEAD")
        assert history.never(["--num-experts"], [ARGS])
        assert not history.never(["--disable-fp32-master"], [ARGS])  # it had it, once
        assert not history.never(["--keep-fp32-master"], [ARGS])
        # What could not be read is not "never": out of time, or a shallow clone.
        assert not GitHistory(r, "HEAD", total_seconds=0).never(["--num-experts"], [ARGS])
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    with GitRepo(shallow) as r:
        assert not GitHistory(r, "HEAD").never(["--num-experts"], [ARGS])


def test_never_had_names_the_paths_no_commit_ever_had(repo):
    with GitRepo(repo) as r:
        history = GitHistory(r, "HEAD")
        asked = ["pkg/experimental/fsdp", "pkg/experimental/fsdp/actor.py", "examples/pretrain.sh", "pkg"]
        assert history.never_had(asked) == {"examples/pretrain.sh"}  # the others were there once
        assert GitHistory(r, "HEAD", total_seconds=0).never_had(asked) == frozenset()
