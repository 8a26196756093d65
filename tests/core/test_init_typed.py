"""`docs-sync init` on small projects whose command line is made of typed parameters:
HfArgumentParser dataclasses, tyro and LightningCLI. The rule it writes validates, names the
classes that make the flags, and checks the pages citing them."""

from __future__ import annotations

from bot.core.check import audit, check
from bot.core.init import config_for
from bot.core.model import Change
from bot.core.packs import parse_repo_config
from bot.core.validate import unmatched
from bot.trees.memory import MemoryTree

HF_FILES = {
    "src/tuner/__init__.py": "",
    "src/tuner/hparams/__init__.py": (
        "from .data_args import DataArguments\nfrom .model_args import ModelArguments\n"
    ),
    "src/tuner/hparams/base.py": (
        "from dataclasses import dataclass, field\n\n@dataclass\nclass QuantArguments:\n"
        '    quant_bits: int = field(default=4, metadata={"help": "Bits."})\n'
    ),
    "src/tuner/hparams/model_args.py": (
        "from dataclasses import dataclass, field\nfrom .base import QuantArguments\n\n"
        "@dataclass\nclass ModelArguments(QuantArguments):\n"
        '    model_name_or_path: str = field(default=None, metadata={"help": "Model."})\n'
    ),
    "src/tuner/hparams/data_args.py": (
        "from dataclasses import dataclass, field\n\n@dataclass\nclass DataArguments:\n"
        '    cutoff_len: int = field(default=1024, metadata={"help": "Cut."})\n'
    ),
    "src/tuner/hparams/parser.py": (
        "from transformers import HfArgumentParser\nfrom . import DataArguments, ModelArguments\n\n"
        "_ARGS = [ModelArguments, DataArguments]\n\n"
        "def get_args():\n    return HfArgumentParser(_ARGS).parse_args_into_dataclasses()\n"
    ),
    "README.md": (
        "# Tuner\n\nRun with `--model_name_or_path` and `--cutoff_len 1024`; `--quant_bits` defaults to 4.\n"
    ),
}

TYRO_FILES = {
    "pkg/__init__.py": "",
    "pkg/optim.py": (
        "import dataclasses\n\n@dataclasses.dataclass\nclass AdamConfig:\n    learning_rate: float = 1e-3\n"
    ),
    "pkg/train.py": (
        "import dataclasses\nimport tyro\nfrom pkg.optim import AdamConfig\n\n"
        "@dataclasses.dataclass\nclass TrainConfig:\n    max_steps: int = 1000\n"
        "    optimizer: AdamConfig = dataclasses.field(default_factory=AdamConfig)\n\n"
        'if __name__ == "__main__":\n    tyro.cli(TrainConfig)\n'
    ),
    "docs/train.md": (
        "# Train\n\n```bash\npython pkg/train.py --max-steps 10 --optimizer.learning-rate 3e-4\n```\n"
    ),
}

LIGHTNING_FILES = {
    "project/__init__.py": "",
    "project/model.py": (
        "class LitClassifier:\n    def __init__(\n        self,\n        hidden_dim: int = 128,\n"
        "        learning_rate: float = 0.0001,\n    ):\n        ...\n"
    ),
    "project/main.py": (
        "from lightning.pytorch.cli import LightningCLI\nfrom project.model import LitClassifier\n\n"
        'if __name__ == "__main__":\n    LightningCLI(LitClassifier)\n'
    ),
    "README.md": (
        "# Classifier\n\n```bash\npython project/main.py fit --model.hidden_dim 64 "
        "--model.learning_rate 0.001 --trainer.max_epochs 3\n```\n"
    ),
}


def written(files: dict[str, str]) -> tuple[str, list]:
    tree = MemoryTree(files)
    text = config_for(tree)
    assert text is not None
    rules = [r for pack in parse_repo_config(text) for r in pack.rules]
    assert unmatched(rules, MemoryTree({}), tree) == []
    return text, rules


def test_hf_argument_parser_classes_are_followed_through_reexports_and_bases():
    text, rules = written(HF_FILES)
    (source,) = [s for s in rules[0].sources if s.kind == "hf-dataclass"]
    assert source.paths == ("src/tuner/hparams/*.py",)  # three modules side by side: one glob
    assert source.names == ("DataArguments", "ModelArguments", "QuantArguments")
    assert [d.path for d in rules[0].docs] == ["README.md"]
    assert audit(rules, MemoryTree(HF_FILES)).findings == ()


