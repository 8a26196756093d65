import shlex
import textwrap

import pytest

from bot.core.extract.scripts import EntryPoint, from_pyproject, from_setup_cfg, from_setup_py
from bot.core.facts import gather
from bot.core.model import Fact
from bot.core.programs import for_subcommand, programs
from bot.core.rules import Rule, Source
from bot.trees.memory import MemoryTree


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# --- console scripts -----------------------------------------------------------------------------


def test_pyproject_project_and_poetry_scripts():
    text = dedent(
        """
        [project]
        name = "evalkit"

        [project.scripts]
        evalkit = "evalkit.__main__:cli_evaluate"
        "evalkit.serve" = 'evalkit.server:main'   # a comment
        broken = "not a module spec!"

        [project.urls]
        home = "https://example.org"

        [tool.poetry.scripts]
        ek-train = { reference = "evalkit.train:main", type = "console" }
        ek-old = "evalkit.legacy"
        """
    )

    assert from_pyproject(text) == [
        EntryPoint("evalkit", "evalkit.__main__", "cli_evaluate"),
        EntryPoint("evalkit.serve", "evalkit.server", "main"),
        EntryPoint("ek-train", "evalkit.train", "main"),
        EntryPoint("ek-old", "evalkit.legacy", None),
    ]


def test_pyproject_inline_scripts_table_and_other_tables_ignored():
    text = '[project]\nscripts = { tool = "pkg.cli:run" }\n[tool.other]\nx = "pkg.no:pe"\n'

    assert from_pyproject(text) == [EntryPoint("tool", "pkg.cli", "run")]


def test_pyproject_scripts_as_dotted_keys():
    text = '[project]\nname = "pipx"\nscripts.pipx = "pipx.main:cli"\n[tool.x]\nscripts.no = "a.b:c"\n'
    top = 'project.scripts.serve = "pkg.serve:main"\n'
    assert from_pyproject(text) == [EntryPoint("pipx", "pipx.main", "cli")]
    assert from_pyproject(top) == [EntryPoint("serve", "pkg.serve", "main")]


def test_setup_cfg_console_scripts():
    text = dedent(
        """
        [metadata]
        name = tool

        [options.entry_points]
        console_scripts =
            tool = tool.cli:main
            tool-admin = tool.admin:main [extra]
        gui_scripts =
            tool-gui = tool.gui:main
        """
    )

    assert from_setup_cfg(text) == [
        EntryPoint("tool", "tool.cli", "main"),
        EntryPoint("tool-admin", "tool.admin", "main"),
    ]
    assert from_setup_cfg("[broken\n") == []


def test_setup_py_literals_variables_and_ini_string_never_executed():
    literal = dedent(
        """
        import os
        from setuptools import setup
        os.system("echo never run")
        setup(
            name="mlx-like",
            entry_points={
                "console_scripts": [
                    "mlx_like = mlx_like.cli:main",
                    "mlx_like.generate = mlx_like.generate:main",
                ]
            },
        )
        """
    )
    assert [(e.name, e.module) for e in from_setup_py(literal)] == [
        ("mlx_like", "mlx_like.cli"),
        ("mlx_like.generate", "mlx_like.generate"),
    ]

    variable = (
        'SCRIPTS = ["a = pkg.a:main"]\nENTRY = {"console_scripts": SCRIPTS}\nsetup(entry_points=ENTRY)\n'
    )
    assert from_setup_py(variable) == [EntryPoint("a", "pkg.a", "main")]

    ini = 'setup(entry_points="""\n[console_scripts]\nb = pkg.b:run\n""")\n'
    assert from_setup_py(ini) == [EntryPoint("b", "pkg.b", "run")]

    assert from_setup_py("setup(entry_points=compute())") == []
    assert from_setup_py("setup(") == []


# --- a repository with programs ------------------------------------------------------------------

HARNESS = {
    "pyproject.toml": (
        '[project.scripts]\nevalkit = "evalkit.__main__:cli_evaluate"\nek = "evalkit.__main__:cli_evaluate"\n'
    ),
    "evalkit/__init__.py": "",
    "evalkit/__main__.py": dedent(
        """
        from evalkit._cli import HarnessCLI


        def cli_evaluate():
            HarnessCLI().run()


        if __name__ == "__main__":
            cli_evaluate()
        """
    ),
    "evalkit/_cli/__init__.py": "from evalkit._cli.harness import HarnessCLI\n",
    "evalkit/_cli/harness.py": dedent(
        """
        import argparse

        from evalkit._cli.run import Run


        class HarnessCLI:
            def __init__(self):
                self._parser = argparse.ArgumentParser(prog="evalkit")
                self._parser.add_argument("--verbosity", default="INFO")
                subparsers = self._parser.add_subparsers(dest="command")
                Run.create(subparsers)
        """
    ),
    "evalkit/_cli/run.py": dedent(
        """
        import argparse

        from evalkit.evaluator import simple_evaluate


        class Run:
            @classmethod
            def create(cls, subparsers):
                parser = subparsers.add_parser("run")
                parser.add_argument("--model", default="hf")
                parser.set_defaults(func=simple_evaluate)
        """
    ),
    "evalkit/evaluator.py": "def simple_evaluate(args):\n    return args\n",
    # A separate script with a parser of its own: not part of `evalkit`.
    "scripts/convert.py": dedent(
        """
        import argparse

        from evalkit.evaluator import simple_evaluate

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--input")
            simple_evaluate(parser.parse_args())
        """
    ),
    "examples/demo/train.py": "import argparse\np = argparse.ArgumentParser()\np.add_argument('--steps')\n",
    "README.md": "# evalkit\n",
}


