import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from bot.core.model import Report
from bot.render.common import RenderError
from bot.render.patch import to_patch
from tests.render.sample import PAGE, finding, page

# The user's own git settings (diff.noprefix, diff.context, ...) must not change what git writes.
GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], input=stdin, capture_output=True, text=True, check=True, env=GIT_ENV
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "docs@example.com")
    git(tmp_path, "config", "user.name", "docs")
    git(tmp_path, "config", "core.autocrlf", "false")
    return tmp_path


def commit(repo: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(text.encode())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "docs")


def apply(repo: Path, patch: str) -> None:
    git(repo, "apply", "--check", stdin=patch)
    git(repo, "apply", stdin=patch)


def git_diff(repo: Path) -> list[str]:
    """`git diff` as docs-sync writes it: without blob ids and the function names after each `@@`."""
    lines = git(repo, "diff").splitlines()
    return [re.sub(r"^(@@ [^@]* @@).*", r"\1", line) for line in lines if not line.startswith("index ")]


def test_the_patch_applies_and_matches_git_diff(repo: Path):
    files = {PAGE: page(40), "docs/other.md": page(5)}
    commit(repo, files)
    report = Report(
        (
            finding("--a", line=3, replacement="line three"),
            finding("--b", line=20, replacement="", span=(20, 21)),  # deleted
            finding("--c", line=35, replacement="new 35\nnew 35b"),
            finding("--d", line=5, doc_path="docs/other.md", replacement="the end"),
        )
    )
    patch = to_patch(report, files.get)
    apply(repo, patch)

    expected = page(40).replace("line 3\n", "line three\n").replace("line 20\nline 21\n", "")
    expected = expected.replace("line 35\n", "new 35\nnew 35b\n")
    assert (repo / PAGE).read_text() == expected
    assert (repo / "docs/other.md").read_text() == page(4) + "the end\n"
    # Hunk for hunk what git itself writes (less its blob ids): three context lines, one hunk a region.
    assert patch.splitlines() == git_diff(repo)
    assert patch.count("@@ -") == 4


@pytest.mark.parametrize(("second", "hunks"), [(17, 1), (18, 2)])
def test_changes_six_lines_apart_share_a_hunk_as_in_git(repo: Path, second: int, hunks: int):
    commit(repo, {PAGE: page(30)})
    report = Report(
        (finding("--a", line=10, replacement="ten"), finding("--b", line=second, replacement="new"))
    )
    patch = to_patch(report, {PAGE: page(30)}.get)
    assert patch.count("@@ -") == hunks
    apply(repo, patch)
    assert (repo / PAGE).read_text() == page(30).replace("line 10\n", "ten\n").replace(
        f"line {second}\n", "new\n"
    )
    assert patch.splitlines() == git_diff(repo)


def test_one_suggestion_made_by_several_findings_is_written_once(repo: Path):
    commit(repo, {PAGE: page(10)})
    same = [finding(s, line=4, replacement="line 4 fixed") for s in ("--a", "--b", "--c")]
    patch = to_patch(Report(tuple(same)), {PAGE: page(10)}.get)
    assert patch.count("+line 4 fixed") == 1
    apply(repo, patch)


def test_overlapping_suggestions_keep_the_first_and_say_so(repo: Path):
    commit(repo, {PAGE: page(10)})
    report = Report((finding("--a", line=4, replacement="four"), finding("--b", line=4, replacement="FOUR")))
    patch = to_patch(report, {PAGE: page(10)}.get)
    assert patch.splitlines()[0] == f"# docs-sync: left out, overlaps another suggestion: {PAGE} lines 4-4"
    apply(repo, patch)  # git apply skips the note
    assert (repo / PAGE).read_text() == page(10).replace("line 4\n", "four\n")


@pytest.mark.parametrize("path", ["docs/with space.md", 'docs/q"uote.md', "docs/ünï.md", "docs/tab\there.md"])
def test_awkward_paths(repo: Path, path: str):
    commit(repo, {path: page(3)})
    patch = to_patch(Report((finding(line=2, doc_path=path, replacement="two"),)), {path: page(3)}.get)
    apply(repo, patch)
    assert (repo / path).read_text() == "line 1\ntwo\nline 3\n"


