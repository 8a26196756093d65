"""The benchmark script still runs end to end (in its small --quick mode); no timing is asserted."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_quick_benchmark_runs_and_finds_the_pull_requests_doc_drift():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_check.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for row in (
        "git diff --name-status (baseline)",
        "docs-sync check, cold (process)",
        "docs-sync check, warm (process)",
        "bot.check.check in-process, cold",
        "bot.check.check in-process, warm",
        "extract(argparse source) of that module",
        "parse_doc",
    ):
        assert row in out
    # The generated pull request renames one documented flag and changes one documented default;
    # a benchmark of a check that no longer sees them would be timing the wrong thing.
    summary = next(line for line in out.splitlines() if line.startswith("check of the generated PR:"))
    assert "renamed" in summary and "changed" in summary
