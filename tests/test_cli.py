"""`docs-sync` end to end on git repositories built in a temp dir, run as a real subprocess."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.testing import trainer as demo

RULES = Path(__file__).resolve().parents[1] / "rules"


def docs_sync(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, cwd=cwd, env=env
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "trainer"
    demo.build_demo_repo(path)
    return path


def test_json_contract(repo: Path):
    proc = docs_sync(
        "check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json", "--no-cache"
    )
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"conclusion", "findings", "ignored"}
    assert data["conclusion"] == "failure"
    kinds = sorted((f["kind"], f["symbol"]) for f in data["findings"])
    assert kinds == [
        ("changed", "--attn-implementation"),
        ("renamed", "--disable-fp32-master"),
        ("unresolved", "--fsdp-cpu-ofload"),
    ]
    for f in data["findings"]:
        assert set(f) == {"kind", "severity", "symbol", "message", "doc", "code", "suggestion"}
        assert f["severity"] in ("error", "warning", "notice")
        assert set(f["doc"]) == {"path", "line", "section", "anchor"}
        assert set(f["suggestion"]) == {"path", "start_line", "end_line", "replacement"}
    renamed = next(f for f in data["findings"] if f["kind"] == "renamed")
    assert renamed["doc"]["section"] == "Training backends > FSDP > Precision"
    assert renamed["code"]["path"] == "trainer/backends/fsdp/arguments.py"
    assert "--no-keep-fp32-master" in renamed["suggestion"]["replacement"]


def test_fail_on_never_and_formats(repo: Path):
    base = ["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--no-cache"]
    assert docs_sync(*base, "--fail-on", "never").returncode == 0
    text = docs_sync(*base)
    assert "Training backends > FSDP > Precision" in text.stdout and "\x1b[" not in text.stdout
    gh = docs_sync(*base, "--format", "github")
    assert "::error file=docs/training-backend.md,line=" in gh.stdout
    md = docs_sync(*base, "--format", "markdown")
    assert "--no-keep-fp32-master" in md.stdout


def test_clean_range_succeeds(repo: Path):
    proc = docs_sync("check", "--repo", str(repo), "--base", "main", "--head", "main", "--format", "json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {"conclusion": "success", "findings": [], "ignored": []}


def test_rules_come_from_the_base_revision(repo: Path, tmp_path: Path):
    # A pull request that deletes the config cannot switch its own check off.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "pr"], check=True)
    subprocess.run(["git", "-C", str(clone), "rm", "-q", ".github/docs-sync.yml"], check=True)
    subprocess.run(
        ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "no config"],
        check=True,
    )
    proc = docs_sync(
        "check", "--repo", str(clone), "--base", "origin/main", "--head", "HEAD", "--format", "json"
    )
    assert proc.returncode == 1
    assert len(json.loads(proc.stdout)["findings"]) == 3


def test_audit_at_head_and_explicit_rules(repo: Path):
    proc = docs_sync("audit", "--repo", str(repo), "--rev", "pr", "--format", "json", "--no-cache")
    data = json.loads(proc.stdout)
    # At the PR head the doc still cites the old switch and the typo, and claims the old default.
    assert sorted((f["kind"], f["symbol"]) for f in data["findings"]) == [
        ("unresolved", "--disable-fp32-master"),
        ("unresolved", "--fsdp-cpu-ofload"),
        ("wrong-default", "--attn-implementation"),
    ]
    assert proc.returncode == 1
    assert docs_sync("audit", "--repo", str(repo), "--no-cache").returncode == 0


def test_usage_and_config_errors_exit_2(repo: Path, tmp_path: Path):
    bad = tmp_path / "bad.yml"
    bad.write_text("pack: bad\nrules:\n  - id: r\n    sorces: []\n")
    proc = docs_sync("check", "--repo", str(repo), "--base", "main", "--rules", str(bad))
    assert proc.returncode == 2
    assert "bad.yml:4" in proc.stderr and "sorces" in proc.stderr
    proc = docs_sync("check", "--repo", str(repo), "--base", "no-such-rev")
    assert proc.returncode == 2 and "no-such-rev" in proc.stderr
    proc = docs_sync("check", "--repo", str(repo), "--base", "main", "--rules", "no-such-pack")
    assert proc.returncode == 2 and "miles" in proc.stderr
    empty = tmp_path / "empty"
    subprocess.run(["git", "init", "-q", str(empty)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(empty),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        check=True,
    )
    proc = docs_sync("check", "--repo", str(empty), "--base", "HEAD")
    assert proc.returncode == 2 and ".github/docs-sync.yml" in proc.stderr
    assert docs_sync("check").returncode == 2  # argparse: --base is required


def test_warm_cache_gives_the_same_answer(repo: Path, tmp_path: Path):
    import os

    env = dict(os.environ, DOCS_SYNC_CACHE=str(tmp_path / "cache"))
    args = ("check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json")
    cold = docs_sync(*args, env=env)
    warm = docs_sync(*args, env=env)
    assert (tmp_path / "cache" / "facts.sqlite").exists()
    assert cold.stdout == warm.stdout and json.loads(warm.stdout)["findings"]


def test_demo_runs_the_check_and_the_app_loop():
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "demo"], capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stderr
    cli, _, app = proc.stdout.partition("== 2. The GitHub App")
    assert "renamed  --disable-fp32-master" in cli
    # The App posted through the stand-in: a failing check run with annotations, a review whose
    # doc comment carries a one-click suggestion, and the summary comment.
    assert "conclusion failure" in app and "annotation failure  docs/training-backend.md:32" in app
    assert "```suggestion" in app and "--fsdp-cpu-offload" in app
    assert "Summary comment on the pull request" in app


def test_demo_cli_only():
    proc = docs_sync("demo", "--cli-only")
    assert proc.returncode == 0, proc.stderr
    assert "--no-keep-fp32-master" in proc.stdout and "== 2." not in proc.stdout


def test_version_is_the_packages_static_string():
    import bot

    proc = docs_sync("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"docs-sync {bot.__version__}"
    # The string is static (reading the installed metadata costs every start): keep it in step.
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert f'\nversion = "{bot.__version__}"\n' in pyproject


def _closed_early(*args: str) -> tuple[int, str]:
    """Run docs-sync with its stdout a pipe whose reader has gone before anything is written:
    (exit code, stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err.decode()


def test_a_closed_pipe_ends_quietly_with_the_checks_exit_code(repo: Path):
    args = ("check", "--repo", str(repo), "--base", "main", "--head", "pr", "--no-cache")
    # The check failed, whoever stopped reading; with --fail-on never it passes.
    assert _closed_early(*args) == (1, "")
    assert _closed_early(*args, "--fail-on", "never") == (0, "")


def test_demo_into_head_ends_quietly():
    # The demo prints, then runs the check as a child process on the same pipe: both see it close.
    code, err = _closed_early("demo", "--cli-only")
    assert code == 1 and "Traceback" not in err and "Exception ignored" not in err, err
    proc = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m bot demo --cli-only | head -n 2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.stdout.startswith("== 1. docs-sync check") and len(proc.stdout.splitlines()) == 2
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr


def _clone(repo: Path, tmp_path: Path) -> Path:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(repo), str(clone)], check=True)
    return clone


