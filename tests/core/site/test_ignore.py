"""gitignore-style patterns as .mintignore, exclude_docs and not_in_nav write them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.core.site.ignore import MINTLIFY_DEFAULTS, MKDOCS_DEFAULTS, ignored


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("drafts/a.md", ["drafts/"], True),
        ("guide/drafts/a.md", ["drafts/"], True),
        ("guide/drafts.md", ["drafts/"], False),
        ("guide/drafts/a.md", ["/drafts/"], False),
        ("a.draft.mdx", ["*.draft.mdx"], True),
        ("x/internal/y/z.md", ["**/internal/**"], True),
        ("keep.md", ["*.md", "!keep.md"], False),
        ("other.md", ["*.md", "!keep.md"], True),
        ("guide/page?.md", ["guide/page?.md"], True),
    ],
)
def test_patterns(path: str, patterns: list[str], expected: bool) -> None:
    assert ignored(path, patterns) is expected


def test_defaults() -> None:
    assert ignored("README.md", MINTLIFY_DEFAULTS) and ignored("guide/README.md", MINTLIFY_DEFAULTS)
    assert ignored(".mintlify/AGENTS.md", MINTLIFY_DEFAULTS) and ignored(
        "node_modules/x/a.md", MINTLIFY_DEFAULTS
    )
    assert not ignored("guide/readme-first.mdx", MINTLIFY_DEFAULTS)
    assert ignored(".drafts/a.md", MKDOCS_DEFAULTS) and ignored("templates/a.md", MKDOCS_DEFAULTS)
    assert not ignored("guide/templates/a.md", MKDOCS_DEFAULTS)


def test_the_syntax_of_rule_globs_is_literal_here() -> None:
    assert ignored("docs/{name}.md", ["{name}.md"]) and not ignored("docs/x.md", ["{name}.md"])
    assert ignored("a[1].md", ["a[1].md"]) and not ignored("a1.md", ["a[1].md"])


# A `.mintignore` is the pull request's: `**/` repeated became nested `(?:.*/)?` groups that
# backtrack for hours on a deep path. Run apart, so a regression fails on the timeout.
_HOSTILE = """
import sys
from bot.core.site.ignore import ignored
deep = "a/" * 40 + "y.md"
sys.exit(0 if not ignored(deep, ["**/" * 12 + "x"]) and ignored(deep, ["**/" * 12 + "y.md"]) else 1)
"""


def test_matching_a_hostile_pattern_is_linear() -> None:
    assert subprocess.run([sys.executable, "-c", _HOSTILE], timeout=20, check=False).returncode == 0
