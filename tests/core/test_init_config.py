"""`docs-sync init` on a small project driven by pydantic settings and YAML recipes: the rule it
writes for config keys validates, cites the models and configs its pages cite, and what it saw
and cannot read is said."""

from __future__ import annotations

from bot.core.check import audit
from bot.core.init import config_for, not_read
from bot.core.packs import parse_repo_config
from bot.core.validate import unmatched
from bot.trees.memory import MemoryTree

SETTINGS = """\
from pydantic import BaseModel
from pydantic_settings import BaseSettings, SettingsConfigDict

class Optimizer(BaseModel):
    lr: float = 3e-4
    warmup_steps: int = 100

class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="APP_")
    database_url: str = "sqlite://"
    optimizer: Optimizer = Optimizer()
"""

RECIPE = "model: llama\ntrainer:\n  max_steps: 1000\n  eval_every: 50\n"

FILES = {
    "app/__init__.py": "",
    "app/settings.py": SETTINGS,
    "app/other.py": "class Plain:\n    name: str = 'x'\n",
    "examples/llama/sft.yaml": RECIPE,
    "examples/llama/dpo.yaml": RECIPE.replace("1000", "500"),
    "examples/qwen/sft.yaml": RECIPE,
    ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
    "mkdocs.yml": "site_name: x\nnav:\n  - index.md\n",
    "README.md": "# App\n\nSet `APP_DATABASE_URL`; tune `optimizer.lr` and `optimizer.warmup_steps`.\n",
    "docs/recipes.md": "# Recipes\n\n```yaml\ntrainer:\n  max_steps: 1000\n  eval_every: 50\n```\n",
    "docs/ci.md": "# CI\n\n```yaml\njobs:\n  test:\n    runs-on: ubuntu-latest\n```\n",
    "docs/about.md": "# About\n\nThe `model` is `llama`.\n",
}


def test_init_couples_the_pages_citing_config_keys_to_their_models_and_recipes() -> None:
    tree = MemoryTree(FILES)
    text = config_for(tree, "abc123")
    assert text is not None
    assert "kind: pydantic" in text and "          - app/settings.py\n" in text
    assert '          - "examples/**/*.yaml"\n' in text  # every recipe says which keys exist
    assert "      - path: README.md\n" in text and "      - path: docs/recipes.md\n" in text
    # A workflow's keys, a site's config and a page naming one generic key are nobody's config.
    assert "docs/ci.md" not in text and "mkdocs" not in text and "about" not in text and ".github" not in text
    (pack,) = parse_repo_config(text)
    assert unmatched(pack.rules, MemoryTree({}), tree) == []
    assert audit(pack.rules, tree).findings == ()


def test_the_config_rule_leaves_out_changelogs_and_tests_recordings() -> None:
    # crewAI: docs/edge/en/changelog.mdx cites keys a release took away, and a glob of
    # lib/**/*.yaml would take in lib/app/tests/cassettes/*.yaml, HTTP exchanges a test recorded.
    notes = "# Changelog\n\n- removed `optimizer.lr` and `optimizer.warmup_steps`\n"
    files = {
        **FILES,
        "docs/guide/tune.md": "# Tune\n\nSet `optimizer.lr` and `optimizer.warmup_steps`.\n",
        "docs/guide/more.md": "# More\n\n`optimizer.lr`, then `optimizer.warmup_steps`.\n",
        "docs/guide/changelog.md": notes,
        "examples/tests/cassettes/a.yaml": 'interactions:\n- request: {method: GET}\n  "bad\n',
    }
    tree = MemoryTree(files)
    text = config_for(tree, "abc123")
    assert text is not None
    assert "exclude: [docs/guide/changelog.md]  # changelogs, posts" in text
    assert "examples/**/*.yaml" not in text
    assert '          - "examples/llama/*.yaml"\n' in text and "          - examples/qwen/sft.yaml\n" in text
    (pack,) = parse_repo_config(text)
    assert unmatched(pack.rules, MemoryTree({}), tree) == []
    assert audit(pack.rules, tree).findings == ()


def test_kubernetes_manifests_are_no_shipped_configs() -> None:
    # feast's operator bundle and RBAC roles: `kind: Role` with `rules:` is a cluster's resource.
    role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\n"
    role += "trainer:\n  max_steps: 1000\n  eval_every: 50\n"
    files = {**FILES, "examples/llama/role.yaml": role, "deploy/role.yaml": role}
    text = config_for(MemoryTree(files), "abc123")
    assert text is not None and "deploy" not in text and "role.yaml" not in text
    # The recipes beside it still are, by a glob that takes in no manifest.
    assert "examples/**/*.yaml" not in text and '          - "examples/llama/*.yaml"\n' not in text
    assert "          - examples/llama/sft.yaml\n" in text and "          - examples/qwen/sft.yaml\n" in text


def test_audit_after_init_finds_a_stale_key() -> None:
    files = dict(FILES, **{"README.md": FILES["README.md"].replace("warmup_steps", "warmup_stesp")})
    tree = MemoryTree(files)
    text = config_for(tree)
    assert text is not None
    (pack,) = parse_repo_config(text)
    assert [(f.kind, f.symbol) for f in audit(pack.rules, tree).findings] == [
        ("unresolved", "optimizer.warmup_stesp")
    ]


def test_what_init_cannot_read_is_said() -> None:
    hydra = {
        "train.py": "import hydra\n\n@hydra.main(config_path='conf')\ndef main(cfg):\n    pass\n",
        "conf/config.yaml": "defaults:\n  - optimizer: adam\n",
        "README.md": "# Train\n\nRun `python train.py`.\n",
    }
    tree = MemoryTree(hydra)
    assert config_for(tree) is None
    assert not_read(tree) == ["found Hydra (train.py): not read, its config groups compose keys"]
    # Written into the config when init writes one.
    text = config_for(MemoryTree({**FILES, **hydra, "README.md": FILES["README.md"]}))
    assert text is not None and "# found Hydra (train.py): not read" in text


DEFAULTS = """\
import os

DEFAULT_CONFIG = {
    'PATH': os.curdir,
    'DEFAULT_CATEGORY': 'misc',
    'SUMMARY_MAX_LENGTH': 50,
}
"""


def test_init_couples_a_settings_page_to_the_dict_of_defaults_its_keys_are_in() -> None:
    page = (
        "Settings\n========\n\n.. data:: DEFAULT_CATEGORY = 'misc'\n\n   The category.\n\n"
        ".. data:: SUMMARY_MAX_LENGTH = 50\n\n   The length.\n"
    )
    files = {
        "blog/__init__.py": "",
        "blog/settings.py": DEFAULTS,
        "blog/readers.py": "READERS = {'md': 1, 'rst': 2, 'html': 3}\n",
        "docs/settings.rst": page,
        "docs/content.rst": "Content\n=======\n\nSet ``DEFAULT_CATEGORY`` or ``SUMMARY_MAX_LENGTH``.\n",
        "docs/changelog.rst": "Changes\n=======\n\n* Remove ``OLD_SETTING`` and ``DEFAULT_CATEGORY``.\n",
    }
    tree = MemoryTree(files)
    text = config_for(tree, "abc123")
    assert text is not None
    assert "        kind: settings\n        paths:\n          - blog/settings.py\n" in text
    assert "readers" not in text  # a lookup table of lowercase names is no settings
    assert "exclude: [docs/changelog.rst]" in text  # a release note's removed setting is history
    (pack,) = parse_repo_config(text)
    assert audit(pack.rules, tree).findings == ()
