"""Globs and pairing in rule paths: the pattern syntax, its expansion against base and head, and
the check run through a rule that uses them."""

from __future__ import annotations

import fnmatch
import itertools
import random
import re
import subprocess
import sys

import pytest

from bot.core.check import audit, check
from bot.core.globs import PatternError, compile_pattern, expand, is_pattern
from bot.core.model import Change
from bot.core.packs import parse_rules_file
from bot.core.rules import RulesError
from bot.trees.memory import MemoryTree


def matches(pattern: str, path: str) -> bool:
    return compile_pattern(pattern).match(path) is not None


# -- the syntax --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("docs/*.md", "docs/a.md", True),
        ("docs/*.md", "docs/sub/a.md", False),  # * stays within one segment
        ("docs/**/*.md", "docs/a.md", True),  # ** is zero or more folders
        ("docs/**/*.md", "docs/x/y/z.md", True),
        ("docs/**/*.md", "docsx/a.md", False),
        ("docs/**", "docs/x/y.md", True),
        ("docs/**", "docs", False),
        ("**/cli.py", "cli.py", True),
        ("**/cli.py", "a/b/cli.py", True),
        ("src/**/cli/*.py", "src/pkg/cli/main.py", True),
        ("src/**/cli/*.py", "src/cli/main.py", True),
        ("src/**/cli/*.py", "src/pkg/cli/sub/main.py", False),
        ("docs/?.md", "docs/a.md", True),
        ("docs/?.md", "docs/ab.md", False),
        ("docs/[ab].md", "docs/b.md", True),
        ("docs/[!ab].md", "docs/b.md", False),
        ("docs/[!ab].md", "docs/c.md", True),
        ("docs/a.b.md", "docs/aXb.md", False),  # the dot is literal
        ("docs/{name}.md", "docs/llama.md", True),
        ("docs/{name}.md", "docs/.md", False),  # a placeholder is at least one character
        ("docs/{name}/{name}.md", "docs/a/a.md", True),  # used twice: the same value
        ("docs/{name}/{name}.md", "docs/a/b.md", False),
    ],
)
def test_pattern_matching(pattern, path, expected):
    assert matches(pattern, path) is expected


def test_placeholders_bind_their_values():
    pattern = compile_pattern("docs/models/{name}.md")
    assert pattern.names == ("name",)
    assert pattern.match("docs/models/qwen.md") == {"name": "qwen"}
    assert compile_pattern("scripts/run_{name}.py").bind({"name": "qwen"}) == "scripts/run_qwen.py"
    # A value holding a wildcard character matches only itself once bound.
    bound = compile_pattern("scripts/{name}.py").bind({"name": "a*b"})
    assert matches(bound, "scripts/a*b.py") and not matches(bound, "scripts/aXXb.py")


@pytest.mark.parametrize(
    "pattern, problem",
    [
        ("docs/a**.md", "'**' must be a whole path segment"),
        ("docs/[ab.md", "has no closing ']'"),
        ("docs/[].md", "has no closing ']'"),
        ("docs/[!].md", "empty character class"),
        ("docs/{name.md", "has no closing '}'"),
        ("docs/{}.md", "is not a placeholder"),
        ("docs/{1x}.md", "is not a placeholder"),
        ("docs/a}.md", "closes nothing"),
    ],
)
def test_unreadable_patterns_are_refused(pattern, problem):
    with pytest.raises(PatternError, match=problem.replace("[", r"\[").replace("*", r"\*")):
        compile_pattern(pattern)


@pytest.mark.parametrize(
    "pattern, problem",
    [
        ("docs/" + "*a" * 17 + ".md", "has 17 wildcards ('*', '**', '{name}'); a pattern has at most 16"),
        ("docs/" + "x" * 600 + ".md", "is 608 characters long; a pattern has at most 512"),
        ("docs/{name}*.md", "a '{name}' is the only wildcard of its segment"),
        ("docs/*{name}.md", "a '{name}' is the only wildcard of its segment"),
        ("docs/{a}_{b}.md", "a segment holds one '{name}' at most"),
        ("docs/**/{name}/**/x.md", "a pattern with a '{name}' placeholder has at most one '**'"),
    ],
)
def test_patterns_past_the_caps_are_refused(pattern, problem):
    with pytest.raises(PatternError, match=re.escape(problem)):
        compile_pattern(pattern)


