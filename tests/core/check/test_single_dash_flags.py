"""Long options written with one dash, as argparse allows (OpenNMT-py declares `-train_steps`
beside `--train_steps`, and its pages write `-world_size 4`): a page's are read when they hold an
`_`, and judged only where a source declares them at base or at head, since `-DCMAKE_BUILD_TYPE`
is cmake's. argparse cuts them short as it does `--` options."""

from __future__ import annotations

from bot.core.check import audit, check
from bot.core.model import Change, Finding
from bot.core.page import parse_doc
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, DOC, cli, flags_source, kinds, rule

TRAIN = cli('"-train_steps", "--train_steps", type=int, default=100', '"-output_directory"')


def audited(page: str, code: str = TRAIN) -> list[Finding]:
    return list(audit([rule()], MemoryTree({CLI: code, DOC: page})).findings)


def test_a_page_cites_single_dash_options_that_hold_an_underscore():
    page = parse_doc(
        DOC,
        "Pass `-world_size 4`, not `-Wall`.\n\n"
        "```bash\npython tool/cli.py -train_steps 10 -v\n"
        "cmake -DCMAKE_BUILD_TYPE=Release ..\ntar -xvf a.tgz\n```\n",
    )
    assert [(r.token, r.value) for r in page.refs if r.kind == "flag"] == [
        ("-world_size", "4"),
        ("-train_steps", "10"),
        ("-DCMAKE_BUILD_TYPE", "Release"),
    ]


def test_one_only_a_source_declares_is_judged():
    page = (
        "```bash\npython tool/cli.py -train_steps 10\ncmake -DCMAKE_BUILD_TYPE=Release ..\n```\n\n"
        "See `-some_option`.\n"
    )
    assert audited(page) == []
    base = MemoryTree({CLI: TRAIN, DOC: page})
    head = MemoryTree({CLI: cli('"--train_steps", type=int, default=100', '"-output_directory"'), DOC: page})
    found = check([rule()], base, head, [Change("modified", CLI)]).findings
    assert kinds(found) == [("removed", "-train_steps")]


def test_argparse_takes_a_single_dash_option_cut_short_unless_a_short_option_starts_it():
    # Another tool of the repository declares `-output_dir`: judged, against the command's parser.
    other = "tool/other.py"
    rule_ = rule(flags_source(CLI, other))
    page = "```bash\npython tool/cli.py -output_dir out\n```\n"
    files = {CLI: TRAIN, other: cli('"-output_dir"'), DOC: page}
    assert list(audit([rule_], MemoryTree(files)).findings) == []
    ambiguous = {**files, CLI: cli('"-output_directory"', '"-o"')}
    assert kinds(audit([rule_], MemoryTree(ambiguous)).findings) == [("unresolved", "-output_dir")]
