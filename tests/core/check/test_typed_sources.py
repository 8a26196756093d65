"""The check on flags made of typed parameters (HfArgumentParser, tyro, jsonargparse and
LightningCLI): a code change makes a doc line stale, a doc edit cites a flag the code lacks."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.core.check import check
from bot.core.model import Change, Finding
from bot.core.packs import parse_repo_config
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import cli

CONFIG = """\
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: args
        kind: {kind}
        paths: [{path}]
"""


@dataclass(frozen=True)
class Project:
    kind: str
    path: str  # where the parameters are
    files: dict[str, str]
    doc: str

    def run(self, edits: dict[str, str]) -> list[Finding]:
        base = {**self.files, "README.md": self.doc}
        head = {**base, **edits}
        config = CONFIG.format(kind=self.kind, path=self.path)
        rules = [r for pack in parse_repo_config(config) for r in pack.rules]
        changes = [Change("modified", p) for p in edits]
        return list(check(rules, MemoryTree(base), MemoryTree(head), changes).findings)


HF_ARGS = """\
from dataclasses import dataclass, field
from typing import Optional


@dataclass
class ModelArguments:
    model_name_or_path: str = field(metadata={"help": "The model."})
    use_fast_tokenizer: bool = field(default=True, metadata={"help": "Use a fast tokenizer."})


@dataclass
class DataArguments:
    max_seq_length: int = field(default=512, metadata={"help": "Longest sequence."})
    dataset: Optional[str] = field(default=None, metadata={"help": "Dataset name."})
"""
HF = Project(
    "hf-dataclass",
    "pkg/args.py",
    {
        "pkg/__init__.py": "",
        "pkg/args.py": HF_ARGS,
        "train.py": (
            "from transformers import HfArgumentParser\n"
            "from pkg.args import DataArguments, ModelArguments\n\n"
            "def main():\n"
            "    HfArgumentParser((ModelArguments, DataArguments)).parse_args_into_dataclasses()\n\n"
            'if __name__ == "__main__":\n    main()\n'
        ),
    },
    "# Training\n\n```bash\npython train.py --model_name_or_path gpt2 --max_seq_length 512\n```\n\n"
    "Pass `--no_use_fast_tokenizer` for the slow tokenizer. `--max_seq_length` defaults to 512.\n",
)

TYRO_CONFIG = """\
import dataclasses

import tyro


@dataclasses.dataclass
class Optimizer:
    learning_rate: float = 3e-4
    weight_decay: float = 0.0


@dataclasses.dataclass
class Config:
    exp_name: str = "run"
    optimizer: Optimizer = Optimizer()
    use_wandb: bool = True


if __name__ == "__main__":
    tyro.cli(Config)
"""
TYRO = Project(
    "tyro",
    "train.py",
    {"train.py": TYRO_CONFIG},
    "# Training\n\n```bash\npython train.py --exp-name demo --optimizer.learning-rate 3e-4\n```\n\n"
    "Turn logging off with `--no-use-wandb`. `--optimizer.weight-decay` defaults to 0.0.\n",
)

LIGHTNING_MAIN = """\
from lightning.pytorch.cli import LightningCLI


class LitModel:
    def __init__(
        self,
        hidden_dim: int = 64,
        learning_rate: float = 0.001,
    ):
        ...


class DataModule:
    def __init__(self, batch_size: int = 32):
        ...


if __name__ == "__main__":
    LightningCLI(LitModel, DataModule)