def owner(files, command, cwd=""):
    return programs(MemoryTree(files)).owner_of(shlex.split(command), cwd)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("evalkit run --model hf", "evalkit/__main__.py"),
        ("ek --model hf", "evalkit/__main__.py"),
        ("python -m evalkit run", "evalkit/__main__.py"),  # a package runs its __main__.py
        ("python3 -u -m evalkit._cli.run", "evalkit/_cli/run.py"),
        ("python evalkit/__main__.py run", "evalkit/__main__.py"),
        ("python scripts/convert.py --input x", "scripts/convert.py"),
        ("./scripts/convert.py --input x", "scripts/convert.py"),
        ("CUDA_VISIBLE_DEVICES=0 env python3.11 -X dev scripts/convert.py", "scripts/convert.py"),
        ("uv run evalkit run", "evalkit/__main__.py"),
        ("conda run -n eval python -m evalkit run", "evalkit/__main__.py"),
        ("uv run --with=rich python scripts/convert.py", "scripts/convert.py"),
        ("!python scripts/convert.py --input x", "scripts/convert.py"),
        ("$ evalkit run", "evalkit/__main__.py"),
        ("usage: ek [-h] --model MODEL", "evalkit/__main__.py"),  # argparse's help, pasted
        # Launchers: the program is what they launch.
        ("torchrun --nproc-per-node 8 scripts/convert.py --input x", "scripts/convert.py"),
        ("torchrun --nnodes=2 --nproc_per_node 8 -m evalkit run", "evalkit/__main__.py"),
        ("accelerate launch --num_processes 2 -m evalkit --model hf", "evalkit/__main__.py"),
        ("deepspeed --num_gpus 8 --module evalkit._cli.run --model x", "evalkit/_cli/run.py"),
        ("python -m torch.distributed.run --nproc_per_node 2 scripts/convert.py", "scripts/convert.py"),
        ("ray job submit --address http://h:8265 -- python3 -m evalkit run", "evalkit/__main__.py"),
        ("srun -N 2 python scripts/convert.py", "scripts/convert.py"),
        # CPU and NUMA placement wrappers run the command after their own options
        ("numactl -N 0 --localalloc python3 -m evalkit run", "evalkit/__main__.py"),
        ("taskset -c 0-7 python scripts/convert.py --input x", "scripts/convert.py"),
        # the interpreter in a shell variable, as a launch script holds it
        ("$PY -m evalkit._cli.run --model x", "evalkit/_cli/run.py"),
        ('"${PYTHON}" scripts/convert.py --input x', "scripts/convert.py"),
    ],
)
def test_commands_of_the_repository_name_their_program(command, expected):
    assert owner(HARNESS, command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "docker run --gpus all evalkit:latest",
        "git log --oneline",
        "gh pr view --jq .title",
        "pip install evalkit",
        "python -m pip install -e .",
        "python -m pytest --ignore tests/slow",
        "pytest --ignore tests/slow",
        "ray start --head",
        "hf download org/model --local-dir x",
        "python other/train.py --steps 3",  # a script the repository does not have
        "torchrun --nproc-per-node 8 train.py",
        "python -c 'import evalkit'",
        "python",
        "$PYPI_TOKEN upload",
        "$EDITOR -m evalkit",
        "",
    ],
)
def test_other_programs_are_nobodys(command):
    assert owner(HARNESS, command) is None


def test_a_relative_script_is_tried_from_the_page_folder_first():
    assert owner(HARNESS, "python train.py --steps 3", cwd="examples/demo") == "examples/demo/train.py"
    assert owner(HARNESS, "python ../demo/train.py", cwd="examples/demo") == "examples/demo/train.py"
    assert owner(HARNESS, "python ../../../etc/x.py", cwd="examples/demo") is None


class _ReadsCounted(MemoryTree):
    def __init__(self, files: dict[str, str]):
        super().__init__(files)
        self.reads: list[str] = []

    def read(self, path: str) -> str | None:
        self.reads.append(path)
        return super().read(path)


def test_launchers_and_project_files_are_read_once_per_content():
    """What a launcher forwards to and what a project file declares are kept by blob id: with a
    cache, the next run resolves the same commands without reading either."""
    launch = "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'evalkit', *sys.argv[1:]])\n"
    files = dict(HARNESS, **{"run.sh": 'python -m evalkit "$@"\n', "launch.py": launch})
    cache: dict[str, object] = {}
    commands = ("./run.sh run --model hf", "python launch.py run", "evalkit run")
    for run in ("cold", "warm"):
        tree = _ReadsCounted(files)
        found = programs(tree, cache)
        assert [found.owner_of(shlex.split(c), "") for c in commands] == ["evalkit/__main__.py"] * 3
        read = {p for p in tree.reads if p in ("run.sh", "launch.py", "pyproject.toml")}
        assert read == ({"run.sh", "launch.py", "pyproject.toml"} if run == "cold" else set())


