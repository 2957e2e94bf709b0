"""Structured logs: every line says which request, comparison and run it is about.

The ids live in context variables, set per request (apps.core.request_ids) or per Celery task
(config.celery), and a filter copies them onto each record; JsonFormatter writes one JSON
object per line for log collectors (LATENCYLAB_LOG_FORMAT=json, production's default). Each
gunicorn thread keeps its own context, so a request sets all three ids at its start; they stay
set until the next request, so Django's own request log line (written after the response)
carries them too.
"""

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime

IDS = ("request_id", "comparison_id", "run_id")
_context: dict[str, ContextVar[str | None]] = {name: ContextVar(name, default=None) for name in IDS}


def bind(**ids: str | None) -> None:
    """Set some of request_id, comparison_id, run_id for what this thread or task does next."""
    for name, value in ids.items():
        _context[name].set(value)


def bound() -> dict[str, str | None]:
    return {name: var.get() for name, var in _context.items()}


class LogContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in bound().items():
            setattr(record, name, value)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, the ids that are
    set, and the exception's traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update({name: getattr(record, name) for name in IDS if getattr(record, name, None)})
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False)
