"""Durations derived from a sample's phase timestamps: the one definition
(device-runner/contract/README.md, "Timings").

Each duration is `end − start` between two timestamps of the sample; it is null when
either is null (a phase that did not happen, e.g. DNS, connect and TLS on a reused
connection). `connect` ends where TLS starts, or where the connection is ready when there
is no separate TLS step (plain HTTP; QUIC reports its handshake as connect).

The table below is read three ways, so ingestion, the loader and the export cannot
disagree: `durations_numpy` over whole columns (ingestion, apps.results.ingest.store),
`duration_sql` as a SQL expression over a stored results_sample row (the loader's read of
samples, apps.results.storage.loader; the export, apps.results.readers.export). `total` and `ttfb` are
stored in their own columns at ingestion, so SQL reads those columns.
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Duration:
    end: tuple[str, ...]  # the first of these timestamps that is not null (COALESCE)
    start: str
    stored_as: str | None = None  # the results_sample column holding it, when stored at ingestion


DURATIONS: dict[str, Duration] = {
    "dns": Duration(end=("dns_end",), start="dns_start"),
    "connect": Duration(end=("tls_start", "conn_ready"), start="conn_start"),
    "tls": Duration(end=("conn_ready",), start="tls_start"),
    "ttfb": Duration(end=("resp_first_byte",), start="req_start", stored_as="ttfb_us"),
    "download": Duration(end=("resp_end",), start="resp_first_byte"),
    "total": Duration(end=("app_done",), start="t0", stored_as="total_us"),
}
# The durations the phase breakdown chart shows, in the order they happen.
PHASES = ("dns", "connect", "tls", "ttfb", "download")

# A column of nullable integers: (values with 0 where null, present mask).
Column = tuple[np.ndarray, np.ndarray]


def durations_numpy(columns: Mapping[str, Column], names: tuple[str, ...] = tuple(DURATIONS)) -> dict[str, Column]:
    """Each named duration in µs over whole columns of timestamps, as (values, present)."""
    out: dict[str, Column] = {}
    for name in names:
        duration = DURATIONS[name]
        end_values, end_present = columns[duration.end[0]]
        for fallback in duration.end[1:]:  # COALESCE
            values, present = columns[fallback]
            end_values, end_present = np.where(end_present, end_values, values), end_present | present
        start_values, start_present = columns[duration.start]
        out[name] = (end_values - start_values, end_present & start_present)
    return out


def duration_sql(name: str) -> str:
    """The duration in µs as a SQL expression over a results_sample row (NULL when absent)."""
    duration = DURATIONS[name]
    if duration.stored_as:
        return duration.stored_as
    end = duration.end[0] if len(duration.end) == 1 else f"COALESCE({', '.join(duration.end)})"
    return f"({end} - {duration.start})"


def duration_sql_ms(name: str) -> str:
    """The same in milliseconds (for exports)."""
    return f"{duration_sql(name)} / 1000.0"
