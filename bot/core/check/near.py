"""The candidate closest to a token: how a rename's successor is chosen and what "did you mean"
offers, and which way a switch points, so that neither ever offers the opposite switch.

A switch's meaning is the destination it sets and to what. `--disable-fp32-master` (a
`store_false` on `keep_fp32_master`) and `--no-keep-fp32-master` both turn the fp32 master
copy off; `--keep-fp32-master` turns it on. A name alone says it too: `--no-`, `--non-`,
`--not-`, `--disable-`, `--without-`, `--skip-` and `--dont-` switch something off.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from bot.core.model import Fact

# Words that, leading a name, turn what follows off; and those that turn it on (stripped to
# compare what two switches are about).
NEGATIVE_WORDS = frozenset({"no", "non", "not", "disable", "without", "skip", "dont"})
POSITIVE_WORDS = frozenset({"enable", "with", "use"})

_WORDS = re.compile(r"[-_]+")


def closest(token: str, candidates: Iterable[str], cutoff: float, unique: bool = False) -> str | None:
    """The candidate most like `token`, when one is at least `cutoff` alike (0..1). `unique`:
    None when two are equally alike (`--dp-size` is as near `--tp-size` as `--sp-size`), since
    picking one would be a guess."""
    found = difflib.get_close_matches(token, list(candidates), n=2 if unique else 1, cutoff=cutoff)
    if not found:
        return None
    if unique and len(found) == 2 and _ratio(token, found[0]) == _ratio(token, found[1]):
        return None
    return found[0]


def _ratio(a: str, b: str) -> float:
    matcher = difflib.SequenceMatcher(None, b, a)  # as get_close_matches compares them
    return matcher.ratio()


def _words(name: str) -> list[str]:
    return [w for w in _WORDS.split(name.lstrip("-").lower()) if w]


def name_polarity(name: str) -> bool | None:
    """False for a name that switches something off (`--no-x`, `--disable-x`, `skip_x`); None
    otherwise: a name alone does not say it is a switch."""
    words = _words(name)
    return False if words and words[0] in NEGATIVE_WORDS and len(words) > 1 else None


def polarity(fact: Fact) -> bool | None:
    """What a flag turns its subject to: True on, False off, None for a flag that takes a value.

    A switch sets its destination (`sets`); a destination named in the negative
    (`disable_x`) inverts it: `--disable-x` storing True into `disable_x` turns x off.
    """
    sets = fact.attr("sets")
    if sets in ("true", "false"):
        on = sets == "true"
        return (not on) if name_polarity(fact.key.rpartition(".")[2]) is False else on
    return name_polarity(fact.token)


def same_polarity(a: Fact, b: Fact) -> bool:
    return polarity(a) == polarity(b)


def fits_name(token: str, fact: Fact) -> bool:
    """May `fact` be offered for `token`, a flag name the code does not have? Only a switch that
    points the same way: a negative name gets negative switches, any other name no negative one."""
    if name_polarity(token) is False:
        return polarity(fact) is False
    return polarity(fact) is not False


def subject(name: str) -> str:
    """What a switch is about: the name without dashes and leading on/off words
    (`--no-keep-fp32-master` -> `keep-fp32-master`, `--enable-x` -> `x`)."""
    words = _words(name)
    while len(words) > 1 and (words[0] in NEGATIVE_WORDS or words[0] in POSITIVE_WORDS):
        words = words[1:]
    return "-".join(words)


def misspelt(written: str, real: str) -> bool:
    """Could `written` be `real` misspelt, rather than another flag altogether? Word by word
    (on/off words aside): a word may be missing or extra, and one written in place of another
    must be that word mistyped (`--input-dri`), not another word (`--no-load-optim` is not
    `--no-save-optim`, `--eval-backend` is not `--train-backend`)."""
    a, b = subject(written).split("-"), subject(real).split("-")
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "replace":
            continue
        if i2 - i1 != j2 - j1:
            # Words run together or split (`fp32master`, `max-len`): alike when joined.
            if difflib.SequenceMatcher(None, "".join(a[i1:i2]), "".join(b[j1:j2])).ratio() < 0.8:
                return False
            continue
        for x, y in zip(a[i1:i2], b[j1:j2], strict=True):
            if difflib.SequenceMatcher(None, x, y).ratio() < 0.6:
                return False
    return True
