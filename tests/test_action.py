"""The GitHub Action (action.yml), run as a workflow runs it.

Each `run:` step of the composite action is run with bash in a git repository built here, its
`${{ ... }}` expressions filled in from a pull_request event context, with the files GitHub gives
a step (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) and the action's own folder as github.action_path.
The install step runs for real: it installs this checkout into a virtualenv.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from bot.trees.factcache import FactsCache

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())

FLAGS = [f"--opt-{i:02d}" for i in range(1, 15)]  # 14 documented flags
GONE = FLAGS[:12]  # the pull request removes 12 of them: more errors than GitHub annotates

CONFIG = """\
rules:
  - id: usage
    docs:
      - path: docs/usage.md
    sources:
      - id: cli
        kind: argparse
        path: tool/cli.py
"""


def cli(flags: list[str]) -> str:
    lines = ["import argparse", "", "", "def parser():", '    p = argparse.ArgumentParser(prog="tool")']
    lines += [f'    p.add_argument("{flag}", help="option {flag}")' for flag in flags]
    return "\n".join([*lines, "    return p", ""])


DOC = "# Usage\n\n| Flag | Meaning |\n|---|---|\n" + "".join(f"| `{f}` | option {f} |\n" for f in FLAGS)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)


@dataclass
class Pull:
    origin: Path  # the repository as GitHub holds it
    base_sha: str
    head_sha: str


@pytest.fixture(scope="module")
def pull(tmp_path_factory) -> Pull:
    """main, then a pull request branch that drops 12 documented flags and adds one; main moves on
    after the fork, so the check must compare from the merge base."""
    origin = tmp_path_factory.mktemp("action") / "origin"
    git(origin.parent, "init", "-q", "-b", "main", str(origin))
    write(origin, {".github/docs-sync.yml": CONFIG, "tool/cli.py": cli(FLAGS), "docs/usage.md": DOC})
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "tool and its usage page")
    git(origin, "checkout", "-qb", "pr")
    write(origin, {"tool/cli.py": cli([*FLAGS[12:], "--opt-new"])})
    git(origin, "commit", "-qam", "drop twelve options, add one")
    head = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "main")
    write(origin, {"NOTES.md": "main moved on\n"})
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "unrelated")
    return Pull(origin, git(origin, "rev-parse", "main"), head)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    summary: str
    outputs: dict[str, str]  # the action's outputs
    steps: dict[str, dict[str, str]] = field(default_factory=dict)
    ran: list[str] = field(default_factory=list)  # the names of the steps that ran


# ------------------------------------------------------------------ a workflow runner, in small


def evaluate(expr: str, ctx: dict) -> str:
    """The expressions action.yml uses: context paths, string literals, `a || b`, `a != b`."""
    if "!=" in expr:
        left, right = (evaluate(side, ctx) for side in expr.split("!=", 1))
        return "true" if left != right else ""
    for operand in expr.split("||"):
        operand = operand.strip()
        if re.fullmatch(r"'[^']*'", operand):
            value = operand[1:-1]
        else:
            assert re.fullmatch(r"[a-z_]+(\.[A-Za-z0-9_-]+)+", operand), f"unsupported expression {expr!r}"
            value = ctx
            for part in operand.split("."):
                value = value.get(part, "") if isinstance(value, dict) else ""
        if value:
            return str(value)
    return ""


def substitute(text: str, ctx: dict) -> str:
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda m: evaluate(m.group(1), ctx), text)


def read_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT: `name=value` lines, or `name<<DELIMITER` ... `DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text().splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            outputs[name] = "\n".join(iter(lines.__next__, delimiter))
        elif line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def run_action(
    workspace: Path,
    temp: Path,
    pull: Pull | None,
    inputs: dict[str, str],
    steps: tuple[str, ...] = (),
    cache: Path | None = None,
    event: dict | None = None,
    run_id: int = 1,
) -> Run:
    """Run action.yml's `run:` steps (only those named in `steps`, when given) in `workspace`.
    `actions/cache` is played by the folder `cache` (one folder a key): restored before the step
    that follows it (on no key of its own, the newest whose name starts with a restore key) and
    saved under its key when the job succeeds and the key had none, as its post step does;
    without `cache`, a miss. `run_id` is the workflow run's."""
    given = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    given.update(inputs)
    if event is None:
        event = (
            {"pull_request": {"base": {"sha": pull.base_sha}, "head": {"sha": pull.head_sha}}} if pull else {}
        )
    github = {"action_path": str(ROOT), "event": event, "run_id": str(run_id), "run_attempt": "1"}
    ctx = {"inputs": given, "github": github, "steps": {}}

    temp.mkdir(parents=True, exist_ok=True)
    bin_dir = temp / "bin"  # the runner's python3 (setup-python's, when it runs) first on PATH
    bin_dir.mkdir(exist_ok=True)
    if not (bin_dir / "python3").exists():
        (bin_dir / "python3").symlink_to(sys.executable)
    runner_env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "INPUT_"))}
    runner_env.update(
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        RUNNER_TEMP=str(temp),
        RUNNER_OS="Linux",
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_ACTION_PATH=str(ROOT),
        GITHUB_SERVER_URL="https://github.com",
        GITHUB_REPOSITORY="acme/tool",
        GITHUB_EVENT_NAME="pull_request" if pull else "push",
    )

    code, stdout, stderr, summary = 0, "", "", ""
    saves: list[tuple[Path, Path]] = []
    ran: list[str] = []
    for number, step in enumerate(ACTION["runs"]["steps"]):
        if "if" in step and not evaluate(step["if"], ctx):
            continue
        if steps and step.get("id") not in (*steps, "environment"):
            continue
        if "uses" in step and step["uses"].startswith("actions/cache@"):
            path, key = (Path(substitute(step["with"][k], ctx)) for k in ("path", "key"))
            assert str(key).startswith("docs-sync-") and path.is_absolute()
            stored = cache / str(key) if cache else None
            hit = stored is not None and stored.exists()
            prefixes = [substitute(k, ctx) for k in step["with"].get("restore-keys", "").split()]
            near = sorted(
                (
                    p
                    for p in (cache.iterdir() if cache and cache.exists() else ())
                    if p.name.startswith(tuple(prefixes))
                ),
                key=lambda p: p.stat().st_mtime,
            )
            if hit or (near and stored is not None):
                shutil.copytree(stored if hit else near[-1], path, symlinks=True)
            if not hit and stored is not None:
                saves.append((path, stored))
            ctx["steps"][step["id"]] = {"outputs": {"cache-hit": "true" if hit else "false"}}
            continue
        if "uses" in step:
            pytest.fail(f"step {step['name']!r} would run {step['uses']}, which this runner cannot")
        assert step["shell"] == "bash"
        output, summary_file = temp / f"output-{number}", temp / f"summary-{number}"
        output.write_text("")
        summary_file.write_text("")
        env = dict(runner_env, GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary_file))
        env.update({k: substitute(str(v), ctx) for k, v in step.get("env", {}).items()})
        ran.append(step["name"])
        script = temp / f"step-{number}.sh"
        script.write_text(substitute(step["run"], ctx))
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        stdout, stderr, code = stdout + proc.stdout, stderr + proc.stderr, proc.returncode
        summary += summary_file.read_text()
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": read_outputs(output)}
        if code != 0:
            break  # a failed step ends the job's steps, as on GitHub
    for path, stored in saves if code in (0, 1) else ():
        if path.exists():
            shutil.copytree(path, stored, symlinks=True)
    outputs = {name: substitute(spec["value"], ctx) for name, spec in ACTION["outputs"].items()}
    return Run(code, stdout, stderr, summary, outputs, ctx["steps"], ran)


