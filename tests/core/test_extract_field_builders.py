"""Flags a builder of another module makes from a dataclass: a server's `ServerConfig` declares
its options as annotated fields, `add_flags(parser)` hands the class to `fields_to_flags`, which
`srv/flagkit.py` defines (a loop over the fields through a helper, each field's help, choices and
aliases read from its `Annotated[...]` metadata, a bool made a store_true switch, a field without
metadata or marked `hidden` skipped). The fields are the parser's flags, read without running
either module; a builder that is not understood adds nothing."""

from __future__ import annotations

import textwrap

from bot.core.check import audit, check
from bot.core.facts import gather
from bot.core.init import config_for, plan
from bot.core.model import Change, Fact, Report
from bot.core.packs import parse_repo_config
from bot.core.rules import Rule
from bot.trees.memory import MemoryTree

FLAGKIT = textwrap.dedent(
    '''
    """Command-line flags from annotated dataclass fields."""
    import dataclasses
    import types
    from typing import Annotated, Literal, Optional, Union, get_args, get_origin, get_type_hints

    Ann = Annotated
    _UNSET = dataclasses.MISSING


    @dataclasses.dataclass(frozen=True)
    class Opt:
        help: str = ""
        choices: Optional[list] = None
        aliases: Optional[list] = None
        flag: Optional[str] = None
        hidden: bool = False
        parse: object = None


    def _record_fields(cls):
        if dataclasses.is_dataclass(cls):
            return dataclasses.fields(cls)
        return ()


    def _split(hint):
        if get_origin(hint) is not Annotated:
            return hint, None
        inner, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, Opt):
                return inner, extra
            if isinstance(extra, str):
                return inner, Opt(help=extra)
        return inner, None


    def _drop_none(tp):
        origin = get_origin(tp)
        if origin is Union or origin is types.UnionType:
            rest = [a for a in get_args(tp) if a is not type(None)]
            if len(rest) == 1:
                return rest[0]
        return tp


    def _default(field):
        if field.default is not _UNSET:
            return field.default
        if field.default_factory is not _UNSET:
            return field.default_factory()
        return _UNSET


    def _dashed(name):
        return "--" + name.replace("_", "-")


    def fields_to_flags(parser, cls, *, only=None):
        hints = get_type_hints(cls, include_extras=True)
        for field in _record_fields(cls):
            if only is not None and field.name not in only:
                continue
            tp, opt = _split(hints.get(field.name))
            if opt is None or opt.hidden:
                continue
            names = [opt.flag or _dashed(field.name)] + (opt.aliases or [])
            extra = {"dest": field.name} if opt.flag else {}
            default = _default(field)
            kwargs = dict(help=opt.help, **extra)
            if default is not _UNSET:
                kwargs["default"] = default
            tp = _drop_none(tp)
            if tp is bool:
                parser.add_argument(*names, action="store_true", **kwargs)
                continue
            if get_origin(tp) is Literal:
                kwargs["choices"] = list(get_args(tp))
                parser.add_argument(*names, type=str, **kwargs)
                continue
            if get_origin(tp) is list:
                parser.add_argument(*names, type=get_args(tp)[0], nargs="+", **kwargs)
                continue
            if opt.choices:
                kwargs["choices"] = opt.choices
            parser.add_argument(*names, type=opt.parse or tp, **kwargs)
    '''
)
SERVER = textwrap.dedent(
    """
    import argparse
    import dataclasses
    from typing import List, Literal, Optional

    from srv.flagkit import Ann, Opt, fields_to_flags

    BACKENDS = ["triton", "flashinfer"]


    def parse_size(text):
        return int(text.rstrip("k")) * 1024


    @dataclasses.dataclass
    class ServerConfig:
        model_path: Ann[str, Opt(help="Where the weights are.", aliases=["--model"])]
        port: Ann[int, "The port to listen on."] = 30000
        tp_size: Ann[int, Opt(help="Tensor parallel size.", flag="--tensor-parallel-size")] = 1
        attention_backend: Ann[Optional[str], Opt(help="Attention kernels.", choices=BACKENDS)] = None
        log_level: Ann[Literal["info", "debug"], "How much to log."] = "info"
        enable_metrics: Ann[bool, "Export Prometheus metrics."] = False
        stop_ids: Ann[List[int], "Token ids that end a request."] = dataclasses.field(default_factory=list)
        max_prefill: Ann[int, Opt(help="Largest prefill.", parse=parse_size)] = 16384
        internal_token: Ann[str, Opt(help="Set by the launcher.", hidden=True)] = ""
        stat_loggers: Optional[list] = None

        @staticmethod
        def add_flags(parser):
            fields_to_flags(parser, ServerConfig)
            parser.add_argument("--config", help="A YAML file of flags.")


    def main():
        parser = argparse.ArgumentParser(prog="srv")
        ServerConfig.add_flags(parser)
        return parser.parse_args()
    """
)
PAGE = textwrap.dedent(
    """
    # Serving

    ```bash
    python -m srv.server --model-path org/model --port 8000 --tensor-parallel-size 2
    ```

    | Flag | Default |
    |---|---|
    | `--attention-backend` | `None` |
    | `--log-level` | `info` |
    | `--enable-metrics` | off |
    | `--max-prefill` | `16384` |

    `--stop-ids` ends a request early; `--config` reads a YAML file.
    """
)
CONFIG = """
rules:
  - id: server-docs
    docs:
      - path: docs/serving.md
    sources:
      - id: server
        kind: argparse
        paths: [srv/server.py]
"""


