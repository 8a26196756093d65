"""Flags a builder class of another module makes from a dataclass of a third: `app/cli.py` hands
`GroupMaker(RunConfig, skip=[...])` the class (imported through its package's `__init__.py`, its
base from yet another module) and then hands `.add_to(parser, "title")` the parser. The maker's
`__init__` keeps the class and reads docstrings it cannot be read for; its method loops over the
fields, names each `--field-name`, makes a bool defaulting to True a `--no-`/`--disable-` pair,
lets `metadata={"cli": {...}}` override, and skips what `skip` names or `init=False` hides."""

from __future__ import annotations

import textwrap

from bot.core.check import audit
from bot.core.facts import gather
from bot.core.model import Fact
from bot.core.packs import parse_repo_config
from bot.core.rules import Rule
from bot.trees.memory import MemoryTree

MAKER = textwrap.dedent(
    """
    import dataclasses
    import enum
    import inspect
    import typing
    from dataclasses import fields


    class CannotInfer(Exception):
        pass


    class GroupMaker:
        def __init__(self, cls, skip=None):
            self.cls = cls
            self.docs = self._docs(cls)
            self.skip = set(skip) if skip is not None else set()

        def _docs(self, cls):
            return dict(inspect.getmembers(cls))

        def _name(self, attr, prefix=None):
            if prefix:
                attr = prefix + "_" + attr
            return "--" + attr.replace("_", "-")

        def _kind(self, hint):
            origin = typing.get_origin(hint)
            args = typing.get_args(hint)
            if isinstance(hint, type) and issubclass(hint, enum.Enum):
                return {"type": str, "choices": list(hint)}
            if origin is None:
                return {"type": hint}
            if origin is typing.Union:
                if args[1] == type(None):
                    return self._kind(args[0])
                raise CannotInfer(f"union {hint}")
            if origin is list:
                out = self._kind(args[0])
                out["nargs"] = "+"
                return out
            raise CannotInfer("unsupported")

        def _kwargs(self, attr):
            out = {"names": [self._name(attr.name)], "dest": attr.name}
            out["help"] = self.docs[attr.name] if attr.name in self.docs else ""
            if isinstance(attr.default, type(dataclasses.MISSING)):
                out["default"] = attr.default_factory()
            else:
                out["default"] = attr.default
            meta = attr.metadata["cli"] if "cli" in attr.metadata else None
            try:
                out.update(self._kind(attr.type))
                if out["type"] == bool:
                    out["action"] = "store_true" if attr.default == False else "store_false"
                    out.pop("type")
                    if out["action"] == "store_false":
                        out["names"] = [self._name(attr.name, "no"), self._name(attr.name, "disable")]
            except CannotInfer as e:
                if meta is not None:
                    print(f"falling back for {attr.name}")
                else:
                    raise e
            if meta is not None:
                out.update(meta)
            return out

        def add_to(self, parser, title=None):
            group = parser.add_argument_group(title=title, description=self.cls.__doc__)
            for attr in fields(self.cls):
                if attr.name in self.skip or attr.init is False:
                    continue
                kwargs = self._kwargs(attr)
                names = kwargs.pop("names")
                group.add_argument(*names, **kwargs)
            return group
    """
)

BASE = textwrap.dedent(
    """
    from dataclasses import dataclass


    @dataclass
    class Parallel:
        workers: int = 1
        overlap_io: bool = False
    """
)

CONFIG_MODULE = textwrap.dedent(
    '''
    import enum
    from dataclasses import dataclass, field
    from typing import Optional, Union

    from app.parallel import Parallel


    class Mode(enum.Enum):
        fast = 1
        safe = 2


    @dataclass
    class RunConfig(Parallel):
        learning_rate: float = 0.1
        """The step size."""
        fused_kernels: bool = True
        tags: list[str] = field(default_factory=list)
        mode: Optional[Mode] = None
        seed_or_name: Union[int, str] = field(default=0, metadata={"cli": {"names": ["--seed"], "type": int}})
        internal_cache: int = 3
        derived: int = field(default=0, init=False)
    '''
)

CLI = textwrap.dedent(
    """
    import argparse

    from app.maker import GroupMaker


    def build():
        from app.config import RunConfig

        parser = argparse.ArgumentParser()
        parser.add_argument("--config")
        skip = ["internal_cache"]
        maker = GroupMaker(RunConfig, skip=skip)
        maker.add_to(parser, "run")
        return parser
    """
)

RULES = textwrap.dedent(
    """
    rules:
      - id: cli-docs
        docs:
          - path: docs/run.md
        sources:
          - id: cli
            kind: argparse
            paths: [app/cli.py]
    """
)

PAGE = "# Run\n\nPass `--learning-rate 0.01`, `--no-fused-kernels`, `--workers 4` and `--seed 7`.\n"


def files(cli: str = CLI, page: str = PAGE) -> dict[str, str]:
    return {
        "app/__init__.py": "",
        "app/maker.py": MAKER,
        "app/parallel.py": BASE,
        "app/config/__init__.py": "from app.config.run import RunConfig\n",
        "app/config/run.py": CONFIG_MODULE,
        "app/cli.py": cli,
        "docs/run.md": page,
        "pyproject.toml": '[project]\nname = "app"\n',
    }


def rules() -> list[Rule]:
    return [r for pack in parse_repo_config(RULES) for r in pack.rules]


def flags(tree: MemoryTree) -> dict[str, Fact]:
    (rule,) = rules()
    return {f.token: f for f in gather(rule, tree).flags()}


def test_the_fields_the_builder_class_makes_flags_of_are_the_parsers_flags():
    found = flags(MemoryTree(files()))
    assert sorted(found) == [
        "--config",
        "--disable-fused-kernels",
        "--learning-rate",
        "--mode",
        "--no-fused-kernels",
        "--overlap-io",
        "--seed",
        "--tags",
        "--workers",
    ]
    assert found["--learning-rate"].attr("default") == "0.1"
    assert found["--no-fused-kernels"].attr("action") == "store_false"
    assert found["--overlap-io"].attr("action") == "store_true"
    assert found["--tags"].attr("nargs") == "+"
    # Each flag is where its field is declared, a base's in the base's module.
    assert found["--workers"].path == "app/parallel.py"
    assert found["--learning-rate"].path == "app/config/run.py"
    assert found["--learning-rate"].attr("help") is None  # the docstrings were not read: no help


def test_a_page_citing_the_built_flags_is_clean_and_a_wrong_one_is_still_reported():
    (rule,) = rules()
    assert audit([rule], MemoryTree(files())).findings == ()
    wrong = PAGE.replace("--workers 4", "--worker-count 4")
    report = audit([rule], MemoryTree(files(page=wrong)))
    assert [f.symbol for f in report.findings] == ["--worker-count"]


def test_a_builder_class_it_does_not_understand_adds_nothing():
    opaque = CLI.replace('maker.add_to(parser, "run")', 'maker.add_to(parser, "run", *extra)')
    assert sorted(flags(MemoryTree(files(cli=opaque)))) == ["--config"]
    unknown = CLI.replace("GroupMaker(RunConfig, skip=skip)", "GroupMaker(RunConfig, skip=skip, mode=1)")
    assert sorted(flags(MemoryTree(files(cli=unknown)))) == ["--config"]


def test_a_chained_call_is_read_like_a_named_one():
    chained = CLI.replace(
        'maker = GroupMaker(RunConfig, skip=skip)\n    maker.add_to(parser, "run")',
        'GroupMaker(RunConfig, skip=skip).add_to(parser, title="run")',
    )
    assert "--learning-rate" in flags(MemoryTree(files(cli=chained)))
