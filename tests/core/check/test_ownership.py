"""Ownership: which paths and flags a page cites are the repository's, and which program's flags
judge a flag. Each kind of foreign token a real page cites has its fixture here."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot.core.check import audit, check
from bot.core.check.ownership import ANY, normalize
from bot.core.model import Change, Finding
from bot.core.rules import DocTarget, Source
from bot.trees.git import GitRepo
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, DOC, cli, flags_source, kinds, paths_source, prepare, rule

RULE = rule(flags_source(), paths_source())
# `python train.py` parses its command line with tool/cli.py's parser.
TRAIN = {"train.py": "from tool.cli import p\n\np.parse_args()\n"}


def audited(page: str, files: dict[str, str], rule_=RULE, doc: str = DOC) -> list[Finding]:
    return list(audit([rule_], MemoryTree(dict(files, **{doc: page}))).findings)


# --- paths ------------------------------------------------------------------------------------


def test_a_relative_link_resolves_against_the_page_folder_and_its_move_is_written_relative():
    page = "See [the evaluator](../../pkg/evaluator.py) and [setup](./setup.md).\n"
    doc = "docs/guide/run.md"
    base = {"pkg/evaluator.py": "", "docs/guide/setup.md": "", doc: page}
    head = {"pkg/eval/evaluator.py": "", "docs/guide/setup.md": "", doc: page}
    changes = [Change("renamed", "pkg/eval/evaluator.py", "pkg/evaluator.py")]
    r = rule(paths_source(), docs=(DocTarget(doc),))
    [f] = check([r], MemoryTree(base), MemoryTree(head), changes).findings
    assert (f.kind, f.symbol) == ("renamed", "../../pkg/evaluator.py")
    assert (
        f.suggestion.replacement
        == "See [the evaluator](../../pkg/eval/evaluator.py) and [setup](./setup.md)."
    )
    # An audit at head finds the stale link and suggests the file of the same name, relative too.
    [stale] = audited(page, {"pkg/eval/evaluator.py": "", "docs/guide/setup.md": ""}, r, doc)
    assert (
        stale.message
        == "`../../pkg/evaluator.py` does not exist at head; did you mean `../../pkg/eval/evaluator.py`?"
    )


def test_a_link_that_leaves_the_repository_is_never_looked_up():
    assert normalize("../x.py") is None and normalize("/etc/hosts") is None
    assert normalize("a/./b/../c.py") == "a/c.py"
    page = "[outside](../../../../elsewhere.py) and [broken](./gone.md).\n"
    found = audited(page, {CLI: cli()})
    assert kinds(found) == [("unresolved", "./gone.md")]  # a broken relative link is real


def test_slash_tokens_that_are_not_repository_paths_are_left_alone():
    page = (
        "Pull `radixark/miles:dev` for `linux/amd64`, load `Qwen/Qwen3-4B` from `org/repo`,\n"
        "watch `rollout/raw_reward`, and find checkpoints in `weight_vNNNNNN/` or `dir/file.jsonl`.\n"
        "The flags are in `tool/cli.py`; `tool/missing.py` is gone.\n"
    )
    assert kinds(audited(page, {CLI: cli()})) == [("unresolved", "tool/missing.py")]


def test_a_hub_id_spelt_with_a_package_as_its_owner_is_no_path():
    # `kit/` is a package: `kit/self-cognition` (a dashed name, no extension) is a dataset id;
    # a dashed folder that is there, and a module that is not, are the repository's
    page = (
        "Mix in the `kit/self-cognition` dataset; the prompts are in `kit/chat-templates`.\n"
        "The flags are in `kit/cli-main.py`.\n"
    )
    files = {CLI: cli(), "kit/__init__.py": "", "kit/chat-templates/a.txt": ""}
    assert kinds(audited(page, files)) == [("unresolved", "kit/cli-main.py")]
    # a folder that is no package holds anything: a dashed name there is judged
    files = {CLI: cli(), "data/readme.txt": ""}
    assert kinds(audited("Use `data/self-cognition`.\n", files)) == [("unresolved", "data/self-cognition")]


def test_a_path_next_to_the_page_is_the_repositorys():
    page = "Run `helper.py` from this folder; `notes.txt` is not here.\n"
    files = {CLI: cli(), "docs/helper.py": ""}
    inputs = prepare(RULE, {}, dict(files, **{DOC: page}))
    [p] = inputs.pages
    cited = {r.token: inputs.own.path(r, DOC) for r in p.refs}
    assert cited["helper.py"] is not None and cited["helper.py"].path == "docs/helper.py"
    assert cited["notes.txt"] is None


def test_a_path_the_repository_ignores_is_made_at_run_time_and_a_misspelt_folder_is_named():
    files = {CLI: cli(), "tool/caching/cache.py": "", ".gitignore": "# runtime\ntool/caching/.cache\nlogs/\n"}
    assert audited("Requests are cached in `tool/caching/.cache`, logs in `tool/logs/`.\n", files) == []
    [f] = audited("Requests are cached in `tool/cache/.cache`.\n", files)
    assert f.message == "`tool/cache/.cache` does not exist at head; did you mean `tool/caching/.cache`?"
    assert f.suggestion.replacement == "Requests are cached in `tool/caching/.cache`."
    # A folder's own .gitignore names what a build makes there (a docs generator's `cli.md`).
    built = {CLI: cli(), "docs/reference/.gitignore": "/cli.md\n", "docs/reference/api.md": ""}
    page = "See [the CLI](reference/cli.md) and [the API](reference/api.md).\n"
    assert audited(page, built) == []
    assert kinds(audited("See [the CLI](reference/cli2.md).\n", built)) == [
        ("unresolved", "reference/cli2.md")
    ]


def test_a_cited_line_of_a_deleted_file_is_reported():
    page = "The loop is at `tool/loop.py:379` and [here](../tool/loop.py#L10-L20).\n"
    base = {CLI: cli(), "tool/loop.py": "x = 1\n", DOC: page}
    head = {CLI: cli(), DOC: page}
    found = check([RULE], MemoryTree(base), MemoryTree(head), [Change("removed", "tool/loop.py")]).findings
    assert kinds(list(found)) == [("removed", "../tool/loop.py"), ("removed", "tool/loop.py")]


def test_relative_paths_in_a_bare_repository_do_not_stop_the_reader(tmp_path: Path):
    # git reads `rev:./x` from a working directory; a bare clone has none and git exits.
    work, bare = tmp_path / "work", tmp_path / "bare.git"
    page = "See [x](./x.md), [up](../tool/cli.py), `./run.sh` and [out](../../../y.py).\n"
    for path, text in {DOC: page, "docs/x.md": "x\n", CLI: cli("'--seed'"), "run.sh": ""}.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)

    def git(*args: str, cwd: Path = work) -> str:
        env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
        env |= {"GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
        return subprocess.run(
            ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
        ).stdout

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "base")
    (work / "docs/x.md").unlink()
    (work / CLI).write_text(cli("'--seed'", "'--lr'"))
    git("commit", "-qam", "head")
    git("clone", "-q", "--bare", str(work), str(bare), cwd=tmp_path)
    with GitRepo(bare) as repo:
        base, head = repo.tree("HEAD~1"), repo.tree("HEAD")
        report = check([RULE], base, head, repo.changes("HEAD~1", "HEAD"))
        assert kinds(list(report.findings)) == [("removed", "./x.md")]
        assert head.exists("./x.md") is False and head.blob_id("../tool/cli.py") is None


# --- flags ------------------------------------------------------------------------------------


def test_flags_of_other_programs_are_left_alone_and_the_repositorys_are_checked():
    page = """
