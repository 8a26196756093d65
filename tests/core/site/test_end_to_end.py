"""The site check as users meet it: a `site:` rule read from YAML, the rule's examples, and the
command line on a git repository, where `--format patch` fixes the site and the next check is
clean."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.core.packs import parse_pack
from bot.core.rules import RulesError, SiteTarget
from bot.testing.examples import mismatches, run_example
from tests.core.site.sitekit import apply, mintlify, mkdocs

PACK = """pack: site
rules:
  - id: docs-site
    site: {config: docs/docs.json, root: docs}
    severity: {anchor: error}
    examples:
      - name: a page moved without a redirect
        files:
          docs/docs.json:
            base: '{"navigation": {"pages": ["index", "a"]}, "redirects": []}'
            head: '{"navigation": {"pages": ["index", "b"]}, "redirects": []}'
          docs/index.md: {base: "[A](/a)", head: "[B](/b)"}
          docs/a.md: {base: "# A", head: null}
          docs/b.md: {base: null, head: "# A"}
        expect:
          - {kind: redirect, symbol: /a, severity: warning}
"""


def test_a_site_rule_needs_no_docs_or_sources() -> None:
    (rule,) = parse_pack(PACK, "site.yml").rules
    assert rule.site == SiteTarget(config="docs/docs.json", root="docs")
    assert rule.docs == () and rule.sources == ()
    assert rule.severity["anchor"] == "error" and rule.severity["nav"] == "error"
    (found,) = parse_pack("pack: s\nrules:\n  - id: x\n    site: true\n", "s.yml").rules
    assert found.site == SiteTarget()


@pytest.mark.parametrize(
    ("site", "message"),
    [
        ("{config: docs/site.toml}", "must be a docs.json, mint.json or mkdocs.yml file"),
        ("{config: /docs/docs.json}", "must be relative to the repository root"),
        ("{root: ../docs}", "must not contain '..'"),
        ("{conf: docs.json}", "unknown key 'conf' (did you mean 'config'?)"),
        ("false", "expected a mapping"),
    ],
)
def test_a_bad_site_key_names_its_line(site: str, message: str) -> None:
    with pytest.raises(RulesError) as e:
        parse_pack(f"pack: s\nrules:\n  - id: x\n    site: {site}\n", "s.yml")
    assert e.value.line == 4 and message in e.value.problem


def test_a_rule_without_site_still_needs_docs_and_sources() -> None:
    with pytest.raises(RulesError) as e:
        parse_pack("pack: s\nrules:\n  - id: x\n    external: []\n", "s.yml")
    assert "required key 'docs' is missing" in e.value.problem


def test_a_site_rules_examples_run() -> None:
    (rule,) = parse_pack(PACK, "site.yml").rules
    (example,) = rule.examples
    assert mismatches(rule, example) == []
    (finding,) = run_example(rule, example).findings
    assert finding.suggestion is not None
    head = example.files["docs/docs.json"].head or ""
    assert json.loads(apply(head, finding.suggestion))["redirects"] == [{"source": "/a", "destination": "/b"}]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def write(repo: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)


def docs_sync(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args, "--no-cache"], capture_output=True, text=True
    )


@pytest.mark.parametrize("site", ["mintlify", "mkdocs"])
def test_the_patch_fixes_what_the_change_broke(tmp_path: Path, site: str) -> None:
    files = mintlify() if site == "mintlify" else mkdocs()
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    write(repo, files)
    rules = tmp_path / "site.yml"
    rules.write_text("pack: site\nrules:\n  - id: docs-site\n    site: {}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    # The change: a heading retitled, a page moved (git sees the rename) and nothing else updated.
    page = repo / "docs/guide/backends.md"
    page.write_text(page.read_text().replace("## Choosing a backend", "## Picking a backend"))
    git(repo, "mv", "docs/guide/usage.md", "docs/guide/running.md")
    git(repo, "commit", "-q", "-am", "head")

    proc = docs_sync(
        "check", "--repo", str(repo), "--base", "HEAD^", "--rules", str(rules), "--format", "json"
    )
    assert proc.returncode == 1, proc.stderr
    found = json.loads(proc.stdout)["findings"]
    assert {f["kind"] for f in found} == {"nav", "redirect", "anchor", "link"}
    assert all(f["suggestion"] for f in found if f["severity"] != "notice"), found

    patch = docs_sync(
        "check", "--repo", str(repo), "--base", "HEAD^", "--rules", str(rules), "--format", "patch"
    ).stdout
    (tmp_path / "fix.patch").write_text(patch)
    git(repo, "apply", str(tmp_path / "fix.patch"))
    config = "docs/docs.json" if site == "mintlify" else "mkdocs.yml"
    text = (repo / config).read_text()
    assert json.loads(text) if site == "mintlify" else yaml.compose(text, Loader=yaml.SafeLoader)
    git(repo, "commit", "-q", "-am", "fixed")
    again = docs_sync(
        "check", "--repo", str(repo), "--base", "HEAD~2", "--rules", str(rules), "--format", "json"
    )
    assert json.loads(again.stdout)["findings"] == [], again.stdout
