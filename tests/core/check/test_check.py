"""The check engine on a small miles-shaped repository held in memory: each finding kind, each clean kind."""

from __future__ import annotations

import pytest

from bot.core.check import audit, check
from bot.core.model import Change, Report
from bot.core.packs import parse_repo_config
from bot.testing import trainer as demo
from bot.trees.memory import MemoryTree

DOC = "docs/training-backend.md"
ARGS = "trainer/backends/fsdp/arguments.py"
MESH = "trainer/backends/fsdp/parallel.py"
FACTORY = "trainer/train/actor_factory.py"
MAIN_ARGS = "trainer/arguments.py"


def rules():
    return [rule for pack in parse_repo_config(demo.CONFIG) for rule in pack.rules]


def run(edits: dict[str, str | None], base_edits: dict[str, str] | None = None) -> Report:
    base = dict(demo.BASE_FILES, **(base_edits or {}))
    head = dict(base)
    changes = []
    for path, text in edits.items():
        if text is None:
            head.pop(path, None)
            changes.append(Change("removed", path))
        else:
            changes.append(Change("modified" if path in base else "added", path))
            head[path] = text
    return check(rules(), MemoryTree(base), MemoryTree(head), changes)


def doc_line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def only(report: Report):
    assert len(report.findings) == 1, report.findings
    return report.findings[0]


# -- code -> doc -------------------------------------------------------------------------------


def test_renamed_flag_points_at_doc_line_and_suggests_new_name():
    finding = only(run({ARGS: demo.ARGS_HEAD.replace('"sdpa"', '"flash_attention_2"')}))
    assert finding.kind == "renamed"
    assert finding.severity == "error"
    assert finding.symbol == "--disable-fp32-master"
    line = doc_line(demo.DOC_BASE, "--disable-fp32-master")
    assert finding.doc.path == DOC and finding.doc.line == line
    assert finding.doc.section == "Training backends > FSDP > Precision"
    assert finding.doc.anchor == "precision"
    assert finding.suggestion.start_line == finding.suggestion.end_line == line
    assert finding.suggestion.replacement == demo.DOC_BASE.splitlines()[line - 1].replace(
        "--disable-fp32-master", "--no-keep-fp32-master"
    )
    # The code line is one the change touched in the builder, at head.
    assert finding.code.path == ARGS
    head_lines = demo.ARGS_HEAD.splitlines()
    assert "BooleanOptionalAction" in "\n".join(head_lines[finding.code.line - 2 : finding.code.line + 1])
    assert run({ARGS: demo.ARGS_HEAD}).conclusion() == "failure"


def test_doc_edit_that_follows_the_code_is_clean():
    fixed = demo.DOC_BASE.replace("--disable-fp32-master", "--no-keep-fp32-master").replace(
        "`flash_attention_2` by default", "`sdpa` by default"
    )
    report = run({ARGS: demo.ARGS_HEAD, DOC: fixed})
    assert report.findings == ()
    assert report.conclusion() == "success"


def test_changed_default_flags_the_claim_and_rewrites_the_value():
    args = demo.ARGS_BASE.replace('"flash_attention_2"', '"sdpa"')
    finding = only(run({ARGS: args}))
    assert finding.kind == "changed"
    assert finding.symbol == "--attn-implementation"
    line = doc_line(demo.DOC_BASE, "flash_attention_2")
    assert finding.doc.line == line
    assert "`sdpa` by default" in finding.suggestion.replacement
    assert finding.code.line == doc_line(args, '"sdpa"')


def test_removed_mesh_dimension_flags_its_table_row_and_suggests_dropping_it():
    mesh = demo.PARALLEL.replace(
        'mesh_dim_names=("dp_replicate", "dp_shard")', 'mesh_dim_names=("dp_shard",)'
    )
    finding = only(run({MESH: mesh}))
    assert finding.kind == "removed"
    assert finding.symbol == "dp_replicate"
    assert finding.doc.line == doc_line(demo.DOC_BASE, "| `dp_replicate` |")
    assert finding.suggestion.replacement == ""
    assert finding.code.path == MESH


