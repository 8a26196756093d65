"""Every output format and every word docs-sync shows on GitHub. Pure: reports in, strings out.

`FORMATS` is the command line's `--format`: name -> function of the report and `Options`. Each
format's module is imported when that format is asked for: a run prints one.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.model import Report
from bot.render.common import Options


def _text(report: Report, o: Options) -> str:
    from bot.render.text import WIDTH, to_text

    return to_text(report, o.fail_on, doc_text=o.doc_text, color=o.color, width=o.width or WIDTH)


def _json(report: Report, o: Options) -> str:
    from bot.render.data import to_json

    return to_json(report, o.fail_on)


def _markdown(report: Report, o: Options) -> str:
    from bot.render.markdown import to_markdown

    return to_markdown(report, o.fail_on, doc_text=o.doc_text)


def _github(report: Report, o: Options) -> str:
    from bot.render.workflow import to_github

    return to_github(report, o.fail_on)


def _sarif(report: Report, o: Options) -> str:
    from bot.render.sarif import to_sarif

    return to_sarif(report, o.doc_text, o.version)


def _rdjson(report: Report, o: Options) -> str:
    from bot.render.rdjson import to_rdjson

    return to_rdjson(report)


def _patch(report: Report, o: Options) -> str:
    from bot.render.patch import to_patch

    return to_patch(report, o.doc_text)


FORMATS: dict[str, Callable[[Report, Options], str]] = {
    "text": _text,
    "json": _json,
    "markdown": _markdown,
    "github": _github,
    "sarif": _sarif,
    "rdjson": _rdjson,
    "patch": _patch,
}
