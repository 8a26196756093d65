"""Config keys against the pages citing them: pydantic models and shipped config files, both
directions (a change to the code makes a line stale; a line the change wrote cites what no
source has)."""

from __future__ import annotations

from bot.core.check import check
from bot.core.model import Finding
from bot.core.rules import DEFAULT_SEVERITY, DocTarget, Rule, Source
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import changes_between

SETTINGS = "app/settings.py"
RECIPE = "configs/train.yaml"
DOC = "docs/config.md"

MODEL = """from typing import Literal
from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

class Optimizer(BaseModel):
    lr: float = 3e-4
    name: Literal["adam", "sgd"] = "adam"
    warmup_steps: int = 100

class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="APP_")
    database_url: str = "sqlite:///app.db"
    optimizer: Optimizer = Field(default_factory=Optimizer)
"""

PAGE = """# Configuration

Set `database_url` (or `APP_DATABASE_URL` in the environment).

```yaml
optimizer:
  lr: 3e-4
  name: sgd
  warmup_steps: 100
```

```yaml
# a workflow, not this config
on: push
jobs: {}
```
"""

YAML = """model: llama
optimizer:
  lr: 2e-5
  weight_decay: 0.0
trainer:
  max_steps: 1000
"""

RECIPE_PAGE = """# Recipes

`configs/train.yaml` trains for `trainer.max_steps` steps:

```yaml
trainer:
  max_steps: 1000
```
"""


def rule(*sources: Source) -> Rule:
    return Rule(id="config", docs=(DocTarget(DOC),), sources=sources, severity=dict(DEFAULT_SEVERITY))


MODELS = rule(Source(id="settings", kind="pydantic", paths=(SETTINGS,)))
CONFIGS = rule(Source(id="recipes", kind="config", paths=(RECIPE,)))


