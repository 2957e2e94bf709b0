"""The results API on a stored 1,000,000-sample comparison, through the real web server.

Target (docs/operations.md, "Targets"): GET results and GET verdict (against the
comparison's own baseline arm, and against another comparison with ?baseline=) answer with
p95 < 100 ms. Measured with the stack as `make up` runs it (running_stack.py: gunicorn with
its production settings, Celery worker and beat, an idle runner), over one keep-alive
connection authenticated with an API token, as a CI job or a script reads it. Peer: an empty
authenticated request, GET /api/v1/secrets (the organization has none: authentication,
organization lookup and an empty list). Prints figures; no pass/fail. Run from backend/.
"""

import os
import time

from running_stack import Http, percentiles, running_stack

REQUESTS = 200
TARGET_MS = 100.0


def seed() -> tuple[str, str]:
    """Two finished 1,000,000-sample comparisons of the same spec in the API token's
    organization, each analysed once by the stack's Celery worker: (candidate id, baseline id)."""
    from django.db import transaction
    from django.utils import timezone
    from seed import million_sample_comparison

    from apps.accounts.models import Organization
    from apps.comparisons.models import Comparison
    from apps.results.tasks import analyse_comparison

    org = Organization.objects.get(slug="demo")
    ids = []
    for name, seed_, ratios in (("1M baseline", 2, {"https-h1": 1.0, "h2": 0.62, "h3": 0.57}),
                                ("1M", 1, None)):
        start = time.perf_counter()
        # One transaction, so the stack's reconciliation never sees some runs stored and
        # done and starts analysing half the comparison.
        with transaction.atomic():
            comparison, stored = million_sample_comparison(organization=org, name=name, seed=seed_, ratios=ratios)
            Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING,
                                                               updated_at=timezone.now())
            transaction.on_commit(lambda pk=str(comparison.pk): analyse_comparison.delay(pk))
        while not Comparison.objects.filter(pk=comparison.pk, status=Comparison.Status.FINISHED).exists():
            time.sleep(0.5)
        print(f"stored {stored:,} samples ({name}) and analysed them once in {time.perf_counter() - start:.1f} s")
        ids.append(str(comparison.pk))
    return ids[1], ids[0]


def measure(client: Http, path: str) -> tuple[list[float], int]:
    """REQUESTS timed GETs after one untimed (the first fills what is cached): (seconds, bytes)."""
    status, body, first = client.request("GET", path)
    assert status == 200, (path, status, body[:300])
    times = []
    for _ in range(REQUESTS):
        status, body, seconds = client.request("GET", path)
        assert status == 200, (path, status, body[:300])
        times.append(seconds)
    return [first, *times], len(body)


def main() -> None:
    with running_stack("results") as state:
        candidate, baseline = seed()
        client = Http(state["web"], f"Bearer {state['api_token']}")
        # As browsers, httpx (the CLI) and curl --compressed ask: the answer is then gzipped.
        gzip_client = Http(state["web"], f"Bearer {state['api_token']}", {"Accept-Encoding": "gzip"})
        endpoints = {
            "peer: GET /api/v1/secrets (empty list)": "/api/v1/secrets",
            "GET results": f"/api/v1/comparisons/{candidate}/results",
            "GET verdict (own baseline arm)": f"/api/v1/comparisons/{candidate}/verdict",
            "GET verdict ?baseline=<comparison>": f"/api/v1/comparisons/{candidate}/verdict?baseline={baseline}",
        }
        figures = {}
        for label, path in endpoints.items():
            times, size = measure(client, path)
            figures[label] = (times[0], percentiles(times[1:]), size)
        times, size = measure(gzip_client, endpoints["GET results"])
        figures["GET results, Accept-Encoding: gzip"] = (times[0], percentiles(times[1:]), size)
        client.close()
        gzip_client.close()
    peer = figures["peer: GET /api/v1/secrets (empty list)"][1]
    print(f"results API, a 1,000,000-sample comparison: {REQUESTS} GETs each over one keep-alive connection "
          f"(load average {os.getloadavg()[0]:.1f})")
    for label, (first, p, size) in figures.items():
        line = (f"  {label}: p50 {p['p50']:.1f} ms, p95 {p['p95']:.1f} ms, p99 {p['p99']:.1f} ms; "
                f"{size / 1024:,.0f} KiB; first request {first * 1000:.0f} ms")
        if not label.startswith("peer"):
            verdict = ("target met" if p["p95"] < TARGET_MS
                       else f"target MISSED by {p['p95'] - TARGET_MS:.0f} ms")
            line += f"; p95 {p['p95'] / peer['p95']:.1f} × the peer's; {verdict} (p95 < {TARGET_MS:.0f} ms)"
        print(line)


if __name__ == "__main__":
    main()