def test_hf_rule_reports_a_renamed_base_field():
    _, rules = written(HF_FILES)
    head = dict(HF_FILES)
    head["src/tuner/hparams/base.py"] = head["src/tuner/hparams/base.py"].replace(
        "quant_bits", "quantization_bit"
    )
    report = check(
        rules, MemoryTree(HF_FILES), MemoryTree(head), [Change("modified", "src/tuner/hparams/base.py")]
    )
    assert [(f.kind, f.symbol) for f in report.findings] == [("renamed", "--quant_bits")]


def test_tyro_nesting_across_modules_is_written_as_a_prefixed_name():
    text, rules = written(TYRO_FILES)
    (source,) = [s for s in rules[0].sources if s.kind == "tyro"]
    assert source.paths == ("pkg/*.py",)  # two modules side by side: one glob
    assert source.names == ("TrainConfig", "optimizer=AdamConfig")
    assert audit(rules, MemoryTree(TYRO_FILES)).findings == ()
    head = dict(TYRO_FILES)
    head["pkg/optim.py"] = head["pkg/optim.py"].replace("learning_rate", "lr")
    report = check(rules, MemoryTree(TYRO_FILES), MemoryTree(head), [Change("modified", "pkg/optim.py")])
    assert [(f.kind, f.symbol) for f in report.findings] == [("renamed", "--optimizer.learning-rate")]


def test_lightning_cli_model_from_another_module():
    text, rules = written(LIGHTNING_FILES)
    (source,) = [s for s in rules[0].sources if s.kind == "jsonargparse"]
    assert source.paths == ("project/model.py",)
    assert source.names == ("model=LitClassifier",)
    # `--trainer.max_epochs` is Lightning's: the open parser does not call it unresolved
    assert audit(rules, MemoryTree(LIGHTNING_FILES)).findings == ()


def test_a_console_script_running_the_parser_through_a_trainer_is_named():
    files = {
        **HF_FILES,
        "pyproject.toml": '[project]\nname = "tuner"\n\n[project.scripts]\ntuner = "tuner.cli:main"\n',
        "src/tuner/cli.py": "from tuner.train import run\n\ndef main():\n    run()\n",
        "src/tuner/train.py": "from tuner.hparams.parser import get_args\n\ndef run():\n    get_args()\n",
        "README.md": "# Tuner\n\n```bash\ntuner train --model_name_or_path gpt2 --cutoff_len 512\n```\n",
    }
    _, rules = written(files)
    (source,) = [s for s in rules[0].sources if s.kind == "hf-dataclass"]
    assert source.programs == ("tuner",)
    head = dict(files)
    path = "src/tuner/hparams/data_args.py"
    head[path] = head[path].replace("cutoff_len", "cutoff_length")
    report = check(rules, MemoryTree(files), MemoryTree(head), [Change("modified", path)])
    assert [(f.kind, f.symbol, f.doc.line if f.doc else None) for f in report.findings] == [
        ("renamed", "--cutoff_len", 4)
    ]


def test_a_jsonargparse_dict_of_subcommands_assigned_in_main_is_followed():
    files = {
        "tool/__init__.py": "",
        "tool/train.py": "def setup(max_steps: int = 100, lr_warmup: int = 10):\n    ...\n",
        "tool/__main__.py": (
            "from jsonargparse import CLI\nfrom tool.train import setup as train_fn\n\n"
            'def main():\n    commands = {"train": train_fn}\n    CLI(commands)\n'
        ),
        "pyproject.toml": '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.__main__:main"\n',
        "README.md": "# Tool\n\n```bash\ntool train --max_steps 10 --lr_warmup 2\n```\n",
    }
    _, rules = written(files)
    (source,) = [s for s in rules[0].sources if s.kind == "jsonargparse"]
    assert source.paths == ("tool/train.py",) and source.names == ("setup",)
    assert audit(rules, MemoryTree(files)).findings == ()
    typo = dict(files, **{"README.md": files["README.md"].replace("--lr_warmup", "--lr_warmap")})
    assert [(f.kind, f.symbol) for f in audit(rules, MemoryTree(typo)).findings] == [
        ("unresolved", "--lr_warmap")
    ]


