"""Small repositories for the tests of the check's modules: a command-line module, a page and a
rule coupling them, at base and at head, read into the inputs the checks take."""

from __future__ import annotations

from bot.core.check.inputs import RuleInputs, build
from bot.core.check.touched import Touched
from bot.core.model import Change, Fact, Finding
from bot.core.rules import DEFAULT_SEVERITY, DocTarget, Rule, Source
from bot.trees.memory import MemoryTree

CLI = "tool/cli.py"
DOC = "docs/cli.md"


def cli(*arguments: str) -> str:
    """An argparse module declaring one flag per `add_argument` argument list."""
    calls = "".join(f"p.add_argument({a})\n" for a in arguments)
    return f"import argparse\n\np = argparse.ArgumentParser()\n{calls}"


def flags_source(*paths: str, id: str = "cli") -> Source:
    return Source(id=id, kind="argparse", paths=paths or (CLI,))


def paths_source() -> Source:
    return Source(id="cited-paths", kind="paths")


def mesh_source(path: str = "tool/mesh.py") -> Source:
    """The names given to init_device_mesh, a set the rule says a page lists in full."""
    return Source(
        id="mesh",
        kind="strings",
        paths=(path,),
        calls=("init_device_mesh",),
        keyword="mesh_dim_names",
        group="mesh dimensions",
        enumerated=True,
    )


def mesh(*names: str) -> str:
    return f"init_device_mesh('cuda', (1,), mesh_dim_names={names!r})\n"


def rule(
    *sources: Source,
    docs: tuple[DocTarget, ...] = (DocTarget(DOC),),
    external: tuple[str, ...] = (),
    severity: dict[str, str] | None = None,
    fail_on: str = "error",
) -> Rule:
    return Rule(
        id="cli-page",
        docs=docs,
        sources=sources or (flags_source(),),
        external=external,
        severity=dict(DEFAULT_SEVERITY, **(severity or {})),
        fail_on=fail_on,
    )


def changes_between(base: dict[str, str], head: dict[str, str]) -> list[Change]:
    out = []
    for path in sorted(base.keys() | head.keys()):
        if path not in head:
            out.append(Change("removed", path))
        elif path not in base:
            out.append(Change("added", path))
        elif base[path] != head[path]:
            out.append(Change("modified", path))
    return out


def prepare(
    rule_: Rule, base: dict[str, str], head: dict[str, str], changes: list[Change] | None = None
) -> RuleInputs:
    """The rule's inputs for a change from `base` to `head` (its changes found by comparing them)."""
    touched = Touched.of(changes if changes is not None else changes_between(base, head))
    return build(rule_, MemoryTree(base), MemoryTree(head), touched, None)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def fact(
    token: str,
    key: str | None = None,
    *,
    kind: str = "flag",
    source: str = "cli",
    group: str | None = None,
    path: str = CLI,
    line: int = 1,
    **attrs: str,
) -> Fact:
    """A fact as an extractor gives it; `key` defaults to the flag's dest."""
    return Fact(
        kind=kind,  # type: ignore[arg-type]
        token=token,
        key=key or token.lstrip("-").replace("-", "_"),
        source=source,
        path=path,
        line=line,
        attrs=tuple(sorted(attrs.items())),
        group=group,
    )


def kinds(findings: list[Finding]) -> list[tuple[str, str]]:
    return [(f.kind, f.symbol) for f in findings]
