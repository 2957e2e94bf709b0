"""Storing uploads through the endpoint: the binary COPY (apps.results.ingest.store)
must store exactly what was sent, null never 0, with the durations of apps.results.derive,
however the batch is split into COPY chunks and whichever columns are uniform in each
chunk."""

import pytest
from django.db import connection

from apps.comparisons.models import RunBlock
from apps.results import ingest
from apps.results.ingest import store
from apps.results.models import Sample
from testing.factories import make_sample
from testing.runner_calls import lease, upload

STORED = [c for c in ingest.COLUMNS if c not in ("comparison_id", "run_id", "arm_id", "total_us", "ttfb_us")]


def varied_samples(block: int) -> list[dict]:
    """Every kind of column in every state: uniform, null on some rows, null on all rows of
    a chunk, texts of one and of several lengths, extreme values."""
    samples = []
    for i in range(23):
        cold = i % 5 == 0
        failed = i % 7 == 3
        sample = make_sample(
            "h2" if i % 3 else "https-h1", block, i,
            phase="warmup" if i < 2 else "measure",
            step=-i if i % 4 == 1 else (None if i % 4 == 2 else i),
            part=None if i < 10 else ("a" * (i % 3 + 1)),
            dns_start=1 if cold else None, dns_end=2 if cold else None, conn_start=3 if cold else None,
            tls_start=4 if cold and i % 2 else None, conn_ready=5 if cold else None,
            req_start=None if failed else 10, resp_first_byte=None if failed or i == 4 else 400 + i,
            resp_headers_end=2**62 + i if i > 15 else None,
            app_done=None if failed else 1000 + i,
            error_class="timeout" if failed else None,
            error_detail=("tab\there\nnew \\N ünï " * (i % 3)) if failed else None,
            conn_id=None if i % 6 == 5 else f"c{i % 4}" * (1 + i % 2),
            conn_reused=None if i == 7 else bool(i % 2), tls_resumed=None if i < 12 else i % 2 == 0,
            early_data=False,
            alpn="h2" if i % 3 else "http/1.1", tls_version=None if i == 9 else "TLSv1.3",
            op=None if i == 11 else "file", path=None if i == 12 else f"/files/mid-{i:02d}" * (1 + i % 2),
            req_bytes=0 if i == 0 else 40 + i, resp_bytes=2**63 - 1 if i == 13 else 106941,
            status=None if failed else (2**31 - 1 if i == 14 else 200),
            server_delay_ms=None if i % 2 else (i if i % 4 == 0 else i + 0.25),
            server_time_us=None, srtt_us=0, retrans=None if i > 20 else i,
            period=None if i == 22 else 3, repetition=0,
        )
        samples.append(sample)
    return samples


def stored_rows(run) -> list[dict]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT a.label, {', '.join('s.' + c for c in ingest.COLUMNS)} FROM results_sample s "
                       "JOIN comparisons_arm a ON a.id = s.arm_id WHERE s.run_id = %s ORDER BY s.id", [run.id])
        names = ["arm_label", *ingest.COLUMNS]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


@pytest.mark.django_db
@pytest.mark.parametrize("chunk", [1000, 5, 1])
def test_every_value_is_stored_as_sent(runner_api, queued_run, monkeypatch, chunk):
    monkeypatch.setattr(store, "COPY_CHUNK", chunk)
    leased = lease(runner_api).json()["runs"][0]
    samples = varied_samples(0)
    response = upload(runner_api, leased, 0, samples=samples)
    assert response.status_code == 200, response.content
    assert response.json() == {"stored": len(samples), "duplicate": False, "next_block": 1}
    rows = stored_rows(queued_run)
    assert len(rows) == len(samples)
    for sample, row in zip(samples, rows, strict=True):
        expected = {name: sample.get(name) for name in STORED}
        expected["op"], expected["path"] = expected["op"] or "", expected["path"] or ""
        assert {name: row[name] for name in STORED} == expected
        assert row["arm_label"] == sample["arm"]
        assert (row["comparison_id"], row["run_id"]) == (queued_run.comparison_id, queued_run.id)
        # total = app_done − t0, ttfb = resp_first_byte − req_start; null when either is
        total = None if sample["app_done"] is None else sample["app_done"] - sample["t0"]
        ttfb = (None if sample["resp_first_byte"] is None or sample["req_start"] is None
                else sample["resp_first_byte"] - sample["req_start"])
        assert (row["total_us"], row["ttfb_us"]) == (total, ttfb)
    assert RunBlock.objects.get(run=queued_run, block=0).sample_count == len(samples)


@pytest.mark.django_db
@pytest.mark.parametrize("field, value, chunk", [("seq", 2**31, 1000), ("status", -(2**31) - 1, 2),
                                                        ("wall_time", 2**63, 1000), ("resp_bytes", 2**64, 2),
                                                        ("server_delay_ms", 10**400, 1000)])
def test_a_value_beyond_its_database_column_is_a_400_naming_it(runner_api, queued_run, monkeypatch,
                                                              field, value, chunk):
    monkeypatch.setattr(store, "COPY_CHUNK", chunk)
    leased = lease(runner_api).json()["runs"][0]
    samples = [make_sample("h2", 0, i) for i in range(6)]
    samples[3][field] = value
    response = upload(runner_api, leased, 0, samples=samples)
    assert response.status_code == 400, response.content
    assert list(response.json()) == [f"samples[3].{field}"]
    assert Sample.objects.count() == 0
    assert RunBlock.objects.count() == 0


@pytest.mark.django_db
def test_a_repeated_block_is_a_no_op_and_progress_is_the_first_missing_block(runner_api, queued_run):
    leased = lease(runner_api).json()["runs"][0]
    assert upload(runner_api, leased, 1).json() == {"stored": 6, "duplicate": False, "next_block": 0}
    again = upload(runner_api, leased, 1)
    assert again.status_code == 200
    assert again.json() == {"stored": 0, "duplicate": True, "next_block": 0}
    # Other contents for a stored block are a 409 (runner_protocol/tests/test_protocol_edge_cases.py).
    assert upload(runner_api, leased, 1, samples=[make_sample("h2", 1, i) for i in range(9)]).status_code == 409
    assert upload(runner_api, leased, 0).json() == {"stored": 6, "duplicate": False, "next_block": 2}
    assert Sample.objects.filter(run=queued_run).count() == 12
    queued_run.refresh_from_db()
    assert queued_run.next_block == 2


@pytest.mark.django_db
def test_invalid_samples_on_a_lost_lease_are_still_a_400(runner_api, queued_run):
    """Samples are checked against the run before the lease (as before one query did both)."""
    leased = lease(runner_api).json()["runs"][0]
    response = upload(runner_api, {**leased, "lease_token": "stale"}, 0, samples=[make_sample("nope", 0, 0)])
    assert response.status_code == 400
    assert "samples[0].arm" in response.json()
    assert upload(runner_api, {**leased, "lease_token": "stale"}, 0).status_code == 409
    assert Sample.objects.count() == 0
    assert RunBlock.objects.count() == 0


@pytest.mark.django_db
def test_null_app_done_only_on_error_samples(runner_api, queued_run):
    leased = lease(runner_api).json()["runs"][0]
    samples = [make_sample("h2", 0, i) for i in range(4)]
    samples[1].update(app_done=None, error_class="reset")
    samples[2].update(app_done=None)
    response = upload(runner_api, leased, 0, samples=samples)
    assert response.status_code == 400
    assert list(response.json()) == ["samples[2].app_done"]
    del samples[2]
    assert upload(runner_api, leased, 0, samples=samples).status_code == 200
