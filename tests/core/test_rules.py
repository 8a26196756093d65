from pathlib import Path

import pytest

from bot.core import packfiles, rules
from bot.core.packfiles import builtin_pack_names, builtin_pack_path
from bot.core.packs import (
    load_pack,
    load_packs,
    parse_pack,
    parse_repo_config,
    resolve_rule_args,
)
from bot.core.rules import (
    DEFAULT_SEVERITY,
    Convention,
    DocTarget,
    Example,
    ExampleFile,
    Expectation,
    Rule,
    RulePack,
    RulesError,
    Source,
)

FULL = """\
pack: demo
description: Backend flags and mesh names.
rules:
  - id: backend-page
    docs:
      - path: docs/backend.md
        sections: ["FSDP", "FSDP > Flags"]
      - path: docs/other.md
    sources:
      - id: fsdp-args
        kind: dataclass-flags
        paths: [pkg/fsdp/args.py, pkg/fsdp/more.py]
        dataclass: FSDPArgs
        builder: build_parser
        convention:
          prefix: "--"
          separator: "_"
          bool: store-true
        enumerated: false
      - id: mesh
        kind: strings
        path: pkg/mesh.py
        calls: [init_device_mesh]
        keyword: mesh_dim_names
        position: 2
        compared_with: [args.backend]
        group: mesh-dims
        enumerated: true
      - id: actors
        kind: symbols
        path: pkg/actors.py
        names: [Actor, Actor.init]
    external: ["--sglang-*", "<*>"]
    severity: {removed: warning, new-flag: error}
    fail_on: warning
    examples:
      - name: flag renamed
        files:
          pkg/fsdp/args.py: {base: "old = 1\\n", head: "new = 1\\n"}
          docs/backend.md: {base: "Use --old.\\n"}
          pkg/gone.py: {base: "x = 1\\n", head: null}
          pkg/added.py: {head: ""}
        expect:
          - {kind: renamed, symbol: --old, line: 1, severity: error, replacement: "Use --new."}
      - name: nothing to report
        files: {}
        expect: []
"""

