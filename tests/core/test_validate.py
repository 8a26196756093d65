"""A config against a repository: each doc, source, glob and section that matches nothing is a
problem naming the rules file, the line and the key."""

from __future__ import annotations

from bot.core.packs import parse_rules_file
from bot.core.validate import unmatched
from bot.trees.memory import MemoryTree

CLI = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--alpha", type=int, default=1)\n'
PAGE = "# Tool\n\n## Flags\n\n`--alpha` is 1 by default.\n\n## Limits\n\nNone.\n"
FILES = {"docs/tool.md": PAGE, "docs/more/extra.md": "# Extra\n", "tool/cli.py": CLI}


def problems(config: str, base: dict[str, str] | None = None, head: dict[str, str] | None = None):
    rules = [rule for pack in parse_rules_file(config, "cfg.yml") for rule in pack.rules]
    base_tree = MemoryTree(FILES if base is None else base)
    head_tree = MemoryTree(FILES if head is None else head)
    return [(p.file, p.line, p.key, p.problem) for p in unmatched(rules, base_tree, head_tree)]


def config(docs: str, sources: str = "      - {id: cli, kind: argparse, path: tool/cli.py}\n") -> str:
    return f"rules:\n  - id: r\n    docs:\n{docs}    sources:\n{sources}"


def test_a_config_that_matches_is_clean():
    docs = '      - path: docs/tool.md\n        sections: ["Tool > Flags", "Tool"]\n'
    text = config(
        docs + '      - path: "docs/**/*.md"\n',
        '      - {id: cli, kind: argparse, paths: ["tool/*.py"]}\n      - {id: cited, kind: paths}\n',
    )
    assert problems(text) == []


def test_a_doc_page_the_repository_lacks():
    (found,) = problems(config("      - path: docs/tool.md\n      - path: docs/toll.md\n"))
    assert found == (
        "cfg.yml",
        5,
        "rules[0].docs[1].path",
        "doc page 'docs/toll.md' is not in the repository at base or head",
    )


def test_a_source_path_with_a_typo():
    text = config(
        "      - path: docs/tool.md\n",
        "      - {id: cli, kind: argparse, paths: [tool/cli.py, tool/clj.py]}\n",
    )
    (found,) = problems(text)
    assert found[1:3] == (6, "rules[0].sources[0].paths[1]")
    assert found[3] == "`cli` source 'tool/clj.py' is not in the repository at base or head"


def test_a_glob_that_matches_nothing():
    text = config(
        '      - path: "docs/**/*.mdx"\n', '      - {id: cli, kind: argparse, path: "mytool/*.py"}\n'
    )
    assert problems(text) == [
        ("cfg.yml", 4, "rules[0].docs[0].path", "pattern 'docs/**/*.mdx' matches no file at base or head"),
        ("cfg.yml", 6, "rules[0].sources[0].path", "pattern 'mytool/*.py' matches no file at base or head"),
    ]


def test_a_section_that_names_no_heading_says_the_closest():
    (found,) = problems(config('      - path: docs/tool.md\n        sections: ["Tool > Flags", "Limits"]\n'))
    assert found[1:3] == (5, "rules[0].docs[0].sections[1]")
    assert found[3] == "section 'Limits' matches no heading of docs/tool.md (did you mean 'Tool > Limits'?)"


def test_a_section_of_a_glob_needs_a_heading_in_one_of_its_pages():
    assert problems(config('      - path: "docs/**/*.md"\n        sections: ["Extra"]\n')) == []
    (found,) = problems(config('      - path: "docs/**/*.md"\n        sections: ["Nowhere"]\n'))
    assert found[2:] == (
        "rules[0].docs[0].sections[0]",
        "section 'Nowhere' matches no heading of 2 pages of 'docs/**/*.md'",
    )


def test_an_exclude_that_takes_nothing_out():
    text = config('      - path: "docs/**/*.md"\n        exclude: ["docs/tool.md", "docs/blog/**"]\n')
    (found,) = problems(text)
    assert found[1:3] == (5, "rules[0].docs[0].exclude[1]")
    assert found[3] == "exclude 'docs/blog/**' matches none of the pages 'docs/**/*.md' matches"


def test_a_file_only_at_base_still_matches():
    # The change deletes the page: the rule still names something (the deletion is a finding).
    head = {p: t for p, t in FILES.items() if p != "docs/tool.md"}
    assert problems(config("      - path: docs/tool.md\n"), head=head) == []
    # ...and one only at head (a page the change adds) matches too.
    assert problems(config("      - path: docs/tool.md\n"), base=head) == []


def test_a_pairing_with_no_pair():
    files = dict(FILES, **{"docs/models/qwen.md": "# Qwen\n", "scripts/run_llama.py": CLI})
    text = config(
        '      - path: "docs/models/{name}.md"\n',
        '      - {id: run, kind: argparse, path: "scripts/run_{name}.py"}\n',
    )
    (found,) = problems(text, files, files)
    assert found[1:3] == (4, "rules[0].docs[0].path")
    assert "pairs nothing: no value of {name} has a file for every path that uses it" in found[3]
    paired = dict(files, **{"scripts/run_qwen.py": CLI})
    assert problems(text, paired, paired) == []


