"""The command lines a launcher script forwards its arguments to, read without running it."""

from __future__ import annotations

from bot.core.extract.launchers import MAX_BYTES, Forward, beside, python_forwards, shell_forwards


def test_shell_commands_that_forward_their_arguments():
    text = (
        "#!/bin/bash\n"
        "set -euo pipefail\n"
        '# python old.py "$@"\n'
        'cd "$(dirname "$0")"\n'
        "CUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node=8 \\\n"
        '   -m pkg.train --config "my cfg.yaml" "$@" 2>&1 | tee log.txt\n'
        'main() { python "$(dirname "$0")/train.py" ${@}; }\n'
        'if [ -n "$X" ]; then python -m pkg.eval $*; fi\n'
        'exec "$@"\n'
        'echo unclosed "quote $@\n'
    )
    assert [f.words for f in shell_forwards(text)] == [
        [
            "CUDA_VISIBLE_DEVICES=0",
            "torchrun",
            "--nproc_per_node=8",
            "-m",
            "pkg.train",
            "--config",
            "my cfg.yaml",
        ],
        ["python", "$(dirname $0)/train.py"],
        ["python", "-m", "pkg.eval"],
    ]
    assert shell_forwards("python train.py --lr 1\n") == []


def test_shell_reads_are_bounded():
    line = 'python -m pkg.train "$@"\n'
    assert shell_forwards("#" * MAX_BYTES + "\n" + line) == []
    assert len(shell_forwards(line * 1000)) == 16


def test_a_path_beside_the_script():
    assert beside("$(dirname $0)/train.py") == "train.py"
    assert beside("${SCRIPT_DIR}/../pkg/train.py") == "../pkg/train.py"
    assert beside("$DIR/x.py") == "x.py"
    assert beside("pkg/train.py") is None


def test_python_commands_that_forward_sys_argv():
    text = (
        "import os, subprocess, sys\n"
        'subprocess.run([sys.executable, "-m", "pkg.train", *sys.argv[1:]], check=True)\n'
        'os.execvp("python", ["python", "t.py", "--x"] + sys.argv[1:])\n'
        "subprocess.run([sys.executable, SCRIPT, *sys.argv[1:]])\n"  # a word the file does not spell
        'print(["a", *sys.argv[2:]])\n'
    )
    assert python_forwards(text) == [
        Forward(["python", "-m", "pkg.train"]),
        Forward(["python", "t.py", "--x"]),
    ]
    assert python_forwards("import sys\nmain(sys.argv[1:])\n") == []  # the script's own main
    imported = (
        "import sys\nimport pkg.serve as serve\nfrom pkg.train import main as train_main\n"
        "from . import local\n"
        "train_main(sys.argv[1:])\nserve.main(sys.argv[1:])\nlocal.main(sys.argv[1:])\n"
    )
    assert python_forwards(imported) == [
        Forward(["python", "-m", "pkg.train"]),
        Forward(["python", "-m", "pkg.serve"]),
    ]


def test_a_variable_the_shell_script_sets_is_its_value():
    text = (
        "SCRIPT=pkg/train.py\n"
        'export ENTRY="$(dirname "$0")/train.py"\n'
        "TWICE=a.py\nTWICE=b.py\n"
        'python $SCRIPT "$@"\npython "${ENTRY}" ${@}\npython $TWICE "$@"\npython $UNSET/x.py "$@"\n'
    )
    assert [f.words for f in shell_forwards(text)] == [
        ["python", "pkg/train.py"],
        ["python", "$(dirname $0)/train.py"],
        ["python", "$TWICE"],
        ["python", "$UNSET/x.py"],
    ]
    assert python_forwards("def (:\n sys.argv") == []


def test_branches_a_first_argument_selects():
    text = (
        'case "$1" in\n'
        '  train)    shift; exec python train.py "$@" ;;\n'
        "  eval|test)\n"
        "    shift\n"
        '    python evaluate.py "$@"\n'
        "    ;;\n"
        '  *) echo "usage: $0 train|eval" ;;\n'
        "esac\n"
        'if [ "$1" = "export" ]; then\n'
        '  shift; python export.py "$@"\n'
        "fi\n"
        'python report.py "$@"\n'
    )
    assert shell_forwards(text) == [
        Forward(["python", "train.py"], ("train",)),
        Forward(["python", "evaluate.py"], ("eval", "test")),
        Forward(["python", "export.py"], ("export",)),
        Forward(["python", "report.py"]),
    ]
