"""A command line a base class builds from what its command classes say: a group class names its
subcommands' classes in a class attribute (`CommandInfo(name="onnx", subcommand_class=...)`), and
each class's flags are those of the words the classes above give it (`tool-cli export onnx`)."""

from __future__ import annotations

from bot.core.check import check
from bot.core.facts import gather
from bot.core.globs import expand_all
from bot.core.model import Change
from bot.core.packs import parse_repo_config
from bot.trees.memory import MemoryTree
from tests.core.test_programs import REGISTERED, dedent

CONFIG = """
rules:
  - id: cli-docs
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: argparse
        paths: ["tool/commands/export/*.py"]
"""
TFLITE = dedent(
    """
    from ..base import BaseCommand


    class TfliteCommand(BaseCommand):
        @staticmethod
        def parse_args(parser):
            parser.add_argument("--opset", type=int)
            parser.add_argument("--quantize")
    """
)
FILES = {
    **REGISTERED,
    "tool/commands/export/tflite.py": TFLITE,
    "tool/commands/export/group.py": REGISTERED["tool/commands/export/group.py"]
    .replace(
        "from .onnx import OnnxCommand", "from .onnx import OnnxCommand\nfrom .tflite import TfliteCommand"
    )
    .replace(
        "subcommand_class=OnnxCommand),)",
        'subcommand_class=OnnxCommand),\n        CommandInfo(name="tflite", subcommand_class=TfliteCommand),'
        "\n    )",
    ),
}
PAGE = dedent(
    """
    ```bash
    tool-cli export onnx --opset 17 out/
    tool-cli export tflite --opset 13 --quantize int8 out/
    tool-cli export openvino --weight-format int8 out/
    ```
    """
)


def rules():
    return [r for pack in parse_repo_config(CONFIG) for r in pack.rules]


def findings(base: dict[str, str], head: dict[str, str]) -> list[tuple[str, str, int]]:
    changes = [Change("modified", p) for p in head if base.get(p) != head[p]]
    changes += [Change("removed", p) for p in base if p not in head]
    report = check(rules(), MemoryTree(base), MemoryTree(head), changes)
    return [(f.kind, f.symbol, f.doc.line) for f in report.findings if f.doc is not None]


def test_each_command_classs_flags_carry_the_words_the_classes_above_give_it():
    tree = MemoryTree(FILES)
    [rule] = expand_all(rules(), tree, tree, {})
    facts = gather(rule, tree)
    assert {(f.token, f.attr("subcommand")) for f in facts.flags()} == {
        ("--opset", "export onnx"),
        ("--opset", "export tflite"),
        ("--quantize", "export tflite"),
    }


def test_a_flag_gone_from_one_subcommand_is_reported_on_its_lines_alone():
    base = {**FILES, "README.md": PAGE}
    head = {
        **base,
        "tool/commands/export/onnx.py": base["tool/commands/export/onnx.py"].replace("--opset", "--target"),
    }
    # `export tflite --opset` is still there; `export openvino` is a command no module here makes
    assert findings(base, head) == [("renamed", "--opset", 2)]


def test_a_subcommand_another_package_now_makes_leaves_its_lines_alone():
    # `export onnx` moved out of the repository (a plugin registers it): when `export tflite`
    # then loses a flag, `export onnx --opset` is no line of its.
    onnx_gone = {k: v for k, v in FILES.items() if k != "tool/commands/export/onnx.py"}
    onnx_gone["tool/commands/export/group.py"] = dedent(
        """
        from .. import BaseCommand, CommandInfo
        from .tflite import TfliteCommand


        class ExportCommand(BaseCommand):
            COMMAND = CommandInfo(name="export")
            SUBCOMMANDS = (CommandInfo(name="tflite", subcommand_class=TfliteCommand),)
        """
    )
    base = {**onnx_gone, "README.md": PAGE}
    head = {**base, "tool/commands/export/tflite.py": TFLITE.replace('"--opset"', '"--opset-version"')}
    assert findings(base, head) == [("renamed", "--opset", 3)]


def test_an_unread_subcommand_under_a_read_group_takes_flags_unknown_here():
    from bot.core.check import audit

    tree = MemoryTree({**FILES, "README.md": PAGE})
    assert [(f.kind, f.symbol) for f in audit(rules(), tree).findings] == []
    # a flag no read subcommand has, on a line running one, is still reported
    typo = PAGE.replace("--quantize int8", "--quantise int8")
    found = audit(rules(), MemoryTree({**FILES, "README.md": typo})).findings
    assert [(f.kind, f.symbol) for f in found] == [("unresolved", "--quantise")]


def test_a_new_flag_of_one_subcommand_is_news_only_to_the_pages_running_it():
    # A reference page of `export onnx` (it runs it and cites its one flag) is told of a new
    # onnx flag, and not of a new tflite flag: `export tflite`'s `--opset` is `--opset` too.
    base = {**FILES, "README.md": "```bash\ntool-cli export onnx --opset 17 out/\n```\n"}

    def news(path: str, after: str, new: str, indent: int) -> list[tuple[str, str]]:
        grown = base[path].replace(after, f"{after}\n{' ' * indent}parser.add_argument({new!r})")
        head = {**base, path: grown}
        report = check(rules(), MemoryTree(base), MemoryTree(head), [Change("modified", path)])
        return [(f.kind, f.symbol) for f in report.findings]

    assert news("tool/commands/export/onnx.py", '"--opset", type=int)', "--slim", 4) == [
        ("new-flag", "--slim")
    ]
    # (tflite's flags at head: `--opset`, the one the page cites, and the new one)
    base["tool/commands/export/tflite.py"] = TFLITE.replace('    parser.add_argument("--quantize")\n', "")
    assert news("tool/commands/export/tflite.py", '"--opset", type=int)', "--calibrate", 8) == []


def test_the_text_a_module_giving_words_must_spell_is_what_the_word_patterns_say():
    # The prefilter checks the word before `name=` and before `=` by hand; it must agree with
    # the patterns it stands for, `\bname\s*=\s*[rRuU]?["']` and `\w\s*=\s*(?:\w+\.)*[A-Z]\w*\s*[,)]`.
    import random
    import re

    from bot.core.extract.class_commands import _class_keyword, _name_keyword

    name = re.compile(r"\bname\s*=\s*[rRuU]?[\"']")
    keyword = re.compile(r"\w\s*=\s*(?:\w+\.)*[A-Z]\w*\s*[,)]")
    pieces = ["name", "filename", "=", "==", " ", "\t", "\n", "\u00a0", '"', "'", "r", "u", "x", "é", "_",
              "Cls", "mod.", ",", ")", "(", "A", "class ", "info"]  # fmt: skip
    rng = random.Random(2384)
    texts = ["", "name='x'", "filename='x'", "a = B)", "a == B,", "=B,", "é\u00a0=\u00a0B)", "x\n=\n m.Cls ,"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 14))) for _ in range(4000)]
    assert [_name_keyword(t) for t in texts] == [name.search(t) is not None for t in texts]
    assert [_class_keyword(t) for t in texts] == [keyword.search(t) is not None for t in texts]
    assert any(map(_name_keyword, texts)) and not all(map(_class_keyword, texts))
