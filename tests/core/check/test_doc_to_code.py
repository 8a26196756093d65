"""doc -> code: what a changed page line cites must exist at head, with the default it has."""

from __future__ import annotations

from bot.core.check.doc_to_code import doc_to_code
from bot.core.check.findings import Findings
from bot.core.model import Finding
from bot.core.rules import Rule, Source
from tests.core.check.checkkit import CLI, DOC, cli, flags_source, kinds, line_of, paths_source, prepare, rule

CODE = cli("'--seed', type=int, default=0", "'--backend', choices=['fsdp', 'megatron'], default='fsdp'")
CODE_WITH = cli("'--with', action='append', help='Groups to lock.'")


def judge(
    page: str, base_page: str | None = None, files: dict[str, str] | None = None, rule_: Rule | None = None
) -> list[Finding]:
    rule_ = rule_ or rule()
    files = {CLI: CODE, **(files or {})}
    base = dict(files, **({DOC: base_page} if base_page is not None else {}))
    inputs = prepare(rule_, base, dict(files, **{DOC: page}))
    out = Findings(rule_)
    for p in inputs.pages:
        doc_to_code(inputs, p, out)
    return out.finish()


def test_an_unknown_flag_suggests_the_nearest_real_one():
    [f] = judge("Pass `--sed 3`.\n")
    assert (f.kind, f.symbol) == ("unresolved", "--sed")
    assert f.suggestion.replacement == "Pass `--seed 3`."
    [far] = judge("Pass `--gpus 8`.\n")
    assert far.message == "`--gpus` is not a flag at head" and far.suggestion is None


def test_a_flag_cut_short_is_offered_the_one_flag_it_begins():
    code = {CLI: cli("'--nsa-prefill-backend'", "'--nsa-decode-backend'", "'--prefill'")}
    [f] = judge("| `--nsa-prefill` | The prefill stage's backend. |\n", files=code)
    assert f.message == "`--nsa-prefill` is not a flag at head; did you mean `--nsa-prefill-backend`?"
    # Two flags it begins: either is a guess, and the nearest of the rest is offered as before.
    two = {CLI: cli("'--seed-base'", "'--seed-offset'", "'--sed'")}
    [g] = judge("Pass `--seed 3`.\n", files=two)
    assert g.suggestion is not None and g.suggestion.replacement == "Pass `--sed 3`."


def test_a_flag_the_page_shows_the_program_refusing_is_no_stale_citation():
    page = (
        "```console\n$ python tool/cli.py --se 3\n"
        "cli.py: error: ambiguous option: --se could match --seed, --server\n"
        "$ python tool/cli.py --gpus 8\ncli.py: error: unrecognized arguments: --gpus 8\n```\n"
    )
    assert judge(page) == []
    [f] = judge("```console\n$ python tool/cli.py --gpus 8\n```\n")
    assert (f.kind, f.symbol) == ("unresolved", "--gpus")


def test_a_value_is_judged_only_when_every_flag_of_that_name_takes_the_same_choices():
    # Two parsers' `--with`: one takes groups (any name), the other a backend.
    code = {CLI: CODE + "p.add_argument('--with', choices=['venv', 'conda'])\n", "tool/lock.py": CODE_WITH}
    both = rule(Source(id="cli", kind="argparse", paths=(CLI, "tool/lock.py")))
    assert judge("Pass `--with windows`.\n", files=code, rule_=both) == []
    [f] = judge("Pass `--with windows`.\n", files={CLI: code[CLI]})
    assert f.symbol == "--with windows"


def test_a_capital_word_stands_for_any_option_and_a_page_saying_each_has_its_negation():
    page = "Unset an option with `--no-OPTION` (e.g. `--no-seed`); some `--OPTIONS` may change.\n"
    assert judge(page) == []
    [f] = judge("Unset the seed with `--no-seed`.\n")
    assert (f.kind, f.symbol) == ("unresolved", "--no-seed")
    [g] = judge("Unset an option with `--no-OPTION` (e.g. `--no-sede`).\n")
    assert g.symbol == "--no-sede"


def test_a_flag_named_as_the_head_of_a_family_of_flags_is_their_name():
    code = {CLI: cli("'--disallow-any-expr'", "'--disallow-any-generics'", "'--seed'")}
    page = "The ``--disallow-any`` family of flags disallows uses of ``Any``.\n"
    assert judge(page.replace("``", "`"), files=code) == []
    # Not without the word, nor for a family the parser does not have.
    [f] = judge("Pass `--disallow-any` to disallow uses of `Any`.\n", files=code)
    assert (f.kind, f.symbol) == ("unresolved", "--disallow-any")
    [g] = judge("The `--see` family of flags sets seeds.\n", files=code)
    assert g.symbol == "--see"