def run(r: Rule, base: dict[str, str], head: dict[str, str]) -> list[Finding]:
    return list(check([r], MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings)


def said(findings: list[Finding]) -> list[tuple[str, str, int | None, str | None]]:
    return [
        (f.kind, f.symbol, f.doc.line if f.doc else None, f.suggestion.replacement if f.suggestion else None)
        for f in findings
    ]


BASE = {SETTINGS: MODEL, DOC: PAGE}


def test_a_changed_default_is_reported_on_the_block_line_in_the_page_s_style() -> None:
    head = {**BASE, SETTINGS: MODEL.replace("lr: float = 3e-4", "lr: float = 1e-4")}
    assert said(run(MODELS, BASE, head)) == [("changed", "optimizer.lr", 7, "  lr: 1e-4")]


def test_a_changed_default_keeps_the_quotes_and_code_span_the_page_wrote_it_in() -> None:
    # crewAI's memory page: | `llm` | `"gpt-4o-mini"` | ... when the default became gpt-5.4-mini.
    model = MODEL + '    llm: str = "gpt-4o-mini"\n    retries: int | None = 3\n'
    table = (
        "\n| Parameter | Default | Description |\n|---|---|---|\n"
        '| `llm` | `"gpt-4o-mini"` | The model. |\n| `retries` | `3` | Tries. |\n'
    )
    base = {SETTINGS: model, DOC: PAGE + table}
    head = {**base, SETTINGS: model.replace("gpt-4o-mini", "gpt-5.4-mini").replace("= 3\n", "= None\n")}
    assert said(run(MODELS, base, head)) == [
        ("changed", "llm", 20, '| `llm` | `"gpt-5.4-mini"` | The model. |'),
        ("changed", "retries", 21, "| `retries` | `None` | Tries. |"),
    ]


def test_a_kubernetes_manifest_s_keys_are_the_resource_s() -> None:
    # feast's operator guide: `kind: FeatureStore` whose sections share a name with a config
    # model's; the resource's schema, not the model, says what they hold.
    manifest = (
        "\n```yaml\napiVersion: example.dev/v1\nkind: Trainer\nmetadata:\n  name: run\n"
        "optimizer:\n  lrate: 1\n  warmupSteps: 5\n```\n"
    )
    plain = "\n```yaml\noptimizer:\n  lrate: 1\n```\n"
    assert run(MODELS, BASE, {**BASE, DOC: PAGE + manifest}) == []
    assert [f.symbol for f in run(MODELS, BASE, {**BASE, DOC: PAGE + plain})] == ["optimizer.lrate"]


def test_a_camel_case_key_under_a_snake_case_schema_is_another_schema_s() -> None:
    # feast's operator guide writes a fragment of its cluster resource (`openlineage:` with
    # `transportType:`, `extraConfig:`): the Python models spell every key in snake_case.
    block = "\n```yaml\noptimizer:\n  transportType: http\n  extraConfig:\n    topic: x\n  lrate: 1\n```\n"
    assert [f.symbol for f in run(MODELS, BASE, {**BASE, DOC: PAGE + block})] == ["optimizer.lrate"]


def test_a_renamed_field_is_renamed_where_the_block_writes_it() -> None:
    head = {**BASE, SETTINGS: MODEL.replace("warmup_steps: int", "warmup_iters: int")}
    (finding,) = run(MODELS, BASE, head)
    assert said([finding]) == [("renamed", "optimizer.warmup_steps", 9, "  warmup_iters: 100")]
    assert finding.code is not None and finding.code.line == 8


def test_a_new_env_prefix_renames_the_variable_a_page_cites() -> None:
    head = {**BASE, SETTINGS: MODEL.replace('env_prefix="APP_"', 'env_prefix="MYAPP_"')}
    assert said(run(MODELS, BASE, head)) == [
        ("renamed", "APP_DATABASE_URL", 3, "Set `database_url` (or `MYAPP_DATABASE_URL` in the environment).")
    ]


def test_a_removed_field_is_reported_for_the_key_and_its_variable() -> None:
    head = {**BASE, SETTINGS: MODEL.replace('    database_url: str = "sqlite:///app.db"\n', "")}
    assert said(run(MODELS, BASE, head)) == [
        ("removed", "APP_DATABASE_URL", 3, None),
        ("removed", "database_url", 3, None),
    ]


def test_a_dropped_choice_is_reported_on_the_value() -> None:
    head = {**BASE, SETTINGS: MODEL.replace('Literal["adam", "sgd"]', 'Literal["adam", "adamw"]')}
    assert said(run(MODELS, BASE, head)) == [("changed", "optimizer.name sgd", 8, None)]


def test_refactors_and_the_page_fixed_with_the_code_give_nothing() -> None:
    moved = MODEL.replace(
        "class Optimizer(BaseModel):", "class Optimizer(BaseModel):\n    '''The optimizer.'''"
    )
    assert run(MODELS, BASE, {**BASE, SETTINGS: moved}) == []
    head = {
        SETTINGS: MODEL.replace("lr: float = 3e-4", "lr: float = 1e-4"),
        DOC: PAGE.replace("lr: 3e-4", "lr: 1e-4"),
    }
    assert run(MODELS, BASE, head) == []


def test_a_doc_edit_citing_a_key_no_model_has() -> None:
    added = (
        "\n```yaml\noptimizer:\n  warmup_stpes: 10\n  lrate: 1\n```\n\n"
        "Set `APP_DATABSE_URL`, or `app_database_url`.\n"
    )
    head = {**BASE, DOC: PAGE + added}
    assert said(run(MODELS, BASE, head)) == [
        ("unresolved", "optimizer.warmup_stpes", 20, "  warmup_steps: 10"),
        ("unresolved", "optimizer.lrate", 21, None),  # the model defines the section in full
        ("unresolved", "APP_DATABSE_URL", 24, "Set `APP_DATABASE_URL`, or `app_database_url`."),
    ]


def test_a_name_whose_sentences_write_the_near_key_in_code_is_something_else() -> None:
    # A design note: the old client's `databse_url`, which its sentence maps to the model's key.
    beside = (
        "\n- The old client read `databse_url` from its state.\n  It maps to `Settings(database_url=...)`.\n"
    )
    assert run(MODELS, BASE, {**BASE, DOC: PAGE + beside}) == []
    alone = "\n- The old client read `databse_url` from its state.\n"
    assert said(run(MODELS, BASE, {**BASE, DOC: PAGE + alone})) == [
        ("unresolved", "databse_url", 18, "- The old client read `database_url` from its state.")
    ]


def test_blocks_about_other_things_are_not_judged() -> None:
    added = "\n```yaml\nservices:\n  web:\n    image: nginx\n```\n\n`torch.float16`, `jobs.build`\n"
    assert run(MODELS, BASE, {**BASE, DOC: PAGE + added}) == []


CONFIG_BASE = {RECIPE: YAML, DOC: RECIPE_PAGE}


def test_a_shipped_config_s_value_changed_or_key_renamed() -> None:
    head = {**CONFIG_BASE, RECIPE: YAML.replace("max_steps: 1000", "max_steps: 2000")}
    (finding,) = run(CONFIGS, CONFIG_BASE, head)
    assert said([finding]) == [("changed", "trainer.max_steps", 7, "  max_steps: 2000")]
    assert "in configs/train.yaml" in finding.message
    head = {**CONFIG_BASE, RECIPE: YAML.replace("max_steps: 1000", "total_steps: 1000")}
    assert said(run(CONFIGS, CONFIG_BASE, head)) == [
        ("renamed", "trainer.max_steps", 3, "`configs/train.yaml` trains for `trainer.total_steps` steps:"),
        ("renamed", "trainer.max_steps", 7, "  total_steps: 1000"),
    ]


def test_a_key_some_config_still_has_is_not_removed() -> None:
    other = "configs/other.yaml"
    r = rule(Source(id="recipes", kind="config", paths=(RECIPE, other)))
    base = {**CONFIG_BASE, other: YAML}
    head = {**base, RECIPE: YAML.replace("trainer:\n  max_steps: 1000\n", "")}
    assert run(r, base, head) == []


def test_a_key_of_a_config_now_in_a_submodule_is_not_removed() -> None:
    head = {
        DOC: CONFIG_BASE[DOC],
        ".gitmodules": '[submodule "configs"]\n\tpath = configs\n\turl = ../c.git\n',
    }
    assert run(CONFIGS, CONFIG_BASE, head) == []
    assert {f.kind for f in run(CONFIGS, CONFIG_BASE, {DOC: CONFIG_BASE[DOC]})} == {"removed"}


def test_with_configs_alone_only_near_misses_are_unresolved() -> None:
    added = "\n```yaml\ntrainer:\n  max_stpes: 10\n  log_every: 5\n```\n"
    head = {**CONFIG_BASE, DOC: RECIPE_PAGE + added}
    # `log_every` may be a key the schema allows that no shipped config sets
    assert said(run(CONFIGS, CONFIG_BASE, head)) == [
        ("unresolved", "trainer.max_stpes", 12, "  max_steps: 10")
    ]


def test_a_config_that_does_not_parse_at_head_is_a_parse_error() -> None:
    head = {**CONFIG_BASE, RECIPE: "trainer: [\n"}
    assert [(f.kind, f.code.path if f.code else None) for f in run(CONFIGS, CONFIG_BASE, head)] == [
        ("parse-error", RECIPE)
    ]


TRL = """from pydantic import BaseModel

class TRLConfig(BaseModel):
    beta: float = 0.1
    vllm_lora_sync: bool = False
"""
ROOT = """from pydantic import BaseModel, Field

class Config(BaseModel):
    trl: TRLConfig | None = None
    target_modules: list[str] = Field(default_factory=list)
    sample_packing: bool = False
"""
SPLIT = rule(Source(id="schema", kind="pydantic", paths=("app/trl.py", "app/config.py")))


def test_keys_in_spans_as_a_config_writes_them() -> None:
    page = "# Tips\n\nSet `sample_packing: true`, and `target_modules:` to the layers.\n"
    base = {"app/trl.py": TRL, "app/config.py": ROOT, DOC: page}
    head = {**base, "app/config.py": ROOT.replace("sample_packing: bool = False", "packing: bool = False")}
    # An instruction (`x: true`) is no claim of a default; the key it names is checked.
    assert said(run(SPLIT, base, head)) == [
        ("renamed", "sample_packing", 3, "Set `packing: true`, and `target_modules:` to the layers.")
    ]
    head = {**base, DOC: page + "\n`target_modules:` and `sample_packing: false` again.\n"}
    assert run(SPLIT, base, head) == []


def test_a_section_typed_with_a_model_of_another_file() -> None:
    added = "```yaml\ntrl:\n  vllm_lora_sync: true\n  vllm_lora_snyc: true\n  beta_schedule: cosine\n```\n"
    base = {"app/trl.py": TRL, "app/config.py": ROOT, DOC: "# TRL\n"}
    head = {**base, DOC: "# TRL\n\n" + added}
    assert said(run(SPLIT, base, head)) == [
        ("unresolved", "trl.vllm_lora_snyc", 6, "  vllm_lora_sync: true"),
        ("unresolved", "trl.beta_schedule", 7, None),  # TRLConfig is read, and has no such field
    ]


def test_a_section_two_models_type_apart_is_known_where_either_knows_it() -> None:
    # crewAI: `inputs: list[ChatInputField]` in one model, `inputs: dict[str, Any]` in another:
    # `inputs.id` is a key of the dict, whatever the list's model lacks.
    chat = "from pydantic import BaseModel\n\nclass ChatInputField(BaseModel):\n    name: str\n\n"
    chat += "class ChatInputs(BaseModel):\n    inputs: list[ChatInputField]\n"
    flow = "from typing import Any\nfrom pydantic import BaseModel\n\nclass Kickoff(BaseModel):\n"
    flow += "    inputs: dict[str, Any] = {}\n"
    two = rule(Source(id="schema", kind="pydantic", paths=("app/flow.py", "app/chat.py")))
    page = "# Kickoff\n\nPass `inputs.id` to resume; `inputs.name` names a field.\n"
    base = {"app/chat.py": chat, "app/flow.py": flow, DOC: "# Kickoff\n"}
    assert run(two, base, {**base, DOC: page}) == []
    # With the dict gone, the list's model alone says what `inputs` holds.
    base = {"app/chat.py": chat, "app/flow.py": "", DOC: "# Kickoff\n"}
    assert said(run(two, base, {**base, DOC: page})) == [("unresolved", "inputs.id", 3, None)]


def test_a_word_more_another_separator_or_a_plural_is_another_name_not_a_misspelling() -> None:
    page = (
        "# LoRA\n\nPEFT's `target_parameters` API; `find_unused_modules` is DDP's.\n"
        "The `target-modules` command, `target_module` alone, `samplepacking`.\n"  # another spelling
    )
    base = {"app/trl.py": TRL, "app/config.py": ROOT, DOC: "# LoRA\n"}
    assert run(SPLIT, base, {**base, DOC: page}) == []


def test_a_block_is_held_to_the_config_file_its_section_names() -> None:
    other = "configs/other.yaml"
    r = rule(Source(id="recipes", kind="config", paths=(RECIPE, other)))
    page = (
        "# Recipes\n\n## Train\n\n[the recipe](../configs/train.yaml):\n\n"
        "```yaml\ntrainer:\n  max_steps: 1000  # 1000 steps\n```\n"
    )
    base = {RECIPE: YAML, other: YAML, DOC: page}
    head = {**base, RECIPE: YAML.replace("max_steps: 1000", "max_steps: 2000")}
    # other.yaml still says 1000, but the page copies train.yaml; the comment keeps its words.
    assert said(run(r, base, head)) == [
        ("changed", "trainer.max_steps", 9, "  max_steps: 2000  # 1000 steps")
    ]
    head = {**base, other: YAML.replace("max_steps: 1000", "max_steps: 2000")}
    assert run(r, base, head) == []


def test_a_plain_word_in_prose_is_no_key_but_a_block_s_key_is() -> None:
    page = "# Recipes\n\nThe `model` to train:\n\n```yaml\nmodel: llama\n```\n"
    base = {RECIPE: YAML, DOC: page}
    head = {**base, RECIPE: YAML.replace("model: llama\n", "")}
    assert said(run(CONFIGS, base, head)) == [("removed", "model", 6, None)]


def test_a_new_row_of_a_defaults_table_states_the_model_s_default() -> None:
    table = (
        "\n| Key | Default |\n|---|---|\n| `database_url` | `sqlite:///app.db` |\n"
        "| `optimizer.lr` | `1e-3` |\n"
    )
    head = {**BASE, DOC: PAGE + table}
    assert said(run(MODELS, BASE, head)) == [
        ("wrong-default", "optimizer.lr", 21, "| `optimizer.lr` | `3e-4` |")
    ]


def test_a_table_s_default_cell_is_rewritten_alone_and_in_the_page_s_spelling() -> None:
    model = MODEL + "    use_cache: bool = True\n"
    table = (
        "\n| Key | Default | Notes |\n|---|---|---|\n"
        "| `optimizer.name` | `sgd` | `sgd` or `adam` |\n"
        "| `use_cache` | `false` | keep results |\n"
    )
    base = {SETTINGS: model, DOC: PAGE}
    head = {SETTINGS: model, DOC: PAGE + table}
    assert said(run(MODELS, base, head)) == [
        ("wrong-default", "optimizer.name", 20, "| `optimizer.name` | `adam` | `sgd` or `adam` |"),
        ("wrong-default", "use_cache", 21, "| `use_cache` | `true` | keep results |"),
    ]


def test_a_row_of_another_thing_s_table_is_not_held_to_a_model_sharing_its_name() -> None:
    # crewAI's Brave Search tools take `raw: bool = False` and `timeout: int = 30`; models read
    # for other pages have `raw: str = ""` (a `str`, not the row's `bool`) and, in a module
    # naming no other key of the table, `timeout: int = 120`.
    model = MODEL + '    raw: str = ""\n    use_cache: bool = True\n'
    client = "from pydantic import BaseModel\n\nclass Client(BaseModel):\n    timeout: int = 120\n"
    both = rule(Source(id="settings", kind="pydantic", paths=(SETTINGS, "app/client.py")))
    table = (
        "\n| Parameter | Type | Default |\n|---|---|---|\n"
        "| `raw` | `bool` | `False` |\n"
        "| `timeout` | `int` | `30` |\n"
        "| `use_cache` | `bool` | `false` |\n"
        "| `database_url` | `str` | `sqlite://` |\n"
    )
    base = {SETTINGS: model, "app/client.py": client, DOC: PAGE}
    head = {**base, DOC: PAGE + table}
    assert said(run(both, base, head)) == [
        ("wrong-default", "use_cache", 22, "| `use_cache` | `bool` | `true` |"),
        ("wrong-default", "database_url", 23, "| `database_url` | `str` | `sqlite:///app.db` |"),
    ]
    # The client's own table is held to it.
    table = "\n| Key | Default |\n|---|---|\n| `timeout` | `30` |\n"
    assert said(run(both, base, {**base, DOC: PAGE + table})) == [
        ("wrong-default", "timeout", 20, "| `timeout` | `120` |")
    ]


def test_variables_a_shell_block_sets_are_the_settings_ones() -> None:
    page = (
        PAGE
        + "\n```bash\nexport APP_DATABASE_URL=postgres://db  # 4 workers\n"
        + "CUDA_VISIBLE_DEVICES=0 app serve\n```\n"
    )
    base = {**BASE, DOC: page}
    head = {**base, SETTINGS: MODEL.replace('env_prefix="APP_"', 'env_prefix="MYAPP_"')}
    assert said(run(MODELS, base, head)) == [
        (
            "renamed",
            "APP_DATABASE_URL",
            3,
            "Set `database_url` (or `MYAPP_DATABASE_URL` in the environment).",
        ),
        ("renamed", "APP_DATABASE_URL", 19, "export MYAPP_DATABASE_URL=postgres://db  # 4 workers"),
    ]
    added = page + "\n```env\nAPP_DATABSE_URL=sqlite://\n```\n"
    assert said(run(MODELS, base, {**base, DOC: added})) == [
        ("unresolved", "APP_DATABSE_URL", 24, "APP_DATABASE_URL=sqlite://")
    ]
