#!/usr/bin/env bash
# Runs every test suite against real PostgreSQL and Redis started on free ports:
# lint (infra/bin/lint.sh: locks up to date, ruff, mypy, import contracts), the native programs' Go tests
# and the dashboard build beside
# the Kotlin harness core (Maven/JUnit) and its APKs (Robolectric, the real Android build tools), backend (pytest), device-runner (pytest), the fault tests (pytest against a
# whole stack: infra/tests/faults), frontend unit (vitest) and the browser
# end-to-end tests (Playwright in Debian's Chromium against a full stack, with the demo lab of fake
# phones: stack.py up --demo-lab).
# Every suite runs even if an earlier one failed; the exit code is non-zero if any did. Under CI=true a
# skipped Python test fails its suite (infra/testing/no_skips_under_ci.py): CI runs every test.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
# Compiled bytecode is cached in var/pycache whatever the environment says (see the Makefile): the
# suites start hundreds of Python processes, each of which would otherwise compile what it imports.
export PYTHONPYCACHEPREFIX="$REPO/var/pycache"
unset PYTHONDONTWRITEBYTECODE

infra/bin/bootstrap.sh || exit 1
echo "bootstrap: ${SECONDS}s"

failed=()
timings=()
suite() {  # suite NAME COMMAND...: runs it, records failure and time; pytest's exit 5 (no tests) is a failure too
  local name=$1; shift
  echo; echo "=== $name ==="
  local started=$SECONDS
  "$@"; local rc=$?
  timings+=("$(printf '%-16s %4ds' "$name" $((SECONDS - started)))")
  if [ $rc -ne 0 ]; then failed+=("$name (exit $rc)"); fi
}
background=()  # "name|log|pid|start" of each suite running in the background
background_suite() {  # background_suite NAME LOG COMMAND...
  local name=$1 log=$2; shift 2
  "$@" >"$log" 2>&1 &
  background+=("$name|$log|$!|$SECONDS")
}
background_suite_after() {  # background_suite_after PID NAME LOG COMMAND...: starts once process PID has ended
  local after=$1 name=$2 log=$3; shift 3
  ( tail --pid="$after" -f /dev/null; echo "$SECONDS" >"$log.started"; exec "$@" ) >"$log" 2>&1 &
  background+=("$name|$log|$!|@$log.started")  # its time counts from when it started, read from the file
}
finish_background_suites() {  # waits for each, then prints its output whole
  local entry name log pid started rc
  for entry in "${background[@]}"; do
    IFS='|' read -r name log pid started <<<"$entry"
    wait "$pid"; rc=$?
    if [[ $started == @* ]]; then started=$(cat "${started#@}" 2>/dev/null || echo "$SECONDS"); fi
    echo; echo "=== $name (ran beside the other suites) ==="
    cat "$log"
    timings+=("$(printf '%-16s %4ds (in the background)' "$name" $((SECONDS - started)))")
    if [ $rc -ne 0 ]; then failed+=("$name (exit $rc)"); fi
  done
  background=()
}

run_dir=$(mktemp -d "$REPO/var/test-XXXXXX" 2>/dev/null || { mkdir -p "$REPO/var"; mktemp -d "$REPO/var/test-XXXXXX"; })
cleanup() {
  .venv/bin/python infra/bin/stack.py down --dir "$run_dir/e2e" >/dev/null 2>&1
  for faults in "$run_dir"/faults-*; do  # the fault tests' stack, should their own teardown not have run
    [ -d "$faults" ] && .venv/bin/python infra/bin/stack.py down --dir "$faults" >/dev/null 2>&1
  done
  .venv/bin/python infra/bin/services.py stop --dir "$run_dir/services" >/dev/null 2>&1
  rm -rf "$run_dir"
}
trap cleanup EXIT

# The lint suite is infra/bin/lint.sh, exactly what `make lint` runs; its tools come from the dev lock.
# It and the dashboard's build run beside the Kotlin harness's build: three jobs that need nothing
# from each other. The dashboard is built before the backend suite: the reports app inlines the
# built standalone report into its offline HTML and PDF, and its tests check the real file.
background_suite lint "$run_dir/lint.log" infra/bin/lint.sh
# The native HTTP/3 programs' Go tests (device-runner/tools/native), with the toolchain bootstrap
# built them with; -trimpath as bootstrap's build, so the dependencies come from Go's build cache.
background_suite native-go "$run_dir/native-go.log" \
  bash -c 'cd device-runner/tools/native && "$(../../../infra/bin/go-toolchain.sh)" test -trimpath ./...'