def test_parsers_are_the_modules_the_entry_point_leads_to():
    found = programs(MemoryTree(HARNESS))

    # Through the package's re-export, the class, its subcommand's class: not evaluator.py.
    assert found.parsers("evalkit/__main__.py") == {"evalkit/_cli/harness.py", "evalkit/_cli/run.py"}
    # The script's own parser; importing simple_evaluate does not make it part of evalkit.
    assert found.parsers("scripts/convert.py") == {"scripts/convert.py"}
    assert found.programs_of("evalkit/_cli/run.py") == ("evalkit/__main__.py", "evalkit/_cli/run.py")
    assert found.programs_of("scripts/convert.py") == ("scripts/convert.py",)
    assert found.names_of("evalkit/__main__.py") == (
        "evalkit",
        "ek",
        "python -m evalkit",
        "python evalkit/__main__.py",
    )


def test_a_module_is_reached_through_the_names_it_is_used_by():
    files = {
        "setup.py": dedent(
            """
            setup(entry_points={"console_scripts": [
                "tool.generate = tool.generate:main",
                "tool.chat = tool.chat:main",
            ]})
            """
        ),
        "tool/__init__.py": "",
        "tool/generate.py": dedent(
            """
            import argparse


            def stream_generate(prompt):
                return prompt


            def setup_arg_parser():
                parser = argparse.ArgumentParser()
                parser.add_argument("--prompt")
                return parser


            def main():
                print(stream_generate(setup_arg_parser().parse_args().prompt))
            """
        ),
        "tool/chat.py": dedent(
            """
            import argparse

            from .generate import stream_generate
            from . import sampling as s


            def main():
                parser = argparse.ArgumentParser()
                parser.add_argument("--max-tokens")
                s.add_sampling_args(parser)
                stream_generate(parser.parse_args())
            """
        ),
        "tool/sampling.py": "def add_sampling_args(parser):\n    parser.add_argument('--temp')\n",
    }
    found = programs(MemoryTree(files))

    assert found.parsers("tool/chat.py") == {"tool/chat.py", "tool/sampling.py"}
    assert found.parsers("tool/generate.py") == {"tool/generate.py"}
    assert found.programs_of("tool/generate.py") == ("tool/generate.py",)
    assert found.programs_of("tool/sampling.py") == ("tool/chat.py", "tool/sampling.py")


def test_a_dispatcher_entry_point_hands_its_first_word_to_the_sibling_program():
    files = {
        "setup.py": (
            'setup(entry_points={"console_scripts": ["mlx_like = mlx_like.cli:main",'
            ' "mlx_like.generate = mlx_like.generate:main"]})\n'
        ),
        "mlx_like/__init__.py": "",
        "mlx_like/__main__.py": "if __name__ == '__main__':\n    from . import cli\n\n    cli.main()\n",
        "mlx_like/cli.py": dedent(
            """
            import importlib
            import sys


            def main():
                importlib.import_module(f"mlx_like.{sys.argv.pop(1)}").main()
            """
        ),
        "mlx_like/generate.py": dedent(
            """
            import argparse


            def main():
                parser = argparse.ArgumentParser()
                parser.add_argument("--prompt")
                parser.parse_args()
            """
        ),
    }
    found = programs(MemoryTree(files))

    for command in (
        "mlx_like generate --prompt hi",
        "python -m mlx_like generate --prompt hi",
        "mlx_like.generate",
    ):
        assert found.owner_of(shlex.split(command)) == "mlx_like/generate.py", command
    assert found.command(["mlx_like", "generate", "--prompt", "hi"]).args == ("--prompt", "hi")
    # A word that names nothing stays with the dispatcher.
    assert found.owner_of(["mlx_like", "nothing"]) == "mlx_like/cli.py"


def test_console_scripts_of_a_project_in_a_subfolder_and_a_src_layout():
    files = {
        "python/pyproject.toml": '[project.scripts]\nsrv = "srv.launch:main"\n',
        "python/srv/__init__.py": "",
        "python/srv/launch.py": "import argparse\n\n\ndef main():\n    argparse.add_argument('-p')\n",
        "pyproject.toml": '[project.scripts]\nlib = "lib.cli:main"\n',
        "src/lib/__init__.py": "",
        "src/lib/cli.py": "def main():\n    pass\n",
    }
    found = programs(MemoryTree(files))

    assert found.owner_of(["srv", "--port", "1"]) == "python/srv/launch.py"
    assert found.owner_of(["python", "-m", "srv.launch"]) == "python/srv/launch.py"
    assert found.owner_of(["lib"]) == "src/lib/cli.py"
    assert found.parsers("python/srv/launch.py") == {"python/srv/launch.py"}


