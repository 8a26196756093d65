"""Pages a change cannot reach are neither read nor judged, and the findings are exactly those of
a check that reads every page."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.core.check import check
from bot.core.check.reach import Reach
from bot.core.facts import Facts
from bot.core.model import Change, Fact
from bot.core.packs import parse_rules_file
from bot.core.page import DocPage, parse_doc
from bot.core.pageindex import page_index
from bot.trees.memory import MemoryTree

CONFIG = """\
rules:
  - id: all-docs
    docs: [{path: "docs/**/*.md"}]
    sources:
      - {id: cli, kind: argparse, path: tool/cli.py}
      - {id: mesh, kind: strings, path: tool/mesh.py, calls: [init_device_mesh], keyword: mesh_dim_names,
         group: mesh dimensions, enumerated: true}
      - {id: cited-paths, kind: paths}
      - {id: launchers, kind: tokens, paths: [tool/run.sh]}
"""
CLI = """\
import argparse
import os
TOOL_HOME = os.environ.get("TOOL_HOME_DIR")
p = argparse.ArgumentParser()
p.add_argument("--alpha", type=int, default=1)
p.add_argument("--mode", choices=["fast", "slow"], default="fast")
p.add_argument("--keep-cache", dest="keep_cache", action="store_true")
"""
MESH = 'init_device_mesh("cuda", (2, 2), mesh_dim_names=("dp", "tp"))\n'
PAGES = {
    "docs/alpha.md": "# Alpha\n\nSet `--alpha 2`.\n",
    "docs/mode.md": "# Mode\n\n| Flag | Default |\n|---|---|\n| `--mode` | `fast` |\n",
    "docs/by-name.md": "# Knobs\n\n| Name | Default |\n|---|---|\n| `alpha` | `1` |\n",
    "docs/mesh.md": "# Mesh\n\nThe mesh has `dp` and `tp`.\n",
    "docs/paths.md": "# Layout\n\nSee `tool/extra/helper.py`.\n",
    "docs/unrelated.md": "# Intro\n\nNothing to see.\n",
    "docs/launch.md": "# Launch\n\nParallelism goes into `PERF_ARGS`.\n",
    "docs/env.md": "# Environment\n\n| Variable | Meaning |\n|---|---|\n| `$TOOL_HOME_DIR` | the root |\n",
}
RUN = "PERF_ARGS=(--tp 2)\npython3 tool/cli.py ${PERF_ARGS[@]}\n"
BASE = {
    "tool/cli.py": CLI,
    "tool/mesh.py": MESH,
    "tool/run.sh": RUN,
    "tool/extra/helper.py": "x = 1\n",
    **PAGES,
}


class ReadLog(MemoryTree):
    """A revision that remembers which files were read."""

    def __init__(self, files: dict[str, str]):
        super().__init__(files)
        self.read_paths: list[str] = []

    def read(self, path: str) -> str | None:
        self.read_paths.append(path)
        return super().read(path)


def rules(config: str = CONFIG):
    return [r for p in parse_rules_file(config, "cfg.yml") for r in p.rules]


def run(edits: dict[str, str | None], cache=None, *, every_page: bool = False, config: str = CONFIG):
    head_files = dict(BASE)
    changes = []
    for path, text in edits.items():
        if text is None:
            head_files.pop(path)
            changes.append(Change("removed", path))
        else:
            head_files[path] = text
            changes.append(Change("modified", path))
    if every_page:  # the reference: every page counts as edited, so every page is read and judged
        changes += [Change("modified", p) for p in PAGES if p not in edits]
    base, head = ReadLog(BASE), ReadLog(head_files)
    report = check(rules(config), base, head, changes, cache)
    return report, head.read_paths


SCENARIOS = {
    "a flag renamed": {"tool/cli.py": CLI.replace('"--alpha"', '"--alphas"')},
    "a default changed": {"tool/cli.py": CLI.replace('default="fast"', 'default="slow"')},
    "a default cited by its dest": {"tool/cli.py": CLI.replace("default=1)", "default=4)")},
    "a mesh dimension added": {"tool/mesh.py": MESH.replace('("dp", "tp")', '("dp", "tp", "cp")')},
    "a cited file deleted": {"tool/extra/helper.py": None},
    "a new flag": {"tool/cli.py": CLI + 'p.add_argument("--beta", type=int, default=0)\n'},
    "a help text edited": {"tool/cli.py": CLI.replace("default=1)", 'default=1, help="Alpha.")')},
    "a switch gets its --no- form": {
        "tool/cli.py": CLI.replace('action="store_true"', "action=argparse.BooleanOptionalAction")
    },
    "a launcher variable dropped": {"tool/run.sh": "python3 tool/cli.py --tp 2\n"},
    "an environment variable no longer read": {
        "tool/cli.py": CLI.replace('os.environ.get("TOOL_HOME_DIR")', '"/opt/tool"')
    },
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_skipping_pages_changes_no_finding(name):
    edits = SCENARIOS[name]
    fast, _ = run(edits)
    full, _ = run(edits, every_page=True)
    assert sorted(map(_key, fast.findings)) == sorted(map(_key, full.findings))
    if name not in ("a help text edited", "a new flag", "a switch gets its --no- form"):
        assert fast.findings, "the scenario makes some page wrong"


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_cold_cache_skips_pages_unparsed_and_changes_no_finding(name):
    # A page not indexed yet is parsed only when its words could cite what the change reaches.
    edits = SCENARIOS[name]
    cold, _ = run(edits, {})
    full, _ = run(edits, every_page=True)
    assert sorted(map(_key, cold.findings)) == sorted(map(_key, full.findings))


def test_a_cold_check_parses_only_the_pages_whose_words_could_cite_what_it_reaches():
    cache: dict[str, object] = {}
    _, read = run(SCENARIOS["a flag renamed"], cache)
    assert {p for p in read if p.startswith("docs/")} == set(PAGES)  # each read once, for its words
    parsed = {k.rpartition(":")[2] for k, v in cache.items() if isinstance(v, DocPage)}
    assert parsed == {"docs/alpha.md", "docs/by-name.md", "docs/mode.md"}
    # The next change finds the others' words, or their text, kept: it reads only the page it reaches.
    _, read = run(SCENARIOS["a mesh dimension added"], cache)
    assert {p for p in read if p.startswith("docs/")} == {"docs/mesh.md"}


def _key(f):
    return (f.kind, f.symbol, f.doc.path if f.doc else None, f.doc.line if f.doc else None, f.message)


def test_with_a_parser_listed_in_full_a_new_flag_reaches_every_page_as_before():
    listed = CONFIG.replace("path: tool/cli.py}", "path: tool/cli.py, enumerated: true}")
    edits = SCENARIOS["a new flag"]
    fast, _ = run(edits, config=listed)
    full, _ = run(edits, config=listed, every_page=True)
    assert sorted(map(_key, fast.findings)) == sorted(map(_key, full.findings))
    assert {f.kind for f in fast.findings} == {"undocumented"}


def test_a_warm_check_reads_only_the_pages_the_change_reaches():
    cache: dict[str, object] = {}
    _, read = run(SCENARIOS["a help text edited"], cache)  # the first check reads and indexes every page
    assert {p for p in read if p.startswith("docs/")} == set(PAGES)
    report, read = run(SCENARIOS["a flag renamed"], cache)
    assert [(f.kind, f.symbol, f.doc.path) for f in report.findings] == [
        ("renamed", "--alpha", "docs/alpha.md")
    ]
    # The renamed flag's page, the page naming it by its dest, and (`--alphas` being a new flag of
    # the parser) the page citing the parser's other flags, which a new-flag notice may be about.
    assert {p for p in read if p.startswith("docs/")} == {"docs/alpha.md", "docs/by-name.md", "docs/mode.md"}
    _, read = run(SCENARIOS["a mesh dimension added"], cache)
    assert {p for p in read if p.startswith("docs/")} == {"docs/mesh.md"}
    _, read = run(SCENARIOS["a cited file deleted"], cache)  # moved or deleted files reach pages citing paths
    assert {p for p in read if p.startswith("docs/")} == {"docs/paths.md"}
    # A name the change took out of the sources reaches the pages citing it, in any spelling.
    report, read = run(SCENARIOS["a launcher variable dropped"], cache)
    assert [(f.kind, f.symbol) for f in report.findings] == [("vanished", "PERF_ARGS")]
    assert {p for p in read if p.startswith("docs/")} == {"docs/launch.md"}
    report, read = run(SCENARIOS["an environment variable no longer read"], cache)
    assert [(f.kind, f.symbol) for f in report.findings] == [("vanished", "$TOOL_HOME_DIR")]
    assert {p for p in read if p.startswith("docs/")} == {"docs/env.md"}


def test_the_tokens_a_change_reaches_through():
    def facts(*found: Fact) -> Facts:
        out = Facts()
        for f in found:
            out.add(f)
        return out

    (rule,) = rules()
    plain = replace(rule, sources=tuple(s for s in rule.sources if s.kind != "paths"))
    flag = Fact("flag", "--mode", "mode", "cli", "t.py", 3, (("choices", "fast,slow"), ("default", "fast")))
    moved = Fact("flag", "--mode", "mode", "cli", "t.py", 9, flag.attrs)  # only its line moved
    other = Fact("flag", "--alpha", "alpha", "cli", "t.py", 4)
    assert Reach.of(rule, facts(flag, other), facts(moved, other)).tokens == frozenset()
    changed = Fact(
        "flag", "--mode", "mode", "cli", "t.py", 3, (("choices", "fast,slow"), ("default", "slow"))
    )
    reach = Reach.of(rule, facts(flag, other), facts(changed, other))
    assert reach.tokens == {"--mode", "mode", "fast", "slow"}
    assert reach.touches(page_index(parse_doc("a.md", "# A\n\n`slow` is the default.\n")))
    assert not reach.touches(page_index(parse_doc("b.md", "# B\n\n`--alpha 3`, see `x/y.py`.\n")))
    # The negative half of a switch is a new spelling of a destination the parser had: no new flag.
    negative = Fact("flag", "--no-alpha", "alpha", "cli", "t.py", 5, (("sets", "false"),))
    assert Reach.of(rule, facts(other), facts(other, negative)).tokens == {"--no-alpha", "alpha"}
    # A file moved or deleted reaches every page citing a path, when the rule checks them.
    cites = page_index(parse_doc("c.md", "See `x/y.py`.\n"))
    assert Reach.of(rule, facts(), facts(), {"helper.py"}).touches(cites)
    assert not Reach.of(plain, facts(), facts(), {"helper.py"}).touches(cites)


def test_a_new_flag_of_a_parser_the_pages_list_in_full_reaches_every_page():
    (rule,) = rules()
    cli = replace(rule.sources[0], enumerated=True)
    listed = replace(rule, sources=(cli, *rule.sources[1:]))
    base, head = Facts(), Facts()
    head.add(Fact("flag", "--beta", "beta", "cli", "tool/cli.py", 6))
    assert Reach.of(listed, base, head).touches(page_index(parse_doc("d.md", "# Nothing\n")))
    assert not Reach.of(rule, base, head).touches(page_index(parse_doc("d.md", "# Nothing\n")))
