"""The columnar upload body (device-runner/contract/README.md, "The columnar body";
apps.results.ingest.columnar): the same batch as JSON and as columns stores identical rows and
analysis columns; a bad columnar batch is a 400 naming `samples[i].field` (413 over the batch
bound) and stores nothing; a repeat is recognised whichever form each copy came in; an upload
takes four queries."""

import json
import struct
from typing import Any

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from latencylab_contract import columnar

from apps.comparisons.models import RunBlock
from apps.results.ingest import store
from apps.results.models import BlockColumns, Sample
from apps.results.storage.block_columns import block_columns_decode
from apps.results.tests.test_ingest_store import stored_rows, varied_samples
from testing.factories import make_sample
from testing.runner_calls import lease, upload


def upload_columnar(runner_api: Any, leased: dict, block: int, samples: list[dict] | None = None,
                    body: bytes | None = None, **extra: Any) -> Any:
    """As testing.runner_calls.upload, the batch sent as columns."""
    batch = {"lease_token": leased["lease_token"], "attempt": leased["attempt"], "batch_seq": block, "block": block,
             "baseline": {"tcp": {"n": 10, "avg_ms": 0.05}},
             "samples": samples if samples is not None else [make_sample("h2", block, i) for i in range(6)], **extra}
    return runner_api.generic("POST", f"/api/runner/v1/runs/{leased['run_id']}/samples",
                              columnar.encode(batch) if body is None else body, content_type=columnar.MEDIA_TYPE)


def analysis_columns(run: Any, block: int) -> dict[str, np.ndarray]:
    row = BlockColumns.objects.get(run=run, block=block)
    return block_columns_decode(bytes(row.data), row.rows, row.format_version)


@pytest.mark.django_db
@pytest.mark.parametrize("chunk", [1000, 5, 1])
def test_the_same_batch_as_json_and_as_columns_stores_identical_rows(runner_api, queued_run, monkeypatch, chunk):
    monkeypatch.setattr(store, "COPY_CHUNK", chunk)
    monkeypatch.setattr(store, "COLUMNAR_COPY_CHUNK", chunk)
    leased = lease(runner_api).json()["runs"][0]
    as_json, as_columns = varied_samples(0), varied_samples(1)
    assert upload(runner_api, leased, 0, samples=as_json).status_code == 200
    response = upload_columnar(runner_api, leased, 1, samples=as_columns)
    assert response.status_code == 200, response.content
    assert response.json() == {"stored": 23, "duplicate": False, "next_block": 2}
    rows = stored_rows(queued_run)
    by_block = {b: [{k: v for k, v in row.items() if k != "block"} for row in rows if row["block"] == b]
                for b in (0, 1)}
    assert len(by_block[1]) == 23
    assert sorted(by_block[0], key=lambda r: r["seq"]) == sorted(by_block[1], key=lambda r: r["seq"])
    json_columns, columnar_columns = analysis_columns(queued_run, 0), analysis_columns(queued_run, 1)
    assert json_columns.keys() == columnar_columns.keys()
    for name in json_columns:
        if name != "block":
            np.testing.assert_array_equal(json_columns[name], columnar_columns[name], err_msg=name)
    assert RunBlock.objects.get(run=queued_run, block=1).sample_count == 23


@pytest.mark.django_db
def test_an_empty_block_as_columns(runner_api, queued_run):
    leased = lease(runner_api).json()["runs"][0]
    response = upload_columnar(runner_api, leased, 0, samples=[])
    assert response.status_code == 200, response.content
    assert response.json()["stored"] == 0
    assert RunBlock.objects.get(run=queued_run, block=0).sample_count == 0


@pytest.mark.django_db
@pytest.mark.parametrize("first, second", [(upload, upload_columnar), (upload_columnar, upload),
                                           (upload_columnar, upload_columnar)],
                         ids=["json-then-columns", "columns-then-json", "columns-twice"])
def test_a_repeat_is_recognised_whichever_form_each_copy_came_in(runner_api, queued_run, first, second):
    leased = lease(runner_api).json()["runs"][0]
    samples = varied_samples(0)
    assert first(runner_api, leased, 0, samples=samples).json()["duplicate"] is False
    again = second(runner_api, leased, 0, samples=samples)
    assert again.status_code == 200, again.content
    assert again.json() == {"stored": 0, "duplicate": True, "next_block": 1}
    other = [dict(s) for s in samples]
    other[4]["resp_end"] = (other[4]["resp_end"] or 0) + 1
    assert second(runner_api, leased, 0, samples=other).status_code == 409
    assert Sample.objects.filter(run=queued_run).count() == len(samples)