def test_new_backend_choice_is_a_warning_on_the_enumerating_table():
    factory = demo.FACTORY.replace(
        "    from trainer.backends.fsdp.actor import FSDPActor",
        '    if backend == "jax":\n        return None\n'
        "    from trainer.backends.fsdp.actor import FSDPActor",
    )
    finding = only(run({FACTORY: factory}))
    assert finding.kind == "undocumented"
    assert finding.severity == "warning"
    assert finding.symbol == "jax"
    assert finding.doc.line == doc_line(demo.DOC_BASE, "| `megatron` |")
    assert finding.code.path == FACTORY and finding.code.line == doc_line(factory, '"jax"')
    assert run({FACTORY: factory}).conclusion() == "neutral"


def test_new_flag_next_to_documented_ones_is_a_notice():
    args = demo.ARGS_BASE.replace(
        "    dp_replicate_size: int = 1\n", "    dp_replicate_size: int = 1\n    seed: int = 0\n"
    )
    finding = only(run({ARGS: args}))
    assert (finding.kind, finding.severity, finding.symbol) == ("new-flag", "notice", "--seed")
    assert finding.doc is None and finding.code.line == doc_line(args, "seed: int")


def test_removed_choice_cited_in_table_is_flagged():
    main_args = demo.MAIN_ARGS.replace('choices=["megatron", "fsdp"]', 'choices=["megatron"]')
    finding = only(run({MAIN_ARGS: main_args}))
    assert (finding.kind, finding.symbol) == ("removed", "fsdp")
    assert finding.doc.line == doc_line(demo.DOC_BASE, "| `fsdp` |")


def test_changed_default_choice_flags_the_checkmark_row():
    main_args = demo.MAIN_ARGS.replace('default="megatron"', 'default="fsdp"')
    finding = only(run({MAIN_ARGS: main_args}))
    assert (finding.kind, finding.symbol) == ("changed", "--train-backend")
    assert finding.doc.line == doc_line(demo.DOC_BASE, "| `megatron` |")


def test_renamed_cited_path_suggests_the_new_path():
    moved = "trainer/backends/fsdp/mesh.py"
    base = dict(demo.BASE_FILES)
    head = dict(base)
    head[moved] = head.pop(MESH)
    report = check(rules(), MemoryTree(base), MemoryTree(head), [Change("renamed", moved, MESH)])
    finding = only(report)
    assert (finding.kind, finding.symbol) == ("renamed", MESH)
    assert moved in finding.suggestion.replacement


# -- doc -> code -------------------------------------------------------------------------------


def test_doc_line_with_unknown_flag_gets_nearest_real_flag():
    report = run({DOC: demo.DOC_HEAD})
    finding = only(report)
    assert (finding.kind, finding.symbol) == ("unresolved", "--fsdp-cpu-ofload")
    assert finding.doc.line == doc_line(demo.DOC_HEAD, "--fsdp-cpu-ofload")
    assert "`--fsdp-cpu-offload`" in finding.suggestion.replacement


def test_doc_line_claiming_a_wrong_default_is_flagged():
    doc = demo.DOC_BASE.replace("`flash_attention_2` by default", "`eager` by default")
    finding = only(run({DOC: doc}))
    assert (finding.kind, finding.symbol) == ("wrong-default", "--attn-implementation")
    assert "`flash_attention_2` by default" in finding.suggestion.replacement


def test_doc_line_citing_missing_path_is_flagged():
    doc = demo.DOC_BASE.replace("`trainer/train/actor_factory.py`", "`trainer/train/factory.py`")
    finding = only(run({DOC: doc}))
    assert (finding.kind, finding.symbol) == ("unresolved", "trainer/train/factory.py")
    assert "trainer/train/actor_factory.py" in finding.suggestion.replacement


def test_unchanged_doc_lines_are_not_checked_doc_to_code():
    # A stale flag already on the base page is not this change's fault: `audit` reports it.
    base_doc = demo.DOC_BASE + "\nSee `--no-such-flag`.\n"
    report = run({DOC: base_doc + "\nMore text.\n"}, base_edits={DOC: base_doc})
    assert report.findings == ()


