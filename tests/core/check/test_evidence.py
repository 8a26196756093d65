"""Evidence of a rename in the change itself: the other files it rewrote, swapping the old
spelling for the new one at the same place."""

from __future__ import annotations

from bot.core.check import check, evidence
from bot.core.check.evidence import ChangeEvidence, changed_files, swapped_words
from bot.core.model import Change
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, DOC, changes_between, cli, rule

LAUNCHERS = ("scripts/run_small.sh", "scripts/run_big.sh", "examples/run_demo.py")


def launcher(path: str, flag: str) -> str:
    if path.endswith(".sh"):
        return f"python tool/cli.py \\\n   --lr 1e-5 \\\n   {flag} \\\n   --seed 1\n"
    return f'ARGS = (\n    "--lr 1e-5 "\n    "{flag} "\n)\n'


def test_a_word_swapped_in_an_otherwise_unchanged_line_is_a_pair():
    assert swapped_words('    "--gradient-checkpointing "', '    "--activation-checkpointing "') == [
        ("--gradient-checkpointing", "--activation-checkpointing")
    ]
    assert swapped_words("p = Policy(keep_fp32_master=args.keep_fp32_master)", "p = Policy(w=args.w)") == [
        ("keep_fp32_master", "w"),
        ("keep_fp32_master", "w"),
    ]
    # Anything else rewritten on the line: no pair, it is not a swap.
    assert swapped_words("run --a --b", "run --c") == []
    assert swapped_words("f(x)", "f(y, z)") == []
    assert swapped_words("f(x)", "f[y]") == []


def test_replacements_are_read_from_rewritten_lines_of_changed_files_only():
    base = {p: launcher(p, "--old-flag") for p in LAUNCHERS}
    base["docs/page.md"] = "Pass `--old-flag`.\n"
    base["untouched.sh"] = "python tool/cli.py --old-flag\n"
    base["notebooks/demo.ipynb"] = '"--old-flag"\n'
    head = {p: launcher(p, "--new-flag") for p in LAUNCHERS}
    head["docs/page.md"] = "Pass `--new-flag`.\n"
    head["notebooks/demo.ipynb"] = '"--new-flag"\n'
    head["untouched.sh"] = base["untouched.sh"]
    changes = changes_between(base, head)
    found = ChangeEvidence(
        MemoryTree(base),
        MemoryTree(head),
        [(c.path, c.path) for c in changes],
        skip={"docs/page.md"},
    ).replacements({"--old-flag", "--missing"})
    assert found == {"--old-flag": {"--new-flag": frozenset(LAUNCHERS)}}


def test_the_reading_is_bounded_by_files(monkeypatch):
    base = {p: launcher(p, "--old-flag") for p in LAUNCHERS}
    head = {p: launcher(p, "--new-flag") for p in LAUNCHERS}
    monkeypatch.setattr(evidence, "MAX_FILES", 2)
    changed = [(p, p) for p in LAUNCHERS]
    found = ChangeEvidence(MemoryTree(base), MemoryTree(head), changed).replacements({"--old-flag"})
    assert len(found["--old-flag"]["--new-flag"]) == 2


def test_a_moved_file_is_compared_with_itself_and_a_removed_one_not_at_all():
    changed = changed_files(
        {"a/old.py": "a/new.py"}, ["a/old.py", "a/new.py", "b.py", "gone.py"], {"gone.py"}
    )
    assert sorted(changed) == [("a/old.py", "a/new.py"), ("b.py", "b.py")]


# -- through the whole check ---------------------------------------------------------------------

PAGE = "Precision\n\nThe master copy is kept; `--no-keep-master` trades it for memory.\n"


def dataclass_cli(field: str) -> str:
    """A dataclass-built parser, as FSDPArgs: each bool field is a BooleanOptionalAction pair."""
    return cli(
        f"'--{field.replace('_', '-')}', dest='{field}', action=argparse.BooleanOptionalAction, default=True"
    )