# The pull request's own config and file names: a backtracking regex of this glob takes
# exponential time in the stars on a long name of `a`s (hours at this size); the matcher takes
# each piece at its first place and is done in milliseconds. Run apart, so a regression fails
# on the timeout instead of freezing the suite.
_HOSTILE = """
import sys
from bot.core.globs import compile_pattern
star = compile_pattern("docs/" + "*a" * 15 + "*b.md")
deep = compile_pattern("docs/" + "**/*a*a*a*a*a*a/" * 2 + "*b.md")
name = "docs/" + "a" * 5000 + ".txt"
folders = "docs/" + "aaaaaaa/" * 300 + "a" * 40 + ".md"
found = [star.match(name), star.match(name[:-4] + "b.md")]
found += [deep.match(folders), deep.match(folders[:-4] + "b.md")]
sys.exit(0 if [f is not None for f in found] == [False, True, False, True] else 1)
"""


def test_matching_a_hostile_glob_is_linear():
    done = subprocess.run([sys.executable, "-c", _HOSTILE], timeout=20, check=False)
    assert done.returncode == 0


def test_a_placeholder_takes_what_its_segment_leaves():
    pattern = compile_pattern("docs/**/run_{name}.py")
    assert pattern.match("docs/a/b/run_llama_7b.py") == {"name": "llama_7b"}
    assert pattern.match("docs/run_.py") is None
    assert compile_pattern("{name}/**/{name}.md").match("x/y/x.md") == {"name": "x"}
    assert compile_pattern("{name}/**/{name}.md").match("x/y/z.md") is None
    # A bound value with characters of the glob syntax matches only itself.
    bound = compile_pattern("docs/{name}.md").bind({"name": "[a]{b}*"})
    assert matches(bound, "docs/[a]{b}*.md") and not matches(bound, "docs/a{b}x.md")


def test_plain_paths_are_not_patterns():
    assert not is_pattern("docs/user-guide/training-backend.md")
    assert is_pattern("docs/*.md") and is_pattern("docs/{name}.md") and is_pattern("d/[ab].md")


# -- rules files -------------------------------------------------------------------------------


def load(text: str):
    return [rule for pack in parse_rules_file(text, "cfg.yml") for rule in pack.rules]


def test_a_bad_pattern_in_a_rules_file_names_its_line_and_key():
    text = """\
rules:
  - id: r
    docs:
      - path: docs/a**.md
    sources:
      - {id: cli, kind: argparse, path: tool/cli.py}
"""
    with pytest.raises(RulesError) as err:
        load(text)
    assert (err.value.line, err.value.key) == (4, "rules[0].docs[0].path")
    assert "'**' must be a whole path segment" in err.value.problem


def test_a_source_placeholder_no_doc_path_gives_is_refused():
    text = """\
rules:
  - id: r
    docs:
      - path: docs/*.md
    sources:
      - {id: cli, kind: argparse, path: "scripts/run_{name}.py"}
"""
    with pytest.raises(RulesError) as err:
        load(text)
    assert (err.value.line, err.value.key) == (6, "rules[0].sources[0].path")
    assert "{name} has no value: no doc path gives one" in err.value.problem


def test_doc_paths_that_pair_must_pair_on_the_same_names():
    text = """\
rules:
  - id: r
    docs:
      - path: "docs/{name}.md"
      - path: "guides/{model}.md"
    sources:
      - {id: cli, kind: argparse, path: "scripts/{name}.py"}
"""
    with pytest.raises(RulesError) as err:
        load(text)
    assert (err.value.line, err.value.key) == (5, "rules[0].docs[1].path")
    assert "pairs on {model} but an earlier doc path pairs on {name}" in err.value.problem


# -- expansion ---------------------------------------------------------------------------------

CLI_A = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--alpha", type=int, default=1)\n'
CLI_B = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--beta", type=int, default=2)\n'

GLOB_RULES = """\
rules:
  - id: cli-docs
    docs:
      - path: "docs/**/*.md"
    sources:
      - id: cli
        kind: argparse
        paths: ["tool/**/cli.py"]
"""

