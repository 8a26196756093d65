import re

import pytest

from bot.core import lazyre


def test_a_lazy_pattern_matches_as_the_compiled_one():
    lazy = lazyre.compile(r"--(\w[\w-]*)", re.IGNORECASE)
    compiled = re.compile(r"--(\w[\w-]*)", re.IGNORECASE)
    text = "pass --Gen-Batch-Size 64 or --seed"
    assert [m.group(1) for m in lazy.finditer(text)] == [m.group(1) for m in compiled.finditer(text)]
    assert lazy.sub("FLAG", text) == compiled.sub("FLAG", text)
    assert lazy.flags == compiled.flags
    assert lazy.search("no flags") is None


def test_its_text_composes_without_compiling_and_a_bad_pattern_fails_at_first_use():
    bad = lazyre.compile(r"(unclosed")
    assert bad.pattern == "(unclosed"
    with pytest.raises(re.error):
        bad.match("x")