def test_a_name_a_package_binds_by_a_star_import_leads_to_the_module_defining_it():
    files = {
        "pkg/__init__.py": "",
        "pkg/engine/__init__.py": "from .loop import *\nfrom .defaults import *\n",
        "pkg/engine/loop.py": "def run():\n    pass\n",
        "pkg/engine/defaults.py": (
            "import argparse\n\n\ndef default_parser():\n"
            "    p = argparse.ArgumentParser()\n    p.add_argument('--num-gpus')\n    return p\n"
            "\n\ndef _private_parser():\n    argparse.ArgumentParser().add_argument('--secret')\n"
        ),
        "tools/train.py": (
            "from pkg.engine import default_parser, run\n\nif __name__ == '__main__':\n"
            "    args = default_parser().parse_args()\n    run()\n"
        ),
        "tools/hidden.py": "from pkg.engine import _private_parser\n\n_private_parser()\n",
    }
    found = programs(MemoryTree(files))
    assert found.parsers("tools/train.py") == {"pkg/engine/defaults.py"}
    # A star import binds no name starting with an underscore.
    assert found.parsers("tools/hidden.py") == set()


def test_files_setup_py_installs_as_commands_are_the_entry_points_they_call():
    setup = dedent(
        """
        import sys
        from setuptools import setup
        if sys.platform == "win32":
            scripts = ["bin/launch.bat", "bin/ds"]
        else:
            scripts = ["bin/launch", "bin/ds", "bin/report"]
        setup(name="tool", scripts=scripts)
        """
    )
    files = {
        "setup.py": setup,
        "bin/ds": (
            "#!/usr/bin/env python3\nfrom tool.launcher.runner import main\n\n"
            "if __name__ == '__main__':\n    main()\n"
        ),
        "bin/launch": "ds",  # a symbolic link's blob: the name of its target beside it
        "bin/report": "#!/bin/sh\necho report\n",  # a shell script: no entry point of ours
        "tool/__init__.py": "",
        "tool/launcher/__init__.py": "",
        "tool/launcher/runner.py": (
            "import argparse\n\n\ndef main():\n    argparse.ArgumentParser().add_argument('--num_gpus')\n"
        ),
    }
    found = programs(MemoryTree(files))
    assert found.owner_of(["launch", "--num_gpus", "2", "train.py"]) == "tool/launcher/runner.py"
    assert found.owner_of(["ds", "--num_gpus", "2"]) == "tool/launcher/runner.py"
    assert found.owner_of(["report"]) is None
    # Only a script that calls the one function it imports is read as its entry point.
    two = "from a import x\nfrom b import y\nx()\ny()\n"
    assert programs(MemoryTree(dict(files, **{"bin/ds": two}))).owner_of(["ds"]) is None


# --- facts carry their programs ------------------------------------------------------------------


def flag_rule(*paths, names=()):
    return Rule(id="cli", docs=(), sources=(Source(id="cli", kind="argparse", paths=paths, programs=names),))


def test_flags_carry_the_keys_of_the_programs_that_take_them():
    facts = gather(flag_rule("evalkit/_cli/run.py", "scripts/convert.py"), MemoryTree(HARNESS))

    by_token = {f.token: f for f in facts.flags()}
    assert by_token["--model"].attr("programs") == "evalkit/__main__.py evalkit/_cli/run.py"
    assert by_token["--input"].attr("programs") == "scripts/convert.py"


def test_facts_for_a_command_are_its_programs_flags():
    tree = MemoryTree(HARNESS)
    rule = flag_rule("evalkit/_cli/harness.py", "evalkit/_cli/run.py", "scripts/convert.py")
    facts = gather(rule, tree).facts
    found = programs(tree)

    def tokens(command):
        got = found.facts_for(shlex.split(command), facts)
        return None if got is None else sorted(f.token for f in got)

    assert tokens("evalkit run --model hf") == ["--model", "--verbosity"]
    assert tokens("python scripts/convert.py --input x") == ["--input"]
    assert tokens("docker run --gpus all") is None
    # A script of the repository whose parser the facts do not cover: nothing to judge against.
    assert tokens("python examples/demo/train.py --steps 3") == []


def test_parser_modules_no_program_leads_to_extend_the_documented_command_line():
    files = {
        "train.py": "from pkg.arguments import parse_args\n\nif __name__ == '__main__':\n    parse_args()\n",
        "pkg/__init__.py": "",
        "pkg/arguments.py": dedent(
            """
            import argparse
            import importlib


            def parse_args():
                parser = argparse.ArgumentParser()
                parser.add_argument("--rollout-function-path")
                known, _ = parser.parse_known_args()
                importlib.import_module(known.rollout_function_path).add_arguments(parser)
                return parser.parse_args()
            """
        ),
        "pkg/rollout/multi_turn.py": "def add_arguments(parser):\n    parser.add_argument('--max-turns')\n",
        "tools/convert.py": "if __name__ == '__main__':\n    parser.add_argument('--input')\n",
    }
    tree = MemoryTree(files)
    facts = gather(flag_rule("pkg/arguments.py", "pkg/rollout/multi_turn.py"), tree).facts

    found = programs(tree)

    got = found.facts_for(["python", "train.py"], facts)
    assert got is not None
    assert sorted(f.token for f in got) == ["--max-turns", "--rollout-function-path"]
    # A script of another package with a parser of its own does not take them.
    assert found.facts_for(["python", "tools/convert.py"], facts) == []


