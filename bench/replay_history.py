"""Replay a real repository's history through `docs-sync check`, one commit at a time.

    python bench/replay_history.py --repo PATH/TO/CLONE --rules RULES.yml [--limit 60]
        [--since COMMIT] [--rev REV] [--paths SRC ...] [--verdicts VERDICTS.json] [--out FINDINGS.jsonl]

For each of the newest `--limit` non-merge commits that touched `--paths` (default: every source
path the rules name, globs included), it runs the installed command line exactly as a CI step
would, `docs-sync check --base COMMIT^ --head COMMIT --format json`, in its own process, and
records the exit code and the findings. A crash is any run that exits with neither 0 nor 1, or
prints a traceback.

Every warning and error is written to `--out` (one JSON object a line) with the doc line it sits
on, so it can be judged by hand. A verdicts file maps a finding's key (printed in the JSONL as
`key`) to "real" or "false"; with it, the script prints the precision of the judged findings and
lists the ones not judged yet. It takes a path to a clone: no code of the replayed project is
part of this repository.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import yaml


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def _rule_paths(rules_file: str) -> list[str]:
    """Source paths and globs named by the rules file (a pack or a repository config)."""
    data = yaml.safe_load(Path(rules_file).read_text()) or {}
    paths: list[str] = []
    for rule in data.get("rules") or []:
        for source in rule.get("sources") or []:
            paths += [source["path"]] if "path" in source else list(source.get("paths") or [])
    return sorted(set(paths))


def _pathspec(path: str) -> str:
    return f":(glob){path}" if any(c in path for c in "*?[") else path


def commits(
    repo: str, paths: list[str], limit: int, since: str | None = None, rev: str = "HEAD"
) -> list[tuple[str, str]]:
    # After `since`: the commits descending from it. A side branch's commit older than it (merged
    # later) never had the config written there, and its parent is no base a pull request is checked on.
    span = ["--ancestry-path", f"{since}..{rev}"] if since else [rev]
    out = _git(
        repo, "log", "--no-merges", f"-n{limit}", "--format=%H%x09%s", *span, "--", *map(_pathspec, paths)
    )
    return [tuple(line.split("\t", 1)) for line in out.splitlines() if line]  # type: ignore[misc]


def _doc_line(repo: str, commit: str, finding: dict) -> str | None:
    doc = finding.get("doc")
    if not doc:
        return None
    try:
        text = _git(repo, "show", f"{commit}:{doc['path']}")
    except subprocess.CalledProcessError:
        return None
    lines = text.splitlines()
    return lines[doc["line"] - 1] if 0 < doc["line"] <= len(lines) else None


def key_of(commit: str, f: dict) -> str:
    where = (
        f"{f['doc']['path']}:{f['doc']['line']}" if f.get("doc") else (f.get("code") or {}).get("path", "")
    )
    return f"{commit[:10]} {f['kind']} {f['symbol']} {where}"


def replay(repo: str, rules: str, commit: str) -> tuple[int, str, dict | None, float]:
    cmd = [sys.executable, "-m", "bot", "check", "--repo", repo, "--rules", rules]
    cmd += ["--base", f"{commit}^", "--head", commit, "--format", "json", "--fail-on", "never"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    try:
        report = json.loads(proc.stdout) if proc.returncode in (0, 1) else None
    except json.JSONDecodeError:
        report = None
    return proc.returncode, proc.stderr, report, elapsed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", required=True, help="a clone (or bare mirror) of the project to replay")
    p.add_argument("--rules", required=True, help="the rules file to check with")
    p.add_argument("--paths", nargs="+", help="replay commits touching these (default: the rules' sources)")
    p.add_argument("--limit", type=int, default=60, help="newest N commits (default 60)")
    p.add_argument("--since", help="only commits after this one (the revision `docs-sync init` read)")
    p.add_argument("--rev", default="HEAD", help="and up to this one (default HEAD)")
    p.add_argument("--verdicts", help="JSON file: finding key -> 'real' | 'false'")
    p.add_argument("--out", help="write every warning and error here, one JSON object a line")
    args = p.parse_args(argv)

    paths = args.paths or _rule_paths(args.rules)
    if not paths:
        p.error(f"{args.rules} names no source paths; pass --paths")
    todo = commits(args.repo, paths, args.limit, args.since, args.rev)
    verdicts: dict[str, str] = json.loads(Path(args.verdicts).read_text()) if args.verdicts else {}
    crashes, kinds, seconds = [], Counter(), []
    judged: Counter[str] = Counter()
    unjudged: list[str] = []
    rows: list[dict] = []
    for sha, subject in todo:
        code, stderr, report, elapsed = replay(args.repo, args.rules, sha)
        seconds.append(elapsed)
        if report is None or "Traceback" in stderr:
            crashes.append((sha, subject, code, stderr.strip().splitlines()[-12:] or ["(no output)"]))
            continue
        for f in report["findings"]:
            kinds[(f["severity"], f["kind"])] += 1
            if f["severity"] not in ("error", "warning"):
                continue
            key = key_of(sha, f)
            row = {
                "key": key,
                "commit": sha,
                "subject": subject,
                "doc_line": _doc_line(args.repo, sha, f),
                **f,
            }
            rows.append(row)
            verdict = verdicts.get(key)
            if verdict in ("real", "false"):
                judged[verdict] += 1
            else:
                unjudged.append(key)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows))

    seconds.sort()
    print(f"replayed {len(todo)} commits of {args.repo} touching {len(paths)} source paths")
    if seconds:
        print(f"  time per check: median {seconds[len(seconds) // 2]:.2f} s, max {seconds[-1]:.2f} s")
    print(f"  crashes: {len(crashes)}")
    for sha, subject, code, tail in crashes:
        # With the traceback's end: a crash that does not recur alone still says what broke.
        print(f"    {sha[:10]} exit {code}: {tail[-1]}  ({subject[:60]})")
        print("".join(f"      | {line}\n" for line in tail[:-1]), end="")
    notices = sum(n for (severity, _), n in kinds.items() if severity == "notice")
    per_ten = f" ({10 * notices / len(todo):.1f} per 10 commits)" if todo else ""
    print(f"  warnings and errors: {len(rows)}; notices: {notices}{per_ten}")
    for (severity, kind), n in sorted(kinds.items()):
        print(f"    {severity:8} {kind:14} {n}")
    if verdicts:
        total = judged["real"] + judged["false"]
        share = f"{judged['real'] / total:.0%}" if total else "n/a"
        print(f"  judged: {total} ({judged['real']} real, {judged['false']} false): precision {share}")
        if unjudged:
            print(f"  not judged yet: {len(unjudged)}")
            for key in unjudged:
                print(f"    {key}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
