"""Replay a merged pull request of a real repository through the check.

    python bench/replay.py --repo PATH/TO/miles --commit 0daa9ff92 --rules miles \
        --doc docs/user-guide/training-backend.md --doc-rev HEAD \
        --doc-edit='--no-keep-fp32-master=>--disable-fp32-master'

(`--doc-edit=VALUE` in one word: a value starting with "--" would otherwise read as an option.)
Base is the commit's first parent, head the commit. A page that did not exist yet when the
pull request merged (or that was fixed later) can be laid over both revisions with --doc and
--doc-rev, and edited back to what it said before the pull request with --doc-edit OLD=>NEW:
that asks "had the page existed then, would docs-sync have caught it?". Nothing is checked out.
"""

from __future__ import annotations

import argparse
import sys

from bot.core.check import check
from bot.core.packs import resolve_rule_args
from bot.render.data import to_json
from bot.render.markdown import to_markdown
from bot.render.text import to_text
from bot.trees.git import GitRepo, GitTree


class Overlay:
    """A git revision with some files replaced."""

    def __init__(self, tree: GitTree, files: dict[str, str]):
        self.tree, self.files = tree, files

    def read(self, path: str) -> str | None:
        return self.files[path] if path in self.files else self.tree.read(path)

    def blob_id(self, path: str) -> str | None:
        return None if path in self.files else self.tree.blob_id(path)

    def exists(self, path: str) -> bool:
        return path in self.files or self.tree.exists(path)

    def paths(self) -> frozenset[str]:
        return self.tree.paths() | frozenset(self.files)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", required=True)
    p.add_argument("--commit", required=True)
    p.add_argument("--rules", nargs="+", required=True)
    p.add_argument("--doc", help="doc page to lay over both revisions")
    p.add_argument("--doc-rev", help="revision to take --doc from")
    p.add_argument("--doc-edit", action="append", default=[], metavar="OLD=>NEW")
    p.add_argument("--format", default="text", choices=("text", "json", "markdown"))
    args = p.parse_args(argv)

    rules = [r for pack in resolve_rule_args(args.rules) for r in pack.rules]
    with GitRepo(args.repo) as repo:
        head_sha = repo.resolve(args.commit)
        base_sha = repo.resolve(f"{head_sha}^")
        files: dict[str, str] = {}
        if args.doc:
            text = repo.tree(args.doc_rev or head_sha).read(args.doc)
            if text is None:
                p.error(f"{args.doc} not found at {args.doc_rev}")
            for edit in args.doc_edit:
                old, _, new = edit.partition("=>")
                if old not in text:
                    p.error(f"--doc-edit: {old!r} not in {args.doc}")
                text = text.replace(old, new)
            files[args.doc] = text
        base = Overlay(repo.tree(base_sha), files)
        head = Overlay(repo.tree(head_sha), files)
        result = check(rules, base, head, repo.changes(base_sha, head_sha))
    out = {"text": to_text, "json": to_json, "markdown": to_markdown}[args.format](result)
    print(f"replay {args.commit}: base {base_sha[:9]} -> head {head_sha[:9]}")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
