"""vanished: a page still citing, in code style, a name the change took out of its rule's sources."""

from __future__ import annotations

import textwrap

from bot.core.check import audit, check
from bot.core.check.codenames import cited_name
from bot.core.facts import TOKENS_FORMAT
from bot.core.packs import parse_rules_file
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import changes_between, line_of

CONFIG = """\
rules:
  - id: launchers
    docs: [{path: "docs/*.md"}]
    sources:
      - {id: scripts, kind: tokens, paths: ["scripts/**"]}
      - {id: api, kind: symbols, path: pkg/api.py}
"""

RUN_SH = textwrap.dedent(
    """\
    #!/bin/bash
    MODEL_ARGS=(--num-layers 36)
    PERF_ARGS=(--tensor-model-parallel-size 2)
    python3 train.py ${MODEL_ARGS[@]} ${PERF_ARGS[@]} --save "$SAVE_DIR"
    """
)
# The same launcher in Python: its flags built by functions, MODEL_ARGS named in comments and a
# docstring only.
RUN_PY = textwrap.dedent(
    '''\
    """Qwen3 launcher: MODEL_ARGS come from scripts/models/qwen3.py."""
    import os

    # What MODEL_ARGS held is now model_flags().
    def perf_args(tp):
        return f"--tensor-model-parallel-size {tp}"

    def main():
        save_dir = os.environ.get("SAVE_DIR", "/tmp")
        return perf_args(2), save_dir
    '''
)
HELPER = "SAVE_DIR=/root/ckpt\necho $SAVE_DIR\n"
API = "def start_run(name):\n    pass\n"
PAGE = textwrap.dedent(
    """\
    # Launching

    The architecture flags live in `MODEL_ARGS`; parallelism goes into `PERF_ARGS`.

    | Array | Holds |
    |---|---|
    | `PERF_ARGS` | TP, PP and CP sizes |

    Checkpoints go to `$SAVE_DIR`, written by `python` through `ray`. Call `start_run` to begin.

    ```bash
    read -ra MODEL_ARGS <<< "$(python3 model_args.py)"
    python3 train.py ${MODEL_ARGS[@]}
    ```
    """
)
BASE = {
    "scripts/run-qwen3.sh": RUN_SH,
    "scripts/common.sh": HELPER,
    "pkg/api.py": API,
    "docs/launch.md": PAGE,
}


def tokenized(cache: dict[str, object]) -> list[str]:
    """The files whose names were read into the cache (not the words of removed lines)."""
    return [k for k in cache if k.startswith(f"{TOKENS_FORMAT}:") and ":removed:" not in k]


def run(base: dict[str, str], head: dict[str, str], config: str = CONFIG, cache=None):
    rules = [r for p in parse_rules_file(config, "cfg.yml") for r in p.rules]
    return check(rules, MemoryTree(base), MemoryTree(head), changes_between(base, head), cache).findings


def vanished(findings):
    return [(f.symbol, f.doc.line) for f in findings if f.kind == "vanished"]


def replaced_by_python(base=BASE):
    head = {k: v for k, v in base.items() if k != "scripts/run-qwen3.sh"}
    return {**head, "scripts/run_qwen3.py": RUN_PY}


def test_a_launcher_replaced_flags_every_line_citing_a_name_it_no_longer_uses():
    findings = run(BASE, replaced_by_python())
    prose, row = line_of(PAGE, "architecture flags"), line_of(PAGE, "| `PERF_ARGS` |")
    assert sorted(vanished(findings)) == [("MODEL_ARGS", prose), ("PERF_ARGS", prose), ("PERF_ARGS", row)]
    f = next(f for f in findings if f.symbol == "PERF_ARGS")
    assert (f.severity, f.suggestion) == ("warning", None)
    assert "`PERF_ARGS` is no longer used" in f.message and "scripts/run-qwen3.sh:3" in f.message
    assert (f.code.path, f.code.line) == ("scripts/run-qwen3.sh", 3)  # the deleted launcher's line


def test_comments_and_docstrings_do_not_keep_a_name_alive():
    # RUN_PY names MODEL_ARGS twice, in a comment and in its docstring: still vanished.
    assert ("MODEL_ARGS", line_of(PAGE, "architecture flags")) in vanished(run(BASE, replaced_by_python()))


def test_a_name_still_used_by_another_source_does_not_vanish():
    # SAVE_DIR left run-qwen3.sh, but common.sh still sets it (and run_qwen3.py reads it).
    names = {symbol for symbol, _ in vanished(run(BASE, replaced_by_python()))}
    assert "$SAVE_DIR" not in names
    # The launcher loses PERF_ARGS, and another launcher the change did not touch still uses it.
    base = {**BASE, "scripts/run-llama.sh": "PERF_ARGS=(--pp 2)\ntrain ${PERF_ARGS[@]}\n"}
    assert {s for s, _ in vanished(run(base, replaced_by_python(base)))} == {"MODEL_ARGS"}


