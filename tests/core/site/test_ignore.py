"""gitignore-style patterns as .mintignore, exclude_docs and not_in_nav write them."""

from __future__ import annotations

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
