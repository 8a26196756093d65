"""docs-sync: find the doc lines a code change made wrong, and say how to fix them."""

# The installed distribution's metadata is the authority (`docs-sync --version` reads it); this is
# what a checkout run without installing reports. Keep it equal to pyproject.toml's version.
__version__ = "0.1.0"
