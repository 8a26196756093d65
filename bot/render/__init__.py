"""Every output format and every word docs-sync shows on GitHub. Pure: reports in, strings out.

`FORMATS` is the command line's `--format`: name -> function of the report and `Options`.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.model import Report
from bot.render.common import Options
from bot.render.data import to_json
from bot.render.markdown import to_markdown
from bot.render.patch import to_patch
from bot.render.rdjson import to_rdjson
from bot.render.sarif import to_sarif
from bot.render.text import WIDTH as TEXT_WIDTH
from bot.render.text import to_text
from bot.render.workflow import to_github

FORMATS: dict[str, Callable[[Report, Options], str]] = {
    "text": lambda report, o: to_text(
        report, o.fail_on, doc_text=o.doc_text, color=o.color, width=o.width or TEXT_WIDTH
    ),
    "json": lambda report, o: to_json(report, o.fail_on),
    "markdown": lambda report, o: to_markdown(report, o.fail_on, doc_text=o.doc_text),
    "github": lambda report, o: to_github(report, o.fail_on),
    "sarif": lambda report, o: to_sarif(report, o.doc_text, o.version),
    "rdjson": lambda report, o: to_rdjson(report),
    "patch": lambda report, o: to_patch(report, o.doc_text),
}
