"""Durations derived from the phase timestamps, in one place for every client (DESIGN §5.2)."""

from typing import Any

import numpy as np


def total_us(sample: dict[str, Any]) -> int | None:
    done = sample.get("app_done")
    return None if done is None else int(done) - int(sample.get("t0") or 0)


def ttfb_us(sample: dict[str, Any]) -> int | None:
    first, start = sample.get("resp_first_byte"), sample.get("req_start")
    return None if first is None or start is None else int(first) - int(start)


# The same formulas over whole columns, for ingestion (apps.results.ingest.samples_insert):
# a column is (values, present), an int64 array with 0 where null and a bool array.

Column = tuple[np.ndarray, np.ndarray]


def total_us_column(t0: Column, app_done: Column) -> Column:
    (start, _), (done, done_present) = t0, app_done  # a null t0 counts as 0 (its value is 0)
    return done - start, done_present


def ttfb_us_column(req_start: Column, resp_first_byte: Column) -> Column:
    (start, start_present), (first, first_present) = req_start, resp_first_byte
    return first - start, start_present & first_present


SQL_DURATIONS_MS = {
    # The same formulas for SQL-side exports.
    "dns_ms": "(dns_end - dns_start) / 1000.0",
    "connect_ms": "(COALESCE(tls_start, conn_ready) - conn_start) / 1000.0",
    "tls_ms": "(conn_ready - tls_start) / 1000.0",
    "ttfb_ms": "ttfb_us / 1000.0",
    "download_ms": "(resp_end - resp_first_byte) / 1000.0",
    "total_ms": "total_us / 1000.0",
}