def test_a_flag_the_sentence_says_is_still_to_come_is_no_stale_citation():
    assert judge("A `--gpus` switch is planned for the next release.\n") == []
    assert judge("Multi-node runs (`--gpus 8`) are not part of this\nrelease. Use one node.\n") == []
    # The hedge is the sentence's, not the paragraph's: the next sentence's flag is judged.
    [f] = judge("Sharding is not yet supported. Pass `--gpus 8` instead.\n")
    assert (f.kind, f.symbol) == ("unresolved", "--gpus")
    # An open item of a task list is still to do; a done one tells of the code.
    assert judge("## Roadmap\n\n- [ ] Opt-in data collection, like `--contribute`\n") == []
    [g] = judge("## Roadmap\n\n- [x] Opt-in data collection, like `--contribute`\n")
    assert g.symbol == "--contribute"


def test_a_rule_that_reads_no_parser_judges_no_flag():
    launchers = rule(Source(id="launchers", kind="tokens", paths=("scripts/run.sh",)))
    files = {"scripts/run.sh": "MODEL_ARGS=(--num-layers 2)\n"}
    assert judge("Pass `--sed 3` in `MODEL_ARGS`.\n", files=files, rule_=launchers) == []
    assert kinds(judge("Pass `--sed 3` in `MODEL_ARGS`.\n", files=files)) == [("unresolved", "--sed")]


def test_a_value_outside_the_flags_choices_is_unresolved_at_the_flags_line():
    [f] = judge("Pass `--backend fsdp2`.\n")
    assert (f.kind, f.symbol) == ("unresolved", "--backend fsdp2")
    assert f.message == "`fsdp2` is not a choice of `--backend` (choices: fsdp, megatron)"
    assert f.code.line == line_of(CODE, "--backend")
    assert f.suggestion.replacement == "Pass `--backend fsdp`."


def test_only_lines_the_change_wrote_are_checked():
    old = "Pass `--sed 3`.\n"
    assert judge(old + "\nAnd more.\n", base_page=old) == []
    assert kinds(judge(old + "\nAnd `--gpus`.\n", base_page=old)) == [("unresolved", "--gpus")]


def test_external_tokens_are_not_checked():
    external = rule(flags_source(), external=("--gpus", "fsdp*"))
    assert judge("Pass `--gpus 8` and `--backend fsdp2`.\n", rule_=external) == []


def test_flags_of_another_script_with_its_own_command_line_are_its_business():
    tool = "tools/convert.py"
    page = "```bash\npython tools/convert.py --input-dir /x\n```\n"
    own_cli = {tool: cli("'--input-dir'")}
    assert judge(page, files=own_cli) == []
    # A script that parses its command line with our parser takes our flags.
    ours = {tool: "from tool.cli import p\n\np.parse_args()\n"}
    assert kinds(judge(page, files=ours)) == [("unresolved", "--input-dir")]
    # One whose parser cannot be seen (sys.argv, click) is left alone: we cannot say.
    assert judge(page, files={tool: "import sys\n\nprint(sys.argv)\n"}) == []
    # A script the rule reads is checked against the rule's flags.
    both = rule(Source(id="cli", kind="argparse", paths=(CLI, tool)))
    assert kinds(judge(page, files=own_cli, rule_=both)) == []
    assert kinds(judge(page.replace("--input-dir", "--input-dri"), files=own_cli, rule_=both)) == [
        ("unresolved", "--input-dri")
    ]


def test_a_name_close_to_a_known_one_is_a_typo_and_other_names_are_left_alone():
    symbols = Source(id="api", kind="symbols", paths=("tool/api.py",))
    api = {"tool/api.py": "def register_model_patch():\n    pass\n"}
    both = rule(flags_source(), symbols)
    [f] = judge("Call `register_model_pach`.\n", files=api, rule_=both)
    assert (f.kind, f.symbol) == ("unresolved", "register_model_pach")
    assert f.suggestion.replacement == "Call `register_model_patch`."
    assert judge("Load `torch_dist` or `fsdp2`.\n", files=api, rule_=both) == []


def test_a_value_after_default_that_no_switch_can_have_is_not_the_switchs_default():
    switch = {CLI: cli("'--openai-spec', action='store_true'", "'--port', type=int, default=8000")}
    page = "The `--openai-spec` flag serves at `/v1` instead of the default `/predict` endpoint.\n"
    assert judge(page, files=switch) == []
    [f] = judge("`--openai-spec` is `on` by default.\n", files=switch)
    assert (f.kind, f.symbol) == ("wrong-default", "--openai-spec")
    [port] = judge("The `--port` flag sets the port, the default `8080`.\n", files=switch)
    assert (port.kind, port.symbol) == ("wrong-default", "--port")


def test_a_word_claimed_for_a_number_flag_is_another_things_default():
    numbers = {CLI: cli("'--accum-freq', type=int, default=1", "'--buffer', type=int, default=1024")}
    page = "Compiling each step requires `--accum-freq 1` and a precision such as the default `amp_bf16`.\n"
    assert judge(page, files=numbers) == []
    [f] = judge("`--accum-freq` defaults to `4`.\n", files=numbers)
    assert (f.kind, f.symbol) == ("wrong-default", "--accum-freq")
    [other] = judge("`--buffer` defaults to `2048`.\n", files=numbers)
    assert (other.kind, other.symbol) == ("wrong-default", "--buffer")