SUBCLASSED_FILES = {
    "kit/__init__.py": "from .cli_utils import KitParser\nfrom .configs import TrainConfig\n",
    "kit/cli_utils.py": (
        "from transformers import HfArgumentParser\n\n"
        "class KitParser(HfArgumentParser):\n    def parse_all(self):\n"
        "        return self.parse_args_into_dataclasses()\n"
    ),
    "kit/configs.py": (
        "from dataclasses import dataclass, field\nfrom transformers import TrainingArguments\n\n"
        "@dataclass\nclass TrainConfig(TrainingArguments):\n"
        '    beta: float = field(default=0.1, metadata={"help": "Beta."})\n'
        '    loss_kind: str = field(default="sigmoid", metadata={"help": "Loss."})\n'
    ),
    "kit/run.py": (
        "def make_parser():\n    from kit import KitParser, TrainConfig\n\n"
        "    dataclass_types = (TrainConfig,)\n    return KitParser(dataclass_types)\n\n"
        'if __name__ == "__main__":\n    make_parser().parse_all()\n'
    ),
    "docs/run.md": "# Run\n\n```bash\npython kit/run.py --beta 0.2 --loss_kind hinge --output_dir out\n```\n",
}


def test_a_subclass_of_hf_argument_parser_builds_flags_as_its_base():
    """`class KitParser(HfArgumentParser)`, called with a tuple a function assigned: its classes
    are the rule's names, and the script's command line takes their flags."""
    _, rules = written(SUBCLASSED_FILES)
    (source,) = [s for s in rules[0].sources if s.kind == "hf-dataclass"]
    assert source.names == ("TrainConfig",)
    assert audit(rules, MemoryTree(SUBCLASSED_FILES)).findings == ()
    head = dict(SUBCLASSED_FILES)
    head["docs/run.md"] = head["docs/run.md"].replace("--loss_kind", "--loss_kindd")
    report = check(rules, MemoryTree(SUBCLASSED_FILES), MemoryTree(head), [Change("modified", "docs/run.md")])
    assert [(f.kind, f.symbol) for f in report.findings] == [("unresolved", "--loss_kindd")]


FIRE_FILES = {
    "finetune.py": (
        "import fire\n\n\ndef train(\n    base_model: str = '',\n    batch_size: int = 128,\n"
        "    micro_batch_size: int = 4,\n    lora_r: int = 8,\n):\n    pass\n\n\n"
        'if __name__ == "__main__":\n    fire.Fire(train)\n'
    ),
    "README.md": (
        "# LoRA\n\n```bash\npython finetune.py \\\n    --base_model 'decapoda/llama-7b' \\\n"
        "    --batch_size 128 \\\n    --micro_batch_size 4 \\\n    --lora_r 8\n```\n"
    ),
}


def test_a_fire_script_is_coupled_to_the_pages_running_it():
    text, rules = written(FIRE_FILES)
    (source,) = [s for s in rules[0].sources if s.kind == "fire"]
    assert source.paths == ("finetune.py",) and source.names == ("train",)
    assert audit(rules, MemoryTree(FIRE_FILES)).findings == ()
    head = dict(FIRE_FILES, **{"finetune.py": FIRE_FILES["finetune.py"].replace("lora_r:", "lora_rank:")})
    report = check(rules, MemoryTree(FIRE_FILES), MemoryTree(head), [Change("modified", "finetune.py")])
    assert [(f.kind, f.symbol, f.doc.line if f.doc else None) for f in report.findings] == [
        ("renamed", "--lora_r", 8)
    ]
    # Fire takes either spelling: `--micro-batch-size` is `--micro_batch_size`.
    hyphens = dict(
        FIRE_FILES,
        **{"README.md": FIRE_FILES["README.md"].replace("--micro_batch_size", "--micro-batch-size")},
    )
    assert audit(rules, MemoryTree(hyphens)).findings == ()


