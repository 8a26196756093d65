"""A page whose fenced blocks move with `cd` before running a script: the script and its flags
are those of the folder it moved to (`cd examples/dreambooth`, then `python train.py --lr 1` in
that block or a later one), not a namesake at the root or beside the page. A `cd` docs-sync
cannot follow (`cd $DIR`, `cd /opt`, a folder the reader makes) leaves the commands read as
before."""

from __future__ import annotations

from bot.core.check import audit, check
from bot.core.model import Change, Finding
from bot.core.page import parse_doc
from bot.core.page_fences import run_folder
from bot.core.rules import DocTarget
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import DOC, cli, flags_source, kinds, paths_source, rule

README = "README.md"
FILES = {
    "train.py": cli('"--epochs"'),  # the root's own script, a namesake of the example's
    "examples/dreambooth/train.py": cli('"--learning-rate"', '"--resolution", type=int, default=512'),
}
RULE = rule(
    flags_source("train.py", "examples/*/train.py"),
    paths_source(),
    docs=(DocTarget(README), DocTarget(DOC)),
)


def audited(pages: dict[str, str], files: dict[str, str] = FILES) -> list[Finding]:
    pages = {README: "", DOC: "", **pages}
    return list(audit([RULE], MemoryTree({**files, **pages})).findings)


def test_the_block_remembers_where_cd_went_for_the_commands_after_it():
    page = parse_doc(
        DOC,
        "```bash\n"
        "python train.py --a 1\n"
        "cd ../examples/dreambooth && python train.py --b 1\n"
        "cd .. ; python x.py --c 1\n"
        "cd ~/proj/examples && python w.py --f 1\n"
        "cd $HOME\n"
        "python y.py --d 1\n"
        "```\n\n"
        "```bash\npython z.py --e 1\n```\n",
    )
    assert [(r.token, r.cwd) for r in page.refs if r.kind == "flag"] == [
        ("--a", None),
        ("--b", "../examples/dreambooth"),
        ("--c", "../examples"),
        ("--f", "~/proj/examples"),
        ("--d", None),  # lost the way: read as if no `cd` ran
        ("--e", None),  # and so are the next blocks'
    ]
    tutorial = parse_doc(
        DOC,
        "## Setup\n\n```bash\ncd examples/dreambooth\npip install -r requirements.txt\n```\n\n"
        "## Training\n\n```bash\naccelerate launch train.py --lr 1\n```\n",
    )
    # One shell runs a tutorial's blocks: the second runs where the first went.
    assert [(r.token, r.cwd) for r in tutorial.refs if r.kind == "flag"] == [("--lr", "examples/dreambooth")]


def test_where_a_cd_leads_from_the_page_the_root_or_the_clones_folder():
    folders = {"examples", "examples/x", "docs"}
    assert run_folder("docs", "../examples/x", folders.__contains__) == "examples/x"
    assert run_folder("", "examples/x", folders.__contains__) == "examples/x"
    assert run_folder("docs", "examples/x", folders.__contains__) == "examples/x"  # from the root
    assert run_folder("", "proj/examples/x", folders.__contains__) == "examples/x"  # `git clone .../proj`
    assert run_folder("docs", "~/proj/examples/x", folders.__contains__) == "examples/x"
    assert run_folder("docs", "~/proj", folders.__contains__) == ""
    assert run_folder("docs", "~/examples/x", folders.__contains__) == "docs"  # `x` is no folder here
    assert run_folder("docs", "..", folders.__contains__) == ""
    assert run_folder("docs", "build", folders.__contains__) == "docs"  # one the reader makes
    assert run_folder("docs", None, folders.__contains__) == "docs"


def test_flags_after_a_cd_are_judged_against_the_script_there():
    readme = (
        "```bash\n"
        "cd examples/dreambooth\n"
        "python train.py --learning-rate 1e-4 --resolution 512 --epochs 3\n"
        "```\n"
    )
    # `--epochs` is the root script's, not the example's: the one error. Without the `cd` it
    # was the other way around, and `--learning-rate` was "not a flag".
    assert kinds(audited({README: readme})) == [("unresolved", "--epochs")]


def test_a_cd_from_a_page_in_a_folder_and_one_to_the_clones_folder():
    page = "```bash\ncd ../examples/dreambooth\npython train.py --learning-rate 1\n```\n"
    clone = (
        "```bash\ngit clone https://github.com/o/proj\n"
        "cd proj/examples/dreambooth\npython train.py --resolution 1\n```\n"
    )
    assert kinds(audited({DOC: page, README: clone})) == []


def test_a_cd_that_cannot_be_followed_reads_the_commands_as_before():
    readme = "```bash\ncd $WORK\npython train.py --epochs 3 --learning-rate 1\n```\n"
    assert kinds(audited({README: readme})) == [("unresolved", "--learning-rate")]


def test_a_script_run_after_a_cd_is_the_cited_path_a_rename_moves():
    readme = "```bash\ncd examples/dreambooth\npython train.py --learning-rate 1\n```\n"
    base = MemoryTree({**FILES, README: readme})
    moved = {k.replace("dreambooth/train.py", "dreambooth/train_dreambooth.py"): v for k, v in FILES.items()}
    head = MemoryTree({**moved, README: readme})
    change = Change("renamed", "examples/dreambooth/train_dreambooth.py", "examples/dreambooth/train.py")
    rule_after = rule(
        flags_source("train.py", "examples/*/train.py", "examples/*/train_dreambooth.py"),
        paths_source(),
        docs=(DocTarget(README),),
    )
    found = check([rule_after], base, head, [change]).findings
    renamed = [f for f in found if f.kind == "renamed" and f.symbol == "train.py"]
    assert len(renamed) == 1
    suggestion = renamed[0].suggestion
    assert suggestion is not None and "python train_dreambooth.py" in suggestion.replacement