def files(server: str = SERVER, flagkit: str = FLAGKIT, page: str = PAGE) -> dict[str, str]:
    return {
        "srv/__init__.py": "",
        "srv/server.py": server,
        "srv/flagkit.py": flagkit,
        "docs/serving.md": page,
        "pyproject.toml": '[project]\nname = "srv"\n',
    }


def rules() -> list[Rule]:
    return [r for pack in parse_repo_config(CONFIG) for r in pack.rules]


def flags(tree: MemoryTree) -> dict[str, Fact]:
    (rule,) = rules()
    return {f.token: f for f in gather(rule, tree).flags()}


def run(base: dict[str, str], head: dict[str, str]) -> Report:
    changes = [Change("modified", p) for p in sorted(head) if base.get(p) != head[p]]
    return check(rules(), MemoryTree(base), MemoryTree(head), changes)


def line(text: str, needle: str) -> int:
    return next(i for i, row in enumerate(text.splitlines(), 1) if needle in row)


def test_the_fields_the_builder_makes_flags_of_are_the_parsers_flags():
    found = flags(MemoryTree(files()))
    assert sorted(found) == [
        "--attention-backend",
        "--config",
        "--enable-metrics",
        "--log-level",
        "--max-prefill",
        "--model",
        "--model-path",
        "--port",
        "--stop-ids",
        "--tensor-parallel-size",
    ]
    # Without metadata (`stat_loggers`) or marked hidden, a field is no flag: the builder skips it.
    port = found["--port"]
    assert (port.path, port.line, port.key) == ("srv/server.py", line(SERVER, "port: Ann"), "port")
    assert (port.attr("default"), port.attr("type")) == ("30000", "int")
    assert port.attr("help") == "The port to listen on."
    # `flag=` renames the option; the dest stays the field's.
    assert found["--tensor-parallel-size"].key == "tp_size"
    assert found["--model"].key == found["--model-path"].key == "model_path"
    assert found["--model-path"].attr("default") is None  # no default: nothing a page could quote
    assert found["--attention-backend"].attr("choices") == "triton,flashinfer"
    assert found["--attention-backend"].attr("default") == "None"
    assert found["--log-level"].attr("choices") == "info,debug"
    switch = found["--enable-metrics"]
    assert (switch.attr("action"), switch.attr("sets")) == ("store_true", "true")
    assert switch.attr("default") == "False"
    assert (found["--stop-ids"].attr("nargs"), found["--stop-ids"].attr("type")) == ("+", "int")
    assert found["--max-prefill"].attr("type") == "parse_size"


def test_a_page_citing_the_built_flags_is_clean_and_a_wrong_one_is_still_reported():
    (rule,) = rules()
    assert audit([rule], MemoryTree(files())).findings == ()
    wrong = PAGE + "\nPass `--internal-token` or `--stat-loggers`.\n"
    report = audit([rule], MemoryTree(files(page=wrong)))
    assert sorted((f.kind, f.symbol) for f in report.findings) == [
        ("unresolved", "--internal-token"),
        ("unresolved", "--stat-loggers"),
    ]


