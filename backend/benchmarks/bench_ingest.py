"""Ingestion through the runner upload endpoint, with the stack running as `make up` runs it, vs a
COPY of the same rows (the peer), in the same run and the same database.

Target (docs/operations.md, "Targets"): ≥ 100,000 samples/s through the upload endpoint; a
5,000-sample batch's p99 < 500 ms; and ≥ 0.5 × the peer "COPY + commit into the sample table".
The endpoint is measured over HTTP against gunicorn with its production settings while the
Celery worker and beat and a host runner are up and idle (running_stack.py). Peers: the same
COPY into results_sample committed per batch (what the endpoint's transaction has to do in the
database: WAL, index, partition), timed in turn with the uploads batch by batch, and a bare
COPY into a temp table afterwards (no WAL, no index: the floor). Both bodies the endpoint takes
are measured in the same run, batch by batch in turn: JSON and the contract's columnar body
(latencylab_contract.columnar, what the runner sends by default). Prints figures; no pass/fail.
Run from backend/.
"""

import json
import os
import statistics
import time

from latencylab_contract import columnar
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


def upload(web: str) -> dict[str, list[float]]:
    """BATCHES blocks of BATCH samples uploaded as JSON and as many as columns, each form to a run
    of its own by a runner of its own pool (the stack's runner never sees them), over one
    keep-alive connection each, in turn, and the COPY peer after each pair: each form's batch
    seconds, and the peer's ("peer")."""
    from apps.accounts.services import organization_get_or_create
    from apps.comparisons.services import comparison_create, comparison_plan
    from apps.devices.services import pool_get_or_create, runner_hello, runner_register

    org = organization_get_or_create(slug="bench", name="Bench")
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    forms: dict[str, dict] = {}
    for form in ("json", "columnar"):
        runner, secret = runner_register(pool=pool, name=f"bench-{form}")
        runner_hello(runner=runner, info={"version": "b", "drivers": ["host"]},
                     devices=[{"serial": f"host-{form}", "platform": "host"}])
        comparison = comparison_create(organization=org, submitted_spec={
            "name": f"bench {form}", "preset": "mid-image-series", "blocks": BATCHES,
            "workload": {"kind": "series", "periods": [3], "repetitions": BATCHES}})
        comparison_plan(comparison_id=str(comparison.id))
        client = Http(web, f"Runner {secret}")
        status, body, _ = client.request("POST", "/api/runner/v1/lease",
                                         json.dumps({"devices": [f"host-{form}"], "wait_s": 0}).encode())
        assert status == 200, body[:500]
        leased = json.loads(body)["runs"][0]
        batches = [{"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": b, "block": b,
                    "samples": [sample("h2" if i % 2 else "https-h1", b, i) for i in range(BATCH)]}
                   for b in range(BATCHES)]
        encode, content_type = ((lambda batch: json.dumps(batch).encode(), "application/json") if form == "json"
                                else (columnar.encode, columnar.MEDIA_TYPE))
        forms[form] = {"client": client, "run": leased["run_id"], "bodies": [encode(b) for b in batches],
                       "content_type": content_type, "times": []}
    peer, peer_times = None, []
    for b in range(BATCHES):
        for form in forms.values():
            status, body, seconds = form["client"].request("POST", f"/api/runner/v1/runs/{form['run']}/samples",
                                                           form["bodies"][b], form["content_type"])
            assert status == 200, body[:500]
            form["times"].append(seconds)
        # The peer in turn with the uploads, so a change in the machine's load moves both alike.
        peer = peer or CopyPeer(forms["json"]["run"])
        peer_times.append(peer.copy("results_sample"))
    for form in forms.values():
        form["client"].close()
    assert peer is not None
    peer.clean()
    return {**{name: form["times"] for name, form in forms.items()}, "peer": peer_times}


class CopyPeer:
    """A COPY of the BATCH rows of the run's block 0 (text format, as a loader would send them),
    committed on its own: into results_sample (its rows deleted again by `clean`), or a temp table."""

    def __init__(self, run_id: str):
        from django.db import connection

        from apps.results.ingest import COLUMNS

        self.columns = ", ".join(COLUMNS)
        self.run_id = run_id
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {self.columns} FROM results_sample WHERE run_id = %s AND block = 0",
                           [run_id])
            rows = cursor.fetchall()
            cursor.execute("SELECT max(id) FROM results_sample")
            self.last_id = cursor.fetchone()[0]
        assert len(rows) == BATCH
        self.text = "".join("\t".join("\\N" if v is None else ("t" if v is True else "f" if v is False else str(v))
                                       for v in row) + "\n" for row in rows)

    def copy(self, table: str) -> float:
        from django.db import connection, transaction

        start = time.perf_counter()
        with transaction.atomic(), connection.cursor() as cursor:
            with cursor.cursor.copy(f"COPY {table} ({self.columns}) FROM STDIN") as copy:
                copy.write(self.text)
        return time.perf_counter() - start

    def clean(self) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM results_sample WHERE run_id = %s AND block = 0 AND id > %s",
                           [self.run_id, self.last_id])


def floor(run_id: str) -> float:
    """Seconds for BATCHES COPYs of the same rows into a temp table (no WAL, no index), each
    committed on its own, after the uploads."""
    from django.db import connection

    peer = CopyPeer(run_id)
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMP TABLE copy_peer AS SELECT {peer.columns} FROM results_sample WITH NO DATA")
    return sum(peer.copy("copy_peer") for _ in range(BATCHES))


def main() -> None:
    with running_stack("ingest") as state:
        times = upload(state["web"])
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT run_id FROM results_sample ORDER BY id LIMIT 1")
            bare = floor(cursor.fetchone()[0])
    total = BATCH * BATCHES
    real = sum(times.pop("peer"))
    print(f"ingestion: {total:,} samples in {BATCHES} batches of {BATCH:,} per form over HTTP to gunicorn "
          f"(2 gthread workers), Celery worker + beat and a runner idle; load average {os.getloadavg()[0]:.1f}")
    print(f"  peer, COPY + commit into results_sample (in turn with the uploads): {total / real:,.0f} samples/s")
    print(f"  floor, bare COPY of the same rows into a temp table: {total / bare:,.0f} samples/s")
    for form, seconds in times.items():
        ordered = sorted(seconds)
        p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
        endpoint = total / sum(seconds)
        ratio = endpoint / (total / real)
        print(f"  upload endpoint, {form}: {endpoint:,.0f} samples/s; batch median "
              f"{statistics.median(seconds) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms; endpoint/peer {ratio:.2f}, "
              f"endpoint/floor {endpoint / (total / bare):.2f}")
        gaps = [gap for gap, missed in (
            (f"{100_000 - endpoint:,.0f} samples/s short of 100,000/s", endpoint < 100_000),
            (f"{0.5 - ratio:.2f} short of 0.5 × the peer", ratio < 0.5),
            (f"p99 {p99 * 1000 - 500:.0f} ms over 500 ms", p99 >= 0.5)) if missed]
        verdict = "met" if not gaps else "MISSED: " + "; ".join(gaps)
        print(f"    targets (≥ 100,000/s, ≥ 0.5 × peer, p99 < 500 ms): {verdict}")


if __name__ == "__main__":
    main()
