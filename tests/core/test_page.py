import textwrap
import time

from bot.core.anchors import github_anchor
from bot.core.page import DocPage, Ref, parse_doc
from bot.core.spans import command_words, first_command_word, split_span
from tests.miles import miles_file


def page(src: str) -> DocPage:
    return parse_doc("docs/page.md", textwrap.dedent(src).lstrip("\n"))


def refs(p: DocPage, token: str) -> list[Ref]:
    return [r for r in p.refs if r.token == token]


def only(p: DocPage, token: str) -> Ref:
    (ref,) = refs(p, token)
    return ref


def claims(p: DocPage) -> list[tuple[str | None, str, int, str]]:
    return [(c.subject, c.value, c.line, c.text) for c in p.claims]


# --- sections and anchors --------------------------------------------------------------------

OUTLINE = """
---
title: Engines
description: front matter is not a heading
---
Intro that cites `--alpha`.

# Engines guide

## FSDP

### 2. Choosing the parallelism

Text.

### Going deeper: bringing in a new architecture

## FSDP

### 3. Precision
last line
"""


def test_sections_paths_and_lines():
    p = page(OUTLINE)
    got = [(s.title, s.path, s.level, s.line, s.end_line) for s in p.sections]
    assert got == [
        ("", "", 0, 1, 6),
        ("Engines guide", "Engines guide", 1, 7, 8),
        ("FSDP", "Engines guide > FSDP", 2, 9, 10),
        ("2. Choosing the parallelism", "Engines guide > FSDP > 2. Choosing the parallelism", 3, 11, 14),
        (
            "Going deeper: bringing in a new architecture",
            "Engines guide > FSDP > Going deeper: bringing in a new architecture",
            3,
            15,
            16,
        ),
        ("FSDP", "Engines guide > FSDP", 2, 17, 18),
        ("3. Precision", "Engines guide > FSDP > 3. Precision", 3, 19, 20),
    ]
    assert len(p.lines) == 20 and p.lines[19] == "last line"


def test_front_matter_is_ignored_but_keeps_line_numbers():
    p = page(OUTLINE)
    alpha = only(p, "--alpha")
    assert alpha.line == 5 and p.lines[4].startswith("Intro")
    assert alpha.section.level == 0
    assert not any(s.title == "Engines" for s in p.sections)
    assert refs(p, "title") == [] and refs(p, "front") == []


def test_github_anchors_with_duplicates():
    p = page(OUTLINE)
    assert [s.anchor for s in p.sections[1:]] == [
        "engines-guide",
        "fsdp",
        "2-choosing-the-parallelism",
        "going-deeper-bringing-in-a-new-architecture",
        "fsdp-1",
        "3-precision",
    ]
    assert github_anchor("The other half: SGLang") == "the-other-half-sglang"
    assert github_anchor("Use `--fsdp_cpu` & co.") == "use---fsdp_cpu--co"
    assert "fsdp-1" in p.anchors and "" not in p.anchors


def test_explicit_anchors_and_heading_markup():
    p = page("""
        ## The `--train-backend` flag

        <a id="parallelism-compatibility" />

        See <a name="inline-spot"></a> here.
        """)
    assert p.sections[0].title == "The --train-backend flag"
    assert p.sections[0].anchor == "the---train-backend-flag"
    assert {"parallelism-compatibility", "inline-spot", "the---train-backend-flag"} <= p.anchors
    assert only(p, "--train-backend").line == 1


def test_section_at_and_refs_on():
    p = page(OUTLINE)
    assert p.section_at(1).level == 0
    assert p.section_at(12).title == "2. Choosing the parallelism"
    assert p.section_at(20).title == "3. Precision"
    assert [r.token for r in p.refs_on(5)] == ["--alpha"]
    assert p.refs_on(6) == ()


# --- refs ------------------------------------------------------------------------------------


def test_paragraph_refs_get_exact_lines_and_columns():
    p = page("""
        Plain --foo in prose is not cited, but `--foo` is, and `--foo` again
        on the first line. The next line has `pkg/mod.py` and
        a span that wraps `--bar
        baz` before one more `--foo`.
        """)
    foo = refs(p, "--foo")
    assert [(r.line, r.col) for r in foo] == [(1, 40), (1, 56), (4, 22)]
    for r in p.refs:
        assert p.lines[r.line - 1][r.col : r.col + len(r.token)] == r.token
    assert (only(p, "pkg/mod.py").line, only(p, "pkg/mod.py").kind) == (2, "path")
    bar = only(p, "--bar")
    assert (bar.line, bar.value, bar.where) == (3, "baz", "inline")
    assert [r.token for r in p.refs] == ["--foo", "--foo", "pkg/mod.py", "--bar", "--foo"]


