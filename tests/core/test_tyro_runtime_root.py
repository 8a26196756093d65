"""A tyro command line whose root class is chosen at run time: a config manager looks a config
function up by name and hands `tyro.cli` the type of what it returns (`tyro.cli(type(config),
default=config)`), over components that carry their own config classes (`Profiler.Config`).
Init couples the pages to the class their dotted flags are fields of, and to its subclasses."""

from __future__ import annotations

from bot.core.check import audit, check
from bot.core.init import config_for
from bot.core.model import Change
from bot.core.packs import parse_repo_config
from bot.core.validate import unmatched
from bot.trees.memory import MemoryTree

DC = "from dataclasses import dataclass, field\n"
FILES = {
    "pkg/__init__.py": "",
    "pkg/config/__init__.py": "from .manager import ConfigManager\nfrom .sections import TrainingConfig\n",
    "pkg/config/component.py": (
        DC + "\n\nclass Component:\n    @dataclass(kw_only=True)\n    class Config:\n"
        '        """What every component\'s config is."""\n'
    ),
    "pkg/config/sections.py": (
        DC + "\n\n@dataclass(kw_only=True)\nclass TrainingConfig:\n    steps: int = 10000\n"
        '    """How many steps to train."""\n    seq_len: int = 2048\n\n\n'
        "@dataclass(kw_only=True)\nclass ParallelConfig:\n    tensor_degree: int = 1\n"
        "    shard_degree: int = -1\n"
    ),
    "pkg/tools/__init__.py": "",
    "pkg/tools/loading.py": (
        DC + "from pkg.config.component import Component\n\n\nclass Loader(Component):\n"
        "    @dataclass(kw_only=True)\n    class Config(Component.Config):\n        workers: int = 2\n\n\n"
        "class TextLoader(Loader):\n    @dataclass(kw_only=True)\n    class Config(Loader.Config):\n"
        '        dataset: str = "c4"\n'
    ),
    "pkg/tools/profiling.py": (
        DC + "from pkg.config.component import Component\n\n\nclass Profiling(Component):\n"
        "    @dataclass(kw_only=True)\n    class Config(Component.Config):\n"
        "        enable_tracing: bool = False\n        trace_every: int = 10\n"
    ),
    "pkg/config/manager.py": (
        "import importlib\nimport sys\n\nimport tyro\n\n\nclass ConfigManager:\n"
        "    def parse_args(self, args=None):\n        args = sys.argv[1:] if args is None else args\n"
        "        loaded, rest = self._load(args)\n        config_cls = type(loaded)\n"
        "        return tyro.cli(config_cls, args=rest, default=loaded)\n\n"
        "    def _load(self, args):\n        module = importlib.import_module(args[0])\n"
        "        return getattr(module, args[1])(), args[2:]\n"
    ),
    "pkg/runner.py": (
        DC + "from pkg.config.component import Component\nfrom pkg.config.sections import ParallelConfig, "
        "TrainingConfig\nfrom pkg.tools.loading import Loader\n"
        "from pkg.tools.profiling import Profiling\n\n\nclass Runner(Component):\n"
        "    @dataclass(kw_only=True)\n    class Config(Component.Config):\n"
        '        dump_folder: str = "./out"\n'
        "        profiling: Profiling.Config = field(default_factory=Profiling.Config)\n"
        "        training: TrainingConfig = field(default_factory=TrainingConfig)\n"
        "        parallel: ParallelConfig = field(default_factory=ParallelConfig)\n"
        "        loader: Loader.Config = field(default_factory=Loader.Config)\n"
    ),
    "pkg/train.py": (
        "from pkg.config import ConfigManager\n\n\ndef main():\n    config = ConfigManager().parse_args()\n"
        "    config.build()\n\n\nif __name__ == '__main__':\n    main()\n"
    ),
    "pkg/fancy/__init__.py": "",
    "pkg/fancy/runner.py": (
        DC + "from pkg.runner import Runner\n\n\n@dataclass(kw_only=True)\nclass FancyConfig:\n"
        "    sparkle: int = 3\n\n\nclass FancyRunner(Runner):\n    @dataclass(kw_only=True)\n"
        "    class Config(Runner.Config):\n        fancy: FancyConfig = field(default_factory=FancyConfig)\n"
    ),
    "run.sh": '#!/bin/bash\nNGPU=${NGPU:-8}\ntorchrun --nproc_per_node=$NGPU -m pkg.train "$@"\n',
    "docs/debugging.md": (
        "# Debugging\n\n```bash\n./run.sh --training.steps 10 --parallel.tensor_degree 2 "
        "--profiling.enable_tracing\n```\n\n"
        "* `--profiling.trace_every`: how often to trace.\n"
        "* `--profiling.no-enable-tracing`: the same switch off.\n"
        "* `--parallel.shard_degree` (`-1` by default) and `--fancy.sparkle`.\n"
        "* `--loader.dataset c4`: the text loader's data set.\n"
    ),
}


