"""docs-sync: find the doc lines a code change made wrong, and say how to fix them."""

# `docs-sync --version` reports this string (reading the installed metadata would cost every start
# 55 ms); tests/test_packaging.py keeps it equal to pyproject.toml's version.
__version__ = "0.1.0"