def test_worktree_checks_uncommitted_edits(repo: Path, tmp_path: Path):
    clone = _clone(repo, tmp_path)
    args = ("check", "--repo", str(clone), "--base", "HEAD", "--worktree", "--format", "json", "--no-cache")
    clean = docs_sync(*args)
    assert clean.returncode == 0, clean.stderr
    assert json.loads(clean.stdout)["findings"] == []

    doc = clone / "docs" / "training-backend.md"
    lines = doc.read_text().splitlines(keepends=True)
    lines.append("\nPass `--fsdp-cpu-offlaod` to offload.\n")
    doc.write_text("".join(lines))
    added_line = len(lines) + 1
    proc = docs_sync(*args)
    assert proc.returncode == 1, proc.stderr
    (finding,) = json.loads(proc.stdout)["findings"]
    assert (finding["kind"], finding["symbol"]) == ("unresolved", "--fsdp-cpu-offlaod")
    assert finding["doc"]["line"] == added_line
    assert "--fsdp-cpu-offload" in finding["suggestion"]["replacement"]

    # Staged or not, the same edit is seen; committing it is what makes the committed range see it.
    subprocess.run(["git", "-C", str(clone), "add", "docs"], check=True)
    assert docs_sync(*args).stdout == proc.stdout
    head_only = docs_sync("check", "--repo", str(clone), "--base", "HEAD", "--format", "json", "--no-cache")
    assert json.loads(head_only.stdout)["findings"] == []


