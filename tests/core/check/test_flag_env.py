"""flag_env: a page citing an environment variable an option read (configargparse's `env_var=`,
click's `envvar=`) that no option reads at head."""

from __future__ import annotations

import textwrap

from bot.core.check import check
from bot.core.packs import parse_rules_file
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import changes_between, line_of

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
        p.add_argument("-f", "--file", default="run.py", env_var="TOOL_FILE")
        p.add_argument("--host", env_var="TOOL_HOST")
        p.add_argument("--users", type=int, default=1)
        return p
    """
)

PAGE = textwrap.dedent(
    """\
    Configuration
    =============

    Pass ``--host`` or set ``TOOL_HOST``.

    .. code-block:: console

        $ TOOL_FILE=mine.py tool --users 3
    """
)


def run(head_args: str, page: str = PAGE, config: str = CONFIG):
    base = {"tool/args.py": ARGS, "docs/config.rst": page}
    head = {**base, "tool/args.py": head_args}
    rules = [r for p in parse_rules_file(config, "cfg.yml") for r in p.rules]
    return check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings


def test_a_variable_the_same_option_reads_under_another_name_is_renamed_where_the_page_sets_it():
    findings = run(ARGS.replace('"TOOL_FILE"', '"TOOL_SCRIPT"'))
    assert [(f.kind, f.symbol, f.doc.line) for f in findings] == [
        ("renamed", "TOOL_FILE", line_of(PAGE, "TOOL_FILE=mine.py"))
    ]
    assert "`--file`" in findings[0].message
    assert findings[0].suggestion is not None and "TOOL_SCRIPT=mine.py" in findings[0].suggestion.replacement


def test_a_variable_no_option_reads_any_more_is_removed_in_prose_too():
    findings = run(ARGS.replace(', env_var="TOOL_HOST"', ""))
    assert [(f.kind, f.symbol, f.doc.line) for f in findings] == [
        ("removed", "TOOL_HOST", line_of(PAGE, "set ``TOOL_HOST``"))
    ]


def test_a_variable_still_read_and_other_attributes_changed_say_nothing():
    assert not run(ARGS.replace("default=1", "default=1, help='how many'"))


def test_click_s_envvar_is_followed_alike():
    config = CONFIG.replace("kind: argparse", "kind: click").replace("tool/args.py", "tool/cli.py")
    cli = (
        "import click\n\n@click.command()\n@click.option('--host', envvar='TOOL_HOST')\n"
        "def main(host):\n    pass\n"
    )
    base = {"tool/cli.py": cli, "docs/config.rst": PAGE}
    head = {**base, "tool/cli.py": cli.replace("'TOOL_HOST'", "'TOOL_ADDRESS'")}
    rules = [r for p in parse_rules_file(config, "cfg.yml") for r in p.rules]
    findings = check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings
    assert [(f.kind, f.symbol) for f in findings] == [("renamed", "TOOL_HOST")]


def test_a_variable_the_sources_still_read_themselves_is_not_gone():
    kept = ARGS.replace(', env_var="TOOL_HOST"', "").replace(
        "    return p\n", "    return p, os.environ.get('TOOL_HOST')\n"
    )
    assert not run("import os\n" + kept)


def test_a_line_written_citing_a_near_miss_of_a_variable_an_option_reads_is_unresolved():
    page = PAGE + "\nOr set ``TOOL_HOSTS`` and ``TOOL_PORT``.\n"
    base = {"tool/args.py": ARGS, "docs/config.rst": PAGE}
    head = {**base, "docs/config.rst": page}
    rules = [r for p in parse_rules_file(CONFIG, "cfg.yml") for r in p.rules]
    findings = check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings
    assert [(f.kind, f.symbol) for f in findings] == [("unresolved", "TOOL_HOSTS")]
    assert "`TOOL_HOST`" in findings[0].message


def test_a_manifest_s_list_of_variables_and_a_compose_file_s_environment_name_it_too():
    page = PAGE + textwrap.dedent(
        """
        .. code-block:: yaml

            env:
            - name: TOOL_FILE
              value: mine.py
            services:
              tool:
                environment:
                  TOOL_FILE: mine.py
                  name: TOOL_FILE
        """
    )
    findings = run(ARGS.replace('"TOOL_FILE"', '"TOOL_SCRIPT"'), page)
    lines = page.splitlines()
    assert [(f.kind, lines[f.doc.line - 1].strip()) for f in findings] == [
        ("renamed", "$ TOOL_FILE=mine.py tool --users 3"),
        ("renamed", "- name: TOOL_FILE"),
        ("renamed", "TOOL_FILE: mine.py"),
        ("renamed", "name: TOOL_FILE"),
    ]
    assert [f.suggestion.replacement.strip() for f in findings if f.suggestion][1:3] == [
        "- name: TOOL_SCRIPT",
        "TOOL_SCRIPT: mine.py",
    ]


def test_a_variable_the_package_still_reads_beside_the_sources_is_not_gone():
    app = "import os\n\nHOST = os.environ.get('TOOL_HOST')  # deprecated, read with a warning\n"
    base = {"tool/args.py": ARGS, "tool/app.py": app, "docs/config.rst": PAGE}
    head = {**base, "tool/args.py": ARGS.replace(', env_var="TOOL_HOST"', "")}
    rules = [r for p in parse_rules_file(CONFIG, "cfg.yml") for r in p.rules]
    assert not check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings
    # a test keeping the old name says nothing of the package
    tests = {**base, "tool/app.py": "x = 1\n", "tool/tests/test_env.py": app}
    head = {**tests, "tool/args.py": head["tool/args.py"]}
    findings = check(rules, MemoryTree(tests), MemoryTree(head), changes_between(tests, head)).findings
    assert [(f.kind, f.symbol) for f in findings] == [("removed", "TOOL_HOST")]