# -- clean changes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "edit",
    [
        # comments and formatting
        {ARGS: demo.ARGS_BASE.replace("    # Optim\n", "    # Optimizer settings\n")},
        # help text and log strings
        {ARGS: demo.ARGS_BASE.replace("Drop the fp32 master copy", "Drop the fp32 master weights")},
        # an environment variable read somewhere else
        {
            FACTORY: demo.FACTORY.replace(
                "    backend = args.train_backend\n",
                "    import os\n    backend = os.environ.get('X', args.train_backend)\n",
            )
        },
        # a file no rule watches
        {"trainer/utils.py": "def helper():\n    return 1\n"},
    ],
)
def test_refactors_produce_no_findings(edit):
    assert run(edit).findings == ()


def test_unparsable_python_is_reported_not_raised():
    broken = demo.ARGS_BASE.replace("class FSDPArgs:", "class FSDPArgs(:")
    finding = only(run({ARGS: broken}))
    assert finding.kind == "parse-error"
    assert finding.code.path == ARGS
    assert finding.code.line == doc_line(broken, "class FSDPArgs(")
    assert ARGS in finding.message


def test_audit_is_clean_on_the_demo_and_flags_a_stale_reference():
    rules_ = rules()
    assert audit(rules_, MemoryTree(demo.BASE_FILES)).findings == ()
    stale = dict(demo.BASE_FILES, **{DOC: demo.DOC_BASE + "\nUse `--fsdp-offload`.\n"})
    finding = only(audit(rules_, MemoryTree(stale)))
    assert (finding.kind, finding.symbol) == ("unresolved", "--fsdp-offload")


def test_findings_are_deterministic_and_fingerprints_ignore_line_shifts():
    a = run({ARGS: demo.ARGS_HEAD})
    b = run({ARGS: demo.ARGS_HEAD})
    assert a == b
    shifted = run({ARGS: demo.ARGS_HEAD}, base_edits={DOC: "\n\n" + demo.DOC_BASE})
    assert {f.fingerprint() for f in a.findings} == {f.fingerprint() for f in shifted.findings}


def test_claim_about_a_name_the_doc_ties_to_a_flag_follows_the_flag():
    # The mesh table row ties `dp_replicate` to `--dp-replicate-size`.
    doc = demo.DOC_BASE.replace(
        "| `dp_shard` | derived |\n",
        "| `dp_shard` | derived |\n\nThe default, `dp_replicate=1`, is one flat group.\n",
    )
    args = demo.ARGS_BASE.replace("dp_replicate_size: int = 1", "dp_replicate_size: int = 2")
    finding = only(run({ARGS: args}, base_edits={DOC: doc}))
    assert (finding.kind, finding.symbol) == ("changed", "--dp-replicate-size")
    assert finding.doc.line == doc_line(doc, "dp_replicate=1")
    assert "`dp_replicate=2`" in finding.suggestion.replacement


def test_new_flags_of_a_module_the_page_barely_cites_are_not_reported():
    many = "".join(f"    group.add_argument('--knob-{i}', type=int, default={i})\n" for i in range(20))
    base_args = demo.MAIN_ARGS + many
    head_args = base_args + "    group.add_argument('--knob-new', type=int, default=0)\n"
    assert run({MAIN_ARGS: head_args}, base_edits={MAIN_ARGS: base_args}).findings == ()


def test_renamed_field_is_one_finding_per_doc_line_and_not_a_new_flag():
    args = demo.ARGS_BASE.replace("fsdp_cpu_offload: bool", "cpu_offload: bool")
    report = run({ARGS: args})
    assert [(f.kind, f.symbol) for f in report.findings] == [("renamed", "--fsdp-cpu-offload")]
    assert all("`--cpu-offload`" in f.suggestion.replacement for f in report.findings)


def test_renamed_mesh_dimension_is_not_also_reported_as_new():
    mesh = demo.PARALLEL.replace('("dp_replicate", "dp_shard")', '("replicate", "dp_shard")')
    finding = only(run({MESH: mesh}))
    assert (finding.kind, finding.symbol) == ("renamed", "dp_replicate")
    assert "`replicate`" in finding.suggestion.replacement


def test_flipped_switch_default_flags_the_doc_lines_citing_the_switch():
    # With store_true the field's default is shadowed (always False): flipping it changes nothing.
    shadowed = demo.ARGS_BASE.replace("fsdp_cpu_offload: bool = False", "fsdp_cpu_offload: bool = True")
    assert run({ARGS: shadowed}).findings == ()
    # With BooleanOptionalAction it is the flag's default: `--fsdp-cpu-offload` becomes a no-op.
    args = demo.ARGS_HEAD.replace("fsdp_cpu_offload: bool = False", "fsdp_cpu_offload: bool = True")
    finding = only(run({ARGS: args}, base_edits={ARGS: demo.ARGS_HEAD}))
    assert (finding.kind, finding.symbol) == ("changed", "--fsdp-cpu-offload")
    assert "no longer changes anything" in finding.message