# The smallest valid pack; malformed cases below are one edit away from it.
# line: 1 pack, 2 rules, 3 id, 4 docs, 5 doc path, 6 sources, 7 source id, 8 kind, 9 source path
MINIMAL = """\
pack: demo
rules:
  - id: flags
    docs:
      - path: docs/page.md
    sources:
      - id: args
        kind: argparse
        path: pkg/args.py
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def variant(old: str, new: str) -> str:
    assert old in MINIMAL
    return MINIMAL.replace(old, new, 1)


def test_full_pack_loads_every_field(tmp_path):
    path = write(tmp_path, "demo.yml", FULL)

    pack = load_pack(path)

    severity = dict(DEFAULT_SEVERITY, removed="warning", **{"new-flag": "error"})
    assert pack == RulePack(
        pack="demo",
        file=str(path),
        description="Backend flags and mesh names.",
        rules=(
            Rule(
                id="backend-page",
                docs=(
                    DocTarget("docs/backend.md", ("FSDP", "FSDP > Flags")),
                    DocTarget("docs/other.md"),
                ),
                sources=(
                    Source(
                        id="fsdp-args",
                        kind="dataclass-flags",
                        paths=("pkg/fsdp/args.py", "pkg/fsdp/more.py"),
                        dataclass="FSDPArgs",
                        builder="build_parser",
                        convention=Convention(prefix="--", separator="_", bool="store-true"),
                    ),
                    Source(
                        id="mesh",
                        kind="strings",
                        paths=("pkg/mesh.py",),
                        calls=("init_device_mesh",),
                        keyword="mesh_dim_names",
                        position=2,
                        compared_with=("args.backend",),
                        group="mesh-dims",
                        enumerated=True,
                    ),
                    Source(
                        id="actors", kind="symbols", paths=("pkg/actors.py",), names=("Actor", "Actor.init")
                    ),
                ),
                external=("--sglang-*", "<*>"),
                severity=severity,
                fail_on="warning",
                examples=(
                    Example(
                        name="flag renamed",
                        files={
                            "pkg/fsdp/args.py": ExampleFile(base="old = 1\n", head="new = 1\n"),
                            "docs/backend.md": ExampleFile(base="Use --old.\n", head="Use --old.\n"),
                            "pkg/gone.py": ExampleFile(base="x = 1\n", head=None),
                            "pkg/added.py": ExampleFile(base=None, head=""),
                        },
                        expect=(
                            Expectation(
                                kind="renamed",
                                symbol="--old",
                                line=1,
                                severity="error",
                                replacement="Use --new.",
                            ),
                        ),
                        line=37,
                    ),
                    Example(name="nothing to report", files={}, expect=(), line=45),
                ),
            ),
        ),
    )
    assert pack.rules[0].watched_paths() == {
        "docs/backend.md",
        "docs/other.md",
        "pkg/fsdp/args.py",
        "pkg/fsdp/more.py",
        "pkg/mesh.py",
        "pkg/actors.py",
    }


def test_minimal_pack_gets_defaults():
    (rule,) = parse_pack(MINIMAL, "rules/demo.yml").rules

    assert rule.severity == DEFAULT_SEVERITY
    assert rule.severity is not DEFAULT_SEVERITY
    assert rule.fail_on == "error"
    assert rule.external == () and rule.examples == ()
    assert rule.sources[0].paths == ("pkg/args.py",)
    assert rule.sources[0].convention is None


def test_argparse_source_may_name_its_declaring_calls():
    text = variant("kind: argparse", "kind: argparse\n        calls: [add_argument, reset_arg]")

    source = parse_pack(text, "demo.yml").rules[0].sources[0]

    assert source.calls == ("add_argument", "reset_arg")


def test_paths_source_needs_no_paths():
    text = variant("kind: argparse\n        path: pkg/args.py", "kind: paths")

    assert parse_pack(text, "demo.yml").rules[0].sources[0] == Source(id="args", kind="paths")


def test_convention_keys_default_individually():
    text = variant(
        "kind: argparse",
        "kind: dataclass-flags\n        dataclass: Args\n        convention: {bool: store-true}",
    )

    source = parse_pack(text, "demo.yml").rules[0].sources[0]

    assert source.convention == Convention(prefix="--", separator="-", bool="store-true")


MALFORMED = [
    # (id, text, line, key, words in the message)
    ("syntax", variant("    docs:\n", "    docs: [\n"), 5, "syntax", "expected"),
    ("tab", MINIMAL + "\tmore: 1\n", 10, "syntax", "'\\t'"),
    ("two documents", MINIMAL + "---\npack: demo\n", 10, "syntax", "single document"),
    ("top level list", "- pack: demo\n", 1, "(top level)", "expected a mapping, got a list"),
    ("missing pack", variant("pack: demo\n", ""), 1, "pack", "required key 'pack' is missing"),
    (
        "missing rule key",
        MINIMAL.split("    sources:")[0],
        3,
        "rules[0].sources",
        "required key 'sources' is missing",
    ),
    ("missing kind", variant("        kind: argparse\n", ""), 7, "rules[0].sources[0].kind", "missing"),
    ("missing path", variant("        path: pkg/args.py\n", ""), 7, "rules[0].sources[0].paths", "'path' or"),
    (
        "unknown key",
        variant("    sources:", "    sorces:"),
        6,
        "rules[0].sorces",
        "unknown key 'sorces' (did you mean 'sources'?)",
    ),
    (
        "duplicate key",
        variant("  - id: flags\n", "  - id: flags\n    id: again\n"),
        4,
        "rules[0].id",
        "duplicate",
    ),
    (
        "string not list",
        variant("    docs:", "    external: --x\n    docs:"),
        4,
        "rules[0].external",
        "a list",
    ),
    (
        "int not string",
        variant("path: docs/page.md", "path: docs/page.md\n        sections: [2024]"),
        6,
        "rules[0].docs[0].sections[0]",
        "expected a string, got an integer (quote it",
    ),
    (
        "string not bool",
        variant("kind: argparse", 'kind: argparse\n        enumerated: "yes"'),
        9,
        "rules[0].sources[0].enumerated",
        "expected true or false, got a string",
    ),
    (
        "string not int",
        variant("kind: argparse", "kind: strings\n        calls: [f]\n        position: two"),
        10,
        "rules[0].sources[0].position",
        "expected an integer",
    ),
    (
        "negative int",
        variant("kind: argparse", "kind: strings\n        calls: [f]\n        position: -1"),
        10,
        "rules[0].sources[0].position",
        "at least 0",
    ),
    (
        "bad kind",
        variant("kind: argparse", "kind: dataclass_flags"),
        8,
        "rules[0].sources[0].kind",
        "(did you mean 'dataclass-flags'?)",
    ),
    (
        "python tag",
        variant("kind: argparse", "kind: !!python/object/apply:os.system [echo hi]"),
        8,
        "rules[0].sources[0].kind",
        "!!python/object/apply:os.system",
    ),
    (
        "alias",
        variant("        path: pkg/args.py", "        path: &p pkg/args.py\n        group: *p"),
        10,
        "syntax",
        "aliases",
    ),
    (
        "dataclass-flags without dataclass",
        variant("kind: argparse", "kind: dataclass-flags"),
        7,
        "rules[0].sources[0].dataclass",
        "required for kind dataclass-flags",
    ),
    (
        "strings without calls",
        variant("kind: argparse", "kind: strings"),
        7,
        "rules[0].sources[0].calls",
        "'calls' or 'compared_with'",
    ),
    (
        "key for another kind",
        variant("kind: argparse", "kind: argparse\n        dataclass: Args"),
        9,
        "rules[0].sources[0].dataclass",
        "only applies to kind dataclass-flags",
    ),
    (
        "keyword without calls",
        variant("kind: argparse", "kind: strings\n        compared_with: [x]\n        keyword: k"),
        10,
        "rules[0].sources[0].keyword",
        "'calls'",
    ),
    (
        "bad bool convention",
        variant(
            "kind: argparse", "kind: dataclass-flags\n        dataclass: A\n        convention: {bool: flag}"
        ),
        10,
        "rules[0].sources[0].convention.bool",
        "boolean-optional",
    ),
    (
        "bad severity level",
        variant("    docs:", "    severity: {removed: fatal}\n    docs:"),
        4,
        "rules[0].severity.removed",
        "'fatal' is not one of error, warning, notice",
    ),
    (
        "bad severity kind",
        variant("    docs:", "    severity:\n      remvoed: error\n    docs:"),
        5,
        "rules[0].severity.remvoed",
        "unknown finding kind 'remvoed' (did you mean 'removed'?)",
    ),
    ("bad fail_on", variant("    docs:", "    fail_on: always\n    docs:"), 4, "rules[0].fail_on", "never"),
    (
        "duplicate rule id",
        MINIMAL + MINIMAL.split("rules:\n")[1],
        10,
        "rules[1].id",
        "duplicate rule id 'flags' (first on line 3)",
    ),
    (
        "duplicate source id",
        MINIMAL + "      - id: args\n        kind: symbols\n        path: pkg/x.py\n",
        10,
        "rules[0].sources[1].id",
        "duplicate source id 'args' (first on line 7)",
    ),
    (
        "pack name mismatch",
        variant("pack: demo", "pack: other"),
        1,
        "pack",
        "'other' must equal the file name",
    ),
    (
        "absolute path",
        variant("path: pkg/args.py", "path: /etc/passwd"),
        9,
        "rules[0].sources[0].path",
        "not absolute",
    ),
    (
        "parent path",
        variant("path: docs/page.md", "path: docs/../../x.md"),
        5,
        "rules[0].docs[0].path",
        "'..'",
    ),
    (
        "windows path",
        variant("path: pkg/args.py", "paths: [pkg/a.py, 'C:\\x.py']"),
        9,
        "rules[0].sources[0].paths[1]",
        "absolute",
    ),
    (
        "path and paths",
        variant("path: pkg/args.py", "path: a.py\n        paths: [b.py]"),
        10,
        "rules[0].sources[0].paths",
        "not both",
    ),
    ("empty paths", variant("path: pkg/args.py", "paths: []"), 9, "rules[0].sources[0].paths", "empty"),
    ("empty rules", "pack: demo\nrules: []\n", 2, "rules", "empty"),
    (
        "example path escapes",
        MINIMAL
        + "    examples:\n      - name: e\n        files: {../x.py: {base: ''}}\n        expect: []\n",
        12,
        "rules[0].examples[0].files",
        "'..'",
    ),
    (
        "example file without sides",
        MINIMAL + "    examples:\n      - name: e\n        files:\n          a.py: {}\n        expect: []\n",
        13,
        "rules[0].examples[0].files.a.py",
        "needs 'base' or 'head'",
    ),
    (
        "example without expect",
        MINIMAL + "    examples:\n      - name: e\n        files: {}\n",
        11,
        "rules[0].examples[0].expect",
        "missing",
    ),
    (
        "bad expected kind",
        MINIMAL
        + "    examples:\n      - name: e\n        files: {}\n        expect:\n          - kind: gone\n",
        14,
        "rules[0].examples[0].expect[0].kind",
        "'gone' is not one of",
    ),
    (
        "bad expected line",
        MINIMAL
        + "    examples:\n      - name: e\n        files: {}\n        expect: [{kind: removed, line: 0}]\n",
        13,
        "rules[0].examples[0].expect[0].line",
        "at least 1",
    ),
    (
        "duplicate example name",
        MINIMAL
        + "    examples:\n"
        + "      - {name: e, files: {}, expect: []}\n"
        + "      - {name: e, files: {}, expect: []}\n",
        12,
        "rules[0].examples[1].name",
        "duplicate example name 'e' (first on line 11)",
    ),
]


@pytest.mark.parametrize(
    ("text", "line", "key", "words"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_malformed_pack_names_file_line_and_key(tmp_path, text, line, key, words):
    path = write(tmp_path, "demo.yml", text)

    with pytest.raises(RulesError) as info:
        load_pack(path)

    err = info.value
    assert (err.file, err.line, err.key) == (str(path), line, key)
    assert str(err).startswith(f"{path}:{line}: {key}: ")
    assert words in str(err)


def test_python_tags_are_never_constructed(tmp_path):
    marker = tmp_path / "ran"
    text = variant("kind: argparse", f"kind: !!python/object/apply:os.system ['touch {marker}']")

    with pytest.raises(RulesError):
        parse_pack(text, "demo.yml")
    assert not marker.exists()


def test_oversized_file_is_rejected(tmp_path):
    path = write(tmp_path, "demo.yml", MINIMAL + "#" * rules.MAX_RULES_BYTES)

    with pytest.raises(RulesError, match="larger than"):
        load_pack(path)
    with pytest.raises(RulesError, match="larger than"):
        parse_pack(path.read_text(), "demo.yml")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty"),
        ("# nothing\n", "empty"),
        ("[" * 10_000 + "]" * 10_000, "1: syntax: nested deeper than 32"),
    ],
    ids=["empty", "only comments", "deep nesting"],
)
def test_unusable_documents(text, problem):
    with pytest.raises(RulesError, match=problem) as info:
        parse_pack(text, "demo.yml")
    assert str(info.value).startswith("demo.yml")


def test_missing_and_non_utf8_files(tmp_path):
    with pytest.raises(RulesError, match="cannot read"):
        load_pack(tmp_path / "absent.yml")

    path = tmp_path / "demo.yml"
    path.write_bytes(MINIMAL.encode() + b"description: \xff\n")
    with pytest.raises(RulesError, match=r"demo\.yml:10: file: not UTF-8"):
        load_pack(path)


def test_load_packs_rejects_the_same_pack_twice(tmp_path):
    one = write(tmp_path, "demo.yml", MINIMAL)
    (tmp_path / "copy").mkdir()
    two = write(tmp_path / "copy", "demo.yml", MINIMAL)

    assert [p.pack for p in load_packs([one])] == ["demo"]
    with pytest.raises(RulesError, match="also loaded from"):
        load_packs([one, two])


@pytest.fixture
def builtin_dir(tmp_path, monkeypatch):
    """A rules/ directory holding two packs, standing in for the repository's own."""
    root = tmp_path / "rules"
    root.mkdir()
    write(root, "alpha.yml", MINIMAL.replace("pack: demo", "pack: alpha"))
    write(root, "beta.yml", MINIMAL.replace("pack: demo", "pack: beta"))
    write(root, "notes.txt", "not a pack")
    monkeypatch.setattr(packfiles, "_builtin_dir", lambda: root)
    return root