def test_a_helper_module_one_script_leads_to_adds_its_flags_to_that_script_only():
    # Two training scripts of one repository, each adding the flags of its own helper module of
    # the shared `lib` package: `--sampling` of `lib/b_utils.py` is `train_b.py`'s, not `train_a.py`'s.
    main = "\n\nif __name__ == '__main__':\n    setup().parse_args()\n"
    files = {
        "lib/__init__.py": "",
        "lib/common.py": "def add_common(parser):\n    parser.add_argument('--seed')\n",
        "lib/a_utils.py": "def add_a(parser):\n    parser.add_argument('--sampling', default='sigma')\n",
        "lib/b_utils.py": "def add_b(parser):\n    parser.add_argument('--sampling', default='sigmoid')\n",
        "train_a.py": (
            "import argparse\nfrom lib import common, a_utils\n\ndef setup():\n"
            "    p = argparse.ArgumentParser()\n    common.add_common(p)\n    a_utils.add_a(p)\n"
            "    return p" + main
        ),
        "train_b.py": (
            "import argparse\nfrom lib import (\n    b_utils,\n    common,\n)\n\ndef setup():\n"
            "    p = argparse.ArgumentParser()\n    common.add_common(p)\n    b_utils.add_b(p)\n"
            "    return p" + main
        ),
    }
    tree = MemoryTree(files)
    sources = ("lib/common.py", "lib/a_utils.py", "lib/b_utils.py", "train_a.py", "train_b.py")
    facts = gather(flag_rule(*sources), tree).facts
    found = programs(tree)

    def taken(script: str) -> list[tuple[str, str]]:
        got = found.facts_for(["python", script], facts) or []
        return sorted((f.token, f.path) for f in got)

    assert taken("train_a.py") == [("--sampling", "lib/a_utils.py"), ("--seed", "lib/common.py")]
    assert taken("train_b.py") == [("--sampling", "lib/b_utils.py"), ("--seed", "lib/common.py")]


def test_a_rule_can_name_the_program_of_its_sources():
    files = {"pkg/__init__.py": "", "pkg/args.py": "def add(p):\n    p.add_argument('--lr')\n"}
    tree = MemoryTree(files)
    rule = flag_rule("pkg/args.py", names=("trainer", "bin/train"))
    facts = gather(rule, tree)
    found = programs(tree, named={"trainer": ["pkg/args.py"], "bin/train": ["pkg/args.py"]})

    (lr,) = facts.flags()
    assert lr.attr("programs") == "pkg/args.py"
    assert found.owner_of(["trainer", "--lr", "1"]) == "pkg/args.py"
    assert found.owner_of(["bin/train", "--lr", "1"]) == "pkg/args.py"
    assert [f.token for f in found.facts_for(["trainer", "--lr"], facts.facts) or []] == ["--lr"]
    assert "trainer" in found.names_of("pkg/args.py")


def flag(token, subcommand=None):
    attrs = (("subcommand", subcommand),) if subcommand else ()
    return Fact(kind="flag", token=token, key=token, source="s", path="p.py", line=1, attrs=attrs)


def test_subcommand_words_narrow_the_flags():
    flags = [
        flag("--verbosity"),
        flag("--model", "run"),
        flag("--tasks", "run,validate"),
        flag("--what", "ls"),
    ]

    def tokens(args):
        return [f.token for f in for_subcommand(flags, args)]

    assert tokens(["run", "--model", "hf"]) == ["--verbosity", "--model", "--tasks"]
    assert tokens(["validate", "--tasks", "x"]) == ["--verbosity", "--tasks"]
    assert tokens(["ls", "tasks"]) == ["--verbosity", "--what"]
    # No subcommand named (a legacy command line): every flag of the program.
    assert tokens(["--model", "hf"]) == ["--verbosity", "--model", "--tasks", "--what"]


def test_modules_too_deep_or_broken_to_read_are_skipped_not_raised():
    files = {
        "pyproject.toml": '[project.scripts]\ntool = "tool.main:main"\n',
        "tool/__init__.py": "",
        "tool/main.py": dedent(
            """
            from tool.deep import total
            from tool.broken import nothing
            from tool.args import build


            def main():
                total()
                nothing()
                build().parse_args()
            """
        ),
        "tool/deep.py": "import argparse\n\ndef total():\n    return " + " + ".join(["1"] * 3000) + "\n",
        "tool/broken.py": "def nothing(:\n",
        "tool/args.py": "import argparse\n\ndef build():\n    return parser().add_argument('-x')\n",
        "tool/minus.py": "x = " + "-" * 100_000 + "1\n",
    }
    found = programs(MemoryTree(files))

    assert found.parsers("tool/main.py") == {"tool/args.py"}
    assert found.owner_of(["python", "tool/minus.py"]) == "tool/minus.py"
    assert found.parsers("tool/minus.py") == frozenset()


