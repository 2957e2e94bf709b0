#!/usr/bin/env bash
# Runs every test suite against real PostgreSQL and Redis started on free ports:
# lint first (ruff over all Python; mypy over the backend and the device-runner package),
# backend (pytest), the Kotlin harness core (Maven/JUnit), device-runner (pytest), frontend unit (vitest) and the browser
# end-to-end test (Playwright in Debian's Chromium against a full stack).
# Every suite runs even if an earlier one failed; the exit code is non-zero if any did.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)

infra/bin/bootstrap.sh || exit 1

failed=()
suite() {  # suite NAME COMMAND...: runs it, records failure; pytest's exit 5 (no tests) is a failure too
  local name=$1; shift
  echo; echo "=== $name ==="
  "$@"; local rc=$?
  if [ $rc -ne 0 ]; then failed+=("$name (exit $rc)"); fi
}

# The linters are development tools, not in the runtime requirements: installed here when missing.
LINT_TOOLS=(ruff==0.17.6 mypy==2.4.1 django-stubs==6.1.2 djangorestframework-stubs==3.18.1 types-PyYAML import-linter==2.16)
lint() {  # needs no services; the settings import only wants some database port
  if ! { [ -x .venv/bin/ruff ] && .venv/bin/python -c "import mypy, mypy_django_plugin, mypy_drf_plugin, importlinter" 2>/dev/null; }; then
    .venv/bin/pip install -q "${LINT_TOOLS[@]}" || return 1
  fi
  local rc=0
  .venv/bin/ruff check backend device-runner infra || rc=1
  (cd backend && LATENCYLAB_DB_PORT=${LATENCYLAB_DB_PORT:-5432} ../.venv/bin/mypy apps config) || rc=1
  (cd backend && ../.venv/bin/lint-imports --no-cache) || rc=1  # the apps' one-way dependency order
  (cd device-runner && ../.venv/bin/mypy latencylab_runner) || rc=1
  return $rc
}
suite lint lint

run_dir=$(mktemp -d "$REPO/var/test-XXXXXX" 2>/dev/null || { mkdir -p "$REPO/var"; mktemp -d "$REPO/var/test-XXXXXX"; })
cleanup() {
  .venv/bin/python infra/bin/stack.py down --dir "$run_dir/e2e" >/dev/null 2>&1
  .venv/bin/python infra/bin/services.py stop --dir "$run_dir/services" >/dev/null 2>&1
  rm -rf "$run_dir"
}
trap cleanup EXIT

eval "$(.venv/bin/python infra/bin/services.py start --dir "$run_dir/services" | sed 's/^/export /')" || exit 1
echo "test services: postgres :$LATENCYLAB_DB_PORT, $LATENCYLAB_REDIS_URL"

suite backend bash -c "cd backend && ../.venv/bin/python -m pytest --create-db -p no:cacheprovider"
# The Kotlin harness core: compiles, runs its JUnit tests against the reference target (Surefire
# prints "Tests run: N, Failures: …") and packages target/harness-core.jar for the device-farm fakes,
# so it runs before the device-runner suite whose phone tests run that jar.
suite harness-android bash -c "cd device-runner/harness/android/core && mvn -B -ntp -Dstyle.color=never package"
suite device-runner bash -c "cd device-runner && ../.venv/bin/python -m pytest -p no:cacheprovider"
if [ -f frontend/package.json ]; then
  suite frontend-unit bash -c "cd frontend && npm test --silent"
  suite frontend-build bash -c "cd frontend && npm run build --silent"
  suite e2e bash -c "
    set -e
    .venv/bin/python infra/bin/stack.py up --dir '$run_dir/e2e' --ports auto --no-demo
    web=\$(.venv/bin/python infra/bin/stack.py env --dir '$run_dir/e2e' | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)[\"web\"])')
    cd frontend && E2E_BASE_URL=\$web E2E_USERNAME=demo E2E_PASSWORD=demo-latencylab npm run e2e --silent"
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED suites: ${failed[*]}"
  exit 1
fi
echo "All test suites passed."