```bash
docker run --gpus all --shm-size 16g img
git log --oneline --graph
gh pr view 1 --json title --jq .title
pip install --no-deps -e .
pytest --ignore tests/slow
ray start --head --port 6379
hf download Qwen/Qwen3-4B --local-dir /models
torchrun --nproc-per-node 8 --master-addr host train.py --lr 1e-4 --sed 3
python -m torch.distributed.run --nnodes 2 train.py --seed 1
```
"""
    files = dict(TRAIN, **{CLI: cli("'--lr', type=float", "'--seed', type=int")})
    [f] = audited(page, files)
    assert (f.kind, f.symbol) == ("unresolved", "--sed")
    assert f.message == "`--sed` is not a flag at head; did you mean `--seed`?"


def test_a_flag_cited_on_its_own_after_another_programs_command_is_that_programs():
    page = """
## Cluster

```bash
ray start --head
```

`--head` starts the head node. Our trainer takes `--seed`; `--sede` is a typo.
"""
    found = audited(page, dict(TRAIN, **{CLI: cli("'--seed'")}))
    assert kinds(found) == [("unresolved", "--sede")]


def test_the_same_flag_in_two_command_lines_is_judged_by_the_one_each_section_runs():
    a = cli("'--model', default='small'")
    b = cli("'--model', default='large'")
    page = """
## Generate

```bash
python tool/generate.py --model m
```

`--model` defaults to `small`.

## Serve

```bash
python tool/serve.py --model m
```

`--model` defaults to `large`.
"""
    both = rule(Source(id="cli", kind="argparse", paths=("tool/generate.py", "tool/serve.py")))
    files = {"tool/generate.py": a, "tool/serve.py": b}
    assert audited(page, files, both) == []
    # serve's default changes: only its section's claim is wrong.
    base = dict(files, **{DOC: page})
    head = dict(base, **{"tool/serve.py": cli("'--model', default='huge'")})
    found = check([both], MemoryTree(base), MemoryTree(head), [Change("modified", "tool/serve.py")]).findings
    [f] = found
    assert (f.kind, f.doc.section) == ("changed", "Serve")
    assert f.suggestion.replacement == "`--model` defaults to `huge`."


def test_a_page_the_rule_says_documents_one_program_is_judged_by_it():
    page = "`--model` defaults to `large`.\n"
    both = Source(id="cli", kind="argparse", paths=("tool/generate.py", "tool/serve.py"))
    files = {
        "tool/generate.py": cli("'--model', default='small'"),
        "tool/serve.py": cli("'--model', default='large'"),
    }
    serve = rule(both, docs=(DocTarget(DOC, program="python tool/serve.py"),))
    assert audited(page, files, serve) == []
    generate = rule(both, docs=(DocTarget(DOC, program="python tool/generate.py"),))
    assert kinds(audited(page, files, generate)) == [("wrong-default", "--model")]
    # Nothing says which: two command lines disagree, so the claim is nobody's to judge.
    assert audited(page, files, rule(both)) == []


def test_prose_with_no_command_in_its_section_is_judged_by_any_of_the_rules_flags():
    inputs = prepare(RULE, {}, {CLI: cli("'--seed'"), DOC: "Pass `--seed`.\n"})
    [p] = inputs.pages
    [ref] = p.refs
    assert inputs.own.scope(p.doc, ref) == ANY


def test_a_section_that_runs_another_program_of_ours_owns_its_prose_flags():
    convert = {"tools/convert.py": cli("'--input-dir'", "'--seed'")}
    page = """
## Convert

```bash
python tools/convert.py --input-dir /x
```

`--input-dir` is the converter's; so is its `--seed`.

## Train

```bash
python train.py --lr 1
```