def checkout(pull: Pull, dest: Path, *, depth: int | None = None) -> Path:
    """actions/checkout of the pull request's head: a clone with `origin` (depth 1 by default)."""
    args = ["clone", "-q", "--no-local", f"file://{pull.origin}", str(dest)]
    if depth:
        args[1:1] = ["--depth", str(depth), "--no-single-branch"]
    git(dest.parent, *args)
    git(dest, "checkout", "-q", pull.head_sha)
    return dest


# ------------------------------------------------------------------ the action


@pytest.fixture(scope="module")
def full_run(pull: Pull, tmp_path_factory) -> tuple[Run, Path]:
    """The whole action on the pull request, install step included, as its defaults have it."""
    temp = tmp_path_factory.mktemp("runner")
    workspace = checkout(pull, temp / "workspace")
    return run_action(
        workspace, temp, pull, {"python-version": ""}, cache=temp.parent / "actions-cache"
    ), temp


def test_the_action_annotates_summarises_every_finding_and_fails(full_run, pull: Pull):
    run, _ = full_run
    assert run.code == 1, run.stderr
    # Annotations: one workflow command per finding, on the doc line of each dropped flag.
    errors = re.findall(
        r"^::error file=docs/usage\.md,line=(\d+),title=docs-sync removed (\S+)::", run.stdout, re.M
    )
    assert sorted(symbol for _, symbol in errors) == GONE
    doc_lines = DOC.splitlines()
    for line, symbol in errors:
        assert f"`{symbol}`" in doc_lines[int(line) - 1]
    # The new flag's notice sits on the table that lists its siblings, suggesting its row.
    assert re.search(
        r"^::notice file=docs/usage\.md,line=\d+,title=docs-sync new-flag --opt-new::", run.stdout, re.M
    )
    assert "| `--opt-new` | option --opt-new |" in run.summary
    # The summary carries every finding, more than the 10 error annotations GitHub shows.
    assert "docs-sync: failure — 12 errors, 1 notice" in run.summary
    for symbol in GONE:
        assert f"`{symbol}`" in run.summary
    assert len(re.findall(r"\*\*removed\*\*", run.summary)) == 12
    # Doc lines link to the head commit on GitHub.
    assert f"https://github.com/acme/tool/blob/{pull.head_sha}/docs/usage.md#L5" in run.summary
    assert run.outputs == {
        "conclusion": "failure",
        "count": "13",
        "errors": "12",
        "warnings": "0",
        "notices": "1",
    }