def test_worktree_sees_an_unstaged_code_change_under_a_documented_flag(repo: Path, tmp_path: Path):
    clone = _clone(repo, tmp_path)
    # Apply the pull request's code change to the files on disk only, uncommitted.
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "origin/pr", "--", "trainer"], check=True)
    subprocess.run(["git", "-C", str(clone), "reset", "-q"], check=True)  # unstage it again
    proc = docs_sync("check", "--repo", str(clone), "--base", "HEAD", "--worktree", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    kinds = {(f["kind"], f["symbol"]) for f in json.loads(proc.stdout)["findings"]}
    assert ("renamed", "--disable-fp32-master") in kinds


def test_worktree_takes_no_head(repo: Path):
    proc = docs_sync("check", "--repo", str(repo), "--base", "main", "--head", "pr", "--worktree")
    assert proc.returncode == 2 and "--worktree" in proc.stderr


def test_a_damaged_cache_file_only_costs_speed(repo: Path, tmp_path: Path):
    import os

    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "facts.sqlite").write_bytes(b"not a database, " * 512)
    env = dict(os.environ, DOCS_SYNC_CACHE=str(cache))
    proc = docs_sync(
        "check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json", env=env
    )
    assert proc.returncode == 1, proc.stderr
    assert len(json.loads(proc.stdout)["findings"]) == 3


# -- configuration errors, validate, audit --baseline --------------------------------------------


def _commit(repo: Path, message: str) -> None:
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", message],
        check=True,
    )


CLI_SRC = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--alpha", type=int, default=1)\n'


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """A tiny repository: one CLI module, two pages, a config with a glob."""
    repo = tmp_path / "small"
    (repo / "tool").mkdir(parents=True)
    (repo / "docs" / "guide").mkdir(parents=True)
    (repo / ".github").mkdir()
    (repo / "tool" / "cli.py").write_text(CLI_SRC)
    (repo / "docs" / "index.md").write_text("# Tool\n\nRun `--alpha 2`.\n")
    (repo / "docs" / "guide" / "more.md").write_text("# More\n\n## Flags\n\n`--alpha` is the knob.\n")
    (repo / ".github" / "docs-sync.yml").write_text(
        "rules:\n"
        "  - id: cli-docs\n"
        "    docs:\n"
        '      - path: "docs/**/*.md"\n'
        "    sources:\n"
        "      - id: cli\n"
        "        kind: argparse\n"
        '        paths: ["tool/*.py"]\n'
    )
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _commit(repo, "start")
    return repo


def test_a_config_naming_what_the_repository_lacks_exits_2_naming_line_and_key(small: Path):
    config = small / ".github" / "docs-sync.yml"
    config.write_text(config.read_text().replace('["tool/*.py"]', '["tool/*.py", tool/clj.py]'))
    _commit(small, "typo")
    proc = docs_sync("check", "--repo", str(small), "--base", "HEAD", "--head", "HEAD", "--no-cache")
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.strip() == (
        "docs-sync: .github/docs-sync.yml:8: rules[0].sources[0].paths[1]: "
        "`cli` source 'tool/clj.py' is not in the repository at base or head"
    )
    proc = docs_sync("audit", "--repo", str(small), "--no-cache")
    assert proc.returncode == 2 and "tool/clj.py" in proc.stderr


