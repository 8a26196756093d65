"""Replay a project's docs-site history through `docs-sync check`: every commit since one that
touched the docs folder.

    python bench/replay_site.py --repo PATH/TO/CLONE --rules RULES.yml --since COMMIT
        [--paths docs/] [--verdicts VERDICTS.json] [--out FINDINGS.jsonl]

`--rules` is a rules file whose rule turns the site check on (`site:`, see
bench/rules/miles-site.yml). For `--since` and every later non-merge commit that touched
`--paths`, oldest first, it runs `docs-sync check --base COMMIT^ --head COMMIT --format json`
exactly as `replay_history.py` does (a process per commit) and prints every finding, notices
included, with its key and the line it sits on. A verdicts file maps keys to "real" or "false"
(the site check's notices are judged too); the script then counts each and lists what is not
judged yet. It exits 1 when a run crashed or a finding is judged false.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_history import _doc_line, _git, _pathspec, key_of, replay  # noqa: E402


def commits_since(repo: str, since: str, paths: list[str]) -> list[tuple[str, str]]:
    out = _git(repo, "log", "--no-merges", "--reverse", "--format=%H%x09%s", f"{since}^..HEAD", "--",
               *map(_pathspec, paths))  # fmt: skip
    return [(sha, subject) for sha, subject in (line.split("\t", 1) for line in out.splitlines() if line)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", required=True, help="a clone (or bare mirror) of the project")
    p.add_argument("--rules", required=True, help="a rules file with a `site:` rule")
    p.add_argument("--since", required=True, help="the first commit to replay")
    p.add_argument("--paths", nargs="+", default=["docs/"], help="commits touching these (default docs/)")
    p.add_argument("--verdicts", help="JSON file: finding key -> 'real' | 'false'")
    p.add_argument("--out", help="write every finding here, one JSON object a line")
    args = p.parse_args(argv)

    todo = commits_since(args.repo, args.since, args.paths)
    verdicts: dict[str, str] = json.loads(Path(args.verdicts).read_text()) if args.verdicts else {}
    counts: Counter[tuple[str, str]] = Counter()
    judged: Counter[str] = Counter()
    crashes: list[str] = []
    rows: list[dict[str, object]] = []
    quiet = 0
    for sha, subject in todo:
        code, stderr, report, _ = replay(args.repo, args.rules, sha)
        if report is None or "Traceback" in stderr:
            crashes.append(f"{sha[:10]} exit {code}: {(stderr.strip().splitlines() or ['(no output)'])[-1]}")
            continue
        findings = report["findings"]
        quiet += not findings
        for f in findings:
            counts[(f["severity"], f["kind"])] += 1
            key = key_of(sha, f)
            verdict = verdicts.get(key, "not judged")
            judged[verdict] += 1
            rows.append({"key": key, "commit": sha, "subject": subject, "verdict": verdict,
                         "doc_line": _doc_line(args.repo, sha, f), **f})  # fmt: skip
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows))

    where = " ".join(args.paths)
    print(f"replayed {len(todo)} commits of {args.repo} since {args.since[:10]} touching {where}")
    print(f"  crashes: {len(crashes)}")
    for line in crashes:
        print(f"    {line}")
    print(f"  commits without findings: {quiet}")
    print(f"  findings: {len(rows)}")
    for (severity, kind), n in sorted(counts.items()):
        print(f"    {severity:8} {kind:10} {n}")
    for row in rows:
        print(f"  [{row['verdict']}] {row['key']}  ({str(row['subject'])[:50]})")
        print(f"      {row['message']}")
    print(f"  verdicts: {dict(judged)}")
    return 1 if crashes or judged["false"] else 0


if __name__ == "__main__":
    sys.exit(main())
