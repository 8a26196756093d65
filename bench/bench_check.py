"""How long `docs-sync check` takes on a miles-size repository, next to `git diff` on the same change.

Builds a throwaway git repository shaped like radixark/miles (a 3,700-line argparse module with
330 flags, an FSDP arguments dataclass and its builder, a device mesh, a backend factory, about
1,200 other Python files and a 500-line doc page citing 60 flags), makes a pull request on it
that renames one documented flag, changes one documented default and touches 20 other files,
and times, in one run:

  1. `git diff --name-status base head` (the baseline),
  2. `docs-sync check` as a process with an empty facts cache ("cold"),
  3. the same with the cache the cold run filled ("warm"),
  4. `bot.core.check.check` in-process, cold and warm,
  5. the parts: fact extraction of the argparse module against `ast.parse` (and libcst, when
     installed), the doc parse, the line diff of the big module, rule loading, a cache read.

With `--miles`, PR 2384 of radixark/miles is replayed too: `check` with the one-page pack and with
bench/rules/miles-docs.yml (every page under docs/), and `audit` with each (see bench/README.md).

Prints figures; asserts nothing about time. See bench/README.md.

    python bench/bench_check.py [--reps N] [--quick] [--profile] [--miles PATH] [--keep DIR]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import cProfile
import difflib
import gc
import io
import math
import os
import pstats
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The targets for a miles-size check, whole process, wall clock.
TARGET_COLD = 0.5
TARGET_WARM = 0.3
TARGET_WARM_TO_AST = 1.3  # warm check / a process that only runs ast.parse on the argparse module
TARGET_HOOK = 0.5  # the pre-commit hook's command on a 50-file repository, warm
HOOK_FILES = 50

# The miles change the `--miles` option replays: PR 2384, `--disable-fp32-master` -> `--no-keep-fp32-master`.
MILES_HEAD = "0daa9ff92"

PKG = "forge"
ARGS_PATH = f"{PKG}/utils/arguments.py"
FSDP_ARGS_PATH = f"{PKG}/backends/fsdp_utils/arguments.py"
PARALLEL_PATH = f"{PKG}/backends/fsdp_utils/parallel.py"
FACTORY_PATH = f"{PKG}/ray/train/actor_factory.py"
TRAIN_ACTOR_PATH = f"{PKG}/ray/train_actor.py"
FSDP_ACTOR_PATH = f"{PKG}/backends/fsdp_utils/actor.py"
MEGATRON_ACTOR_PATH = f"{PKG}/backends/megatron_utils/actor.py"
DOC_PATH = "docs/user-guide/training-backend.md"

# What the pull request does to the documented code.
RENAMED = ("--gen-max-new-tokens", "--gen-max-output-tokens")
CHANGED_DEFAULT = ("--gen-batch-size", "32", "64")


@dataclass(frozen=True)
class Scale:
    flags: int  # add_argument calls in the argparse module
    lines: int  # length of the argparse module
    other_files: int  # Python files besides the documented ones
    doc_flags: int  # distinct flags the doc page cites
    doc_lines: int
    touched: int  # other files the pull request edits
    reps: int


FULL = Scale(flags=330, lines=3700, other_files=1200, doc_flags=60, doc_lines=500, touched=20, reps=7)
QUICK = Scale(flags=60, lines=700, other_files=30, doc_flags=20, doc_lines=140, touched=5, reps=1)


# ---------------------------------------------------------------------------------------------
# The generated repository


@dataclass(frozen=True)
class FlagSpec:
    token: str
    group: str
    style: str  # int | float | str | choice | store_true | store_false | boolopt | list
    default: object
    help: str
    choices: tuple[str, ...] = ()
    dest: str | None = None

    @property
    def key(self) -> str:
        return self.dest or self.token[2:].replace("-", "_")

    @property
    def doc_default(self) -> str | None:
        """The default as a doc writes it, for flags whose default a doc would state."""
        if self.style in ("int", "float", "choice") and self.default is not None:
            return str(self.default)
        return None


def _words(text: str) -> list[str]:
    return text.split()


GROUPS = {
    "placement": ["actor", "critic", "engine", "cell"],
    "optimizer": ["optim", "grad", "lr"],
    "generation": ["gen", "sampling", "decode"],
    "recovery": ["ft", "restart", "heartbeat"],
    "dataset": ["data", "prompt", "shuffle"],
    "evaluation": ["eval", "bench"],
    "objective": ["loss", "kl", "adv"],
    "adapter": ["adapter", "merge"],
    "gateway": ["gateway", "proxy"],
    "tracking": ["track", "metrics"],
    "profiling": ["profile", "trace"],
    "transport": ["transfer", "bucket"],
    "scoring": ["reward", "judge"],
    "replay": ["replay", "buffer"],
    "extensions": ["plugin", "hook"],
    "speculative": ["draft", "spec"],
    "serving": ["serve", "pool"],
    "testing": ["check", "golden"],
    "sessions": ["session", "turn"],
    "memory": ["mem", "offload"],
    "checkpoint": ["ckpt", "snapshot"],
    "scheduling": ["sched", "queue"],
}
INT_NOUNS = ["batch-size", "num-gpus", "interval", "max-len", "seed", "workers", "retries", "steps", "limit"]
INT_NOUNS += ["chunk-size", "queue-depth", "warmup-steps", "capacity", "shards", "replicas", "per-node"]
INT_NOUNS += ["tokens", "samples", "epochs", "patience", "window", "port", "timeout-s", "top-k"]
FLOAT_NOUNS = ["ratio", "threshold", "temperature", "weight", "coef", "epsilon", "scale", "decay", "clip"]
FLOAT_NOUNS += ["top-p", "margin", "fraction"]
STR_NOUNS = ["path", "dir", "host", "name", "prefix", "key", "url", "pattern", "module"]
CHOICE_NOUNS = {
    "mode": ("sync", "async", "hybrid"),
    "backend": ("nccl", "gloo", "ucc"),
    "format": ("jsonl", "parquet", "arrow"),
    "policy": ("fifo", "lru", "priority"),
    "strategy": ("greedy", "beam", "random"),
    "level": ("debug", "info", "warning"),
}
BOOL_WORDS = ["async", "overlap", "offload", "cache", "compile", "profiling", "fp8", "tracing", "dedup"]
BOOL_WORDS += ["streaming", "sharding", "prefetch", "pinning", "retry", "sampling", "masking", "fusion"]
WORDS = _words(
    "the of each rank engine step rollout weights trainer batch sample token request group value "
    "buffer process node shard layer model policy worker queue update metric path run job memory "
    "before after when only every across between within without per one two first last new old "
    "used kept set read written sent moved split merged checked logged saved loaded computed"
)


def _help(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return (" ".join(words)).capitalize() + "."


def _flag_specs(rng: random.Random, count: int) -> list[FlagSpec]:
    """`count` flags spread over the groups; the few the pull request and the doc rely on first."""
    fixed = [
        FlagSpec(
            "--train-backend",
            "placement",
            "choice",
            "megatron",
            "The backend that trains.",
            ("megatron", "fsdp"),
        ),
        FlagSpec("--colocate", "placement", "store_true", False, "Share GPUs between trainer and engines."),
        FlagSpec(RENAMED[0], "generation", "int", 8192, "Longest response the engines generate, in tokens."),
        FlagSpec(CHANGED_DEFAULT[0], "generation", "int", 32, "Prompts sampled per rollout step."),
        FlagSpec("--offload-train-target", "memory", "choice", "cpu", "Where to offload.", ("cpu", "disk")),
    ]
    specs = list(fixed)
    seen = {f.token for f in specs}
    groups = list(GROUPS)
    while len(specs) < count:
        group = groups[len(specs) % len(groups)]
        stem = rng.choice(GROUPS[group])
        roll = rng.random()
        if roll < 0.40:
            noun = rng.choice(INT_NOUNS)
            spec = FlagSpec(f"--{stem}-{noun}", group, "int", rng.choice([0, 1, 2, 4, 8, 16, 64, 1024]), "")
        elif roll < 0.55:
            noun = rng.choice(FLOAT_NOUNS)
            spec = FlagSpec(f"--{stem}-{noun}", group, "float", rng.choice([0.0, 0.1, 0.5, 1.0, 0.95]), "")
        elif roll < 0.67:
            spec = FlagSpec(f"--{stem}-{rng.choice(STR_NOUNS)}", group, "str", None, "")
        elif roll < 0.77:
            noun = rng.choice(list(CHOICE_NOUNS))
            choices = CHOICE_NOUNS[noun]
            spec = FlagSpec(f"--{stem}-{noun}", group, "choice", rng.choice(choices), "", choices)
        elif roll < 0.90:
            spec = FlagSpec(
                f"--{stem}-{rng.choice(['use', 'enable'])}-{rng.choice(BOOL_WORDS)}",
                group,
                "store_true",
                False,
                "",
            )
        elif roll < 0.94:
            word = rng.choice(BOOL_WORDS)
            spec = FlagSpec(f"--disable-{stem}-{word}", group, "store_false", True, "", dest=f"{stem}_{word}")
        elif roll < 0.97:
            spec = FlagSpec(f"--{stem}-{rng.choice(BOOL_WORDS)}", group, "boolopt", True, "")
        else:
            spec = FlagSpec(f"--{stem}-{rng.choice(STR_NOUNS)}s", group, "list", None, "")
        if spec.token in seen:
            continue
        seen.add(spec.token)
        specs.append(FlagSpec(**{**spec.__dict__, "help": _help(rng, rng.randint(6, 40))}))
    return specs


def _render_flag(spec: FlagSpec, rng: random.Random, indent: str, target: str) -> list[str]:
    """One `add_argument` call, in one of the shapes a large argparse module mixes."""
    args = [f'"{spec.token}"']
    if spec.style in ("int", "float"):
        args += [f"type={spec.style}", f"default={spec.default!r}"]
    elif spec.style == "str":
        args += ["type=str", "default=None"]
    elif spec.style == "list":
        args += ["type=str", 'nargs="+"', "default=None"]
    elif spec.style == "choice":
        args += ["type=str", f"choices={list(spec.choices)!r}", f"default={spec.default!r}"]
    elif spec.style == "store_true":
        args += ['action="store_true"']
    elif spec.style == "store_false":
        args += [f'dest="{spec.dest}"', 'action="store_false"']
    elif spec.style == "boolopt":
        args += ["action=argparse.BooleanOptionalAction", f"default={spec.default!r}"]
    help_text = spec.help
    one_line = f"{indent}{target}.add_argument({', '.join(args)}, help={help_text!r})"
    if len(one_line) <= 110 and rng.random() < 0.5:
        return [one_line]
    inner = indent + "    "
    lines = [f"{indent}{target}.add_argument("] + [f"{inner}{a}," for a in args]
    if len(help_text) > 60:
        parts = textwrap.wrap(help_text, 70, drop_whitespace=False)
        lines.append(f"{inner}help=(")
        lines += [f"{inner}    {p!r}" for p in parts]
        lines.append(f"{inner}),")
    else:
        lines.append(f"{inner}help={help_text!r},")
    lines.append(f"{indent})")
    return lines


def argparse_module(specs: Sequence[FlagSpec], target_lines: int, rng: random.Random, *, head: bool) -> str:
    """The argparse module: nested `add_<group>_arguments` functions, one argument group each,
    inside an extra-args provider, then a long validation function."""
    if head:
        specs = [_pr_edit(s) for s in specs]
    out = [
        '"""Command-line arguments of the trainer: every flag, grouped the way `--help` shows them."""',
        "",
        "import argparse",
        "import logging",
        "import os",
        "",
        "logger = logging.getLogger(__name__)",
        "",
        "",
        "def reset_arg(parser, name, **kwargs):",
        '    """Give a flag another library declared a new default, or declare it when absent."""',
        "    for action in parser._actions:",
        "        if name in action.option_strings:",
        '            if "default" in kwargs:',
        '                action.default = kwargs["default"]',
        "            break",
        "    else:",
        "        parser.add_argument(name, **kwargs)",
        "",
        "",
        "def get_trainer_extra_args_provider(add_custom_arguments=None):",
        "    def add_trainer_arguments(parser):",
    ]
    by_group: dict[str, list[FlagSpec]] = {}
    for s in specs:
        by_group.setdefault(s.group, []).append(s)
    for group, members in by_group.items():
        out += [
            f"        def add_{group}_arguments(parser):",
            f'            group = parser.add_argument_group("{group}")',
        ]
        for i, spec in enumerate(members):
            if i and rng.random() < 0.3:
                out.append("")
            if rng.random() < 0.1:
                out.append(f"            # {_help(rng, rng.randint(5, 12))}")
            out += _render_flag(spec, rng, "            ", "group")
        if rng.random() < 0.4:
            seed = rng.randint(1, 9999)
            out.append(f'            reset_arg(parser, "--{group}-legacy-seed", type=int, default={seed})')
        out += ["            return parser", ""]
    for group in by_group:
        out.append(f"        parser = add_{group}_arguments(parser)")
    out += [
        "        if add_custom_arguments is not None:",
        "            parser = add_custom_arguments(parser)",
        "        return parser",
        "",
        "    return add_trainer_arguments",
        "",
        "",
        "def validate_args(args):",
        '    """Reject combinations the trainer cannot run, with the flag names in the message."""',
    ]
    checks = [s for s in specs if s.style in ("int", "float", "choice", "str")]
    i = 0
    while len(out) < target_lines - 2:
        s = checks[i % len(checks)]
        name, i = s.key, i + 1
        if s.style in ("int", "float"):
            out += [
                f"    if args.{name} is not None and args.{name} < 0:",
                f'        raise ValueError(f"{s.token} must not be negative, got {{args.{name}}}")',
            ]
        elif s.style == "choice":
            out += [
                f"    if args.{name} == {s.choices[-1]!r} and args.colocate:",
                f'        logger.warning("{s.token} {s.choices[-1]} under --colocate is slow")',
            ]
        else:
            out += [
                f"    if args.{name} is not None and not os.path.exists(args.{name}):",
                f'        raise FileNotFoundError(f"{s.token}: {{args.{name}}} does not exist")',
            ]
    out += ["    return args", ""]
    return "\n".join(out)


def _pr_edit(spec: FlagSpec) -> FlagSpec:
    if spec.token == RENAMED[0]:
        return FlagSpec(**{**spec.__dict__, "token": RENAMED[1]})
    if spec.token == CHANGED_DEFAULT[0]:
        return FlagSpec(**{**spec.__dict__, "default": int(CHANGED_DEFAULT[2])})
    return spec


FSDP_FIELDS = [
    ("Optim", "learning_rate", "float", "2e-05"),
    ("Optim", "min_learning_rate", "float", "0.0"),
    ("Optim", "warmup_fraction", "float", "0.03"),
    ("Optim", "decay_style", "str", '"cosine"'),
    ("Optim", "beta1", "float", "0.9"),
    ("Optim", "beta2", "float", "0.95"),
    ("Optim", "eps", "float", "1e-08"),
    ("Optim", "weight_decay", "float", "0.0"),
    ("Model", "attn_implementation", "str", '"flash_attention_2"'),
    ("Model", "trust_remote_code", "bool", "False"),
    ("Precision", "gradient_checkpointing", "bool", "False"),
    ("Precision", "bf16", "bool", "True"),
    ("Precision", "keep_fp32_master", "bool", "True"),
    ("Sharding", "fsdp_cpu_offload", "bool", "False"),
    ("Sharding", "fsdp_cpu_backend", "str | None", '"gloo"'),
    ("Sharding", "fsdp_state_dict_cpu_offload", "bool", "True"),
    ("Sharding", "dp_replicate_size", "int", "1"),
    ("Sharding", "reshard_after_forward", "bool", "True"),
    ("Profile", "record_memory_history", "bool", "False"),
    ("Profile", "memory_snapshot_path", "str", '"snapshot.pickle"'),
    ("Profile", "profile_step_start", "int", "10"),
    ("Profile", "profile_step_end", "int", "12"),
    ("Logging", "tracker_project", "str", '"forge-fsdp"'),
    ("Logging", "tracker_run_name", "str | None", "None"),
    ("Config", "config", "str | None", "None"),
]


FSDP_BUILDER = """