def test_nothing_to_change_is_an_empty_patch():
    assert to_patch(Report((finding(),)), {}.get) == ""  # no suggestion
    same = finding(line=2, replacement="line 2")  # suggests what is already there
    assert to_patch(Report((same,)), {PAGE: page(3)}.get) == ""


def test_a_patch_that_cannot_be_written_says_why():
    f = finding(line=5, replacement="x")
    with pytest.raises(RenderError, match="needs the doc pages"):
        to_patch(Report((f,)), None)
    with pytest.raises(RenderError, match=f"{PAGE} cannot be read"):
        to_patch(Report((f,)), {}.get)
    with pytest.raises(RenderError, match="outside"):
        to_patch(Report((f,)), {PAGE: page(3)}.get)
    with pytest.raises(RenderError, match="bare CR"):
        to_patch(Report((f,)), {PAGE: "a\rb\rc\rd\re\r"}.get)


def _expected(text: str, edits: list[tuple[int, int, str]]) -> tuple[list[str], bool]:
    """The page's lines (without endings) after the edits, and whether it should end in a newline."""
    lines = text.replace("\r\n", "\n").split("\n")
    ends = lines[-1] == ""
    if ends:
        lines.pop()
    deletes_open_end = False
    for start, end, replacement in sorted(edits, reverse=True):
        new = replacement.split("\n") if replacement else []
        if not ends and end == len(lines) and start <= end and not new:
            deletes_open_end = True  # the line before keeps its newline
        lines[start - 1 : end] = new
    return lines, ends or deletes_open_end or not lines


def test_random_pages_and_suggestions_apply_as_meant(repo: Path):
    rng = random.Random(6)
    words = ["alpha", "beta", "", "  indented", "--flag", "`code`", "tail \\"]
    for case in range(150):
        n = rng.randrange(0, 12)
        eol = rng.choice(["\n", "\r\n"])
        lines = [f"{rng.choice(words)} {i}" for i in range(1, n + 1)]
        text = eol.join(lines) + (eol if lines and rng.random() < 0.7 else "")
        edits: list[tuple[int, int, str]] = []
        line = 1
        while line <= n + 1 and len(edits) < 4:
            line += rng.randrange(0, 4)
            if line > n + 1:
                break
            kind = rng.choice(["replace", "delete", "insert", "multi"])
            if kind == "insert" or line == n + 1:
                edits.append((line, line - 1, f"new {case}-{line}"))
                line += 1
                continue
            end = min(n, line + rng.randrange(0, 3)) if kind == "multi" else line
            replacement = (
                "" if kind == "delete" else "\n".join(f"r{case}-{k}" for k in range(rng.randrange(1, 3)))
            )
            edits.append((line, end, replacement))
            line = end + 1
        findings = tuple(
            finding(f"--f{i}", line=max(1, s), span=(s, e), replacement=r)
            for i, (s, e, r) in enumerate(edits)
        )
        path = f"docs/case{case}.md"
        (repo / "docs").mkdir(exist_ok=True)
        (repo / path).write_bytes(text.encode())
        patch = to_patch(Report(findings), {PAGE: text}.get)
        patch = patch.replace(f"a/{PAGE}", f"a/{path}").replace(f"b/{PAGE}", f"b/{path}")
        if patch:
            apply(repo, patch)
        result = (repo / path).read_bytes().decode()
        want_lines, want_newline = _expected(text, edits)
        got = result.split("\n") if result else []
        assert result.endswith("\n") == want_newline or not result, (case, text, edits, patch)
        if result.endswith("\n"):
            got.pop()
        assert [line.removesuffix("\r") for line in got] == want_lines, (case, text, edits, patch)
        if "\r\n" in text:  # the page's own line ending, for the new lines too
            assert all(line.endswith("\r") for line in result.split("\n")[:-1]), (case, patch)