def test_builtin_pack_names_of_the_repository():
    names = builtin_pack_names()

    assert isinstance(names, tuple)
    assert all(isinstance(n, str) and n for n in names)
    for name in names:
        assert builtin_pack_path(name).name == f"{name}.yml"


def test_builtin_packs_by_name(builtin_dir):
    assert builtin_pack_names() == ("alpha", "beta")
    assert builtin_pack_path("beta") == builtin_dir / "beta.yml"


@pytest.mark.parametrize("name", ["gamma", "../alpha", "notes", ""])
def test_unknown_builtin_pack_lists_known_ones(builtin_dir, name):
    with pytest.raises(RulesError, match="known packs: alpha, beta") as info:
        builtin_pack_path(name)
    assert info.value.key == "pack"
    assert repr(name) in str(info.value)


def test_no_builtin_packs_at_all(tmp_path, monkeypatch):
    monkeypatch.setattr(packfiles, "_builtin_dir", lambda: tmp_path / "missing")

    assert builtin_pack_names() == ()
    with pytest.raises(RulesError, match=r"known packs: \(none\)"):
        builtin_pack_path("miles")


def test_resolve_rule_args_takes_files_and_builtin_names(builtin_dir, tmp_path):
    path = write(tmp_path, "demo.yml", MINIMAL)

    packs = resolve_rule_args([str(path), "alpha"])

    assert [(p.pack, p.file) for p in packs] == [
        ("demo", str(path)),
        ("alpha", "rules/alpha.yml"),  # a built-in pack is named by its place in the repository
    ]
    with pytest.raises(RulesError, match="unknown built-in pack 'demo'"):
        resolve_rule_args(["demo"])
    with pytest.raises(RulesError, match="cannot read"):
        resolve_rule_args(["elsewhere/alpha.yml"])
    with pytest.raises(RulesError, match="also loaded"):
        resolve_rule_args(["alpha", "alpha"])