def test_a_listed_file_deleted_earlier_is_a_finding_on_its_entry_and_the_rest_is_checked(small: Path):
    (small / "tool" / "extra.py").write_text(CLI_SRC.replace("alpha", "beta"))
    config = small / ".github" / "docs-sync.yml"
    config.write_text(config.read_text().replace('["tool/*.py"]', '["tool/*.py", tool/extra.py]'))
    _commit(small, "an extra parser, listed by name")
    (small / "tool" / "extra.py").unlink()
    _commit(small, "the extra parser goes")
    # A later change renames a documented flag: the check still runs, and says what the config lacks.
    (small / "tool" / "cli.py").write_text(CLI_SRC.replace("--alpha", "--alpha-value"))
    _commit(small, "rename")
    proc = docs_sync("check", "--repo", str(small), "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    found = [(f["kind"], f["symbol"], f["severity"]) for f in json.loads(proc.stdout)["findings"]]
    assert ("config", "tool/extra.py", "warning") in found
    assert ("renamed", "--alpha", "error") in found or ("removed", "--alpha", "error") in found
    config_finding = next(f for f in json.loads(proc.stdout)["findings"] if f["kind"] == "config")
    assert config_finding["message"].startswith(".github/docs-sync.yml:8: rules[0].sources[0].paths[1]: ")
    assert config_finding["code"] == {"path": ".github/docs-sync.yml", "line": 8}


def test_a_sister_repositorys_flags_are_read_through_git_and_a_failed_fetch_is_said(
    small: Path, tmp_path: Path
):
    # org/sister at v1.0, served from a bare repository the setting points at.
    sister = tmp_path / "sister"
    (sister / "sister").mkdir(parents=True)
    (sister / "sister" / "serve.py").write_text(CLI_SRC.replace("--alpha", "--alpah-size"))
    subprocess.run(["git", "init", "-q", "-b", "main", str(sister)], check=True)
    _commit(sister, "sister")
    subprocess.run(["git", "-C", str(sister), "tag", "v1.0"], check=True)
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(sister), str(tmp_path / "remotes" / "org" / "sister")],
        check=True,
    )
    (small / "docs" / "guide" / "more.md").write_text(
        "# More\n\n## Flags\n\n`--alpha` is the knob; the server takes `--alpah-size`.\n"
    )
    config = small / ".github" / "docs-sync.yml"
    others = '    others: [{repo: org/sister, ref: v1.0, paths: ["sister/*.py"]}]\n'
    config.write_text(config.read_text() + others)
    _commit(small, "a page citing the sister's server")
    env = {
        **os.environ,
        "DOCS_SYNC_OTHERS_GIT": f"file://{tmp_path}/remotes/{{repo}}",
        "DOCS_SYNC_CACHE": str(tmp_path / "cache"),
    }
    proc = docs_sync("audit", "--repo", str(small), "--format", "json", "--no-cache", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["findings"] == []
    assert docs_sync("validate", "--repo", str(small), env=env).returncode == 0
    # A ref the sister lacks: the rule says so on its line, and the flag is nobody's again.
    config.write_text(config.read_text().replace("ref: v1.0", "ref: v2.0"))
    _commit(small, "a newer sister")
    proc = docs_sync("audit", "--repo", str(small), "--format", "json", "--no-cache", env=env)
    assert proc.returncode == 1, proc.stderr
    found = json.loads(proc.stdout)["findings"]
    assert [(f["kind"], f["symbol"], f["severity"]) for f in found] == [
        ("config", "org/sister@v2.0", "warning"),
        ("unresolved", "--alpah-size", "error"),
    ]
    assert found[0]["message"].startswith(
        ".github/docs-sync.yml:9: rules[0].others[0]: "
        "other project org/sister@v2.0 could not be read (git fetch failed"
    )
    # `validate` holds it to be fixed: the config names what cannot be read.
    proc = docs_sync("validate", "--repo", str(small), env=env)
    assert proc.returncode == 2 and "other project org/sister@v2.0 could not be read" in proc.stderr


def test_a_glob_and_a_section_that_match_nothing_exit_2(small: Path, tmp_path: Path):
    rules = tmp_path / "rules.yml"
    rules.write_text(
        "rules:\n"
        "  - id: r\n"
        "    docs:\n"
        '      - path: "docs/**/*.rst"\n'
        "      - path: docs/guide/more.md\n"
        '        sections: ["Flags"]\n'
        "    sources:\n"
        '      - {id: cli, kind: argparse, path: "mytool/*.py"}\n'
    )
    proc = docs_sync("audit", "--repo", str(small), "--rules", str(rules), "--no-cache")
    assert proc.returncode == 2
    nothing = "matches no file at base or head"
    assert proc.stderr.splitlines() == [
        f"docs-sync: {rules}:4: rules[0].docs[0].path: pattern 'docs/**/*.rst' {nothing}",
        f"docs-sync: {rules}:8: rules[0].sources[0].path: pattern 'mytool/*.py' {nothing}",
    ]
    rules.write_text(rules.read_text().replace("docs/**/*.rst", "docs/**/*.md").replace("mytool", "tool"))
    proc = docs_sync("audit", "--repo", str(small), "--rules", str(rules), "--no-cache")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"docs-sync: {rules}:6: rules[0].docs[1].sections[0]: "
        "section 'Flags' matches no heading of docs/guide/more.md (did you mean 'More > Flags'?)"
    )


