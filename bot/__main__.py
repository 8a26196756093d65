"""`python -m bot`: the same as the `docs-sync` command."""

import sys

from bot.cli import main

sys.exit(main())
