"""flag_keys: a page's config-file block setting a configargparse option by its key
(`expect-workers = 5` for `--expect-workers`) after the option was renamed or removed."""

from __future__ import annotations

import textwrap

from bot.core.check import check
from bot.core.packs import parse_rules_file
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import changes_between

CONFIG = """\
rules:
  - id: cli
    docs: [{path: "docs/*.rst"}]
    sources: [{id: cli, kind: argparse, path: tool/args.py}]
"""

ARGS = textwrap.dedent(
    """\
    import configargparse

    def parser():
        p = configargparse.ArgumentParser(default_config_files=["tool.conf"])
        p.add_argument("--expect-workers", type=int, default=1)
        p.add_argument("--host")
        p.add_argument("--users", type=int, default=1)
        return p
    """
)

PAGE = textwrap.dedent(
    """\
    Configuration
    =============

    .. code-block:: ini

        host = https://example.com
        expect-workers = 5

    .. code-block:: toml

        [tool.tool]
        users = 3
        expect-workers = 5

    A compose file of another program:

    .. code-block:: yaml

        expect-workers: 2
    """
)


def run(head_args: str, base_args: str = ARGS):
    base = {"tool/args.py": base_args, "docs/config.rst": PAGE}
    head = {**base, "tool/args.py": head_args}
    rules = [r for p in parse_rules_file(CONFIG, "cfg.yml") for r in p.rules]
    return check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings


def keyed(findings):
    return sorted((f.kind, f.symbol, f.doc.line) for f in findings if not f.symbol.startswith("-"))


def test_a_renamed_option_renames_its_key_in_the_blocks_setting_the_program_s_options():
    findings = run(ARGS.replace("--expect-workers", "--min-workers"))
    ini, toml = [n for n, line in enumerate(PAGE.splitlines(), 1) if "expect-workers = 5" in line]
    assert keyed(findings) == [("renamed", "expect-workers", ini), ("renamed", "expect-workers", toml)]
    edited = [f.suggestion.replacement for f in findings if f.suggestion is not None]
    assert edited == ["    min-workers = 5", "    min-workers = 5"]


def test_a_removed_option_s_key_is_removed():
    findings = run(ARGS.replace('    p.add_argument("--expect-workers", type=int, default=1)\n', ""))
    assert [k for k, _, _ in keyed(findings)] == ["removed", "removed"]


def test_a_plain_argparse_parser_reads_no_config_file():
    plain = ARGS.replace("import configargparse", "import argparse").replace("configargparse.", "argparse.")
    plain = plain.replace('default_config_files=["tool.conf"]', "")
    assert keyed(run(plain.replace("--expect-workers", "--min-workers"), plain)) == []


def test_a_line_written_setting_a_near_miss_of_an_option_s_key_is_unresolved():
    page = PAGE.replace(
        "    expect-workers = 5\n\n.. code-block:: toml",
        "    expect-workers = 5\n    user = 2\n    colour = red\n\n.. code-block:: toml",
    )
    base = {"tool/args.py": ARGS, "docs/config.rst": PAGE}
    head = {**base, "docs/config.rst": page}
    rules = [r for p in parse_rules_file(CONFIG, "cfg.yml") for r in p.rules]
    findings = check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings
    assert [(f.kind, f.symbol) for f in findings] == [("unresolved", "user")]
    assert findings[0].suggestion is not None and findings[0].suggestion.replacement == "    users = 2"
