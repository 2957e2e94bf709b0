"""The whole analysis of a stored 1,000,000-sample comparison, as the Celery task runs it:
load from PostgreSQL (binary COPY per run, phase durations included) + statistics engine + chart shaping.

Target (docs/operations.md, "Targets"): < 2 s and < 1 GB RSS. bench_analysis.py times the
engine alone on an in-memory table; this one adds the database. Needs PostgreSQL
(LATENCYLAB_DB_*; `make bench` starts one). Prints figures; no pass/fail. Run from backend/.
"""

import os
import resource
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402  (after django.setup())
from django.test.utils import get_runner, setup_test_environment  # noqa: E402  (after django.setup())
from seed import million_sample_comparison  # noqa: E402  (after django.setup())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


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
    from apps.devices.services import pool_get_or_create
    from apps.results import services as _svc
    from apps.results.models import BlockColumns
    analysis_compute = _svc.analysis_compute

    org = organization_get_or_create(slug="bench", name="Bench")
    pool_get_or_create(organization=org, slug="local", name="Local")
    start = time.perf_counter()
    comparison, stored = million_sample_comparison(organization=org)
    print(f"stored {stored:,} samples in {time.perf_counter() - start:.1f} s")
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
