"""How long the history lookup takes on radixark/miles, cold and cached.

A doc token head lacks is looked up in the history of its rule's sources (bot/core/check/history.py
over bot/trees/history.py). On a clone of miles (`--repo`), at its HEAD, with the built-in `miles`
pack, this times:

  1. `--disable-fp32-master`: git's pickaxe over the rule's source files, the rule's facts at the
     commit it finds and at its parent, what replaced the flag there -> `--no-keep-fp32-master`
     in 0daa9ff (#2384);
  2. `miles/backends/experimental/fsdp_utils/`: git's renames of the folder -> `miles/backends/
     fsdp_utils/` in 800274a (#2272);
  3. `docs-sync check --worktree` as a process, on a throwaway clone whose training-backend page
     gained a line citing both, with the history and with `--no-history`.

"Cold" starts from an empty facts cache (every git question asked, every old file parsed);
"cached" is a new process state over the cache the cold run filled (answers kept by commit id,
facts by blob id). Each figure is the median of `--reps` runs. Prints figures; asserts nothing
about time.

    python bench/bench_history.py --repo /path/to/miles [--reps 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.core.check.history import path_succession, token_succession  # noqa: E402
from bot.core.facts import gather  # noqa: E402
from bot.core.globs import expand_all  # noqa: E402
from bot.core.packs import resolve_rule_args  # noqa: E402
from bot.trees.factcache import FactsCache  # noqa: E402
from bot.trees.git import GitRepo  # noqa: E402
from bot.trees.history import GitHistory  # noqa: E402

PAGE = "docs/user-guide/training-backend.md"
FLAG = "--disable-fp32-master"
FOLDER = "miles/backends/experimental/fsdp_utils"
LINE = f"- `{FLAG}` drops the fp32 master copy; the code is in `{FOLDER}/`.\n"


def lookup(repo_path: str, cache_file: Path) -> tuple[float, str, str, int]:
    """One lookup of both tokens in a fresh process state: (seconds, flag answer, path answer,
    git processes started)."""
    cache = FactsCache(cache_file)
    try:
        with GitRepo(repo_path) as repo:
            head = repo.tree("HEAD")
            (rule,) = [r for p in resolve_rule_args(["miles"]) for r in p.rules]
            (rule,) = expand_all([rule], head, head, {})
            head_facts = gather(rule, head, cache)
            start = time.perf_counter()
            history = GitHistory(repo, "HEAD", cache)
            flag = token_succession(rule, FLAG, head_facts, history, cache)
            folder = path_succession(FOLDER, head, history)
            took = time.perf_counter() - start
    finally:
        cache.close()
    return took, _said(flag), _said(folder), history.calls


def _said(found: object) -> str:
    steps = getattr(found, "steps", ())
    return ", ".join(f"{s.new} in {s.commit.label()}" for s in steps) or "nothing"


def check_process(clone: Path, cache_dir: Path, *extra: str) -> float:
    env = dict(os.environ, DOCS_SYNC_CACHE=str(cache_dir))
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "check", "--repo", str(clone), "--rules", "miles",
         "--base", "HEAD", "--worktree", "--format", "json", *extra],
        capture_output=True, text=True, env=env, cwd=ROOT, check=False,
    )  # fmt: skip
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"docs-sync check failed:\n{proc.stderr}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="a clone of radixark/miles")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        colds, warms = [], []
        for i in range(args.reps):
            cache_file = work / f"cache{i}" / "facts.sqlite"
            cold, flag, folder, cold_calls = lookup(args.repo, cache_file)
            warm, _, _, warm_calls = lookup(args.repo, cache_file)
            colds.append(cold)
            warms.append(warm)
        print("miles HEAD, pack miles:")
        print(f"  {FLAG} -> {flag}")
        print(f"  {FOLDER}/ -> {folder}")
        cold, warm = statistics.median(colds), statistics.median(warms)
        print(f"history lookup, both tokens   cold {cold * 1000:7.1f} ms ({cold_calls} git processes)")
        print(f"                              cached {warm * 1000:5.1f} ms ({warm_calls} git process)")
        print(f"                              ratio {cold / warm:6.1f}x")

        clone = work / "miles"
        subprocess.run(["git", "clone", "-q", "--shared", args.repo, str(clone)], check=True)
        page = clone / PAGE
        page.write_text(page.read_text() + "\n" + LINE)
        rows = []
        for label, extra in (("with history", ()), ("--no-history", ("--no-history",))):
            cold_runs = []
            for _ in range(args.reps):
                with tempfile.TemporaryDirectory() as empty:
                    cold_runs.append(check_process(clone, Path(empty), *extra))
            warm_dir = work / f"warm-{label}"
            check_process(clone, warm_dir, *extra)
            warm_runs = [check_process(clone, warm_dir, *extra) for _ in range(args.reps)]
            rows.append((label, statistics.median(cold_runs), statistics.median(warm_runs)))
        print("docs-sync check --worktree (process, one new line citing both)")
        for label, cold_s, warm_s in rows:
            print(f"  {label:13}  cold {cold_s:6.2f} s   cached {warm_s:6.2f} s")


if __name__ == "__main__":
    main()
