"""What replaced a token the docs cite, read from the history of the rule's sources."""

from __future__ import annotations

import re

from bot.core.check import audit, check
from bot.core.check.history import Commit, Lookups, Move, path_succession, pull_request, token_succession
from bot.core.facts import gather
from bot.core.rules import Source
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, DOC, changes_between, cli, flags_source, paths_source, rule


def whole(token):
    return re.compile(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])")


class MemoryHistory:
    """The history of in-memory snapshots (oldest first), answered as `git log -G` and rename
    detection answer it; counts the questions asked."""

    def __init__(self, *snapshots: tuple[str, str, dict[str, str]]):
        self.snapshots = snapshots
        self.asked = 0

    def touching(self, strings, paths):
        self.asked += 1
        found = []
        for i in range(len(self.snapshots) - 1, -1, -1):
            before = self.snapshots[i - 1][2] if i else {}
            after = self.snapshots[i][2]

            def lines(files):
                return sorted(
                    line
                    for p in paths
                    for line in files.get(p, "").splitlines()
                    for s in strings
                    if whole(s).search(line)
                )

            if lines(before) != lines(after):
                found.append(Commit(self.snapshots[i][0], self.snapshots[i][1]))
        return found[:5]

    def prefetch(self, questions, paths):
        self.prefetched = [list(q) for q in questions]  # each is answered on its own all the same

    def never(self, strings, paths):
        return not any(
            whole(s).search(files.get(p, ""))
            for _, _, files in self.snapshots
            for p in paths
            for s in strings
        )

    def never_had(self, paths):
        def had(path):
            return any(p == path or p.startswith(path + "/") for _, _, files in self.snapshots for p in files)

        return frozenset(p for p in paths if not had(p))

    def trees(self, commit):
        i = next(i for i, s in enumerate(self.snapshots) if s[0] == commit.id)
        return None if i == 0 else (MemoryTree(self.snapshots[i - 1][2]), MemoryTree(self.snapshots[i][2]))

    def moves(self, path):
        self.asked += 1
        for i in range(len(self.snapshots) - 1, 0, -1):
            before, after = self.snapshots[i - 1][2], self.snapshots[i][2]
            gone = [p for p in before if p not in after and (p == path or p.startswith(path + "/"))]
            if gone:
                added = {after[p]: p for p in after if p not in before}
                renames = {p: added[before[p]] for p in before if p not in after and before[p] in added}
                return [Move(Commit(self.snapshots[i][0], self.snapshots[i][1]), renames)]
        return []


SWITCH_OFF = cli('"--disable-fp32-master", dest="keep_fp32_master", action="store_false"')
BOTH_WAYS = (
    "import argparse\n\np = argparse.ArgumentParser()\n"
    'p.add_argument("--keep-fp32-master", action=argparse.BooleanOptionalAction, default=True)\n'
)
PAGE = "# Precision\n\nThe fp32 master copy is kept.\n"


def doc_edit(files: dict[str, str], line: str) -> dict[str, str]:
    return {**files, DOC: files.get(DOC, PAGE) + line + "\n"}


def run(history, head_files, line, rule_=None, lookups=None):
    base = head_files
    head = doc_edit(head_files, line)
    report = check(
        [rule_ or rule()], MemoryTree(base), MemoryTree(head), changes_between(base, head), history=history
    )
    return report.findings


def test_a_flag_gone_from_the_parser_suggests_its_successor_citing_the_commit():
    old = {CLI: SWITCH_OFF, DOC: PAGE}
    new = {CLI: BOTH_WAYS, DOC: PAGE}
    history = MemoryHistory(
        ("a" * 40, "add the flag (#10)", old),
        ("0daa9ff" + "1" * 33, "fix(fsdp): stop store_true from shadowing bool defaults (#2384)", new),
    )
    (finding,) = run(history, new, "- `--disable-fp32-master` saves memory.")
    assert finding.kind == "unresolved"
    assert finding.message == "`--disable-fp32-master` became `--no-keep-fp32-master` in 0daa9ff (#2384)"
    # The same meaning (keep_fp32_master set false), never the opposite switch --keep-fp32-master.
    assert finding.suggestion.replacement == "- `--no-keep-fp32-master` saves memory."
    assert finding.code.path == CLI
    assert "0daa9ff (#2384)" in finding.why


