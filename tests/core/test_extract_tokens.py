"""The names a file uses in code: Python through tokenize, shell through a small scanner."""

import textwrap

from bot.core.extract import extract
from bot.core.extract.tokens import code_tokens, language, python_tokens, shell_tokens
from bot.core.rules import Source

LAUNCHER_PY = textwrap.dedent(
    '''\
    """Launch Qwen3-4B. The old script built MODEL_ARGS and PERF_ARGS arrays."""
    import os

    # MODEL_ARGS now come from scripts/models/qwen3-4B.py
    def perf_args(tp):
        """Parallelism flags (what PERF_ARGS held)."""
        return f"--tensor-model-parallel-size {tp} --seq {SEQ_LEN}"

    def main():
        debug = os.environ["MILES_DEBUG"]
        nodes = os.environ.get("MILES_NUM_NODES", "1")
        ray = os.getenv('MILES_EXTERNAL_RAY')
        if "MILES_DASHBOARD" not in os.environ:
            pass
        env = {"PYTHONPATH": "/root/Megatron-LM", "mode": "flash_attention_2"}
        return perf_args(int(nodes)), debug, ray, env
    '''
)


def test_python_names_are_code_tokens_not_comments_or_docstrings():
    tokens = python_tokens(LAUNCHER_PY)
    assert {"perf_args", "main", "tp", "debug", "os"} <= tokens.names.keys()
    assert "MODEL_ARGS" not in tokens.names  # a comment and a docstring only
    assert "PERF_ARGS" not in tokens.names
    assert tokens.names["perf_args"] == 5  # the first line that uses it
    assert not tokens.uses("MODEL_ARGS")


def test_python_names_inside_fstring_expressions_count():
    assert "SEQ_LEN" in python_tokens(LAUNCHER_PY).names


def test_environment_reads_are_names_and_env_vars():
    tokens = python_tokens(LAUNCHER_PY)
    read = {"MILES_DEBUG", "MILES_NUM_NODES", "MILES_EXTERNAL_RAY", "MILES_DASHBOARD"}
    assert tokens.env == read
    assert read <= tokens.names.keys()
    assert tokens.names["MILES_DEBUG"] == 10


def test_string_literals_are_uses_but_not_names():
    # A dict key or a value: at head it shows the name is still spelled out in code; at base it
    # is no evidence of a name (a default like "flash_attention_2" is the other checks' business).
    tokens = python_tokens(LAUNCHER_PY)
    assert "PYTHONPATH" not in tokens.names and tokens.uses("PYTHONPATH")
    assert "flash_attention_2" in tokens.literals
    assert tokens.uses("MILES_DEBUG")


def test_a_command_line_in_a_string_uses_its_variables():
    tokens = python_tokens('cmd = f"CUDA_HOME={home} python3 train.py ${EXTRA_ARGS}"\n')
    assert {"CUDA_HOME", "EXTRA_ARGS"} <= tokens.literals
    assert "home" in tokens.names


def test_an_untokenizable_file_says_where_it_stopped():
    tokens = python_tokens("def f(:\n    x = (1,\n")
    assert tokens.error is not None


SHELL = textwrap.dedent(
    """\
    #!/bin/bash
    # PERF_ARGS=(--tensor-model-parallel-size 2)   a comment, not code
    MODEL_ARGS_LINE="$(python3 model_args.py "$FAMILY")" || exit 1
    read -ra MODEL_ARGS <<< "${MODEL_ARGS_LINE}"
    export WANDB_KEY BASE_DIR=/root
    for node in 1 2; do echo "$node"; done
    echo '$NOT_EXPANDED' x#y "${CKPT_ARGS[@]}" ${#ROLLOUT_ARGS[@]}
    cat <<EOF
    expanded $IN_HEREDOC # no comment here
    EOF
    cat <<'EOF'
    $QUOTED_HEREDOC
    EOF
    python3 train.py ${MODEL_ARGS[@]} \\
       --save "$SAVE_DIR"  # --load $OLD_DIR
    """
)


def test_shell_variables_assigned_or_expanded():
    names = shell_tokens(SHELL).names
    expected = {
        "MODEL_ARGS_LINE",
        "FAMILY",
        "MODEL_ARGS",
        "WANDB_KEY",
        "BASE_DIR",
        "node",
        "CKPT_ARGS",
        "ROLLOUT_ARGS",
        "IN_HEREDOC",
        "SAVE_DIR",
    }
    assert expected <= names.keys()
    assert names["MODEL_ARGS"] == 4
    assert "in" not in names  # `for node in`: one variable


def test_shell_comments_single_quotes_and_quoted_heredocs_are_no_code():
    names = shell_tokens(SHELL).names
    assert not {"PERF_ARGS", "NOT_EXPANDED", "QUOTED_HEREDOC", "OLD_DIR"} & names.keys()


def test_the_language_comes_from_the_suffix_or_the_shebang():
    assert language("scripts/run.py", "") == "python"
    assert language("scripts/run.sh", "") == "shell"
    assert language("scripts/run", "#!/usr/bin/env bash\necho") == "shell"
    assert language("scripts/run", "#!/usr/bin/env python3\n") == "python"
    assert language("scripts/README.md", "# Launchers\n") is None
    assert code_tokens("scripts/config.yaml", "PERF_ARGS: 1\n") is None


def test_a_tokens_source_yields_no_facts():
    source = Source(id="launchers", kind="tokens", paths=("scripts/run.py",))
    assert extract(source, "scripts/run.py", LAUNCHER_PY).facts == ()


def test_shell_assignments_after_other_words_and_separators():
    names = shell_tokens("FOO=1 BAR=2 cmd; BAZ=3 && QUX=4 run x#y=1 --opt=$VAL\n").names
    assert {"FOO", "BAR", "BAZ", "QUX", "VAL"} <= names.keys()
    assert "y" not in names and "opt" not in names
