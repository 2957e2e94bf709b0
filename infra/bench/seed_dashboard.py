"""Seeds a running stack (infra/bin/stack.py) with a finished comparison of about 200,000
samples for the dashboard speed benchmark: synthetic samples written with COPY as the
backend's own benchmarks store them (backend/benchmarks/seed.py), analysed
and stored by the same service the Celery task calls, and a share link for its public
report. Prints one JSON line: {"comparison", "samples", "share_token", "seconds"}.

Run from backend/ with the stack's environment (stack.py env); not a test, no pass/fail.
"""

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "backend" / "benchmarks"))

import django  # noqa: E402

django.setup()

from django.db import transaction  # noqa: E402  (after django.setup())
from seed import store  # noqa: E402  (the backend benchmarks' COPY writer)


def main() -> None:
    from apps.accounts.models import Organization
    from apps.comparisons.models import Comparison
    from apps.comparisons.services import comparison_create
    from apps.reports.services import share_link_create
    from apps.results.analysis import synthetic_table
    from apps.results.services import comparison_analyse

    started = time.perf_counter()
    organization = Organization.objects.get(slug=os.environ.get("BENCH_ORG", "demo"))
    arms = {"https-h1": 1.0, "h2": 0.62, "h3": 0.55}
    with transaction.atomic():
        comparison = comparison_create(organization=organization, submitted_spec={
            "name": "Dashboard speed bench: 200,000 samples", "preset": "mid-image-series", "blocks": 12,
            "arms": [{"label": "https-h1", "protocol": "h1"}, {"label": "h2", "protocol": "h2"},
                     {"label": "h3", "protocol": "h3"}],
            "network_profiles": ["none", "lte"], "tags": {"source": "dashboard-speed-bench"}})
        # Straight to analysing: the runs below are stored, not planned for a runner.
        Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)
    # 3 arms × 2 devices × 2 profiles × 12 blocks × 9 repetitions × (3 + 6 + … + 30) = 213,840.
    table, _ = synthetic_table(arm_ratios=arms, devices=2, profiles=("none", "lte"), blocks=12,
                               periods=list(range(3, 31, 3)), repetitions=9, first_request_factor=1.8,
                               error_rate=0.001, seed=7)
    samples = len(table)
    store(comparison, table)
    del table
    analysis = comparison_analyse(comparison_id=str(comparison.pk))
    if analysis is None:
        sys.exit("the analysis was not stored")
    comparison.refresh_from_db()
    _, token = share_link_create(organization=organization, comparison=comparison, created_by=None,
                                 expires_in_days=1)
    print(json.dumps({"comparison": str(comparison.pk), "samples": samples, "status": comparison.status,
                      "share_token": token, "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