def test_list_item_refs_keep_lines():
    p = page("""
        - `--rollout-num-gpus` is ignored and reconciled to `actor_gpus x
          actor_nodes`, since engines share GPUs.
        - `--offload-train` and `--offload-rollout` both turn on.
        """)
    assert only(p, "--rollout-num-gpus").line == 1
    assert only(p, "--offload-rollout").line == 3


def test_code_span_splitting():
    assert split_span("--offload-train-target disk") == [("--offload-train-target", "flag", "disk")]
    assert split_span("--x=3") == [("--x", "flag", "3")]
    assert split_span("--recompute-granularity / method / num-layers") == [
        ("--recompute-granularity", "flag", None)
    ]
    assert split_span("--num-layers / --hidden-size / ...") == [
        ("--num-layers", "flag", None),
        ("--hidden-size", "flag", None),
    ]
    assert split_span("--spec <module> <function>") == [("--spec", "flag", "<module>")]
    assert split_span("--sglang-") == [("--sglang-", "flag", None)]
    assert split_span("--recompute-*") == [("--recompute-*", "flag", None)]
    assert split_span("-e") == [("-e", "flag", None)]
    assert split_span("AutoModel.from_pretrained()") == [("AutoModel.from_pretrained", "name", None)]
    assert split_span("force_sync=True") == [("force_sync", "name", "True")]
    assert split_span("scripts/models/<family>.py") == [("scripts/models/<family>.py", "path", None)]
    assert split_span("config.json") == [("config.json", "path", None)]
    assert split_span("miles_plugins/models/") == [("miles_plugins/models/", "path", None)]
    assert split_span("0.8") == [("0.8", "value", None)]
    assert split_span("disk-delta") == [("disk-delta", "value", None)]
    assert split_span("python3 scripts/run.py <family>") == [("scripts/run.py", "path", None)]
    assert split_span("CP x max_tokens_per_gpu") == []


def test_table_refs_have_column_row_and_line():
    p = page("""
        Before.

        | Value | Class | Notes |
        |---|---|---|
        | [`megatron`](#megatron-lm) | `MegatronActor` | five dims, `torch_dist` |
        | [`fsdp`](#fsdp) | `FSDPActor` | use `--fsdp-cpu-backend gloo` |
        """)
    fsdp = only(p, "fsdp")
    assert (fsdp.line, fsdp.where, fsdp.column, fsdp.row, fsdp.kind) == (6, "table", "Value", 1, "name")
    backend = only(p, "--fsdp-cpu-backend")
    assert (backend.line, backend.column, backend.row, backend.value) == (6, "Notes", 1, "gloo")
    assert (only(p, "torch_dist").line, only(p, "torch_dist").column) == (5, "Notes")
    assert [r.token for r in p.refs_on(5)] == ["megatron", "MegatronActor", "torch_dist"]


RUN = ("--actor-num-nodes", "1", "--actor-num-gpus-per-node", "8", "--colocate")


def test_fenced_shell_blocks():
    p = page("""
        ```bash
        # 8 GPUs training, --not-a-flag in a comment
        --actor-num-nodes 1 --actor-num-gpus-per-node 8 \\
        --colocate \\
        --save $CKPT --load=/ckpt   # trailing --comment
        PYTHONPATH=/src python3 tools/convert.py --hf-checkpoint /root/<model>
        pip install -e . --no-deps && python3 scripts/run_small.py --train-backend fsdp
        ```

        ```
        --unlabelled 2
        ```

        ```console
        $ ./launch.sh --seed 7
        seed=7 --printed-output 1
        ```

        ```python
        parser.add_argument("--in-python")
        ```

        ```yaml
        path: miles/x.py
        ```
        """)
    got = [(r.token, r.kind, r.line, r.value, r.where, r.command) for r in p.refs if r.kind != "key"]
    # A YAML block sets keys (configblocks.py), for the rules that read configs; nothing else.
    assert [(r.token, r.value) for r in p.refs if r.kind == "key"] == [("path", "miles/x.py")]
    # Every command's flags are read with the command's words before them: whose flags they are
    # (pip's, the project's) is the check's call. A fragment of flags has no command.
    assert got == [
        ("--actor-num-nodes", "flag", 3, "1", "fence", None),
        ("--actor-num-gpus-per-node", "flag", 3, "8", "fence", ("--actor-num-nodes", "1")),
        ("--colocate", "flag", 4, None, "fence", RUN[:4]),
        ("--save", "flag", 5, None, "fence", RUN[:5]),
        ("--load", "flag", 5, "/ckpt", "fence", (*RUN[:5], "--save", "$CKPT")),
        ("tools/convert.py", "path", 6, None, "fence", ("python3",)),
        ("--hf-checkpoint", "flag", 6, "/root/<model>", "fence", ("python3", "tools/convert.py")),
        ("--no-deps", "flag", 7, None, "fence", ("pip", "install", "-e", ".")),
        ("scripts/run_small.py", "path", 7, None, "fence", ("python3",)),
        ("--train-backend", "flag", 7, "fsdp", "fence", ("python3", "scripts/run_small.py")),
        ("--unlabelled", "flag", 11, "2", "fence", None),
        ("./launch.sh", "path", 15, None, "fence", None),
        ("--seed", "flag", 15, "7", "fence", ("./launch.sh",)),
    ]


