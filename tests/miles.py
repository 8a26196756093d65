"""Files of radixark/miles for the tests that also run against the real code.

They read a local git mirror (MILES_MIRROR, default the path where the project's tooling puts
one) and skip when it is absent, as it is in CI: the suite's own fixtures never copy miles' code.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

MIRROR = Path(os.environ.get("MILES_MIRROR", "/work/.mirror/radixark+miles/repo"))


def miles_file(path: str, rev: str = "HEAD") -> str:
    if not MIRROR.exists():
        pytest.skip("miles mirror not available")
    shown = subprocess.run(
        ["git", "-C", str(MIRROR), "show", f"{rev}:{path}"], capture_output=True, text=True
    )
    if shown.returncode != 0:
        pytest.skip(f"{rev}:{path} not in the miles mirror")
    return shown.stdout
