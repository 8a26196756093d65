"""One parse of a Python text for all its readers, within a budget of kept source."""

from __future__ import annotations

import ast

import pytest

from bot.core.extract import parsed


def test_a_text_read_again_is_not_parsed_again():
    text = "import argparse\np = argparse.ArgumentParser()\n"
    first = parsed.module(text, "a.py")
    assert parsed.module("".join([text[:7], text[7:]]), "b.py") is first  # an equal string, another object
    assert ast.dump(first) == ast.dump(ast.parse(text))


def test_the_trees_kept_stay_within_the_budget(monkeypatch):
    monkeypatch.setattr(parsed, "MAX_KEPT_CHARS", 100)
    monkeypatch.setattr(parsed, "_kept", type(parsed._kept)())
    monkeypatch.setattr(parsed, "_kept_chars", 0)
    texts = [f"x{n} = {'1' * 30}\n" for n in range(5)]  # 36 characters each
    trees = [parsed.module(t) for t in texts]
    assert parsed._kept_chars <= 100 and list(parsed._kept) == texts[-2:]  # the oldest went first
    assert parsed.module(texts[-1]) is trees[-1] and parsed.module(texts[0]) is not trees[0]
    big = "y = 0\n" * 50  # over the whole budget: parsed, never kept
    assert parsed.module(big) is not parsed.module(big)


def test_a_text_that_does_not_parse_raises_as_ast_parse_does_and_is_not_kept():
    with pytest.raises(SyntaxError):
        parsed.module("def broken(:\n", "broken.py")
    assert "def broken(:\n" not in parsed._kept