def test_a_shell_block_of_prompted_commands_is_a_session_whose_other_lines_are_output():
    p = page("""
        ```shell
        $ pdm run test --user
        --before --user --after
        $ pdm run test
        --before --default --after
        ```

        ```bash
        python run.py --seed 1
        --printed 2
        pdm config python.install_root $(uv python dir --color never)
        ```
        """)
    assert [(r.token, r.line) for r in p.refs if r.kind == "flag"] == [
        ("--user", 2),
        ("--seed", 9),
        ("--printed", 10),
        ("--color", 11),
    ]
    assert next(r for r in p.refs if r.token == "--color").command == ("uv", "python", "dir")


def test_a_console_block_with_no_prompt_is_commands():
    p = page("""
        ```console
        python label.py --config config.yaml --testing
        ```

        ```console
        > python show.py --bench if_bench
        Accuracy: 0.9 --printed 1
        ```
        """)
    # written as `console` for its colours: no line has a prompt, so each is a command; a block
    # with one (`> `) is a session whose other lines are output
    assert [(r.token, r.command) for r in p.refs if r.kind == "flag"] == [
        ("--config", ("python", "label.py")),
        ("--testing", ("python", "label.py", "--config", "config.yaml")),
    ]


def test_fence_inside_list_item_keeps_lines():
    p = page("""
        1. Launch:

           ```bash
           --rollout-num-gpus-per-engine 2
           ```
        """)
    ref = only(p, "--rollout-num-gpus-per-engine")
    assert (ref.line, ref.col, ref.value) == (4, 3, "2")


def test_links_yield_path_refs():
    p = page("""
        The integration lives at
        [`pkg/sglang/arguments.py`](https://github.com/acme/proj/blob/main/pkg/sglang/arguments.py),
        the tree [here](https://github.com/acme/proj/tree/v1.2/pkg/backends/) and
        [setup](../guide/setup.md#install), but [Models](/models/index), [up](#top) and
        [site](https://example.com/a.py) cite no files.
        """)
    got = [(r.token, r.kind, r.line, r.where) for r in p.refs]
    assert got == [
        ("pkg/sglang/arguments.py", "path", 2, "inline"),
        ("pkg/sglang/arguments.py", "path", 2, "url"),
        ("pkg/backends", "path", 3, "url"),
        ("../guide/setup.md", "path", 4, "link"),
    ]


def test_a_link_text_naming_its_target_with_the_repository_name_is_the_link_path():
    p = page("""
        The notebooks are in [`proj/examples/notebooks/`](https://github.com/acme/proj/tree/main/examples/notebooks/)
        and [`other/examples/`](https://github.com/acme/proj/tree/main/examples/).
        """)
    got = [(r.token, r.where) for r in p.refs]
    assert got == [
        ("examples/notebooks", "url"),
        ("other/examples/", "inline"),  # not the repository's name: the span says another path
        ("examples", "url"),
    ]


def test_mdx_tags_are_ignored_and_their_content_is_read():
    p = page("""
        Intro.

        <Note>
        Context parallelism is rejected: `--context-parallel-size` above 1
        fails in `pkg/arguments.py`.
        </Note>

        <Warning>

        **No LoRA.** See `--lora-rank`.

        </Warning>
        """)
    assert only(p, "--context-parallel-size").line == 4
    assert only(p, "pkg/arguments.py").line == 5
    assert only(p, "--lora-rank").line == 10
    assert refs(p, "Note") == [] and refs(p, "Warning") == []


def test_commented_out_and_verbatim_html_is_not_read():
    p = page("""
        <!--
        <Note>
        Old text citing `--removed-flag`.
        </Note>
        -->

        <pre>
        <b>x</b>
        `--in-pre`
        </pre>

        After.
        """)
    assert p.refs == ()


def test_crlf_input():
    p = parse_doc("d.md", "# T\r\n\r\nUse `--x`.\r\n")
    assert p.lines == ("# T", "", "Use `--x`.")
    assert only(p, "--x").line == 3


