"""The benchmark scripts still run end to end (in their small --quick mode); no timing is asserted."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick(script: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_quick_benchmark_runs_and_finds_the_pull_requests_doc_drift():
    out = quick("bench_check.py")
    for row in (
        "git diff --name-status (baseline)",
        "docs-sync check, cold (process)",
        "docs-sync check, warm (process)",
        "bot.core.check.check in-process, cold",
        "bot.core.check.check in-process, warm",
        "extract(argparse source) of that module",
        "parse_doc",
    ):
        assert row in out
    # The generated pull request renames one documented flag and changes one documented default;
    # a benchmark of a check that no longer sees them would be timing the wrong thing.
    summary = next(line for line in out.splitlines() if line.startswith("check of the generated PR:"))
    assert "renamed" in summary and "changed" in summary


def test_quick_app_benchmark_counts_calls_serves_deliveries_and_runs_the_worker():
    out = quick("bench_app.py")
    # Every event ran its job against the stand-in, and the stand-in refused nothing.
    typical = next(
        line for line in out.splitlines() if line.startswith("PR opened, 3 findings; config cached")
    )
    assert re.search(r"\s\d+\s+\d+\s+\d+\s+\d+\s+0\s+<= 6", typical)
    assert "REFUSED" not in out
    assert "check run failure: 3 doc lines out of date; 3 review comments" in out
    assert "answer 200 duplicate" in out
    # Both servers acknowledged every delivery, and the App queued each one.
    assert "bare starlette route answering 202" in out
    assert out.count("100 x 202") == 2
    assert "the App's queue afterwards: 110 jobs queued" in out
    # The worker ran every job to completion and its memory was sampled along the way.
    assert "after job 20" in out and "growth from job 10 to job 20" in out
    assert "queue: done 20" in out


def test_quick_scale_benchmark_runs_the_app_on_postgresql_and_posts_nothing_twice():
    from bot.testing import postgres as pgserver

    pgserver.skip_unless_available()
    out = quick("bench_scale.py")  # exits 1 on a lost delivery, an unfinished job or a duplicate
    assert "acknowledged: 40/40" in out and "jobs: {'done': 40}" in out
    assert "SIGKILLed mid-job and restarted" in out and "web 1 restarted (SIGTERM)" in out
    assert "posted twice: 0 check runs, 0 reviews, 0 review comments, 0 summary comments" in out
    assert "40 check runs (" in out and "(0 refused)" in out


def test_drift_benchmark_injects_each_mutation_and_counts_the_stale_lines(tmp_path):
    repo = tmp_path / "tool"
    (repo / "tool").mkdir(parents=True)
    (repo / "tool" / "cli.py").write_text(
        "import argparse\n\n\ndef main():\n    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--batch-size", type=int, default=32)\n'
        '    p.add_argument("--epochs", type=int, default=3)\n'
        '    p.add_argument("--output-dir", default="out")\n'
        "    return p.parse_args()\n"
    )
    (repo / "README.md").write_text(
        "# Tool\n\nRun `python tool/cli.py --batch-size 8 --epochs 2 --output-dir runs`.\n\n"
        "| Flag | Default |\n|---|---|\n| `--batch-size` | `32` |\n| `--epochs` | `3` |\n"
    )
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "tool"], check=True)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "drift.py"), "--repo", str(repo), "--samples", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = {line.split()[0]: line.split()[1:] for line in proc.stdout.splitlines() if line[:1].isalpha()}
    # init's rules couple the README to the parser; each mutation was injected once and caught.
    for mutation in ("rename", "default", "remove"):
        injected, caught = table[mutation][:2]
        assert (injected, caught) == ("1", "1"), proc.stdout
    assert "crashes: 0" in proc.stdout


def test_drift_removes_one_option_of_a_tuple_of_options_and_keeps_the_others():
    sys.path.insert(0, str(ROOT / "bench"))
    import drift

    from bot.core.model import Fact

    text = (
        "import click\n\n_reading = (\n"
        '    click.option("--json-lines", is_flag=True),\n'
        '    click.option("--sep", default=","),\n'
        ")\n"
    )
    fact = Fact.of("flag", "--sep", "sep", "cli", "cli.py", 5, {})
    assert drift.remove(text, fact) == text.replace('    click.option("--sep", default=","),\n', "")
