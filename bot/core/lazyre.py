"""Regular expressions compiled on first use.

Compiling the project's patterns when their modules are imported cost about a fifth of a
check's start-up, and a check whose facts and pages are cached runs few of them. `compile`
takes `re.compile`'s arguments and returns a stand-in typed as the compiled pattern: its first
use compiles it, and each attribute it then hands out (`match`, `finditer`, ...) is kept on the
stand-in, so later calls cost what a compiled pattern's do. This is the one lazy mechanism for
patterns; a pattern built from a runtime value is compiled where it is built, as before.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _Pattern:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern  # composing a pattern from another's text does not compile it
        self._flags = flags

    def __getattr__(self, name: str) -> Any:  # called only for what the instance does not hold yet
        value = getattr(re.compile(self.pattern, self._flags), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazyre.compile({self.pattern!r}, {self._flags!r})"


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:  # noqa: A001 - re.compile's name, on purpose
    return cast("re.Pattern[str]", _Pattern(pattern, flags))