def test_new_mesh_dimension_is_reported_on_the_table_that_lists_them():
    mesh = demo.PARALLEL.replace('("dp_replicate", "dp_shard")', '("dp_replicate", "dp_shard", "ep")')
    finding = only(run({MESH: mesh}))
    assert (finding.kind, finding.symbol, finding.severity) == ("undocumented", "ep", "warning")
    assert finding.doc.line == doc_line(demo.DOC_BASE, "| `dp_shard` | derived |")


def test_moved_folder_cited_by_the_doc_suggests_the_new_folder():
    doc = demo.DOC_BASE + "\nEverything FSDP lives in `trainer/backends/fsdp/`.\n"
    base = dict(demo.BASE_FILES, **{DOC: doc})
    head = dict(base)
    changes = []
    for old in (ARGS, MESH):
        new = old.replace("trainer/backends/fsdp/", "trainer/fsdp/")
        head[new] = head.pop(old)
        changes.append(Change("renamed", new, old))
    report = check(rules(), MemoryTree(base), MemoryTree(head), changes)
    moved = [f for f in report.findings if f.symbol == "trainer/backends/fsdp/"]
    assert len(moved) == 1 and moved[0].kind == "renamed"
    assert moved[0].suggestion.replacement == "Everything FSDP lives in `trainer/fsdp/`."
    # The page's citation of the moved module itself is reported too.
    assert {f.symbol for f in report.findings} >= {MESH}


def test_claim_without_a_flag_is_tied_to_the_one_flag_whose_choices_hold_the_value():
    doc = demo.DOC_BASE + "\nJobs train on `megatron` by default.\n"
    main_args = demo.MAIN_ARGS.replace('default="megatron"', 'default="fsdp"')
    report = run({MAIN_ARGS: main_args}, base_edits={DOC: doc})
    lines = sorted(f.doc.line for f in report.findings)
    assert lines == [doc_line(doc, "| `megatron` |"), doc_line(doc, "Jobs train on")]
    prose = next(f for f in report.findings if f.doc.line == doc_line(doc, "Jobs train on"))
    assert prose.suggestion.replacement == "Jobs train on `fsdp` by default."


def test_flags_of_a_repository_script_with_its_own_cli_are_not_the_rules_business():
    tool = "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--input-dir')\n"
    doc = demo.DOC_BASE + "\n```bash\npython tools/convert.py --input-dir /x --output-dir /y\n```\n"
    base = dict(demo.BASE_FILES, **{"tools/convert.py": tool})
    head = dict(base, **{DOC: doc})
    report = check(rules(), MemoryTree(base), MemoryTree(head), [Change("modified", DOC)])
    assert report.findings == ()
    # The same flags given to the trainer's own launcher are checked.
    head[DOC] = demo.DOC_BASE + "\n```bash\npython train.py --input-dir /x\n```\n"
    head["train.py"] = (
        "import argparse\n\nfrom trainer.arguments import add_cluster_arguments\n\n"
        "parser = argparse.ArgumentParser()\nadd_cluster_arguments(parser)\nparser.parse_args()\n"
    )
    report = check(rules(), MemoryTree(base), MemoryTree(head), [Change("modified", DOC)])
    assert [(f.kind, f.symbol) for f in report.findings] == [("unresolved", "--input-dir")]


def test_audit_names_the_files_a_rule_expects_and_the_revision_lacks():
    files = dict(demo.BASE_FILES)
    del files[FACTORY]
    findings = audit(rules(), MemoryTree(files)).findings
    assert [(f.kind, f.symbol) for f in findings] == [("unresolved", FACTORY)] * 2
    cited, expected = sorted(findings, key=lambda f: f.doc is None)
    assert cited.doc.line == doc_line(demo.DOC_BASE, FACTORY)  # the page cites it
    assert expected.doc is None and "train-backends" in expected.message  # the rule reads it