def test_a_flag_moved_to_a_module_the_rule_does_not_read_is_still_declared():
    main = "from tool.args import get_parser\n\n\ndef main():\n    get_parser().parse_args()\n"
    base = {
        "pyproject.toml": '[project.scripts]\ntool = "tool.main:main"\n',
        "tool/__init__.py": "",
        "tool/main.py": main,
        "tool/args.py": dedent(
            """
            import argparse


            def get_parser():
                parser = argparse.ArgumentParser()
                parser.add_argument("--model")
                parser.add_argument("--opus", action="store_true")
                parser.add_argument("--gone", action="store_true")
                return parser
            """
        ),
    }
    head = dict(base)
    head["tool/args.py"] = dedent(
        """
        import argparse

        from tool.deprecated import add_deprecated_args


        def get_parser():
            parser = argparse.ArgumentParser()
            parser.add_argument("--model")
            add_deprecated_args(parser, parser.add_argument_group("Deprecated"))
            return parser
        """
    )
    head["tool/deprecated.py"] = "def add_deprecated_args(parser, group):\n    group.add_argument('--opus')\n"
    old = {f.token: f for f in gather(flag_rule("tool/args.py"), MemoryTree(base)).flags()}
    found = programs(MemoryTree(head))

    assert found.declares(old["--opus"])
    assert found.declares(old["--model"])
    assert not found.declares(old["--gone"])
    assert found.option_strings("tool/deprecated.py") == {"--opus"}


def test_click_and_typer_command_lines_are_the_modules_their_entry_points_lead_to():
    files = {
        "pyproject.toml": '[project.scripts]\nshop = "shop.cli:cli"\nshopctl = "shop.admin:app"\n',
        "shop/__init__.py": "",
        "shop/__main__.py": "from shop.cli import cli\n\ncli()\n",
        "shop/cli.py": dedent(
            """
            import click

            from shop.orders import orders
            from shop.util import slugify

            @click.group()
            @click.option("--store")
            def cli(store):
                pass

            cli.add_command(orders)
            """
        ),
        "shop/orders.py": dedent(
            """
            import click

            @click.command()
            @click.option("--since")
            def orders(since):
                pass
            """
        ),
        "shop/util.py": "import click\n\ndef slugify(text):\n    return click.style(text)\n",
        "shop/admin.py": dedent(
            """
            import typer

            app = typer.Typer()

            @app.command()
            def reindex(full: bool = False):
                pass
            """
        ),
    }
    found = programs(MemoryTree(files))
    # The group, and the command it adds from another module; not a helper that merely uses click.
    assert found.parsers("shop/cli.py") == {"shop/cli.py", "shop/orders.py"}
    assert found.parsers("shop/__main__.py") == {"shop/cli.py", "shop/orders.py"}
    assert found.parsers("shop/admin.py") == {"shop/admin.py"}
    assert found.owner_of(["shopctl", "--full"]) == "shop/admin.py"
    orders = [
        f
        for f in gather(Rule("r", (), (Source("c", "click", ("shop/orders.py",)),)), MemoryTree(files)).facts
    ]
    assert [f.token for f in orders] == ["--since"]
    assert found.declares(orders[0])


def test_commands_registered_on_the_programs_app_are_its_parsers():
    files = {
        "pyproject.toml": '[project.scripts]\nproj = "proj.cli:app"\n',
        "proj/__init__.py": "",
        "proj/cli/__init__.py": "from .main import app\nfrom .fetch import fetch\n",
        "proj/cli/main.py": "import typer\n\nOpt = typer.Option\napp = typer.Typer()\n",
        "proj/cli/fetch.py": dedent(
            """
            from .main import Opt, app

            @app.command()
            def fetch(force: bool = Opt(False, "--force")):
                pass
            """
        ),
        "proj/cli/helpers.py": "from .main import app\n\ndef name():\n    return app.info.name\n",
        "proj/other.py": "from proj.cli.main import app\n\n@app.command()\ndef other():\n    pass\n",
    }
    found = programs(MemoryTree(files))
    assert found.parsers("proj/cli/__init__.py") == {"proj/cli/main.py", "proj/cli/fetch.py"}