if [ -f frontend/package.json ]; then
  background_suite frontend-build "$run_dir/frontend-build.log" bash -c "cd frontend && npm run build --silent"
  # src/api/schema.ts matches backend/openapi.yaml
  background_suite api-types "$run_dir/api-types.log" bash -c "cd frontend && npm run check:api --silent"
fi

eval "$(.venv/bin/python infra/bin/services.py start --dir "$run_dir/services" | sed 's/^/export /')" || exit 1
echo "test services: postgres :$LATENCYLAB_DB_PORT, $LATENCYLAB_REDIS_URL"

# The Kotlin harness core: compiled and packaged (target/harness-core.jar) before the suites whose
# phone tests run that jar: the backend's device-farm end-to-end tests
# (apps/runner_protocol/tests/test_device_farm_e2e.py) and device-runner's. Its JUnit tests, against
# the reference target (Surefire prints "Tests run: N, Failures: …"), run from the compiled classes
# beside the backend's suite below: they mostly wait on sockets and child processes, and were
# 30-40 s of this step.
suite harness-build bash -c "cd device-runner/harness/android/core && mvn -B -ntp -Dstyle.color=never -DskipTests package"
finish_background_suites
# The device-runner suite (its four packages' tests, apart from the timing tests) runs beside the backend's: it starts its
# own servers and stacks on free ports, and much of it waits on sockets and emulated links, so
# the two overlap well on two cores. Its output is printed whole when the backend's is done.
# pytest-xdist (two workers per suite, each its own database and Redis) was tried with the two
# suites beside each other on two cores: no faster (backend 657 s, device-runner 547 s, against
# 582 s and 437 s without it, at busier load) and a quarter more CPU; the pair already fills both cores.
background_suite device-runner "$run_dir/device-runner.log" \
  bash -c "cd device-runner && ../.venv/bin/python -m pytest -p no:cacheprovider --durations=15 -m 'not timing' \
    cli/tests contract/tests tools/tests runner/tests"
device_runner_pid=$!
background_suite harness-android "$run_dir/harness-android.log" \
  bash -c "cd device-runner/harness/android/core && mvn -B -ntp -Dstyle.color=never surefire:test"
# The harness's two APKs built without Gradle (device-runner/harness/android/apk), from the core's jar
# harness-build made: the Android-side code compiled against Android 10's framework and tested under
# Robolectric against the reference target (Surefire's "Tests run: N"), then D8, R8's API check, aapt,
# zipalign and apksigner, and the pair read back by apksigner verify, aapt and dexdump (Failsafe's
# "Tests run: N"). It needs nothing from the services. It starts when the device-runner suite ends:
# from then the backend suite's last ~3 minutes (agents waiting on emulated links) leave the cores
# 40-90 % idle (vmstat), while its 2.5-4 minutes of compiling, dexing and Robolectric beside the
# suites' first half, when both cores are saturated, lengthened them by as much.
background_suite_after "$device_runner_pid" harness-apk "$run_dir/harness-apk.log" \
  bash -c "cd device-runner/harness/android/apk && mvn -B -ntp -Dstyle.color=never verify"
# The deployment files (docker-compose.yml through compose-spec's loader; infra/tests) likewise.
background_suite deploy "$run_dir/deploy.log" \
  .venv/bin/python -m pytest -p no:cacheprovider infra/tests --ignore=infra/tests/faults
# The fault tests likewise: a whole stack of their own (stack.py), whose web server, Redis and
# PostgreSQL they break mid-run; they mostly wait for processes to restart.
background_suite faults "$run_dir/faults.log" \
  env LATENCYLAB_FAULTS_DIR="$run_dir" .venv/bin/python -m pytest -p no:cacheprovider infra/tests/faults