def test_cited_paths_are_checked_only_for_rules_that_read_paths():
    page = "See `tool/clu.py`.\n"
    assert judge(page) == []
    assert kinds(judge(page, rule_=rule(flags_source(), paths_source()))) == [("unresolved", "tool/clu.py")]


def test_a_claimed_default_the_code_does_not_have_is_a_wrong_default_with_the_real_one():
    [f] = judge("`--backend` defaults to `megatron`.\n")
    assert (f.kind, f.symbol) == ("wrong-default", "--backend")
    assert f.message == "the default of `--backend` is `fsdp`; the doc says `megatron`"
    assert f.suggestion.replacement == "`--backend` defaults to `fsdp`."
    assert f.code.line == line_of(CODE, "--backend")
    assert judge("`--backend` defaults to `fsdp`.\n") == []


def test_a_row_of_another_thing_s_table_is_not_held_to_a_flag_of_its_name():
    # feast's table of an online store's options (`batch_size`, `tags`, ...): an example
    # script's `--batch-size` (default 2) shares one name with it, and no other.
    files = {CLI: CODE + "p.add_argument('--batch-size', type=int, default=2)\n"}
    table = "| Option | Default |\n|---|---|\n| `region` | |\n| `batch_size` | `100` |\n"
    table += "| `max_workers` | `10` |\n"
    assert judge(table, files=files) == []
    # A table of the parser's own flags is held to them.
    own = "| Flag | Default |\n|---|---|\n| `--seed` | `0` |\n| `--batch-size` | `100` |\n"
    [f] = judge(own, files=files)
    assert (f.kind, f.symbol, f.suggestion.replacement) == (
        "wrong-default",
        "--batch-size",
        "| `--batch-size` | `2` |",
    )


def test_a_table_of_one_command_line_s_flags_from_two_modules_is_held_to_them():
    # One program's parser, its flags added by two modules: each row is the program's.
    main = "import argparse\n\nfrom tool.opts_a import add_a\nfrom tool.opts_b import add_b\n\n\n"
    main += "def main():\n    p = argparse.ArgumentParser()\n    add_a(p)\n    add_b(p)\n"
    main += "    return p.parse_args()\n"
    files = {
        "pyproject.toml": '[project]\nname = "tool"\n\n[project.scripts]\ntool = "tool.main:main"\n',
        "tool/__init__.py": "",
        "tool/main.py": main,
        "tool/opts_a.py": "def add_a(p):\n    p.add_argument('--lr', type=float, default=0.1)\n",
        "tool/opts_b.py": "def add_b(p):\n    p.add_argument('--batch-size', type=int, default=2)\n",
    }
    two = rule(Source(id="cli", kind="argparse", paths=("tool/opts_a.py", "tool/opts_b.py")))
    table = "| Flag | Default |\n|---|---|\n| `--lr` | `0.5` |\n| `--batch-size` | `2` |\n"
    assert [(f.kind, f.symbol) for f in judge(table, files=files, rule_=two)] == [("wrong-default", "--lr")]


def test_a_default_decided_at_run_time_cannot_be_contradicted():
    assert judge("`--lr` defaults to `0.1`.\n", files={CLI: cli("'--lr', type=float")}) == []


def test_a_value_in_escaped_quotes_is_the_word_inside():
    # Markdown keeps a backslash in a code span: `--x=\"bf16\"` is the writer's `"bf16"`.
    code = {CLI: cli("'--mixed_precision', choices=['no', 'fp16', 'bf16']")}
    page = '* `--mixed_precision=\\"bf16\\"` / `--mixed_precision=\\"...\\"`: the precision.\n'
    assert judge(page, files=code) == []
    [f] = judge(page.replace("bf16", "fp8"), files=code)
    assert f.symbol == "--mixed_precision fp8"
    assert f.message == "`fp8` is not a choice of `--mixed_precision` (choices: no, fp16, bf16)"


def test_set_notation_is_checked_value_by_value_and_metavars_not_at_all():
    code = {
        CLI: cli("'--mixed_precision', choices=['no', 'fp16', 'bf16']", "'--log', choices=['INFO', 'DEBUG']")
    }
    assert (
        judge("Pass `--mixed_precision {no,fp16,bf16}` or `--mixed_precision fp16|bf16`.\n", files=code) == []
    )
    [f] = judge("Pass `--mixed_precision {no,fp8}`.\n", files=code)
    assert f.message == "`fp8` is not a choice of `--mixed_precision` (choices: no, fp16, bf16)"
    assert judge("`--mixed_precision PRECISION` and `--log INFO`.\n", files=code) == []
    assert kinds(judge("`--log TRACE`.\n", files=code)) == []  # capitals outside the choices: a metavar
    assert kinds(judge("`--log info`.\n", files=code)) == [("unresolved", "--log info")]