@pytest.mark.django_db
def test_a_columnar_upload_is_four_queries(runner_api, queued_run):
    """The runner's token (one query); then in the block's transaction the run locked with its arms
    and the block recorded (one query of two statements), the samples' COPY and the analysis
    columns' insert (on psycopg's cursor: not counted here)."""
    leased = lease(runner_api).json()["runs"][0]
    with CaptureQueriesContext(connection) as queries:
        response = upload_columnar(runner_api, leased, 0)
    assert response.json() == {"stored": 6, "duplicate": False, "next_block": 1}
    # The test's own transaction makes the block's a savepoint.
    assert [query["sql"].split()[0] for query in queries] == ["SELECT", "SAVEPOINT", "SELECT", "RELEASE"]
    assert "FOR UPDATE" in queries[2]["sql"]
    assert "INSERT INTO comparisons_runblock" in queries[2]["sql"]


def good() -> list[dict[str, Any]]:
    return [make_sample("h2", 0, i) for i in range(6)]


def bad_last(**fields: Any) -> list[dict[str, Any]]:
    samples = good()
    samples[5].update(fields)
    return samples


def bad_all(**fields: Any) -> list[dict[str, Any]]:
    """A column of another type: every sample's value (a column holds one type)."""
    return [{**sample, **fields} for sample in good()]


def without(name: str) -> list[dict[str, Any]]:
    samples = good()
    for sample in samples:
        del sample[name]
    return samples