def test_a_field_default_changed_in_the_dataclass_is_a_changed_flag_on_the_page():
    head = files(server=SERVER.replace("= 16384", "= 8192"))
    report = run(files(), head)
    assert [(f.kind, f.symbol, f.doc.line if f.doc else None) for f in report.findings] == [
        ("changed", "--max-prefill", line(PAGE, "`--max-prefill`"))
    ]


def test_a_field_renamed_is_a_renamed_flag():
    head = files(server=SERVER.replace("enable_metrics:", "export_metrics:"))
    report = run(files(), head)
    found = [(f.kind, f.symbol) for f in report.findings if f.severity != "notice"]
    assert ("renamed", "--enable-metrics") in found or ("removed", "--enable-metrics") in found


def test_a_builder_it_does_not_understand_adds_nothing_and_changes_nothing():
    # The loop goes through a helper of a third module: not followed, so the parser keeps its
    # own flag and the page's others are reported as before, not taken on trust.
    opaque = FLAGKIT.replace(
        "def _record_fields(cls):\n    if dataclasses.is_dataclass(cls):\n"
        "        return dataclasses.fields(cls)\n    return ()\n",
        "from srv.records import _record_fields\n",
    )
    assert opaque != FLAGKIT
    assert sorted(flags(MemoryTree(files(flagkit=opaque)))) == ["--config"]
    # A test on something neither module says ends the field's run: no flag rather than a guess.
    unsure = FLAGKIT.replace("if opt is None or opt.hidden:", "if opt is None or opt.hidden or _env():")
    assert unsure != FLAGKIT
    assert sorted(flags(MemoryTree(files(flagkit=unsure)))) == ["--config"]
    (rule,) = rules()
    report = audit([rule], MemoryTree(files(flagkit=opaque)))
    assert "--port" in {f.symbol for f in report.findings}


def test_a_keyword_the_call_passes_is_bound_for_the_run():
    only = SERVER.replace(
        "fields_to_flags(parser, ServerConfig)", 'fields_to_flags(parser, ServerConfig, only=["port"])'
    )
    assert sorted(flags(MemoryTree(files(server=only)))) == ["--config", "--port"]


def test_init_pairs_the_page_with_the_parser_whose_flags_the_builder_makes():
    tree = MemoryTree(files())
    found = plan(tree)
    assert ("srv/server.py", "argparse") in {(p.path, p.kind) for p in found.parsers}
    assert "docs/serving.md" in found.pages
    text = config_for(tree)
    assert text is not None and "srv/server.py" in text and "docs/serving.md" in text
    (pack,) = parse_repo_config(text)
    assert audit(pack.rules, tree).findings == ()


# A builder of the plainer kind: help and choices in `field(metadata=...)`, the flag named
# `--field_name`, a bool told by its type. The dataclass's module postpones its annotations, so
# `field.type` is the annotation's text there: a builder testing `field.type is bool` never takes
# that branch, and its flags say what it does instead.
OPTIONS = textwrap.dedent(
    """
    import dataclasses


    def add_options(parser, cls):
        for field in dataclasses.fields(cls):
            kwargs = {"help": field.metadata.get("help", "")}
            if "choices" in field.metadata:
                kwargs["choices"] = field.metadata["choices"]
            if field.type == "bool":
                parser.add_argument(f"--{field.name}", action="store_true", **kwargs)
            elif field.type is bool:
                parser.add_argument(f"--{field.name}", action="store_false", **kwargs)
            else:
                parser.add_argument(f"--{field.name}", default=field.default, **kwargs)
    """
)
TRAIN = textwrap.dedent(
    """
    from __future__ import annotations

    import argparse
    from dataclasses import dataclass, field

    from tool.options import add_options


    @dataclass
    class TrainConfig:
        optimizer: str = field(default="adamw", metadata={"help": "Optimizer.", "choices": ["adamw", "sgd"]})
        warmup_steps: int = field(default=100, metadata={"help": "Warm-up steps."})
        compile: bool = False


    def main():
        parser = argparse.ArgumentParser()
        add_options(parser, TrainConfig)
        return parser.parse_args()
    """
)