Pass `--seed`.
"""
    base = dict(TRAIN, **convert, **{CLI: cli("'--seed'", "'--lr'"), DOC: page})
    assert audited(page, base) == []
    # The trainer drops `--seed`: the Train section's line is wrong, the converter's is not.
    head = dict(base, **{CLI: cli("'--lr'")})
    found = check([RULE], MemoryTree(base), MemoryTree(head), [Change("modified", CLI)]).findings
    assert [(f.kind, f.symbol, f.doc.section) for f in found] == [("removed", "--seed", "Train")]


def test_a_flag_no_parser_of_ours_declares_is_nobodys_and_reported_wherever_it_is_cited():
    convert = {"tools/convert.py": cli("'--input-dir'")}
    page = """
## Convert

```bash
python tools/convert.py --input-dir /x
```

`--output-dri` is no flag of the converter's, whose whole parser is read.

## Train

```bash
python train.py --lr 1
```

| Flag | What |
|---|---|
| `--quantum-flux-capacitor` | resembles nothing |
| `--sed` | a typo |
"""
    found = audited(page, dict(TRAIN, **convert, **{CLI: cli("'--seed'", "'--lr'")}))
    assert kinds(found) == [
        ("unresolved", "--output-dri"),
        ("unresolved", "--quantum-flux-capacitor"),
        ("unresolved", "--sed"),
    ]
    assert [f.suggestion.replacement if f.suggestion else None for f in found] == [
        None,
        None,
        "| `--seed` | a typo |",
    ]


def test_a_program_taking_its_leftover_arguments_takes_any_flag_cited_for_it():
    # Open-Sora's trainer: `parse_known_args`, then each leftover `--key value` overrides its config.
    trainer = {
        "tools/train.py": (
            "import argparse\n\nparser = argparse.ArgumentParser()\nparser.add_argument('config')\n"
            "args, overrides = parser.parse_known_args()\nmerge(args.config, overrides)\n"
        )
    }
    page = """
## Configs

```bash
torchrun --nproc_per_node 8 tools/train.py configs/stage1.py --dataset.data-path data.csv
```

`--warmup-steps 10` overrides the `warmup_steps` of the config file.

## Advanced

With `--async-io True`, checkpoints are saved in the background.

## Convert

```
usage: convert.py [-h] [--upload]

options:
  --upload    Upload the result.
```

## Train

```bash
python train.py --lr 1
```

Pass `--sed`.
"""
    found = audited(page, dict(TRAIN, **trainer, **{CLI: cli("'--seed'", "'--lr'")}))
    # A help listing's rows are its own program's, though none of ours is that program.
    assert kinds(found) == [("unresolved", "--upload"), ("unresolved", "--sed")]
    # The same trainer reading its flags with `parse_args` takes none but its own.
    whole = {
        "tools/train.py": trainer["tools/train.py"].replace(
            "args, overrides = parser.parse_known_args()", "args = parser.parse_args()"
        )
    }
    found = audited(page, dict(TRAIN, **whole, **{CLI: cli("'--seed'", "'--lr'")}))
    assert kinds(found) == [
        ("unresolved", "--warmup-steps"),
        ("unresolved", "--async-io"),
        ("unresolved", "--upload"),
        ("unresolved", "--sed"),
    ]


def test_a_program_that_extends_a_parser_from_elsewhere_keeps_the_flags_we_cannot_read():
    # The converter adds its flags to Megatron's parser: any flag may be Megatron's.
    convert = {
        "tools/convert.py": (
            "from megatron.training.arguments import parse_args\n\n"
            "def add_args(parser):\n    parser.add_argument('--input-dir')\n    return parser\n\n"
            "parse_args(extra_args_provider=add_args)\n"
        )
    }
    page = """
## Convert

```bash
python tools/convert.py --input-dir /x
```

Pass `--tensor-model-parallel-size`, one of Megatron's.
"""
    assert audited(page, dict(convert, **{CLI: cli("'--seed'")})) == []


def test_a_script_the_prose_cites_with_a_parser_of_its_own_owns_its_flags():
    build = {"docker/build.py": cli("'--variant'", "'--image-tag'")}
    page = "`docker/build.py` builds the images: pick one with `--variant` and `--image-tag`.\n"
    assert audited(page, dict(build, **{CLI: cli("'--seed'")})) == []


def test_a_page_that_runs_only_other_programs_of_ours_leaves_unknown_flags_to_them():
    launcher = {"scripts/run_big.py": "import typer\n\ntyper.run(lambda model_dir='/m': None)\n"}
    page = """
# Big model

```bash
python scripts/run_big.py --model-dir /m
```

## Options

