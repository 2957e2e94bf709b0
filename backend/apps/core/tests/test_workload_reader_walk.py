"""Every reader handles every workload kind. For each preset, one comparison of every workload
kind the spec validator knows (the preset's workload when the kind is its own, scaled down;
another kind replacing it otherwise) is submitted over the API, planned by the Celery worker,
measured by the host runner's job builder and probe against the reference target, and
analysed; an import joins them. Then every reader of a comparison walks all of them: the
builder's estimate (POST /comparisons/validate, whose pace reads every finished comparison of
the organization), planning, the detail and list, every GET the OpenAPI schema has under a
comparison (results, verdict and its history, exports, reports, shares, artifacts), a verdict
against another comparison, a share link's public report and card, the trends of every arm,
the home page.
Each must answer 200 with a body its OpenAPI schema accepts. The kinds and presets come
from the code, so a kind or a preset added later is walked too (a kind without a small
workload here fails the test rather than being left out)."""

import pytest
from celery.contrib.testing.worker import start_worker
from rest_framework.test import APIClient

from apps.comparisons.models import Comparison, Run
from apps.comparisons.presets import PRESETS
from apps.comparisons.spec import WORKLOAD_KINDS, blocks_range
from apps.results.tests.openapi_schemas import schema_errors
from config.celery import app as celery_app
from testing.host_agent import reference_of
from testing.openapi_walk import Operation, api_schema, fill_path, operations, response_text
from testing.probe_runs import measure_queued_runs
from testing.waiting import wait_for

# The smallest workload of each kind that still has every field a reader might look at:
# periods, rounds with calls, files, swept delays and sizes, a request list.
SMALL_WORKLOADS = {
    "series": {"kind": "series", "periods": [1, 2], "repetitions": 2},
    "api": {"kind": "api", "rounds": 2, "calls": 2},
    "mixed": {"kind": "mixed", "rounds": 2, "calls": 2},
    "delay_sweep": {"kind": "delay_sweep", "start_ms": 0, "stop_ms": 20, "step_ms": 10, "trials": 2},
    "payload_sweep": {"kind": "payload_sweep", "sizes": [1000, 35000], "repetitions": 2},
    "requests": {"kind": "requests", "repetitions": 2, "requests": [
        {"name": "bytes", "path": "/bytes/100"}, {"name": "echo", "method": "POST", "path": "/echo", "body": "ping"}]},
}
# Readers not walked here, and why.
NOT_WALKED = {
    "/api/v1/comparisons/{comparison_id}/report.pdf": "Chromium printing report.html, which is walked "
                                                      "(reports tests print one)",
    "/api/v1/comparisons/{comparison_id}/runs/{run_id}/artifacts/{artifact_id}": "no run here uploads an artifact",
    "/api/v1/public/reports/{token}/report.pdf": "Chromium printing the public report.html, which is walked",
}


def spec_of(preset: str, kind: str) -> dict:
    """The preset with a small workload of `kind` (merged into the preset's own when the kinds
    agree); fixed blocks become 2 and run until decided 2 … 3, so a look can extend the runs.
    A request list is HTTP: a preset's gRPC arm stays out of one."""
    preset_spec = PRESETS[preset]["spec"]
    spec = {"preset": preset, "name": f"{preset} x {kind}", "seed": 7, "workload": SMALL_WORKLOADS[kind],
            "blocks": {"min": 2, "max": 3} if blocks_range(preset_spec) or preset_spec.get("blocks") == "auto"
            else 2}
    if kind == "requests" and any(arm["protocol"] == "grpc" for arm in preset_spec["arms"]):
        spec["arms"] = [arm for arm in preset_spec["arms"] if arm["protocol"] != "grpc"]
        spec["baseline_arm"] = preset_spec.get("baseline_arm")
    return spec


def import_rows() -> list[dict]:
    """Two arms on two devices over three rounds of three requests, with phases on some rows."""
    return [{"arm": arm, "device": device, "round": rnd, "sequence": seq, "ms": base + 2 * seq + rnd,
             "bytes": 1000 * seq, **({"ttfb_ms": base / 2, "connect_ms": 1.5} if seq == 0 else {})}
            for arm, base in (("app-1.0", 40.0), ("app-1.1", 36.0)) for device in ("Pixel 8", "iPhone 15")
            for rnd in range(3) for seq in range(3)]


def reader_operations() -> list[Operation]:
    """Every GET of the API under one comparison, as the schema generated now lists them."""
    found = [op for op in operations(api_schema()) if op.safe and op.path.startswith(
        "/api/v1/comparisons/{comparison_id}") and op.path not in NOT_WALKED]
    assert len(found) >= 8, [str(op) for op in found]
    return found


def checked_json(response, operation: Operation | None = None, component: str | None = None) -> dict:
    """The 200 body, checked against its OpenAPI component."""
    assert response.status_code == 200, (str(operation), response.status_code, response_text(response)[:2000])
    if component is None and operation is not None:
        schema = operation.spec["responses"]["200"]["content"].get("application/json", {}).get("schema", {})
        component = schema.get("$ref", "").rsplit("/", 1)[-1] or None
    body = response.json()
    if component:
        assert schema_errors(component, body) == [], (str(operation or component), schema_errors(component, body))
    return body


