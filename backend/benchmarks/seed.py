"""A stored 1,000,000-sample comparison for the benchmarks that read one back (the analysis
from the database, the results API): the engine's synthetic table written as samples with
COPY, one run per device × profile, as ingestion stores them. Django must be set up first.
"""

from typing import Any

import numpy as np
from django.db import connection, transaction

# 3 arms × 4 devices × 2 profiles × 12 blocks × 10 periods × 21 repetitions ≈ 1,000,000 samples.
SPEC = {"name": "1M", "preset": "mid-image-series", "blocks": 12,
        "arms": [{"label": "https-h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"},
                 {"label": "h3", "protocol": "h3"}]}
TABLE = {"devices": 4, "profiles": ("none", "lte"), "blocks": 12, "periods": list(range(3, 31, 3)), "repetitions": 21,
         "first_request_factor": 1.8, "error_rate": 0.001}
RATIOS = {"https-h1": 1.0, "h2": 0.6, "h3": 0.55}


def million_sample_comparison(*, organization: Any, name: str = "1M", seed: int = 1,
                              ratios: dict[str, float] | None = None, with_block_columns: bool = True) -> tuple:
    """A comparison of SPEC (status pending) with ~1,000,000 stored samples: (comparison, samples)."""
    from apps.comparisons.services import comparison_create
    from apps.results.analysis import synthetic_table

    with transaction.atomic():
        comparison = comparison_create(organization=organization, submitted_spec={**SPEC, "name": name})
    table, _ = synthetic_table(arm_ratios=ratios or RATIOS, seed=seed, **TABLE)
    store(comparison, table, with_block_columns=with_block_columns)
    return comparison, len(table)


def store(comparison, table, *, with_block_columns: bool = True) -> None:
    """Write the synthetic table as samples, one run per device × profile, with COPY."""
    from apps.comparisons.models import Run, RunBlock
    from apps.results.ingest import COLUMNS
    from apps.results.storage.loader import block_columns_backfill

    arm_ids = dict(comparison.arms.values_list("label", "id"))
    arm_id_of_code = np.asarray([arm_ids[label] for label in table.arm_labels])
    pool = comparison.runs.model._meta.get_field("pool").related_model.objects.filter(
        organization_id=comparison.organization_id).first()
    index = {c: i for i, c in enumerate(COLUMNS)}
    for d, device in enumerate(table.device_labels):
        for p, profile in enumerate(table.profile_labels):
            rows = np.flatnonzero((table.device == d) & (table.profile == p))
            run = Run.objects.create(comparison=comparison, slot=d, pool=pool, network_profile=profile,
                                     device_label=device, blocks_total=int(table.block.max()) + 1,
                                     status=Run.Status.DONE)
            RunBlock.objects.bulk_create([RunBlock(run=run, block=b, attempt=1, batch_seq=b, sample_count=0,
                                                   baseline={"tcp": {"avg_ms": 50.0}})
                                          for b in range(int(table.block.max()) + 1)])
            n = len(rows)
            cols = [["\\N"] * n for _ in COLUMNS]
            cols[index["comparison_id"]] = [str(comparison.id)] * n
            cols[index["run_id"]] = [str(run.id)] * n
            cols[index["arm_id"]] = arm_id_of_code[table.arm[rows]].astype(str).tolist()
            for name in ("block", "period", "repetition", "step"):
                values = getattr(table, name)[rows]
                cols[index[name]] = [("\\N" if v < 0 else str(v)) for v in values.tolist()]
            cols[index["seq"]] = np.arange(n).astype(str).tolist()
            cols[index["phase"]] = np.where(table.phase_measure[rows], "measure", "warmup").tolist()
            cols[index["wall_time"]] = ["0"] * n
            cols[index["op"]] = ["file"] * n
            cols[index["path"]] = [""] * n
            cols[index["app_done"]] = table.total_us[rows].astype(str).tolist()
            cols[index["total_us"]] = cols[index["app_done"]]
            cols[index["ttfb_us"]] = table.ttfb_us[rows].astype(str).tolist()
            cols[index["resp_bytes"]] = table.resp_bytes[rows].astype(str).tolist()
            cols[index["conn_reused"]] = np.where(table.first_on_connection[rows], "f", "t").tolist()
            # Phase timestamps (µs from t0) as a probe records them, so the phase breakdown
            # sorts as many values as on a real comparison: DNS, connect and TLS on new
            # connections only, first byte and end of the response on every request.
            first = table.first_on_connection[rows]
            rng = np.random.default_rng(100 + 10 * d + p)
            dns_end = rng.integers(300, 20_000, n)
            conn_ready_tls = dns_end + rng.integers(5_000, 60_000, n)
            conn_ready = conn_ready_tls + rng.integers(10_000, 120_000, n)
            req_start = np.where(first, conn_ready, 0)
            ttfb = table.ttfb_us[rows]
            first_byte = req_start + np.maximum(ttfb, 0)
            resp_end = np.maximum(table.total_us[rows], first_byte) + rng.integers(0, 5_000, n)

            def maybe(values, where):
                return np.where(where, values.astype(str), "\\N").tolist()

            cols[index["dns_start"]] = maybe(np.zeros(n, np.int64), first)
            cols[index["dns_end"]] = maybe(dns_end, first)
            cols[index["conn_start"]] = maybe(dns_end, first)
            cols[index["tls_start"]] = maybe(conn_ready_tls, first)
            cols[index["conn_ready"]] = maybe(conn_ready, first)
            cols[index["req_start"]] = req_start.astype(str).tolist()
            cols[index["resp_first_byte"]] = maybe(first_byte, ttfb >= 0)
            cols[index["resp_end"]] = maybe(resp_end, ttfb >= 0)
            cols[index["error_class"]] = np.where(table.ok[rows], "\\N", "timeout").tolist()
            text = "\n".join("\t".join(row) for row in zip(*cols, strict=True)) + "\n"
            with connection.cursor() as cursor, cursor.cursor.copy(
                    f"COPY results_sample ({', '.join(COLUMNS)}) FROM STDIN") as copy:
                copy.write(text)
            if with_block_columns:
                # What ingestion stores beside each block; the loader reads these.
                block_columns_backfill(run)