def test_argparses_own_help_flags_exist():
    assert judge("Use `-h` or `--help` to see the options.\n") == []


def test_a_default_with_a_unit_that_says_the_codes_number_is_right():
    code = {CLI: cli(f"'--cache-size', type=int, default={1024**3}")}
    assert judge("`--cache-size` defaults to `1 GB`.\n", files=code) == []
    [f] = judge("`--cache-size` defaults to `512 MB`.\n", files=code)
    assert (f.kind, f.suggestion.replacement) == ("wrong-default", "`--cache-size` defaults to `1024 MB`.")


def test_a_value_close_to_a_flags_choice_is_no_misspelt_name():
    assert judge("Label it `fsdp2` or `megatrom`.\n") == []


def test_an_import_path_default_written_by_its_last_name_is_right():
    code = {CLI: cli("'--picker-path', default='pkg.hub.drop_retries'")}
    assert judge("`--picker-path` defaults to `drop_retries`.\n", files=code) == []
    assert kinds(judge("`--picker-path` defaults to `keep_all`.\n", files=code)) == [
        ("wrong-default", "--picker-path")
    ]


def test_a_choice_listed_in_a_flags_row_that_is_no_longer_one_is_unresolved():
    code = {CLI: cli("'--estimator', choices=['grpo', 'gspo', 'ppo'], default='grpo'")}
    table = "| Flag | Default | Choices |\n|---|---|---|\n| `--estimator` | `grpo` | `grpo`, `gspo`, `{}` |\n"
    [f] = judge(table.format("opd"), files=code)
    assert (f.kind, f.symbol, f.message) == (
        "unresolved",
        "--estimator opd",
        "`opd` is not a choice of `--estimator` (choices: grpo, gspo, ppo)",
    )
    assert judge(table.format("ppo"), files=code) == []
    # One value alone is not a list of choices: `x` may say anything.
    assert judge("| Flag | Note |\n|---|---|\n| `--estimator` | `grpo` or `x` |\n", files=code) == []


def test_a_row_no_program_owns_is_not_judged_by_another_command_lines_choices_of_that_name():
    server = cli("'--dtype', choices=['auto', 'half', 'float16', 'bfloat16', 'float32'], default='auto'")
    bench = cli("'--dtype', choices=['float8', 'float16', 'bfloat16'], default='auto'")
    files = {CLI: server, "bench/tune.py": bench}
    rule_ = rule(flags_source(CLI, "bench/tune.py"))
    row = "| Flag | Choices |\n|---|---|\n| `--dtype` | `auto`, `half`, `float16`, `{}` |\n"
    # Which `--dtype` the row is about, nothing says: the benchmark's choices do not judge it.
    assert judge(row.format("bfloat16"), files=files, rule_=rule_) == []
    assert judge(row.format("float64"), files=files, rule_=rule_) == []
    # With one `--dtype`, the row is its own: a value that is none of its choices is reported.
    [f] = judge(row.format("float64"), files={CLI: server}, rule_=rule_)
    assert (f.kind, f.symbol) == ("unresolved", "--dtype float64")


def test_a_default_written_as_a_plain_number_after_its_flag_is_a_claim():
    code = {CLI: cli(f"'--buffer-size', type=int, default={512 * 1024**2}")}
    assert judge("Buckets fill a buffer (`--buffer-size`, default 512 MB).\n", files=code) == []
    [f] = judge(
        "| Step | What |\n|---|---|\n| Bucketed | A buffer (`--buffer-size`, default 1 GB). |\n", files=code
    )
    assert (f.kind, f.message) == (
        "wrong-default",
        "the default of `--buffer-size` is `536870912`; the doc says `1 GB`",
    )
    assert f.suggestion.replacement == "| Bucketed | A buffer (`--buffer-size`, default 512 MB). |"


def test_only_the_list_that_holds_a_flags_choices_is_read_as_its_choices():
    code = {CLI: cli("'--cache', choices=['true', 'refresh', 'delete']")}
    row = "| `--cache` | Cache: `true`, `refresh`, or `{}`. Stored in `CACHE_PATH` or `x`. |\n"
    table = "| Flag | What |\n|---|---|\n" + row
    assert judge(table.format("delete"), files=code) == []
    assert kinds(judge(table.format("purge"), files=code)) == [("unresolved", "--cache purge")]


# -- never the opposite switch, never another program's flag ------------------------------------


def test_an_unknown_switch_is_never_offered_the_one_pointing_the_other_way():
    # PR 2384's page line at today's code: `--disable-fp32-master` turned the master copy off;
    # `--keep-fp32-master` (closer by name) turns it on.
    pair = {CLI: cli("'--keep-fp32-master', action=argparse.BooleanOptionalAction, default=True")}
    [f] = judge("Pass `--disable-fp32-master` to save memory.\n", files=pair)
    assert f.suggestion.replacement == "Pass `--no-keep-fp32-master` to save memory."
    only_on = {CLI: cli("'--keep-fp32-master', action='store_true'")}
    [f] = judge("Pass `--disable-fp32-master` to save memory.\n", files=only_on)
    assert (f.kind, f.suggestion) == ("unresolved", None)
    assert f.message == "`--disable-fp32-master` is not a flag at head"


