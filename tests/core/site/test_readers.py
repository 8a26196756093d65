"""Reading Mintlify's docs.json / mint.json and MkDocs' mkdocs.yml: entries and their lines."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.core.site import mintlify, mkdocs
from bot.core.site.model import SiteError
from tests.core.site.sitekit import MINT_CONFIG, MKDOCS_CONFIG


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


def test_docs_json_navigation_and_redirects_with_their_lines() -> None:
    config = mintlify.read(MINT_CONFIG, "docs/docs.json")
    assert config.kind == "mintlify" and config.root == "docs" and config.can_redirect
    nav = [(e.target, e.line) for e in config.nav or ()]
    assert nav == [
        ("index", line_of(MINT_CONFIG, '"root": "index"')),
        ("guide/install", line_of(MINT_CONFIG, '"guide/install"')),
        ("guide/usage", line_of(MINT_CONFIG, '"guide/usage"')),
        ("guide/backends", line_of(MINT_CONFIG, '"guide/backends"')),
        ("guide/fees", line_of(MINT_CONFIG, '"guide/fees"')),
    ]  # the external tab link is not a page
    first, second = config.redirects
    assert (first.source, first.destination, first.permanent) == ("/old/setup", "/guide/install", True)
    assert first.line == line_of(MINT_CONFIG, '"source": "/old/setup"') - 1
    assert first.end_line == first.line + 4
    assert second.destination_line == line_of(MINT_CONFIG, '"/guide/backends#fsdp"')
    assert config.redirects_at == ("docs/docs.json", line_of(MINT_CONFIG, '"redirects": ['))
    assert config.files == ("docs/docs.json",) and {e.file for e in config.nav or ()} == {"docs/docs.json"}


def test_mint_json_and_openapi_pages() -> None:
    text = (
        '{"name": "x", "openapi": "spec.yaml",\n "navigation": [\n'
        '  {"group": "Start", "pages": ["intro", "GET /users", "https://x.org"]},\n'
        '  {"group": "API", "pages": [{"group": "Nested", "pages": ["api/a"]}]}\n'
        ' ],\n "anchors": [{"name": "Blog", "url": "blog"}]}\n'
    )
    config = mintlify.read(text, "mint.json")
    assert [(e.target, e.line) for e in config.nav or ()] == [("intro", 3), ("api/a", 4)]
    assert config.root == "" and config.generated_pages and config.redirects == ()


def test_ref_files_stand_for_their_content_and_keep_their_lines() -> None:
    files = {
        "docs/docs.json": '{\n  "name": "x",\n  "navigation": {"$ref": "./config/nav.json"},\n'
        '  "redirects": {"$ref": "redirects.json"}\n}\n',
        "docs/config/nav.json": '{\n  "pages": [\n    "intro",\n    {"$ref": "more/api.json"}\n  ]\n}\n',
        "docs/config/more/api.json": '{"group": "API", "pages": ["api/a"]}',
        "docs/redirects.json": '[\n  {\n    "source": "/old",\n    "destination": "/intro"\n  }\n]\n',
    }
    config = mintlify.read(files["docs/docs.json"], "docs/docs.json", load=files.get)
    assert [(e.target, e.file, e.line) for e in config.nav or ()] == [
        ("intro", "docs/config/nav.json", 3),
        ("api/a", "docs/config/more/api.json", 1),
    ]
    (r,) = config.redirects
    assert (r.file, r.line, r.source_line, r.destination_line) == ("docs/redirects.json", 2, 3, 4)
    assert config.redirects_at == ("docs/redirects.json", 1)
    assert set(config.files) == set(files)
    # Sibling keys of a `$ref` override the referenced object's.
    merged = mintlify.read(
        '{"navigation": {"$ref": "n.json", "pages": ["b"]}}',
        "docs.json",
        load={"n.json": '{"pages": ["a"]}'}.get,
    )
    assert [e.target for e in merged.nav or ()] == ["b"]


@pytest.mark.parametrize(
    ("files", "line", "words"),
    [
        ({}, 1, "$ref ./nav.json names no file (nav.json)"),
        (
            {"nav.json": '{"$ref": "docs.json"}', "docs.json": '{"navigation": {"$ref": "./nav.json"}}'},
            1,
            "more than",
        ),
        ({"nav.json": "{oops"}, 1, "$ref ./nav.json: line 1: Expecting property name"),
    ],
)
def test_a_ref_that_does_not_read(files: dict[str, str], line: int, words: str) -> None:
    with pytest.raises(SiteError) as e:
        mintlify.read('{"navigation": {"$ref": "./nav.json"}}', "docs.json", load=files.get)
    assert e.value.line == line and words in e.value.message


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('{\n  "name": "x"\n  "navigation": {}\n}', 3, "Expecting ','"),
        ("[1, 2]", 1, "not a JSON object"),
        ('{"redirects": [{"source": "/a"}]}', 1, "needs a string source"),
        ('{"redirects": {"a": "b"}}', 1, "not a list"),
        ("[" * 5000 + "]" * 5000, 0, "nested"),
    ],
)
def test_a_docs_json_that_does_not_read_names_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(SiteError) as e:
        mintlify.read(text, "docs.json")
    assert e.value.line == line and words in e.value.message


def test_mkdocs_yml_with_python_tags_nav_and_redirect_maps() -> None:
    config = mkdocs.read(MKDOCS_CONFIG, "mkdocs.yml")
    assert config.kind == "mkdocs" and config.root == "docs" and config.can_redirect
    text = MKDOCS_CONFIG
    assert [(e.target, e.line) for e in config.nav or ()] == [
        ("index.md", line_of(text, "Home: index.md")),
        ("guide/install.md", line_of(text, "- guide/install.md")),
        ("guide/usage.md", line_of(text, "Usage: guide/usage.md")),
        ("guide/backends.md", line_of(text, "- guide/backends.md")),
    ]
    assert [(r.source, r.destination, r.line) for r in config.redirects] == [
        ("old/setup.md", "guide/install.md", line_of(text, "'old/setup.md'")),
        ("old/backend.md", "guide/backends.md#fsdp", line_of(text, "'old/backend.md'")),
    ]
    assert config.redirects_at == ("mkdocs.yml", line_of(text, "redirect_maps:"))
    assert config.slug_styles == ("toc",)


def test_mkdocs_options() -> None:
    text = (
        "site_name: x\ndocs_dir: src/pages\n"
        "plugins:\n  search: {}\n  redirects:\n    enabled: false\n"
        "markdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify\n"
        "        kwds: {case: lower}\n"
        "not_in_nav: |\n  /drafts/\n  # a comment\n  *.tmp.md\n"
    )
    config = mkdocs.read(text, "site/mkdocs.yml")
    assert config.root == "site/src/pages"
    assert config.nav is None  # no nav: every page is listed
    assert not config.can_redirect  # the plugin is switched off
    assert config.slug_styles == ("toc", "toc-unicode")
    assert config.not_in_nav == ("/drafts/", "*.tmp.md")
    assert mkdocs.read(text, "mkdocs.yml", root="docs").root == "docs"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("nav: [\n", 2),
        ("- a\n- b\n", 1),
        ("", 0),
        ("a: 1\n---\nb: 2\n", 2),
        ("nav:\n  - A: a.md\n  - B:\n", 3),
    ],
)
def test_a_mkdocs_yml_that_does_not_read(text: str, line: int) -> None:
    with pytest.raises(SiteError) as e:
        mkdocs.read(text, "mkdocs.yml")
    assert e.value.line == line


def _redirects(*sources: str):
    from bot.core.rules import SiteTarget
    from bot.core.site.pages import load
    from bot.trees.memory import MemoryTree

    redirects = [{"source": s, "destination": "/guide/install"} for s in sources]
    config = json.dumps({"name": "x", "navigation": {"pages": ["guide/install"]}, "redirects": redirects})
    tree = MemoryTree({"docs.json": config, "guide/install.mdx": "# Install\n"})
    site = load(SiteTarget(), tree)
    assert site is not None
    return site


@pytest.mark.parametrize(
    ("source", "url", "caught"),
    [
        ("/beta/:slug*", "/beta/a/b", True),
        ("/beta/:slug*", "/betas/a", False),
        ("/articles/:slug", "/articles/a", True),
        ("/articles/:slug", "/articles/a/b", False),  # one segment
        ("/articles/:slug", "/articles/", False),
        ("/articles/concepts-*", "/articles/concepts-x/y", True),
        ("/a/:x*/b/:y*/c", "/a/1/2/b/3/c", True),
        ("/a/:x*/b/:y*/c", "/a/1/2/b/3/d", False),
    ],
)
def test_a_wildcard_redirect_catches_what_its_source_says(source, url, caught):
    assert (_redirects(source).redirect_of(url) is not None) is caught


# The config is the pull request's: a regex of these wildcards backtracked for hours on a route
# that almost matches. Run apart, so a regression fails on the timeout.
_HOSTILE = """
import sys
from tests.core.site.test_readers import _redirects
site = _redirects("/" + "x:a*" * 30 + "y")
sys.exit(0 if site.redirect_of("/" + "x" * 3000) is None else 1)
"""


def test_matching_a_hostile_redirect_is_linear():
    assert subprocess.run([sys.executable, "-c", _HOSTILE], timeout=20, check=False).returncode == 0