def test_validate_reports_schema_matches_and_examples(small: Path, tmp_path: Path):
    proc = docs_sync("validate", "--repo", str(small))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        f".github/docs-sync.yml: 1 rule, matched against {small} at HEAD; 0 of 0 examples pass: ok"
    )
    # The built-in pack's examples all pass; outside a repository nothing is matched.
    proc = docs_sync("validate", "--rules", "miles", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\b(\d+) of \1 examples pass: ok", proc.stdout), proc.stdout
    assert "not matched against a repository" in proc.stdout

    renamed = CLI_SRC.replace("alpha", "alphas")
    failing = tmp_path / "failing.yml"
    failing.write_text(
        "pack: failing\nrules:\n  - id: r\n    docs: [{path: docs/index.md}]\n"
        "    sources: [{id: cli, kind: argparse, path: tool/cli.py}]\n"
        "    examples:\n"
        "      - name: a rename nobody sees\n"
        "        files:\n"
        f"          tool/cli.py: {{base: {json.dumps(CLI_SRC)}, head: {json.dumps(renamed)}}}\n"
        '          docs/index.md: {base: "Use `--alpha`.\\n"}\n'
        "        expect: []\n"
    )
    proc = docs_sync("validate", "--repo", str(small), "--rules", str(failing))
    assert proc.returncode == 1
    assert f"{failing}:7: example 'a rename nobody sees' of rule 'r' fails:" in proc.stdout
    assert "unexpected renamed on '--alpha'" in proc.stdout
    assert proc.stdout.strip().endswith("0 of 1 example pass: examples fail")

    broken = tmp_path / "broken.yml"
    broken.write_text(
        failing.read_text().replace("path: tool/cli.py}", "path: tool/cly.py}").replace("failing", "broken")
    )
    proc = docs_sync("validate", "--repo", str(small), "--rules", str(broken))
    assert proc.returncode == 2
    assert f"docs-sync: {broken}:5: rules[0].sources[0].path:" in proc.stderr
    assert proc.stdout.strip().endswith(": invalid")

    syntax = tmp_path / "syntax.yml"
    syntax.write_text("rules:\n  - id: r\n    docs: [{path: docs/index.md}\n")
    proc = docs_sync("validate", "--rules", str(syntax), cwd=tmp_path)
    assert proc.returncode == 2 and f"{syntax}:4: syntax:" in proc.stderr


def test_audit_baseline_records_then_reports_only_new_findings(small: Path, tmp_path: Path):
    (small / "docs" / "index.md").write_text("# Tool\n\nRun `--alpah 2`.\n")
    _commit(small, "a stale flag")
    file = tmp_path / "baseline.json"
    first = docs_sync(
        "audit", "--repo", str(small), "--baseline", str(file), "--format", "json", "--no-cache"
    )
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["findings"] == []
    assert f"recorded 1 finding in {file}" in first.stderr
    assert [e["symbol"] for e in json.loads(file.read_text())["findings"]] == ["--alpah"]

    # The old mistake moves down the page; a new one appears.
    (small / "docs" / "index.md").write_text("# Tool\n\nIntro.\n\nRun `--alpah 2`.\n\nOr `--alhpa 3`.\n")
    _commit(small, "more")
    later = docs_sync(
        "audit", "--repo", str(small), "--baseline", str(file), "--format", "json", "--no-cache"
    )
    assert later.returncode == 1
    assert [(f["symbol"], f["doc"]["line"]) for f in json.loads(later.stdout)["findings"]] == [("--alhpa", 7)]
    assert json.loads(file.read_text())["findings"][0]["symbol"] == "--alpah"  # the file is not rewritten

    file.write_text("not json")
    proc = docs_sync("audit", "--repo", str(small), "--baseline", str(file), "--no-cache")
    assert proc.returncode == 2 and "not a docs-sync baseline" in proc.stderr


def test_check_baseline_reports_only_what_the_audit_baseline_does_not_record(small: Path, tmp_path: Path):
    (small / "docs" / "index.md").write_text("# Tool\n\nRun `--alpah 2`.\n\nOne.\nTwo.\nThree.\n")
    _commit(small, "a stale flag")
    file = tmp_path / "baseline.json"
    check = ["check", "--repo", str(small), "--base", "HEAD~1", "--format", "json", "--no-cache"]
    missing = docs_sync(*check, "--baseline", str(file))
    assert missing.returncode == 2 and f"no baseline {file}" in missing.stderr and not file.exists()
    assert docs_sync("audit", "--repo", str(small), "--baseline", str(file), "--no-cache").returncode == 0

    # The change moves the recorded debt below a paragraph (so it writes that line again) and
    # writes a new mistake.
    moved = "# Tool\n\nOne.\nTwo.\nThree.\n\nRun `--alpah 2`.\n\nOr `--alhpa 3`.\n"
    (small / "docs" / "index.md").write_text(moved)
    _commit(small, "more")
    plain = docs_sync(*check)
    assert sorted(f["symbol"] for f in json.loads(plain.stdout)["findings"]) == ["--alhpa", "--alpah"]
    known = docs_sync(*check, "--baseline", str(file))
    assert known.returncode == 1, known.stderr
    assert [(f["symbol"], f["doc"]["line"]) for f in json.loads(known.stdout)["findings"]] == [("--alhpa", 9)]


def test_rules_given_in_the_config_format(small: Path, tmp_path: Path):
    config = tmp_path / "my-config.yml"
    config.write_text((small / ".github" / "docs-sync.yml").read_text() + "fail_on: never\n")
    (small / "docs" / "index.md").write_text("# Tool\n\nRun `--alpah 2`.\n")
    _commit(small, "a stale flag")
    proc = docs_sync("audit", "--repo", str(small), "--rules", str(config), "--format", "json", "--no-cache")
    assert proc.returncode == 0  # the config's fail_on applies
    assert [f["symbol"] for f in json.loads(proc.stdout)["findings"]] == ["--alpah"]


def test_init_prints_or_writes_a_config_that_works_on_the_first_run(small: Path):
    proc = docs_sync("init", "--repo", str(small))
    assert proc.returncode == 2 and "nothing to couple" in proc.stderr  # one flag cited: no subject yet
    (small / "tool" / "cli.py").write_text(CLI_SRC + 'p.add_argument("--beta", default="x")\n')
    (small / "docs" / "index.md").write_text("# Tool\n\nRun `--alpha 2 --beta y`.\n")
    (small / ".github" / "docs-sync.yml").unlink()
    _commit(small, "two flags, no config")
    printed = docs_sync("init", "--repo", str(small))
    assert printed.returncode == 0, printed.stderr
    assert "      - path: docs/index.md\n" in printed.stdout and "          - tool/cli.py\n" in printed.stdout
    written = docs_sync("init", "--repo", str(small), "--write")
    assert written.returncode == 0
    assert (small / ".github" / "docs-sync.yml").read_text() == printed.stdout
    assert docs_sync("init", "--repo", str(small), "--write").returncode == 2  # never overwrites
    # Not committed yet: validate and audit read it from the working tree, and say so.
    said = "docs-sync: .github/docs-sync.yml read from the working tree (not committed yet)"
    for command in (("validate",), ("audit", "--no-cache")):
        proc = docs_sync(*command, "--repo", str(small))
        assert proc.returncode == 0 and said in proc.stderr, proc.stderr
    _commit(small, "config")
    for command in (("validate",), ("audit", "--no-cache")):
        proc = docs_sync(*command, "--repo", str(small))
        assert proc.returncode == 0 and "working tree" not in proc.stderr
    # An edit not committed is read too; an explicit --rev reads that revision's.
    config = small / ".github" / "docs-sync.yml"
    config.write_text(config.read_text().replace("tool/cli.py", "tool/gone.py"))
    proc = docs_sync("validate", "--repo", str(small))
    assert proc.returncode == 2 and "(with changes not committed)" in proc.stderr
    assert "tool/gone.py" in proc.stderr
    assert docs_sync("validate", "--repo", str(small), "--rev", "main").returncode == 0


def test_a_folder_that_is_no_repository_says_so(tmp_path: Path):
    proc = docs_sync("audit", "--repo", str(tmp_path), "--rules", "miles")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == f"docs-sync: {tmp_path} is not a git repository (pass --repo DIR, the folder of one)"
    )