def test_a_line_telling_of_the_rename_is_left_alone():
    # It names the successor history finds: it is right, and the suggestion would repeat it.
    old = {CLI: SWITCH_OFF, DOC: PAGE}
    new = {CLI: BOTH_WAYS, DOC: PAGE}
    history = MemoryHistory(("a" * 40, "add (#10)", old), ("b" * 40, "rename (#11)", new))
    line = "- `--disable-fp32-master` was renamed to `--no-keep-fp32-master`; the old name still reads."
    assert run(history, new, line) == ()
    tree = doc_edit(new, line)
    assert audit([rule()], MemoryTree(tree), history=history).findings == ()


def test_without_a_history_the_check_is_as_before():
    new = {CLI: BOTH_WAYS, DOC: PAGE}
    (finding,) = run(None, new, "- `--disable-fp32-master` saves memory.")
    assert "0daa9ff" not in finding.message and "became" not in finding.message


def test_no_successor_of_the_opposite_meaning():
    # The switch that turned keep_fp32_master off was removed; only the one turning it on remains.
    old = {CLI: SWITCH_OFF, DOC: PAGE}
    new = {CLI: cli('"--keep-fp32-master", dest="keep_fp32_master", action="store_true"'), DOC: PAGE}
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "one way only (#2)", new))
    (finding,) = run(history, new, "- `--disable-fp32-master` saves memory.")
    assert finding.message == "`--disable-fp32-master` was removed in bbbbbbb (#2)"
    assert finding.suggestion is None


def test_a_rename_chain_is_followed_to_the_name_head_has():
    snaps = [
        ("1" * 40, "add (#1)", {CLI: cli('"--lr-warmup", type=int, default=0')}),
        ("2" * 40, "rename (#2)", {CLI: cli('"--warmup-steps", dest="lr_warmup", type=int, default=0')}),
        (
            "3" * 40,
            "rename again (#3)",
            {CLI: cli('"--num-warmup-steps", dest="lr_warmup", type=int, default=0')},
        ),
    ]
    history = MemoryHistory(*snaps)
    (finding,) = run(history, {**snaps[-1][2], DOC: PAGE}, "Set `--lr-warmup` to warm up.")
    assert finding.message == (
        "`--lr-warmup` became `--warmup-steps` in 2222222 (#2), then `--num-warmup-steps` in 3333333 (#3)"
    )
    assert finding.suggestion.replacement == "Set `--num-warmup-steps` to warm up."


def test_a_token_put_back_later_has_no_successor():
    snaps = [
        ("1" * 40, "add (#1)", {CLI: cli('"--seed", type=int')}),
        ("2" * 40, "rename (#2)", {CLI: cli('"--random-seed", dest="seed", type=int')}),
        ("3" * 40, "put it back (#3)", {CLI: cli('"--seed", type=int')}),
    ]
    history = MemoryHistory(*snaps)
    r = rule()
    head = gather(r, MemoryTree(snaps[-1][2]))
    # The newest commit that touched it put it back: what an older one renamed it to is undone.
    assert token_succession(r, "--seed", head, history, None) is None
    assert run(history, {**snaps[-1][2], DOC: PAGE}, "Set `--seed`.") == ()


def test_a_successor_gone_at_head_too_is_no_suggestion():
    snaps = [
        ("1" * 40, "add (#1)", {CLI: cli('"--a", dest="x"', '"--keep"')}),
        ("2" * 40, "rename (#2)", {CLI: cli('"--b", dest="x"', '"--keep"')}),
        ("3" * 40, "drop (#3)", {CLI: cli('"--keep"')}),
    ]
    r = rule()
    found = token_succession(r, "--a", gather(r, MemoryTree(snaps[-1][2])), MemoryHistory(*snaps), None)
    assert found is not None and found.final is None
    assert [s.new for s in found.steps] == ["--b", None]