`--model-dir` holds the weights; `--sed` is not ours either, but `--seed` is ours.
"""
    files = dict(launcher, **{CLI: cli("'--seed'")})
    assert audited(page, files) == []
    # A flag of ours on that page is still judged.
    base = dict(files, **{DOC: page})
    head = dict(files, **{DOC: page, CLI: cli("'--lr'")})
    found = check([RULE], MemoryTree(base), MemoryTree(head), [Change("modified", CLI)]).findings
    assert kinds(list(found)) == [("removed", "--seed")]


def test_a_flag_the_repositorys_own_scripts_pass_is_no_typo():
    scripts = {
        "scripts/models/small.sh": "MODEL_ARGS=(--num-layers 28 --hidden-size 1024)\n",
        "scripts/run.py": "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--only-mine')\n",
    }
    page = "Pass `--num-layers 28` with `--seed`; `--only-mine` is the runner's own, `--nmu-layers` a typo.\n"
    found = audited(page, dict(scripts, **{CLI: cli("'--seed'")}))
    assert kinds(found) == [("unresolved", "--nmu-layers")]


def test_a_flag_only_a_script_s_docstring_cites_is_not_one_it_passes():
    # nanotron's launcher: its usage docstring still shows `--run_name`, which its parser renamed.
    launcher = (
        '#!/usr/bin/env python3\n"""\nUsage:\n    python launch.py --run_name my_run --nodes 4\n"""\n'
        "import subprocess\n\nsubprocess.run(['python', 'tool/cli.py', '--nodes', '4'])\n"
    )
    page = "Name the run with `--run_name`, on `--nodes` nodes.\n"
    found = audited(page, {"launch.py": launcher, CLI: cli("'--seed'")})
    assert kinds(found) == [("unresolved", "--run_name")]


def test_families_of_flags_short_flags_and_placeholders_are_not_flags_to_resolve():
    page = "The `--debug-*-only` flags, the `--fp8-` pair, `--<name>`, `-f key=value` and `-h`.\n"
    assert audited(page, {CLI: cli("'--seed'")}) == []


def test_external_switches_take_their_no_form_and_their_defaults_are_not_ours():
    external = rule(flags_source(), external=("--eval-sglang-*", "--weight-decay"))
    page = "Pass `--no-eval-sglang-enable-dp-attention`. `--weight-decay` defaults to `0.1`.\n"
    assert audited(page, {CLI: cli("'--weight-decay', type=float, default=0.0")}, external) == []
    assert kinds(audited(page, {CLI: cli("'--weight-decay', type=float, default=0.0")})) == [
        ("unresolved", "--no-eval-sglang-enable-dp-attention"),
        ("wrong-default", "--weight-decay"),
    ]


def test_a_flag_a_script_passes_to_one_program_is_not_vouched_for_another():
    files = {
        "tool/sft.py": cli("'--model.path'"),
        "tool/ppo.py": cli("'--actor.path'"),
        "scripts/ppo.sh": "python tool/ppo.py --actor.path /m\n",
        "scripts/model.sh": "MODEL_ARGS=(\n  --num-layers 2\n)\n",
        # An array a script hands to its one program is that program's.
        "scripts/ppo_lr.sh": 'ARGS=(\n  --actor.lr 1\n)\npython tool/ppo.py "${ARGS[@]}"\n',
    }
    both = rule(Source(id="cli", kind="argparse", paths=("tool/sft.py", "tool/ppo.py")))
    page = "```bash\npython tool/sft.py --actor.path /m --actor.lr 1 --num-layers 2\n```\n"
    found = audited(page, files, both)
    assert kinds(found) == [("unresolved", "--actor.lr"), ("unresolved", "--actor.path")]
    assert found[1].message == "`--actor.path` is not a flag at head; did you mean `--model.path`?"


def test_a_block_of_flags_alone_is_the_pages_program_and_another_commands_continuation_is_not():
    page = """
## Run

```bash
python train.py --lr 1
```

## Layout

```bash
# 8 GPUs training
--nodes 1 \\
  --gpus-per-engine 2
```

```bash
docker run --rm image:tag \\
  --gpus-per-engine 2
```
"""
    base = dict(TRAIN, **{CLI: cli("'--lr'", "'--nodes'", "'--gpus-per-engine'", "'--seed'"), DOC: page})
    head = dict(
        base, **{CLI: cli("'--lr'", "'--nodes'", "'--engine-gpus', dest='gpus_per_engine'", "'--seed'")}
    )
    found = check([RULE], MemoryTree(base), MemoryTree(head), [Change("modified", CLI)]).findings
    assert [(f.kind, f.symbol, f.doc and f.doc.line) for f in found] == [("renamed", "--gpus-per-engine", 13)]
    assert found[0].suggestion.replacement == "  --engine-gpus 2"
    # A new line of such a block citing a flag nobody has is reported too.
    edited = page.replace("--nodes 1 \\", "--nodes 1 --nmu-nodes 2 \\")
    found = check(
        [RULE], MemoryTree(base), MemoryTree(dict(base, **{DOC: edited})), [Change("modified", DOC)]
    ).findings
    assert kinds(list(found)) == [("unresolved", "--nmu-nodes")]


def test_a_flag_another_command_line_of_the_repository_declares_is_not_nobodys():
    files = {
        CLI: cli("'--seed'"),
        # pytest's options, a typer launcher's dataclass and parameters, another argparse module
        "tests/conftest.py": (
            "def pytest_addoption(parser):\n    parser.addoption('--run-slow', action='store_true')\n"
        ),
        "scripts/run_big.py": (
            "import typer\nfrom dataclasses import dataclass\n\n@dataclass\nclass ScriptArgs:\n"
            "    use_single_node: bool = False\n    model_org: str = 'org'\n\n"
            "def main(dockerfile: str = typer.Option('Dockerfile')):\n    pass\n"
        ),
        "tools/other.py": "def add(parser):\n    parser.add_argument('--cache-dir')\n",
    }
    page = (
        "| Flag | What |\n|---|---|\n| `--run-slow` | pytest |\n| `--use-single-node` | launcher |\n"
        "| `--no-use-single-node` | its negation |\n| `--model-org` | launcher |\n"
        "| `--dockerfile` | typer |\n"
        "| `--cache-dir` | another module |\n| `--no-model-org` | nobody's: a str has no negation |\n"
    )
    assert kinds(audited(page, files)) == [("unresolved", "--no-model-org")]


def test_options_a_program_reads_out_of_a_prompt_are_not_nobodys_flags():
    # A generator splits each prompt on " --" and matches its options' words: `--w 768` in a
    # prompt is such an option, cited on the page as `--w`; no parser declares it.
    files = {
        CLI: cli("'--seed'"),
        "tool/gen.py": (
            "import re\n\ndef options(prompt):\n    for part in prompt.split(' --')[1:]:\n"
            '        m = re.match(r"w (\\d+)", part, re.IGNORECASE)\n'
            "        m = re.match(r'nl ([\\d.]+|none)', part)\n"
        ),
        # the same patterns in a module splitting nothing on " --" declare no option
        "tool/other.py": "import re\nm = re.match(r'am (\\d+)', text)\n",
    }
    page = "In a prompt, `--w` sets the width and `--nl` the negative scale; `--am` and `--wx` are none.\n"
    assert kinds(audited(page, files)) == [("unresolved", "--am"), ("unresolved", "--wx")]


def test_a_flag_after_a_tool_the_repository_runs_or_a_module_not_ours_is_that_tools():
    files = {
        CLI: cli("'--seed'"),
        ".github/workflows/ci.yml": "jobs:\n  x:\n    steps:\n      - run: gh workflow run build.yml\n",
        ".pre-commit-config.yaml": (
            "repos:\n  - repo: https://github.com/pycqa/isort\n    hooks:\n      - id: isort\n"
        ),
    }
    page = """