def test_plain_words_and_fenced_blocks_are_never_flagged():
    # `python` and `ray` left the code too (no launcher calls them now); the fence's MODEL_ARGS
    # is the page's own command.
    base = {**BASE, "scripts/cluster.py": "import ray\n\npython = 'python3'\nray.init()\n"}
    head = {k: v for k, v in replaced_by_python(base).items() if k != "scripts/cluster.py"}
    found = vanished(run(base, head))
    assert {s for s, _ in found} == {"MODEL_ARGS", "PERF_ARGS"}
    fence = line_of(PAGE, "read -ra")
    assert all(line < fence for _, line in found)


def test_only_names_that_look_like_a_programs_own():
    assert cited_name("PERF_ARGS") == "PERF_ARGS"
    assert cited_name("dp_shard") == "dp_shard"
    assert cited_name("FSDPTrainRayActor") == "FSDPTrainRayActor"
    assert cited_name("$HOME") == cited_name("${HOME}") == "HOME"
    for word in ("python", "ray", "TP", "Qwen3", "__init__", "None", "x.y_z", "--perf-args", "$1"):
        assert cited_name(word) is None, word


def test_an_environment_variable_the_code_stopped_reading():
    base = {
        "pkg/api.py": API + 'DEBUG = os.getenv("MILES_DEBUG")\nNODES = os.environ["MILES_NUM_NODES"]\n',
        "docs/env.md": "# Environment\n\n- `MILES_DEBUG`: verbose logs.\n- `MILES_NUM_NODES`: node count.\n",
    }
    head = {**base, "pkg/api.py": API + 'NODES = os.environ["MILES_NUM_NODES"]\n'}
    config = CONFIG.replace('      - {id: scripts, kind: tokens, paths: ["scripts/**"]}\n', "")
    findings = [f for f in run(base, head, config) if f.kind == "vanished"]
    assert [(f.symbol, f.doc.line) for f in findings] == [("MILES_DEBUG", 3)]
    assert findings[0].message.startswith("the environment variable `MILES_DEBUG` is no longer read")


def test_a_removed_symbol_is_reported_once_as_removed():
    head = {**BASE, "pkg/api.py": "def begin_run(name):\n    pass\n"}
    findings = run(BASE, head)
    assert [(f.kind, f.symbol) for f in findings if f.symbol == "start_run"] == [("removed", "start_run")]


def test_external_names_are_left_alone():
    config = CONFIG + '    external: ["PERF_*"]\n'
    assert {s for s, _ in vanished(run(BASE, replaced_by_python(), config))} == {"MODEL_ARGS"}


def test_a_page_written_with_the_change_still_gets_told():
    head = replaced_by_python()
    head["docs/launch.md"] = PAGE.replace("# Launching", "# Launching Qwen3")
    assert len(vanished(run(BASE, head))) == 3


def test_audit_reports_no_vanished_names():
    rules = [r for p in parse_rules_file(CONFIG, "cfg.yml") for r in p.rules]
    assert not [f for f in audit(rules, MemoryTree(BASE)).findings if f.kind == "vanished"]


def test_no_names_are_computed_when_no_page_cites_one():
    quiet = {**BASE, "docs/launch.md": "# Launching\n\nRun the launcher with `--help`.\n"}
    cache: dict[str, object] = {}
    assert run(quiet, replaced_by_python(quiet), cache=cache) == ()
    assert not tokenized(cache)  # no source was tokenized
    cache.clear()
    assert vanished(run(BASE, replaced_by_python(), cache=cache))
    assert tokenized(cache)


def test_a_cached_check_finds_the_same():
    cache: dict[str, object] = {}
    first = run(BASE, replaced_by_python(), cache=cache)
    assert run(BASE, replaced_by_python(), cache=cache) == first
    assert len(vanished(first)) == 3


ENV_CONFIG = """\
rules:
  - id: env
    docs: [{path: "docs/*.md"}]
    sources:
      - {id: api, kind: symbols, path: pkg/api.py}
"""
ENV_API = 'import os\n\nNODES = os.environ.get("MILES_NUM_NODES", "1")\nDEBUG = os.getenv("MILES_DEBUG")\n'


