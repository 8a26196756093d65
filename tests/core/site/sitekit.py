"""Two small docs sites, one Mintlify and one MkDocs, whole at the start: every navigation
entry, redirect, link and anchor reaches what it names. Tests break them one way at a time."""

from __future__ import annotations

import json
from collections.abc import Sequence

import yaml

from bot.core.check import audit, check
from bot.core.model import Change, Finding, Suggestion
from bot.core.rules import DEFAULT_SEVERITY, Rule, SiteTarget
from bot.trees.memory import MemoryTree

MINT_CONFIG = """{
  "$schema": "https://mintlify.com/docs.json",
  "name": "Forge",
  "navigation": {
    "tabs": [
      {
        "tab": "Guide",
        "groups": [
          {
            "group": "Start",
            "root": "index",
            "pages": [
              "guide/install",
              "guide/usage",
              {
                "group": "Backends",
                "pages": [
                  "guide/backends",
                  "guide/fees"
                ]
              }
            ]
          }
        ]
      },
      {
        "tab": "Blog",
        "href": "https://example.com/blog"
      }
    ]
  },
  "redirects": [
    {
      "source": "/old/setup",
      "destination": "/guide/install",
      "permanent": true
    },
    {
      "source": "/old/backend",
      "destination": "/guide/backends#fsdp",
      "permanent": true
    }
  ]
}
"""

MINT_PAGES = {
    "docs/index.mdx": """---
title: Forge
---

Start with [installing](/guide/install), then [use it](/guide/usage#running-a-job).
""",
    "docs/guide/install.mdx": """# Install

## Requirements

You need Python. Then read [Usage](./usage.mdx) and the [backends][b].

[b]: /guide/backends#choosing-a-backend
""",
    "docs/guide/usage.md": """# Usage

## Running a job

Pick a backend: see <Card title="Backends" href="/guide/backends#fsdp">the page</Card>.

```bash
# an example, never checked: [x](/nowhere)
```

Fees are covered in [billing](/guide/fees#fees-&-billing).
""",
    "docs/guide/backends.md": """# Backends

## Choosing a backend

### FSDP

### Megatron
""",
    "docs/guide/fees.md": """# Fees

## Fees & billing

See [choosing](backends#choosing-a-backend) and [GitHub style](/guide/fees#fees--billing).
""",
    "docs/README.md": "How to preview the docs locally (not published).\n",
    "docs/assets/logo.png": "PNG",
}

MKDOCS_CONFIG = """site_name: Forge
docs_dir: docs
nav:
  - Home: index.md
  - Guide:
      - guide/install.md
      - Usage: guide/usage.md
      - guide/backends.md
plugins:
  - search
  - redirects:
      redirect_maps:
        'old/setup.md': 'guide/install.md'
        'old/backend.md': 'guide/backends.md#fsdp'
markdown_extensions:
  - toc:
      permalink: true
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
extra:
  analytics: !ENV [ANALYTICS, none]
"""

MKDOCS_PAGES = {
    "docs/index.md": """# Forge

Start with [installing](guide/install.md), then [use it](guide/usage.md#running-a-job).
""",
    "docs/guide/install.md": """# Install

## Requirements

Read [Usage](usage.md) and the [backends][b].

[b]: backends.md#choosing-a-backend
""",
    "docs/guide/usage.md": """# Usage

## Running a job

See [FSDP](backends.md#fsdp) and [the install page](../guide/install.md).
""",
    "docs/guide/backends.md": """# Backends

## Choosing a backend

### FSDP

### Megatron - the default

See [Megatron](#megatron-the-default).
""",
}


def mintlify() -> dict[str, str]:
    return {"docs/docs.json": MINT_CONFIG, **MINT_PAGES}


def mkdocs() -> dict[str, str]:
    return {"mkdocs.yml": MKDOCS_CONFIG, **MKDOCS_PAGES}


def site_rule(target: SiteTarget | None = None, severity: dict[str, str] | None = None) -> Rule:
    return Rule(
        id="site",
        docs=(),
        sources=(),
        severity=dict(DEFAULT_SEVERITY, **(severity or {})),
        site=target or SiteTarget(),
    )


def changes_between(
    base: dict[str, str], head: dict[str, str], renames: dict[str, str] | None = None
) -> list[Change]:
    """The changes git would list, `renames` (old -> new) as renames."""
    renames = renames or {}
    out = [Change("renamed", new, old) for old, new in renames.items()]
    for path in sorted(base.keys() | head.keys()):
        if path in renames or path in renames.values():
            continue
        if path not in head:
            out.append(Change("removed", path))
        elif path not in base:
            out.append(Change("added", path))
        elif base[path] != head[path]:
            out.append(Change("modified", path))
    return out


def run_check(
    base: dict[str, str],
    head: dict[str, str],
    renames: dict[str, str] | None = None,
    rule: Rule | None = None,
) -> list[Finding]:
    report = check(
        [rule or site_rule()], MemoryTree(base), MemoryTree(head), changes_between(base, head, renames)
    )
    return list(report.findings)


def run_audit(files: dict[str, str], rule: Rule | None = None) -> list[Finding]:
    return list(audit([rule or site_rule()], MemoryTree(files)).findings)


def apply(text: str, s: Suggestion) -> str:
    """The file after accepting a suggestion."""
    lines = text.split("\n")
    new = s.replacement.split("\n") if s.replacement else []
    return "\n".join(lines[: s.start_line - 1] + new + lines[s.end_line :])


def applied(files: dict[str, str], findings: Sequence[Finding]) -> dict[str, str]:
    """Each finding's suggestion accepted on its own; asserts the file still parses."""
    out = {}
    for f in findings:
        if f.suggestion is None:
            continue
        path = f.suggestion.path
        text = apply(files[path], f.suggestion)
        if path.endswith(".json"):
            json.loads(text)
        elif path.endswith((".yml", ".yaml")):
            yaml.compose(text, Loader=yaml.SafeLoader)
        out[f"{f.kind}:{f.symbol}"] = text
    return out


def kinds(findings: Sequence[Finding]) -> list[tuple[str, str, str]]:
    return [(f.kind, f.severity, f.symbol) for f in findings]