def test_a_warm_audit_of_an_unchanged_revision_is_not_checked_again(small: Path, tmp_path: Path):
    import os

    from bot.trees.factcache import FactsCache

    env = dict(os.environ, DOCS_SYNC_CACHE=str(tmp_path / "cache"))
    (small / "docs" / "index.md").write_text("# Tool\n\nRun `--alpah 2`.\n")
    _commit(small, "a stale flag")
    args = ("audit", "--repo", str(small), "--format", "json")
    first = docs_sync(*args, env=env)
    again = docs_sync(*args, env=env)
    assert first.returncode == again.returncode == 1 and first.stdout == again.stdout
    from bot.cli_cache import code_digest

    cache = FactsCache(tmp_path / "cache" / "facts.sqlite", namespace=code_digest())
    assert sum(1 for key in cache if key.startswith("audit:")) == 1  # one revision audited, kept once
    cache.close()
    # Any file of the revision changing is a new audit: a fixed page is never reported from the cache.
    (small / "docs" / "index.md").write_text("# Tool\n\nRun `--alpha 2`.\n")
    _commit(small, "fixed")
    fixed = docs_sync(*args, env=env)
    assert fixed.returncode == 0 and json.loads(fixed.stdout)["findings"] == []


def test_a_check_of_the_same_commits_is_answered_from_its_cached_report(small: Path, tmp_path: Path):
    from bot.cli_cache import code_digest
    from bot.trees.factcache import FactsCache

    env = dict(os.environ, DOCS_SYNC_CACHE=str(tmp_path / "cache"))
    (small / "tool" / "cli.py").write_text(CLI_SRC.replace("--alpha", "--alfa"))
    _commit(small, "rename --alpha")
    args = ("check", "--repo", str(small), "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    first = docs_sync(*args, env=env)
    assert first.returncode == 1 and json.loads(first.stdout)["findings"], first.stderr

    def reports() -> list[str]:
        cache = FactsCache(tmp_path / "cache" / "facts.sqlite", namespace=code_digest())
        try:
            return [key for key in cache if key.startswith("check:")]
        finally:
            cache.close()

    [key] = reports()
    # The second run reads the kept report, not the code: a report changed in the cache is what
    # it prints (nothing else could make it say so).
    cache = FactsCache(tmp_path / "cache" / "facts.sqlite", namespace=code_digest())
    report = cache.get(key)
    cache[key] = dataclasses.replace(report, findings=report.findings[:1] * 2)
    cache.close()
    again = docs_sync(*args, env=env)
    assert len(json.loads(again.stdout)["findings"]) == 2
    # Other rules are another check: the rules file is part of what the report is kept under.
    rules = tmp_path / "rules.yml"
    rules.write_text((small / ".github" / "docs-sync.yml").read_text().replace("docs/**/*.md", "docs/*.md"))
    other = docs_sync(*args, "--rules", str(rules), env=env)
    [found] = json.loads(other.stdout)["findings"]
    assert found["doc"]["path"] == "docs/index.md" and len(reports()) == 2
    # Files on disk change under the same commits: a --worktree check is never kept.
    docs_sync("check", "--repo", str(small), "--base", "HEAD", "--worktree", env=env)
    assert len(reports()) == 2


def test_check_without_base_takes_the_workflows_base_branch_or_the_remotes_default(
    small: Path, tmp_path: Path
):
    import os

    env = {k: v for k, v in os.environ.items() if k != "GITHUB_BASE_REF"}
    proc = docs_sync("check", "--repo", str(small), "--no-cache", env=env)
    assert proc.returncode == 2 and "no remote default branch (origin/HEAD)" in proc.stderr
    proc = docs_sync("check", "--repo", str(small), "--no-cache", env={**env, "GITHUB_BASE_REF": "main"})
    assert proc.returncode == 0 and "docs-sync: base main (GITHUB_BASE_REF)" in proc.stderr, proc.stderr
    proc = docs_sync("check", "--repo", str(small), "--no-cache", env={**env, "GITHUB_BASE_REF": "trunk"})
    assert proc.returncode == 2 and "'trunk' (GITHUB_BASE_REF) is not in" in proc.stderr
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(small), str(clone)], check=True)
    proc = docs_sync("check", "--repo", str(clone), "--no-cache", env=env)
    assert proc.returncode == 0 and "docs-sync: base origin/main (the remote's default branch)" in proc.stderr