def test_a_positive_name_is_never_offered_a_negative_switch():
    only_off = {CLI: cli("'--no-cache', dest='cache', action='store_false'")}
    [f] = judge("Pass `--cach` to reuse results.\n", files=only_off)
    assert f.suggestion is None
    # A value flag or a positive switch may be offered to it.
    both = {CLI: cli("'--no-cache', dest='cache', action='store_false'", "'--cache', action='store_true'")}
    [f] = judge("Pass `--cach` to reuse results.\n", files=both)
    assert f.suggestion.replacement == "Pass `--cache` to reuse results."


def test_a_negative_switch_about_something_else_is_no_suggestion():
    code = {CLI: cli("'--no-fp16', dest='fp16', action='store_false'")}
    [f] = judge("Pass `--disable-fp32` to save memory.\n", files=code)
    assert f.suggestion is None


def test_an_unknown_flag_is_never_offered_a_flag_of_another_program():
    tool = "tools/convert.py"
    both = rule(
        Source(id="cli", kind="argparse", paths=(CLI,)), Source(id="tool", kind="argparse", paths=(tool,))
    )
    files = {tool: cli("'--input-dir'")}
    # The line runs tool/cli.py: the converter's `--input-dir` is not its flag, however close.
    [f] = judge("```bash\npython tool/cli.py --input-dri /x\n```\n", files=files, rule_=both)
    assert (f.kind, f.symbol, f.suggestion) == ("unresolved", "--input-dri", None)
    # Run with the converter, the same typo gets the converter's flag.
    [f] = judge("```bash\npython tools/convert.py --input-dri /x\n```\n", files=files, rule_=both)
    assert f.suggestion.replacement == "python tools/convert.py --input-dir /x"


def test_a_windows_shell_block_runs_the_script_its_backslashed_path_names():
    tool = "tools/convert.py"
    both = rule(
        Source(id="cli", kind="argparse", paths=(CLI,)),
        Source(id="tool", kind="argparse", paths=(tool,)),
        paths_source(),
    )
    files = {tool: cli("'--input-dir'")}
    # `tools\convert.py` is tools/convert.py: its flag is checked against the converter's, and
    # the path as written is no missing file.
    for lang in ("powershell", "batchfile", "cmd"):
        page = f"```{lang}\npython tools\\convert.py --input-dri x\n```\n"
        [f] = judge(page, files=files, rule_=both)
        assert (f.kind, f.symbol) == ("unresolved", "--input-dri")
        assert f.suggestion.replacement == "python tools\\convert.py --input-dir x"
    right = "```powershell\npython tools\\convert.py --input-dir x\n```\n"
    assert judge(right, files=files, rule_=both) == []


def test_a_command_written_over_lines_without_continuations_keeps_its_program():
    tool = "tools/convert.py"
    both = rule(
        Source(id="cli", kind="argparse", paths=(CLI,)), Source(id="tool", kind="argparse", paths=(tool,))
    )
    files = {tool: cli("'--input-dir'", "'--output-dir'")}
    # "Type it on one line": the flags on the lines below are the converter's, offered its own.
    page = "```\npython tools/convert.py\n    --output-dir=y\n    --input-dri=x\n```\n"
    [f] = judge(page, files=files, rule_=both)
    assert (f.kind, f.symbol) == ("unresolved", "--input-dri")
    assert f.suggestion.replacement == "    --input-dir=x"
    # Run with the other program, the same lines are its own: neither flag is, none offered.
    found = judge(page.replace("tools/convert.py", "tool/cli.py"), files=files, rule_=both)
    assert [(f.symbol, f.suggestion) for f in found] == [("--output-dir", None), ("--input-dri", None)]


def test_another_programs_flag_close_by_letters_to_one_of_ours_gets_no_suggestion():
    # Megatron's `--no-load-optim` on a miles page: `--no-save-optim` would make the line wrong.
    code = {CLI: cli("'--no-save-optim', dest='save_optim', action='store_false'")}
    [f] = judge("Resume with `--no-load-optim`.\n", files=code)
    assert (f.kind, f.suggestion) == ("unresolved", None)
    [f] = judge("Resume with `--no-save-optm`.\n", files=code)
    assert f.suggestion.replacement == "Resume with `--no-save-optim`."


def test_a_help_listing_s_value_placeholder_is_no_choice():
    code = cli("'--tb', metavar='style', choices=['auto', 'short'], default='auto'")
    page = "Pick `--tb=style` to print tracebacks your way.\n\nPass `--tb long`.\n"
    found = judge(page, files={CLI: code})
    assert [(f.kind, f.symbol) for f in found] == [("unresolved", "--tb long")]


