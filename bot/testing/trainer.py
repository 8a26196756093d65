"""The demo's trainer repository: one base commit and one pull request branch, built with git.

The repository imitates the shape of radixark/miles: a dataclass whose fields become CLI flags
through a builder loop, an argparse module, a device mesh, a backend factory, and a doc page
written line by line against them. The pull request does what miles' PR #2384 did (the special
`--disable-fp32-master` switch becomes the generic `--no-keep-fp32-master`), changes a
documented default, and adds a doc line with a typo in a flag.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ARGS_BASE = """\
import argparse
import dataclasses
from dataclasses import dataclass


@dataclass
class FSDPArgs:
    # Optim
    lr: float = 2e-5
    attn_implementation: str = "flash_attention_2"

    # Precision
    gradient_checkpointing: bool = False
    fp16: bool = False
    keep_fp32_master: bool = True

    # Offload
    fsdp_cpu_offload: bool = False
    fsdp_cpu_backend: str | None = "gloo"
    dp_replicate_size: int = 1
    config: str | None = None


def build_fsdp_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser("trainer fsdp")
    parser.add_argument("--config", type=str, default=None, help="YAML config path")
    for f in dataclasses.fields(FSDPArgs):
        if f.name == "config":
            continue
        arg_type = f.type
        if f.name == "keep_fp32_master":
            parser.add_argument(
                "--disable-fp32-master",
                dest=f.name,
                action="store_false",
                default=f.default,
                help="Drop the fp32 master copy to save memory.",
            )
        elif arg_type is bool:
            parser.add_argument(f"--{f.name.replace('_', '-')}", action="store_true")
        else:
            parser.add_argument(f"--{f.name.replace('_', '-')}", type=arg_type, default=f.default)
    return parser
"""

# The pull request: bools become BooleanOptionalAction (the special switch goes away, and
# store_true with it) and the attention default moves to sdpa.
_SWITCH_AT = ARGS_BASE.index('        if f.name == "keep_fp32_master":')
_BASE_BOOLS = ARGS_BASE[_SWITCH_AT : ARGS_BASE.index("        else:", _SWITCH_AT)]  # the bools' branches
ARGS_HEAD = ARGS_BASE.replace(
    'attn_implementation: str = "flash_attention_2"', 'attn_implementation: str = "sdpa"'
).replace(
    _BASE_BOOLS,
    """        if arg_type is bool:
            parser.add_argument(
                f"--{f.name.replace('_', '-')}", action=argparse.BooleanOptionalAction, default=f.default
            )
""",
)

PARALLEL = """\
from torch.distributed.device_mesh import init_device_mesh


def build_mesh(world_size: int, replicate: int):
    return init_device_mesh(
        "cuda",
        mesh_shape=(replicate, world_size // replicate),
        mesh_dim_names=("dp_replicate", "dp_shard"),
    )
"""

FACTORY = """\
def actor_class(args):
    backend = args.train_backend
    if backend == "megatron":
        from trainer.backends.megatron.actor import MegatronActor

        return MegatronActor
    from trainer.backends.fsdp.actor import FSDPActor

    return FSDPActor
"""

MAIN_ARGS = """\
import argparse


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("cluster")
    group.add_argument(
        "--train-backend",
        type=str,
        choices=["megatron", "fsdp"],
        default="megatron",
        help="The backend for training.",
    )
    group.add_argument("--colocate", action="store_true", help="Share GPUs between trainer and engines.")
    group.add_argument("--offload-train", action="store_true", help="Offload the trainer between phases.")
"""

DOC_BASE = """\
# Training backends

`--train-backend` decides which class `trainer/train/actor_factory.py` builds.

| Value | What it is | Default |
|---|---|---|
| `megatron` | Megatron-LM | ✅ |
| `fsdp` | PyTorch FSDP2 | |

Under `--colocate` the trainer and the engines share GPUs.

## FSDP

### Sharding

`trainer/backends/fsdp/parallel.py` builds a mesh with two dimensions:

| Dimension | How you set it |
|---|---|
| `dp_replicate` | `--dp-replicate-size` |
| `dp_shard` | derived |

| Flag | Effect |
|---|---|
| `--gradient-checkpointing` | Recompute activations. |
| `--fsdp-cpu-offload` | Offload parameters and optimizer state to CPU. |
| `--fsdp-cpu-backend gloo` | CPU process-group backend used by the offload path. |

### Precision

- An fp32 master copy of the weights is kept by default. `--disable-fp32-master` trades it for
  memory when you do not need bit-exact weight sync.
- `--attn-implementation` picks the attention backend: `flash_attention_2` by default.
"""

DOC_HEAD = DOC_BASE.replace(
    "| `--fsdp-cpu-backend gloo` | CPU process-group backend used by the offload path. |\n",
    "| `--fsdp-cpu-backend gloo` | CPU process-group backend used by the offload path. |\n"
    "| `--fsdp-cpu-ofload` with `--offload-train` | Both at once for the largest models. |\n",
)

CONFIG = """\
# docs-sync configuration, read from the base branch of every pull request.
rules:
  - id: training-backend-page
    docs:
      - path: docs/training-backend.md
    sources:
      - id: fsdp-args
        kind: dataclass-flags
        path: trainer/backends/fsdp/arguments.py
        dataclass: FSDPArgs
        builder: build_fsdp_parser
      - id: cluster-args
        kind: argparse
        path: trainer/arguments.py
      - id: mesh-dims
        kind: strings
        path: trainer/backends/fsdp/parallel.py
        calls: [init_device_mesh]
        keyword: mesh_dim_names
        enumerated: true
      - id: train-backends
        kind: strings
        path: trainer/train/actor_factory.py
        compared_with: [args.train_backend, backend]
        enumerated: true
      - id: cited-paths
        kind: paths
"""

BASE_FILES = {
    ".github/docs-sync.yml": CONFIG,
    "trainer/__init__.py": "",
    "trainer/arguments.py": MAIN_ARGS,
    "trainer/backends/fsdp/arguments.py": ARGS_BASE,
    "trainer/backends/fsdp/parallel.py": PARALLEL,
    "trainer/train/actor_factory.py": FACTORY,
    "docs/training-backend.md": DOC_BASE,
}
PR_FILES = {
    "trainer/backends/fsdp/arguments.py": ARGS_HEAD,
    "docs/training-backend.md": DOC_HEAD,
}


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "Demo",
        "GIT_AUTHOR_EMAIL": "demo@example.com",
        "GIT_COMMITTER_NAME": "Demo",
        "GIT_COMMITTER_EMAIL": "demo@example.com",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def _write(repo: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def build_demo_repo(repo: Path) -> tuple[str, str]:
    """Create the demo repository at `repo`: `main` and a `pr` branch. Returns (base, head) SHAs."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    _write(repo, BASE_FILES)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Trainer with FSDP backend and its doc page")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "pr")
    _write(repo, PR_FILES)
    git(repo, "commit", "-q", "-am", "fsdp: generic BooleanOptionalAction for bool fields; sdpa by default")
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    return base, head