# --- default claims --------------------------------------------------------------------------


def test_value_by_default_tied_to_preceding_flag():
    p = page("""
        - bf16 by default; `--fp16` switches the compute dtype.
        - `--attn-implementation` picks the `transformers` attention backend: `flash_attention_2` by
          default, with `flash_attention_3`, `sdpa` and `eager` passed straight through.
        """)
    assert claims(p) == [("--attn-implementation", "flash_attention_2", 2, "`flash_attention_2`")]
    c = p.claims[0]
    assert p.lines[c.line - 1][c.col : c.col + len(c.text)] == c.text


def test_a_parameter_lists_default_is_its_items_not_a_flag_named_on_the_way():
    p = page("""
        - 🔥load_args: With `--adapters` given, this loads the saved args. Default is `True`.
        - **fraction**: Set `--offload true --fraction 0.7` to offload. Defaults to `1.0`.
        - Note: pass `--adapters`. Default is `[]`.
        """)
    assert claims(p) == [
        ("--load_args", "True", 1, "`True`"),
        ("--fraction", "1.0", 2, "`1.0`"),
        ("--adapters", "[]", 3, "`[]`"),
    ]


def test_a_remark_in_parentheses_after_a_flag_in_a_listing_is_no_value():
    p = page("""
        ```
        --sampling_mode (default None)
        --sampling_mode （默认为None）
        --sampling_mode token_mask
        ```
        """)
    assert [r.value for r in refs(p, "--sampling_mode")] == [None, None, "token_mask"]


def test_the_default_in_parentheses():
    p = page("""
        Disaggregated, the weights travel, and `--transfer-mode`
        picks how: `broadcast` (the default) uses a group, `p2p` uses RDMA.
        """)
    assert claims(p) == [("--transfer-mode", "broadcast", 2, "`broadcast`")]


def test_default_is_and_default_colon():
    p = page("""
        `--cpu-backend` selects the group backend. The default is `gloo`.

        Default: `8` engines per node with `--engines-per-node`.

        `--mode` defaults to `fast`, see below.
        """)
    assert claims(p) == [
        ("--cpu-backend", "gloo", 1, "`gloo`"),
        ("--engines-per-node", "8", 3, "`8`"),
        ("--mode", "fast", 5, "`fast`"),
    ]


def test_a_default_in_emphasis_after_its_label():
    # A settings list: each item a flag, what it does, then its default in emphasis.
    p = page("""
        * `--port <int>` - Bind to a socket with this port. **Default:** *8000*.
        * `--log-level <str>` - Set the log level. **Default:** *'info'*.
        * `--root-path <str>` - Set the ASGI root path. **Default:** *""*.
        * `--date-header / --no-date-header` - Enable/Disable the `Date` header. **Default:** *True*.
        * `--app-dir <path>` - Look for APP in this directory. **Default:** *Current working directory*.
        * `--workers <int>` - Number of worker processes. Default: _1_.
        * `--backlog <int>` - the *default* backlog is large; see *the kernel's limit*.
        """)
    assert claims(p) == [
        ("--port", "8000", 1, "8000"),
        ("--log-level", "'info'", 2, "'info'"),
        ("--root-path", '""', 3, '""'),
        ("--date-header", "True", 4, "True"),
        ("--workers", "1", 6, "1"),
    ]
    for c in p.claims:
        assert p.lines[c.line - 1][c.col : c.col + len(c.text)] == c.text


def test_default_as_an_adjective_of_another_thing_claims_nothing_for_the_flag():
    p = page("""
        * `--ws-ping-interval <float>` - Only with the default `websockets` protocol. **Default:** *20.0*

        `--dist-backend` picks the group: the default `nccl` backend, or `gloo`.

        `--port` is the default `8000` for HTTP.
        """)
    assert claims(p) == [
        ("--ws-ping-interval", "20.0", 1, "20.0"),
        ("--dist-backend", "nccl", 3, "`nccl`"),
        ("--port", "8000", 5, "`8000`"),
    ]


def test_subject_prefers_closest_flag_in_the_sentence():
    p = page("""
        `--a` is one knob; `--b` is another and uses `x` by default for `--c`.

        `y` by default for `--d`.
        """)
    assert claims(p) == [("--b", "x", 1, "`x`"), ("--d", "y", 3, "`y`")]


def test_the_default_name_value():
    p = page("""
        The default, `dp_replicate=1`, means one flat shard group over
        every training rank.
        """)
    assert claims(p) == [("dp_replicate", "1", 1, "1")]
    c = p.claims[0]
    assert p.lines[0][c.col] == "1" and p.lines[0][c.col - 1] == "="


