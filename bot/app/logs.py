"""Logging where every record carries the delivery id it belongs to.

The id lives in a context variable: the webhook endpoint sets it for its request, the worker
for the job it runs (async handlers inherit it through their tasks). A filter on the handler
copies it onto every record, including those of libraries (httpx, githubkit), so one grep for
a delivery id shows the whole story from webhook to GitHub writes.
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

delivery_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("delivery_id", default="-")


@contextmanager
def delivery_context(delivery_id: str) -> Iterator[None]:
    token = delivery_id_var.set(delivery_id)
    try:
        yield
    finally:
        delivery_id_var.reset(token)


class DeliveryFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.delivery_id = delivery_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, delivery_id, message (and exc)."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "delivery_id": getattr(record, "delivery_id", delivery_id_var.get()),
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def configure_logging(level: str) -> None:
    """Send every record, as JSON lines with its delivery id, to stderr."""
    handler = logging.StreamHandler()
    handler.addFilter(DeliveryFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