def test_classes_handed_through_cast_or_their_module_are_followed():
    files = {
        "kit/__init__.py": "",
        "kit/configs.py": (
            "from dataclasses import dataclass\n\n@dataclass\nclass ExperimentConfig:\n"
            "    deepspeed_zpg: int = 8\n    num_epochs: int = 1\n"
        ),
        "kit/train.py": (
            "from transformers import HfArgumentParser\nfrom kit import configs\n\n"
            "if __name__ == '__main__':\n"
            "    HfArgumentParser((configs.ExperimentConfig,)).parse_args_into_dataclasses()\n"
        ),
        "kit/sample.py": (
            "from dataclasses import dataclass\nfrom typing import cast\n"
            "from transformers import HfArgumentParser\n\n"
            "@dataclass\nclass Args:\n    input_filename: str = 'in.jsonl'\n    num_completions: int = 4\n\n"
            "if __name__ == '__main__':\n"
            "    HfArgumentParser(cast(DataClassType, Args)).parse_args_into_dataclasses()\n"
        ),
        "README.md": (
            "# Kit\n\n```bash\npython kit/train.py --deepspeed_zpg 8 --num_epochs 2\n"
            "python kit/sample.py --input_filename a.jsonl --num_completions 2\n```\n"
        ),
    }
    _, rules = written(files)
    named = {n for s in rules[0].sources if s.kind == "hf-dataclass" for n in s.names}
    assert {"ExperimentConfig", "Args"} <= named
    assert audit(rules, MemoryTree(files)).findings == ()


# A tool whose subcommands are pipelines: each names its arguments class in a class attribute,
# and the base's method hands `self.args_class` to a helper that builds the HfArgumentParser.
HANDED_FILES = {
    "setup.py": (
        "from setuptools import setup\nsetup(entry_points={'console_scripts': ['kit=kit.cli:main']})\n"
    ),
    "kit/__init__.py": "",
    "kit/cli.py": (
        "import sys\nfrom kit.pipelines import TrainPipeline, InferPipeline\n\n"
        "def main():\n    {'train': TrainPipeline, 'infer': InferPipeline}[sys.argv[1]]().run()\n"
    ),
    "kit/utils.py": (
        "from transformers import HfArgumentParser\n\n"
        "def parse_args(class_type, argv=None):\n"
        "    parser = HfArgumentParser([class_type])\n"
        "    return parser.parse_args_into_dataclasses(argv, return_remaining_strings=True)\n"
    ),
    "kit/arguments.py": (
        "from dataclasses import dataclass\n\n@dataclass\nclass BaseArguments:\n    seed: int = 42\n\n"
        "@dataclass\nclass TrainArguments(BaseArguments):\n    lora_rank: int = 8\n\n"
        "@dataclass\nclass InferArguments(BaseArguments):\n    max_new_tokens: int = 64\n"
    ),
    "kit/pipelines/__init__.py": (
        "from .base import Pipeline\nfrom .train import TrainPipeline, InferPipeline\n"
    ),
    "kit/pipelines/base.py": (
        "from kit.arguments import BaseArguments\nfrom kit.utils import parse_args\n\n"
        "class Pipeline:\n    args_class = BaseArguments\n\n"
        "    def __init__(self, argv=None):\n        self.args, _ = parse_args(self.args_class, argv)\n"
    ),
    "kit/pipelines/train.py": (
        "from kit.arguments import InferArguments, TrainArguments\nfrom .base import Pipeline\n\n"
        "class TrainPipeline(Pipeline):\n    args_class = TrainArguments\n\n"
        "class InferPipeline(Pipeline):\n    args_class = InferArguments\n\n"
        "class Unrelated:\n    args_class = dict\n"
    ),
    "docs/usage.md": (
        "# Usage\n\n```bash\nkit train --lora_rank 16 --seed 1\nkit infer --max_new_tokens 32\n```\n"
    ),
}


def test_classes_handed_through_a_parameter_are_read_at_the_calls():
    """`HfArgumentParser([class_type])` in a helper: the classes are what its callers hand it,
    here `self.args_class`, the class attribute of the base and of each pipeline deriving from
    it (not of an unrelated class)."""
    _, rules = written(HANDED_FILES)
    (source,) = [s for s in rules[0].sources if s.kind == "hf-dataclass"]
    assert source.names == ("BaseArguments", "InferArguments", "TrainArguments")
    assert [d.path for d in rules[0].docs] == ["docs/usage.md"]
    assert audit(rules, MemoryTree(HANDED_FILES)).findings == ()
    head = dict(HANDED_FILES)
    head["kit/arguments.py"] = head["kit/arguments.py"].replace("lora_rank", "lora_r")
    report = check(
        rules, MemoryTree(HANDED_FILES), MemoryTree(head), [Change("modified", "kit/arguments.py")]
    )
    assert [(f.kind, f.symbol) for f in report.findings] == [("renamed", "--lora_rank")]