def test_a_help_listing_in_a_plain_text_block_is_judged_as_the_program_s_flags():
    code = cli("'--split-mode', choices=['layer', 'row']", "'--no-mmap', action='store_true'")
    listing = (
        "usage: tool/cli.py [-h] [--split-mode SPLIT_MODE] [--no-mmap]\n\n"
        "options:\n"
        "  --split-mode SPLIT_MODE   How to split the model.\n"
        "  --row-split               Split the model by rows.\n"
        "  --no-mmap                 Prevent mmap from being used.\n"
    )
    for lang in ("txt", "text"):
        found = judge(f"<details>\n\n```{lang}\n{listing}```\n\n</details>\n", files={CLI: code})
        assert [(f.kind, f.symbol) for f in found] == [("unresolved", "--row-split")]
    # Other text is nobody's command line: its flags are not read.
    page = "```text\nThe old build took --row-split; see the log below.\n```\n"
    assert judge(page, files={CLI: code}) == []


def test_a_default_folder_written_as_a_folder_or_a_file_in_it_is_no_wrong_default():
    # HELM's pages: `--local-path` defaults to `prod_env`.
    code = cli("'--local-path', default='prod_env'", "'--output-path', default='benchmark_output'")
    page = (
        "- The environment directory is `prod_env/` by default and can be set using `--local-path`.\n"
        "- The output directory is `./benchmark_output/` by default and can be set using `--output-path`.\n"
        "- The file should be `prod_env/model_metadata.yaml` by default, or at\n"
        "  `$LOCAL_PATH/model_metadata.yaml` if `--local-path` is set.\n"
    )
    assert judge(page, files={CLI: code}) == []
    page = "- The environment directory is `dev_env/` by default and can be set using `--local-path`.\n"
    assert kinds(judge(page, files={CLI: code})) == [("wrong-default", "--local-path")]


def test_a_parser_handed_to_a_builder_with_a_class_of_elsewhere_takes_flags_it_does_not_show():
    # fairseq's options.py: `gen_parser_from_dataclass(parser, CommonConfig())`, both imported.
    code = (
        "import argparse\n\nfrom pkg.configs import CommonConfig\n"
        "from pkg.utils import gen_parser_from_dataclass\n\np = argparse.ArgumentParser()\n"
        "gen_parser_from_dataclass(p, CommonConfig())\np.add_argument('--user-dir')\n"
    )
    page = "```bash\npython tool/cli.py --valid-subset dev --user-dri x\n```\n"
    assert kinds(judge(page, files={CLI: code})) == [("unresolved", "--user-dri")]
    # No class of elsewhere handed to it: the parser shows all it has.
    own = code.replace("from pkg.configs import CommonConfig\n", "")
    assert sorted(kinds(judge(page, files={CLI: own}))) == [
        ("unresolved", "--user-dri"),
        ("unresolved", "--valid-subset"),
    ]
    # An instance named as a constant, handed with a group of the parser: flags made elsewhere.
    instance = (
        "import argparse\n\nfrom pkg.configs import DEFAULT_CONFIG\n"
        "from pkg.utils import add_args\n\np = argparse.ArgumentParser()\n"
        "group = p.add_argument_group('common')\nadd_args(group, DEFAULT_CONFIG)\n"
        "p.add_argument('--user-dir')\n"
    )
    assert kinds(judge(page, files={CLI: instance})) == [("unresolved", "--user-dri")]
    # Handed something other than a parser first, a constant makes no flags: the parser shows
    # all it has.
    constant = (
        "import argparse\n\nfrom pkg.audio import N_FRAMES, pad_or_trim\n\n"
        "def run(mel):\n    return pad_or_trim(mel, N_FRAMES)\n\n"
        "p = argparse.ArgumentParser()\np.add_argument('--user-dir')\n"
    )
    assert sorted(kinds(judge(page, files={CLI: constant}))) == [
        ("unresolved", "--user-dri"),
        ("unresolved", "--valid-subset"),
    ]


def test_placeholders_in_brackets_are_no_values_and_no_flags():
    code = cli(
        "'--dtypes', nargs='+', choices=['fp32', 'int8'], default=['fp32', 'int8']",
        "'--prec', choices=['fp8', 'bf16']",
    )
    files = {CLI: code}
    page = (
        "```bash\npython tool/cli.py --dtypes {dtype_1} {dtype_2} ...\n"
        "python tool/cli.py --prec [fp8 | bf16] --{script-argument}\n"
        "python tool/cli.py --prec [fp4 | bf16]\n```\n"
    )
    assert kinds(judge(page, files=files)) == [("unresolved", "--prec fp4")]