def test_a_moved_folder_is_suggested_citing_the_move_and_renames_chain():
    files = {"pkg/experimental/fsdp/actor.py": "A = 1\n", "pkg/experimental/fsdp/args.py": "B = 2\n"}
    moved = {"pkg/fsdp/actor.py": "A = 1\n", "pkg/fsdp/args.py": "B = 2\n"}
    renamed = {"pkg/fsdp/actor.py": "A = 1\n", "pkg/fsdp/arguments.py": "B = 2\n"}
    history = MemoryHistory(
        ("1" * 40, "add (#1)", files),
        ("800274a" + "0" * 33, "refactor: move the FSDP backend out of experimental (#2272)", moved),
        ("3" * 40, "rename the arguments (#2300)", renamed),
    )
    r = rule(flags_source(), paths_source())
    head = {**renamed, CLI: cli('"--x"'), DOC: PAGE}
    findings = run(history, head, "See `pkg/experimental/fsdp/` and `pkg/experimental/fsdp/args.py`.", r)
    by_symbol = {f.symbol: f for f in findings}
    folder = by_symbol["pkg/experimental/fsdp/"]
    assert folder.message == "`pkg/experimental/fsdp/` moved to `pkg/fsdp/` in 800274a (#2272)"
    file = by_symbol["pkg/experimental/fsdp/args.py"]
    assert file.message == (
        "`pkg/experimental/fsdp/args.py` moved to `pkg/fsdp/args.py` in 800274a (#2272), "
        "then `pkg/fsdp/arguments.py` in 3333333 (#2300)"
    )
    # Both fixes on one line: accepting either leaves the line right.
    assert file.suggestion.replacement == "See `pkg/fsdp/` and `pkg/fsdp/arguments.py`."
    assert folder.suggestion == file.suggestion
    assert path_succession("pkg/never", MemoryTree(head), history) is None


def test_lookups_are_bounded_per_run():
    snaps = [
        ("1" * 40, "add (#1)", {CLI: cli('"--alpha-one"', '"--beta-two"', '"--gamma-three"')}),
        ("2" * 40, "drop (#2)", {CLI: cli('"--delta"')}),
    ]
    history = MemoryHistory(*snaps)
    base = {**snaps[-1][2], DOC: PAGE}
    head = doc_edit(base, "Use `--alpha-one`, `--beta-two` and `--gamma-three`.")
    lookups = Lookups(left=2)
    from bot.core.check import _judge
    from bot.core.check.inputs import build
    from bot.core.check.touched import Touched

    inputs = build(rule(), MemoryTree(base), MemoryTree(head), Touched.of(changes_between(base, head)), None)
    findings = _judge(inputs, audit=False, history=history, lookups=lookups)
    cited = [f for f in findings if "in 2222222 (#2)" in f.message]
    assert len(cited) == 2 and lookups.left == 0
    assert history.asked == 2  # the third token is never asked about
    assert history.prefetched == [["--alpha-one"], ["--beta-two"]]  # nor read ahead
    # One token asked twice (two lines) costs one lookup.
    again = Lookups(left=1)
    head = doc_edit(base, "Use `--alpha-one`.\n\nAgain `--alpha-one`.")
    inputs = build(rule(), MemoryTree(base), MemoryTree(head), Touched.of(changes_between(base, head)), None)
    findings = _judge(inputs, audit=False, history=MemoryHistory(*snaps), lookups=again)
    assert sum("in 2222222 (#2)" in f.message for f in findings) == 2


def test_audit_asks_the_history_about_what_does_not_resolve():
    files = {"pkg/old/x.py": "X = 1\n"}
    moved = {"pkg/new/x.py": "X = 1\n"}
    history = MemoryHistory(("1" * 40, "add", files), ("2" * 40, "Merge pull request #77 from a/b", moved))
    tree = {**moved, CLI: cli('"--x"'), DOC: PAGE + "Read `pkg/old/x.py`.\n"}
    report = audit([rule(flags_source(), paths_source())], MemoryTree(tree), history=history)
    (finding,) = report.findings
    assert finding.message == "`pkg/old/x.py` moved to `pkg/new/x.py` in 2222222 (#77)"


def test_pull_request_numbers_from_subjects():
    assert pull_request("fix: a thing (#2384)") == "2384"
    assert pull_request("Merge pull request #12 from o/b") == "12"
    assert pull_request("fix #12 in the middle") is None
    assert Commit("abcdef0123", "no number").label() == "abcdef0"


def test_a_removed_finding_gets_the_successor_one_commit_of_the_change_shows():
    # Two commits: `--lr` became `--learning-rate` (same destination), then its destination, type
    # and place changed.
    # Between base and head nothing links the two; the first commit does.
    page = "# Flags\n\nSet `--lr` to 0.1.\n"
    snaps = [
        ("1" * 40, "add (#1)", {CLI: cli('"--lr", type=float'), DOC: page}),
        ("2" * 40, "rename (#2)", {CLI: cli('"--learning-rate", dest="lr", type=float'), DOC: page}),
        (
            "3" * 40,
            "its own dest (#3)",
            {CLI: cli('"--momentum"', '"--learning-rate", default="0.1"'), DOC: page},
        ),
    ]
    base, head = snaps[0][2], snaps[-1][2]
    changes = changes_between(base, head)
    (plain,) = check([rule()], MemoryTree(base), MemoryTree(head), changes).findings
    assert plain.kind == "removed" and plain.suggestion is None
    history = MemoryHistory(*snaps)
    (finding,) = check([rule()], MemoryTree(base), MemoryTree(head), changes, history=history).findings
    assert finding.kind == "renamed"
    assert finding.message == "`--lr` became `--learning-rate` in 2222222 (#2)"
    assert finding.suggestion.replacement == "Set `--learning-rate` to 0.1."