PAIRED_RULES = """\
rules:
  - id: models
    docs:
      - path: "docs/models/{name}.md"
      - path: docs/index.md
    sources:
      - id: runner
        kind: argparse
        path: "scripts/run_{name}.py"
"""


def test_a_rule_without_patterns_is_returned_as_it_is():
    rule = load("rules:\n  - id: r\n    docs: [{path: docs/a.md}]\n    sources: [{id: p, kind: paths}]\n")[0]
    tree = MemoryTree({"docs/a.md": "# A\n"})
    assert expand(rule, tree, tree, {}) == (rule,)
    assert expand(rule, tree, tree, {})[0] is rule


def test_globs_expand_against_base_and_head():
    rule = load(GLOB_RULES)[0]
    base = MemoryTree({"docs/a.md": "a", "docs/deep/b.md": "b", "tool/x/cli.py": CLI_A, "README.md": "r"})
    head = MemoryTree({"docs/a.md": "a", "docs/new.md": "n", "tool/y/cli.py": CLI_B})
    (concrete,) = expand(rule, base, head, {})
    # docs/deep/b.md and tool/x/cli.py are only at base: a removal there is still seen.
    assert [d.path for d in concrete.docs] == ["docs/a.md", "docs/deep/b.md", "docs/new.md"]
    assert concrete.sources[0].paths == ("tool/x/cli.py", "tool/y/cli.py")
    assert concrete.id == "cli-docs"
    # Every expanded path keeps the line its pattern was written on.
    assert {o.line for o in concrete.sources[0].origins} == {8}


def test_a_renamed_file_counts_once_under_its_old_name():
    rule = load(GLOB_RULES)[0]
    base = MemoryTree({"docs/old.md": "x", "tool/cli.py": CLI_A})
    head = MemoryTree({"docs/new.md": "x", "tool/cli.py": CLI_A})
    (concrete,) = expand(rule, base, head, {"docs/old.md": "docs/new.md"})
    assert [d.path for d in concrete.docs] == ["docs/old.md"]


def test_pairing_makes_one_rule_per_value_and_leaves_unpaired_pages_out():
    rule = load(PAIRED_RULES)[0]
    tree = MemoryTree(
        {
            "docs/models/qwen.md": "q",
            "docs/models/llama.md": "l",
            "docs/models/orphan.md": "o",  # no scripts/run_orphan.py: not paired
            "docs/index.md": "i",
            "scripts/run_qwen.py": CLI_A,
            "scripts/run_llama.py": CLI_B,
        }
    )
    rules = expand(rule, tree, tree, {})
    assert [r.id for r in rules] == ["models[llama]", "models[qwen]"]
    llama = rules[0]
    assert [d.path for d in llama.docs] == ["docs/models/llama.md", "docs/index.md"]
    assert llama.sources[0].paths == ("scripts/run_llama.py",)


# -- the check through patterns ----------------------------------------------------------------


def test_check_follows_a_flag_renamed_in_a_globbed_source_onto_every_globbed_page():
    rule = load(GLOB_RULES)[0]
    page_a = "# Tool\n\nRun with `--alpha 3`.\n"
    page_b = "# Deep\n\n## Flags\n\n- `--alpha` sets alpha.\n"
    other = "# Other\n\nNothing about flags.\n"
    base = {"docs/a.md": page_a, "docs/x/b.md": page_b, "docs/other.md": other, "tool/z/cli.py": CLI_A}
    head = dict(base, **{"tool/z/cli.py": CLI_A.replace("--alpha", "--alphas")})
    report = check([rule], MemoryTree(base), MemoryTree(head), [Change("modified", "tool/z/cli.py")])
    found = sorted((f.kind, f.symbol, f.doc.path, f.doc.line) for f in report.findings)
    assert found == [("renamed", "--alpha", "docs/a.md", 3), ("renamed", "--alpha", "docs/x/b.md", 5)]
    assert report.rules_checked == ("cli-docs",)