CONFIG = """\
packs: [alpha, beta]
rules:
  - id: local
    docs:
      - path: README.md
    sources:
      - id: cli
        kind: argparse
        path: tool/cli.py
    fail_on: error
fail_on: warning
"""


def test_repo_config_with_packs_inline_rules_and_fail_on(builtin_dir):
    packs = parse_repo_config(CONFIG)

    assert [p.pack for p in packs] == ["alpha", "beta", "docs-sync.yml"]
    assert [p.file for p in packs] == [
        "rules/alpha.yml",
        "rules/beta.yml",
        ".github/docs-sync.yml",
    ]
    inline = packs[2].rules[0]
    assert inline.id == "local"
    assert inline.sources[0] == Source(id="cli", kind="argparse", paths=("tool/cli.py",))
    # The config's fail_on wins over every rule's own, built-in and inline alike.
    assert {r.fail_on for p in packs for r in p.rules} == {"warning"}


def test_repo_config_without_fail_on_keeps_rule_settings(builtin_dir):
    packs = parse_repo_config("packs: [alpha]\n")

    assert [p.pack for p in packs] == ["alpha"]
    assert packs[0].rules[0].fail_on == "error"

    (inline,) = parse_repo_config("\n".join(CONFIG.splitlines()[1:-1]) + "\n")
    assert inline.rules[0].fail_on == "error"