def test_flags_default_off_and_on():
    p = page("""
        Both halves stay resident, so `--offload-train` / `--offload-rollout` default off and no
        phase pays a cost. `--pin-memory` is on by default.
        """)
    assert claims(p) == [
        ("--offload-train", "False", 1, "off"),
        ("--offload-rollout", "False", 1, "off"),
        ("--pin-memory", "True", 2, "on"),
    ]
    off = p.claims[0]
    assert p.lines[0][off.col - 8 : off.col + 3] == "default off"


def test_non_claims():
    p = page("""
        **Disaggregated is the default.** It is the right default when GPUs are scarce.

        - bf16 by default; `--fp16` switches the compute dtype.
        - An fp32 master copy is kept by default. `--no-keep-fp32-master` trades it away.
        - The tunnel is **off by default**: `-H 0.0.0.0` exposes the raw port only.
        - Compilation is on by default, `--compile false` turns it off.

        Under `--colocate` Miles also defaults `--prefill-backend=disabled` here.

        The default is gloo for `--cpu-backend`.

        | Flag | Effect |
        |---|---|
        | `--target disk` | Stream to NVMe. The default is `cpu`. |
        """)
    assert p.claims == ()


def test_claim_with_no_flag_nearby_keeps_its_value_for_the_check_to_place():
    p = page("""
        The fp32 masters live on disk.

        At the default `fp32` moment dtype it is exact.
        """)
    (claim,) = p.claims
    assert (claim.subject, claim.value, claim.line, claim.text) == (None, "fp32", 3, "`fp32`")


def test_default_column_checkmark_and_code():
    p = page("""
        | Value | Class | Default |
        |---|---|---|
        | [`megatron`](#megatron-lm) | `MegatronActor` | ✅ |
        | [`fsdp`](#fsdp) | `FSDPActor` | |

        | Flag | Type | Default | What |
        |---|---|---|---|
        | `--actor-num-nodes` | int | `1` | Nodes. |
        | `--rollout-num-gpus` | int | derived | GPUs. |
        | `--colocate` | flag | off | Share GPUs. |
        | `--fast` | flag | ✓ | Go fast. |
        """)
    assert claims(p) == [
        (None, "megatron", 3, "✅"),
        ("--actor-num-nodes", "1", 8, "`1`"),
        ("--colocate", "False", 10, "off"),
        ("--fast", "True", 11, "✓"),
    ]
    mark = p.claims[0]
    assert p.lines[2][mark.col] == "✅"


def test_row_with_flag_value_and_default_cell():
    p = page("""
        | Flag | Effect |
        |---|---|
        | `--offload-train` / `--offload-rollout` | Which side is offloaded. Default: both. |
        | `--offload-train-target cpu` | Default: the paused actor is backed up in host memory. |
        | `--offload-train-target disk` | For when host RAM cannot hold that copy either. |
        """)
    assert claims(p) == [("--offload-train-target", "cpu", 4, "cpu")]
    c = p.claims[0]
    assert p.lines[3][c.col - 23 : c.col + 3] == "--offload-train-target cpu"
    assert p.claims[0].section.level == 0


# --- the real page ---------------------------------------------------------------------------

REAL_PAGE = "docs/user-guide/training-backend.md"


def test_real_training_backend_page():
    text = miles_file(REAL_PAGE)
    p = parse_doc(REAL_PAGE, text)
    for r in p.refs:
        assert p.lines[r.line - 1][r.col : r.col + len(r.token)] == r.token, r
    for c in p.claims:
        assert p.lines[c.line - 1][c.col : c.col + len(c.text)] == c.text, c

    keep = only(p, "--no-keep-fp32-master")
    assert keep.section.path == "FSDP > 3. Precision"
    assert "--no-keep-fp32-master" in p.lines[keep.line - 1]

    by_subject = {(c.subject, c.value): c for c in p.claims}
    attn = by_subject[("--attn-implementation", "flash_attention_2")]
    assert attn.section.path == "FSDP > 3. Precision"
    megatron = by_subject[(None, "megatron")]
    assert megatron.text == "✅" and "`megatron`" in p.lines[megatron.line - 1]
    assert by_subject[("dp_replicate", "1")].section.title == "2. Sharding it"
    assert "going-deeper-bringing-in-a-new-architecture" in p.anchors
    assert "parallelism-compatibility" in p.anchors


