"""gitignore-style patterns, as `.mintignore`, MkDocs' `exclude_docs` and `not_in_nav` write them:
`drafts/`, `*.draft.mdx`, `/internal/**`, `!keep.md`."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

# Files Mintlify leaves out of every site without being told to; its list names .git, .github,
# .claude, .agents, .idea, .vscode and .cache, and a hidden folder (its own .mintlify/) is taken
# to be one of those.
MINTLIFY_DEFAULTS = (
    ".*/", "node_modules/", "build/", "dist/", "coverage/", "tmp/", "temp/", "README.md", "LICENSE.md",
    "CHANGELOG.md", "CONTRIBUTING.md",
)  # fmt: skip
# MkDocs leaves out dot files and folders and its `templates/` folder.
MKDOCS_DEFAULTS = (".*", "/templates/")


def ignored(path: str, patterns: Sequence[str]) -> bool:
    """Whether a path (relative to the folder the patterns belong to) is matched; the last
    matching pattern decides, and a `!` pattern takes the path back."""
    verdict = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        if _regex(pattern[1:] if negate else pattern).search(path):
            verdict = not negate
    return verdict


@functools.cache
def _regex(pattern: str) -> re.Pattern[str]:
    folder = pattern.endswith("/")
    body = pattern.strip("/")
    anchored = pattern.startswith("/") or "/" in body
    out = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    # A folder pattern matches what is inside it; any pattern may also name a folder.
    tail = "/" if folder else "(?:/|$)"
    return re.compile(("^" if anchored else "(?:^|/)") + "".join(out) + tail)