def build_fsdp_parser(extra_args_provider=None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser("FSDP training")
    parser.add_argument("--config", type=str, default=None, help="YAML config path")
    for f in dataclasses.fields(FSDPArgs):
        if f.name == "config":
            continue
        if hasattr(f.type, "__args__"):
            kinds = [t for t in f.type.__args__ if t is not type(None)]
            arg_type = kinds[0] if kinds else str
        else:
            arg_type = f.type
        if arg_type is bool:
            parser.add_argument(
                f"--{f.name.replace('_', '-')}",
                action=argparse.BooleanOptionalAction,
                default=f.default,
            )
        else:
            parser.add_argument(f"--{f.name.replace('_', '-')}", type=arg_type, default=f.default)
    if extra_args_provider is not None:
        parser = extra_args_provider(parser)
    return parser
"""


def fsdp_module() -> str:
    """FSDPArgs and the loop that turns its fields into flags."""
    out = ["import argparse", "import dataclasses", "from dataclasses import dataclass", "", "", "@dataclass"]
    out.append("class FSDPArgs:")
    section = None
    for sec, name, typ, default in FSDP_FIELDS:
        if sec != section:
            out += ([""] if section else []) + [f"    # {sec}"]
            section = sec
        out.append(f"    {name}: {typ} = {default}")
    return "\n".join(out) + "\n" + FSDP_BUILDER


PARALLEL = '''\
"""The FSDP device mesh: plain data parallel, optionally split into replicate x shard."""

from torch.distributed.device_mesh import init_device_mesh


def build_mesh(world_size: int, replicate: int):
    flat = init_device_mesh("cuda", mesh_shape=(world_size,), mesh_dim_names=("dp",))
    if replicate == 1:
        return flat
    shard = world_size // replicate
    if hasattr(flat, "_unflatten"):
        return flat._unflatten(0, (replicate, shard), ("dp_replicate", "dp_shard"))
    return init_device_mesh(
        "cuda",
        mesh_shape=(replicate, shard),
        mesh_dim_names=("dp_replicate", "dp_shard"),
    )
'''

FACTORY = f'''\
"""Which actor class a trainer rank runs, from --train-backend."""


def actor_class(args):
    backend = args.train_backend
    if backend == "megatron":
        from {PKG}.backends.megatron_utils.actor import MegatronTrainRayActor

        return MegatronTrainRayActor
    if backend == "fsdp":
        from {PKG}.backends.fsdp_utils.actor import FSDPTrainRayActor

        return FSDPTrainRayActor
    raise ValueError(f"unknown --train-backend {{backend!r}}")
'''

CONTRACT = ["init", "train", "update_weights", "save_model", "sleep", "wake_up"]


def actor_module(cls: str, base: str | None) -> str:
    head = f"class {cls}({base}):" if base else f"class {cls}:"
    out = [f'"""{cls}: one trainer rank."""', ""]
    if base:
        out += [f"from {PKG}.ray.train_actor import {base}", ""]
    out += ["", head]
    for m in CONTRACT:
        out += [f"    def {m}(self, *args, **kwargs):", f"        return self._call({m!r}, args, kwargs)", ""]
    out += ["    def _call(self, name, args, kwargs):", "        raise NotImplementedError(name)", ""]
    return "\n".join(out)


# Where the other Python files live, with how many each directory gets (in parts of 1,200).
LAYOUT = {
    f"{PKG}/utils": 150,
    f"{PKG}/rollout": 60,
    f"{PKG}/backends/fsdp_utils": 40,
    f"{PKG}/backends/megatron_utils": 45,
    f"{PKG}/backends/engine_utils": 30,
    f"{PKG}/ray": 30,
    f"{PKG}/router": 20,
    f"{PKG}/dashboard": 15,
    f"{PKG}_plugins/models": 50,
    "tests/fast": 330,
    "tests/e2e": 120,
    "tests/ci": 35,
    "scripts/models": 65,
    "examples/experimental": 60,
    "examples/recipes": 60,
    "tools": 90,
}
NAME_WORDS = _words(
    "alpha buffer cache config driver engine filter graph helper index loader mapper monitor "
    "packer parser planner pool queue reader registry runner sampler scheduler server sink source "
    "splitter store stream table tracker transform util validator worker writer"
)


def other_module(rng: random.Random, n_lines: int) -> str:
    """Plausible Python of about `n_lines` lines: imports, constants, functions and classes."""
    out = [
        f'"""{_help(rng, rng.randint(5, 14))}"""',
        "",
        "import logging",
        "import os",
        "from typing import Any",
        "",
    ]
    out += ["logger = logging.getLogger(__name__)", f"_LIMIT = {rng.randint(1, 4096)}", ""]
    n = 0
    while len(out) < n_lines:
        n += 1
        name = f"{rng.choice(NAME_WORDS)}_{rng.choice(NAME_WORDS)}_{n}"
        if rng.random() < 0.25:
            out += ["", f"class {name.title().replace('_', '')}:", f'    """{_help(rng, 8)}"""', ""]
            out += [
                "    def __init__(self, size: int = _LIMIT):",
                "        self.size = size",
                "        self.items: list[Any] = []",
                "",
            ]
            for k in range(rng.randint(1, 4)):
                out += [
                    f"    def step_{k}(self, value: Any) -> int:",
                    "        if value is None:",
                    "            return 0",
                    "        self.items.append(value)",
                    f"        logger.debug({_help(rng, 6)!r})",
                    "        return len(self.items) % self.size",
                    "",
                ]
        else:
            out += [
                "",
                f"def {name}(path: str, retries: int = 3) -> dict[str, Any]:",
                f'    """{_help(rng, 10)}"""',
            ]
            out += ["    result: dict[str, Any] = {}"]
            for k in range(rng.randint(2, 8)):
                out += [
                    f"    for attempt in range(retries + {k}):",
                    f'        key = f"{{path}}:{k}:{{attempt}}"',
                    "        if os.path.exists(key):",
                    "            result[key] = attempt",
                    "            break",
                ]
            out += ["    return result", ""]
    return "\n".join(out) + "\n"


def doc_page(specs: Sequence[FlagSpec], scale: Scale, rng: random.Random) -> tuple[str, int]:
    """The page and how many distinct flags it cites. Every claim in it is true at base."""
    by_group: dict[str, list[FlagSpec]] = {}
    for s in specs[5:]:
        by_group.setdefault(s.group, []).append(s)
    renamed = next(s for s in specs if s.token == RENAMED[0])
    changed = next(s for s in specs if s.token == CHANGED_DEFAULT[0])
    cited: set[str] = {
        "--train-backend",
        "--colocate",
        RENAMED[0],
        CHANGED_DEFAULT[0],
        "--offload-train-target",
    }
    fsdp_flags = [
        "--gradient-checkpointing",
        "--fsdp-cpu-offload",
        "--fsdp-cpu-backend",
        "--dp-replicate-size",
    ]
    fsdp_flags += ["--attn-implementation", "--keep-fp32-master", "--no-keep-fp32-master", "--learning-rate"]
    cited.update(fsdp_flags)

    def prose(n: int) -> list[str]:
        return textwrap.wrap(" ".join(_help(rng, rng.randint(8, 20)) for _ in range(n)), 92)

    out = [
        "---",
        "title: Training Backends",
        "description: The contract both training backends implement, and how to configure each.",
        "---",
        "A training backend is one class: a `TrainRayActor` subclass that owns the model on the GPU.",
        f"`--train-backend` decides which one `{FACTORY_PATH}` instantiates on every rank.",
        "",
        "| Value | Class | What it is | Default |",
        "|---|---|---|---|",
        "| `megatron` | `MegatronTrainRayActor` | Megatron-LM with five parallel dimensions | ✅ |",
        "| `fsdp` | `FSDPTrainRayActor` | The HuggingFace model under PyTorch FSDP2 | |",
        "",
        "| Method | What the backend has to do |",
        "|---|---|",
    ]
    out += [f"| `{m}` | {_help(rng, 9)} |" for m in CONTRACT]
    out += ["", *prose(4), "", "Under `--colocate` the trainer and the engines share GPUs.", ""]
    out += ["## Generation", "", *prose(2)]
    out += [
        f"`{renamed.token}` caps the response length (default `{renamed.default}`), and "
        f"`{changed.token}` sets how many prompts each step samples.",
        "",
        "| Flag | What it does | Default |",
        "|---|---|---|",
        f"| `{renamed.token}` | {renamed.help} | `{renamed.default}` |",
        f"| `{changed.token}` | {changed.help} | `{changed.default}` |",
        "",
        "```bash",
        "python train.py \\",
        "    --train-backend megatron \\",
        f"    {renamed.token} 16384 \\",
        f"    {changed.token} 64 \\",
        "    --colocate",
        "```",
        "",
    ]
    groups = [g for g in by_group if g != "generation"]
    per_group = max(2, math.ceil((scale.doc_flags - len(cited)) / max(1, len(groups) - 8)))
    for group in groups:
        if len(cited) >= scale.doc_flags:
            break
        members = [s for s in by_group[group] if s.token not in cited][:per_group]
        if not members:
            continue
        cited.update(s.token for s in members)
        out += [f"## {group.title()}", "", *prose(rng.randint(2, 4)), ""]
        first = members[0]
        if first.doc_default is not None:
            out += [f"Set `{first.token}` to change this (default `{first.doc_default}`).", ""]
        else:
            out += [f"`{first.token}` turns this on for the whole job.", ""]
        out += ["| Flag | What it does | Default |", "|---|---|---|"]
        for s in members:
            cell = f"`{s.doc_default}`" if s.doc_default is not None else ""
            out.append(f"| `{s.token}` | {s.help} | {cell} |")
        out += ["", *prose(rng.randint(2, 5)), "", "```bash", "python train.py \\"]
        for s in members:
            if s.style in ("store_true", "store_false", "boolopt"):
                out.append(f"    {s.token} \\")
            elif s.style == "choice":
                out.append(f"    {s.token} {s.choices[-1]} \\")
            elif s.style in ("str", "list"):
                out.append(f"    {s.token} /data/{group} \\")
            else:
                out.append(f"    {s.token} {s.default} \\")
        out += ["    --train-backend fsdp", "```", ""]
    out += [
        "## FSDP",
        "",
        "### Sharding",
        "",
        f"`{PARALLEL_PATH}` builds a mesh with two dimensions:",
        "",
        "| Dimension | How you set it |",
        "|---|---|",
        "| `dp_replicate` | `--dp-replicate-size` |",
        "| `dp_shard` | derived |",
        "",
        "| Flag | Effect |",
        "|---|---|",
        "| `--gradient-checkpointing` | Recompute activations. |",
        "| `--fsdp-cpu-offload` | Offload parameters and optimizer state to CPU. |",
        "| `--fsdp-cpu-backend gloo` | CPU process-group backend used by the offload path. |",
        "| `--offload-train-target disk` | Megatron only: stream optimizer state to disk. |",
        "",
        "### Precision",
        "",
        "- An fp32 master copy of the weights is kept by default. `--no-keep-fp32-master` trades it",
        "  for memory when you do not need bit-exact weight sync (`--keep-fp32-master` is the default).",
        "- `--attn-implementation` picks the attention backend: `flash_attention_2` by default.",
        "- `--learning-rate` is the peak rate of the schedule.",
        "",
    ]
    while len(out) < scale.doc_lines:
        out += ["### Notes" if rng.random() < 0.2 else "", *prose(rng.randint(3, 6)), ""]
    return "\n".join(out) + "\n", len(cited)


RULES = f"""\
pack: forge
description: {DOC_PATH} against the code it describes
rules:
  - id: training-backend-page
    docs:
      - path: {DOC_PATH}
    sources:
      - id: fsdp-args
        kind: dataclass-flags
        path: {FSDP_ARGS_PATH}
        dataclass: FSDPArgs
        builder: build_fsdp_parser
      - id: trainer-args
        kind: argparse
        path: {ARGS_PATH}
        calls: [add_argument, reset_arg]
      - id: fsdp-mesh
        kind: strings
        path: {PARALLEL_PATH}
        calls: [init_device_mesh, _unflatten]
        keyword: mesh_dim_names
        position: 2
        group: fsdp mesh dimensions
        enumerated: true
      - id: train-backends
        kind: strings
        path: {FACTORY_PATH}
        compared_with: [args.train_backend, backend]
        group: train backends
        enumerated: true
      - id: backend-contract
        kind: symbols
        paths: [{TRAIN_ACTOR_PATH}, {FSDP_ACTOR_PATH}, {MEGATRON_ACTOR_PATH}]
        names: [TrainRayActor, FSDPTrainRayActor, MegatronTrainRayActor, {", ".join(CONTRACT)}]
      - id: cited-paths
        kind: paths
    external: ["*<*>*", "/*"]
    severity:
      new-flag: notice
      undocumented: warning
    fail_on: error
"""


@dataclass(frozen=True)
class Generated:
    repo: Path
    base: str
    head: str
    rules: Path
    files: int
    args_lines: int
    flags: int
    doc_lines: int
    doc_flags: int
    touched: int

    def check_args(self) -> list[str]:
        return [
            "check",
            "--repo",
            str(self.repo),
            "--base",
            self.base,
            "--head",
            self.head,
            "--rules",
            str(self.rules),
        ]


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "Bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
    }
    proc = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True
    )
    return proc.stdout.strip()


def _write(repo: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def generate(root: Path, scale: Scale, seed: int = 2384) -> Generated:
    """A miles-size repository at root/repo with a base commit on `main` and a PR head on `pr`."""
    rng = random.Random(seed)
    repo = root / "repo"
    repo.mkdir(parents=True)
    specs = _flag_specs(rng, scale.flags)
    assert difflib.SequenceMatcher(None, *RENAMED).ratio() > 0.75  # the check can pair them
    args_base = argparse_module(specs, scale.lines, random.Random(seed + 1), head=False)
    args_head = argparse_module(specs, scale.lines, random.Random(seed + 1), head=True)
    doc, doc_flags = doc_page(specs, scale, rng)
    files: dict[str, str] = {
        ARGS_PATH: args_base,
        FSDP_ARGS_PATH: fsdp_module(),
        PARALLEL_PATH: PARALLEL,
        FACTORY_PATH: FACTORY,
        TRAIN_ACTOR_PATH: actor_module("TrainRayActor", None),
        FSDP_ACTOR_PATH: actor_module("FSDPTrainRayActor", "TrainRayActor"),
        MEGATRON_ACTOR_PATH: actor_module("MegatronTrainRayActor", "TrainRayActor"),
        DOC_PATH: doc,
    }
    total = sum(LAYOUT.values())
    others: list[str] = []
    for directory, share in LAYOUT.items():
        count = max(1, round(scale.other_files * share / total))
        files.setdefault(f"{directory}/__init__.py", "")
        names: set[str] = set()
        while len(names) < count:
            names.add(f"{rng.choice(NAME_WORDS)}_{rng.choice(NAME_WORDS)}.py")
        for name in sorted(names):
            path = f"{directory}/{name}"
            if path in files:
                continue
            files[path] = other_module(rng, rng.randint(50, 300))
            others.append(path)
    # Besides Python: other doc pages, configs and scripts, as a real tree has.
    for i in range(max(3, scale.other_files // 30)):
        files[f"docs/guide/page_{i}.md"] = (
            f"# Page {i}\n\n" + "\n".join(textwrap.wrap(_help(rng, 120), 92)) + "\n"
        )
        files[f"configs/run_{i}.yaml"] = f"gen_batch_size: {rng.randint(1, 64)}\nseed: {i}\n"
        files[f"scripts/run_{i}.sh"] = f"#!/bin/bash\npython train.py --seed {i}\n"
    _write(repo, files)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Trainer, backends and the training-backend page")
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-q", "-b", "pr")
    touched = rng.sample(others, min(scale.touched, len(others)))
    edits = {ARGS_PATH: args_head}
    for path in touched:
        text = files[path]
        edits[path] = (
            text.replace("_LIMIT = ", "_LIMIT = 2 * ", 1)
            + "\n\ndef added_in_pr() -> int:\n    return _LIMIT\n"
        )
    _write(repo, edits)
    _git(
        repo,
        "commit",
        "-q",
        "-am",
        f"Rename {RENAMED[0]}, raise the {CHANGED_DEFAULT[0]} default, tidy modules",
    )
    head = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-q", "main")
    rules = root / "rules" / "forge.yml"
    rules.parent.mkdir()
    rules.write_text(RULES)
    return Generated(
        repo=repo,
        base=base,
        head=head,
        rules=rules,
        files=len(files),
        args_lines=args_base.count("\n") + 1,
        flags=sum(1 for n in ast.walk(ast.parse(args_base)) if _is_declaring_call(n)),
        doc_lines=doc.count("\n"),
        doc_flags=doc_flags,
        touched=len(touched),
    )


def _is_declaring_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_argument"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "group"
    )


# ---------------------------------------------------------------------------------------------
# Measuring


@dataclass
class Row:
    name: str
    times: list[float]
    baseline: str | None = None  # name of the row this one is a ratio of
    target: float | None = None
    rss_kb: int | None = None
    note: str = ""
    ratio_target: float | None = None  # a target on the ratio to the baseline row, not on seconds

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def p90(self) -> float:
        ordered = sorted(self.times)  # nearest rank: with 7 runs the p90 is the slowest
        return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def timed(fn: Callable[[], object], reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


@dataclass(frozen=True)
class ProcessRun:
    seconds: float
    returncode: int
    output: str


def run_process(cmd: Sequence[str], env: dict[str, str] | None = None) -> ProcessRun:
    """Wall time of a whole process, from spawn to exit."""
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=ROOT, check=False
    )
    seconds = time.perf_counter() - start
    return ProcessRun(seconds, proc.returncode, proc.stdout.decode(errors="replace"))


# A forked child's ru_maxrss starts at its parent's RSS, so a process spawned by this (large)
# script would report this script's size. A small fresh interpreter spawns it instead and
# prints its peak; the floor is that launcher's own few MB.
RSS_LAUNCHER = (
    "import os, subprocess, sys\n"
    "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(os.wait4(p.pid, 0)[2].ru_maxrss)\n"
)


def peak_rss_kb(cmd: Sequence[str], env: dict[str, str] | None = None) -> int:
    out = run_process([sys.executable, "-S", "-c", RSS_LAUNCHER, *cmd], env).output
    return int(out.split()[-1])


def child_env(pycache: Path, **extra: str) -> dict[str, str]:
    """The environment of a measured process: bytecode cached (in `pycache`) as an installed
    package has it, whatever PYTHONDONTWRITEBYTECODE this shell sets."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(pycache), "NO_COLOR": "1", **extra}


CONSOLE_SCRIPT = "from bot.cli import run; run()"
IMPORTS = "import bot.cli, bot.core.check, bot.trees.factcache, bot.trees.git, bot.core.rules, bot.render"


class Cli:
    """`docs-sync` as a process of this checkout, with its facts cache wherever the caller says."""

    def __init__(self, scratch: Path):
        self.scratch = scratch
        self.pycache = scratch / "pycache"
        self._n = 0
        self.warm_cache = scratch  # the cache the last cold_and_warm's warm runs read
        run_process([sys.executable, "-c", IMPORTS], child_env(self.pycache))  # fills the bytecode cache

    def fresh_cache(self) -> Path:
        self._n += 1
        path = self.scratch / f"cache-{self._n}"
        path.mkdir()
        return path

    def command(self, args: Sequence[str]) -> list[str]:
        # What the `docs-sync` console script runs. Not `-m bot.cli`: runpy compiles the main
        # module from source on every start, which no installed command does.
        return [sys.executable, "-c", CONSOLE_SCRIPT, *args]

    def run(self, args: Sequence[str], cache: Path) -> ProcessRun:
        result = run_process(self.command(args), child_env(self.pycache, DOCS_SYNC_CACHE=str(cache)))
        if result.returncode not in (0, 1):  # 1 is "findings block the merge"; 2 is a broken run
            raise SystemExit(f"docs-sync {' '.join(args)} exited {result.returncode}:\n{result.output}")
        return result

    def facts_only(self, args: Sequence[str], cache: Path, reps: int) -> list[float]:
        """The warm check as a change the cache has not seen costs: its facts cached, its report
        not (a check of the same commits answers from the report it kept)."""
        times = []
        for _ in range(reps):
            drop_reports(cache)
            times.append(self.run(args, cache).seconds)
        return times

    def peak_rss_kb(self, args: Sequence[str], cache: Path) -> int:
        return peak_rss_kb(self.command(args), child_env(self.pycache, DOCS_SYNC_CACHE=str(cache)))

    def cold_and_warm(self, name: str, args: Sequence[str], reps: int, baseline: str) -> tuple[Row, Row, str]:
        cold, cache, output = [], self.scratch, ""
        for _ in range(reps):
            cache = self.fresh_cache()
            r = self.run(args, cache)
            cold.append(r.seconds)
            output = r.output
        warm = [self.run(args, cache).seconds for _ in range(reps)]  # the cache the last cold run filled
        self.warm_cache = cache
        cold_rss = self.peak_rss_kb(args, self.fresh_cache())
        warm_rss = self.peak_rss_kb(args, cache)
        return (
            Row(f"{name}, cold (process)", cold, baseline, TARGET_COLD, cold_rss),
            Row(f"{name}, warm (process)", warm, baseline, TARGET_WARM, warm_rss),
            output,
        )


def drop_reports(cache: Path) -> None:
    """Forget the reports `check` and `audit` kept in a facts cache (keys `<format>:<code>:check:...`),
    keeping every fact."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(cache / "facts.sqlite")) as db:
        db.execute("DELETE FROM facts WHERE key LIKE '%:check:%' OR key LIKE '%:audit:%'")
        db.commit()


def git_diff_row(name: str, repo: Path, base: str, head: str, reps: int) -> Row:
    times = [
        run_process(["git", "-C", str(repo), "diff", "--name-status", base, head]).seconds
        for _ in range(reps)
    ]
    return Row(name, times)


def in_process_check(gen: Generated, rules, cache_dir: Path):
    """What `docs-sync check` does after startup; returns (seconds in bot.core.check.check, report)."""
    from bot.core.check import check
    from bot.trees.factcache import FactsCache
    from bot.trees.git import GitRepo

    with GitRepo(gen.repo) as repo:
        head_sha = repo.resolve(gen.head)
        base_sha = repo.merge_base(repo.resolve(gen.base), head_sha)
        changes = repo.changes(base_sha, head_sha)
        base, head = repo.tree(base_sha), repo.tree(head_sha)
        cache = FactsCache(cache_dir / "facts.sqlite")
        with small_heap():
            start = time.perf_counter()
            report = check(rules, base, head, changes, cache=cache)
            seconds = time.perf_counter() - start
        cache.close()
    return seconds, report


@contextlib.contextmanager
def small_heap() -> Iterator[None]:
    """Keep this script's own objects out of the cyclic GC while timing: a docs-sync process has a
    small heap, and collections over this one's would be charged to the check."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def libcst_parse() -> Callable[[str], object] | None:
    try:
        import libcst
        from libcst.metadata import MetadataWrapper, PositionProvider
    except ImportError:
        return None

    def parse(text: str) -> object:
        return MetadataWrapper(libcst.parse_module(text)).resolve(PositionProvider)

    return parse


# ---------------------------------------------------------------------------------------------
# Profiling


def import_costs(pycache: Path) -> list[tuple[str, float]]:
    """Self import time per top-level package of a fresh `docs-sync check` process, in seconds."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", IMPORTS],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_env(pycache),
        check=True,
    )
    totals: Counter[str] = Counter()
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if m:
            name = m.group(2)
            totals[name if name.startswith("bot.") else name.split(".")[0]] += int(m.group(1))
    return [(name, us / 1e6) for name, us in totals.most_common()]


# (label, where, function name): the stages worth naming in a profile. "bot/" matches any module
# of the package, so a function that moves between modules is still found.
STAGES = [
    ("bot.cli.main (whole run)", "bot/cli.py", "main"),
    ("rules: cached lookup or load", "bot/", "_load_rules"),
    ("rules: yaml load and validation", "bot/", "resolve_rule_args"),
    ("git: subprocess.run calls", "bot/", "_git"),
    ("git: cat-file reads", "bot/", "read_blob"),
    ("git: ls-tree listing", "bot/", "_listing"),
    ("gather (facts of a revision)", "bot/", "gather"),
    ("extract (ast.parse + extractor)", "bot/", "extract"),
    ("facts cache read (sqlite + pickle)", "bot/cache.py", "__getitem__"),
    ("facts cache write", "bot/cache.py", "__setitem__"),
    ("facts cache open", "bot/cache.py", "__init__"),
    ("parse_doc (markdown-it)", "bot/doc.py", "parse_doc"),
    ("line diff opcodes (SequenceMatcher)", "bot/linediff.py", "_opcodes"),
    ("check: _deltas", "bot/", "_deltas"),
    ("check: _code_to_doc", "bot/", "_code_to_doc"),
    ("check: _undocumented", "bot/", "_undocumented"),
    ("check: _doc_to_code", "bot/", "_doc_to_code"),
    ("check: _resolve_path", "bot/", "_resolve_path"),
    ("difflib.get_close_matches", "difflib.py", "get_close_matches"),
    ("report: to_text", "bot/", "to_text"),
]


def _matches(file: str, where: str) -> bool:
    return f"/{where}" in file if where.endswith("/") else file.endswith(where)


def profile_cli(args: Sequence[str], cache: Path) -> pstats.Stats:
    from bot.cli import main

    os.environ["DOCS_SYNC_CACHE"] = str(cache)
    prof = cProfile.Profile()
    with contextlib.redirect_stdout(io.StringIO()), small_heap():
        prof.enable()
        main(list(args))
        prof.disable()
    return pstats.Stats(prof)


def print_profile(title: str, stats: pstats.Stats, top: int = 12) -> None:
    raw = stats.stats  # type: ignore[attr-defined]
    print(f"\n{title}")
    popen = sum(v[1] for (_f, _l, fn), v in raw.items() if "fork_exec" in fn)
    print(f"  processes started: {popen}")
    print(f"  {'stage':<40} {'calls':>7} {'cumulative':>11}")
    for label, where, func in STAGES:
        hits = [v for (f, _l, fn), v in raw.items() if _matches(f, where) and fn == func]
        if hits:
            calls = sum(h[1] for h in hits)
            cum = max(h[3] for h in hits)
            print(f"  {label:<40} {calls:>7} {cum * 1000:>9.1f}ms")
    print(f"  top {top} by own time:")
    rows = sorted(raw.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    for (f, line, fn), (_cc, nc, tt, ct, _callers) in rows:
        where = f"{_short(f)}:{line}({fn})" if line else fn
        print(f"    {tt * 1000:8.1f}ms own {ct * 1000:8.1f}ms cum {nc:>8} calls  {where}")


def _short(path: str) -> str:
    for marker in ("/bot/", "/lib/python"):
        if marker in path:
            return path[path.index(marker) + 1 :]
    return path


# ---------------------------------------------------------------------------------------------
# Output


def print_table(rows: Sequence[Row]) -> None:
    by_name = {r.name: r for r in rows}
    print(f"{'measurement':<52} {'median':>9} {'p90':>9} {'ratio':>18} {'target':>8} {'':4} {'peak RSS':>9}")
    for r in rows:
        base = by_name.get(r.baseline) if r.baseline else None
        ratio = f"{r.median / base.median:.2f}x {_short_name(base.name)}" if base and base.median else ""
        target = f"< {r.target:g} s" if r.target else ""
        verdict = "" if r.target is None else ("ok" if r.median < r.target else "MISS")
        if r.ratio_target is not None and base is not None and base.median:
            target = f"<= {r.ratio_target:g}x"
            verdict = "ok" if r.median <= r.ratio_target * base.median else "MISS"
        rss = f"{r.rss_kb / 1024:.0f} MB" if r.rss_kb else ""
        print(
            f"{r.name:<52} {_fmt(r.median):>9} {_fmt(r.p90):>9} {ratio:>18} {target:>8} {verdict:4} {rss:>9}"
        )
        if r.note:
            print(f"{'':<4}{r.note}")


def _short_name(name: str) -> str:
    return "git diff" if name.startswith("git diff") else name.split(" (")[0]


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f}ms" if seconds < 1 else f"{seconds:.2f}s"


def summarize(report) -> str:
    kinds = Counter(f.kind for f in report.findings)
    return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "no findings"


def measure_processes(gen: Generated, cli: Cli, reps: int) -> tuple[list[Row], str]:
    """Rows 1-3: git diff, interpreter and import costs for scale, and docs-sync check cold/warm,
    the warm check against a process that only parses the argparse module, and the hook."""
    baseline = git_diff_row("git diff --name-status (baseline)", gen.repo, gen.base, gen.head, reps)
    rows = [baseline]
    for flags, name in (([], "python -c pass"), (["-S"], "python -S -c pass (no site, no .pth hooks)")):
        startup = [run_process([sys.executable, *flags, "-c", "pass"]).seconds for _ in range(reps)]
        rows.append(Row(name, startup, baseline.name))
    ast_process = ast_parse_row(
        "python: ast.parse of the argparse module (process)", gen.repo, gen.head, ARGS_PATH, cli, reps
    )
    ast_process.baseline = baseline.name
    rows.append(ast_process)
    env = child_env(cli.pycache)
    imported = [run_process([sys.executable, "-c", IMPORTS], env).seconds for _ in range(reps)]
    rows.append(Row("python + docs-sync imports", imported, baseline.name))
    if not (ROOT / "bot" / "__pycache__").exists():
        # How a shell with PYTHONDONTWRITEBYTECODE runs it: bot/ compiled on every start.
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("PYTHONPYCACHEPREFIX", None)
        compiled = [run_process([sys.executable, "-c", IMPORTS], env).seconds for _ in range(reps)]
        rows.append(Row("the same, bot/ compiled from source (no .pyc)", compiled, baseline.name))
    cold, warm, output = cli.cold_and_warm("docs-sync check", gen.check_args(), reps, baseline.name)
    to_ast = Row("docs-sync check, warm, against ast.parse", warm.times, ast_process.name)
    to_ast.ratio_target = TARGET_WARM_TO_AST
    # The same cache less the report the warm runs answered from: what a new change of the same
    # files costs (no target: the is the warm run's).
    facts_only = Row(
        "docs-sync check, facts cached, report not (against ast.parse)",
        cli.facts_only(gen.check_args(), cli.warm_cache, reps),
        ast_process.name,
    )
    hook_cold, hook_warm, _ = cli.cold_and_warm(
        f"pre-commit hook, {HOOK_FILES}-file repository", hook_args(cli.scratch), reps, baseline.name
    )
    hook_cold.target, hook_warm.target = None, TARGET_HOOK
    return rows + [cold, warm, to_ast, facts_only, hook_cold, hook_warm], output


def ast_parse_row(name: str, repo: Path, rev: str, path: str, cli: Cli, reps: int) -> Row:
    """A process that reads `path` as `rev` has it and only runs `ast.parse` on it: the floor of
    any check that reads that module."""
    copy = cli.scratch / f"parsed-{len(list(cli.scratch.glob('parsed-*')))}.py"
    copy.write_text(_git(repo, "show", f"{rev}:{path}") + "\n")
    parse_only = [sys.executable, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", str(copy)]
    return Row(name, [run_process(parse_only).seconds for _ in range(reps)])


def hook_args(scratch: Path) -> list[str]:
    """A small repository of its own (a CLI module, four pages, 45 other modules, its config) with a
    commit being made, staged: the command pre-commit runs (`check --base HEAD --worktree`)."""
    repo = scratch / "hook-repo"
    if not repo.exists():
        rng = random.Random(50)
        specs = _flag_specs(rng, 12)
        files = {"tool/cli.py": argparse_module(specs, 120, random.Random(51), head=False)}
        for i in range(4):
            cited = " ".join(f"`{s.token}`" for s in specs[i * 3 : i * 3 + 3])
            files[f"docs/page{i}.md"] = f"# Page {i}\n\n## Flags\n\nRun with {cited}.\n"
        for i in range(HOOK_FILES - len(files) - 1):
            files[f"tool/mod{i:02d}.py"] = other_module(rng, 40)
        files[".github/docs-sync.yml"] = textwrap.dedent(
            """\
            rules:
              - id: cli-docs
                docs: [{path: "docs/*.md"}]
                sources: [{id: cli, kind: argparse, path: tool/cli.py}]
            """
        )
        _git(scratch, "init", "-q", "-b", "main", str(repo))
        _write(repo, files)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "start")
        (repo / "tool" / "mod00.py").write_text(files["tool/mod00.py"] + "\nVALUE = 1\n")
        _git(repo, "add", "-A")
    return ["check", "--repo", str(repo), "--base", "HEAD", "--worktree"]


def measure_in_process(gen: Generated, cli: Cli, rules, reps: int, baseline: str):
    """Row 4: bot.core.check.check cold and warm; returns the rows, the warm cache and the last report."""
    cold, cache_dir, report = [], cli.scratch, None
    for _ in range(reps):
        cache_dir = cli.fresh_cache()
        seconds, report = in_process_check(gen, rules, cache_dir)
        cold.append(seconds)
    warm = [in_process_check(gen, rules, cache_dir)[0] for _ in range(reps)]
    rows = [
        Row("bot.core.check.check in-process, cold", cold, baseline),
        Row("bot.core.check.check in-process, warm", warm, baseline),
    ]
    return rows, cache_dir, report


def measure_parts(gen: Generated, rules, cache_dir: Path, reps: int) -> list[Row]:
    """Row 5 and the other parts of a check, on the documented files as the PR head has them."""
    from bot.core.extract import extract
    from bot.core.linediff import line_diff
    from bot.core.packs import load_pack
    from bot.core.page import parse_doc
    from bot.trees.factcache import FactsCache

    text = {
        p: _git(gen.repo, "show", f"{gen.head}:{p}") + "\n" for p in (ARGS_PATH, DOC_PATH, FSDP_ARGS_PATH)
    }
    base_args = _git(gen.repo, "show", f"{gen.base}:{ARGS_PATH}") + "\n"
    flags = next(s for s in rules[0].sources if s.kind == "argparse")
    fields = next(s for s in rules[0].sources if s.kind == "dataclass-flags")
    args_text = text[ARGS_PATH]
    n = max(reps, 5)
    ast_row = Row(f"ast.parse ({gen.args_lines}-line module)", timed(lambda: ast.parse(args_text), n))
    rows = [
        ast_row,
        Row(
            "extract(argparse source) of that module", timed(lambda: extract(flags, ARGS_PATH, args_text), n)
        ),
    ]
    cst = libcst_parse()
    if cst is None:
        rows.append(Row("libcst parse + PositionProvider", [float("nan")], note="(libcst is not installed)"))
    else:
        rows.append(
            Row("libcst parse + PositionProvider, same module", timed(lambda: cst(args_text), min(n, 3)))
        )
    facts = FactsCache(cache_dir / "facts.sqlite")
    key = next(k for k in facts if ARGS_PATH in k)
    rows += [
        Row(
            "extract(dataclass-flags) of the FSDP module",
            timed(lambda: extract(fields, FSDP_ARGS_PATH, text[FSDP_ARGS_PATH]), n),
        ),
        Row(f"parse_doc ({gen.doc_lines}-line page)", timed(lambda: parse_doc(DOC_PATH, text[DOC_PATH]), n)),
        Row(
            "line_diff of the argparse module, base -> head",
            timed(lambda: line_diff(base_args, args_text).changed_head_lines, n),
        ),
        Row("load the rules file (yaml)", timed(lambda: load_pack(gen.rules), n)),
        Row("cache read of the argparse module's facts", timed(lambda: facts[key], n)),
    ]
    facts.close()
    for row in rows[1:]:
        row.baseline = ast_row.name
    return rows


# PR 2384 merged before miles had its Training Backends page; like bench/replay.py, the page is
# laid over both sides of the pull request as it read before (the flag the PR renamed put back).
MILES_PAGE = "docs/user-guide/training-backend.md"
MILES_ARGS = "miles/utils/arguments.py"  # its largest argparse module: the ast.parse floor
MILES_PAGE_EDIT = ("--no-keep-fp32-master", "--disable-fp32-master")
MILES_ALL_DOCS = ROOT / "bench" / "rules" / "miles-docs.yml"  # every page under docs/, with globs
TARGET_ALL_DOCS_RATIO = 1.5  # warm check with the all-docs rules file / with the one-page pack
TARGET_ALL_DOCS_AUDIT = 0.5  # warm audit of every page, whole process


def miles_replay(miles: Path, scratch: Path) -> tuple[Path, str, str]:
    """A repository sharing the mirror's objects, holding PR 2384 replayed on commits that carry the
    Training Backends page: base' = the PR's base + the page, head' = the PR's head + the page.
    Nothing is checked out; returns (repository, base', head')."""
    repo = scratch / "miles-replay.git"
    if not repo.exists():
        subprocess.run(["git", "clone", "-q", "--bare", "--shared", str(miles), str(repo)], check=True)
    page = subprocess.run(
        ["git", "-C", str(miles), "show", f"HEAD:{MILES_PAGE}"], capture_output=True, text=True, check=True
    ).stdout.replace(*MILES_PAGE_EDIT)
    blob = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
        input=page,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    commits: list[str] = []
    for rev in (f"{MILES_HEAD}^", MILES_HEAD):
        index = scratch / "miles-replay.index"
        env = {"GIT_INDEX_FILE": str(index)}
        _git_env(repo, env, "read-tree", rev)
        _git_env(repo, env, "update-index", "--add", "--cacheinfo", f"100644,{blob},{MILES_PAGE}")
        tree = _git_env(repo, env, "write-tree")
        parent = commits[-1] if commits else _git(repo, "rev-parse", rev)
        message = f"{rev} with {MILES_PAGE} as it read before PR 2384"
        commits.append(_git(repo, "commit-tree", tree, "-p", parent, "-m", message))
        index.unlink()
    return repo, commits[0], commits[1]


def _git_env(repo: Path, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env={**os.environ, **env}, check=True
    )
    return proc.stdout.strip()


def miles_args(repo: Path, base: str, head: str) -> dict[str, list[str]]:
    check = ["check", "--repo", str(repo), "--base", base, "--head", head]
    return {
        "check": [*check, "--rules", "miles"],
        "check-all-docs": [*check, "--rules", str(MILES_ALL_DOCS)],
        "audit": ["audit", "--repo", str(repo), "--rev", head, "--rules", "miles"],
        "audit-all-docs": ["audit", "--repo", str(repo), "--rev", head, "--rules", str(MILES_ALL_DOCS)],
    }


def measure_miles(miles: Path, cli: Cli, reps: int) -> tuple[list[Row], list[str]]:
    repo, base, head = miles_replay(miles, cli.scratch)
    baseline = git_diff_row(f"git diff --name-status, miles {MILES_HEAD}", repo, base, head, reps)
    args = miles_args(repo, base, head)
    c_cold, c_warm, c_out = cli.cold_and_warm(
        "miles: check, one-page pack", args["check"], reps, baseline.name
    )
    d_cold, d_warm, d_out = cli.cold_and_warm(
        "miles: check, all-docs rules", args["check-all-docs"], reps, baseline.name
    )
    d_warm.baseline, d_warm.target, d_warm.ratio_target = c_warm.name, None, TARGET_ALL_DOCS_RATIO
    name = f"miles: ast.parse of {MILES_ARGS.removeprefix('miles/')} (process)"
    ast_row = ast_parse_row(name, repo, head, MILES_ARGS, cli, reps)
    to_ast = Row("miles: check, one-page pack, warm, against ast.parse", c_warm.times, ast_row.name)
    to_ast.ratio_target = TARGET_WARM_TO_AST
    a_cold, a_warm, a_out = cli.cold_and_warm(
        "miles: audit, one-page pack", args["audit"], reps, baseline.name
    )
    p_cold, p_warm, p_out = cli.cold_and_warm(
        "miles: audit, all-docs rules", args["audit-all-docs"], reps, baseline.name
    )
    p_warm.target = TARGET_ALL_DOCS_AUDIT
    pages = len(
        [p for p in _git(repo, "ls-tree", "-r", "--name-only", head, "docs").split() if p.endswith(".md")]
    )
    said = [
        f"miles check, one-page pack: {_first_line(c_out)}",
        f"miles check, all-docs rules ({pages} pages): {_first_line(d_out)}",
        f"miles audit, one-page pack: {_first_line(a_out)}",
        f"miles audit, all-docs rules ({pages} pages): {_first_line(p_out)}",
    ]
    return [baseline, c_cold, c_warm, ast_row, to_ast, d_cold, d_warm, a_cold, a_warm, p_cold, p_warm], said


def print_profiles(gen: Generated, cli: Cli, miles: Path | None) -> None:
    costs = import_costs(cli.pycache)
    total = sum(seconds for _, seconds in costs)
    print(f"\nImport cost of a fresh process, with .pyc: {total * 1000:.0f}ms in all; the largest:")
    for pkg, seconds in costs[:15]:
        print(f"  {pkg:<32} {seconds * 1000:7.1f}ms")
    runs = [("the generated PR's check", gen.check_args())]
    if miles is not None:
        args = miles_args(*miles_replay(miles, cli.scratch))
        runs += [
            ("the miles check, one-page pack", args["check"]),
            ("the miles check, all-docs rules", args["check-all-docs"]),
            ("the miles audit, all-docs rules", args["audit-all-docs"]),
        ]
    print("\n(cProfile of bot.cli.main in this process: imports are done, and profiling inflates")
    print("Python-heavy stages two to four times; read the shares, not the absolute times.)")
    for title, args in runs:
        cache = cli.fresh_cache()
        print_profile(f"cProfile of {title}, cold cache:", profile_cli(args, cache))
        print_profile(f"cProfile of {title}, warm cache (filled by the cold run):", profile_cli(args, cache))


def _first_line(output: str) -> str:
    return output.strip().splitlines()[0] if output.strip() else "(no output)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reps", type=int, help="repetitions of each measurement (default 7; 1 with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="a small repository and one repetition")
    parser.add_argument("--profile", action="store_true", help="also print import costs and cProfile stages")
    parser.add_argument(
        "--miles", metavar="PATH", help="also time the miles pack on a miles checkout or mirror"
    )
    parser.add_argument("--keep", metavar="DIR", help="build everything in DIR and leave it there")
    args = parser.parse_args(argv)
    scale = QUICK if args.quick else FULL
    reps = args.reps or scale.reps
    miles = Path(args.miles) if args.miles else None

    from bot.core.packs import load_pack

    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="docs-sync-bench-"))
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        gen = generate(scratch, scale)
        print(
            f"Repository {gen.repo} ({time.perf_counter() - start:.1f}s to build): {gen.files} files; "
            f"{ARGS_PATH} has {gen.args_lines} lines and {gen.flags} add_argument calls; {DOC_PATH} has "
            f"{gen.doc_lines} lines citing {gen.doc_flags} flags. The PR renames {RENAMED[0]}, changes the "
            f"default of {CHANGED_DEFAULT[0]} and touches {gen.touched} other files. {reps} repetition(s); "
            f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}."
        )
        cli = Cli(scratch)
        rules = list(load_pack(gen.rules).rules)
        rows, output = measure_processes(gen, cli, reps)
        in_rows, warm_cache, report = measure_in_process(gen, cli, rules, reps, rows[0].name)
        rows += in_rows + measure_parts(gen, rules, warm_cache, reps)
        said = []
        if miles is not None:
            miles_rows, said = measure_miles(miles, cli, reps)
            rows += miles_rows
        print()
        print_table(rows)
        print()
        print(f"check of the generated PR: {summarize(report)} (the process said: {_first_line(output)})")
        for line in said:
            print(line)
        if args.profile:
            print_profiles(gen, cli, miles)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