faults_pid=$!
if [ -f frontend/package.json ]; then
  # The dashboard's unit tests (Vitest, CPU-bound, ~4 minutes on one core) start when the fault
  # tests end (~5 minutes in): from then the backend's and device-runner's suites leave a core
  # 30-90 % idle (their agents and phones wait on emulated links), measured with vmstat. They
  # started after the device-runner suite before, which put them on the critical path.
  background_suite_after "$faults_pid" frontend-unit "$run_dir/frontend-unit.log" \
    bash -c "cd frontend && npm test --silent"
  # The browser end-to-end tests (a stack of their own with the demo lab; they mostly wait for its
  # comparisons) take the device-runner suite's place when it ends. They ran after the timing
  # suite before, alone: 180-230 s of the critical path, much of it with a core idle.
  background_suite_after "$device_runner_pid" e2e "$run_dir/e2e.log" bash -c "
    set -e
    trap \"'$REPO/.venv/bin/python' '$REPO/infra/bin/stack.py' down --dir '$run_dir/e2e' >/dev/null 2>&1\" EXIT  # down before the timing suite
    .venv/bin/python infra/bin/stack.py up --dir '$run_dir/e2e' --ports auto --no-demo --demo-lab
    web=\$(.venv/bin/python infra/bin/stack.py env --dir '$run_dir/e2e' | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)[\"web\"])')
    cd frontend && E2E_BASE_URL=\$web E2E_USERNAME=demo E2E_PASSWORD=demo-latencylab E2E_STACK_DIR='$run_dir/e2e' npm run e2e --silent"
fi
# The backend's tests marked `beside` run beside its suite, on a database and a Redis database of
# their own: the ones that start processes of their own and mostly wait on them — two gunicorn
# backends sharing the lease load (14-32 s of the suite), and the device farm end to end (real
# agents, simulated phones and the Kotlin harness: 120-150 s of the suite, the longest part of
# the critical path) — on CPU the backend suite's waits on emulated links leave idle.
background_suite backend-beside "$run_dir/backend-beside.log" \
  env LATENCYLAB_DB_NAME=latencylab_beside LATENCYLAB_REDIS_URL="${LATENCYLAB_REDIS_URL%/*}/1" \
  bash -c "cd backend && ../.venv/bin/python -m pytest --create-db -p no:cacheprovider --durations=8 -m beside"
# Its tests marked `timing` (a gate's verdict on latencies measured here) run last, below.
suite backend bash -c "cd backend && ../.venv/bin/python -m pytest --create-db -p no:cacheprovider --durations=15 -m 'not timing and not beside'"
finish_background_suites
# Tests that judge measured latencies run last, apart from every other suite, so none competes
# for the CPU (the end-to-end stack is down by now: its idle servers and fake phones would share it).
# They mostly wait on emulated round trips: alone they kept two cores ~90 % idle for ~170 s
# (26 s of CPU). So they run as two halves side by side, each over links of its own (an emulated
# link is its own namespaces and emulator processes; none is shared, none has a bottleneck
# another uses), together at most ~a quarter of the two cores. Each half names its files, so
# neither collects (imports) the other suites' ~900 tests while the other measures;
# infra/tests/test_timing_halves.py fails for a timing test that neither names. Each half begins
# with tests whose bounds a late wake-up cannot move (a link's own figures, the stall detector's
# counts), so the tightest (a tenth of a 40 ms round trip) never run while the other half starts.
timing_links=(tools/tests/test_netlab_link.py tools/tests/test_netlab_physics.py)
timing_rest=(runner/tests/test_stall_calibration.py tools/tests/test_netlab_protocols.py tools/tests/test_peer_physics.py)
background_suite device-runner-timing-links "$run_dir/timing-links.log" \
  bash -c "cd device-runner && ../.venv/bin/python -m pytest -p no:cacheprovider --durations=10 -m timing ${timing_links[*]}"
background_suite device-runner-timing-rest "$run_dir/timing-rest.log" \
  bash -c "cd device-runner && ../.venv/bin/python -m pytest -p no:cacheprovider --durations=10 -m timing ${timing_rest[*]}"
# And the backend's, beside the two halves: the gate's verdicts on latencies a real agent measures
# against real servers (a Nagle trap, series loaded sooner), over links of their own. Beside the
# whole backend phase a loaded block could leave the verdict inconclusive; beside the halves
# (a quarter of the two cores) nothing that heavy competes. After them, it added ~42 s to make test.
suite backend-timing bash -c "cd backend && ../.venv/bin/python -m pytest --create-db -p no:cacheprovider --durations=5 -m timing"
finish_background_suites
echo
# Where the time goes (budget: 15 minutes in all on two cores).
echo "suite times:"; printf '  %s\n' "${timings[@]}"; echo "  total            ${SECONDS}s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED suites: ${failed[*]}"
  exit 1
fi
echo "All test suites passed."