def test_a_flag_moved_to_a_module_the_rule_does_not_read_is_not_said_removed():
    plugin = 'import click\n\n@click.command()\n@click.option("--chat", is_flag=True)\n'
    plugin += "def endpoint(chat):\n    pass\n"
    old = {CLI: cli('"--chat", action="store_true"'), DOC: PAGE}
    new = {CLI: cli('"--model"'), "tool/plugin.py": plugin, DOC: PAGE}
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "chat moves to the plugin (#2)", new))
    assert run(history, new, "- `--chat` starts a chat.") == ()
    assert [
        f.kind for f in run(history, {CLI: cli('"--model"'), DOC: PAGE}, "- `--chat` starts a chat.")
    ] == ["unresolved"]


def test_a_flag_a_command_now_takes_without_declaring_it_is_not_said_removed():
    # The option gave way to config overrides click passes on (axolotl's `--lora-model-dir`).
    def command(settings: str, option: str) -> str:
        return (
            f"import click\n\n@click.command({settings})\n{option}@click.option('--seed', type=int)\n"
            "@click.argument('config')\ndef train(config, seed, **overrides):\n    pass\n"
        )

    click_rule = rule(Source(id="cli", kind="click", paths=(CLI,)))
    old = {CLI: command("", '@click.option("--lora-dir")\n'), DOC: PAGE}
    passing = {CLI: command('context_settings={"ignore_unknown_options": True}', ""), DOC: PAGE}
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "overrides (#2)", passing))
    assert run(history, passing, "- `--lora-dir` names the adapter.", rule_=click_rule) == ()
    strict = {CLI: command("", ""), DOC: PAGE}
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "drop it (#2)", strict))
    [gone] = run(history, strict, "- `--lora-dir` names the adapter.", rule_=click_rule)
    assert (gone.kind, gone.message) == ("unresolved", "`--lora-dir` was removed in bbbbbbb (#2)")


def test_a_flag_the_line_passes_to_another_program_is_not_said_removed():
    # The parser once had `--train`; the line passes `--train` to a shell script of the repository,
    # whose own option it is.
    script = '#!/bin/bash\nfor opt in "$@"; do\n  case "${opt}" in\n    --train) train=true ;;\n'
    script += "  esac\ndone\n"
    old = {CLI: cli('"--train", action="store_true"', '"--data"'), "data/get.sh": script, DOC: PAGE}
    new = {CLI: cli('"--data"'), "data/get.sh": script, DOC: PAGE}
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "drop it (#2)", new))
    assert run(history, new, "Download it with `bash data/get.sh --train` first.") == ()
    [gone] = run(history, new, "Train with `python tool/cli.py --train` first.")
    assert (gone.kind, gone.message) == ("unresolved", "`--train` was removed in bbbbbbb (#2)")


def test_an_option_in_plain_text_is_reported_when_the_history_shows_it_removed():
    old = {CLI: cli('"--apex-amp", action="store_true"', '"--amp", action="store_true"'), DOC: PAGE}
    new = {CLI: cli('"--amp", action="store_true"'), DOC: PAGE}
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "no more apex (#2)", new))
    line = "--amp is native AMP. --apex-amp forces APEX. Pass --no-cache to docker, --foo-bar to it."
    tree = MemoryTree(doc_edit(new, line))
    [gone] = audit([rule()], tree, history=history).findings
    assert (gone.kind, gone.symbol, gone.message) == (
        "unresolved",
        "--apex-amp",
        "`--apex-amp` was removed in bbbbbbb (#2)",
    )
    assert gone.doc.line == 4
    # Without a history nothing vouches for it: `--` in prose is as often a dash.
    assert audit([rule()], tree).findings == ()
    # A check writing the line asks the history as an audit does.
    assert [f.message for f in run(history, new, line)] == ["`--apex-amp` was removed in bbbbbbb (#2)"]