def test_the_install_step_puts_docs_sync_in_a_virtualenv_of_its_own(full_run):
    _, temp = full_run
    python = temp / "docs-sync-venv" / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as on a runner
    proc = subprocess.run(
        [str(python), "-c", "import bot; print(bot.__file__)"],
        capture_output=True,
        text=True,
        cwd=temp,
        env=env,
    )
    assert proc.returncode == 0 and Path(proc.stdout.strip()).is_relative_to(temp / "docs-sync-venv")
    version = subprocess.run([str(python), "-m", "bot", "--version"], capture_output=True, text=True)
    assert version.stdout.startswith("docs-sync ")


def _next_job(temp: Path) -> None:
    """The next job's RUNNER_TEMP starts empty: what it has comes from the caches."""
    for left in ("docs-sync-facts", "docs-sync-venv"):
        shutil.rmtree(temp / left, ignore_errors=True)


def test_the_next_job_restores_the_environment_instead_of_installing(full_run, pull: Pull):
    first, temp = full_run
    store = temp.parent / "actions-cache"
    (stored,) = [p for p in store.iterdir() if not p.name.startswith("docs-sync-facts-")]
    # the first job missed, installed, and saved its virtualenv
    assert first.steps["cache"]["outputs"]["cache-hit"] == "false" and "Install docs-sync" in first.ran
    assert stored.name == first.steps["environment"]["outputs"]["key"]
    assert stored.name.startswith("docs-sync-Linux-0.1.0-py3.")
    _next_job(temp)
    again = run_action(temp / "workspace", temp, pull, {"python-version": ""}, cache=store)
    assert again.steps["cache"]["outputs"]["cache-hit"] == "true"
    assert "Install docs-sync" not in again.ran
    assert again.code == 1 and again.outputs["errors"] == "12", again.stderr


def test_the_next_job_starts_from_the_facts_the_last_one_kept(full_run, pull: Pull):
    first, temp = full_run
    store = temp.parent / "actions-cache"
    (kept,) = [p for p in store.iterdir() if p.name.startswith("docs-sync-facts-Linux-")]
    assert kept.name == "docs-sync-facts-Linux-1-1"  # this job's key: the next job's is its own
    before = set(FactsCache(kept / "facts.sqlite"))
    assert before, "the first job kept what it read"
    _next_job(temp)
    again = run_action(temp / "workspace", temp, pull, {"python-version": ""}, cache=store, run_id=2)
    assert again.code == 1 and again.outputs["errors"] == "12", again.stderr
    after = set(FactsCache(store / "docs-sync-facts-Linux-2-1" / "facts.sqlite"))
    assert before <= after  # restored from the first job's (a restore key), then saved as its own