def test_parse_stays_linear_on_a_long_page():
    block = textwrap.dedent("""
        ## Part {i}

        Use `--flag-{i} x` with `pkg/mod_{i}.py`; `v{i}` by default for `--other-{i}`.

        | Flag | Default | What |
        |---|---|---|
        | `--knob-{i}` | `1` | A knob. |

        ```bash
        --knob-{i} 2 --flag-{i} y \\
        --other-{i}
        ```
        """)
    text = "".join(block.format(i=i) for i in range(150)).lstrip("\n")  # ~2000 lines
    start = time.perf_counter()
    p = parse_doc("long.md", text)
    assert time.perf_counter() - start < 2.0
    assert len(p.sections) == 150 and len(p.claims) == 300
    table, fence = refs(p, "--knob-149")
    assert p.lines[table.line - 1] == "| `--knob-149` | `1` | A knob. |"
    assert (fence.where, fence.value, p.lines[fence.line - 1]) == (
        "fence",
        "2",
        "--knob-149 2 --flag-149 y \\",
    )


def test_fenced_flags_remember_the_command_they_are_passed_to():
    p = page("""
        ```bash
        PYTHONPATH=/x python3 tools/convert.py --input-dir /a \\
            --output-dir /b
        torchrun --nproc-per-node 8 train.py --lr 1e-5
        ```
        """)
    flags = {(r.token, r.command) for r in p.refs if r.kind == "flag"}
    assert flags == {
        ("--input-dir", ("python3", "tools/convert.py")),
        ("--output-dir", ("python3", "tools/convert.py", "--input-dir", "/a")),
        ("--nproc-per-node", ("torchrun",)),
        ("--lr", ("torchrun", "--nproc-per-node", "8", "train.py")),
    }


def test_a_usage_line_s_short_and_long_spelling_in_one_word_cites_the_long_flag():
    # a README's `nox -s/--session test`: two spellings of one option, the value after them
    p = page("""
        ```shell
        nox -l/--list
        nox -s/--session test
        tar -x/y
        ```
        """)
    flags = [(r.token, r.value, r.command) for r in p.refs if r.kind == "flag"]
    assert flags == [("--list", None, ("nox",)), ("--session", "test", ("nox",))]
    # placed at the long spelling, where a suggestion rewrites it
    session = p.refs[-1]
    assert session.col is not None and p.lines[session.line - 1][session.col :] == "--session test"


def test_the_script_after_a_flag_written_with_its_value_is_the_commands_script():
    p = page("""
        ```bash
        accelerate launch --checkpointing=TRUE examples/train.py --cp-size 2
        accelerate launch --config cfg/x.py examples/eval.py
        ```
        """)
    scripts = [(r.token, r.command) for r in p.refs if r.kind == "path"]
    # `cfg/x.py` may be the value of `--config`; `--checkpointing=TRUE` carries its own.
    assert scripts == [
        ("examples/train.py", ("accelerate", "launch", "--checkpointing=TRUE")),
        ("examples/eval.py", ("accelerate", "launch", "--config", "cfg/x.py")),
    ]
    assert [r.command for r in p.refs if r.token == "--cp-size"] == [
        ("accelerate", "launch", "--checkpointing=TRUE", "examples/train.py")
    ]


def test_set_and_alternative_notation_after_a_flag_is_one_value():
    assert split_span("--mixed_precision {no,fp16,bf16}") == [("--mixed_precision", "flag", "{no,fp16,bf16}")]
    assert split_span("--mixed_precision {no, fp16, bf16}") == [
        ("--mixed_precision", "flag", "{no, fp16, bf16}")
    ]
    assert split_span("--dtype fp16|bf16") == [("--dtype", "flag", "fp16|bf16")]
    assert split_span("--voice-format VOICE_FORMAT") == [("--voice-format", "flag", "VOICE_FORMAT")]
    p = page("Use `--mixed_precision {no, fp16, bf16}`.\n")
    ref = only(p, "--mixed_precision")
    assert p.lines[0][ref.col : ref.col + len("--mixed_precision {no, fp16, bf16}")].endswith("bf16}")


def test_a_line_citation_cites_its_file():
    assert split_span("miles/ray/rollout.py:379") == [("miles/ray/rollout.py", "path", None)]
    assert split_span("pkg/mod.py:10-20") == [("pkg/mod.py", "path", None)]
    assert split_span("pkg/mod.py#L10-L20") == [("pkg/mod.py", "path", None)]
    # An image tag or a host and port is no line citation.
    assert split_span("radixark/miles:dev") == [("radixark/miles:dev", "path", None)]
    assert split_span("localhost:8000") == [("localhost:8000", "value", None)]
    line = "Fixed in [rollout](../miles/ray/rollout.py#L379) and `miles/ray/rollout.py:379`."
    p = page(line + "\n")
    assert [(r.token, r.where, r.col) for r in p.refs] == [
        ("../miles/ray/rollout.py", "link", line.index("../")),
        ("miles/ray/rollout.py", "inline", line.index("`miles") + 1),
    ]


