"""A field overriding one of another package's base class: dropped, its flag is the base's
again, so it is not reported removed; a field of the class's own still is."""

from __future__ import annotations

from bot.core.check import check
from bot.core.check.overrides import overrides_a_base
from bot.core.model import Change
from bot.core.packs import parse_repo_config
from bot.trees.memory import MemoryTree

CONFIG = (
    "from dataclasses import dataclass, field\n"
    "from transformers import TrainingArguments\n"
    "\n"
    "@dataclass\n"
    "class TrainConfig(TrainingArguments):\n"
    "    # Fields whose defaults are overridden from TrainingArguments\n"
    "    learning_rate: float = field(\n"
    "        default=1e-6,\n"
    "    )\n"
    "    warmup_steps: int = 5\n"
    "\n"
    "    # Fields of the method\n"
    "    beta: float = 0.1\n"
    "\n"
    "    gamma: float = 0.5\n"
)


def test_the_heading_of_a_fields_run_says_it_overrides():
    lines = CONFIG.splitlines()
    at = {
        name: lines.index(next(x for x in lines if x.startswith(f"    {name}:"))) + 1
        for name in ("learning_rate", "warmup_steps", "beta", "gamma")
    }
    assert overrides_a_base(CONFIG, at["learning_rate"])
    assert overrides_a_base(CONFIG, at["warmup_steps"])  # the same run, under the same heading
    assert not overrides_a_base(CONFIG, at["beta"])  # another run's heading
    assert not overrides_a_base(CONFIG, at["gamma"])  # a run of its own after a blank line
    assert not overrides_a_base(CONFIG, 1) and not overrides_a_base(CONFIG, 99)


RULES = """
rules:
  - id: cli
    docs: [{path: docs/train.md}]
    sources:
      - {id: cfg, kind: hf-dataclass, paths: [kit/config.py], names: [TrainConfig]}
"""
PAGE = "# Train\n\n```bash\npython kit/config.py --learning_rate 1e-5 --beta 0.2\n```\n"


def test_a_dropped_override_is_not_removed_and_a_dropped_own_field_is():
    rules = [r for pack in parse_repo_config(RULES) for r in pack.rules]
    base = {"kit/config.py": CONFIG, "docs/train.md": PAGE}
    head = dict(base)
    head["kit/config.py"] = CONFIG.replace(
        "    learning_rate: float = field(\n        default=1e-6,\n    )\n", ""
    )
    head["kit/config.py"] = head["kit/config.py"].replace("    beta: float = 0.1\n", "")
    report = check(rules, MemoryTree(base), MemoryTree(head), [Change("modified", "kit/config.py")])
    assert [(f.kind, f.symbol) for f in report.findings] == [("removed", "--beta")]