@pytest.mark.parametrize(
    ("text", "line", "key", "words"),
    [
        ("packs: [alpha, gamma]\n", 1, "packs[1]", "unknown built-in pack 'gamma'; known packs: alpha, beta"),
        ("packs:\n  - alpha\n  - alpha\n", 3, "packs[1]", "already listed on line 2"),
        ("packs: [alpha]\nrule: []\n", 2, "rule", "unknown key 'rule' (did you mean 'rules'?)"),
        ("packs: [alpha]\nfail_on: sometimes\n", 2, "fail_on", "is not one of error, warning, notice, never"),
        ("fail_on: warning\n", 1, "packs", "needs 'packs' or 'rules'"),
        ("packs: alpha\n", 1, "packs", "expected a list"),
        ("rules:\n  - id: x\n    docs: []\n    sources: []\n", 3, "rules[0].docs", "empty"),
    ],
)
def test_malformed_repo_config(builtin_dir, text, line, key, words):
    with pytest.raises(RulesError) as info:
        parse_repo_config(text)

    assert str(info.value).startswith(f".github/docs-sync.yml:{line}: {key}: ")
    assert words in str(info.value)


OTHERS = """\
rules:
  - id: x
    docs: [{path: docs/a.md}]
    sources: [{id: cli, kind: argparse, path: a.py}]
    others:
      - {repo: org/sister, ref: v1.2.0, paths: ["sister/*.py"]}
      - {package: transformers}
"""