def test_a_bare_value_in_a_list_default_is_no_wrong_default():
    code = cli("'--dtypes', nargs='+', choices=['fp32', 'fp16', 'int8'], default=['fp32', 'fp16', 'int8']")
    page = "Use `--dtypes` to pick.\n\nWe return `int8` through `fp32` by default.\n"
    assert judge(page, files={CLI: code}) == []
    # A value the list does not hold is still judged.
    code = cli("'--dtypes', nargs='+', choices=['fp32', 'fp16', 'int8'], default=['fp16', 'int8']")
    assert kinds(judge(page, files={CLI: code})) == [("wrong-default", "--dtypes")]


def test_a_flag_after_a_script_the_repository_lacks_is_that_scripts():
    page = "It is incompatible with `--predict_with_generate` in the `run_summary.py` script of a library.\n"
    assert judge(page) == []
    assert kinds(judge("This is incompatible with `--predict_with_generate`.\n")) == [
        ("unresolved", "--predict_with_generate")
    ]
    # A script named in passing says nothing of the flags of the lines after it.
    page = "Point it at an implementation (e.g. `mis.py`).\n\n| `--mis-mode` | the mode |\n"
    assert kinds(judge(page)) == [("unresolved", "--mis-mode")]


def test_no_suggestion_when_two_flags_are_as_near_or_the_line_cites_the_near_one():
    code = cli("'--tp-size', type=int", "'--sp-size', type=int", "'--cp-size', type=int")
    [tie] = judge("Pass `--dp-size 8`.\n", files={CLI: code})
    assert tie.suggestion is None and tie.message == "`--dp-size` is not a flag at head"
    code = cli("'--tp-size', type=int", "'--cp-sizes', type=int")
    [cited] = judge("Pass `--dp-size 8 --tp-size 2`.\n", files={CLI: code})
    assert cited.suggestion is None


def test_a_flag_under_a_heading_naming_a_script_is_offered_that_scripts_flags():
    other = "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--with_tracking')\n"
    mine = "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--profile_memory')\n"
    files = {"ex/tracking.py": other, "ex/profiler.py": mine}
    r = rule(flags_source("ex/tracking.py", "ex/profiler.py"))
    [f] = judge("### Profiler (`ex/profiler.py`)\n\n- `--with_stack`: traces.\n", files=files, rule_=r)
    assert f.symbol == "--with_stack" and f.suggestion is None
    # Without the heading, the nearest flag of any script is offered.
    [g] = judge("- `--with_stack`: traces.\n", files=files, rule_=r)
    assert "did you mean `--with_tracking`" in g.message


def test_a_claimed_default_the_flag_cannot_hold_is_another_settings():
    code = {
        CLI: cli(
            "'--encoder', choices=['auto', 'fold', 'dp'], default='auto'",
            "'--host', default='0.0.0.0'",
            "'--port', type=int, default=29000",
        )
    }
    page = "Keep the default `--encoder auto`; with the server's default `batch_limit` of 1 it folds.\n"
    assert judge(page, files=code) == []
    assert judge("Enable with `--host`/`--port` (defaults to `0.0.0.0:29000`).\n", files=code) == []
    [f] = judge("`--encoder` defaults to `fold`.\n", files=code)
    assert (f.kind, f.symbol) == ("wrong-default", "--encoder")
    [port] = judge("`--port` defaults to `0.0.0.0:8000`.\n", files=code)
    assert (port.kind, port.symbol) == ("wrong-default", "--port")


def test_a_click_choice_that_folds_case_takes_a_value_in_any_case():
    module = (
        "import click\n\n@click.command()\n"
        "@click.option('--kind', type=click.Choice(['point', 'polygon'], case_sensitive=False))\n"
        "@click.option('--fmt', type=click.Choice(['csv', 'tsv']))\ndef shape(kind, fmt):\n    pass\n"
    )
    clicked = rule(Source(id="cli", kind="click", paths=(CLI,)))
    assert judge("Pass `--kind Polygon`.\n", files={CLI: module}, rule_=clicked) == []
    found = judge("Pass `--kind circle` or `--fmt Tsv`.\n", files={CLI: module}, rule_=clicked)
    assert sorted(kinds(found)) == [("unresolved", "--fmt Tsv"), ("unresolved", "--kind circle")]


def test_a_value_the_flags_type_folds_into_a_choice_is_one():
    # argparse converts the value with `type=` before it checks `choices=`.
    code = {
        CLI: cli(
            "'--optimizer', type=lambda s: s.lower(), choices=['adam', 'adamw']",
            "'--sched', type=str.upper, choices=['COSINE']",
            "'--act', choices=['relu', 'gelu']",
        )
    }
    assert judge("Pass `--optimizer Adam` and `--sched cosine`.\n", files=code) == []
    assert kinds(judge("Pass `--optimizer Sgd`.\n", files=code)) == [("unresolved", "--optimizer Sgd")]
    assert kinds(judge("Pass `--act ReLU`.\n", files=code)) == [("unresolved", "--act ReLU")]


