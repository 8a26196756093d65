"""A rule's inputs: which changes touch it, its pages and what the change wrote on them, its
facts at both revisions, the diffs of its sources and the code line a finding points at."""

from __future__ import annotations

from bot.core.check.touched import Touched, touches
from bot.core.model import Change
from bot.core.rules import DocTarget
from tests.core.check.checkkit import CLI, DOC, cli, flags_source, line_of, paths_source, prepare, rule

PAGE = "# CLI\n\nUse `--lr`.\n\n## Tuning\n\nAnd `--seed`.\n"


def test_touched_names_renames_removals_and_every_path_old_and_new():
    touched = Touched.of(
        [Change("renamed", "b/new.py", "a/old.py"), Change("removed", "gone.md"), Change("modified", "x.py")]
    )
    assert dict(touched.renames) == {"a/old.py": "b/new.py"}
    assert touched.removed == {"gone.md"}
    assert touched.paths == {"a/old.py", "b/new.py", "gone.md", "x.py"}
    assert touched.head_path("a/old.py") == "b/new.py" and touched.head_path("x.py") == "x.py"


def test_a_rule_is_touched_by_its_own_files_and_a_paths_rule_by_any_move_or_deletion():
    flags_only, with_paths = rule(), rule(flags_source(), paths_source())
    assert touches(flags_only, Touched.of([Change("modified", CLI)]))
    assert touches(flags_only, Touched.of([Change("modified", DOC)]))
    elsewhere = Touched.of([Change("removed", "other/thing.py")])
    assert not touches(flags_only, elsewhere)
    assert touches(with_paths, elsewhere)
    assert not touches(with_paths, Touched.of([Change("modified", "other/thing.py")]))


def test_new_refs_are_those_on_lines_the_change_wrote():
    head_page = PAGE.replace("And `--seed`.", "And `--seed`, `--lr`.")
    inputs = prepare(rule(), {DOC: PAGE, CLI: cli("'--lr'")}, {DOC: head_page, CLI: cli("'--lr'")})
    [page] = inputs.pages
    assert [(r.token, r.line) for r in page.refs] == [("--lr", 3), ("--seed", 7), ("--lr", 7)]
    assert [(r.token, r.line) for r in page.new_refs] == [("--seed", 7), ("--lr", 7)]


def test_every_line_of_a_new_page_is_new():
    inputs = prepare(rule(), {CLI: cli("'--lr'")}, {DOC: PAGE, CLI: cli("'--lr'")})
    [page] = inputs.pages
    assert page.new_refs == page.refs and len(page.refs) == 2


def test_a_page_is_read_in_its_sections_at_its_head_path_and_skipped_when_absent():
    moved = "docs/guide/cli.md"
    scoped = rule(docs=(DocTarget(DOC, ("CLI > Tuning",)), DocTarget("docs/missing.md")))
    inputs = prepare(scoped, {DOC: PAGE}, {moved: PAGE}, [Change("renamed", moved, DOC)])
    [page] = inputs.pages
    assert page.doc.path == moved
    assert page.sections == ("CLI > Tuning",)
    assert [r.token for r in page.refs] == ["--seed"]
    assert page.new_refs == ()  # the move changed no line


def test_facts_are_gathered_at_both_revisions_and_diffs_kept_for_changed_sources_only():
    other = "tool/other.py"
    two = rule(flags_source(CLI, other))
    base = {CLI: cli("'--lr'"), other: cli("'--seed'")}
    head = {CLI: cli("'--lr'", "'--warmup'"), other: cli("'--seed'")}
    inputs = prepare(two, base, head)
    assert set(inputs.base_facts.by_token) == {"--lr", "--seed"}
    assert set(inputs.head_facts.by_token) == {"--lr", "--seed", "--warmup"}
    assert list(inputs.code_diffs) == [CLI]
    assert inputs.code_diffs[CLI].changed_head_lines == {line_of(head[CLI], "--warmup")}


def test_a_renamed_source_keeps_its_facts_and_its_diff_under_the_new_path():
    moved = "tool/args.py"
    inputs = prepare(rule(), {CLI: cli("'--lr'")}, {moved: cli("'--lr'")}, [Change("renamed", moved, CLI)])
    [lr] = inputs.head_facts.by_token["--lr"]
    assert lr.path == moved
    assert list(inputs.code_diffs) == [moved]


def test_code_line_is_the_head_line_where_the_change_touched_the_fact():
    base_cli = cli("'--lr', default=0.1", "'--seed', default=0")
    head_cli = cli("'--lr', default=0.01", "'--seed', default=0")
    inputs = prepare(rule(), {CLI: base_cli}, {CLI: head_cli})
    [old_lr], [new_lr] = inputs.base_facts.by_token["--lr"], inputs.head_facts.by_token["--lr"]
    assert inputs.code_line(old_lr, new_lr).line == line_of(head_cli, "--lr")
    # A fact whose own line did not change, in a changed file: the nearest line the change touched.
    [old_seed], [new_seed] = inputs.base_facts.by_token["--seed"], inputs.head_facts.by_token["--seed"]
    assert inputs.code_line(old_seed, new_seed).line == line_of(head_cli, "--lr")
    # A fact gone from the file: the head line its base line became.
    assert inputs.code_line(old_seed, None).line == line_of(head_cli, "--seed")


def test_code_line_of_an_unchanged_source_is_the_fact_itself():
    inputs = prepare(rule(), {CLI: cli("'--lr'"), DOC: PAGE}, {CLI: cli("'--lr'"), DOC: PAGE + "\nMore.\n"})
    [lr] = inputs.head_facts.by_token["--lr"]
    assert inputs.code_diffs == {}
    assert inputs.code_line(lr, lr).line == line_of(cli("'--lr'"), "--lr")
