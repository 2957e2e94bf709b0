"""The whole analysis of a stored 1,000,000-sample comparison, as the Celery task runs it:
load from PostgreSQL (binary COPY per run, phase durations included) + statistics engine + chart shaping.

Target (docs/operations.md, "Targets"): load + engine < 1 s and < 1 GB RSS. bench_analysis.py
times the engine alone on an in-memory table; this one adds the database (and the task's
request statistics, phase breakdown and chart shaping after the engine). Needs PostgreSQL
(LATENCYLAB_DB_*; `make bench` starts one). Prints figures; no pass/fail. Run from backend/.
"""

import os
import resource
import time
import tracemalloc

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from scratch_database import scratch_database  # noqa: E402  (after django.setup())
from seed import million_sample_comparison  # noqa: E402  (after django.setup())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    with scratch_database():
        run()


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
        walls, cpus, steps = [], [], {}
        for _ in range(3):
            start, cpu_start, timings = time.perf_counter(), time.process_time(), {}
            result = analysis_compute(comparison=comparison, timings=timings)
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu_start)
            for name, seconds in timings.items():
                steps.setdefault(name, []).append(seconds)
        load_engine = [load + engine for load, engine in zip(steps["load"], steps["engine"], strict=True)]
        print(f"{label}:")
        print("  per step, best of 3: " + ", ".join(f"{name} {min(s):.3f} s" for name, s in steps.items()))
        print(f"  load + engine: best {min(load_engine):.2f} s, runs {', '.join(f'{w:.2f}' for w in load_engine)} s "
              f"(target < 1 s)")
        print(f"  the whole task (+ requests, phases, charts): best {min(walls):.2f} s, "
              f"runs {', '.join(f'{w:.2f}' for w in walls)} s; CPU time best {min(cpus):.2f} s "
              f"(the database's apart); load average {os.getloadavg()[0]:.1f}")
        # The analysis's own memory (the process's peak RSS is the seeding's): what it allocates
        # at its peak, Python objects and numpy arrays, in one more run (traced, so not timed).
        tracemalloc.start()
        analysis_compute(comparison=comparison)
        print(f"  memory the analysis allocates at its peak (tracemalloc): "
              f"{tracemalloc.get_traced_memory()[1] / 1e6:.0f} MB (target < 1 GB)")
        tracemalloc.stop()
        BlockColumns.objects.filter(run__comparison=comparison).delete()
    print(f"peak RSS {peak_rss_mb():.0f} MB (target < 1024 MB; {rss_before:.0f} MB before analysing)")
    print(f"{len(result['groups'])} chart groups, {len(result['analysis']['comparisons'])} arm comparisons")

if __name__ == "__main__":
    main()