## Tools

- `gh` dispatches on the default branch; pass `--ref <branch>` to build another.
- | `isort` | `--profile=black` |

## Serving

Any flag `python -m sglang.launch_server` accepts, pass through:

- `--model-path` from `--seed`

## Ours

Pass `--sede` and `--quantum-flux` here.
"""
    assert kinds(audited(page, files)) == [("unresolved", "--quantum-flux"), ("unresolved", "--sede")]


def test_a_flag_a_module_of_the_program_the_rule_does_not_read_declares_is_the_programs():
    # train.py's parser takes tool/cli.py's flags and those of tool/manager.py, which the rule
    # does not read: `--version` is declared there, `--verzion` nowhere.
    files = {
        CLI: "def add(p):\n    p.add_argument('--seed')\n",
        "tool/manager.py": "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--version')\n",
        "train.py": "from tool.cli import add\nfrom tool.manager import p\n\nadd(p)\np.parse_args()\n",
    }
    page = "# Run\n\n```bash\npython train.py --seed 1 --version\npython train.py --verzion\n```\n"
    assert kinds(audited(page, files)) == [("unresolved", "--verzion")]


def test_a_prefix_of_one_flag_of_a_module_the_rule_does_not_read_is_that_flag():
    # tool/split.py's parser, which the rule does not read, makes its command line with the
    # flags tool/cli.py adds to any parser of the package: argparse takes `--model-name` for its
    # `--model-name-or-path`; `--max-len` is two flags' prefix, and `--quantum` nobody's
    files = {
        CLI: "def add_model_args(parser):\n    parser.add_argument('--model-path')\n",
        "tool/split.py": cli(
            "'--model-name-or-path'", "'--max-length', type=int", "'--max-lengths', type=int"
        ),
    }
    run = "python tool/split.py --model-path m --model-name llama --max-len 4 --quantum 1"
    page = f"# Split\n\n```bash\n{run}\n```\n"
    assert kinds(audited(page, files)) == [("unresolved", "--max-len"), ("unresolved", "--quantum")]


def test_a_flag_right_after_a_word_naming_a_tool_the_repository_runs_is_that_tools():
    files = {CLI: cli("'--seed'"), ".github/workflows/ci.yml": "steps:\n  - run: pip install uv\n"}
    page = (
        "# Overrides\n\nLike the constraint file in pip(`--constraint c.txt`), or pip's `--pre`; `--sede`.\n"
    )
    assert kinds(audited(page, files)) == [("unresolved", "--sede")]
    # Or one right after it: "see `--shm-size` for docker", a tool every reader knows.
    after = "# Memory\n\nSee `--shm-size 16G` for docker, `--ulimit` of the docker run; `--sede` to train.\n"
    assert kinds(audited(after, files)) == [("unresolved", "--sede")]
    # Past the word saying what the span is, and the spans listed with it: "the `-L` or
    # `--copy-links` option to rsync". A flag of ours named so is still judged.
    listed = (
        "# Links\n\nAdd the `-L` or `--copy-links` option to rsync, and `-a`, `-z` flags of rsync.\n"
        "Pass the `--sede` option to train.\n"
    )
    assert kinds(audited(listed, files)) == [("unresolved", "--sede")]


def test_flags_after_a_bare_double_dash_are_passed_on_not_the_programs():
    page = """
# Run

```bash
python train.py --seed 1 -- --opt1 ARG1 --opt2
python train.py --sede 1
```

That makes `--opt1 ARG1` reach the command it runs.
"""
    files = {**TRAIN, CLI: cli("'--seed'")}
    assert kinds(audited(page, files)) == [("unresolved", "--sede")]


def test_the_tools_task_runners_run_are_tools_too():
    # tox (ini and toml), nox, make and just run them: `sphinx-build -W --keep-going` is theirs.
    files = {
        CLI: cli("'--seed'"),
        "tox.ini": "[testenv:docs]\ncommands =\n    mkdocs build --strict\n",
        "tox.toml": '[env.docs]\ncommands = [\n  ["sphinx-build", "-b", "html", "docs", "-W"],\n]\n',
        "noxfile.py": 'import nox\n\n@nox.session\ndef lint(session):\n    session.run("flake8", "src")\n',
        "docs/Makefile": "html:\n\t@towncrier build --draft\n",
        "justfile": "fmt:\n    ruff format .\n",
    }
    page = """
## Docs

This runs ``sphinx-build`` with `-W --keep-going`; `mkdocs` with `--strict`.
`flake8` takes `--max-line-length`, `towncrier` takes `--draft`, `ruff` takes `--diff`.