def test_a_code_span_that_is_a_command_gives_its_flags_the_command_words():
    p = page("Run `CUDA_VISIBLE_DEVICES=0 lm_eval run --model hf --tasks x` or pass `--seed 3`.\n")
    got = [(r.token, r.command) for r in p.refs if r.kind == "flag"]
    assert got == [
        ("--model", ("lm_eval", "run")),
        ("--tasks", ("lm_eval", "run", "--model", "hf")),
        ("--seed", None),
    ]


def test_a_dotted_flag_is_one_flag():
    assert split_span("--train.async_enable") == [("--train.async_enable", "flag", None)]
    assert split_span("--ds.lora.rank 8") == [("--ds.lora.rank", "flag", "8")]
    assert [r.token for r in page("Pass `--seed`. Or `--lr`.\n").refs] == ["--seed", "--lr"]
    fenced = page("```bash\ntrain --train.seed 1 --x.\n```\n")
    assert [r.token for r in fenced.refs] == ["--train.seed", "--x"]


def test_a_files_symbol_cites_the_file_and_a_module_path_is_no_file():
    assert split_span("pkg/rollout.py:generate_rollout") == [("pkg/rollout.py", "path", None)]
    assert split_span("pkg.mod:func")[0][1] != "path"


def test_a_row_of_two_flags_claims_no_default_for_either():
    p = page("""
        | Flag | Default |
        |---|---|
        | `--adam-beta1`, `--adam-beta2` | `0.9, 0.98` |
        | `--lr` | `1e-6` |
        """)
    assert claims(p) == [("--lr", "1e-6", 4, "`1e-6`")]


def test_a_quoted_assignment_before_a_command_is_not_the_command():
    assert command_words('AGENT="examples/agent.py" FOO="a b" python3 -m pkg.train --x') == [
        "python3",
        "-m",
        "pkg.train",
        "--x",
    ]
    assert command_words('ARGS="$(python3 tools/args.py qwen)"') == ["python3", "tools/args.py", "qwen"]
    p = page('```bash\nAGENT="examples/agent.py" python3 train.py --lr 1\n```\n')
    assert [(r.token, r.command) for r in p.refs] == [
        ("train.py", ("python3",)),
        ("--lr", ("python3", "train.py")),
    ]


def test_a_lines_first_command_word_is_that_of_its_command_words():
    lines = [
        'AGENT="examples/agent.py" FOO="a b" python3 -m pkg.train --x',
        "sudo env A=1 nohup torchrun --nproc 8 train.py",
        "ruff check .",
        'ARGS="$(python3 tools/args.py qwen)"',
        "A=1 B=2",
        "   ",
        "$ pip install -e .",
    ]
    for line in lines:
        assert first_command_word(line) == (command_words(line)[:1] or [None])[0], line
    assert first_command_word("sudo env A=1 nohup torchrun --nproc 8 train.py") == "torchrun"


def test_flags_inside_a_quoted_argument_are_its_value():
    p = page("""
        ```bash
        lm_eval --model_args load=/ckpt,extra_args="--no-rope-fusion --x" --tasks a  # "--not"
        ```
        """)
    assert [r.token for r in p.refs] == ["--model_args", "--tasks"]
    sub = page('```bash\nARGS="$(python3 tools/args.py --family qwen)" || exit 1\n```\n')
    assert [(r.token, r.command) for r in sub.refs] == [
        ("tools/args.py", ("python3",)),
        ("--family", ("python3", "tools/args.py")),
    ]


def test_the_quoted_command_an_alias_stands_for_passes_its_flags_to_that_command():
    p = page("""
        ```bash
        alias drun='docker run -it --network=host --privileged \\
            --shm-size 16G'
        alias serve="python3 train.py --lr 1"
        NAME='--not-a-flag' python3 train.py
        ```
        """)
    assert [(r.token, r.command) for r in p.refs if r.kind == "flag"] == [
        ("--network", ("docker", "run", "-it")),
        ("--privileged", ("docker", "run", "-it", "--network=host")),
        ("--shm-size", ("docker", "run", "-it", "--network=host", "--privileged")),
        ("--lr", ("python3", "train.py")),
    ]


def test_a_span_setting_a_key_cites_the_key_and_the_file_it_names():
    p = page("""
        Set `sample_packing: true`, or `config: configs/train.yaml`.
        """)
    assert [(r.token, r.kind) for r in p.refs] == [
        ("sample_packing", "key"),
        ("config", "key"),
        ("configs/train.yaml", "path"),
    ]
    assert not p.claims  # it says what to set, not what the default is