def test_a_launcher_the_repository_declares_runs_its_own_program_until_the_script():
    files = {
        "pyproject.toml": '[project]\nname = "runner"\n\n[project.scripts]\naccelerate = "runner.cli:main"\n',
        "runner/__init__.py": "",
        "runner/cli.py": "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--cpu')\n",
        "train.py": "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--lr')\n",
    }
    found = programs(MemoryTree(files))
    # Its options, before what it runs, are the launcher's own: the repository's program.
    assert found.command(["accelerate", "launch", "--cpu"]).args == ("launch", "--cpu")
    assert found.owner_of(["accelerate", "launch", "--num_processes", "2"]) == "runner/cli.py"
    # Once a script (or a placeholder for one) is named, the words are the script's.
    assert found.owner_of(["accelerate", "launch", "--cpu", "train.py", "--lr"]) == "train.py"
    assert found.owner_of(["accelerate", "launch", "{script.py}", "--lr"]) is None
    assert found.owner_of(["accelerate", "launch", "[args]", "{training_script}"]) is None
    # A usage line whose script is a placeholder documents the launcher: its own command.
    assert found.usage_of_own_launcher(["accelerate", "launch", "[args]", "{script}"]) == [
        "accelerate",
        "launch",
        "[args]",
    ]
    assert found.usage_of_own_launcher(["accelerate", "launch", "train.py"]) is None
    # Elsewhere the launcher is another project's: its options are nobody's here.
    assert owner(HARNESS, "accelerate launch --num_processes 2") is None
    assert programs(MemoryTree(HARNESS)).usage_of_own_launcher(["accelerate", "launch", "{s}"]) is None


def test_a_script_named_by_a_url_of_the_repository_is_its_file():
    """`uv run URL` and `hf jobs uv run [options] URL` run the repository's own script when the
    URL is of the repository the project files name; another repository's URL is nobody's."""
    files = {
        "pyproject.toml": '[project]\nname = "kit"\n\n[project.urls]\nHomepage = "https://github.com/Org/kit"\n',
        "kit/scripts/train.py": "import argparse\np = argparse.ArgumentParser()\np.add_argument('--steps')\n",
    }
    raw = "https://raw.githubusercontent.com/org/kit/main/kit/scripts/train.py"
    assert owner(files, f'uv run "{raw}" --steps 3') == "kit/scripts/train.py"
    assert owner(files, f"hf jobs uv run --flavor a10g --timeout 2h --secrets HF_TOKEN {raw} --steps 3") == (
        "kit/scripts/train.py"
    )
    deep = "https://raw.githubusercontent.com/org/kit/refs/heads/main/kit/scripts/train.py"
    assert owner(files, f"uv run {deep}") == "kit/scripts/train.py"
    blob = "https://github.com/org/kit/blob/v1/kit/scripts/train.py"
    assert owner(files, f"uv run {blob}") == "kit/scripts/train.py"
    assert owner(files, "uv run https://raw.githubusercontent.com/fork/kit/main/kit/scripts/train.py") is None
    assert owner(files, "uv run https://raw.githubusercontent.com/org/kit/main/kit/scripts/gone.py") is None


# A command line whose subcommands are modules the entry point imports in its own body and
# hands around (`CMD_MODULES = [...]`, then `module.cmd_init()` for each), one of them importing
# its own subcommands for what running them registers (`Base.__subclasses__()`).
LAZY_SUBCOMMANDS = {
    "pyproject.toml": '[project]\nname = "tool"\n[project.scripts]\ntool = "tool.cli.main:main"\n',
    "tool/__init__.py": "",
    "tool/cli/__init__.py": "",
    "tool/cli/main.py": dedent(
        """
        import argparse


        def main():
            import tool.cli.bench
            import tool.cli.serve
            import tool.cli.helpers

            modules = [tool.cli.serve, tool.cli.bench]
            parser = argparse.ArgumentParser()
            subparsers = parser.add_subparsers()
            for module in modules:
                for cmd in module.cmd_init():
                    cmd.subparser_init(subparsers)
            tool.cli.helpers.setup()
            parser.parse_args()
        """
    ),
    "tool/cli/serve.py": dedent(
        """
        import argparse

        from tool.serve_args import add_serve_args


        class Serve:
            def subparser_init(self, subparsers):
                return add_serve_args(subparsers.add_parser("serve"))


        def cmd_init():
            return [Serve()]
        """
    ),
    "tool/serve_args.py": "def add_serve_args(parser):\n    parser.add_argument('--port')\n",
    "tool/cli/bench.py": dedent(
        """
        import argparse

        from tool.cli.bench_base import BenchBase


        def _register():
            import tool.cli.bench_latency  # noqa: F401


        class Bench:
            def subparser_init(self, subparsers):
                _register()
                sub = subparsers.add_parser("bench").add_subparsers()
                for cls in BenchBase.__subclasses__():
                    cls.add_cli_args(sub.add_parser(cls.name))


        def cmd_init():
            return [Bench()]
        """
    ),
    "tool/cli/bench_base.py": "import argparse\n\n\nclass BenchBase:\n    name = ''\n",
    "tool/cli/bench_latency.py": dedent(
        """
        import argparse

        from tool.benchmarks.latency import add_cli_args
        from tool.cli.bench_base import BenchBase


        class Latency(BenchBase):
            name = "latency"

            @classmethod
            def add_cli_args(cls, parser):
                add_cli_args(parser)
        """
    ),
    "tool/benchmarks/__init__.py": "",
    "tool/benchmarks/latency.py": dedent(
        """
        def add_cli_args(parser):
            parser.add_argument("--num-iters")
            parser.add_argument("--warmup")
        """
    ),
    "tool/cli/helpers.py": dedent(
        """
        import argparse


        def setup():
            pass


        def add_debug_args(parser):
            parser.add_argument("--trace")
        """
    ),
}