def test_a_rule_names_other_projects():
    from bot.core.rules import Other

    (pack,) = parse_repo_config(OTHERS)
    sister, package = pack.rules[0].others
    assert sister == Other(repo="org/sister", ref="v1.2.0", paths=("sister/*.py",))
    assert package == Other(package="transformers") and package.name == "package transformers"
    assert sister.origin is not None and sister.origin.line == 6


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("ref: v1.2.0", "ref: --upload-pack=x", "is not a tag, branch or commit name"),
        ("ref: v1.2.0", "ref: a..b", "is not a tag, branch or commit name"),
        ("repo: org/sister", "repo: https://example.com/x", "is not a GitHub repository"),
        ('paths: ["sister/*.py"]', 'paths: ["../sister/*.py"]', "must not contain '..'"),
        ('paths: ["sister/*.py"]', "paths: []", "must not be empty"),
        ("{package: transformers}", "{package: transformers, ref: v1}", "only means something with 'repo'"),
        ("{package: transformers}", "{package: 'a b'}", "is not a distribution name"),
    ],
)
def test_malformed_others(old, new, words):
    with pytest.raises(RulesError, match=words):
        parse_repo_config(OTHERS.replace(old, new))


def test_repo_config_does_not_require_a_pack_key():
    (pack,) = parse_repo_config("rules:" + MINIMAL.split("rules:")[1], file="cfg/docs-sync.yml")

    assert (pack.pack, pack.file) == ("docs-sync.yml", "cfg/docs-sync.yml")
    with pytest.raises(RulesError, match="unknown key 'pack'"):
        parse_repo_config(MINIMAL)


def test_a_rules_sections_bound_its_default_findings_too():
    from bot.core.check import check
    from bot.core.model import Change
    from bot.trees.memory import MemoryTree

    config = """\
rules:
  - id: scoped
    docs:
      - path: docs/tool.md
        sections: ["Tool > Flags"]
    sources: [{id: cli, kind: argparse, path: tool/cli.py}]
"""
    cli = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--alpha", type=int, default={})\n'
    page = "# Tool\n\n## Flags\n\n`--alpha` (default `1`)\n\n## History\n\n`--alpha` (default `1`)\n"
    rule = parse_repo_config(config)[0].rules[0]
    base = MemoryTree({"docs/tool.md": page, "tool/cli.py": cli.format(1)})
    head = MemoryTree({"docs/tool.md": page, "tool/cli.py": cli.format(2)})
    report = check([rule], base, head, [Change("modified", "tool/cli.py")])
    assert [(f.kind, f.doc.line) for f in report.findings] == [("changed", 5)]


