"""Config keys as facts: pydantic models read from the syntax tree, config files as data."""

from __future__ import annotations

from bot.core.extract import extract
from bot.core.rules import Source

MODELS = """
from enum import Enum
from typing import Annotated, Literal
from pydantic import AliasChoices, BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

class Mode(str, Enum):
    fast = "fast"
    slow = "slow"

class Optimizer(BaseModel):
    lr: float = 3e-4
    name: Literal["adam", "sgd"] = "adam"
    betas: list[float] = Field(default_factory=lambda: [0.9, 0.99])
    decay: Annotated[float, Field(0.01, description="weight decay")]

class Database(BaseModel):
    url: str = "sqlite://"

class Base(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="APP_", env_nested_delimiter="__")
    debug: bool = False

class Settings(Base):
    mode: Mode = Mode.fast
    optimizer: Optimizer = Optimizer()
    database: Database | None = None
    api_key: str = Field(..., validation_alias=AliasChoices("MY_KEY", "KEY2"), description="The key")
    _private: int = 1

class Legacy(BaseSettings):
    port: int = 8000
    token: str = Field("x", env="LEGACY_TOKEN")

    class Config:
        env_prefix = "OLD_"
"""


def keys(kind: str, path: str, text: str, **source: object) -> dict[str, dict[str, str]]:
    found = extract(Source(id="s", kind=kind, paths=(path,), **source), path, text)  # type: ignore[arg-type]
    assert not found.errors
    return {f.token: dict(f.attrs) for f in found.facts}


def test_pydantic_fields_are_keys_with_defaults_choices_and_help() -> None:
    got = keys("pydantic", "app/settings.py", MODELS)
    assert got["optimizer.lr"]["default"] == "0.0003"
    assert got["optimizer.name"]["choices"] == "adam,sgd"
    assert got["optimizer.betas"]["default"] == "[0.9, 0.99]"  # default_factory
    assert got["optimizer.decay"] == {
        "default": "0.01",
        "help": "weight decay",
        "kind": "key",
        "model": "Optimizer",
        "type": "Annotated[float, Field(0.01, description='weight decay')]",
    }
    assert got["mode"]["choices"] == "fast,slow"  # an Enum of the file
    assert got["debug"]["default"] == "False"  # inherited from the file's own base
    assert "MY_KEY" in got and "api_key" not in got  # the alias is what a config writes
    assert not any(t.startswith("_") or t == "model_config" for t in got)
    # Models nested in another are read below it only.
    assert "lr" not in got and "url" not in got and "database.url" in got


def test_settings_give_the_environment_variables_pydantic_settings_reads() -> None:
    got = keys("pydantic", "app/settings.py", MODELS)
    env = {t for t, a in got.items() if a["kind"] == "env"}
    assert {"APP_DEBUG", "APP_MODE", "APP_OPTIMIZER__LR", "APP_DATABASE__URL"} <= env
    assert {"MY_KEY", "KEY2"} <= env and "APP_API_KEY" not in env  # an alias takes no prefix
    assert {"OLD_PORT", "LEGACY_TOKEN"} <= env  # v1: class Config, Field(env=...)


def test_names_choose_the_top_models() -> None:
    got = keys("pydantic", "app/settings.py", MODELS, names=("Optimizer",))
    assert set(got) == {"lr", "name", "betas", "decay"}  # no settings class: no variables


def test_config_files_give_dotted_keys_and_values() -> None:
    text = (
        "optimizer:\n  lr: 3e-4\n  betas: [0.9, 0.99]\nbase: &b\n  seed: 1\ntrain:\n  <<: *b\n  steps: 10\n"
        "datasets:\n  - path: a\n  - path: b\nempty:\n"
    )
    found = extract(Source(id="c", kind="config", paths=("c.yaml",)), "c.yaml", text)
    got = {f.token: (f.attr("default"), f.line) for f in found.facts}
    assert got["optimizer.lr"] == ("3e-4", 2)
    assert got["optimizer.betas"] == ("[0.9, 0.99]", 3)
    assert got["train.seed"] == ("1", 5)  # a merge key's keys are the mapping's own
    assert got["datasets.path"] == ("a", 10)  # a list's items seen through, the first one kept
    assert got["empty"] == ("None", 12)
    toml = '[optimizer]\nlr = 3e-4\n\n[[datasets]]\npath = "a"\n'
    found = extract(Source(id="c", kind="config", paths=("c.toml",)), "c.toml", toml)
    assert {f.token: (f.attr("default"), f.line) for f in found.facts} == {
        "optimizer": (None, 1),
        "optimizer.lr": ("0.0003", 2),
        "datasets": (None, 4),
        "datasets.path": ("a", 5),
    }
    found = extract(Source(id="c", kind="config", paths=("c.json",)), "c.json", '{"a": {\n  "b": 2\n}}')
    assert {f.token: (f.attr("default"), f.line) for f in found.facts} == {"a": (None, 1), "a.b": ("2", 2)}


def test_a_config_that_cannot_be_read_is_reported_not_raised() -> None:
    bad = extract(Source(id="c", kind="config", paths=("c.yaml",)), "c.yaml", "a: [\n")
    assert not bad.facts and bad.errors[0].path == "c.yaml"
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(12)
    )
    bounded = extract(Source(id="c", kind="config", paths=("c.yaml",)), "c.yaml", laughs)
    assert bounded.errors and "more than" in bounded.errors[0].message  # aliases walked within a budget
    deep = extract(Source(id="c", kind="config", paths=("c.json",)), "c.json", '{"a":' * 40 + "1" + "}" * 40)
    assert deep.errors and "levels deep" in deep.errors[0].message


def test_a_template_rendered_into_yaml_is_no_config_that_fails_to_parse() -> None:
    source = Source(id="c", kind="config", paths=("chart/templates/service.yaml",))
    helm = "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n"
    helm += '    {{- include "chart.labels" . | nindent 4 }}\n'
    found = extract(source, "chart/templates/service.yaml", helm)
    assert not found.facts and not found.errors  # Helm renders it: not read, not an error
    rendered = "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n"
    # A template that is YAML as written (the action a plain string) is read like any file.
    assert "metadata.name" in {f.token for f in extract(source, "s.yaml", rendered).facts}
    broken = extract(source, "s.yaml", "a: [\nb: {x\n")
    assert broken.errors  # no template action in it: a file that does not parse
