"""The files of a rule's other projects: a sister repository fetched through git (a local bare
repository here, through DOCS_SYNC_OTHERS_GIT), an installed distribution read from
site-packages; bounded, cached, never run; what could not be read is said."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bot.core.check.others import known
from bot.core.rules import Other, Rule
from bot.trees import others
from bot.trees.others import Unreadable, read, read_all

CLI = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--tp-size', type=int)\n"


def _git(where: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    return subprocess.run(
        ["git", "-C", str(where), *args],
        check=True,
        capture_output=True,
        text=True,
        env={**env, "PATH": "/usr/bin:/bin"},
    ).stdout


@pytest.fixture
def sister(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """org/sister at tag v1.0, served from a bare repository under tmp_path/remotes."""
    work = tmp_path / "work"
    (work / "sister").mkdir(parents=True)
    (work / "sister" / "cli.py").write_text(CLI)
    (work / "sister" / "model.py").write_text("x = 1\n")
    (work / "README.md").write_text("# sister\n")
    _git(work, "init", "-q", "-b", "main")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "sister")
    _git(work, "tag", "v1.0")
    remote = tmp_path / "remotes" / "org" / "sister"
    remote.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(remote)], check=True)
    # As GitHub serves: trees without blobs first, then the blobs asked for by id.
    _git(remote, "config", "uploadpack.allowFilter", "true")
    _git(remote, "config", "uploadpack.allowAnySHA1InWant", "true")
    monkeypatch.setenv(others.GIT_URL, f"file://{tmp_path}/remotes/{{repo}}")
    return remote


OTHER = Other(repo="org/sister", ref="v1.0", paths=("sister/c*.py",))


def test_a_sister_repository_is_fetched_at_its_ref_with_only_the_files_its_paths_match(sister, tmp_path):
    tree = read(OTHER, tmp_path / "cache")
    assert tree.paths() == {"sister/cli.py"} and tree.read("sister/cli.py") == CLI
    assert "--tp-size" in known([OTHER], {OTHER: tree}).flags
    # Kept by (repo, ref, paths): the next run reads no remote at all.
    subprocess.run(["rm", "-rf", str(sister)], check=True)
    assert read(OTHER, tmp_path / "cache").read("sister/cli.py") == CLI
    assert list((tmp_path / "cache").iterdir()) == [
        next((tmp_path / "cache").glob("*.json"))
    ]  # no scratch left


@pytest.mark.parametrize(
    ("other", "words"),
    [
        (Other(repo="org/sister", ref="v9.9", paths=("sister/*.py",)), "git fetch failed"),
        (Other(repo="org/missing", ref="v1.0", paths=("sister/*.py",)), "git fetch failed"),
        (
            Other(repo="org/sister", ref="v1.0", paths=("docs/*.py",)),
            "no file of org/sister@v1.0 matches docs/*.py",
        ),
    ],
)
def test_what_cannot_be_read_is_said(sister, tmp_path, other, words):
    with pytest.raises(Unreadable, match=re.escape(words)):
        read(other, tmp_path / "cache")


def test_the_files_read_are_bounded_before_any_is_fetched(sister, tmp_path, monkeypatch):
    monkeypatch.setattr(others, "MAX_FILES", 1)
    with pytest.raises(Unreadable, match="2 files of org/sister@v1.0 match its paths; at most 1"):
        read(Other(repo="org/sister", ref="v1.0", paths=("sister/*.py",)), tmp_path / "cache")
    monkeypatch.setattr(others, "MAX_FILES", 10)
    monkeypatch.setattr(others, "MAX_BYTES", 10)
    with pytest.raises(Unreadable, match="at most 10 are read"):
        read(Other(repo="org/sister", ref="v1.0", paths=("sister/*.py",)), tmp_path / "cache")


def test_every_rule_naming_an_unreadable_other_gets_a_config_finding(sister, tmp_path):
    bad = Other(repo="org/sister", ref="v9.9", paths=("sister/*.py",))
    rules = [Rule(id=f"r{i}", docs=(), sources=(), others=(OTHER, bad)) for i in range(2)]
    trees, found = read_all(rules, tmp_path / "cache")
    assert list(trees) == [OTHER]
    assert [(f.kind, f.rule, f.symbol, f.severity) for f in found] == [
        ("config", "r0", "org/sister@v9.9", "warning"),
        ("config", "r1", "org/sister@v9.9", "warning"),
    ]
    assert found[0].message.startswith("other project org/sister@v9.9 could not be read (git fetch failed")


def test_an_installed_distribution_is_read_from_site_packages_never_imported(tmp_path):
    pytest_main = Other(package="pytest", paths=("_pytest/main.py",))
    tree = read(pytest_main)
    assert tree.paths() == {"_pytest/main.py"}
    assert {"--maxfail", "--strict-markers"} <= known([pytest_main], {pytest_main: tree}).flags
    with pytest.raises(Unreadable, match="package no-such-dist-here is not installed here"):
        read(Other(package="no-such-dist-here"))
