"""gitignore-style patterns, as `.mintignore`, MkDocs' `exclude_docs` and `not_in_nav` write them:
`drafts/`, `*.draft.mdx`, `/internal/**`, `!keep.md`."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from bot.core.globs import Pattern, PatternError, compile_pattern

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
        if any(glob.matches(path) for glob in _globs(pattern[1:] if negate else pattern)):
            verdict = not negate
    return verdict


@functools.cache
def _globs(pattern: str) -> tuple[Pattern, ...]:
    """The pattern as the rules' globs (bot/core/globs.py), matched in linear time whatever the
    pull request wrote: one without a `/` inside matches at any depth (`**/` before it), and
    it names a path or a folder the path is in (`/**` after it; a folder pattern, `drafts/`,
    only the folder). None for a pattern past the globs' caps: it matches nothing."""
    folder = pattern.endswith("/")
    body = pattern.strip("/")
    anchored = pattern.startswith("/") or "/" in body
    # Characters of the globs' own syntax are literal here, and `**` inside a segment is `*`.
    segments = [
        part if part == "**" else re.sub(r"\*+", "*", re.sub(r"([\[\]{}])", r"[\1]", part))
        for part in body.split("/")
    ]
    text = ("" if anchored else "**/") + "/".join(segments)
    try:
        inside = compile_pattern(text + "/**")
        return (inside,) if folder else (compile_pattern(text), inside)
    except PatternError:
        return ()
