"""tyro's subcommands made of a dict of default configs (`subcommand_type_from_defaults`, as
nerfstudio's `ns-train` builds them), read without running the module: each key a subcommand,
its config's fields its flags, the constructor call's values their defaults."""

from __future__ import annotations

from bot.core.check import check
from bot.core.extract import extract
from bot.core.model import Change, Finding
from bot.core.packs import parse_repo_config
from bot.core.rules import Source
from bot.trees.memory import MemoryTree

METHODS = """\
import dataclasses
from typing import Dict

import tyro


@dataclasses.dataclass
class ModelConfig:
    near_plane: float = 0.05
    use_appearance: bool = True


@dataclasses.dataclass
class FastModelConfig(ModelConfig):
    num_levels: int = 16


@dataclasses.dataclass
class TrainerConfig:
    max_num_iterations: int = 1000
    model: ModelConfig = dataclasses.field(default_factory=ModelConfig)


method_configs: Dict[str, TrainerConfig] = {}
descriptions = {"fast": "Fast.", "slow": "Slow."}

method_configs["fast"] = TrainerConfig(
    max_num_iterations=30000,
    model=FastModelConfig(near_plane=0.01),
)
method_configs["slow"] = TrainerConfig()


def merge(methods, descs, *more):
    return methods, descs


all_methods, all_descriptions = method_configs, descriptions
all_methods, all_descriptions = merge(all_methods, all_descriptions, *more_methods())

Methods = tyro.conf.FlagConversionOff[
    tyro.extras.subcommand_type_from_defaults(defaults=all_methods, descriptions=all_descriptions)
]

if __name__ == "__main__":
    tyro.cli(Methods)
"""
DOC = """\
# Training

```bash
python train.py fast --model.num-levels 8 --model.use-appearance False
```

`python train.py fast`: `--max-num-iterations` defaults to 30000.
"""
CONFIG = """\
rules:
  - id: train-docs
    docs:
      - path: README.md
    sources:
      - id: train
        kind: tyro
        paths: [train.py]
"""


def facts(text: str) -> dict[tuple[str, str | None], dict[str, str]]:
    source = Source(id="t", kind="tyro", paths=("train.py",))
    return {(f.token, f.attr("subcommand")): dict(f.attrs) for f in extract(source, "train.py", text).facts}


def run(edits: dict[str, str]) -> list[Finding]:
    base = {"train.py": METHODS, "README.md": DOC}
    rules = [r for pack in parse_repo_config(CONFIG) for r in pack.rules]
    changes = [Change("modified", p) for p in edits]
    return list(check(rules, MemoryTree(base), MemoryTree({**base, **edits}), changes).findings)


def test_each_key_is_a_subcommand_with_its_constructor_values_as_defaults():
    found = facts(METHODS)
    assert found[("--max-num-iterations", "fast")]["default"] == "30000"
    assert found[("--max-num-iterations", "slow")]["default"] == "1000"
    # the default's own class gives the group's fields (a subclass of the field's type)
    assert found[("--model.near-plane", "fast")]["default"] == "0.01"
    assert ("--model.num-levels", "fast") in found and ("--model.num-levels", "slow") not in found


def test_flag_conversion_off_makes_a_bool_take_a_value():
    found = facts(METHODS)
    assert found[("--model.use-appearance", "fast")]["choices"] == "True,False"
    assert ("--model.no-use-appearance", "fast") not in found
    paired = facts(METHODS.replace("tyro.conf.FlagConversionOff[", "(").replace("]\n\nif", ")\n\nif"))
    assert paired[("--model.no-use-appearance", "fast")]["sets"] == "false"
    # on one field, in `Annotated` or as a subscript
    one = METHODS.replace("use_appearance: bool", "use_appearance: tyro.conf.FlagConversionOff[bool]")
    one = one.replace("tyro.conf.FlagConversionOff[\n", "(\n").replace("]\n\nif", ")\n\nif")
    assert ("--model.no-use-appearance", "fast") not in facts(one)


def test_a_renamed_field_makes_the_subcommands_line_stale():
    findings = run({"train.py": METHODS.replace("num_levels", "levels")})
    assert [(f.kind, f.symbol, f.doc.line if f.doc else None) for f in findings] == [
        ("renamed", "--model.num-levels", 4)
    ]
    assert findings[0].suggestion is not None
    assert "--model.levels 8" in findings[0].suggestion.replacement


def test_a_changed_default_in_the_constructor_call_rewrites_the_claim():
    findings = run({"train.py": METHODS.replace("max_num_iterations=30000", "max_num_iterations=50000")})
    assert [(f.kind, f.symbol) for f in findings] == [("changed", "--max-num-iterations")]
    assert findings[0].suggestion is not None and "50000" in findings[0].suggestion.replacement


def test_a_doc_edit_citing_a_flag_the_subcommand_lacks_is_unresolved():
    # `--model.num-levels` is the fast config's only: `slow` has no such flag
    edited = DOC + "\n```bash\npython train.py slow --model.num-level 4\n```\n"
    findings = run({"README.md": edited})
    assert [(f.kind, f.symbol) for f in findings] == [("unresolved", "--model.num-level")]


def test_an_unrelated_edit_says_nothing():
    edited = METHODS.replace('"Fast."', '"Fast, for real captures."') + "\n# a comment\n"
    assert run({"train.py": edited}) == []
    # the class's default changed, which only `slow` takes: the line about `fast` still holds
    assert (
        run({"train.py": METHODS.replace("max_num_iterations: int = 1000", "max_num_iterations: int = 2000")})
        == []
    )
    assert run({"README.md": DOC + "\nRun `python train.py slow --max-num-iterations 10`.\n"}) == []