"""
LIGHTNING = Project(
    "jsonargparse",
    "main.py",
    {"main.py": LIGHTNING_MAIN},
    "# Training\n\n```bash\npython main.py fit --model.hidden_dim 128 --data.batch_size 16\n```\n\n"
    "`--model.learning_rate` defaults to 0.001.\n",
)


def kinds(findings: list[Finding]) -> list[tuple[str, str, int | None]]:
    return sorted((f.kind, f.symbol, f.doc.line if f.doc else None) for f in findings)


@pytest.mark.parametrize(
    ("project", "old", "new", "token", "renamed"),
    [
        (HF, "max_seq_length", "max_length", "--max_seq_length", "--max_length"),
        (TYRO, "learning_rate", "lr", "--optimizer.learning-rate", "--optimizer.lr"),
        (LIGHTNING, "hidden_dim", "width", "--model.hidden_dim", "--model.width"),
    ],
    ids=["hf-dataclass", "tyro", "lightning"],
)
def test_a_renamed_parameter_is_reported_on_the_command_line_citing_it(project, old, new, token, renamed):
    findings = project.run({project.path: project.files[project.path].replace(old, new)})
    command = [f for f in findings if f.doc is not None and f.doc.line == 4]
    assert [(f.kind, f.symbol) for f in command] == [("renamed", token)]
    assert command[0].suggestion is not None
    assert command[0].suggestion.replacement == project.doc.splitlines()[3].replace(token, renamed)


@pytest.mark.parametrize(
    ("project", "old", "new", "token", "line"),
    [
        (HF, "default=512", "default=1024", "--max_seq_length", "`--max_seq_length` defaults to 1024."),
        (TYRO, "weight_decay: float = 0.0", "weight_decay: float = 0.1", "--optimizer.weight-decay", None),
        (
            LIGHTNING,
            "learning_rate: float = 0.001",
            "learning_rate: float = 0.01",
            "--model.learning_rate",
            None,
        ),
    ],
    ids=["hf-dataclass", "tyro", "lightning"],
)
def test_a_changed_default_rewrites_the_claim(project, old, new, token, line):
    findings = project.run({project.path: project.files[project.path].replace(old, new)})
    assert [(f.kind, f.symbol) for f in findings] == [("changed", token)]
    replacement = findings[0].suggestion.replacement if findings[0].suggestion else None
    written = new.split("=")[-1].strip()
    assert replacement is not None and f"defaults to {written}" in replacement
    if line is not None:
        assert replacement.endswith(line)


@pytest.mark.parametrize(
    ("project", "typo", "meant"),
    [
        (HF, "--max_seq_len", "--max_seq_length"),
        (TYRO, "--optimizer.learning-rte", "--optimizer.learning-rate"),
        (LIGHTNING, "--model.hiden_dim", "--model.hidden_dim"),
    ],
    ids=["hf-dataclass", "tyro", "lightning"],
)
def test_a_doc_edit_citing_a_flag_the_code_lacks_is_unresolved(project, typo, meant):
    findings = project.run({"README.md": project.doc + f"\nFor short runs use `{typo} 8`.\n"})
    assert [(f.kind, f.symbol) for f in findings] == [("unresolved", typo)]
    assert findings[0].suggestion is not None and meant in findings[0].suggestion.replacement


def test_a_true_bool_field_renamed_keeps_its_no_twin():
    findings = HF.run({HF.path: HF_ARGS.replace("use_fast_tokenizer", "fast_tokenizer")})
    assert kinds(findings) == [("renamed", "--no_use_fast_tokenizer", 7)]
    assert (
        findings[0].suggestion is not None and "`--no_fast_tokenizer`" in findings[0].suggestion.replacement
    )


def test_a_bool_flipped_to_false_loses_its_no_flag_in_hf_and_changes_meaning_in_tyro():
    findings = HF.run({HF.path: HF_ARGS.replace("default=True", "default=False")})
    assert [(f.kind, f.symbol) for f in findings] == [("removed", "--no_use_fast_tokenizer")]
    # tyro keeps `--no-x` whatever the default; a page telling how to turn it off is now moot
    flipped = TYRO.run({TYRO.path: TYRO_CONFIG.replace("use_wandb: bool = True", "use_wandb: bool = False")})
    assert [(f.kind, f.symbol) for f in flipped] == [("changed", "--no-use-wandb")]


@pytest.mark.parametrize("project", [HF, TYRO, LIGHTNING], ids=["hf-dataclass", "tyro", "lightning"])
def test_help_and_comment_edits_say_nothing(project):
    edited = project.files[project.path].replace('"The model."', '"The model id."') + "\n# a comment\n"
    assert project.run({project.path: edited}) == []


def _open_parser() -> Project:
    """The HfArgumentParser project with a dataclass deriving from transformers' own: a parser
    whose flags are not all read here."""
    wider = HF_ARGS.replace("class DataArguments:", "class DataArguments(TrainingArguments):")
    files = {**HF.files, HF.path: "from transformers import TrainingArguments\n" + wider}
    return Project("hf-dataclass", HF.path, files, HF.doc)


def test_an_open_parser_reports_only_misspellings_of_its_own_flags():
    project = _open_parser()
    edit = HF.doc + "\nSet `--per_device_train_batch_size 8` and `--max_seq_len 128`.\n"
    findings = project.run({"README.md": edit})
    assert [(f.kind, f.symbol) for f in findings] == [("unresolved", "--max_seq_len")]


def test_an_open_parser_takes_a_near_miss_of_the_parameter_its_list_item_describes():
    # "- dataset: ... over `--datasets`": the item names `--dataset` itself, so `--datasets` is
    # another one, the base class's; a near miss in a sentence of its own is still a slip
    project = _open_parser()
    edit = HF.doc + "\n- dataset: the data, used over `--datasets`.\n\nOr pass `--datasets x`.\n"
    findings = project.run({"README.md": edit})
    assert [(f.kind, f.symbol, f.doc.line) for f in findings] == [("unresolved", "--datasets", 11)]


def test_a_parameter_lists_item_goes_stale_with_its_flag_and_names_nothing_else():
    # "- max_seq_length: ..." lists the flag by its bare name; "- query:" is a dataset's field
    doc = HF.doc + "\n## Parameters\n\n- 🔥max_seq_length: Longest sequence.\n- query: the prompt.\n"
    project = Project(HF.kind, HF.path, HF.files, doc)
    renamed = HF_ARGS.replace("max_seq_length", "max_len")
    findings = project.run({HF.path: renamed})
    items = [f for f in findings if f.doc and f.doc.line == 11]
    assert [(f.kind, f.symbol) for f in items] == [("renamed", "--max_seq_length")]
    assert (
        items[0].suggestion is not None
        and items[0].suggestion.replacement == "- 🔥max_len: Longest sequence."
    )
    removed = HF_ARGS.replace(
        '    max_seq_length: int = field(default=512, metadata={"help": "Longest sequence."})\n', ""
    )
    items = [f for f in project.run({HF.path: removed}) if f.doc and f.doc.line == 11]
    assert [(f.kind, f.symbol) for f in items] == [("removed", "--max_seq_length")]
    # a doc edit writing an item of no flag, or a comment in the code, says nothing of the items
    edited = doc.replace("- query: the prompt.", "- query: the prompt text.\n- answer: the reply.")
    assert project.run({"README.md": edited}) == []


def test_a_parameter_lists_item_claims_its_default_for_its_flag():
    item = "\n## Parameters\n\n- 🔥max_seq_length: Longest sequence. Default is `{}`.\n"
    project = Project(HF.kind, HF.path, HF.files, HF.doc + item.format(512))
    wrong = project.run({"README.md": HF.doc + item.format(256)})
    assert [(f.kind, f.symbol, f.doc.line) for f in wrong if f.doc] == [
        ("wrong-default", "--max_seq_length", 11)
    ]
    moved = project.run({HF.path: HF_ARGS.replace("default=512", "default=1024")})
    assert ("changed", "--max_seq_length", 11) in [(f.kind, f.symbol, f.doc.line) for f in moved if f.doc]


def test_an_open_parser_leaves_alone_a_flag_of_a_group_it_cannot_read():
    edit = LIGHTNING.doc + "\nStop early with `--trainer.max_epoch 3`.\n"  # Lightning's group
    assert LIGHTNING.run({"README.md": edit}) == []


def test_choices_moved_into_an_alias_of_another_module_are_unknown_not_gone():
    # litgpt #2198: `Literal["wandb", "csv"]` became `LoggerChoice`, imported from litgpt/types.py
    field = '    logger: Literal["csv", "wandb"] = "csv"\n'
    base = TYRO_CONFIG.replace("import tyro\n", "import tyro\nfrom typing import Literal\n")
    base = base.replace("    use_wandb: bool = True\n", "    use_wandb: bool = True\n" + field)
    head = base.replace("from typing import Literal\n", "from pkg.types import Logger\n")
    head = head.replace('Literal["csv", "wandb"]', "Logger")
    doc = TYRO.doc + "\nLog with `--logger wandb`.\n"
    project = Project("tyro", "train.py", {"train.py": base}, doc)
    types = "from typing import Literal\nLogger = Literal['csv', 'wandb']\n"
    assert project.run({"train.py": head, "pkg/types.py": types}) == []
    # the same edit with the choices still written in the file, one dropped: reported
    dropped = base.replace('Literal["csv", "wandb"]', 'Literal["csv"]')
    assert [(f.kind, f.symbol) for f in project.run({"train.py": dropped})] == [("changed", "--logger wandb")]


def test_an_open_parser_takes_a_flag_cited_alone_only_on_a_page_running_its_program():
    # TrainingArguments over transformers' class takes `--report_to`, which no file shows; a page
    # that runs only the serving program cites a flag of none of ours with `--quantum-flux`
    config = (
        "rules:\n  - id: cli-docs\n    docs:\n      - path: README.md\n      - path: SERVE.md\n"
        "    sources:\n      - id: cli\n        kind: argparse\n        paths: [serve.py, web.py]\n"
        "      - id: args\n        kind: hf-dataclass\n        paths: [pkg/args.py]\n"
    )
    args = HF_ARGS.replace(
        "from typing import Optional\n", "from typing import Optional\n\nimport transformers\n"
    )
    args += "\n\n@dataclass\nclass TrainingArguments(transformers.TrainingArguments):\n"
    args += "    cache_dir: str = None\n"
    serve = cli("'--port', type=int") + "p.parse_args()\n"
    web = serve.replace("'--port', type=int", "'--host'")
    files = {**HF.files, "pkg/args.py": args, "serve.py": serve, "web.py": web}
    files["train.py"] = files["train.py"].replace("DataArguments))", "DataArguments, TrainingArguments))")
    files["train.py"] = files["train.py"].replace(
        "DataArguments, ModelArguments\n", "DataArguments, ModelArguments, TrainingArguments\n"
    )
    train_page = HF.doc + "\nLog with `--report_to wandb`.\n"
    serve_page = (
        "# Serving\n\nPass `--quantum-flux 2` to the one you run.\n\n"
        "```bash\npython serve.py --port 8000\npython web.py --host 0.0.0.0\n```\n"
    )
    rules = [r for pack in parse_repo_config(config) for r in pack.rules]
    head = {**files, "README.md": train_page, "SERVE.md": serve_page}
    changes = [Change("added", "README.md"), Change("added", "SERVE.md")]
    found = check(rules, MemoryTree(files), MemoryTree(head), changes).findings
    assert [(f.kind, f.symbol, f.doc.path if f.doc else None) for f in found] == [
        ("unresolved", "--quantum-flux", "SERVE.md")
    ]


def test_hf_argument_parser_takes_a_long_option_cut_short_as_argparse_does():
    # HfArgumentParser is an ArgumentParser (allow_abbrev left on): `--max_seq_len` given to the
    # script runs; cited on its own, it names the flag wrongly (the test above).
    run = "\n```bash\npython train.py --model_name_or_path gpt2 --max_seq_len 256\n```\n"
    assert HF.run({"README.md": HF.doc + run}) == []