def test_fail_on_never_passes_and_still_reports(full_run, pull: Pull):
    _, temp = full_run
    run = run_action(temp / "workspace", temp, pull, {"python-version": "", "fail-on": "never"}, ("check",))
    assert run.code == 0, run.stderr
    assert run.outputs["conclusion"] == "neutral" and run.outputs["count"] == "13"
    assert len(re.findall(r"^::error ", run.stdout, re.M)) == 12
    assert "docs-sync: neutral" in run.summary


def test_a_shallow_checkout_is_deepened_to_find_the_merge_base(full_run, pull: Pull, tmp_path: Path):
    _, temp = full_run
    workspace = checkout(pull, tmp_path / "shallow", depth=1)
    assert git(workspace, "rev-parse", "--is-shallow-repository") == "true"
    run = run_action(workspace, temp, pull, {"python-version": ""}, ("check",))
    assert run.code == 1, run.stderr
    assert run.outputs["errors"] == "12"
    assert git(workspace, "rev-parse", "--is-shallow-repository") == "false"


def test_rules_input_overrides_the_repository_config(full_run, pull: Pull, tmp_path: Path):
    _, temp = full_run
    rules = tmp_path / "only-notices.yml"
    rules.write_text(
        CONFIG.replace("rules:\n", "pack: only-notices\nrules:\n", 1) + "    severity: {removed: notice}\n"
    )
    inputs = {"python-version": "", "rules": str(rules), "fail-on": "warning"}
    run = run_action(temp / "workspace", temp, pull, inputs, ("check",))
    assert run.code == 0, run.stdout + run.stderr
    assert run.outputs["notices"] == "13" and run.outputs["conclusion"] == "neutral"


def test_what_stops_the_check_is_an_error_annotation_and_the_summary_says_why(full_run, pull: Pull):
    _, temp = full_run
    run = run_action(
        temp / "workspace", temp, pull, {"python-version": "", "rules": "no-such-pack"}, ("check",)
    )
    assert run.code == 2
    assert re.search(r"^::error title=docs-sync::docs-sync: .*no-such-pack", run.stdout, re.M)
    assert "docs-sync could not run" in run.summary and "no-such-pack" in run.summary
    assert run.outputs["conclusion"] == "error"


@pytest.mark.parametrize(
    "event",
    [
        "push",  # base: the commit the branch was at before
        "push of a new branch",  # before is all zeros: the default branch's merge base
        "merge_group",  # a merge queue's group: its base_sha and head_sha
        "workflow_dispatch",  # no base in the event: the default branch's merge base
    ],
)
def test_push_merge_group_and_other_events_have_a_base(full_run, pull: Pull, event: str):
    _, temp = full_run
    fork = git(pull.origin, "merge-base", pull.base_sha, pull.head_sha)
    payload = {
        "push": {"before": fork, "after": pull.head_sha},
        "push of a new branch": {"before": "0" * 40, "after": pull.head_sha},
        "merge_group": {"merge_group": {"base_sha": pull.base_sha, "head_sha": pull.head_sha}},
        "workflow_dispatch": {},
    }[event]
    run = run_action(temp / "workspace", temp, None, {"python-version": ""}, ("check",), event=payload)
    assert run.code == 1, run.stdout + run.stderr
    assert run.outputs["errors"] == "12" and run.outputs["notices"] == "1"


def test_setup_python_runs_unless_the_runners_python_is_asked_for():
    setup = next(step for step in ACTION["runs"]["steps"] if "uses" in step)
    assert setup["uses"].startswith("actions/setup-python@")
    for step in ACTION["runs"]["steps"]:  # every action pinned by its commit, not by a tag that moves
        assert "uses" not in step or re.fullmatch(r"actions/[a-z-]+@[0-9a-f]{40}", step["uses"])
    assert evaluate(setup["if"], {"inputs": {"python-version": "3.12"}})
    assert not evaluate(setup["if"], {"inputs": {"python-version": ""}})
    # Inputs and event fields reach the scripts through env, never pasted into a script.
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", "")