def tree_files(tree: MemoryTree) -> dict[str, str]:
    return {p: tree.read(p) or "" for p in tree.paths()}


def test_a_builder_reading_field_metadata_and_the_annotation_as_text():
    tree = MemoryTree({"tool/__init__.py": "", "tool/options.py": OPTIONS, "tool/train.py": TRAIN})
    (rule,) = [
        r for pack in parse_repo_config(CONFIG.replace("srv/server.py", "tool/train.py")) for r in pack.rules
    ]
    found = {f.token: f for f in gather(rule, tree).flags()}
    assert sorted(found) == ["--compile", "--optimizer", "--warmup_steps"]
    assert (found["--optimizer"].attr("choices"), found["--optimizer"].attr("default")) == (
        "adamw,sgd",
        "adamw",
    )
    assert found["--warmup_steps"].attr("help") == "Warm-up steps."
    assert (found["--compile"].attr("action"), found["--compile"].attr("default")) == ("store_true", "False")
    # The module declares no flag itself: init still finds the parser the builder fills.
    page = "# Training\n\nSet `--optimizer sgd` and `--warmup_steps 10`; `--compile` is off.\n"
    text = config_for(MemoryTree({**tree_files(tree), "docs/train.md": page}))
    assert text is not None and "tool/train.py" in text and "docs/train.md" in text


NESTED = textwrap.dedent(
    """
    import dataclasses


    def add_options(parser, cls, prefix=""):
        for field in dataclasses.fields(cls):
            if dataclasses.is_dataclass(field.type):
                add_options(parser, field.type, prefix + field.name + ".")
            else:
                parser.add_argument(f"--{prefix}{field.name}", default=field.default)
    """
)


def test_a_field_that_may_be_a_nested_dataclass_gets_no_flag_rather_than_a_wrong_one():
    train = TRAIN.replace("from __future__ import annotations\n", "").replace(
        "    compile: bool = False\n", "    compile: bool = False\n    data: DataConfig = None\n"
    )
    assert "data: DataConfig" in train
    tree = MemoryTree({"tool/__init__.py": "", "tool/options.py": NESTED, "tool/train.py": train})
    (rule,) = [
        r for pack in parse_repo_config(CONFIG.replace("srv/server.py", "tool/train.py")) for r in pack.rules
    ]
    found = {f.token: f for f in gather(rule, tree).flags()}
    # `--data` would be wrong (its fields are `--data.<name>`), and they are not read: neither.
    assert sorted(found) == ["--compile", "--optimizer", "--warmup_steps"]
    assert found["--warmup_steps"].attr("default") == "100"


def test_a_builder_taking_more_steps_than_it_is_given_is_said_and_stops(monkeypatch):
    # A hostile dataclass of thousands of fields costs its budget, not a frozen check.
    from bot.core.extract import builder_values

    (rule,) = rules()
    whole = gather(rule, MemoryTree(files()))
    assert whole.errors == []
    spent = _steps_of_a_whole_run(monkeypatch)
    monkeypatch.setattr(builder_values, "MAX_RUN_STEPS", spent // 2)
    part = gather(rule, MemoryTree(files()))
    assert 0 < len(list(part.flags())) < len(list(whole.flags()))  # the fields before it ran out
    (stopped,) = part.errors
    assert stopped.path == "srv/server.py" and "the fields after are not read" in stopped.message
    report = audit([rule], MemoryTree(files()))
    # Said as a source read in part is: the flags past it are not known (as for a file that does
    # not parse, the page's citations of them are not backed).
    (said,) = [f for f in report.findings if f.kind == "parse-error"]
    assert said.symbol == "srv/server.py" and "not read" in said.message


def _steps_of_a_whole_run(monkeypatch) -> int:
    """How many steps the sglang-shaped builder takes over all the fields."""
    from bot.core.extract import builder_values

    real = builder_values.Context.__post_init__

    def keep(self):
        real(self)
        contexts.append(self)

    contexts: list[builder_values.Context] = []
    monkeypatch.setattr(builder_values.Context, "__post_init__", keep)
    (rule,) = rules()
    gather(rule, MemoryTree(files()))
    monkeypatch.setattr(builder_values.Context, "__post_init__", real)
    return max(c.spent for c in contexts)
