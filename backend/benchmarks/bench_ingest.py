"""Ingestion through the runner upload endpoint, with the stack running as `make up` runs it,
vs a COPY of the same rows (the peer), in the same run and the same database.

Target (docs/operations.md, "Targets"): ≥ 100,000 samples/s through the upload endpoint; a
5,000-sample batch's p99 < 500 ms; and ≥ 0.5 × the peer "COPY + commit into the sample
table". The endpoint is measured over HTTP against gunicorn with its production settings
while the Celery worker and beat and a host runner are up and idle (running_stack.py).
Peers: a bare COPY into a temp table (no WAL, no index: the floor), and the same COPY into
results_sample committed per batch (what the endpoint's transaction has to do in the
database: WAL, index, partition). Prints figures; no pass/fail. Run from backend/.
"""

import json
import os
import statistics
import time

from running_stack import Http, running_stack

BATCH, BATCHES = 5000, 30


def sample(arm: str, block: int, seq: int) -> dict:
    return {"arm": arm, "block": block, "seq": seq, "phase": "measure", "period": 3, "repetition": 0,
            "step": seq % 3, "op": "file", "path": "/files/mid-01", "wall_time": 1_700_000_000_000_000 + seq,
            "t0": 0, "dns_start": None, "dns_end": None, "conn_start": None, "tls_start": None, "conn_ready": None,
            "req_start": 10, "req_end": 20, "resp_first_byte": 400, "resp_end": 900, "app_done": 1000,
            "conn_id": "c1", "conn_reused": True, "alpn": "h2", "tls_version": "TLSv1.3", "tls_resumed": False,
            "early_data": False, "req_bytes": 40, "resp_bytes": 106941, "status": 200, "server_delay_ms": None,
            "server_time_us": 12, "srtt_us": 50, "retrans": 0, "error_class": None, "error_detail": None}


def upload(web: str) -> list[float]:
    """BATCHES blocks of BATCH samples uploaded by a runner of its own pool (the stack's runner
    never sees them) over one keep-alive connection: each batch's seconds."""
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
    bodies = [json.dumps({"lease_token": "LEASE", "attempt": 1, "batch_seq": b, "block": b,
                          "samples": [sample("h2" if i % 2 else "https-h1", b, i) for i in range(BATCH)]}).encode()
              for b in range(BATCHES)]
    client = Http(web, f"Runner {secret}")
    status, body, _ = client.request("POST", "/api/runner/v1/lease",
                                     json.dumps({"devices": ["host-b"], "wait_s": 0}).encode())
    assert status == 200, body[:500]
    leased = json.loads(body)["runs"][0]
    bodies = [data.replace(b'"LEASE"', json.dumps(leased["lease_token"]).encode(), 1) for data in bodies]
    times = []
    for data in bodies:
        status, body, seconds = client.request("POST", f"/api/runner/v1/runs/{leased['run_id']}/samples", data)
        assert status == 200, body[:500]
        times.append(seconds)
    client.close()
    return times


def peers() -> tuple[float, float]:
    """Seconds for BATCHES COPYs of BATCH stored rows, each committed on its own: into a temp
    table, and into results_sample (the rows it adds are deleted again)."""
    from django.db import connection, transaction

    from apps.results.ingest import COLUMNS

    columns = ", ".join(COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM results_sample LIMIT %s", [BATCH])
        rows = cursor.fetchall()
        copy_text = "".join("\t".join("\\N" if v is None else ("t" if v is True else "f" if v is False else str(v))
                                       for v in row) + "\n" for row in rows)

        def peer(table: str) -> float:
            start = time.perf_counter()
            for _ in range(BATCHES):
                with transaction.atomic():
                    with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                        copy.write(copy_text)
            return time.perf_counter() - start

        cursor.execute(f"CREATE TEMP TABLE copy_peer AS SELECT {columns} FROM results_sample WITH NO DATA")
        bare = peer("copy_peer")
        cursor.execute("SELECT max(id) FROM results_sample")
        last_id = cursor.fetchone()[0]
        real = peer("results_sample")
        cursor.execute("DELETE FROM results_sample WHERE id > %s", [last_id])
    return bare, real


def main() -> None:
    with running_stack("ingest") as state:
        times = upload(state["web"])
        bare, real = peers()
    total = BATCH * BATCHES
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    endpoint = total / sum(times)
    ratio = endpoint / (total / real)
    print(f"ingestion: {total:,} samples in {BATCHES} batches of {BATCH:,} over HTTP to gunicorn (2 gthread workers), "
          f"Celery worker + beat and a runner idle; load average {os.getloadavg()[0]:.1f}")
    print(f"  upload endpoint: {endpoint:,.0f} samples/s; batch median {statistics.median(times) * 1000:.0f} ms, "
          f"p99 {p99 * 1000:.0f} ms")
    print(f"  peer, COPY + commit into results_sample: {total / real:,.0f} samples/s → endpoint/peer {ratio:.2f}")
    print(f"  floor, bare COPY of the same rows into a temp table: {total / bare:,.0f} samples/s "
          f"→ endpoint/floor {endpoint / (total / bare):.2f}")
    gaps = [gap for gap, missed in ((f"{100_000 - endpoint:,.0f} samples/s short of 100,000/s", endpoint < 100_000),
                                    (f"{0.5 - ratio:.2f} short of 0.5 × the peer", ratio < 0.5),
                                    (f"p99 {p99 * 1000 - 500:.0f} ms over 500 ms", p99 >= 0.5)) if missed]
    verdict = "met" if not gaps else "MISSED: " + "; ".join(gaps)
    print(f"  targets (≥ 100,000/s, ≥ 0.5 × peer, p99 < 500 ms): {verdict}")


if __name__ == "__main__":
    main()
