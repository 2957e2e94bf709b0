"""The whole analysis of a stored 1,000,000-sample comparison, as the Celery task runs it:
load from PostgreSQL (binary COPY per run, phase durations included) + statistics engine + chart shaping.

Target (DESIGN §11): < 2 s and < 1 GB RSS. bench_analysis.py times the engine alone on an
in-memory table; this one adds the database. Needs PostgreSQL (LATENCYLAB_DB_*; `make
bench` starts one). Prints figures; no pass/fail. Run from backend/.
"""

import os
import resource
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402  (after django.setup())
from django.conf import settings  # noqa: E402  (after django.setup())
from django.db import connection, transaction  # noqa: E402  (after django.setup())
from django.test.utils import get_runner, setup_test_environment  # noqa: E402  (after django.setup())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def store(comparison, table, *, with_block_columns: bool = True) -> None:
    """Write the synthetic table as samples, one run per device × profile, with COPY."""
    from apps.comparisons.models import Run, RunBlock
    from apps.results.ingest import COLUMNS
    from apps.results.loader import block_columns_backfill

    arm_ids = dict(comparison.arms.values_list("label", "id"))
    arm_id_of_code = np.asarray([arm_ids[label] for label in table.arm_labels])
    pool = comparison.runs.model._meta.get_field("pool").related_model.objects.first()
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


def main() -> None:
    setup_test_environment()
    runner = get_runner(settings)(verbosity=0, interactive=False)
    old = runner.setup_databases()
    try:
        run()
    finally:
        runner.teardown_databases(old)


def run() -> None:
    from apps.accounts.services import organization_get_or_create
    from apps.comparisons.models import Comparison
    from apps.comparisons.services import comparison_create
    from apps.devices.services import pool_get_or_create
    from apps.results import services as _svc
    from apps.results.analysis import synthetic_table
    from apps.results.models import BlockColumns
    analysis_compute = _svc.analysis_compute

    org = organization_get_or_create(slug="bench", name="Bench")
    pool_get_or_create(organization=org, slug="local", name="Local")
    with transaction.atomic():
        comparison = comparison_create(organization=org, submitted_spec={
            "name": "1M", "preset": "mid-image-series", "blocks": 12,
            "arms": [{"label": "https-h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"},
                     {"label": "h3", "protocol": "h3"}]})
    table, _ = synthetic_table(arm_ratios={"https-h1": 1.0, "h2": 0.6, "h3": 0.55}, devices=4,
                               profiles=("none", "lte"), blocks=12, periods=list(range(3, 31, 3)), repetitions=21,
                               first_request_factor=1.8, error_rate=0.001, seed=1)
    start = time.perf_counter()
    store(comparison, table)
    print(f"stored {len(table):,} samples in {time.perf_counter() - start:.1f} s")
    del table
    comparison = Comparison.objects.get(pk=comparison.pk)
    rss_before = peak_rss_mb()
    for label in ("from the blocks' stored columns", "from the samples (COPY fallback, the peer)"):
        walls, steps = [], {}
        for _ in range(3):
            start, timings = time.perf_counter(), {}
            result = analysis_compute(comparison=comparison, timings=timings)
            walls.append(time.perf_counter() - start)
            for name, seconds in timings.items():
                steps.setdefault(name, []).append(seconds)
        print(f"{label}:")
        print("  per step, best of 3: " + ", ".join(f"{name} {min(s):.3f} s" for name, s in steps.items()))
        print(f"  load + analyse + chart shaping: best {min(walls):.2f} s, "
              f"runs {', '.join(f'{w:.2f}' for w in walls)} s (target < 2 s); load average {os.getloadavg()[0]:.1f}")
        BlockColumns.objects.filter(run__comparison=comparison).delete()
    print(f"peak RSS {peak_rss_mb():.0f} MB (target < 1024 MB; {rss_before:.0f} MB before analysing)")
    print(f"{len(result['groups'])} chart groups, {len(result['analysis']['comparisons'])} arm comparisons")

if __name__ == "__main__":
    main()
