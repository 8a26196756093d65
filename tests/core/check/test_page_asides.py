"""What a page says about something other than the repository's flags: a flag its own snippet
declares (a conftest.py example), a flag named in an aside of a default's paragraph, and a bare
value that belongs to a setting the page documents, not to a flag it never names."""

from __future__ import annotations

from bot.core.check.doc_to_code import doc_to_code
from bot.core.check.findings import Findings
from bot.core.rules import DocTarget
from tests.core.check.checkkit import CLI, kinds, prepare, rule
from tests.core.check.test_code_to_doc import code_change
from tests.core.check.test_doc_to_code import CODE, judge

CONFTEST_PAGE = """# Skipping slow tests

```python
# content of conftest.py
def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run slow tests")
```

Run them with `--runslow`; a typo like `--sed` is still ours.
"""


def test_a_flag_the_page_s_own_snippet_declares_is_the_page_s():
    assert kinds(judge(CONFTEST_PAGE)) == [("unresolved", "--sed")]
    # Without the snippet declaring it, the same line is a flag nobody has.
    undeclared = CONFTEST_PAGE.replace('parser.addoption("--runslow"', 'parser.addoption("--fast"')
    assert kinds(judge(undeclared)) == [("unresolved", "--runslow"), ("unresolved", "--sed")]


def test_a_default_after_a_flag_named_in_an_aside_is_not_that_flag_s():
    aside = "The backend to use (only read when `--seed` is set).\nDefault: `7`.\n"
    assert judge(aside) == []
    # Named plainly in the sentence before, the flag is the claim's subject.
    plain = "Set `--seed` for the run.\nDefault: `7`.\n"
    assert kinds(judge(plain)) == [("wrong-default", "--seed")]


SETTING_PAGE = """# Output

Running `--seed 3` repeats a run.

`diff_style`: how failures are shown.

* `megatron` (the default) shows a diff.
"""


def test_a_bare_value_on_a_page_citing_flags_is_about_a_flag_the_page_cites():
    # `megatron` is one of `--backend`'s choices, but the page cites only `--seed`: the default
    # is the setting's.
    assert judge(SETTING_PAGE) == []
    cites = SETTING_PAGE.replace("Running `--seed 3`", "Running `--backend fsdp`")
    assert kinds(judge(cites)) == [("wrong-default", "--backend")]
    # Code -> doc: `--backend`'s default becoming `megatron` says nothing about the setting.
    moved = CODE.replace("default='fsdp'", "default='megatron'")
    page = SETTING_PAGE.replace("`megatron` (the default)", "`fsdp` (the default)")
    assert code_change(page, CODE, moved) == []
    assert [f.kind for f in code_change(page.replace("`--seed 3`", "`--backend fsdp`"), CODE, moved)] == [
        "changed"
    ]


def rst_findings(text: str) -> list[tuple[str, str]]:
    rule_ = rule(docs=(DocTarget("docs/cli.rst"),))
    inputs = prepare(rule_, {CLI: CODE}, {CLI: CODE, "docs/cli.rst": text})
    out = Findings(rule_)
    for p in inputs.pages:
        doc_to_code(inputs, p, out)
    return kinds(out.finish())


def test_a_flag_after_a_package_the_index_names_is_that_package_s():
    page = "Plugins\n=======\n\n* :pypi:`pytest-pep8`:\n  a ``--pep8`` option to enable PEP8 checking.\n"
    assert rst_findings(page) == []
    assert rst_findings(page.replace(":pypi:`pytest-pep8`", "``pytest-pep8``")) == [("unresolved", "--pep8")]
