"""Heading anchors as GitHub, Mintlify and MkDocs (Python-Markdown's toc) make them."""

from __future__ import annotations

import pytest

from bot.core.page import parse_doc
from bot.core.site.slugs import GITHUB, MINTLIFY, TOC, TOC_UNICODE, anchors, mintlify_slug, toc_slug


# Mintlify's own table of examples (its docs, "Automatic anchor IDs").
@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Getting started", "getting-started"),
        ("Config.json options", "config-json-options"),
        ("What's new", "what\u2019s-new"),
        ("Rate limits (per minute)", "rate-limits-per-minute"),
        ("Read/write access", "read/write-access"),
        ("Fees & billing", "fees-&-billing"),
        ("OAuth", "oauth"),
    ],
)
def test_mintlify_slugs(title: str, slug: str) -> None:
    assert mintlify_slug(title) == slug


@pytest.mark.parametrize(
    ("title", "slug", "unicode_slug"),
    [
        ("Megatron - the default", "megatron-the-default", "megatron-the-default"),
        ("3. Choosing the GPU layout", "3-choosing-the-gpu-layout", "3-choosing-the-gpu-layout"),
        ("Café au lait", "cafe-au-lait", "café-au-lait"),
        ("  --flag  ", "-flag", "-flag"),
    ],
)
def test_toc_slugs(title: str, slug: str, unicode_slug: str) -> None:
    assert toc_slug(title) == slug
    assert toc_slug(title, unicode=True) == unicode_slug


def test_a_page_has_each_styles_anchors_with_its_own_repeat_suffixes() -> None:
    doc = parse_doc("p.md", "# Overview\n\n## Setup\n\n## Setup\n\n## Setup\n")
    found = anchors(doc, (GITHUB, MINTLIFY, TOC, TOC_UNICODE))
    setups = [h.anchors for h in found.headings if h.title == "Setup"]
    assert [a[GITHUB] for a in setups] == ["setup", "setup-1", "setup-2"]
    assert [a[MINTLIFY] for a in setups] == ["setup", "setup-2", "setup-3"]
    assert [a[TOC] for a in setups] == ["setup", "setup_1", "setup_2"]


def test_custom_ids_and_html_ids_are_anchors() -> None:
    text = (
        "# Page\n\n## My section {#my-anchor}\n\n### Options {: #opts .wide }\n\n"
        '<a id="legacy"></a>\n\n<h2 id="raw-heading">Raw</h2>\n'
    )
    found = anchors(parse_doc("p.mdx", text), (GITHUB, MINTLIFY))
    assert {"my-anchor", "opts", "legacy", "raw-heading"} <= found.all
    assert not found.has("my-section-my-anchor")
    assert [h.title for h in found.headings][:3] == ["Page", "My section", "Options"]


def test_anchor_lookup_knows_the_heading_and_style() -> None:
    found = anchors(parse_doc("p.md", "# A\n\n## Fees & billing\n"), (GITHUB, MINTLIFY))
    assert found.heading_of("fees--billing") == (1, GITHUB)
    assert found.heading_of("fees-&-billing") == (1, MINTLIFY)
    assert found.has("FEES--BILLING")
    assert found.heading_of("fees") is None


def test_mintlify_keeps_colons_and_dollars_as_its_own_docs_link_them() -> None:
    assert mintlify_slug("Example: Connect to the server") == "example:-connect-to-the-server"
    assert mintlify_slug("Split configuration with $ref") == "split-configuration-with-$ref"
    assert mintlify_slug("Split configuration with $ref", plain=True) == "split-configuration-with-ref"


def test_mintlify_components_make_anchors() -> None:
    text = (
        "# Settings\n\n"
        '<ResponseField name="thumbnails.background" type="string">\n\nx\n</ResponseField>\n\n'
        '<AccordionGroup>\n  <Accordion title="Deployment branch">\n    y\n  </Accordion>\n'
        "</AccordionGroup>\n"
    )
    found = anchors(parse_doc("p.mdx", text), (GITHUB, MINTLIFY))
    assert found.has("param-thumbnails-background") and found.has("deployment-branch")
    assert not anchors(parse_doc("p.md", text), (TOC,)).has("deployment-branch")  # MkDocs has no such thing
