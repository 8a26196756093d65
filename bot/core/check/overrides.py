"""A dataclass field that overrides a field of another package's base class (`learning_rate`
with a default of its own, over transformers' `TrainingArguments`): dropping it leaves the base's
field, so its flag is still taken; nothing here can list that base's fields, so such a flag is
unknown, not removed.

The code says which fields override: the comment heading their run of fields (`# Parameters
whose default values are overridden from TrainingArguments`, `# Override fields from ...`), read
from the text (`ast` drops comments). A run starts at a comment after a blank line; one starting
at a blank line right above a field, or at the class line, has no heading.
"""

from __future__ import annotations

import re

from bot.core import lazyre

_OVERRIDE = lazyre.compile(r"\boverrid(?:e|es|den|ing)\b", re.IGNORECASE)
MAX_LINES = 400  # lines looked up from the field for its run's heading


def overrides_a_base(text: str, line: int) -> bool:
    """Is the field on `line` (1-based) of `text` in a run of fields its heading comment says
    override a base class's?"""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return False
    field = lines[line - 1]
    indent = field[: len(field) - len(field.lstrip())]
    if not indent:
        return False
    heading: list[str] = []
    for n in range(line - 2, max(-1, line - 2 - MAX_LINES), -1):
        text_n = lines[n]
        stripped = text_n.strip()
        if stripped.startswith("class ") or (text_n and not text_n.startswith(indent) and stripped):
            break  # the class line, or code less indented than the fields
        if not stripped and not lines[n + 1].startswith(indent + "#"):
            break  # a blank line right above code: the run starts below it, with no heading
        if text_n.startswith(indent + "#"):
            heading.append(stripped)
            if n == 0 or not lines[n - 1].strip():
                break  # a comment after a blank line heads the run
    return any(_OVERRIDE.search(c) for c in heading)