def renaming_change(field: str, new: str) -> tuple[dict[str, str], dict[str, str], list[Change]]:
    """The field renamed everywhere: the parser, a test and the launchers."""
    test = "tests/test_policy.py"
    base = {
        DOC: PAGE,
        CLI: dataclass_cli(field),
        test: f"def test_it():\n    assert parse(['--no-{field.replace('_', '-')}']).{field} is False\n",
        **{p: launcher(p, f"--no-{field.replace('_', '-')}") for p in LAUNCHERS},
    }
    old_flag, new_flag = field.replace("_", "-"), new.replace("_", "-")
    head = {p: t.replace(field, new).replace(old_flag, new_flag) for p, t in base.items()}
    head[DOC] = PAGE
    return base, head, changes_between(base, head)


def test_a_rename_the_change_made_elsewhere_is_the_successor_and_the_finding_says_so():
    base, head, changes = renaming_change("keep_master", "master_weights")
    [f] = check([rule()], MemoryTree(base), MemoryTree(head), changes).findings
    assert (f.kind, f.symbol, f.doc.line) == ("renamed", "--no-keep-master", 3)
    assert f.suggestion.replacement == "The master copy is kept; `--no-master-weights` trades it for memory."
    assert f.message.endswith(
        "the same change replaced `--no-keep-master` with `--no-master-weights` (and `keep_master` with "
        "`master_weights`) in 3 launcher scripts and 1 test"
    )
    assert "scripts/run_big.sh" in f.why and "tests/test_policy.py" in f.why


def test_the_same_rename_with_the_page_fixed_too_is_a_success():
    base, head, changes = renaming_change("keep_master", "master_weights")
    head[DOC] = PAGE.replace("--no-keep-master", "--no-master-weights")
    changes = changes_between(base, head)
    report = check([rule()], MemoryTree(base), MemoryTree(head), changes)
    assert report.findings == () and report.conclusion() == "success"


def test_evidence_never_names_the_opposite_switch():
    # The launchers swapped the positive spelling: the page's negative one gets the negative
    # twin of the new name.
    base = {DOC: PAGE, CLI: dataclass_cli("keep_master")}
    base.update({p: launcher(p, "--keep-master") for p in LAUNCHERS})
    head = {DOC: PAGE, CLI: dataclass_cli("master_weights")}
    head.update({p: launcher(p, "--master-weights") for p in LAUNCHERS})
    [f] = check([rule()], MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings
    assert f.kind == "renamed" and "`--no-master-weights`" in f.suggestion.replacement
    assert "replaced `--keep-master` with `--master-weights`" in f.message


def test_files_that_disagree_are_no_evidence():
    base = {DOC: PAGE, CLI: dataclass_cli("keep_master")}
    base.update({p: launcher(p, "--no-keep-master") for p in LAUNCHERS[:2]})
    head = {DOC: PAGE, CLI: dataclass_cli("master_weights") + dataclass_cli("weights_kept").split("\n", 3)[3]}
    head[LAUNCHERS[0]] = launcher(LAUNCHERS[0], "--no-master-weights")
    head[LAUNCHERS[1]] = launcher(LAUNCHERS[1], "--no-weights-kept")
    [f] = check([rule()], MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings
    assert f.kind == "removed" and f.suggestion is None


def test_a_rename_believed_from_its_place_says_so():
    page = "Cap it with `--max-items 8`.\n"
    base = {
        DOC: page,
        CLI: cli("'--lr', type=float", "'--max-items', type=int, default=8", "'--seed', type=int"),
    }
    head = {
        DOC: page,
        CLI: cli("'--lr', type=float", "'--budget', type=int, default=8", "'--seed', type=int"),
    }
    [f] = check([rule()], MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings
    assert f.kind == "renamed" and f.suggestion.replacement == "Cap it with `--budget 8`."
    assert f.message.endswith("`budget` took the place of `max_items` with the same type, default and action")
    assert "only destination removed" in f.why