def test_every_problem_is_reported_not_only_the_first():
    text = config(
        "      - path: docs/a.md\n      - path: docs/b.md\n",
        "      - {id: cli, kind: argparse, path: c.py}\n",
    )
    assert [p[2] for p in problems(text)] == [
        "rules[0].docs[0].path",
        "rules[0].docs[1].path",
        "rules[0].sources[0].path",
    ]


def test_a_built_in_pack_is_named_by_its_place_in_the_repository():
    from bot.core.packs import load_builtin

    rules = list(load_builtin("miles").rules)
    found = unmatched(rules, MemoryTree({}), MemoryTree({"README.md": "x"}))
    assert found and all(p.file == "rules/miles.yml" and p.line for p in found)


def test_the_all_docs_rules_file_matches_miles_where_the_bench_uses_it():
    from pathlib import Path

    from bot.core.packs import load_rules_file
    from bot.trees.git import GitRepo
    from tests.miles import MIRROR, miles_file

    miles_file("README.md")  # skips without the mirror
    rules = [
        r for p in load_rules_file(Path(__file__).parents[2] / "bench/rules/miles-docs.yml") for r in p.rules
    ]
    with GitRepo(MIRROR) as repo:
        for rev in ("0daa9ff92", "748935dc7^"):  # PR 2384 (bench_check.py), the audit before #2651
            tree = repo.tree(rev)
            assert unmatched(rules, MemoryTree({}), tree) == [], rev


def test_entries_whose_files_were_deleted_are_findings_and_the_rest_of_the_rule_stays():
    from bot.core.packs import parse_repo_config
    from bot.core.validate import stale_entries

    config = (
        'rules:\n  - id: r\n    docs:\n      - path: docs/a.md\n      - path: "recipe/{name}/README.md"\n'
        "    sources:\n      - id: cli\n        kind: argparse\n"
        '        paths: [tool/cli.py, gone/old.py, "recipe/**/*.py", typo/nope.py]\n'
    )
    (pack,) = parse_repo_config(config)
    tree = MemoryTree({"docs/a.md": "", "tool/cli.py": ""})
    history = {"gone/old.py", "recipe/**/*.py", "recipe/*/README.md"}
    kept, found = stale_entries(pack.rules, tree, tree, {}, existed=lambda p: p in history)
    assert sorted(f.symbol for f in found) == ["gone/old.py", "recipe/**/*.py", "recipe/{name}/README.md"]
    assert all(f.kind == "config" and f.severity == "warning" and not f.blocking for f in found)
    [rule] = kept
    assert [d.path for d in rule.docs] == ["docs/a.md"]
    assert rule.sources[0].paths == ("tool/cli.py", "typo/nope.py")  # a typo is left to `unmatched`
    assert [str(p) for p in unmatched(kept, tree, tree)] != []


def test_an_exclude_whose_pages_were_all_deleted_is_a_finding_and_the_check_goes_on():
    # feast's `exclude: ["docs/rfcs/**"]` after its RFCs moved to docs/adr/: every later check
    # failed on the config; a typo in an exclude is still an error.
    from bot.core.packs import parse_repo_config
    from bot.core.validate import stale_entries

    config = (
        'rules:\n  - id: r\n    docs:\n      - path: "docs/**/*.md"\n'
        '        exclude: ["docs/rfcs/**", docs/HISTORY.md, "docs/blgo/**"]\n'
        "    sources:\n      - id: cli\n        kind: argparse\n        paths: [tool/cli.py]\n"
    )
    (pack,) = parse_repo_config(config)
    tree = MemoryTree({"docs/a.md": "", "docs/HISTORY.md": "", "docs/adr/1.md": "", "tool/cli.py": ""})
    kept, found = stale_entries(pack.rules, tree, tree, {}, existed=lambda p: p == "docs/rfcs/**")
    assert [(f.symbol, f.kind, f.blocking) for f in found] == [("docs/rfcs/**", "config", False)]
    assert "matches no file now" in found[0].message and ":5: " in found[0].message
    [rule] = kept
    assert rule.docs[0].exclude == ("docs/HISTORY.md", "docs/blgo/**")
    [problem] = unmatched(kept, tree, tree)
    assert "exclude 'docs/blgo/**' matches none of the pages" in str(problem)


def test_an_entry_whose_files_moved_into_a_submodule_says_so():
    from bot.core.packs import parse_repo_config
    from bot.core.validate import stale_entries

    config = (
        "rules:\n  - id: r\n    docs:\n      - path: docs/a.md\n"
        "    sources:\n      - id: cli\n        kind: argparse\n"
        '        paths: [tool/cli.py, "recipe/**/*.py", gone/old.py]\n'
    )
    (pack,) = parse_repo_config(config)
    gitmodules = '[submodule "recipe"]\n\tpath = recipe\n\turl = ../recipe.git\n'
    tree = MemoryTree({"docs/a.md": "", "tool/cli.py": "", ".gitmodules": gitmodules})
    history = {"recipe/**/*.py", "gone/old.py"}
    _, found = stale_entries(pack.rules, tree, tree, {}, existed=lambda p: p in history)
    said = {f.symbol: f.message for f in found}
    assert "is now in the submodule 'recipe', another repository, which is not read" in said["recipe/**/*.py"]
    assert "was deleted before this change" in said["gone/old.py"]
