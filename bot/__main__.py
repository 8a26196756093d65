"""`python -m bot`: the same as the `docs-sync` command."""

from bot.cli import run

run()
