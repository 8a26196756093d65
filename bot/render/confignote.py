"""What the App says about the config a pull request edits: the check ran with the base branch's
config, and the new one is valid, or will break once merged, and why.

One line each (the summaries show notes as quotes); everything from the file is a code span, so
nothing in a rules file comes alive as markdown.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.packfiles import REPO_CONFIG
from bot.core.rules import RulesError
from bot.render.common import md_code

SHOWN = 3  # problems spelled out; the rest are counted


def _edits() -> str:
    return f"This pull request edits {md_code(REPO_CONFIG)}; it was checked with the base branch's config."


def config_valid(rules: int, examples: int) -> str:
    ran = ""
    if examples:
        ran = f" Its {examples} rule example{'s' * (examples != 1)} run with `docs-sync validate`, not here."
    noun = "rule" if rules == 1 else "rules"
    return (
        f"{_edits()} The new one is valid: {rules} {noun}, every page, source, glob and section of "
        f"which matches this pull request's head.{ran}"
    )


def config_invalid(problems: Sequence[RulesError]) -> str:
    shown = "; ".join(md_code(" ".join(str(p).splitlines())) for p in problems[:SHOWN])
    more = f" (and {len(problems) - SHOWN} more)" if len(problems) > SHOWN else ""
    return f"{_edits()} The new one cannot be used once merged: {shown}{more}."


def config_removed(fallback: bool) -> str:
    after = "with the App's default rules" if fallback else "nothing here"
    return (
        f"This pull request deletes {md_code(REPO_CONFIG)}; it was checked with the base branch's "
        f"config. Once it is merged, docs-sync checks {after}."
    )
