"""Streams a comparison's raw samples as CSV or JSON lines, straight from a server-side
cursor: an export of millions of rows never sits in memory."""

import csv
import io
import json
from collections.abc import Iterator
from decimal import Decimal

from django.db import connection, transaction

from apps.comparisons.models import Comparison

from ..storage.derive import PHASES, duration_sql_ms

# The derived durations of each row, in ms (apps.results.storage.derive).
DURATIONS_MS = {f"{name}_ms": duration_sql_ms(name) for name in (*PHASES, "total")}

FIELDS = [
    "arm", "device", "network_profile", "run", "block", "period", "repetition", "step", "seq", "part", "phase", "op",
    "path", "wall_time", "issued_mono_us", "t0", "dns_start", "dns_end", "conn_start", "tls_start", "conn_ready",
    "req_start", "req_end", "resp_first_byte", "resp_headers_end", "resp_end", "app_done", "conn_id", "conn_reused",
    "in_flight", "alpn", "tls_version", "tls_resumed", "early_data", "req_bytes", "resp_bytes", "status",
    "server_delay_ms", "server_time_us", "srtt_us", "retrans", "error_class", "error_detail", *DURATIONS_MS,
]

# Built once from module constants; the comparison id goes in params.
_SELECT = f"""
SELECT a.label, COALESCE(d.serial, 'slot-' || r.slot), r.network_profile, s.run_id::text, s.block, s.period,
       s.repetition, s.step, s.seq, s.part, s.phase, s.op, s.path, s.wall_time, s.issued_mono_us, 0,
       s.dns_start, s.dns_end, s.conn_start, s.tls_start, s.conn_ready, s.req_start, s.req_end, s.resp_first_byte,
       s.resp_headers_end, s.resp_end, s.app_done, s.conn_id, s.conn_reused, s.in_flight, s.alpn, s.tls_version,
       s.tls_resumed, s.early_data, s.req_bytes, s.resp_bytes, s.status, s.server_delay_ms, s.server_time_us, s.srtt_us,
       s.retrans, s.error_class, s.error_detail,
       {", ".join(f"round(({expr})::numeric, 3)" for expr in DURATIONS_MS.values())}
FROM results_sample s
JOIN comparisons_arm a ON a.id = s.arm_id
JOIN comparisons_run r ON r.id = s.run_id
LEFT JOIN devices_device d ON d.id = r.device_id
WHERE s.comparison_id = %s
ORDER BY s.run_id, s.block, s.seq
"""  # noqa: S608


def _rows(comparison: Comparison) -> Iterator[tuple]:
    # A named (server-side) cursor needs a transaction; it streams in chunks of 2,000.
    with transaction.atomic(), connection.chunked_cursor() as cursor:
        cursor.execute(_SELECT, [comparison.id])
        while chunk := cursor.fetchmany(2000):
            yield from chunk


def _plain(value: object) -> object:
    return float(value) if isinstance(value, Decimal) else value


def stream_csv(comparison: Comparison) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(FIELDS)
    for row in _rows(comparison):
        writer.writerow(["" if v is None else _plain(v) for v in row])
        if buffer.tell() > 64 * 1024:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def stream_json_lines(comparison: Comparison) -> Iterator[str]:
    for row in _rows(comparison):
        yield json.dumps({k: _plain(v) for k, v in zip(FIELDS, row, strict=True)}) + "\n"