def test_a_bare_value_after_a_name_the_sentence_gives_is_that_name_s_default():
    code = cli("'--num-audios', type=int, choices=[0, 1, 2], default=1")
    page = "In V1, the `seed` parameter defaults to `0`, so runs repeat.\n"
    assert judge(page, files={CLI: code}) == []
    # With no name before it, the value is the one flag's offering it.
    assert kinds(judge("It defaults to `0`, so runs repeat.\n", files={CLI: code})) == [
        ("wrong-default", "--num-audios")
    ]


def test_a_flag_a_sentence_says_is_gone_is_history():
    page = (
        "The `--swap-space` flag has been removed as this feature is no longer used.\n\n"
        "The `--rope-scaling` parameter used in older versions is no longer supported.\n\n"
        "Passing `--old-model` and `--old-tokens` separately has been deprecated.\n\n"
        # an adverb between, the sentence wrapped: still the same history
        "Support via the `--oauth-token` and `--oauth-login`\narguments had to be disabled,"
        " and both were\nfinally removed in 2.0.0.\n"
    )
    assert judge(page) == []
    # A flag named after the words is what the reader is told to use: still judged.
    page = "The `--swap-space` flag has been removed; pass `--kv-space` instead.\n"
    assert kinds(judge(page)) == [("unresolved", "--kv-space")]
    assert kinds(judge("Pass `--swap-space` to swap.\n")) == [("unresolved", "--swap-space")]


def test_a_flag_a_sentence_says_the_code_had_once_is_history():
    page = (
        "Sizes are now guessed - previously every file was read whole unless you passed\n"
        "`--guess-size`. To keep the old way pass `--seed`.\n\n"
        "Two things have been removed:\n\n"
        "- The `TOOL_GUESS` variable.\n"
        "- The `-g/--guess` switch itself, which did\n  nothing any more.\n\n"
        "The old `--stale-mode` flag did nothing.\n"
    )
    assert judge(page) == []
    # What the reader is told to do now is still judged, and so is a list no lead-in calls gone.
    page = (
        "Previously you passed `--guess-size`; now pass `--gues-size`.\n\n"
        "Two things were added:\n\n- The `--guess` switch.\n"
    )
    assert kinds(judge(page)) == [("unresolved", "--gues-size"), ("unresolved", "--guess")]


def test_the_negative_of_a_flag_declared_with_a_mapping_s_keywords_may_be_its_own():
    code = (
        "import argparse\nfrom tool.kwargs import get_kwargs\n\n\ndef main():\n"
        "    kwargs = get_kwargs()\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--enable-prefix-caching', **kwargs['enable_prefix_caching'])\n"
        "    parser.add_argument('--seed', type=int, default=0)\n    parser.parse_args()\n"
    )
    page = "Turn it off with `--no-enable-prefix-caching`; `--no-seed` is no flag.\n"
    # The mapping may make the action argparse.BooleanOptionalAction: `--no-...` is left alone.
    assert kinds(judge(page, files={CLI: code})) == [("unresolved", "--no-seed")]
    plain = code.replace("**kwargs['enable_prefix_caching']", "type=int")
    assert len(judge(page, files={CLI: plain})) == 2


def test_a_flag_written_with_a_space_for_its_separator_is_offered_no_other_flag():
    code = {CLI: cli("'--gradient_accumulation_steps'", "'--gradient_clip'")}
    [f] = judge("* `--gradient accumulation` sets how many steps to accumulate.\n", files=code)
    assert (f.kind, f.symbol, f.suggestion) == ("unresolved", "--gradient", None)
    [g] = judge("* `--gradient_clp 1.0` clips.\n", files=code)
    assert g.suggestion is not None and "--gradient_clip" in g.suggestion.replacement


def test_the_options_after_an_mpi_launchers_colon_are_the_launchers_again():
    # `mpirun ... : -n 1 numactl -N 1 --localalloc python tool/cli.py`: MPI's `:` starts the next
    # program of the job; `numactl --localalloc` before it runs that program, as before the first
    page = (
        "```bash\n"
        "mpirun -n 1 numactl -N 0 --localalloc python tool/cli.py --seed 1 : \\\n"
        "  -n 1 numactl -N 1 --localalloc python tool/cli.py --seed 2\n"
        "```\n"
    )
    assert judge(page) == []
    wrong = page.replace("--seed 2", "--sede 2")
    assert kinds(judge(wrong)) == [("unresolved", "--sede")]  # the program's own flags still judged


def test_a_list_flags_one_member_default_is_that_value_written_alone():
    # `--report-to tensorboard` gives `['tensorboard']`; a page saying the default is
    # `'tensorboard'` is right, one saying `'wandb'` is not
    files = {CLI: cli("'--report-to', nargs='+', default=['tensorboard']")}
    assert judge("`--report-to` defaults to `'tensorboard'`.\n", files=files) == []
    [f] = judge("`--report-to` defaults to `'wandb'`.\n", files=files)
    assert (f.kind, f.symbol) == ("wrong-default", "--report-to")
