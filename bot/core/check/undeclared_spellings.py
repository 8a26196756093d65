"""How a parser takes a flag it does not declare by that name.

A long option cut short, as argparse takes it: `--trust-remote` for `--trust-remote-code`.

An `ArgumentParser` accepts any prefix of a long option that no other option string of the
parser starts with (`allow_abbrev=True`, its default), so a page's `--speculative-algo EAGLE` runs.
The prefix is the flag it stands for when exactly one flag of the command line's parser starts
with it; none, or two (`--dp` where `--dp-size` and `--dp-attention` both exist: argparse calls it
ambiguous), and it stands for nothing. argparse cuts a long option written with one dash
(`-output_dir` for `-output_directory`) the same way, unless a short option is its first two
characters (`-o` makes `-output_dir` ambiguous: `-o utput_dir`). A flag whose spelling its caller chooses
(`f"--{prefix}dp-aware"`, bot/core/extract/option_variants.py) may be spelt otherwise on this
command line: it makes no prefix ambiguous beside one spelt the same for every caller. A module
whose parser says `allow_abbrev=False` marks its flags (attribute `abbrev`), and they are never
abbreviated.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from bot.core.model import Fact

# Source kinds whose flags an argparse parser takes: transformers' HfArgumentParser is an
# ArgumentParser subclass that leaves `allow_abbrev` at its default, so `--text_column_name`
# runs as `--text_column_names`.
ARGPARSE_KINDS = frozenset({"argparse", "hf-dataclass"})
_SHORTEST = 4  # `--x` is not read as a prefix: too short to be written on purpose


def expanded(token: str, known: Iterable[Fact], kinds: dict[str, str]) -> list[Fact]:
    """The flags `token` abbreviates among `known` (one parser's flags); [] when it names none or
    more than one, or the flag's parser does not take abbreviations."""
    if not _cut_short(token):
        return []
    known = [f for f in known if f.kind == "flag"]
    if not token.startswith("--") and any(f.token == token[:2] for f in known):
        return []  # the short option with a value stuck to it: ambiguous
    matches = [f for f in known if f.token.startswith(token) and f.token != token]
    if len({f.token for f in matches}) > 1:
        # A spelling a caller chooses (`--dp-aware` or `--router-dp-aware`) may not be this
        # command line's: the one flag spelt for every caller is what the prefix stands for.
        matches = [f for f in matches if f.attr("variant") != "true"]
    if len({f.token for f in matches}) != 1:
        return []
    if any(kinds.get(f.source) not in ARGPARSE_KINDS or f.attr("abbrev") == "off" for f in matches):
        return []
    return matches


def abbreviates(token: str, strings: Iterable[str]) -> bool:
    """Is `token` a prefix of exactly one of `strings` (the option strings of a module the rule
    does not read), so that an argparse parser declaring them takes it?"""
    if not _cut_short(token):
        return False
    strings = set(strings)
    if not token.startswith("--") and token[:2] in strings:
        return False  # the short option with a value stuck to it: ambiguous
    return len({s for s in strings if s.startswith(token) and s != token}) == 1


def _cut_short(token: str) -> bool:
    """Could argparse read `token` as a long option cut short: `--trust-remote`, `-output_dir`?"""
    if len(token) < _SHORTEST or "=" in token:
        return False
    return token.startswith("--") or (token[:1] == "-" and token[1:2].isalpha())


def taken_by_shape(token: str, known: Iterable[Fact]) -> bool:
    """Does a parser among `known` match `token` by its shape (`--*-path`: the leftover
    arguments a module reads itself, bot/core/extract/flag_families.py)?"""
    shapes = {p for f in known for p in (f.attr("takes") or "").split()}
    return any(fnmatch.fnmatchcase(token, p) for p in shapes)
