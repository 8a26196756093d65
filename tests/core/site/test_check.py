"""The docs-site check end to end, through `check` and `audit`, on the two small sites of sitekit:
each rule broken one way, in both formats, and the suggested fixes accepted."""

from __future__ import annotations

import json

from bot.core.check import check
from bot.core.rules import SiteTarget
from bot.core.site.mintlify import read as read_mintlify
from bot.core.site.mkdocs import read as read_mkdocs
from bot.trees.memory import MemoryTree
from tests.core.site.sitekit import (
    MINT_CONFIG,
    applied,
    apply,
    changes_between,
    kinds,
    mintlify,
    mkdocs,
    run_audit,
    run_check,
    site_rule,
)

MINT = "docs/docs.json"
MK = "mkdocs.yml"


def edit(files: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    assert old in files[path], (path, old)
    return {**files, path: files[path].replace(old, new, 1)}


def without(files: dict[str, str], path: str) -> dict[str, str]:
    return {p: t for p, t in files.items() if p != path}


def moved(files: dict[str, str], old: str, new: str) -> dict[str, str]:
    out = without(files, old)
    out[new] = files[old]
    return out


# --- whole sites ------------------------------------------------------------------------------


def test_whole_sites_have_no_findings() -> None:
    assert run_audit(mintlify()) == []
    assert run_audit(mkdocs()) == []


def test_a_change_that_keeps_the_site_whole_has_no_findings() -> None:
    for files, page in ((mintlify(), "docs/guide/usage.md"), (mkdocs(), "docs/guide/usage.md")):
        head = edit(files, page, "## Running a job", "## Running a job\n\nMore words.")
        assert run_check(files, head) == []


def test_a_change_outside_the_docs_is_not_checked() -> None:
    base = {**mintlify(), "src/app.py": "x = 1\n"}
    head = {
        **base,
        "src/app.py": "x = 2\n",
        "docs/guide/usage.md": "# Usage\n\n## Running a job\n\n[gone](/nowhere)\n",
    }
    assert run_check(base, {**base, "src/app.py": "x = 2\n"}) == []
    assert kinds(run_check(base, head)) == [("link", "error", "/nowhere")]


# --- navigation -------------------------------------------------------------------------------


def test_a_page_renamed_by_the_change_is_reported_on_its_nav_entry_with_the_new_path() -> None:
    base = mintlify()
    head = moved(base, "docs/guide/fees.md", "docs/guide/billing.md")
    head = edit(head, "docs/guide/usage.md", "/guide/fees#", "/guide/billing#")
    renames = {"docs/guide/fees.md": "docs/guide/billing.md"}
    findings = [f for f in run_check(base, head, renames) if f.kind == "nav"]
    assert kinds(findings) == [("nav", "error", "guide/fees")]
    f = findings[0]
    assert (
        f.doc is not None
        and f.doc.path == MINT
        and f.doc.line == MINT_CONFIG.split("\n").index('                  "guide/fees"') + 1
    )
    assert "moved the page to docs/guide/billing.md" in f.message
    assert f.suggestion is not None and f.suggestion.replacement == '                  "guide/billing"'
    fixed = applied(head, findings)["nav:guide/fees"]
    assert [e.target for e in read_mintlify(fixed, MINT).nav or ()][-1] == "guide/billing"


def test_a_page_deleted_by_the_change_is_reported_on_its_nav_entry_and_the_entry_can_go() -> None:
    base = mintlify()
    head = without(base, "docs/guide/fees.md")
    head = edit(head, "docs/guide/usage.md", "Fees are covered in [billing](/guide/fees#fees-&-billing).", "")
    findings = [f for f in run_check(base, head) if f.kind == "nav"]
    assert kinds(findings) == [("nav", "error", "guide/fees")]
    assert "deleted the page" in findings[0].message
    fixed = applied(head, findings)["nav:guide/fees"]  # the last of its list: the comma before it goes
    assert "guide/fees" not in fixed
    assert '"guide/backends"\n' in fixed


def test_mkdocs_nav_entries_resolve_to_files_and_a_rename_is_suggested() -> None:
    base = mkdocs()
    head = moved(base, "docs/guide/backends.md", "docs/guide/engines.md")
    head = edit(head, "docs/guide/usage.md", "(backends.md#fsdp)", "(engines.md#fsdp)")
    head = edit(head, "docs/guide/install.md", "[b]: backends.md", "[b]: engines.md")
    head = edit(head, MK, "'guide/backends.md#fsdp'", "'guide/engines.md#fsdp'")
    findings = run_check(base, head, {"docs/guide/backends.md": "docs/guide/engines.md"})
    # and its old URL left without a redirect
    assert kinds(findings) == [
        ("nav", "error", "guide/backends.md"),
        ("redirect", "warning", "guide/backends.md"),
    ]
    assert findings[0].suggestion is not None
    assert findings[0].suggestion.replacement == "      - guide/engines.md"
    fixed = applied(head, findings)["nav:guide/backends.md"]
    assert "guide/engines.md" in [e.target for e in read_mkdocs(fixed, MK).nav or ()]


def test_audit_reports_a_nav_entry_to_nowhere_with_the_nearest_page() -> None:
    files = edit(mintlify(), MINT, '"guide/install",', '"guide/instal",')
    findings = run_audit(files)
    assert kinds(findings) == [("nav", "error", "guide/instal")]
    assert findings[0].suggestion is not None and '"guide/install",' in findings[0].suggestion.replacement
    applied(files, findings)


def test_pages_no_nav_entry_reaches_are_a_notice_in_audit() -> None:
    files = {**mintlify(), "docs/guide/hidden.mdx": "# Hidden\n", "docs/snippets/note.mdx": "A snippet.\n"}
    assert kinds(run_audit(files)) == [("nav", "notice", "docs/guide/hidden.mdx")]
    files = {**mkdocs(), "docs/guide/hidden.md": "# Hidden\n", "docs/drafts/x.md": "# Draft\n"}
    config = files[MK] + "not_in_nav: |\n  /drafts/\n"
    assert kinds(run_audit({**files, MK: config})) == [("nav", "notice", "docs/guide/hidden.md")]


def test_a_mkdocs_site_without_nav_lists_every_page() -> None:
    files = mkdocs()
    config = files[MK].split("nav:")[0] + "plugins:" + files[MK].split("plugins:")[1]
    assert run_audit({**files, MK: config, "docs/guide/extra.md": "# Extra\n"}) == []


# --- redirects --------------------------------------------------------------------------------


def test_a_redirect_to_nowhere_is_an_error_with_the_moved_page_suggested() -> None:
    base = mintlify()
    head = moved(base, "docs/guide/install.mdx", "docs/guide/setup.mdx")
    head = edit(head, MINT, '"guide/install",', '"guide/setup",')
    head = edit(head, "docs/index.mdx", "(/guide/install)", "(/guide/setup)")
    head = edit(head, MINT, '"/guide/install"', '"/guide/install"')  # the redirect still points there
    findings = run_check(base, head, {"docs/guide/install.mdx": "docs/guide/setup.mdx"})
    assert kinds(findings) == [("redirect", "warning", "/guide/install"), ("redirect", "error", "/old/setup")]
    f = findings[1]
    assert (
        "goes to `/guide/install`, which reaches no page: the change moved it to docs/guide/setup.mdx"
        in f.message
    )
    assert f.suggestion is not None and f.suggestion.replacement.strip() == '"destination": "/guide/setup",'
    applied(head, [f])


def test_a_moved_page_without_a_redirect_gets_one_in_the_files_style() -> None:
    base = mintlify()
    head = moved(base, "docs/guide/install.mdx", "docs/guide/setup.mdx")
    head = edit(head, MINT, '"guide/install",', '"guide/setup",')
    head = edit(head, "docs/index.mdx", "(/guide/install)", "(/guide/setup)")
    head = edit(head, MINT, '"destination": "/guide/install"', '"destination": "/guide/setup"')
    findings = run_check(base, head, {"docs/guide/install.mdx": "docs/guide/setup.mdx"})
    assert kinds(findings) == [("redirect", "warning", "/guide/install")]
    f = findings[0]
    assert "moved docs/guide/install.mdx to docs/guide/setup.mdx" in f.message
    assert f.suggestion is not None
    assert f.suggestion.replacement == (
        '  "redirects": [\n'
        "    {\n"
        '      "source": "/guide/install",\n'
        '      "destination": "/guide/setup",\n'
        '      "permanent": true\n'
        "    },"
    )
    fixed = json.loads(applied(head, findings)["redirect:/guide/install"])
    assert fixed["redirects"][0] == {
        "source": "/guide/install",
        "destination": "/guide/setup",
        "permanent": True,
    }


def test_a_deleted_page_gets_a_redirect_to_where_the_change_repointed_its_links() -> None:
    base = mintlify()
    head = without(base, "docs/guide/fees.md")
    head = edit(head, MINT, ',\n                  "guide/fees"', "")
    head = edit(
        head,
        "docs/guide/usage.md",
        "[billing](/guide/fees#fees-&-billing)",
        "[billing](/guide/backends#fsdp)",
    )
    findings = run_check(base, head)
    assert kinds(findings) == [("redirect", "warning", "/guide/fees")]
    assert "repointed its links" in findings[0].message
    fixed = json.loads(applied(head, findings)["redirect:/guide/fees"])
    assert {"source": "/guide/fees", "destination": "/guide/backends#fsdp", "permanent": True} in fixed[
        "redirects"
    ]


def test_several_pages_moved_share_one_suggestion_adding_every_redirect() -> None:
    base = mkdocs()
    head = moved(base, "docs/guide/install.md", "docs/start/install.md")
    head = moved(head, "docs/guide/usage.md", "docs/start/usage.md")
    for old, new in (("guide/install.md", "start/install.md"), ("guide/usage.md", "start/usage.md")):
        head = {p: t.replace(old, new) for p, t in head.items()}
    head = edit(head, "docs/start/usage.md", "(backends.md#fsdp)", "(../guide/backends.md#fsdp)")
    head = edit(head, "docs/start/install.md", "[b]: backends.md", "[b]: ../guide/backends.md")
    renames = {"docs/guide/install.md": "docs/start/install.md", "docs/guide/usage.md": "docs/start/usage.md"}
    findings = run_check(base, head, renames)
    assert kinds(findings) == [
        ("redirect", "warning", "guide/install.md"),
        ("redirect", "warning", "guide/usage.md"),
    ]
    assert findings[0].suggestion == findings[1].suggestion
    fixed = read_mkdocs(applied(head, findings[:1])["redirect:guide/install.md"], MK)
    maps = {r.source: r.destination for r in fixed.redirects}
    assert maps["guide/install.md"] == "start/install.md" and maps["guide/usage.md"] == "start/usage.md"
    assert "        'guide/usage.md': 'start/usage.md'" in findings[0].suggestion.replacement  # type: ignore[union-attr]


def test_a_mintlify_file_without_redirects_gets_the_key() -> None:
    config = MINT_CONFIG.split(',\n  "redirects"')[0] + "\n}\n"
    base = {**mintlify(), MINT: config}
    head = without(base, "docs/guide/fees.md")
    head = edit(head, MINT, ',\n                  "guide/fees"', "")
    head = edit(head, "docs/guide/usage.md", "Fees are covered in [billing](/guide/fees#fees-&-billing).", "")
    findings = run_check(base, head)
    assert kinds(findings) == [("redirect", "warning", "/guide/fees")]
    fixed = json.loads(applied(head, findings)["redirect:/guide/fees"])
    assert fixed["redirects"] == [{"source": "/guide/fees", "destination": "/"}]


def test_a_redirect_whose_source_is_a_live_page_is_stale() -> None:
    base = mintlify()
    head = {**base, "docs/old/setup.mdx": "# Setup, restored\n"}
    findings = run_check(base, head)
    assert ("redirect", "warning", "/old/setup") in kinds(findings)
    f = next(f for f in findings if f.symbol == "/old/setup")
    assert f.suggestion is not None and f.suggestion.replacement == ""
    fixed = json.loads(applied(head, [f])["redirect:/old/setup"])
    assert [r["source"] for r in fixed["redirects"]] == ["/old/backend"]
    # The last entry of its list: the comma of the one before goes with it.
    last = edit(mintlify(), "docs/guide/usage.md", "# Usage", "# Usage")
    files = {**last, "docs/old/backend.md": "# Backend\n"}
    g = next(f for f in run_audit(files) if f.symbol == "/old/backend")
    assert json.loads(apply(files[MINT], g.suggestion))["redirects"][-1]["source"] == "/old/setup"  # type: ignore[arg-type]


def test_mkdocs_redirect_from_a_live_page() -> None:
    files = {**mkdocs(), "docs/old/setup.md": "# Setup\n"}
    findings = [f for f in run_audit(files) if f.kind == "redirect"]
    assert kinds(findings) == [("redirect", "warning", "old/setup.md")]
    fixed = read_mkdocs(applied(files, findings)["redirect:old/setup.md"], MK)
    assert [r.source for r in fixed.redirects] == ["old/backend.md"]


def test_redirect_chains_and_loops() -> None:
    files = edit(
        mintlify(),
        MINT,
        '  "redirects": [\n',
        '  "redirects": [\n'
        '    {"source": "/a", "destination": "/old/setup", "permanent": true},\n'
        '    {"source": "/b", "destination": "/c", "permanent": true},\n'
        '    {"source": "/c", "destination": "/b", "permanent": true},\n',
    )
    findings = run_audit(files)
    assert kinds(findings) == [
        ("redirect", "warning", "/a"),
        ("redirect", "error", "/b"),
        ("redirect", "error", "/c"),
    ]
    chain, loop, _ = findings
    assert "redirect chain of 2 hops: /a -> /old/setup -> /guide/install" in chain.message
    assert chain.suggestion is not None
    assert (
        chain.suggestion.replacement
        == '    {"source": "/a", "destination": "/guide/install", "permanent": true},'
    )
    assert "redirect loop: /b -> /c -> /b" in loop.message
    applied(files, findings)


def test_mkdocs_redirect_to_a_missing_page_and_a_missing_anchor() -> None:
    files = edit(mkdocs(), MK, "'guide/install.md'", "'guide/instal.md'")
    files = edit(files, MK, "'guide/backends.md#fsdp'", "'guide/backends.md#fdsp'")
    findings = run_audit(files)
    assert kinds(findings) == [
        ("redirect", "error", "old/setup.md"),
        ("anchor", "warning", "guide/backends.md#fdsp"),
    ]
    fixed = read_mkdocs(applied(files, findings)["anchor:guide/backends.md#fdsp"], MK)
    assert "guide/backends.md#fsdp" in [r.destination for r in fixed.redirects]


def test_a_redirect_anchor_resolves_in_either_slug_style() -> None:
    # `fees-&-billing` is Mintlify's slug of "Fees & billing", `fees--billing` GitHub's.
    for anchor in ("fees-&-billing", "fees--billing", "fees-%26-billing"):
        files = edit(mintlify(), MINT, '"/guide/backends#fsdp"', f'"/guide/fees#{anchor}"')
        assert run_audit(files) == [], anchor
    files = edit(mintlify(), MINT, '"/guide/backends#fsdp"', '"/guide/fees#fees-and-billing"')
    assert kinds(run_audit(files)) == [("anchor", "warning", "/guide/fees#fees-and-billing")]


def test_a_redirect_added_without_permanent_is_a_notice_with_the_fixed_entry() -> None:
    base = mintlify()
    head = edit(
        base,
        MINT,
        '  "redirects": [\n',
        '  "redirects": [\n'
        '    {\n      "source": "/old/usage",\n      "destination": "/guide/usage"\n    },\n',
    )
    findings = run_check(base, head)
    assert kinds(findings) == [("redirect", "notice", "/old/usage")]
    f = findings[0]
    assert f.suggestion is not None
    assert f.suggestion.replacement == '      "destination": "/guide/usage",\n      "permanent": true'
    fixed = json.loads(applied(head, findings)["redirect:/old/usage"])
    assert fixed["redirects"][0]["permanent"] is True


def test_the_reverse_a_redirect_added_with_permanent_while_the_others_leave_it_out() -> None:
    base = edit(mintlify(), MINT, ',\n      "permanent": true', "")
    base = edit(base, MINT, ',\n      "permanent": true', "")
    head = edit(
        base,
        MINT,
        '  "redirects": [\n',
        '  "redirects": [\n    {\n      "source": "/old/usage",\n      "destination": "/guide/usage",\n'
        '      "permanent": true\n    },\n',
    )
    findings = run_check(base, head)
    assert kinds(findings) == [("redirect", "notice", "/old/usage")]
    fixed = json.loads(applied(head, findings)["redirect:/old/usage"])
    assert fixed["redirects"][0] == {"source": "/old/usage", "destination": "/guide/usage"}


# --- links and anchors ------------------------------------------------------------------------


def test_every_kind_of_internal_link_is_checked() -> None:
    files = mintlify()
    files = edit(files, "docs/index.mdx", "(/guide/install)", "(/guide/instal)")  # site-absolute
    files = edit(files, "docs/guide/install.mdx", "(./usage.mdx)", "(./usages.mdx)")  # relative
    files = edit(
        files, "docs/guide/install.mdx", "[b]: /guide/backends#choosing", "[b]: /guide/backend#choosing"
    )
    files = edit(files, "docs/guide/usage.md", 'href="/guide/backends#fsdp"', 'href="/guide/backends#fdsp"')
    files = edit(files, "docs/guide/fees.md", "(backends#choosing-a-backend)", "(backends#choosing)")
    findings = run_audit(files)
    assert kinds(findings) == [
        ("anchor", "warning", "backends#choosing"),  # docs/guide/fees.md
        ("link", "error", "./usages.mdx"),  # docs/guide/install.mdx
        ("link", "error", "/guide/backend#choosing-a-backend"),
        ("anchor", "warning", "/guide/backends#fdsp"),  # docs/guide/usage.md
        ("link", "error", "/guide/instal"),  # docs/index.mdx
    ]
    # Near matches are suggested, written the way the link was.
    suggested = {f.symbol: f.suggestion.replacement for f in findings if f.suggestion}
    assert suggested["/guide/backend#choosing-a-backend"] == "[b]: /guide/backends#choosing-a-backend"
    assert 'href="/guide/backends#fsdp"' in suggested["/guide/backends#fdsp"]
    assert "[installing](/guide/install)" in suggested["/guide/instal"]


def test_links_in_code_and_comments_and_to_files_and_outside_the_root() -> None:
    files = edit(
        mintlify(),
        "docs/guide/backends.md",
        "### Megatron\n",
        "### Megatron\n\n`[not](/a-link)` <!-- [nor](/this) -->\n\n![logo](/assets/logo.png) "
        "[code](../../src/app.py) [site](https://example.com/x) [mail](mailto:a@b.c)\n",
    )
    files["src/app.py"] = "x = 1\n"
    assert run_audit(files) == []
    files = edit(files, "docs/guide/backends.md", "/assets/logo.png", "/assets/logo.svg")
    files = edit(files, "docs/guide/backends.md", "../../src/app.py", "../../src/gone.py")
    assert sorted(kinds(run_audit(files))) == [
        ("link", "error", "../../src/gone.py"),
        ("link", "error", "/assets/logo.svg"),
    ]


def test_a_link_to_an_unpublished_page_is_broken() -> None:
    files = edit(mintlify(), "docs/guide/fees.md", "# Fees", "# Fees\n\n[preview](/README)")
    assert kinds(run_audit(files)) == [("link", "error", "/README")]


def test_a_link_to_a_redirected_url_reaches_its_page_under_mintlify() -> None:
    files = edit(mintlify(), "docs/guide/fees.md", "# Fees", "# Fees\n\n[old](/old/setup)")
    assert run_audit(files) == []


def test_a_heading_renamed_by_the_change_breaks_links_in_other_pages_each_with_the_new_anchor() -> None:
    base = mintlify()
    head = edit(base, "docs/guide/backends.md", "## Choosing a backend", "## Picking a backend")
    findings = run_check(base, head)
    assert kinds(findings) == [
        ("anchor", "warning", "backends#choosing-a-backend"),
        ("anchor", "warning", "/guide/backends#choosing-a-backend"),
    ]
    assert [f.doc.path for f in findings if f.doc] == ["docs/guide/fees.md", "docs/guide/install.mdx"]
    for f in findings:
        assert "retitled the heading to “Picking a backend”" in f.message
        assert f.suggestion is not None and "#picking-a-backend" in f.suggestion.replacement
    assert findings[1].suggestion is not None
    assert findings[1].suggestion.replacement == "[b]: /guide/backends#picking-a-backend"


def test_a_renamed_heading_in_mkdocs_keeps_the_toc_slug_style() -> None:
    base = mkdocs()
    head = edit(base, "docs/guide/backends.md", "### FSDP", "### FSDP - fully sharded")
    findings = run_check(base, head)
    assert kinds(findings) == [
        ("anchor", "warning", "backends.md#fsdp"),
        ("anchor", "warning", "guide/backends.md#fsdp"),
    ]
    page, config = findings
    assert page.suggestion is not None and "(backends.md#fsdp-fully-sharded)" in page.suggestion.replacement
    assert config.doc is not None and config.doc.path == MK
    fixed = read_mkdocs(applied(head, [config])["anchor:guide/backends.md#fsdp"], MK)
    assert "guide/backends.md#fsdp-fully-sharded" in [r.destination for r in fixed.redirects]


def test_mkdocs_anchors_use_python_markdowns_slugs() -> None:
    # "Megatron - the default" is `megatron-the-default` for MkDocs, `megatron---the-default` on GitHub.
    files = edit(mkdocs(), "docs/guide/backends.md", "(#megatron-the-default)", "(#megatron---the-default)")
    assert kinds(run_audit(files)) == [("anchor", "warning", "#megatron---the-default")]


def test_the_change_is_blamed_only_for_what_it_broke() -> None:
    base = edit(mintlify(), "docs/guide/fees.md", "# Fees", "# Fees\n\n[dead](/long-gone)")
    head = edit(base, "docs/guide/fees.md", "See [choosing]", "See [gone](/also-gone) and [choosing]")
    assert kinds(run_check(base, head)) == [("link", "error", "/also-gone")]
    assert kinds(run_audit(head)) == [("link", "error", "/long-gone"), ("link", "error", "/also-gone")]


def test_a_page_moved_without_git_seeing_it_keeps_its_old_problems_out_of_the_check() -> None:
    base = edit(mintlify(), "docs/guide/fees.md", "# Fees", "# Fees\n\n[dead](/long-gone)")
    head = moved(base, "docs/guide/fees.md", "docs/guide/billing.md")
    head = edit(head, MINT, '"guide/fees"', '"guide/billing"')
    head = edit(head, "docs/guide/usage.md", "/guide/fees#", "/guide/billing#")
    head = edit(head, "docs/guide/billing.md", "# Fees\n", "# Billing and fees\n")
    head = edit(head, "docs/guide/billing.md", "/guide/fees#fees--billing", "/guide/billing#fees--billing")
    assert kinds(run_check(base, head)) == [("redirect", "warning", "/guide/fees")]


def test_a_link_broken_by_a_page_the_change_moved_suggests_the_new_url() -> None:
    base = mintlify()
    head = moved(base, "docs/guide/backends.md", "docs/guide/engines.md")
    head = edit(head, MINT, '"guide/backends",', '"guide/engines",')
    head = edit(head, MINT, '"/guide/backends#fsdp"', '"/guide/engines#fsdp"')
    findings = run_check(base, head, {"docs/guide/backends.md": "docs/guide/engines.md"})
    links = [f for f in findings if f.kind == "link"]
    assert [(f.doc.path, f.symbol) for f in links if f.doc] == [
        ("docs/guide/fees.md", "backends#choosing-a-backend"),
        ("docs/guide/install.mdx", "/guide/backends#choosing-a-backend"),
        ("docs/guide/usage.md", "/guide/backends#fsdp"),
    ]
    assert all("moved docs/guide/backends.md to docs/guide/engines.md" in f.message for f in links)
    replaced = [f.suggestion.replacement for f in links if f.suggestion]
    assert "(engines#choosing-a-backend)" in replaced[0]
    assert replaced[1] == "[b]: /guide/engines#choosing-a-backend"
    assert 'href="/guide/engines#fsdp"' in replaced[2]


# --- configuration, severities, failures ------------------------------------------------------


def test_a_config_that_does_not_parse_is_reported_once_the_change_touches_it() -> None:
    base = mintlify()
    head = edit(base, MINT, '"name": "Forge",', '"name": "Forge"')
    findings = run_check(base, head)
    assert kinds(findings) == [("parse-error", "error", MINT)]
    assert findings[0].doc is not None and findings[0].doc.line == 4
    # A config already broken, untouched by the change: nothing new to say.
    assert run_check(head, edit(head, "docs/guide/usage.md", "# Usage", "# Usage!")) == []
    bad = edit(mkdocs(), MK, "nav:\n", "nav: [\n")
    assert kinds(run_audit(bad)) == [("parse-error", "error", MK)]


def test_the_rule_names_the_config_and_root() -> None:
    files = {f"site/{p}": t for p, t in mintlify().items()}
    # Not in a usual place: the rule checks nothing, and says so, in audit and in every check.
    (found,) = run_audit(files)
    assert (found.kind, found.severity, found.doc) == ("parse-error", "error", None)
    assert "no docs.json, mint.json or mkdocs.yml is at the root or in docs/" in found.message
    assert kinds(run_check(files, {**files, "README.md": "x"})) == [("parse-error", "error", "site")]
    rule = site_rule(SiteTarget(config="site/docs/docs.json"))
    assert run_audit(files, rule) == []
    broken = edit(files, "site/docs/guide/fees.md", "See [choosing]", "See [x](/nowhere) [choosing]")
    found = run_audit(broken, rule)
    assert kinds(found) == [("link", "error", "/nowhere")]
    assert found[0].doc is not None and found[0].doc.path == "site/docs/guide/fees.md"
    moved_root = {p.replace("mkdocs.yml", "conf/mkdocs.yml"): t for p, t in mkdocs().items()}
    rule = site_rule(SiteTarget(config="conf/mkdocs.yml", root="docs"))
    assert run_audit(moved_root, rule) == []
    (missing,) = run_audit(mkdocs(), rule)
    assert (
        missing.message
        == "rule site checks a docs site, but conf/mkdocs.yml, which the rule names, does not exist"
    )


def test_the_rules_severity_applies_and_advice_stays_capped() -> None:
    files = {
        **edit(mintlify(), "docs/guide/fees.md", "# Fees", "# Fees\n\n[x](/nowhere)"),
        "docs/h.md": "# H\n",
    }
    rule = site_rule(severity={"link": "warning", "nav": "error"})
    found = run_audit(files, rule)
    assert kinds(found) == [("link", "warning", "/nowhere"), ("nav", "notice", "docs/h.md")]
    assert not any(f.blocking for f in found)


def test_suggested_config_edits_keep_every_file_valid() -> None:
    # Every config suggestion of this module's scenarios parses after it is applied (applied()
    # asserts it); here the odd shapes: a one-line entry and an empty list.
    files = edit(
        mintlify(),
        MINT,
        '  "redirects": [\n',
        '  "redirects": [\n    {"source": "/x", "destination": "/guide/usage"},\n',
    )
    findings = [f for f in run_audit(files) if f.symbol == "/x"]
    assert findings and findings[0].suggestion is not None
    assert (
        findings[0].suggestion.replacement
        == '    {"source": "/x", "destination": "/guide/usage", "permanent": true},'
    )
    applied(files, findings)
    empty = edit(
        mintlify(), MINT, MINT_CONFIG[MINT_CONFIG.index('  "redirects"') :], '  "redirects": []\n}\n'
    )
    head = without(empty, "docs/guide/fees.md")
    head = edit(head, MINT, ',\n                  "guide/fees"', "")
    head = edit(head, "docs/guide/usage.md", "Fees are covered in [billing](/guide/fees#fees-&-billing).", "")
    findings = run_check(empty, head)
    assert kinds(findings) == [("redirect", "warning", "/guide/fees")]
    assert json.loads(applied(head, findings)["redirect:/guide/fees"])["redirects"] == [
        {"source": "/guide/fees", "destination": "/"}
    ]


def test_a_nav_entry_is_only_suggested_away_when_the_file_stays_valid() -> None:
    base = edit(mkdocs(), MK, "  - Home: index.md\n", "  - Home: index.md\n  - Extra:\n      - extra.md\n")
    base["docs/extra.md"] = "# Extra\n"
    head = without(base, "docs/extra.md")
    (nav, _) = run_check(base, head)  # and a missing redirect
    assert (nav.kind, nav.symbol) == ("nav", "extra.md")
    assert nav.suggestion is None  # deleting the line would leave `Extra:` empty, which MkDocs refuses
    head = without(mkdocs(), "docs/guide/usage.md")
    head = edit(head, "docs/index.md", ", then [use it](guide/usage.md#running-a-job)", "")
    head = edit(head, "docs/guide/install.md", "Read [Usage](usage.md) and", "Read")
    findings = run_check(mkdocs(), head)
    assert kinds(findings) == [("nav", "error", "guide/usage.md"), ("redirect", "warning", "guide/usage.md")]
    fixed = read_mkdocs(applied(head, findings)["nav:guide/usage.md"], MK)
    assert [e.target for e in fixed.nav or ()] == ["index.md", "guide/install.md", "guide/backends.md"]


class CountingTree(MemoryTree):
    """A revision that remembers which files were read."""

    def __init__(self, files: dict[str, str]):
        super().__init__(files)
        self.reads: set[str] = set()

    def read(self, path: str) -> str | None:
        self.reads.add(path)
        return super().read(path)


def test_a_change_to_one_pages_text_reads_only_that_page() -> None:
    base = mintlify()
    head = edit(base, "docs/guide/usage.md", "## Running a job", "## Running a job\n\n[new](/nowhere)")
    trees = CountingTree(base), CountingTree(head)
    report = check([site_rule()], *trees, changes_between(base, head))
    assert kinds(list(report.findings)) == [("link", "error", "/nowhere")]
    pages = {p for t in trees for p in t.reads if p.endswith((".md", ".mdx"))}
    assert pages == {"docs/guide/usage.md", "docs/guide/backends.md", "docs/guide/fees.md"}  # + its targets
    # A heading taken away can break a link anywhere: every page is read.
    head = edit(base, "docs/guide/backends.md", "### FSDP", "### Sharded")
    trees = CountingTree(base), CountingTree(head)
    report = check([site_rule()], *trees, changes_between(base, head))
    assert [f.symbol for f in report.findings] == ["/guide/backends#fsdp", "/guide/backends#fsdp"]
    assert {p for p in trees[1].reads if p.endswith((".md", ".mdx"))} == {
        p for p in head if p.endswith((".md", ".mdx")) and p != "docs/README.md"
    }


def test_config_split_with_ref_files_is_checked_and_edited_where_each_entry_is_written() -> None:
    base = mintlify()
    config = json.loads(MINT_CONFIG)
    base["docs/nav.json"] = json.dumps(config["navigation"], indent=2) + "\n"
    base["docs/redirects.json"] = json.dumps(config["redirects"], indent=2) + "\n"
    config["navigation"] = {"$ref": "nav.json"}
    config["redirects"] = {"$ref": "./redirects.json"}
    base[MINT] = json.dumps(config, indent=2) + "\n"
    assert run_audit(base) == []
    head = moved(base, "docs/guide/fees.md", "docs/guide/billing.md")
    head = edit(head, "docs/guide/usage.md", "/guide/fees#", "/guide/billing#")
    head = edit(head, "docs/guide/billing.md", "/guide/fees#", "/guide/billing#")
    findings = run_check(base, head, {"docs/guide/fees.md": "docs/guide/billing.md"})
    assert kinds(findings) == [("nav", "error", "guide/fees"), ("redirect", "warning", "/guide/fees")]
    nav, redirect = findings
    assert nav.doc is not None and nav.doc.path == "docs/nav.json"
    assert redirect.suggestion is not None and redirect.suggestion.path == "docs/redirects.json"
    assert redirect.suggestion.start_line == 1
    fixed = json.loads(apply(head["docs/redirects.json"], redirect.suggestion))
    assert fixed[0] == {"source": "/guide/fees", "destination": "/guide/billing", "permanent": True}
    assert json.loads(apply(head["docs/nav.json"], nav.suggestion))  # type: ignore[arg-type]
    # A change to a `$ref` file is a change to the config.
    head = edit(base, "docs/nav.json", '"guide/usage",', '"guide/usag",')
    assert kinds(run_check(base, head)) == [("nav", "error", "guide/usag")]


def test_a_mintlify_page_has_the_anchors_of_the_snippets_it_shows() -> None:
    files = {
        **mintlify(),
        "docs/snippets/setup.mdx": "## GitLab setup\n\nConnect the account.\n",
        "docs/guide/backends.md": "import Setup from '/snippets/setup.mdx';\n\n# Backends\n\n<Setup />\n\n"
        "## Choosing a backend\n\n### FSDP\n\n[setup](#gitlab-setup)\n",
    }
    assert run_audit(files) == []
    shown_nowhere = edit(files, "docs/guide/backends.md", "<Setup />", "")
    assert kinds(run_audit(shown_nowhere)) == [("anchor", "warning", "#gitlab-setup")]