def walk_trends(api: APIClient, comparisons: list[Comparison]) -> None:
    """Trends of every arm label the comparisons use, each fetched once: every comparison
    with that arm is one of the points of its total time."""
    arms: dict[str, set[str]] = {}
    for comparison in comparisons:
        for label in comparison.arms.values_list("label", flat=True):
            arms.setdefault(label, set()).add(str(comparison.pk))
    for arm, ids in arms.items():
        for metric in ("total_ms", "ttfb_ms"):
            trend = checked_json(api.get("/api/v1/trends", {"arm": arm, "metric": metric}), component="Trend")
            if metric == "total_ms":
                missing = ids - {p["comparison_id"] for p in trend["points"]}
                assert not missing, (arm, [c.name for c in comparisons if str(c.pk) in missing])
            assert api.get("/api/v1/trends.csv", {"arm": arm, "metric": metric}).status_code == 200


def walk_readers(api: APIClient, comparison: Comparison, other: Comparison, operations_: list[Operation]) -> None:
    """Every reader of one comparison answers 200 with a body its schema accepts."""
    cid = str(comparison.pk)
    values = {"comparison_id": cid, "run_id": str(comparison.runs.order_by("slot")[0].pk), "fmt": "csv"}
    for operation in operations_:
        formats = ("csv", "json") if "fmt" in operation.path_parameters else ("",)
        for fmt in formats:
            response = api.get(fill_path(operation, {**values, "fmt": fmt}))
            assert response.status_code == 200, (str(operation), fmt, response_text(response)[:2000])
            if response.get("Content-Type", "").startswith("application/json") and not fmt:
                checked_json(response, operation)
            else:
                assert response_text(response).strip(), (str(operation), fmt)
    # The verdict against another comparison (a CI baseline by id), whatever its workload.
    checked_json(api.get(f"/api/v1/comparisons/{cid}/verdict?baseline={other.pk}"), component="ComparisonVerdict")
    # A share link: the public report, its HTML and card, as whoever holds the link sees them.
    share = api.post(f"/api/v1/comparisons/{cid}/shares", {"expires_in_days": 1}, format="json")
    assert share.status_code == 201, share.content
    token = share.json()["token"]
    public = APIClient()
    checked_json(public.get(f"/api/v1/public/reports/{token}"), component="PublicReport")
    for suffix in ("report.html", "card.png"):
        response = public.get(f"/api/v1/public/reports/{token}/{suffix}")
        assert response.status_code == 200, (suffix, response.status_code)
        assert response_text(response), suffix


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_reader_answers_for_every_workload_kind_of_the_preset_and_an_import(preset, api, runner_api, target):
    assert set(SMALL_WORKLOADS) == set(WORKLOAD_KINDS), "give every workload kind a small workload here"
    reference = reference_of(target)
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        imported = api.post("/api/v1/imports", {"name": f"imported beside {preset}", "rows": import_rows(),
                                                "baseline_arm": "app-1.0"}, format="json")
        assert imported.status_code == 201, imported.content
        submitted, estimates = {}, {}
        for kind in WORKLOAD_KINDS:
            spec = spec_of(preset, kind)
            # The builder's dry run first (the organization has an import by now), then the real thing.
            estimates[kind] = checked_json(api.post("/api/v1/comparisons/validate", spec, format="json"),
                                           component="ComparisonValidation")["estimate"]
            created = api.post("/api/v1/comparisons", spec, format="json")
            assert created.status_code == 201, (kind, created.content)
            submitted[created.json()["id"]] = kind
        ids = [*submitted, imported.json()["id"]]
        assert wait_for(lambda: Run.objects.filter(comparison_id__in=list(submitted)).values(
            "comparison_id").distinct().count() == len(submitted), 60), "the plan task did not plan every comparison"
        # Measure whatever is queued until every comparison has ended; a look of run until
        # decided that does not decide queues its runs again.
        while True:
            measure_queued_runs(runner_api, reference)
            assert wait_for(lambda: Run.objects.filter(comparison_id__in=ids, status=Run.Status.QUEUED).exists()
                            or all(c.status in Comparison.TERMINAL for c in Comparison.objects.filter(pk__in=ids)),
                            120), "a comparison neither ended nor queued a run"
            if all(c.status in Comparison.TERMINAL for c in Comparison.objects.filter(pk__in=ids)):
                break
    comparisons = list(Comparison.objects.filter(pk__in=ids).order_by("created_at"))
    for comparison in comparisons:
        assert comparison.status == "finished", (comparison.name, comparison.status, comparison.error,
                                                 list(comparison.runs.values("status", "error")))
    # Planning: the scheduler planned what the builder estimated.
    for cid, kind in submitted.items():
        runs = Run.objects.filter(comparison_id=cid)
        assert runs.count() == estimates[kind]["runs"], kind
        assert estimates[kind]["requests_min"] > 0, kind
    # The estimate, now with every kind finished (an import among them): the pace of finished
    # comparisons counts the measured ones; the import measured nothing on a device.
    for kind in WORKLOAD_KINDS:
        estimate = checked_json(api.post("/api/v1/comparisons/validate", spec_of(preset, kind), format="json"),
                                component="ComparisonValidation")["estimate"]
        assert estimate["pace_comparisons"] >= 1, (kind, estimate)
        assert estimate["seconds_per_request"] is not None, (kind, estimate)
    checked_json(api.post("/api/v1/comparisons/validate", {"preset": preset}, format="json"),
                 component="ComparisonValidation")
    checked_json(api.get("/api/v1/comparisons"), component="PaginatedComparisonSummaryList")
    checked_json(api.get("/api/v1/home"), component="Home")
    checked_json(api.get("/api/v1/trends/options"), component="TrendOptions")
    operations_ = reader_operations()
    for index, comparison in enumerate(comparisons):
        walk_readers(api, comparison, comparisons[index - 1], operations_)
    walk_trends(api, comparisons)
