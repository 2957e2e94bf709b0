"""Ingestion through the runner upload endpoint vs a raw COPY of the same rows (the peer).

Target (DESIGN §11): ≥ 100,000 samples/s through the upload endpoint; a 5,000-sample
batch's p99 < 500 ms. Two peers: a bare COPY into a temp table (no WAL, index or foreign
keys: the floor), and the same COPY into results_sample committed per batch (what the
endpoint's transaction has to do in the database), plus that without the FK triggers.
Needs PostgreSQL (LATENCYLAB_DB_*; `make bench` starts one).
Prints figures; no pass/fail. Run from backend/.
"""

import json
import os
import statistics
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402  (after django.setup())
from django.test.utils import setup_test_environment  # noqa: E402  (after django.setup())
from rest_framework.test import APIClient  # noqa: E402  (after django.setup())

BATCH, BATCHES = 5000, 30


def sample(arm: str, block: int, seq: int) -> dict:
    return {"arm": arm, "block": block, "seq": seq, "phase": "measure", "period": 3, "repetition": 0,
            "step": seq % 3, "op": "file", "path": "/files/mid-01", "wall_time": 1_700_000_000_000_000 + seq,
            "t0": 0, "dns_start": None, "dns_end": None, "conn_start": None, "tls_start": None, "conn_ready": None,
            "req_start": 10, "req_end": 20, "resp_first_byte": 400, "resp_end": 900, "app_done": 1000,
            "conn_id": "c1", "conn_reused": True, "alpn": "h2", "tls_version": "TLSv1.3", "tls_resumed": False,
            "early_data": False, "req_bytes": 40, "resp_bytes": 106941, "status": 200, "server_delay_ms": None,
            "server_time_us": 12, "srtt_us": 50, "retrans": 0, "error_class": None, "error_detail": None}


def main() -> None:
    from django.conf import settings
    from django.test.utils import get_runner

    setup_test_environment()
    runner = get_runner(settings)(verbosity=0, interactive=False)
    old = runner.setup_databases()
    try:
        run_benchmark()
    finally:
        runner.teardown_databases(old)


def run_benchmark() -> None:
    from apps.accounts.services import organization_get_or_create
    from apps.comparisons.services import comparison_create, comparison_plan
    from apps.devices.services import pool_get_or_create, runner_hello, runner_register

    org = organization_get_or_create(slug="bench", name="Bench")
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    runner, secret = runner_register(pool=pool, name="bench")
    runner_hello(runner=runner, info={"version": "b", "drivers": ["host"]},
                 devices=[{"serial": "host-b", "platform": "host"}])
    comparison = comparison_create(organization=org, submitted_spec={
        "name": "bench", "preset": "mid-image-series", "blocks": BATCHES,
        "workload": {"kind": "series", "periods": [3], "repetitions": BATCHES}})
    comparison_plan(comparison_id=str(comparison.id))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Runner {secret}")
    leased = client.post("/api/runner/v1/lease", {"devices": ["host-b"], "wait_s": 0}, format="json").json()["runs"][0]
    bodies = [json.dumps({"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": b, "block": b,
                          "samples": [sample("h2" if i % 2 else "https-h1", b, i) for i in range(BATCH)]})
              for b in range(BATCHES)]
    times = []
    for body in bodies:
        start = time.perf_counter()
        response = client.generic("POST", f"/api/runner/v1/runs/{leased['run_id']}/samples", body,
                                  content_type="application/json")
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, response.content[:500]
    total = BATCH * BATCHES
    from django.db import transaction

    from apps.results.ingest import COLUMNS

    columns = ", ".join(COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM results_sample LIMIT %s", [BATCH])
        rows = cursor.fetchall()
        copy_text = "".join("\t".join("\\N" if v is None else ("t" if v is True else "f" if v is False else str(v))
                                       for v in row) + "\n" for row in rows)

        def peer(table: str) -> float:
            """BATCHES COPYs of the same rows, each committed in its own transaction."""
            start = time.perf_counter()
            for _ in range(BATCHES):
                with transaction.atomic():
                    with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                        copy.write(copy_text)
            return time.perf_counter() - start

        # Peer 1, the floor: a temp table (no WAL, no index, no foreign keys).
        cursor.execute(f"CREATE TEMP TABLE copy_peer AS SELECT {columns} FROM results_sample WITH NO DATA")
        bare = peer("copy_peer")
        # Peer 2, what the endpoint must do in the database: the real table (WAL, index, three
        # deferred foreign keys checked per row at commit), one transaction per batch.
        cursor.execute("SELECT max(id) FROM results_sample")
        last_id = cursor.fetchone()[0]
        real = peer("results_sample")
        # The same table without its foreign keys (a logged copy with the same index): what
        # the three per-row FK checks cost at commit.
        cursor.execute("CREATE TABLE bench_sample_nofk (LIKE results_sample "
                       "INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING INDEXES)")
        real_no_fk = peer("bench_sample_nofk")
        cursor.execute("DROP TABLE bench_sample_nofk")
        cursor.execute("DELETE FROM results_sample WHERE id > %s", [last_id])
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    endpoint = total / sum(times)
    print(f"ingestion: {total} samples in {BATCHES} batches of {BATCH}")
    print(f"  upload endpoint: {endpoint:,.0f} samples/s; batch median {statistics.median(times) * 1000:.0f} ms, "
          f"p99 {p99 * 1000:.0f} ms   (targets: ≥ 100,000/s, p99 < 500 ms)")
    print(f"  peer, bare COPY of the same rows into a temp table: {total / bare:,.0f} samples/s  "
          f"→ endpoint/COPY ratio {endpoint / (total / bare):.2f}")
    print(f"  peer, COPY + commit into results_sample (index, FK checks): {total / real:,.0f} samples/s  "
          f"→ endpoint/peer ratio {endpoint / (total / real):.2f}")
    print(f"  same into a copy of results_sample without its foreign keys: {total / real_no_fk:,.0f} samples/s")


if __name__ == "__main__":
    main()
