"""Flags a parser takes without declaring that spelling: argparse's abbreviations, and shapes
matched by hand among the leftover arguments."""

from __future__ import annotations

from bot.core.check.doc_to_code import doc_to_code
from bot.core.check.findings import Findings
from bot.core.model import Finding
from bot.core.rules import Rule, Source
from tests.core.check.checkkit import CLI, DOC, cli, flags_source, kinds, prepare, rule

CODE = cli(
    "'--trust-remote-code', action='store_true'",
    "'--dp-size', type=int",
    "'--dp-attention', action='store_true'",
    "'--speculative-algorithm', choices=['eagle', 'ngram']",
)


def judge(page: str, code: str = CODE, rule_: Rule | None = None) -> list[Finding]:
    rule_ = rule_ or rule()
    inputs = prepare(rule_, {CLI: code}, {CLI: code, DOC: page})
    out = Findings(rule_)
    for p in inputs.pages:
        doc_to_code(inputs, p, out)
    return out.finish()


def test_a_unique_prefix_of_a_long_option_is_that_flag():
    assert judge("Run `python tool/cli.py --trust-remote --speculative-algo eagle`.\n") == []


def test_an_abbreviation_is_held_to_its_flags_choices():
    [f] = judge("Run `python tool/cli.py --speculative-algo medusa`.\n")
    assert (f.kind, f.symbol) == ("unresolved", "--speculative-algo medusa")


def test_an_ambiguous_prefix_is_no_flag():
    [f] = judge("Run `python tool/cli.py --dp 2`.\n")
    assert (f.kind, f.symbol) == ("unresolved", "--dp")


def test_a_flag_whose_spelling_its_caller_chooses_makes_no_prefix_ambiguous():
    code = CODE.replace("p.add_argument('--dp-attention', action='store_true')\n", "") + (
        "\n\ndef add_router(p, prefixed=False):\n"
        "    lead = 'router-' if prefixed else ''\n"
        "    p.add_argument(f'--{lead}dp-aware', action='store_true')\n"
        "    p.add_argument(f'--{lead}dp-mode')\n"
    )
    # `--dp-size` is spelt so for every caller; `--dp-aware` may be `--router-dp-aware` here.
    assert judge("Run `python tool/cli.py --dp 2`.\n", code) == []
    # Two spelt so for every caller are still ambiguous.
    [f] = judge("Run `python tool/cli.py --dp 2`.\n", code + "p.add_argument('--dp-rank')\n")
    assert (f.kind, f.symbol) == ("unresolved", "--dp")


def test_a_parser_made_with_allow_abbrev_false_takes_no_abbreviation():
    strict = CODE.replace("ArgumentParser()", "ArgumentParser(allow_abbrev=False)")
    found = judge("Run `python tool/cli.py --trust-remote`.\n", strict)
    assert kinds(found) == [("unresolved", "--trust-remote")]


def test_a_prefix_is_an_argparse_thing_only():
    click = (
        "import click\n\n@click.command()\n@click.option('--trust-remote-code', is_flag=True)\n"
        "def main(trust_remote_code):\n    pass\n"
    )
    clicks = rule(Source(id="cli", kind="click", paths=(CLI,)))
    found = judge("Run `python tool/cli.py --trust-remote`.\n", click, clicks)
    assert kinds(found) == [("unresolved", "--trust-remote")]


def test_a_flag_of_a_shape_the_module_matches_by_hand_is_taken():
    code = CODE + (
        "args, rest = p.parse_known_args()\n"
        "paths = [a for a in rest if a.startswith('--') and a.endswith('-path')]\n"
    )
    assert judge("Run `python tool/cli.py --vae-path /w`.\n", code) == []
    assert kinds(judge("Run `python tool/cli.py --vae-dir /w`.\n", code)) == [("unresolved", "--vae-dir")]


def test_a_helper_no_program_calls_makes_no_prefix_of_the_program_ambiguous():
    # `pkg/args.py` only adds flags to a parser it is given and nothing leads to it: it is
    # presumed to extend every command line of the package, yet `--model` is `--model-name` to
    # the program's own parser, which argparse takes
    helper = "def add_model_args(parser):\n    parser.add_argument('--model-path', type=str)\n"
    tool = (
        "import argparse\n\n\ndef main():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--model-name', type=str)\n    p.parse_args()\n\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    both = rule(flags_source("pkg/args.py", "pkg/tool.py"))
    files = {"pkg/__init__.py": "", "pkg/args.py": helper, "pkg/tool.py": tool}
    inputs = prepare(both, files, {**files, DOC: "Run `python -m pkg.tool --model vicuna`.\n"})
    out = Findings(both)
    for p in inputs.pages:
        doc_to_code(inputs, p, out)
    assert out.finish() == []
    # both flags are the program's own: the prefix is ambiguous, as argparse says
    calls = tool.replace(
        "import argparse\n", "import argparse\n\nfrom pkg.args import add_model_args\n"
    ).replace("    p.parse_args()", "    add_model_args(p)\n    p.parse_args()")
    files = {**files, "pkg/tool.py": calls}
    inputs = prepare(both, files, {**files, DOC: "Run `python -m pkg.tool --model vicuna`.\n"})
    out = Findings(both)
    for p in inputs.pages:
        doc_to_code(inputs, p, out)
    assert kinds(out.finish()) == [("unresolved", "--model")]


def test_a_prefix_a_sentence_cites_for_the_command_it_introduces_is_that_commands_flag():
    # the sentence tells of the command right under it, which argparse runs as written
    told = "Run it with `--trust-remote`:\n```bash\npython tool/cli.py --trust-remote\n```\n"
    assert judge(told) == []
    # on its own, or over a command not passing it, the prefix names the flag wrongly
    assert kinds(judge("Turn on `--trust-remote` to load it.\n")) == [("unresolved", "--trust-remote")]
    other = "Run it with `--trust-remote`:\n```bash\npython tool/cli.py --dp-size 2\n```\n"
    assert kinds(judge(other)) == [("unresolved", "--trust-remote")]


def test_a_prefix_a_sentence_cites_that_a_command_of_its_section_passes_is_that_commands_flag():
    # LLaVA's worker: "keep the `--controller` the same" after commands passing it cut short
    page = (
        "## Workers\n\n```bash\npython tool/cli.py --trust-remote\n```\n\n"
        "Keep `--trust-remote` on for each worker.\n\n"
        "## Other\n\nTurn on `--trust-remote` to load it.\n"
    )
    assert [(f.kind, f.symbol, f.doc.section) for f in judge(page)] == [
        ("unresolved", "--trust-remote", "Other")
    ]