def _rules(files: dict[str, str]) -> list:
    tree = MemoryTree(files)
    text = config_for(tree)
    assert text is not None
    rules = [r for pack in parse_repo_config(text) for r in pack.rules]
    assert unmatched(rules, MemoryTree({}), tree) == []
    return rules


def test_init_couples_the_pages_to_the_class_their_dotted_flags_are_fields_of():
    text = config_for(MemoryTree(FILES))
    assert text is not None
    assert "kind: tyro" in text
    assert "Runner.Config" in text and "FancyRunner.Config" in text
    assert "profiling=Profiling.Config" in text
    assert "pkg/config/manager.py" in text or "pkg/config/*.py" in text  # the call choosing the class


def test_the_flags_resolve_in_either_spelling():
    assert list(audit(_rules(FILES), MemoryTree(FILES)).findings) == []


def test_a_misspelt_flag_and_a_group_no_class_has_are_told():
    page = FILES["docs/debugging.md"] + "\nAlso `--training.stepz 5` and `--dataloader.dataset c4`.\n"
    files = {**FILES, "docs/debugging.md": page}
    found = list(audit(_rules(files), MemoryTree(files)).findings)
    assert sorted((f.kind, f.symbol) for f in found) == [
        ("unresolved", "--dataloader.dataset"),
        ("unresolved", "--training.stepz"),
    ]


def test_a_group_class_moved_to_a_module_the_rule_does_not_list_keeps_its_flags():
    rules = _rules(FILES)
    moved = FILES["pkg/config/sections.py"].split("@dataclass(kw_only=True)\nclass ParallelConfig")
    head = {
        **FILES,
        "pkg/config/sections.py": moved[0],
        "pkg/parallel/__init__.py": "",
        "pkg/parallel/config.py": DC + "\n\n@dataclass(kw_only=True)\nclass ParallelConfig" + moved[1],
        "pkg/runner.py": FILES["pkg/runner.py"].replace(
            "from pkg.config.sections import ParallelConfig, TrainingConfig",
            "from pkg.config.sections import TrainingConfig\nfrom pkg.parallel.config import ParallelConfig",
        ),
    }
    changes = [Change("modified", p) for p in ("pkg/config/sections.py", "pkg/runner.py")]
    changes.append(Change("added", "pkg/parallel/config.py"))
    assert list(check(rules, MemoryTree(FILES), MemoryTree(head), changes).findings) == []


def test_a_renamed_field_is_reported_where_the_page_cites_its_flag():
    rules = _rules(FILES)
    sections = FILES["pkg/config/sections.py"].replace("steps:", "max_steps:")
    head = {**FILES, "pkg/config/sections.py": sections}
    changes = [Change("modified", "pkg/config/sections.py")]
    found = list(check(rules, MemoryTree(FILES), MemoryTree(head), changes).findings)
    assert [(f.kind, f.symbol, f.doc.line if f.doc else None) for f in found] == [
        ("renamed", "--training.steps", 4)
    ]
    assert found[0].suggestion is not None
    assert "--training.max_steps 10" in found[0].suggestion.replacement


def test_a_launchers_flag_named_in_prose_and_a_groups_flags_are_not_told():
    page = FILES["docs/debugging.md"] + (
        "\nWith fewer GPUs, adjust `--nproc_per_node` in the torchrun command.\n"
        "\nOn a config error, add more `--parallel.flags` to the command.\n"
    )
    files = {**FILES, "docs/debugging.md": page}
    assert list(audit(_rules(files), MemoryTree(files)).findings) == []


def test_a_stale_choice_is_offered_only_a_choice_it_could_be_a_misspelling_of():
    literal = 'mode: Literal["sac_and_offload", "eager"] = "eager"\n'
    sections = FILES["pkg/config/sections.py"] + f"    {literal}"
    page = FILES["docs/debugging.md"] + "\nUse `--parallel.mode cpu_offload_all` or `--parallel.mode eagr`.\n"
    files = {**FILES, "pkg/config/sections.py": sections, "docs/debugging.md": page}
    found = sorted(audit(_rules(files), MemoryTree(files)).findings, key=lambda f: f.symbol)
    assert [(f.symbol, f.suggestion is not None) for f in found] == [
        ("--parallel.mode cpu_offload_all", False),
        ("--parallel.mode eagr", True),
    ]
