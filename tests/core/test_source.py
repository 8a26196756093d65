"""Bytes as the check reads them: Python sources as Python decodes them, everything else as UTF-8."""

from __future__ import annotations

import ast

import pytest

from bot.core.source import decode


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"x = 'caf\xc3\xa9'\n", "x = 'café'\n"),  # UTF-8, the default
        (b"# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n", "# -*- coding: latin-1 -*-\nx = 'café'\n"),
        (b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = '\x80'\n", None),  # line 2
        (b"\xef\xbb\xbfx = 1\r\n", "x = 1\r\n"),  # a BOM is dropped; line ends are kept as they are
        (b"x = 1\n# \x00\n", "x = 1\n# \x00\n"),  # a NUL byte is UTF-8; the parser refuses it
    ],
)
def test_python_sources_follow_pep_263(data, text):
    decoded = decode("pkg/mod.py", data)
    if text is None:
        assert decoded.endswith("x = '€'\n")
    else:
        assert decoded == text


@pytest.mark.parametrize(
    "data",
    [
        b"# caf\xe9\nx = 1\n",  # latin-1 without a cookie
        b"# -*- coding: ascii -*-\nx = '\xc3\xa9'\n",  # not what the cookie says
    ],
)
def test_an_undecodable_source_is_read_but_does_not_parse(data):
    text = decode("tool.py", data)
    assert text.endswith("\n") and text.encode("utf-8", "surrogateescape") == data  # nothing lost
    with pytest.raises(ValueError):  # what the extractor reports as a parse error
        ast.parse(text)


def test_other_files_are_utf8_with_what_fails_replaced():
    assert decode("docs/a.md", b"caf\xc3\xa9 and caf\xe9\n") == "café and caf\ufffd\n"
    assert decode("docs/a.md", b"# -*- coding: latin-1 -*-\n\xe9\n") == "# -*- coding: latin-1 -*-\n\ufffd\n"
