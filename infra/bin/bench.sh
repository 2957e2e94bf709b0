#!/usr/bin/env bash
# Runs every benchmark and prints its figures beside its peer's (the targets: docs/operations.md).
# No pass/fail: the machines are shared and noisy, so read the ratios, not the thresholds.
# Benchmarks needing root (link emulator) are skipped with a note otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
run_dir=$(mkdir -p var && mktemp -d "$REPO/var/bench-XXXXXX")
trap '.venv/bin/python infra/bin/services.py stop --dir "$run_dir/farm" >/dev/null 2>&1; .venv/bin/python infra/bin/services.py stop --dir "$run_dir" >/dev/null 2>&1; rm -rf "$run_dir"' EXIT
eval "$(.venv/bin/python infra/bin/services.py start --dir "$run_dir" | sed 's/^/export /')" || exit 1

bench() { echo; echo "=== $1 ==="; shift; "$@" || echo "(benchmark exited $?)"; }
bench "analysis: 1,000,000 samples" bash -c "cd backend && ../.venv/bin/python benchmarks/bench_analysis.py"
bench "verdict calibration (A/A false positives, power)" bash -c "cd backend && ../.venv/bin/python benchmarks/bench_verdict_calibration.py"
bench "analysis of a stored 1,000,000-sample comparison (load + engine)" bash -c "cd backend && ../.venv/bin/python benchmarks/bench_analysis_db.py"
bench "results API on a stored 1,000,000-sample comparison, through gunicorn with the stack running" bash -c "cd backend && ../.venv/bin/python benchmarks/bench_results.py"
bench "ingestion through the upload endpoint (gunicorn, stack running) vs COPY + commit" bash -c "cd backend && ../.venv/bin/python benchmarks/bench_ingest.py"
bench "scheduler: 200 runner agents × 4 simulated devices over HTTP (idle cost, lease latency, utilisation with a backlog), then 50 × 4 beside it" bash -c "cd backend && ../.venv/bin/python benchmarks/bench_scheduler.py && SCHEDULER_RUNNERS=50 ../.venv/bin/python benchmarks/bench_scheduler.py"
# The farm benchmark counts statements with pg_stat_statements: PostgreSQL and Redis of its own, started with it.
bench "farm: 250 simulated runners × 4 devices from one asyncio process, then 200 × 4 (the server's CPU and queries per heartbeat, lease and upload, apart from the simulator's; utilisation, lease latency)" bash -c 'eval "$(.venv/bin/python infra/bin/services.py start --dir "$0/farm" --stat-statements | sed "s/^/export /")" && cd backend && ../.venv/bin/python benchmarks/bench_farm.py && FARM_RUNNERS=200 ../.venv/bin/python benchmarks/bench_farm.py; rc=$?; cd .. && .venv/bin/python infra/bin/services.py stop --dir "$0/farm" >/dev/null; exit $rc' "$run_dir"
bench "probe vs curl and h2load" bash -c "cd device-runner && ../.venv/bin/python benchmarks/bench_probe.py"
bench "target server vs nginx" bash -c "cd device-runner && ../.venv/bin/python benchmarks/bench_target.py"
bench "Nagle trap calibration" bash -c "cd device-runner && ../.venv/bin/python benchmarks/bench_nagle.py"
bench "dashboard speed: a 200,000-sample comparison and its public report in Chromium; JavaScript per page" bash infra/bench/dashboard_speed.sh
if [ "$(id -u)" = 0 ]; then
  bench "link emulator accuracy and throughput" bash -c "cd device-runner && ../.venv/bin/python benchmarks/bench_netlab.py"
  bench "every protocol beside production peers over emulated links (probe/target vs curl, nginx, quic-go, Caddy)" bash -c "cd device-runner && ../.venv/bin/python benchmarks/bench_peers.py"
  bench "MID series with concurrency on the transatlantic link: probe vs curl" bash -c "cd device-runner && ../.venv/bin/python benchmarks/bench_series_concurrency.py --runs 10"
  bench "MID series with concurrency, the same RTT without loss (the control)" bash -c "cd device-runner && ../.venv/bin/python benchmarks/bench_series_concurrency.py --runs 8 --lossless"
  bench "MID series per object after the runner's pauses, beside libcurl + nginx / quic-go in the same order" bash -c "cd device-runner && ../.venv/bin/python benchmarks/bench_series_objects.py && ../.venv/bin/python benchmarks/bench_series_objects.py --no-slow-start-after-idle"
else
  echo; echo "=== link emulator: skipped (needs root for network namespaces) ==="
fi