def test_modules_imported_in_the_entry_point_and_handed_around_are_run_whole():
    found = programs(MemoryTree(LAZY_SUBCOMMANDS))

    parsers = found.parsers("tool/cli/main.py")
    # The modules in the list and the one a function imports for its effect, read whole.
    assert {"tool/serve_args.py", "tool/benchmarks/latency.py"} <= parsers
    # A module read through one of its functions (`tool.cli.helpers.setup()`) is that function.
    assert "tool/cli/helpers.py" not in parsers
    assert found.scripts_parsers() == parsers


def test_a_script_named_from_the_folder_the_project_is_cloned_into_is_its_own():
    tree = MemoryTree(
        {
            "setup.py": 'from setuptools import setup\nsetup(name="OpenNMT-py")\n',
            "tools/extract_vocabulary.py": "import argparse\np = argparse.ArgumentParser()\n",
        }
    )
    found = programs(tree)
    assert found.owner_of(["python3", "OpenNMT-py/tools/extract_vocabulary.py", "-out_file", "v"]) == (
        "tools/extract_vocabulary.py"
    )
    assert found.owner_of(["python3", "other/tools/extract_vocabulary.py"]) is None  # another project's


def test_a_container_running_a_script_of_ours_after_its_image_runs_ours():
    tree = MemoryTree(
        {"main.py": "import argparse\np = argparse.ArgumentParser()\np.add_argument('--model')\n"}
    )
    found = programs(tree)
    command = found.command(
        [
            "sudo",
            "docker",
            "run",
            "-v",
            "/data:/app/data:ro",
            "-it",
            "harness",
            "python3",
            "main.py",
            "--model",
            "m",
        ]
    )
    assert command is not None and (command.program, command.args) == ("main.py", ("--model", "m"))
    # The image's own entrypoint, given only options, is nothing of ours.
    assert found.command(["docker", "run", "--gpus", "all", "vllm/vllm-openai", "--model", "m"]) is None


# A command line made by a base class from what its subclasses say: the root lists command
# classes, a group class names its subcommands' classes in a class attribute, and the base class
# (the only module naming argparse's calls) adds a subparser for each and hands it to the class's
# own `parse_args`. The group's module names no argparse at all.
REGISTERED = {
    "setup.py": 'setup(entry_points={"console_scripts": ["tool-cli=tool.commands.cli:main"]})\n',
    "tool/__init__.py": "",
    "tool/commands/__init__.py": "from .base import BaseCommand, CommandInfo\n",
    "tool/commands/base.py": dedent(
        """
        from argparse import ArgumentParser
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class CommandInfo:
            name: str
            subcommand_class: type = None


        class BaseCommand:
            COMMAND: CommandInfo
            SUBCOMMANDS = ()

            def __init__(self, subparsers):
                self.parser = subparsers.add_parser(self.COMMAND.name)
                self.parse_args(self.parser)
                inner = self.parser.add_subparsers()
                for info in self.SUBCOMMANDS:
                    info.subcommand_class(inner, command=info)

            @staticmethod
            def parse_args(parser):
                pass


        class RootCommand(BaseCommand):
            def __init__(self):
                self.parser = ArgumentParser("tool-cli")
        """
    ),
    "tool/commands/cli.py": dedent(
        """
        from .base import RootCommand
        from .export import ExportCommand

        SUBCOMMANDS = [ExportCommand]


        def main():
            root = RootCommand()
            for command in SUBCOMMANDS:
                command(root.parser)
            root.parser.parse_args()
        """
    ),
    "tool/commands/export/__init__.py": "from .group import ExportCommand\n",
    "tool/commands/export/group.py": dedent(
        """
        from .. import BaseCommand, CommandInfo
        from .onnx import OnnxCommand


        class ExportCommand(BaseCommand):
            COMMAND = CommandInfo(name="export")
            SUBCOMMANDS = (CommandInfo(name="onnx", subcommand_class=OnnxCommand),)
        """
    ),
    "tool/commands/export/onnx.py": dedent(
        """
        from ..base import BaseCommand


        def parse_args_onnx(parser):
            parser.add_argument("--opset", type=int)


        class OnnxCommand(BaseCommand):
            @staticmethod
            def parse_args(parser):
                return parse_args_onnx(parser)
        """
    ),
    "tool/training/trainer.py": "from tool.commands.base import CommandInfo\n\n\nclass Trainer:\n    pass\n",
}


def test_the_classes_a_command_class_names_are_parts_of_its_command_line():
    found = programs(MemoryTree(REGISTERED))
    parsers = found.parsers("tool/commands/cli.py")
    assert "tool/commands/export/onnx.py" in parsers
    assert found.command(["tool-cli", "export", "onnx", "--opset", "17"]).program == "tool/commands/cli.py"
    # A class deriving from no parser-making class is not followed out of a module naming no
    # argparse: the trainer, which only imports a name of the commands' package, is no parser.
    assert "tool/training/trainer.py" not in parsers