def test_a_doc_edit_citing_a_near_miss_of_an_environment_variable_the_code_reads():
    base = {"pkg/api.py": ENV_API, "docs/env.md": "# Environment\n\nNothing yet.\n"}
    page = (
        "# Environment\n\nSet `MILES_NUM_NODE` to the node count, `$MILES_DEBUGS` for logs.\n"
        "`CUDA_VISIBLE_DEVICES` and `MILES_BRAND_NEW` are passed through.\n"
    )
    findings = run(base, {**base, "docs/env.md": page}, ENV_CONFIG)
    assert [(f.kind, f.symbol, f.doc.line) for f in findings] == [
        ("unresolved", "$MILES_DEBUGS", 3),
        ("unresolved", "MILES_NUM_NODE", 3),
    ]
    assert findings[1].message.endswith("does not read `MILES_NUM_NODE`; did you mean `MILES_NUM_NODES`?")
    assert findings[0].suggestion.replacement == (
        "Set `MILES_NUM_NODES` to the node count, `$MILES_DEBUG` for logs."
    )


def test_a_variable_one_word_away_from_one_the_code_reads_is_another_variable():
    # crewAI's Datadog guide: `CREWAI_PLUS_ID` is set by the hosted platform; the code reads
    # `CREWAI_USER_ID`, another word, not the same one mistyped.
    api = 'import os\n\nUSER = os.getenv("CREWAI_USER_ID", "")\n'
    base = {"pkg/api.py": api, "docs/env.md": "# Environment\n\nNothing yet.\n"}
    page = "# Environment\n\nTagged when `CREWAI_PLUS_ID` is set; `CREWAI_USR_ID` names the user.\n"
    findings = run(base, {**base, "docs/env.md": page}, ENV_CONFIG)
    assert [(f.symbol, f.suggestion.replacement if f.suggestion else None) for f in findings] == [
        ("CREWAI_USR_ID", "Tagged when `CREWAI_PLUS_ID` is set; `CREWAI_USER_ID` names the user.")
    ]


def test_a_source_that_names_no_cited_variable_nor_the_environment_is_not_read_for_them():
    # pkg/broken.py does not tokenize, so it could use any name past where it stops, but its text
    # writes neither the cited variable nor `environ`/`getenv`: the near miss is still reported.
    config = ENV_CONFIG.replace("path: pkg/api.py}", "paths: [pkg/api.py, pkg/broken.py]}")
    base = {
        "pkg/api.py": ENV_API,
        "pkg/broken.py": 'X = """never closed\n',
        "docs/env.md": "# Env\n\nNone.\n",
    }
    page = "# Env\n\nSet `MILES_NUM_NODE` to the node count.\n"
    (finding,) = run(base, {**base, "docs/env.md": page}, config)
    assert finding.symbol == "MILES_NUM_NODE"
    # One that writes the variable (here in its unclosed string) may use it: nothing is said.
    broken = 'X = """MILES_NUM_NODE never closed\n'
    assert (
        run({**base, "pkg/broken.py": broken}, {**base, "pkg/broken.py": broken, "docs/env.md": page}, config)
        == ()
    )


def test_a_variable_the_sources_name_in_a_help_text_is_no_near_miss():
    # The sources read PIPX__DOC_DEFAULT_PYTHON and tell of PIPX_DEFAULT_PYTHON in a help text;
    # another module reads that one.
    api = (
        'import os\n\nHELP = "environment variables:\\n  PIPX_DEFAULT_PYTHON  the default python\\n"\n'
        'DOC_PYTHON = os.getenv("PIPX__DOC_DEFAULT_PYTHON", "python3")\n'
    )
    base = {"pkg/api.py": api, "docs/env.md": "# Environment\n\nNothing yet.\n"}
    page = "# Environment\n\nSet `PIPX_DEFAULT_PYTHON` to pick the python.\n"
    assert run(base, {**base, "docs/env.md": page}, ENV_CONFIG) == ()
    typo = "# Environment\n\nSet `PIPX_DOC_DEFAULT_PYTHON` to pick the python.\n"
    (finding,) = run(base, {**base, "docs/env.md": typo}, ENV_CONFIG)
    assert finding.symbol == "PIPX_DOC_DEFAULT_PYTHON"


def test_lines_the_change_did_not_write_are_not_judged_for_environment_variables():
    page = "# Environment\n\nSet `MILES_NUM_NODE`.\n"
    base = {"pkg/api.py": ENV_API, "docs/env.md": page}
    head = {**base, "pkg/api.py": ENV_API + "X = 1\n"}
    assert run(base, head, ENV_CONFIG) == ()