def test_a_rules_file_in_the_config_format_is_accepted_as_one(tmp_path: Path):
    config = tmp_path / "docs-sync.yml"
    config.write_text(
        "packs: [miles]\nrules:\n  - id: mine\n    docs: [{path: docs/a.md}]\n"
        "    sources: [{id: p, kind: paths}]\nfail_on: warning\n"
    )
    loaded = resolve_rule_args([str(config)])
    assert [p.pack for p in loaded] == ["miles", "docs-sync.yml"]
    assert {r.fail_on for p in loaded for r in p.rules} == {"warning"}
    # A file with neither format's keys says what it expected.
    (tmp_path / "x.yml").write_text("description: nothing\n")
    with pytest.raises(RulesError) as err:
        resolve_rule_args([str(tmp_path / "x.yml")])
    assert "'pack' and 'rules' (a rule pack) or 'packs' and/or 'rules' (a repository config)" in str(
        err.value
    )


def test_origins_name_where_each_path_and_section_was_written():
    config = """\
rules:
  - id: r
    docs:
      - path: docs/a.md
        sections: ["A", "A > B"]
    sources:
      - id: cli
        kind: argparse
        paths:
          - x.py
          - "y/*.py"
"""
    (rule,) = parse_repo_config(config)[0].rules
    assert (rule.origin.line, rule.origin.key) == (2, "rules[0]")
    doc = rule.docs[0]
    assert (doc.origin.line, doc.origin.key) == (4, "rules[0].docs[0].path")
    assert [(o.line, o.key) for o in doc.section_origins] == [
        (5, "rules[0].docs[0].sections[0]"),
        (5, "rules[0].docs[0].sections[1]"),
    ]
    src = rule.sources[0]
    assert [(o.line, o.key) for o in src.origins] == [
        (10, "rules[0].sources[0].paths[0]"),
        (11, "rules[0].sources[0].paths[1]"),
    ]
    assert src.origin_of("y/*.py").line == 11
    # Origins are not part of what a rule is: the same rule written lower down is equal.
    assert parse_repo_config("\n\n" + config)[0].rules[0] == rule


def test_programs_name_the_commands_a_parser_and_a_page_are_about():
    config = """\
rules:
  - id: r
    docs:
      - {path: docs/a.md, program: lm-eval}
    sources:
      - {id: cli, kind: argparse, path: x.py, programs: [lm-eval, python -m lm_eval]}
"""
    (rule,) = parse_repo_config(config)[0].rules
    assert rule.docs[0].program == "lm-eval"
    assert rule.sources[0].programs == ("lm-eval", "python -m lm_eval")
    wrong = config.replace("kind: argparse, path: x.py,", "kind: symbols, path: x.py,")
    with pytest.raises(RulesError, match="only applies to kind argparse or dataclass-flags"):
        parse_repo_config(wrong)


def test_every_problem_of_a_file_is_reported_at_once():
    import pickle

    from bot.core.packs import parse_repo_config
    from bot.core.rules import RulesErrors

    text = (
        "rules:\n"
        "  - id: a\n"
        "    docs:\n"
        "      - {path: docs/a.md, sectons: [x]}\n"
        "    sources:\n"
        "      - {id: cli, kind: argpars, path: a.py}\n"
        "      - {id: cli2, kind: argparse, path: /abs.py}\n"
        "      - {id: cli2, kind: argparse, path: b.py}\n"
        "  - id: b\n"
        "    docs: [{path: docs/b.md}]\n"
        "    sources: [{id: s, kind: symbols, path: b.py}]\n"
        "    severity: {removd: error}\n"
        "  - id: b\n"
        "    docs: [{path: docs/c.md}]\n"
        "    sources: [{id: s, kind: paths}]\n"
    )
    with pytest.raises(RulesErrors) as caught:
        parse_repo_config(text)
    assert [(p.line, p.key) for p in caught.value.problems] == [
        (4, "rules[0].docs[0].sectons"),
        (6, "rules[0].sources[0].kind"),
        (7, "rules[0].sources[1].path"),
        (8, "rules[0].sources[2].id"),
        (12, "rules[1].severity.removd"),
        (13, "rules[2].id"),
    ]
    # As a RulesError it is the first problem, and it crosses a process boundary whole.
    assert (caught.value.line, caught.value.key) == (4, "rules[0].docs[0].sectons")
    again = pickle.loads(pickle.dumps(caught.value))
    assert isinstance(again, RulesErrors) and len(again.problems) == 6
