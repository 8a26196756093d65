"""The candidate closest to a token: how a rename's successor is chosen and what "did you mean"
offers."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(token: str, candidates: Iterable[str], cutoff: float) -> str | None:
    """The candidate most like `token`, when one is at least `cutoff` alike (0..1)."""
    found = difflib.get_close_matches(token, list(candidates), n=1, cutoff=cutoff)
    return found[0] if found else None
