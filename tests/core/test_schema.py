"""The config's JSON Schema: made from the reader's key lists, shipped as it is made, and agreeing
with the reader on real and broken configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft7Validator

from bot.core import rules
from bot.core.packs import parse_repo_config
from bot.core.rules import RulesError
from bot.core.schema import config_schema, schema_text

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = config_schema()

GOOD = """\
packs: [miles]
fail_on: warning
rules:
  - id: cli-docs
    docs:
      - path: "docs/**/*.md"
        exclude: ["docs/blog/**"]
      - {path: README.md, sections: ["Tool > Usage"], program: tool}
    sources:
      - {id: cli, kind: argparse, paths: ["src/**/cli/*.py"], programs: [tool], calls: [add_argument]}
      - {id: fields, kind: dataclass-flags, path: src/args.py, dataclass: Args,
         convention: {prefix: "--", separator: "-", bool: boolean-optional}}
      - {id: dims, kind: strings, path: src/mesh.py, calls: [init_device_mesh], keyword: dims,
         position: 2, group: mesh, enumerated: true}
      - {id: cited-paths, kind: paths}
    external: ["--sglang-*"]
    others:
      - {repo: org/sister, ref: v1.2.0, paths: ["sister/cli/*.py"]}
      - {package: transformers, paths: [transformers/training_args.py]}
    severity: {removed: warning, new-flag: notice}
    examples:
      - name: a rename
        files:
          src/args.py: {base: "x = 1\\n", head: null}
        expect:
          - {kind: renamed, symbol: --old, line: 3, replacement: "new"}
  - id: site
    site: {config: docs/docs.json, root: docs}
"""


def test_the_shipped_schema_is_the_one_the_reader_makes():
    assert (ROOT / "bot" / "docs-sync.schema.json").read_text() == schema_text(), (
        "regenerate it: python -m bot.core.schema > bot/docs-sync.schema.json"
    )


def test_every_key_the_reader_takes_is_in_the_schema():
    top = SCHEMA["properties"]
    rule = top["rules"]["items"]["properties"]
    assert set(top) == set(rules.CONFIG_KEYS)
    assert set(rule) == set(rules.RULE_KEYS)
    assert set(rule["docs"]["items"]["properties"]) == set(rules.DOC_KEYS)
    source = rule["sources"]["items"]["properties"]
    assert set(source) == set(rules.SOURCE_KEYS)
    assert source["kind"]["enum"] == list(rules.SOURCE_KINDS)
    assert set(rule["severity"]["propertyNames"]["enum"]) == set(rules.FINDING_KINDS)
    assert set(rule["others"]["items"]["properties"]) == set(rules.OTHER_KEYS)


def test_a_good_config_passes_both_and_the_built_in_configs_pass_the_schema():
    parse_repo_config(GOOD)
    assert list(Draft7Validator(SCHEMA).iter_errors(yaml.safe_load(GOOD))) == []
    config = ROOT / ".github" / "docs-sync.yml"
    if config.exists():
        assert list(Draft7Validator(SCHEMA).iter_errors(yaml.safe_load(config.read_text()))) == []


@pytest.mark.parametrize(
    "change",
    [
        ("kind: argparse, paths", "kind: argpars, paths"),  # an unknown kind
        ("fail_on: warning", "fail_on: sometimes"),
        ("severity: {removed: warning", "severity: {removd: warning"),
        ("exclude:", "excludes:"),  # an unknown key
        ("position: 2", "position: -1"),
        ("- id: site\n    site:", "- nope: site\n    site:"),  # a rule without its id
        ('paths: ["src/**/cli/*.py"]', 'paths: ["/src/cli.py"]'),  # an absolute path
        ("{repo: org/sister, ref: v1.2.0, ", "{repo: org/sister, "),  # a repository needs its ref
        ("{repo: org/sister, ref: v1.2.0, ", "{repo: org/sister, ref: v1.2.0, package: x, "),  # not both
        ("{repo: org/sister,", "{repo: sister,"),  # owner/name
        ("{package: transformers,", "{package: transformers, rev: v1,"),  # an unknown key
    ],
)
def test_what_the_reader_refuses_the_schema_refuses(change: tuple[str, str]):
    text = GOOD.replace(*change)
    assert text != GOOD
    with pytest.raises(RulesError):
        parse_repo_config(text)
    assert list(Draft7Validator(SCHEMA).iter_errors(yaml.safe_load(text))), json.dumps(change)
