"""Flags a module matches by shape among the arguments its parser left over."""

import textwrap

from bot.core.extract import extract
from bot.core.extract.flag_families import patterns
from bot.core.extract.parsed import module
from bot.core.rules import Source

LEFTOVERS = textwrap.dedent(
    """
    import argparse

    def split(rest):
        out = {}
        for arg in rest:
            if arg.startswith("--") and arg.endswith("-dir"):
                out[arg[2:-4]] = True
            elif arg.startswith("--part-dirs."):
                out[arg[12:]] = True
            elif arg.startswith("--"):
                raise SystemExit(arg)
        return out

    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int)
    args, rest = p.parse_known_args()
    """
)


def test_the_shapes_a_module_matches_by_hand():
    assert patterns(module(LEFTOVERS, "tool/cli.py")) == ("--*-dir", "--part-dirs.*")


def test_a_bare_dash_dash_test_takes_no_family():
    code = "if a.startswith('--'):\n    pass\nif a.startswith('--x'):\n    pass\n"
    assert patterns(module(code, "m.py")) == ()


def test_the_module_flags_carry_the_shapes():
    source = Source(id="cli", kind="argparse", paths=("tool/cli.py",))
    [seed] = extract(source, "tool/cli.py", LEFTOVERS).facts
    assert seed.attr("takes") == "--*-dir --part-dirs.*"
