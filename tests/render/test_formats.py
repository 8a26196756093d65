"""`bot.render.FORMATS`, the command line's `--format`: every format from one registry, end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from bot.core.model import Report
from bot.render import FORMATS
from bot.render.common import Options
from bot.render.data import to_json
from bot.testing import trainer as demo
from tests.render.sample import PAGE, finding, page

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_every_format_renders_every_report():
    reports = [
        Report(()),
        Report(
            (finding(replacement="new"), finding("--x", no_doc=True, code=("a.py", 2))),
            ignored=((finding("--y"), "later"),),
            rules_checked=("r",),
        ),
    ]
    options = Options(fail_on="never", doc_text={PAGE: page(20)}.get)
    for name, render in FORMATS.items():
        for report in reports:
            assert isinstance(render(report, options), str), name
    assert set(FORMATS) == {"text", "json", "markdown", "github", "sarif", "rdjson", "patch"}
    # The registry passes fail_on through: the JSON contract is the same as to_json's.
    assert FORMATS["json"](reports[1], options) == to_json(reports[1], "never")


# ---------------------------------------------------------------- the command line


def docs_sync(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def trainer(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("formats") / "trainer"
    demo.build_demo_repo(path)
    return path


def check(repo: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    return docs_sync(
        "check", "--repo", str(repo), "--base", "main", "--head", "pr", "--no-cache", "--format", fmt
    )


def test_cli_text_labels_lines_and_shows_old_and_new(trainer: Path):
    proc = check(trainer, "text")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    renamed = next(i for i, line in enumerate(lines) if "renamed  --disable-fp32-master" in line)
    assert lines[renamed].startswith("  doc docs/training-backend.md:")
    assert lines[renamed + 1].startswith("    code trainer/backends/fsdp/arguments.py:")
    assert lines[renamed + 2].startswith("    - ") and "--disable-fp32-master" in lines[renamed + 2]
    assert lines[renamed + 3].startswith("    + ") and "--no-keep-fp32-master" in lines[renamed + 3]


def test_cli_markdown_shows_old_and_new(trainer: Path):
    md = check(trainer, "markdown").stdout
    old = next(line for line in md.splitlines() if line.startswith("  -") and "--disable-fp32-master" in line)
    new = md.splitlines()[md.splitlines().index(old) + 1]
    assert new.startswith("  +") and "--no-keep-fp32-master" in new


def test_cli_sarif_and_rdjson_validate(trainer: Path):
    sarif = json.loads(check(trainer, "sarif").stdout)
    schema = json.loads((FIXTURES / "sarif/sarif-schema-2.1.0.json").read_text())
    assert not list(Draft4Validator(schema).iter_errors(sarif))
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"changed", "renamed", "unresolved"}
    rdjson = json.loads(check(trainer, "rdjson").stdout)
    schema = json.loads((FIXTURES / "rdjson/DiagnosticResult.json").read_text())
    assert not list(Draft4Validator(schema).iter_errors(rdjson))
    assert len(rdjson["diagnostics"]) == 3


def test_cli_patch_applies_to_the_head(trainer: Path, tmp_path: Path):
    proc = check(trainer, "patch")
    assert proc.returncode == 1, proc.stderr
    checkout = tmp_path / "head"
    subprocess.run(["git", "clone", "-q", "--branch", "pr", str(trainer), str(checkout)], check=True)
    subprocess.run(["git", "-C", str(checkout), "apply", "--check"], input=proc.stdout, text=True, check=True)
    subprocess.run(["git", "-C", str(checkout), "apply"], input=proc.stdout, text=True, check=True)
    # Checked again, the change leaves no suggestion behind.
    again = docs_sync(
        "check",
        "--repo",
        str(checkout),
        "--base",
        "origin/main",
        "--worktree",
        "--no-cache",
        "--format",
        "json",
    )
    left = [f for f in json.loads(again.stdout)["findings"] if f["suggestion"]]
    assert left == [], again.stdout
