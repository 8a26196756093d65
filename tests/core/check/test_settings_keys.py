"""A module's dict of settings' defaults against a Sphinx settings page (`.. data:: NAME = value`,
or the default said in its description): a key the change removed, renamed or gave another
default is reported where the page documents it."""

from __future__ import annotations

from bot.core.check import check
from bot.core.extract import extract
from bot.core.model import Finding
from bot.core.rules import DEFAULT_SEVERITY, DocTarget, Rule, Source
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import changes_between

CODE = "blog/settings.py"
DOC = "docs/settings.rst"

SETTINGS = """import os

THEME_DIR = os.path.join(os.path.dirname(__file__), "themes")
DEFAULT_CONFIG = {
    'PATH': os.curdir,
    'THEME': THEME_DIR,
    'DEFAULT_CATEGORY': 'misc',
    'SUMMARY_MAX_LENGTH': 50,
    'STATIC_CREATE_LINKS': False,
    'DIRECT_TEMPLATES': ['index', 'tags'],
}
READERS = {'md': 'MarkdownReader', 'rst': 'RstReader', 'html': 'HTMLReader'}
"""

PAGE = """Settings
########

.. data:: DEFAULT_CATEGORY = 'misc'

   The default category to fall back on.

.. data:: SUMMARY_MAX_LENGTH

   How many words a summary keeps. The default is ``50``.

.. data:: STATIC_CREATE_LINKS

   Create links instead of copying files; add the ``-L`` option to rsync.
   Defaults to ``False``.

.. data:: DIRECT_TEMPLATES = ['index', 'tags']

   The templates rendered on their own.

.. data:: PATH

   Where the content is; not the shell's ``PATH``.
"""

RULE = Rule(
    id="settings",
    docs=(DocTarget(DOC),),
    sources=(Source(id="defaults", kind="settings", paths=(CODE,)),),
    severity=dict(DEFAULT_SEVERITY),
)
BASE = {CODE: SETTINGS, DOC: PAGE}


def run(head: dict[str, str]) -> list[tuple[str, str, int | None, str | None]]:
    found: list[Finding] = list(
        check([RULE], MemoryTree(BASE), MemoryTree(head), changes_between(BASE, head)).findings
    )
    return [
        (f.kind, f.symbol, f.doc.line if f.doc else None, f.suggestion.replacement if f.suggestion else None)
        for f in found
    ]


def test_the_capitalised_keys_of_a_dict_are_settings_with_their_constant_defaults() -> None:
    facts = {
        f.token: f.attr("default")
        for f in extract(Source(id="d", kind="settings", paths=(CODE,)), CODE, SETTINGS).facts
    }
    # a computed value is known by name only; `READERS` maps lowercase names: a lookup table
    assert facts == {
        "PATH": None,
        "THEME": None,
        "DEFAULT_CATEGORY": "misc",
        "SUMMARY_MAX_LENGTH": "50",
        "STATIC_CREATE_LINKS": "False",
        "DIRECT_TEMPLATES": "['index', 'tags']",
    }
    # one key in another style does not unmake the settings
    mixed = SETTINGS.replace("'PATH'", "'path_hook'")
    tokens = [f.token for f in extract(Source(id="d", kind="settings", paths=(CODE,)), CODE, mixed).facts]
    assert "path_hook" in tokens and "DEFAULT_CATEGORY" in tokens


def test_a_changed_default_is_reported_on_the_directive_or_the_sentence_saying_it() -> None:
    head = {
        **BASE,
        CODE: SETTINGS.replace("'misc'", "'general'").replace("50,", "70,").replace(": False", ": True"),
    }
    assert run(head) == [
        ("changed", "DEFAULT_CATEGORY", 4, ".. data:: DEFAULT_CATEGORY = 'general'"),
        ("changed", "SUMMARY_MAX_LENGTH", 10, "   How many words a summary keeps. The default is ``70``."),
        ("changed", "STATIC_CREATE_LINKS", 15, "   Defaults to ``True``."),
    ]


def test_a_removed_or_renamed_key_is_reported_where_the_page_documents_it() -> None:
    head = {
        **BASE,
        CODE: SETTINGS.replace("    'DIRECT_TEMPLATES': ['index', 'tags'],\n", "").replace(
            "'SUMMARY_MAX_LENGTH'", "'SUMMARY_MAX_WORDS'"
        ),
    }
    assert run(head) == [
        ("renamed", "SUMMARY_MAX_LENGTH", 8, ".. data:: SUMMARY_MAX_WORDS"),
        ("removed", "DIRECT_TEMPLATES", 17, None),
    ]


def test_a_setting_a_directive_documents_is_one_whatever_its_shape() -> None:
    # `PATH` in prose may be anything (the shell's); the directive's `PATH` is the setting
    head = {**BASE, CODE: SETTINGS.replace("    'PATH': os.curdir,\n", "")}
    assert run(head) == [("removed", "PATH", 21, None)]


def test_a_page_fixed_with_the_code_and_an_unchanged_dict_give_nothing() -> None:
    head = {CODE: SETTINGS.replace("'misc'", "'general'"), DOC: PAGE.replace("'misc'", "'general'")}
    assert run(head) == []
    assert run({**BASE, CODE: SETTINGS + "\nEXTRA = 1\n"}) == []


def test_a_setting_the_dict_lacks_is_unknown_not_a_near_miss_of_one_it_has() -> None:
    # The program reads settings its defaults do not list (`f"{name.upper()}_SAVE_AS"`): a page
    # documenting `TAGS_SAVE_AS` beside the dict's `TAG_SAVE_AS` is right.
    code = SETTINGS.replace("    'PATH'", "    'TAG_SAVE_AS': 'tag/{slug}.html',\n    'PATH'")
    page = PAGE + "\n.. data:: TAGS_SAVE_AS\n\n   Where the tag list is saved.\n"
    base = {CODE: code, DOC: PAGE}
    head = {CODE: code, DOC: page}
    assert list(check([RULE], MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings) == []


def test_a_directive_the_change_writes_must_state_the_dicts_default() -> None:
    code = SETTINGS.replace("    'PATH'", "    'BIND': '127.0.0.1',\n    'PATH'")
    page = (
        PAGE + "\n.. data:: BIND = ''\n\n   The address.\n\n"
        ".. data:: DIRECT_TEMPLATES = ['tags', 'index']\n\n   Rendered on their own.\n\n"
        ".. data:: THEME = {...}\n\n   Computed.\n\n"
        ".. data:: SUMMARY_MAX_LENGTH\n\n   If unset, it defaults to ``DEFAULT_LENGTH``.\n"
    )
    base = {CODE: code, DOC: PAGE}
    head = {CODE: code, DOC: page}
    found = list(check([RULE], MemoryTree(base), MemoryTree(head), changes_between(base, head)).findings)
    # the same templates in another order, a value the page leaves out, a default told in words
    # and one the code computes are no wrong default
    assert [(f.kind, f.symbol, f.suggestion.replacement if f.suggestion else None) for f in found] == [
        ("wrong-default", "BIND", ".. data:: BIND = '127.0.0.1'")
    ]