def test_a_comment_in_backticks_inside_a_continued_command_keeps_it_going():
    # bash expands `# note` to nothing, so the `\` after it continues the command line.
    p = page("""
        ```bash
        optimum-cli export neuron --model m \\
          --height 1024 `# in pixels, eg. 768` \\
          --num_images 1 `# per prompt` \\
          out/
        echo `date` --not-a-comment
        ```
        """)
    assert [r.command[:3] for r in p.refs if r.token in ("--height", "--num_images")] == [
        ("optimum-cli", "export", "neuron"),
        ("optimum-cli", "export", "neuron"),
    ]
    assert not refs(p, "--in") and not refs(p, "--per")
    assert only(p, "--not-a-comment").command == ("echo", "date")


def test_a_flag_written_equal_to_a_value_cites_that_value():
    assert split_span("--train_frac==1") == [("--train_frac", "flag", "1")]
    assert split_span("--train_frac=1") == [("--train_frac", "flag", "1")]


def test_a_link_text_naming_its_target_without_its_extension_is_the_links_path():
    p = page(
        "See [`docs/guide`](https://github.com/o/r/blob/main/docs/guide.md) and [`setup`](./setup.md),\n"
        "not [`docs/other`](https://github.com/o/r/blob/main/docs/guide.md).\n"
    )
    assert [(r.token, r.where) for r in p.refs if r.kind == "path"] == [
        ("docs/guide.md", "url"),
        ("./setup.md", "link"),
        ("docs/other", "inline"),  # another name than its target's: a path of its own
        ("docs/guide.md", "url"),
    ]


def test_each_flag_of_a_span_command_has_its_command_whatever_its_dashes():
    p = page("Run `python x.py -train_steps 1 --lr 2`.\n")
    assert [(r.token, r.command) for r in p.refs if r.kind == "flag"] == [
        ("-train_steps", ("python", "x.py")),
        ("--lr", ("python", "x.py", "-train_steps", "1")),
    ]


def test_a_command_substitution_is_a_command_of_its_own_and_the_interrupted_one_goes_on():
    p = page("""
        ```bash
        python train.py --out $(date +%s) --lr 1
        RUN=$(python name.py --short) python train.py --seed 2
        python train.py --tag=$(git rev-parse HEAD) --epochs 3
        python train.py --dir $(dirname \\
          $(pwd) --physical) --steps 4
        ```
        """)
    flags = [(r.token, r.value, r.command) for r in p.refs if r.kind == "flag"]
    assert flags == [
        ("--out", None, ("python", "train.py")),
        ("--lr", "1", ("python", "train.py", "--out")),
        # its `)` ends the value: `python` is the next command, not `--short`'s value
        ("--short", None, ("python", "name.py")),
        ("--seed", "2", ("python", "train.py")),
        ("--tag", None, ("python", "train.py")),
        ("--epochs", "3", ("python", "train.py", "--tag=")),
        ("--dir", None, ("python", "train.py")),
        ("--physical", None, ("dirname",)),
        ("--steps", "4", ("python", "train.py", "--dir")),
    ]


def test_a_backslash_ending_the_last_word_continues_the_command():
    p = page("""
        ```bash
        launch --config $CONFIG\\
            --seed 1 \\
            --steps 2
        ```
        """)
    flags = [(r.token, r.command) for r in p.refs if r.kind == "flag"]
    assert flags == [
        ("--config", ("launch",)),
        ("--seed", ("launch", "--config", "$CONFIG")),
        ("--steps", ("launch", "--config", "$CONFIG", "--seed", "1")),
    ]


def test_an_indented_code_block_with_a_prompt_is_a_shell_session():
    # CommonMark's indented code: `$ ` lines are commands, the others their output.
    p = page(
        """
        # Tool

        Try it:

            $ tool load rows.db rows.csv --csv
            [####] 100%

            $ curl https://example.invalid/rows \\
                | tool load rows.db - --pk id
            --pk id means nothing here

        In Python:

            tool.load("rows.db", csv="--not-a-flag")
        """
    )
    assert [(r.token, r.line, r.where, r.command) for r in p.refs if r.kind == "flag"] == [
        ("--csv", 5, "fence", ("tool", "load", "rows.db", "rows.csv")),
        ("--pk", 9, "fence", ("tool", "load", "rows.db", "-")),
    ]


def test_a_help_listing_row_after_a_wrapped_help_line_is_a_row_of_its_own():
    p = page(
        """
        ```text
        Usage: tool query [OPTIONS] PATH

        Options:
          --fmt TEXT   One of grid, plain,
                       simple, tsv
          --json-cols  Detect JSON columns
        ```
        """
    )
    assert [(r.token, r.command) for r in p.refs if r.kind == "flag"] == [
        ("--fmt", None),
        ("--json-cols", None),
    ]