BAD = {  # samples → the field the 400 names, in samples[5] (or samples[0] for a whole column)
    "a string for an integer": (bad_all(seq="5"), "samples[5].seq"),
    "a float for a timestamp": (bad_last(resp_end=900.5), "samples[5].resp_end"),
    "a string for a boolean": (bad_all(conn_reused="yes"), "samples[5].conn_reused"),
    "a boolean for a string": (bad_all(alpn=True), "samples[5].alpn"),
    "negative microseconds": (bad_last(resp_first_byte=-3), "samples[5].resp_first_byte"),
    "in_flight zero": (bad_last(in_flight=0), "samples[5].in_flight"),
    "t0 not zero": (bad_last(t0=7), "samples[5].t0"),
    "beyond its database column": (bad_last(status=2**31), "samples[5].status"),
    "an unknown phase": (bad_last(phase="cooldown"), "samples[5].phase"),
    "an unknown error class": (bad_last(error_class="gremlins"), "samples[5].error_class"),
    "an unknown op": (bad_last(op="put"), "samples[5].op"),
    "an unknown arm": (bad_last(arm="h9"), "samples[5].arm"),
    "a string too long": (bad_last(alpn="h" * 17), "samples[5].alpn"),
    "another block": (bad_last(block=1), "samples[5].block"),
    "null where required": (bad_last(seq=None), "samples[5].seq"),
    "null app_done without an error": (bad_last(app_done=None), "samples[5].app_done"),
    "an unknown field": (bad_last(favourite_colour="blue"), "samples[5].favourite_colour"),
    "a required column missing": (without("error_class"), "samples[0].error_class"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("samples, field", BAD.values(), ids=BAD.keys())
def test_a_bad_columnar_batch_is_a_400_naming_the_field(runner_api, queued_run, samples, field):
    leased = lease(runner_api).json()["runs"][0]
    response = upload_columnar(runner_api, leased, 0, samples=samples)
    assert response.status_code == 400, response.content
    assert field in response.json(), response.json()
    assert Sample.objects.count() == 0
    assert RunBlock.objects.count() == 0


def replace_column(body: bytes, name: str, entry: dict[str, Any], data: bytes) -> bytes:
    """The body with one column's header entry and buffer replaced (same row count)."""
    batch = columnar.decode(body)
    samples = batch.pop("samples")
    header, offset = columnar.read_header(body)
    chunks: list[bytes] = []
    for column in header["columns"]:
        size = {"int64": 8, "float64": 8, "bool": 1, "str": 4}.get(column["type"], 0) * header["rows"]
        buffers = []
        if column["type"] in ("int64", "float64") and column.get("nulls"):
            buffers.append(body[offset:offset + header["rows"]])
            offset += header["rows"] + -header["rows"] % 8
        if size:
            buffers.append(body[offset:offset + size])
            offset += size + -size % 8
        chunks.append(data if column["name"] == name else b"".join(b + bytes(-len(b) % 8) for b in buffers))
    header["columns"] = [entry if c["name"] == name else c for c in header["columns"]]
    assert samples
    head = json.dumps(header).encode()
    start = columnar.MAGIC + struct.pack("<I", len(head)) + head
    return start + bytes(-len(start) % 8) + b"".join(c + bytes(-len(c) % 8) for c in chunks)


@pytest.mark.django_db
@pytest.mark.parametrize("change, expected", [
    ("truncated", "columnar body"),
    ("a code outside the values", "columnar body: arm"),
    ("an unknown type", "columnar body"),
])
def test_a_malformed_columnar_body_is_a_400(runner_api, queued_run, change, expected):
    leased = lease(runner_api).json()["runs"][0]
    body = columnar.encode({"lease_token": leased["lease_token"], "attempt": leased["attempt"], "batch_seq": 0,
                            "block": 0, "samples": good()})
    if change == "truncated":
        body = body[:-8]
    elif change == "a code outside the values":
        body = replace_column(body, "arm", {"name": "arm", "type": "str", "values": ["h2"]},
                              np.array([0, 0, 0, 0, 0, 1], "<i4").tobytes())
    else:
        body = replace_column(body, "seq", {"name": "seq", "type": "int128"}, b"")
    response = upload_columnar(runner_api, leased, 0, body=body)
    assert response.status_code == 400, response.content
    assert expected in response.json()["detail"]
    assert Sample.objects.count() == 0


@pytest.mark.django_db
def test_a_columnar_batch_over_the_bound_is_a_413(runner_api, queued_run, settings):
    settings.RUNNER_MAX_BATCH_SAMPLES = 5
    leased = lease(runner_api).json()["runs"][0]
    response = upload_columnar(runner_api, leased, 0, samples=good())
    assert response.status_code == 413, response.content
    assert "samples" in response.json()["detail"]
    assert Sample.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_runner_client_uploads_columns_to_a_live_backend(live_server, pool, queued_run, tmp_path):
    """End to end: the runner's own client (columns by default) against the real server."""
    from apps.devices.services import runner_hello, runner_register
    from latencylab_runner.agent.client import RunnerClient
    from latencylab_runner.agent.journal import read_journal

    runner, secret = runner_register(pool=pool, name="lab-live")
    runner_hello(runner=runner, info={"version": "test", "drivers": ["host"]},
                 devices=[{"serial": "host-live", "platform": "host", "model": "test", "os_version": "1"}])
    client = RunnerClient(live_server.url, secret, retry_budget_s=0, journal=tmp_path)
    sent: list[tuple[str, bytes]] = []
    client._http.event_hooks["request"].append(lambda r: sent.append((r.headers["Content-Type"], r.read())))
    try:
        leased, = client.lease(["host-live"], 0)
        batch = {"lease_token": leased["lease_token"], "attempt": leased["attempt"], "batch_seq": 0, "block": 0,
                 "baseline": {"tcp": {"n": 10, "avg_ms": 0.05}}, "samples": varied_samples(0)}
        assert client.upload_block(leased["run_id"], batch) == {"stored": 23, "duplicate": False, "next_block": 1}
        assert client.upload_block(leased["run_id"], batch) == {"stored": 0, "duplicate": True, "next_block": 1}
    finally:
        client.close()
    uploads = [body for content_type, body in sent if content_type == columnar.MEDIA_TYPE]
    assert len(uploads) == 2
    rows = stored_rows(queued_run)
    assert [row["seq"] for row in rows] == list(range(23))
    for sample, row in zip(batch["samples"], rows, strict=True):
        assert row["arm_label"] == sample["arm"]
        assert row["resp_headers_end"] == sample["resp_headers_end"]
        assert row["error_detail"] == sample["error_detail"]
    assert read_journal(tmp_path)[0]["samples"] == batch["samples"]  # the journal keeps the JSON form


def raw_body(header: Any, buffers: bytes = b"") -> bytes:
    head = header if isinstance(header, bytes) else json.dumps(header).encode()
    start = columnar.MAGIC + struct.pack("<I", len(head)) + head
    return start + bytes(-len(start) % 8) + buffers


ENVELOPE = {"lease_token": "x", "attempt": 1, "batch_seq": 0, "block": 0}
NASTY = {
    "only the magic": columnar.MAGIC,
    "a header length past the end": columnar.MAGIC + struct.pack("<I", 10**6) + b"{}",
    "a header nested past json's depth": raw_body(b"[" * 100_000 + b"]" * 100_000),
    "a header that is a list": raw_body([1, 2]),
    "rows negative": raw_body({**ENVELOPE, "rows": -1, "columns": []}),
    "many rows and no columns": raw_body({**ENVELOPE, "rows": 10**12, "columns": []}),
    "rows and no columns": raw_body({**ENVELOPE, "rows": 3, "columns": []}),
    "a column without a name": raw_body({**ENVELOPE, "rows": 1, "columns": [{"type": "null"}]}),
    "a column twice": raw_body({**ENVELOPE, "rows": 1, "columns": [{"name": "seq", "type": "null"}] * 2}),
    "values not strings": raw_body({**ENVELOPE, "rows": 1, "columns": [{"name": "arm", "type": "str", "values": [1]}]},
                                   bytes(8)),
    "a mask that disagrees with nulls": raw_body(
        {**ENVELOPE, "rows": 1, "columns": [{"name": "seq", "type": "int64", "nulls": 1}]}, b"\x01" + bytes(15)),
    "a bool of 7": raw_body({**ENVELOPE, "rows": 1, "columns": [{"name": "conn_reused", "type": "bool"}]},
                            b"\x07" + bytes(7)),
    "nulls a string": raw_body({**ENVELOPE, "rows": 1, "columns": [{"name": "seq", "type": "int64", "nulls": "0"}]},
                               bytes(8)),
}


@pytest.mark.django_db
@pytest.mark.parametrize("body", NASTY.values(), ids=NASTY.keys())
def test_a_nonsensical_columnar_body_is_refused_never_a_500(runner_api, queued_run, body):
    leased = lease(runner_api).json()["runs"][0]
    # lease_token "x": the samples are checked before the lease, so a 409 would mean they passed
    response = upload_columnar(runner_api, leased, 0, body=body)
    assert response.status_code in (400, 413), response.content
    assert Sample.objects.count() == 0


@pytest.mark.parametrize("rows", [1, 3, 8])  # never built empty: samples_insert stores no rows itself
def test_column_rows_lay_out_what_copy_rows_do(rows):
    """copy_codec.ColumnRows (columns, no step per row) against CopyRows (the JSON path's), for
    texts of one and several widths, nulls on some rows, on all and on none, and constants."""
    from apps.results.ingest.copy_codec import NULL, ColumnRows, CopyRows, encode_text

    texts = ["x", "yy", None, "x", "zz", None, "x", "yy"][:rows]
    same = ["ab", "cd", "ab", "cd", "ab", "cd", "ab", "cd"][:rows]
    numbers = np.array([5, 0, 7, -1, 2**40, 0, 3, 9][:rows], np.int64)
    some = np.array([True, False, True, True, False, True, True, False][:rows])
    values = sorted({t for t in texts if t is not None})
    codes = np.array([-1 if t is None else values.index(t) for t in texts], np.int32)
    same_values = sorted(set(same))
    columnar_rows, json_rows = ColumnRows(rows), CopyRows(rows)
    columnar_rows.constant("id", b"\x00\x00\x00\x01\x07")
    json_rows.constant("id", b"\x00\x00\x00\x01\x07")
    columnar_rows.table("text", codes, [*map(encode_text, values), NULL])
    json_rows.lookup("text", texts, {t: NULL if t is None else encode_text(t) for t in set(texts)})
    columnar_rows.table("same", np.array([same_values.index(t) for t in same], np.int32),
                        [*map(encode_text, same_values), NULL])
    json_rows.lookup("same", same, {t: encode_text(t) for t in set(same)})
    for name, present in (("some", some), ("all", np.ones(rows, bool)), ("none", np.zeros(rows, bool))):
        columnar_rows.numbers(name, ">i8", numbers, present)
        json_rows.numbers(name, ">i8", np.where(present, numbers, 0), present)
    order = ["id", "text", "same", "some", "all", "none"]
    assert columnar_rows.build(order) == json_rows.build(order)
