"""A value made from a file is kept by its key: made once, handed back after, never mistaken."""

from __future__ import annotations

from bot.core.blobcache import cached


def _maker(value: object) -> tuple[list[int], object]:
    calls: list[int] = []

    def make() -> object:
        calls.append(1)
        return value

    return calls, make


def test_a_value_is_made_once_then_handed_back_from_the_cache():
    cache: dict[str, object] = {}
    calls, make = _maker(["x"])
    assert cached(cache, "k", list, make) == ["x"]
    assert cached(cache, "k", list, make) == ["x"]
    assert calls == [1] and cache == {"k": ["x"]}


def test_an_empty_value_is_kept_but_none_is_not():
    cache: dict[str, object] = {}
    assert cached(cache, "empty", list, lambda: []) == []
    assert cached(cache, "gone", list, lambda: None) is None
    assert cache == {"empty": []}


def test_no_key_or_no_cache_makes_the_value_every_time():
    cache: dict[str, object] = {}
    calls, make = _maker(["x"])
    cached(cache, None, list, make)
    cached(None, "k", list, make)
    assert calls == [1, 1] and cache == {}


def test_a_value_of_another_kind_under_the_key_is_made_again_and_replaced():
    cache: dict[str, object] = {"k": "an older format's text"}
    assert cached(cache, "k", list, lambda: ["new"]) == ["new"]
    assert cache == {"k": ["new"]}
