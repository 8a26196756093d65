"""A parser class whose own `parse_args` rewrites the words before argparse reads them (vLLM's
`FlexibleArgumentParser`, here a made-up package): its `_` made `-` in each option's name, and
`--flag.key value` made the key of `--flag`'s value. The subcommands' modules do not import it:
the program's parser is the one that reads the words."""

from __future__ import annotations

from bot.core.check import audit
from bot.core.model import Finding
from bot.core.rules import DocTarget
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import DOC, flags_source, kinds, paths_source, rule

PARSER = """\
import argparse
import json


class FlexibleParser(argparse.ArgumentParser):
    def parse_args(self, args=None, namespace=None):
        words = []
        for arg in args:
            if arg.startswith("--"):
                name, _, rest = arg.partition(".")
                words.append(name.replace("_", "-") + (("." + rest) if rest else ""))
            else:
                words.append(arg)
        nested = {}
        for i, word in enumerate(list(words)):
            if word.startswith("--") and "." in word:
                key, *keys = word.split(".")
                nested.setdefault(key, {})[".".join(keys)] = words[i + 1]
        return super().parse_args(words, namespace)
"""
MAIN = """\
def main():
    from runner.parser import FlexibleParser
    from runner.serve import add_serve_args

    parser = FlexibleParser()
    add_serve_args(parser.add_subparsers().add_parser("serve"))
    parser.parse_args()
"""
SERVE = """\
import argparse
import json


def add_serve_args(parser):
    parser.add_argument("--max-model-len", type=int)
    parser.add_argument("--compilation-config", type=json.loads)
    parser.add_argument("--dtype", choices=["auto", "half"])
"""
PLAIN = "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--data-dir')\np.parse_args()\n"
FILES = {
    "pyproject.toml": '[project]\nname = "runner"\n\n[project.scripts]\nrunner = "runner.main:main"\n',
    "runner/__init__.py": "",
    "runner/main.py": MAIN,
    "runner/parser.py": PARSER,
    "runner/serve.py": SERVE,
    "examples/plain.py": PLAIN,
}
RULE = rule(flags_source("runner/*.py", "examples/*.py"), paths_source(), docs=(DocTarget(DOC),))


def audited(page: str, files: dict[str, str] = FILES) -> list[Finding]:
    return list(audit([RULE], MemoryTree(dict(files, **{DOC: page}))).findings)


def test_underscores_given_to_a_dashing_parser_are_its_dashed_flags():
    page = "```bash\nrunner serve --max_model_len 4096 --dtype auto\n"
    page += "python examples/plain.py --data_dir d\n```\n"
    # The example's plain argparse takes its spelling only.
    assert kinds(audited(page)) == [("unresolved", "--data_dir")]
    # A plain parser in its place: the program's spelling is a typo again.
    plain = dict(FILES, **{"runner/parser.py": PARSER.replace("def parse_args", "def parse")})
    assert kinds(audited(page, plain)) == [("unresolved", "--max_model_len"), ("unresolved", "--data_dir")]


def test_a_dashed_name_is_not_taken_for_a_declared_underscore():
    files = dict(FILES, **{"runner/serve.py": SERVE.replace("--max-model-len", "--max_model_len")})
    page = "```bash\nrunner serve --max-model-len 4096\n```\n"
    # The parser dashes the words it is given, not the option strings it declares.
    assert kinds(audited(page, files)) == [("unresolved", "--max-model-len")]


def test_a_dotted_key_of_a_flag_is_its_value_s_key():
    page = (
        "```bash\nrunner serve --compilation-config.mode 3 --compilation_config.custom_ops+ x\n```\n\n"
        "Set `--compilation-config.cudagraph_mode` or `--compilaton-config.mode`.\n"
    )
    # The misspelt flag before the dot is still nobody's.
    assert kinds(audited(page)) == [("unresolved", "--compilaton-config.mode")]
    plain = dict(FILES, **{"runner/parser.py": PARSER.replace('.split(".")', ".partition('.')")})
    assert len(audited(page, plain)) == 4
