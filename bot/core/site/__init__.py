"""The docs-site check: a Mintlify (`docs.json`, `mint.json`) or MkDocs (`mkdocs.yml`) site
whose navigation entries, redirects, links and anchors all reach what they name.

A rule turns it on with `site:` (bot/core/rules.py). The readers (`mintlify`, `mkdocs`) turn a
config's text into a `SiteConfig` (`model`); `pages` is the site at one revision (its pages,
their URLs, where a link lands), `slugs` the anchors each generator gives a heading, `links`
the links a page writes, `edits` the suggested config edits; `problems` what does not reach
what it names at one revision, `change` what only a change can get wrong, and `check` the entry
points (`site_check`, `site_audit`) that turn both into findings.
"""
