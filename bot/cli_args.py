"""The command line's words: `docs-sync`'s commands and their options (bot/cli.py runs them)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bot.core.packfiles import REPO_CONFIG
from bot.render import FORMATS


def version() -> str:
    # A static string, not importlib.metadata (55 ms on every start); tests/test_packaging.py
    # keeps it equal to pyproject.toml's version.
    from bot import __version__

    return __version__


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="docs-sync", description="Find the doc lines a code change made wrong, and say how to fix them."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, rules_from: str) -> None:
        p.add_argument("--repo", default=".", help="git repository to read (default: .)")
        p.add_argument(
            "--rules",
            nargs="+",
            action="extend",
            metavar="FILE",
            help=f"rule files or built-in pack names (default: {REPO_CONFIG} {rules_from})",
        )
        p.add_argument(
            "--format",
            choices=tuple(FORMATS),
            default="text",
            help="text (default; grouped by doc section), json (the stable contract), markdown, "
            "github (workflow annotations), sarif (code scanning), rdjson (reviewdog), patch (git apply)",
        )
        p.add_argument(
            "--fail-on",
            choices=("error", "warning", "notice", "never"),
            help="severity that fails the run (default: each rule's own fail_on)",
        )
        p.add_argument("--no-cache", action="store_true", help="do not read or write the facts cache")
        p.add_argument(
            "--no-history",
            action="store_true",
            help="do not look in git's history for what replaced a token the docs cite",
        )

    check = sub.add_parser("check", help="check one change: base..head")
    common(check, "at the base revision")
    check.add_argument(
        "--base",
        help="base revision, compared from its merge base with head (default: the branch "
        "$GITHUB_BASE_REF names, else the remote's default branch, origin/HEAD)",
    )
    check.add_argument("--head", help="head revision (default: HEAD)")
    check.add_argument(
        "--worktree",
        action="store_true",
        help="check the files on disk (staged, unstaged and untracked, not ignored) instead of --head",
    )
    check.add_argument(
        "--baseline",
        metavar="FILE",
        help="an audit's baseline (docs-sync audit --baseline FILE): report only findings it does not record",
    )

    audit = sub.add_parser("audit", help="list every doc reference that does not resolve at one revision")
    common(audit, "at --rev; at HEAD, the working tree's when it is not committed")
    audit.add_argument("--rev", default="HEAD", help="revision to audit (default: HEAD)")
    audit.add_argument(
        "--baseline",
        metavar="FILE",
        help="the first run records the findings in FILE; later runs report only findings not in it",
    )

    validate = sub.add_parser(
        "validate", help="check a rules file or config: its schema, what it matches, its rules' examples"
    )
    validate.add_argument(
        "--rules",
        nargs="+",
        action="extend",
        metavar="FILE",
        help=f"rule files, configs or built-in pack names (default: {REPO_CONFIG} at --rev)",
    )
    validate.add_argument(
        "--repo", help="git repository whose files the rules must match (default: ., when it is one)"
    )
    validate.add_argument("--rev", default="HEAD", help="revision of --repo to match (default: HEAD)")

    init = sub.add_parser("init", help=f"write a first {REPO_CONFIG} from the repository's CLIs and pages")
    init.add_argument("--repo", default=".", help="git repository to read (default: .)")
    init.add_argument("--rev", default="HEAD", help="revision to read (default: HEAD)")
    init.add_argument(
        "--write", action="store_true", help=f"write {REPO_CONFIG} into --repo instead of printing it"
    )

    demo = sub.add_parser(
        "demo",
        help="a demo repository and pull request: the check, then the whole App loop (no account needed)",
    )
    demo.add_argument("--cli-only", action="store_true", help="show the command-line check only")
    demo.add_argument("--keep", metavar="DIR", help="build the demo repository in DIR and keep it")

    serve = sub.add_parser("serve", help="run the GitHub App (webhook receiver and worker)")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for every one)"
    )
    serve.add_argument("--port", type=int, default=None, help="default: $PORT or 3000")
    serve.add_argument(
        "--no-worker",
        action="store_true",
        help="take deliveries only; `docs-sync worker` processes run the jobs (needs DATABASE_URL)",
    )
    sub.add_parser("worker", help="run jobs from the shared PostgreSQL queue (DATABASE_URL) until SIGTERM")
    register = sub.add_parser(
        "register", help="register the GitHub App from its manifest and write its settings to .env"
    )
    register.add_argument("--manifest", default="app.yml", help="the App's manifest (default: app.yml)")
    register.add_argument("--org", help="register it for this organisation (default: your account)")
    register.add_argument("--webhook-url", help="where GitHub delivers webhooks (default: the manifest's)")
    register.add_argument("--env-file", default=".env", help="file the settings go to (default: .env)")
    register.add_argument("--port", type=int, default=0, help="port of the local page (default: any free)")
    register.add_argument("--github-url", default="https://github.com", help=argparse.SUPPRESS)
    register.add_argument("--no-browser", action="store_true", help="print the page's address, open nothing")
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    return parser().parse_args(argv)