def test_pairing_judges_each_page_by_its_own_script():
    rule = load(PAIRED_RULES)[0]
    qwen = "# Qwen\n\n`python scripts/run_qwen.py --alpha 2`\n"
    llama = "# Llama\n\nSet `--beta 4`.\n"
    base = {
        "docs/models/qwen.md": qwen,
        "docs/models/llama.md": llama,
        "docs/index.md": "# Models\n",
        "scripts/run_qwen.py": CLI_A,
        "scripts/run_llama.py": CLI_B,
    }
    # llama's script drops --beta; qwen's page cites nothing of llama's.
    head = dict(
        base, **{"scripts/run_llama.py": CLI_B.replace('p.add_argument("--beta", type=int, default=2)\n', "")}
    )
    report = check([rule], MemoryTree(base), MemoryTree(head), [Change("modified", "scripts/run_llama.py")])
    found = [(f.kind, f.symbol, f.doc.path, f.rule) for f in report.findings]
    assert found == [("removed", "--beta", "docs/models/llama.md", "models[llama]")]
    assert report.rules_checked == ("models[llama]",)


def test_audit_expands_globs_against_the_revision():
    rule = load(GLOB_RULES)[0]
    tree = MemoryTree({"docs/a.md": "# A\n\nUse `--alhpa 1`.\n", "docs/b.md": "# B\n", "tool/cli.py": CLI_A})
    report = audit([rule], tree)
    assert [(f.kind, f.symbol, f.doc.path) for f in report.findings] == [
        ("unresolved", "--alhpa", "docs/a.md")
    ]


def test_exclude_takes_pages_out_of_a_glob():
    config = """\
rules:
  - id: r
    docs:
      - path: "docs/**/*.md"
        exclude: [docs/HISTORY.md, "docs/blog/**"]
    sources: [{id: cli, kind: argparse, path: tool/cli.py}]
"""
    (rule,) = load(config)
    tree = MemoryTree(
        {
            "docs/a.md": "a",
            "docs/HISTORY.md": "h",
            "docs/blog/x.md": "x",
            "docs/b/c.md": "c",
            "tool/cli.py": CLI_A,
        }
    )
    (concrete,) = expand(rule, tree, tree, {})
    assert [d.path for d in concrete.docs] == ["docs/a.md", "docs/b/c.md"]
    with pytest.raises(RulesError, match="only means something with a glob in 'path'"):
        load(config.replace('"docs/**/*.md"', "docs/a.md"))


def test_a_wildcard_does_not_match_into_a_release_s_frozen_copy_of_the_docs():
    # crewAI froze docs/edge/ into docs/v1.14.8/ at each release after init wrote docs/**/*.md:
    # a copy says what that release did, and a flag renamed since is no error there.
    (rule,) = load(GLOB_RULES)
    page = "# Tool\n\nRun with `--alpha 3`.\n"
    base = {"docs/edge/a.md": page, "docs/v1.14.8/a.md": page, "docs/api/v1/a.md": page}
    base |= {"website/versioned_docs/version-2.x/a.md": page, "tool/cli.py": CLI_A}
    head = dict(base, **{"tool/cli.py": CLI_A.replace("--alpha", "--alphas")})
    (concrete,) = expand(rule, MemoryTree(base), MemoryTree(head), {})
    assert [d.path for d in concrete.docs] == ["docs/api/v1/a.md", "docs/edge/a.md"]
    report = check([rule], MemoryTree(base), MemoryTree(head), [Change("modified", "tool/cli.py")])
    assert [(f.kind, f.doc.path) for f in report.findings] == [
        ("renamed", "docs/api/v1/a.md"),
        ("renamed", "docs/edge/a.md"),
    ]
    # A pattern naming the snapshot checks it.
    (named,) = load(GLOB_RULES.replace("docs/**/*.md", "docs/v1.14.8/*.md"))
    (concrete,) = expand(named, MemoryTree(base), MemoryTree(head), {})
    assert [d.path for d in concrete.docs] == ["docs/v1.14.8/a.md"]


def test_segments_with_stars_match_as_fnmatch_does():
    # The linear matcher agrees with fnmatch on every pattern and path of a small alphabet (both
    # with the `/` rules of a path: a `*` never crosses a segment).
    rng = random.Random(7)
    alphabet = "ab"
    for _ in range(400):
        pattern = "".join(rng.choice("ab*?") for _ in range(rng.randint(1, 7)))
        if "**" in pattern:
            continue
        compiled = compile_pattern(pattern)
        for n in range(6):
            for letters in itertools.product(alphabet, repeat=n):
                path = "".join(letters)
                assert compiled.matches(path) == fnmatch.fnmatchcase(path, pattern), (pattern, path)