def test_an_option_its_remover_left_on_the_lines_it_edited_was_kept_on_purpose():
    # The commit that stopped declaring `--quantization` (another package's parser gives it now)
    # reworded the sentence above the command passing it: its authors read it and kept it.
    command = "python3 tool/cli.py --quantization awq"
    old = {
        CLI: cli('"--quantization"', '"--amp", action="store_true"'),
        DOC: PAGE + "If you use awq, try\n" + command + "\n",
    }
    new = {
        CLI: cli('"--amp", action="store_true"'),
        DOC: PAGE + "If you use an AWQ model, try\n" + command + "\n",
    }
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "its own args (#2)", new))
    assert audit([rule()], MemoryTree(new), history=history).findings == ()
    # One that left the page alone did not: the line is stale.
    untouched = {**new, DOC: old[DOC]}
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "its own args (#2)", untouched))
    [gone] = audit([rule()], MemoryTree(untouched), history=history).findings
    assert gone.symbol == "--quantization"


def test_a_check_reports_an_option_in_plain_text_its_change_removed():
    old = {CLI: cli('"--apex-amp", action="store_true"', '"--amp", action="store_true"'), DOC: PAGE}
    old = doc_edit(old, "--apex-amp forces APEX.")
    new = {**old, CLI: cli('"--amp", action="store_true"')}
    history = MemoryHistory(("a" * 40, "add (#1)", old), ("b" * 40, "no more apex (#2)", new))
    report = check([rule()], MemoryTree(old), MemoryTree(new), changes_between(old, new), history=history)
    # As a code span citing it is: the flag the change removed.
    [gone] = report.findings
    assert (gone.kind, gone.symbol, gone.doc.line) == ("removed", "--apex-amp", 4)
    assert gone.message.startswith("flag `--apex-amp` no longer exists (defined at tool/cli.py:4")
    # A change that does not touch it says nothing of a line it left alone.
    newer = {**new, "tool/other.py": "X = 1\n"}
    later = check([rule()], MemoryTree(new), MemoryTree(newer), changes_between(new, newer), history=history)
    assert later.findings == ()


TUTORIAL = (
    "# Mixture of experts\n\n"
    "The example scripts live in the sibling repository.\n\n"
    "`--num-experts`: the number of experts per layer.\n\n"
    "Edit `examples/pretrain_moe.sh` there, then run `bash examples/pretrain_moe.sh`.\n\n"
    "See [the setup](setup.md) first.\n"
)


def test_flags_and_files_no_commit_ever_had_on_a_page_citing_nothing_of_ours_are_another_projects():
    tree = {CLI: BOTH_WAYS, DOC: TUTORIAL, "examples/README.md": "# Examples\n"}
    history = MemoryHistory(("a" * 40, "add (#1)", {CLI: SWITCH_OFF}), ("b" * 40, "rename (#2)", tree))
    rules = [rule(flags_source(), paths_source())]
    # Without the history nothing tells whose they are: each is said.
    said = {f.symbol for f in audit(rules, MemoryTree(tree)).findings}
    assert said == {"--num-experts", "examples/pretrain_moe.sh", "setup.md"}
    # No version of the parser ever had `--num-experts`, nor did the repository ever have the
    # script: a tutorial of another project's. A link is the page's own to keep working.
    assert {f.symbol for f in audit(rules, MemoryTree(tree), history=history).findings} == {"setup.md"}


def test_a_page_citing_a_flag_of_ours_keeps_its_unknown_flags_reported():
    page = TUTORIAL + "\nKeep `--keep-fp32-master` on.\n"
    tree = {CLI: BOTH_WAYS, DOC: page}
    history = MemoryHistory(("a" * 40, "add (#1)", tree))
    found = {f.symbol for f in audit([rule(flags_source())], MemoryTree(tree), history=history).findings}
    assert found == {"--num-experts"}  # written beside ours: a flag of ours the code lacks
    # A flag the parser once had is still one of ours, whatever else the page cites.
    stale = TUTORIAL.replace("--num-experts", "--disable-fp32-master")
    history = MemoryHistory(
        ("a" * 40, "add (#1)", {CLI: SWITCH_OFF}), ("b" * 40, "rename (#2)", {CLI: BOTH_WAYS})
    )
    (finding,) = audit(
        [rule(flags_source())], MemoryTree({CLI: BOTH_WAYS, DOC: stale}), history=history
    ).findings
    assert finding.message == "`--disable-fp32-master` became `--no-keep-fp32-master` in bbbbbbb (#2)"