## Ours

Pass `--sede` here.
"""
    assert kinds(audited(page, files)) == [("unresolved", "--sede")]


class _ReadsCounted(MemoryTree):
    def __init__(self, files: dict[str, str]):
        super().__init__(files)
        self.reads: list[str] = []

    def read(self, path: str) -> str | None:
        self.reads.append(path)
        return super().read(path)


def test_the_tools_a_repository_runs_are_kept_by_its_scripts_blob_ids():
    """A warm check reads none of the workflows and hooks again for the tools they run: their
    commands' first words are kept under the files' blob ids (the scripts' too), and a change to
    any of them has them read anew. (The page's unknown flag has the shell scripts read for the
    flags they pass, which is another question.)"""
    files = {
        CLI: cli("'--seed'"),
        ".github/workflows/ci.yml": "jobs:\n  x:\n    steps:\n      - run: gh workflow run build.yml\n",
        "tools/lint.sh": "isort --check .\n",
        DOC: "## Tools\n\n`gh` builds; `--ref <branch>` another.\n\n## Ours\n\nPass `--sede`.\n",
    }
    cache: dict[str, object] = {}
    scripts = (".github/workflows/ci.yml", ".pre-commit-config.yaml")
    first = _ReadsCounted(files)
    expected = [("unresolved", "--sede")]
    assert kinds(list(audit([RULE], first, cache).findings)) == expected
    assert {p for p in first.reads if p in scripts} == set(scripts)
    warm = _ReadsCounted(files)
    assert kinds(list(audit([RULE], warm, cache).findings)) == expected
    assert [p for p in warm.reads if p in scripts] == []
    edited = _ReadsCounted(dict(files, **{"tools/lint.sh": "ruff check .\n"}))
    assert kinds(list(audit([RULE], edited, cache).findings)) == expected
    assert {p for p in edited.reads if p in scripts} == set(scripts)


def test_a_flag_after_a_command_linked_to_another_sites_page_is_that_tools():
    page = """
## DVC

Calls [`dvc run`](https://dvc.org/doc/command-reference/run) with `--no-exec` under the hood.

## Ours

Calls the trainer with `--no-exek`.
"""
    assert kinds(audited(page, {CLI: cli("'--no-exec-x'")})) == [("unresolved", "--no-exek")]


def test_placeholders_the_reader_fills_in_are_not_checked():
    page = (
        "Pass `--something-path my_pkg.thing`; add a test such as `tests/e2e/test_x.py` or `my_pkg/run.py`.\n"
    )
    assert audited(page, {CLI: cli("'--seed'"), "tests/e2e/test_real.py": ""}) == []
    # A kind of thing and "name" run together: the file the reader adds, named by them.
    page = "Write the plugin in `src/app/plugins/pluginname.py`, its tests in `tests/test_pluginname.py`.\n"
    assert audited(page, {CLI: cli("'--seed'"), "src/app/plugin/plugin.py": ""}) == []
    page = "Write the plugin in `src/app/plugins/twitch.py`.\n"
    assert kinds(audited(page, {CLI: cli("'--seed'"), "src/app/plugin/plugin.py": ""})) == [
        ("unresolved", "src/app/plugins/twitch.py")
    ]
    assert kinds(
        audited("Add `tests/e2e/test_y.py`.\n", {CLI: cli("'--seed'"), "tests/e2e/test_real.py": ""})
    ) == [("unresolved", "tests/e2e/test_y.py")]


def test_a_field_path_of_a_dataclass_command_line_is_ours():
    configs = (
        "import draccus\nfrom dataclasses import dataclass\n\n@dataclass\nclass PolicyConfig:\n"
        "    pretrained_path: str = ''\n\n@dataclass\nclass TrainConfig:\n    policy: PolicyConfig\n"
        "    rename_map: dict | None = None\n\n@draccus.wrap()\ndef train(cfg: TrainConfig): ...\n"
    )
    page = (
        "Pass `--policy.pretrained_path=x` and `--rename_map='{}'`; `--policy.pretrained_pth` is nobody's.\n"
    )
    files = {CLI: cli("'--seed'"), "pkg/configs.py": configs}
    assert kinds(audited(page, files)) == [("unresolved", "--policy.pretrained_pth")]
    # Without a dataclass command line the fields are only fields: the flags are nobody's.
    plain = {CLI: cli("'--seed'"), "pkg/configs.py": configs.replace("draccus", "other")}
    assert len(audited(page, plain)) == 3


def test_a_scan_of_the_repositorys_modules_tells_a_networked_tree_what_comes_next():
    # In the App each read of a file nobody planned for is a query; a scan of 250 modules names
    # them 100 at a time instead (bot/core/model.reading), and reads nothing it did not name.
    from bot.core.model import READ_AHEAD, reading

    class Networked(MemoryTree):
        def __init__(self, files):
            super().__init__(files)
            self.hints: list[list[str]] = []

        def prefetch(self, paths):
            self.hints.append(list(paths))

    files = {f"pkg/m{i:03}.py": f"x = {i}\n" for i in range(250)}
    tree = Networked(files)
    read = dict(reading(tree, sorted(files)))
    assert read == files
    assert [len(h) for h in tree.hints] == [READ_AHEAD, READ_AHEAD, 50]
    assert [p for h in tree.hints for p in h] == sorted(files)


def test_a_file_a_download_on_the_page_writes_is_the_readers():
    # Folders the repository has: a path in them that names no file is checked.
    files = {CLI: cli(), "data/README.md": "", "checkpoints/README.md": "", "weights/README.md": ""}
    introduced = (
        "Use the LaTeX source at `data/paper.tex` (download it first):\n\n"
        "```bash\n"
        "mkdir -p data\n"
        "curl -L -o data/paper.tex \\\n"
        "    https://arxiv.org/e-print/2506.06266\n"
        "```\n"
    )
    assert audited(introduced, files) == []
    downloaded = (
        "```bash\n"
        "wget -O checkpoints/model.pt https://example.com/model.pt\n"
        "curl -sSLo weights/tokenizer.json https://example.com/tokenizer.json\n"
        "```\n\n"
        "Then pass `checkpoints/model.pt` and `weights/tokenizer.json`.\n"
    )
    assert audited(downloaded, files) == []
    # A sentence that does not introduce the block cites the repository's file, still missing;
    # so does a path the download does not write (the URL's, a folder's other file).
    cited = "Read `data/paper.tex`.\n\n" + introduced.split("\n\n", 1)[1]
    [before] = audited(cited, files)
    assert (before.kind, before.symbol, before.doc.line) == ("unresolved", "data/paper.tex", 1)
    found = audited(downloaded + "\nSee `checkpoints/other.pt`.\n", files)
    assert [f.symbol for f in found] == ["checkpoints/other.pt"]


def test_a_path_the_page_has_the_reader_make_is_theirs_not_a_missing_file_of_the_repository():
    files = {CLI: cli(), "recipes/full_finetune.py": "", "configs/base.yaml": ""}
    page = (
        "```bash\n"
        "tune cp full_finetune ~/my_project/recipes/single_device.py\n"
        "tune run recipes/single_device.py\n"
        "cp configs/base.yaml ~/my_project/configs/\n"
        "```\n\n"
        "Then edit `configs/base.yaml` and run `recipes/single_device.py` again.\n"
    )
    assert audited(page, files) == []
    # A path no command made, or one cited before the command that makes it, is still the
    # repository's and still missing.
    [before] = audited("Run `recipes/single_device.py`.\n\n" + page, files)
    assert (before.kind, before.symbol, before.doc.line) == ("unresolved", "recipes/single_device.py", 1)
    found = audited(page + "\nSee `recipes/single_devices.py` and `configs/other.yaml`.\n", files)
    assert sorted(f.symbol for f in found) == ["configs/other.yaml", "recipes/single_devices.py"]


def test_options_a_console_script_reads_by_hand_before_its_subcommands_parser_are_its_flags():
    files = {
        "pyproject.toml": '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.main:main"\n',
        "tool/main.py": (
            "import argparse\nimport sys\n\nfrom tool.cli import p\n\n\ndef main(argv=None):\n"
            "    argv = sys.argv[1:] if argv is None else argv\n"
            '    if argv and argv[0] in ["--version", "-V", "--version-verbose"]:\n'
            "        return 0\n"
            "    sub = argparse.ArgumentParser().add_subparsers()\n"
            "    return p.parse_args(argv)\n"
        ),
        CLI: cli("'--seed'"),
    }
    page = """
# Version

```bash
tool --version
tool --version-verbose --seed 1
tool --verison
```

The `--version` (or `-V`) flag prints the version.
"""
    found = audited(page, files)
    assert kinds(found) == [("unresolved", "--verison")]


def test_flags_an_alias_passes_to_another_program_are_that_programs_in_the_prose_too():
    page = """
# Docker

```bash
alias drun='docker run -it --rm --network=host --privileged \\
    --ipc=host'
drun image python tool/cli.py --seed 1
```

- `--network host` and `--privileged` are required by RDMA; `--sed` is nobody's.
"""
    found = audited(page, {CLI: cli("'--seed'")})
    assert kinds(found) == [("unresolved", "--sed")]


def test_a_short_option_the_pages_fences_give_another_program_is_that_programs_in_the_prose():
    page = """
# Tests

```bash
PYTHONPATH=. python -m pytest test_store.py -v -o asyncio_mode=strict
python tool/cli.py --seed 1
```

Note: the `-v` flag prints each test's name; `-q` is nobody's.
"""
    found = audited(page, {CLI: cli("'--seed'")})
    assert kinds(found) == [("unresolved", "-q")]


def test_a_flag_cited_alone_on_a_page_running_a_binary_the_repository_builds_may_be_that_binarys():
    files = {".gitignore": "target/\n", CLI: cli("'--seed'")}
    page = """
# Gateway

```bash
./target/release/gateway --backend openai
```

## Storage

Router flags map to these values: `--oracle-dsn` or `--oracle-wallet-path`.

## Training

```bash
python tool/cli.py --seed 1
```

Then pass `--sede` again.

## Help

```text
usage: tool/cli.py [-h] [--seed SEED]

options:
  --seed SEED    The seed.
  --row-split    Split by rows.
```
"""
    # The storage section runs nothing of ours: its flags may be the binary's. The training
    # section runs ours, and its prose is judged; so are the rows of our program's help listing.
    assert kinds(audited(page, files)) == [("unresolved", "--sede"), ("unresolved", "--row-split")]
    # Without the built binary, nobody's flag cited alone is reported.
    plain = page.replace("./target/release/gateway --backend openai\n", "")
    found = kinds(audited(plain, files))
    assert found == [
        ("unresolved", "--oracle-dsn"),
        ("unresolved", "--oracle-wallet-path"),
        ("unresolved", "--sede"),
        ("unresolved", "--row-split"),
    ]


def test_a_default_two_command_lines_share_points_at_the_one_the_page_runs():
    files = {
        "bench/launch.py": cli("'--lora-backend', default='csgmv'"),
        CLI: cli("'--lora-backend', choices=['triton', 'csgmv'], default='csgmv'"),
        "serve.py": "from tool.cli import p\n\np.parse_args()\n",
        "route.py": "from tool.cli import p\n\np.parse_args()\n",
    }
    rule_ = rule(flags_source("bench/launch.py", CLI), paths_source())
    page = """
# Serving

```bash
python serve.py --lora-backend csgmv
python route.py --lora-backend csgmv
```

## Options

| Flag | Default |
|---|---|
| `--lora-backend` | `triton` |
"""
    [f] = audited(page, files, rule_)
    assert (f.kind, f.symbol) == ("wrong-default", "--lora-backend")
    # The command lines the page runs take the server's flag, not the benchmark's (read first).
    assert f.code is not None and f.code.path == CLI


def test_a_container_running_our_program_takes_its_own_options_before_the_image():
    page = (
        "Mount the file with `-v` and pass `-it`:\n\n"
        "```bash\nsudo docker run -v /data/a.json:/app/a.json:ro -it harness \\\n"
        "  python3 tool/cli.py --model m --bogus\n```\n"
    )
    found = audit([rule()], MemoryTree({CLI: cli('"--model"'), DOC: page})).findings
    assert kinds(found) == [("unresolved", "--bogus")]  # the program's; `-v` and `-it` are docker's


def test_a_bare_script_name_runs_the_file_the_page_names_in_full():
    tool = "tools/convert/convert.py"
    page = """
# Convert

Use [convert.py](https://example.org/tools/convert/convert.py), here `tools/convert/convert.py`:

```bash
python convert.py --input-dir ckpt/ --output-dir out/
```
"""
    rule_ = rule(flags_source(tool))
    base = {tool: cli("'--input-dir'", "'--output-dir'"), DOC: page}
    head = dict(base, **{tool: cli("'--input-path', dest='input_dir'", "'--output-dir'")})
    found = check([rule_], MemoryTree(base), MemoryTree(head), [Change("modified", tool)]).findings
    assert kinds(list(found)) == [("renamed", "--input-dir")]
    # Named only by its bare name, the script is nobody's we know: its flags are not judged.
    bare = {
        k: v.replace(", here `tools/convert/convert.py`", "").replace(
            "(https://example.org/tools/convert/convert.py)", "(#)"
        )
        for k, v in base.items()
    }
    head_bare = dict(bare, **{tool: head[tool]})
    assert check([rule_], MemoryTree(bare), MemoryTree(head_bare), [Change("modified", tool)]).findings == ()
    # Two files of that name: the page does not say which it runs, and nothing is judged.
    other = "tools/legacy/convert.py"
    twice = page.replace("here `tools/convert/convert.py`", f"here `tools/convert/convert.py` or `{other}`")
    rule_ = rule(flags_source(tool, other))
    base = {tool: cli("'--input-dir'", "'--output-dir'"), other: cli("'--input-dir'"), DOC: twice}
    head = dict(base, **{tool: cli("'--input-path', dest='input_dir'", "'--output-dir'")})
    assert check([rule_], MemoryTree(base), MemoryTree(head), [Change("modified", tool)]).findings == ()


def test_options_a_plugin_declares_with_class_decorators_are_its_hosts_flags():
    # The parser adds each plugin's options in a loop (`add_argument(parg.argument_name(pname),
    # **parg.options)`), named `--{module}-{name}` unless the decorator names the flag itself.
    files = {
        CLI: cli("'--seed'"),
        "src/app/plugins/twitch.py": (
            "@pluginargument('low-latency', action='store_true', help='Prefetch.')\n"
            "@pluginargument('api_header', metavar='KEY=VALUE', action='append')\n"
            "@pluginargument('email', metavar='EMAIL', argument_name='niconico-email')\n"
            "@pluginmatcher(re.compile('https://twitch.tv'))\n"  # no option's declaration
            "class Twitch(Plugin):\n    pass\n"
        ),
    }
    page = (
        "| Flag | What |\n|---|---|\n| `--twitch-low-latency` | plugin |\n"
        "| `--twitch-api-header` | `_` read as `-` |\n| `--niconico-email` | named outright |\n"
        "| `--twitch-email` | not its name |\n| `--twitch-high-latency` | nobody's |\n\n"
        "```bash\npython tool/cli.py --twitch-low-latency --seed 1 URL\n```\n"  # a command of ours
    )
    assert kinds(audited(page, files)) == [
        ("unresolved", "--twitch-email"),
        ("unresolved", "--twitch-high-latency"),
    ]


def test_a_bare_script_name_runs_the_one_parser_of_the_rule_the_page_names_by_file_name():
    # `python get_versions.py` on a page under docs/ that names `get_versions.py` in its prose:
    # the one script of that name among the rule's parsers, though not beside the page.
    tool = "pkg/versioning/get_versions.py"
    page = (
        "# Versions\n\n`get_versions.py` finds versions.\n\n"
        "```bash\npython get_versions.py --num_workers 2\n```\n"
    )
    rule_ = rule(flags_source(tool))
    base = {tool: cli("'--num_workers'"), DOC: page}
    head = dict(base, **{tool: cli("'--workers', dest='num_workers'")})
    found = check([rule_], MemoryTree(base), MemoryTree(head), [Change("modified", tool)]).findings
    assert [(f.kind, f.symbol, f.doc.line) for f in found] == [("renamed", "--num_workers", 6)]
    # Two parsers of that name: the page does not say which, and the rename is not judged there.
    other = "pkg/legacy/get_versions.py"
    rule_ = rule(flags_source(tool, other))
    base2, head2 = dict(base, **{other: cli("'--x'")}), dict(head, **{other: cli("'--x'")})
    assert check([rule_], MemoryTree(base2), MemoryTree(head2), [Change("modified", tool)]).findings == ()
