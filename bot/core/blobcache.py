"""A value made from a file, kept under a key that holds the file's git blob id.

The key is content-addressed, so a kept value is never stale: a warm check neither reads nor
parses the file again. The caches themselves are any mutable mapping (bot/core/facts.py).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import TypeVar

Kept = TypeVar("Kept")
Made = TypeVar("Made")


def cached(
    cache: MutableMapping[str, object] | None, key: str | None, kind: type[Kept], make: Callable[[], Made]
) -> Kept | Made:
    """The `kind` kept under `key`, else what `make` makes, kept for next time. No key (a file
    with no blob id) is no caching; a None made (no file to read) is not kept; a value of another
    kind under the key is made again."""
    if cache is not None and key is not None:
        hit = cache.get(key)
        if isinstance(hit, kind):
            return hit
    made = make()
    if made is not None and cache is not None and key is not None:
        cache[key] = made
    return made
