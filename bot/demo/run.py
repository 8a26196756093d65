"""`docs-sync demo`: the demo pull request through the command line, then through the whole App.

Both parts run docs-sync as a user does, as separate processes (`python -m bot check`,
`python -m bot serve`), so the demo shows the installed program and nothing the tests set up.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from bot.testing.trainer import build_demo_repo, git


def main(app: bool = True, keep: str | None = None) -> int:
    """The command-line check on the demo pull request, then (with `app`) the same pull request
    through the whole GitHub App loop."""
    print("== 1. docs-sync check: the pull request, from git ==\n")
    with tempfile.TemporaryDirectory(prefix="docs-sync-demo-") as tmp:
        repo = Path(keep) / "cli" / "trainer" if keep else Path(tmp) / "trainer"
        base, head = build_demo_repo(repo)
        print(f"Demo repository: {repo}")
        print("Pull request `pr` -> `main`:")
        print("  " + git(repo, "log", "--oneline", f"{base}..{head}"))
        print("  " + git(repo, "diff", "--stat", base, head).replace("\n", "\n  "))
        print()
        print(f"$ docs-sync check --repo {repo} --base main --head pr")
        sys.stdout.flush()
        argv = ["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--no-cache"]
        code = subprocess.run([sys.executable, "-m", "bot", *argv]).returncode
    print(f"\n(docs-sync exited {code}: 1 means the check would block the merge.)")
    if code not in (0, 1):
        return code
    if not app:
        return 0
    from bot.demo.app_loop import main as app_main

    print("\n== 2. The GitHub App: the same pull request, from a webhook to the review ==\n")
    sys.stdout.flush()
    return app_main(keep=str(Path(keep) / "app") if keep else None)