def test_no_source_is_tokenized_when_no_removed_line_names_a_cited_name():
    # The page cites PERF_ARGS and MODEL_ARGS; the change only adds a line to the launcher.
    cache: dict[str, object] = {}
    head = {**BASE, "scripts/run-qwen3.sh": RUN_SH + "echo done\n"}
    assert run(BASE, head, cache=cache) == ()
    assert not tokenized(cache)
    # A line holding PERF_ARGS commented out: the name is on a removed line, and gone from code.
    commented = RUN_SH.replace("PERF_ARGS=(", "# PERF_ARGS=(").replace(" ${PERF_ARGS[@]}", "")
    found = vanished(run(BASE, {**BASE, "scripts/run-qwen3.sh": commented}, cache=cache))
    assert {s for s, _ in found} == {"PERF_ARGS"}


def test_a_name_the_page_sets_up_itself_before_citing_it_is_the_pages():
    # The page's own snippet defines MODEL_ARGS, then its prose explains it: the page's name.
    own = textwrap.dedent(
        """\
        # Quick start

        ```bash
        read -ra MODEL_ARGS <<< "$(python3 model_args.py)"
        PERF_ARGS=(--tp 2)
        ```

        `MODEL_ARGS` is the architecture; `PERF_ARGS` the parallelism.
        """
    )
    base = {**BASE, "docs/launch.md": own}
    assert vanished(run(base, replaced_by_python(base))) == []
    # Cited before the snippet (PAGE's prose comes first), it is the launchers' name: vanished.
    assert ("MODEL_ARGS", line_of(PAGE, "architecture flags")) in vanished(run(BASE, replaced_by_python()))


def test_a_name_the_package_still_uses_beside_the_sources_does_not_vanish():
    config = """\
rules:
  - id: api
    docs: [{path: "docs/*.md"}]
    sources:
      - {id: loader, kind: symbols, path: pkg/loader.py}
"""
    page = "# Load\n\nCall `from_pretrained`, then `load_shards`.\n"
    base = {
        "pkg/loader.py": "def load(m):\n    m.from_pretrained('x')\n    m.load_shards()\n",
        "pkg/other.py": "def other(m):\n    return m.from_pretrained('y')\n",
        "examples/run.py": "m.load_shards()\n",
        "docs/load.md": page,
    }
    head = {**base, "pkg/loader.py": "def load(m):\n    return m\n"}
    # from_pretrained lives on in pkg/; load_shards only in examples/, another part of the repository.
    assert vanished(run(base, head, config)) == [("load_shards", 3)]


def test_an_environment_variable_click_now_reads_for_an_option_is_still_read():
    # flask 2.2: `os.environ.get("FLASK_APP")` gave way to the `--app` option, which click reads
    # from FLASK_APP under the group's auto_envvar_prefix.
    config = (
        "rules:\n  - id: cli\n    docs: [{path: docs/cli.md}]\n"
        "    sources: [{id: cli, kind: click, path: app/cli.py}]\n"
    )
    page = "Set `FLASK_APP` to the module, or pass `--debug`.\n"
    before = (
        "import os\nimport click\n\n@click.group()\n@click.option('--debug', is_flag=True)\n"
        "def cli(debug):\n    return os.environ.get('FLASK_APP')\n"
    )
    after = (
        "import click\n\n@click.group(context_settings={'auto_envvar_prefix': 'FLASK'})\n"
        "@click.option('--app')\n@click.option('--debug', is_flag=True)\n"
        "def cli(app, debug):\n    return app\n"
    )
    base = {"app/cli.py": before, "docs/cli.md": page}
    assert vanished(run(base, {**base, "app/cli.py": after}, config, {})) == []
    gone = (
        "import click\n\n@click.group()\n@click.option('--debug', is_flag=True)\ndef cli(debug):\n    pass\n"
    )
    assert vanished(run(base, {**base, "app/cli.py": gone}, config, {})) == [("FLASK_APP", 1)]


def test_another_packages_name_the_sources_stopped_using_is_that_packages():
    config = CONFIG.replace('paths: ["scripts/**"]', 'paths: ["scripts/**", "pkg/**"]')
    model = (
        "from torch import nn\nfrom transformers.modeling_outputs import ModelOutput\n"
        "from pkg.api import start_run\n\n"
        "def build(x):\n    start_run(x)\n    return ModelOutput(norm=nn.LayerNorm(8)), load_model_state(x)\n"
    )
    page = "# Notes\n\nWrap outputs in `ModelOutput`; `LayerNorm` keeps `load_model_state` stable.\n"
    base = {"pkg/api.py": API, "pkg/model.py": model, "docs/notes.md": page}
    head = {"pkg/api.py": API, "docs/notes.md": page}
    # transformers' ModelOutput and torch's LayerNorm are still theirs; the file's own name is gone
    assert vanished(run(base, head, config)) == [("load_model_state", 3)]
