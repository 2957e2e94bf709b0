"""Durations are derived once (apps.results.storage.derive): what ingestion stores,
what the loader reads (from the blocks' stored columns and from the samples themselves)
and what the export writes are the same numbers, on samples with every kind of missing
phase: reused connections (no DNS, connect, TLS), plain HTTP and QUIC (no separate TLS
step), no first byte, and failed requests."""

import json

import pytest

from apps.comparisons.services import comparison_create, comparison_plan
from apps.results.models import BlockColumns, Sample
from apps.results.readers.phases import phase_breakdown_loaded
from apps.results.storage import loader
from apps.results.storage.block_columns import PHASE_NULL
from apps.results.tests.oracles import phase_breakdown

SPEC = {"name": "durations", "preset": "mid-image-series", "workload": {"kind": "series", "periods": [3],
                                                                         "repetitions": 2}, "blocks": 1, "seed": 3}


def sample(step: int, **timestamps) -> dict:
    base = {"arm": "h2" if step % 2 else "https-h1", "block": 0, "seq": step, "phase": "measure", "period": 3,
            "repetition": 0, "step": step, "wall_time": 1, "t0": 0, "resp_bytes": 100, "error_class": None,
            "dns_start": None, "dns_end": None, "conn_start": None, "tls_start": None, "conn_ready": None,
            "req_start": None, "resp_first_byte": None, "resp_end": None, "app_done": None, "conn_reused": None}
    return {**base, **timestamps}


# (sample, its durations in µs worked out by hand: dns, connect, tls, ttfb, download, total)
CASES = [
    # A new TLS connection: every phase.
    (sample(0, dns_start=5, dns_end=105, conn_start=110, tls_start=300, conn_ready=700, req_start=710,
            resp_first_byte=1500, resp_end=2600, app_done=2650, conn_reused=False),
     (100, 190, 400, 790, 1100, 2650)),
    # A reused connection: no DNS, connect or TLS.
    (sample(1, req_start=3, resp_first_byte=403, resp_end=903, app_done=950, conn_reused=True),
     (None, None, None, 400, 500, 950)),
    # Plain HTTP (or QUIC's single handshake): connect runs to conn_ready, no TLS step.
    (sample(2, dns_start=0, dns_end=40, conn_start=50, conn_ready=450, req_start=460, resp_first_byte=900,
            resp_end=1000, app_done=1001, conn_reused=False),
     (40, 400, None, 440, 100, 1001)),
    # Cached DNS on a new connection; the response ended without a first-byte mark.
    (sample(3, conn_start=0, tls_start=20, conn_ready=90, req_start=100, resp_end=700, app_done=720),
     (None, 20, 70, None, None, 720)),
    # A failed request: no app_done, so no total; the phases it reached still count.
    (sample(4, dns_start=0, dns_end=30, conn_start=31, error_class="timeout", conn_reused=False),
     (30, None, None, None, None, None)),
    # Warm-up requests are stored like any other.
    (sample(5, phase="warmup", req_start=10, resp_first_byte=60, resp_end=80, app_done=81, conn_reused=True),
     (None, None, None, 50, 20, 81)),
]
NAMES = ("dns", "connect", "tls", "ttfb", "download", "total")


@pytest.fixture
def stored(runner_api, org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.id))
    leased = runner_api.post("/api/runner/v1/lease", {"devices": ["host-lab-1"], "wait_s": 0},
                             format="json").json()["runs"][0]
    response = runner_api.post(f"/api/runner/v1/runs/{leased['run_id']}/samples",
                               {"lease_token": leased["lease_token"], "attempt": 1, "batch_seq": 0, "block": 0,
                                "samples": [s for s, _ in CASES]}, format="json")
    assert response.status_code == 200, response.content
    return comparison


def expected_us(step: int) -> dict[str, int | None]:
    return dict(zip(NAMES, CASES[step][1], strict=True))


def loaded_us(comparison) -> dict[int, dict[str, int | None]]:
    """step → durations as the loader gives them (its substitutes for null undone)."""
    c = loader.load_comparison(comparison, phases=True)
    out = {}
    for row, step in enumerate(c.table.step.tolist()):
        phases = {name: int(c.phase_us[name][row]) for name in ("dns", "connect", "tls", "download")}
        out[step] = {**{k: None if v == PHASE_NULL else v for k, v in phases.items()},
                     "ttfb": None if c.ttfb_null[row] else int(c.table.ttfb_us[row]),
                     "total": None if c.table.total_us[row] < 0 else int(c.table.total_us[row])}
    return out


@pytest.mark.django_db
def test_ingest_loader_and_export_derive_the_same_durations(stored, api):
    # Ingestion stores total and TTFB.
    for s in Sample.objects.filter(comparison=stored):
        assert (s.total_us, s.ttfb_us) == (expected_us(s.step)["total"], expected_us(s.step)["ttfb"]), s.step
    # The loader, from the block's stored columns and from the samples.
    assert BlockColumns.objects.filter(run__comparison=stored, rows=len(CASES)).count() == 1
    from_blocks = loaded_us(stored)
    BlockColumns.objects.all().delete()
    from_samples = loaded_us(stored)
    assert from_blocks == from_samples == {step: expected_us(step) for step in range(len(CASES))}
    # The export, in ms.
    response = api.get(f"/api/v1/comparisons/{stored.id}/samples.json")
    assert response.status_code == 200
    rows = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert len(rows) == len(CASES)
    for row in rows:
        want = {f"{name}_ms": None if us is None else us / 1000 for name, us in expected_us(row["step"]).items()}
        assert {key: row[key] for key in want} == want, row["step"]


@pytest.mark.django_db
def test_phase_medians_equal_postgresqls_over_the_stored_samples(stored):
    loaded = loader.load_comparison(stored, phases=True)
    breakdown = phase_breakdown_loaded(stored, loaded)
    assert breakdown == phase_breakdown(stored)
    assert [row["arm"] for row in breakdown] == ["https-h1", "h2"]
    # Over measured, successful requests only: steps 0, 2 (https-h1) and 1, 3 (h2).
    h1, h2 = breakdown
    assert (h1["n"], h1["tls_n"], h1["tls_ms"], h1["connect_ms"]) == (2, 1, 0.4, 0.295)
    assert (h2["n"], h2["dns_n"], h2["ttfb_n"], h2["ttfb_ms"]) == (2, 0, 1, 0.4)
