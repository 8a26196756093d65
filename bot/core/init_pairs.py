"""What `docs-sync init` pairs: folders that each hold a page and the scripts it documents.

`examples/sft/README.md` runs `examples/sft/train.py`, `examples/dpo/README.md` runs
`examples/dpo/train.py`: coupling every such page to every such script in one rule tells each
page about its siblings' new flags and compares a default with a sibling's same-named flag. Two
folders or more of one parent, each with a page of the same name that cites the flags of an
argparse module beside it, become one `{name}` rule instead: each page against its own folder's
scripts (bot/core/globs.py). A page that cites scripts elsewhere stays in the main rule.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

MIN_FOLDERS = 2  # folders of one parent that must pair before a `{name}` rule is written


@dataclass(frozen=True)
class Pairs:
    """One `{name}` rule: `parent/{name}/page` against `parent/{name}/*.py`."""

    parent: str
    page: str  # the page's file name in each folder (README.md)
    folders: tuple[str, ...]  # the values of {name} today

    @property
    def doc(self) -> str:
        return f"{self.parent}/{{name}}/{self.page}"

    @property
    def source(self) -> str:
        return f"{self.parent}/{{name}}/*.py"

    def takes(self, path: str) -> bool:
        """Does the rule check `path` (a page or a parser of one of its folders)?"""
        folder = posixpath.dirname(path)
        return posixpath.dirname(folder) == self.parent and posixpath.basename(folder) in self.folders


def pairs(cites: Mapping[str, Sequence[str]], argparse: set[str]) -> list[Pairs]:
    """The pairing rules for pages (`cites`: page -> the parser files whose flags it cites)
    whose folder holds an argparse parser it cites, and that cite no parser outside their
    parent's folders."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for page, parsers in cites.items():
        folder = posixpath.dirname(page)
        parent = posixpath.dirname(folder)
        if not parent or not parsers:
            continue
        beside = [p for p in parsers if posixpath.dirname(p) == folder and p in argparse]
        # Citations of a sibling folder's scripts are of the copies of its own (the same flags).
        elsewhere = [p for p in parsers if posixpath.dirname(posixpath.dirname(p)) != parent]
        if beside and not elsewhere:
            groups[(parent, posixpath.basename(page))].append(posixpath.basename(folder))
    return [
        Pairs(parent, page, tuple(sorted(folders)))
        for (parent, page), folders in sorted(groups.items())
        if len(folders) >= MIN_FOLDERS
    ]


def rule_lines(found: Sequence[Pairs], taken: set[str], quote: Callable[[str], str]) -> list[str]:
    """The config lines of the pairing rules, with ids not in `taken`."""
    lines: list[str] = []
    for pair in found:
        base = posixpath.basename(pair.parent) or "pages"
        rule_id, n = base, 2
        while rule_id in taken:
            rule_id, n = f"{base}-{n}", n + 1
        taken.add(rule_id)
        lines += [
            f"  # Each {pair.page} under {pair.parent}/ against the scripts beside it: a page is",
            f"  # told about its own folder's flags only ({len(pair.folders)} folders pair today).",
            f"  - id: {rule_id}",
            "    docs:",
            f"      - path: {quote(pair.doc)}",
            "    sources:",
            "      - id: cli",
            "        kind: argparse",
            f"        paths: [{quote(pair.source)}]",
            "      - id: cited-paths",
            "        kind: paths",
        ]
    return lines
