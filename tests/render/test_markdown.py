from bot.core.model import Report
from bot.render.markdown import to_markdown
from tests.render.sample import PAGE, finding, page


def permalink(path, start, end):
    return f"https://github.com/o/r/blob/abc123/{path}#L{start}-L{end}"


def test_markdown_title_groups_and_links():
    report = Report(
        (
            finding("--b", line=30, replacement="  --no-keep-fp32-master \\"),
            finding("--a", line=12, severity="warning", kind="undocumented", code=None),
        ),
        rules_checked=("backend-page",),
    )
    md = to_markdown(report, doc_url=permalink)

    assert md.splitlines()[0] == "## ❌ docs-sync: failure — 1 error, 1 warning"
    header = f"### [{PAGE} › FSDP \\> 3. Precision](https://github.com/o/r/blob/abc123/{PAGE}#L12-L30)"
    assert header in md.splitlines()
    assert md.index("`--a`") < md.index("`--b`")
    assert (
        f"- 🟡 **undocumented** `--a`: renamed to --no-keep-fp32-master "
        f"([doc line 12](https://github.com/o/r/blob/abc123/{PAGE}#L12-L12))"
    ) in md
    assert "  - code: `pkg/args.py:40`" in md
    assert "Ignored" not in md


def test_markdown_suggestion_shows_the_old_line_and_the_new_one():
    report = Report((finding(line=30, replacement="  --no-keep-fp32-master \\"),))
    md = to_markdown(report, doc_text={PAGE: page(40)}.get)
    assert (
        "  <details><summary>Suggested doc change</summary>\n\n"
        "  ```diff\n"
        "  -line 30\n"
        "  +  --no-keep-fp32-master \\\n"
        "  ```\n\n"
        "  </details>"
    ) in md


def test_markdown_suggestion_without_the_page_shows_the_new_lines_only():
    md = to_markdown(Report((finding(line=30, replacement="new one\nnew two"),)))
    assert "  ```diff\n  +new one\n  +new two\n  ```" in md


def test_markdown_deletion_is_a_diff_of_removed_lines_or_says_so():
    gone = Report((finding(line=2, replacement="", span=(2, 3)),))
    md = to_markdown(gone, doc_text={PAGE: page(5)}.get)
    assert "  ```diff\n  -line 2\n  -line 3\n  ```" in md
    blind = to_markdown(gone)
    assert "  Suggested doc change: (delete the line)" in blind and "```diff" not in blind


def test_markdown_doc_lines_cannot_close_the_fence():
    md = to_markdown(Report((finding(line=1, replacement="```"),)), doc_text={PAGE: "```\n"}.get)
    assert "  ```diff\n  -```\n  +```\n  ```\n" in md


def test_markdown_without_doc_url_is_plain_text():
    md = to_markdown(Report((finding(),)))
    assert "](" not in md
    assert f"### {PAGE} › FSDP \\> 3. Precision" in md
    assert "(doc line 12)" in md


def test_markdown_clean_and_ignored():
    clean = to_markdown(Report((), rules_checked=("a", "b")))
    assert clean.startswith("## ✅ docs-sync: success — no findings\n\n2 rules checked.")

    neutral = to_markdown(
        Report((finding(blocking=False),), ignored=((finding("--y", kind="new-flag"), "see #12 *soon*"),))
    )
    assert neutral.startswith("## ⚠️ docs-sync: neutral — 1 error")
    assert "### Ignored\n\n- `--y` (new-flag): see \\#12 \\*soon\\*" in neutral


def test_markdown_escapes_code_text_but_keeps_code_spans():
    f = finding("a`b", message="field `fsdp_size` moved to <Mesh> in *dims* [x]|y")
    md = to_markdown(Report((f,)))
    assert "``a`b``" in md
    assert "field `fsdp_size` moved to \\<Mesh\\> in \\*dims\\* \\[x\\]\\|y" in md


def test_markdown_truncates_whole_findings_and_counts_the_rest():
    findings = tuple(
        finding(f"--flag-{i:03}", line=i, message="m" * 200, replacement="r" * 100) for i in range(1, 201)
    )
    doc = {PAGE: page(200)}.get
    full = to_markdown(Report(findings), doc_url=permalink, doc_text=doc, limit=10**9)
    limit = 5_000
    md = to_markdown(Report(findings), doc_url=permalink, doc_text=doc, limit=limit)

    assert len(full) > limit
    assert len(md) <= limit
    shown = sum(1 for i in range(1, 201) if f"`--flag-{i:03}`" in md)
    assert 0 < shown < 200
    # The kept findings are the first ones, each complete.
    assert all(f"`--flag-{i:03}`" in md for i in range(1, shown + 1))
    assert md.count("</details>") == shown
    assert md.rstrip().endswith(f"… and {200 - shown} more findings (see the check run annotations)")
    assert "### Ignored" not in md


def test_markdown_truncation_singular_and_exact_fit():
    findings = (finding("--a", line=1), finding("--b", line=2))
    full = to_markdown(Report(findings))
    assert to_markdown(Report(findings), limit=len(full)) == full
    one_short = to_markdown(Report(findings), limit=len(full) - 1)
    assert len(one_short) <= len(full) - 1
    assert one_short.rstrip().endswith("… and 1 more finding (see the check run annotations)")


def test_markdown_drops_the_ignored_list_first():
    ignored = tuple((finding(f"--ign-{i}", kind="new-flag"), "r" * 100) for i in range(100))
    report = Report((finding("--a"),), ignored=ignored)
    md = to_markdown(report, limit=3_000)
    assert len(md) <= 3_000
    assert "`--a`" in md
    assert "### Ignored" not in md
    assert md.rstrip().endswith("… and 100 ignored findings not listed here")