def test_the_text_view_follows_the_terminal_width_and_the_baselines_first_run_says_what_it_recorded(
    small: Path, tmp_path: Path
):
    import os

    (small / "docs" / "index.md").write_text(
        "# Tool\n\nRun `--alpah 2`.\n\nAnd `--alhpa` " + "y" * 150 + "\n"
    )
    _commit(small, "stale flags")
    file = tmp_path / "baseline.json"
    first = docs_sync("audit", "--repo", str(small), "--baseline", str(file), "--no-cache")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"docs-sync: baseline {file} records 2 findings: 2 unresolved"
    widths = {columns: _widest_suggestion(small, columns) for columns in (60, 200)}
    assert widths[60] == 60 and widths[200] > 150
    piped = docs_sync("audit", "--repo", str(small), "--no-cache", env={**os.environ, "COLUMNS": "60"})
    suggested = [line for line in piped.stdout.splitlines() if line.startswith("    - ")]
    assert max(len(line) for line in suggested) == 4 + 100  # a pipe: 100 columns
    for command, words in (("audit", "at --rev"), ("check", "at the base revision"), ("serve", "address")):
        assert words in " ".join(docs_sync(command, "--help").stdout.split())


def _widest_suggestion(repo: Path, columns: int) -> int:
    """`docs-sync audit` on a terminal `columns` wide (a pseudo-terminal): its widest `-` line."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["NO_COLOR"] = "1"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "audit", "--repo", str(repo), "--no-cache"],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process has exited
            break
        if not chunk:
            break
        out += chunk
    proc.wait()
    os.close(leader)
    lines = out.decode().replace("\r\n", "\n").splitlines()
    return max(len(line) for line in lines if line.startswith("    - "))


def test_facts_another_version_of_the_code_cached_are_never_read(tmp_path):
    from bot.trees.factcache import FactsCache

    path = tmp_path / "facts.sqlite"
    old, new = FactsCache(path, namespace="old-code"), FactsCache(path, namespace="new-code")
    old["blob:a.py"] = "facts as the old code read them"
    assert "blob:a.py" not in new and len(new) == 0
    new["blob:a.py"] = "facts as this code reads them"
    assert (old["blob:a.py"], new["blob:a.py"]) == (
        "facts as the old code read them",
        "facts as this code reads them",
    )
    assert list(old) == ["blob:a.py"] and len(old) == 1


def test_a_report_made_while_the_history_ran_out_of_time_is_not_kept(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    # A loaded machine: the history answers nothing in its time. That audit says less, and the
    # next run, with time to ask, is not handed its report from the cache.
    (small / "tool" / "cli.py").write_text(CLI_SRC.replace('"--alpha"', '"--beta"'))
    _commit(small, "drop --alpha")
    from bot import cli
    from bot.trees import history

    monkeypatch.setenv("DOCS_SYNC_CACHE", str(tmp_path / "cache"))
    real = history.open_history

    def messages() -> set[str]:
        assert cli.main(["audit", "--repo", str(small), "--format", "json"]) == 1
        return {f["message"] for f in json.loads(capsys.readouterr().out)["findings"]}

    monkeypatch.setattr(
        history,
        "open_history",
        lambda repo, rev, cache=None: history.GitHistory(repo, rev, cache, total_seconds=0),
    )
    assert messages() == {"`--alpha` is not a flag at head"}
    monkeypatch.setattr(history, "open_history", real)
    [told] = messages()
    assert told.startswith("`--alpha` became `--beta` in ")  # what the history says
    assert messages() == {told}  # a whole report is kept and read back
