"""`pip install docs-sync` is the checker: `check`, `audit`, `validate` and `init` import nothing
of the GitHub App, and the App's commands without the `app` extra say which extra to install."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.testing import trainer as demo

# The App's packages (the `app` extra) and modules; importlib.metadata costs every start 55 ms.
APP_ONLY = (
    "githubkit",
    "starlette",
    "uvicorn",
    "httpx",
    "prometheus_client",
    "hishel",
    "jwt",
    "cryptography",
)
NEVER = (*APP_ONLY, "bot.app", "bot.demo.app_loop", "bot.testing.standin", "importlib.metadata")

# Runs the command line in this process and prints, as JSON, the modules it loaded that a bare
# interpreter had not (a site hook may load some at start-up: those are not the command's).
PROBE = """
import json, sys
before = set(sys.modules)
from bot.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print("\\nLOADED " + json.dumps(sorted(set(sys.modules) - before)), file=sys.stderr)
sys.exit(code)
"""


def _loaded(*args: str, cwd: Path) -> tuple[int, list[str], str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd, check=False
    )
    line = next(x for x in proc.stderr.splitlines() if x.startswith("LOADED "))
    return proc.returncode, json.loads(line.removeprefix("LOADED ")), proc.stderr


def _app(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in NEVER)]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("checker") / "trainer"
    demo.build_demo_repo(path)
    return path


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--base", "main", "--head", "pr", "--no-cache"),
        ("check", "--base", "main", "--head", "pr", "--format", "sarif"),
        ("audit", "--rev", "main", "--no-cache"),
        ("validate", "--rev", "main"),
        ("init", "--rev", "main"),
    ],
    ids=lambda a: " ".join(a[:1] + a[-2:]),
)
def test_the_checker_imports_nothing_of_the_app(repo: Path, args: tuple[str, ...]):
    code, loaded, stderr = _loaded(*args, cwd=repo)
    assert code in (0, 1), stderr
    assert "bot.core.check" in loaded or args[0] in ("validate", "init")
    assert _app(loaded) == []


# Without the extra: the App's packages cannot be imported (None in sys.modules is how Python
# says "not installed" to an import).
WITHOUT_APP = (
    "import sys\n"
    f"for name in {APP_ONLY!r}: sys.modules[name] = None\n"
    "from bot.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


@pytest.mark.parametrize("args", [("serve",), ("worker",), ("demo",), ("register",)])
def test_the_apps_commands_without_the_extra_name_it(tmp_path: Path, args: tuple[str, ...]):
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT_APP, *args], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert proc.returncode == 2, proc.stderr
    assert "install docs-sync[app]" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""  # the demo stops before its first part


def test_a_warm_check_loads_neither_yaml_nor_markdown(repo: Path, tmp_path: Path):
    """The rules and the pages' parses come from the cache the first run filled."""
    import os

    env_cache = {"DOCS_SYNC_CACHE": str(tmp_path / "cache")}
    args = ("check", "--base", "main", "--head", "pr")
    for run in ("cold", "warm"):
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, *args],
            capture_output=True,
            text=True,
            cwd=repo,
            env={**os.environ, **env_cache},
            check=False,
        )
        assert proc.returncode == 1, proc.stderr
        loaded = json.loads(next(x for x in proc.stderr.splitlines() if x.startswith("LOADED "))[7:])
        heavy = {m.split(".")[0] for m in loaded} & {"yaml", "markdown_it"}
        assert heavy == ({"yaml", "markdown_it"} if run == "cold" else set())
    # Nor an extractor (every fact is cached), nor the docs-site checks (no rule has `site:`).
    extractors = ("argparse_flags", "click_flags", "dataclass_flags", "pydantic_keys", "config_keys")
    assert [m for m in loaded if m.removeprefix("bot.core.extract.") in extractors] == []
    assert [m for m in loaded if m.startswith("bot.core.site")] == []


def test_a_change_no_rule_reads_loads_none_of_the_checks(repo: Path, tmp_path: Path):
    """Most commits a pre-commit hook sees touch no rule's files: the command loads the rules,
    validates them (the demo's sections: its pages' headings) and stops, without the checks, the
    programs, the extractors or another format's module."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(repo), str(clone)], check=True)
    (clone / "NOTES.txt").write_text("nothing any rule reads\n")
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "NOTES.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "notes"], check=True)
    code, loaded, stderr = _loaded("check", "--base", "HEAD~1", "--no-cache", cwd=clone)
    assert code == 0, stderr
    checks = ("bot.core.check.inputs", "bot.core.check.history", "bot.core.programs")
    assert [m for m in loaded if m in checks or m.startswith("bot.core.extract")] == []
    renderers = [m for m in loaded if m.startswith("bot.render.") and m != "bot.render.common"]
    assert renderers == ["bot.render.text"]
