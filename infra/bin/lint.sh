#!/usr/bin/env bash
# The lint suite, the same for `make lint` and the first suite of `make test`: the Python locks
# match their inputs, ruff over all Python, mypy over the backend and the device-runner's four packages,
# import-linter's contracts (the backend apps' one-way dependency order, the device-runner packages') and ESLint over the
# dashboard (typescript-eslint, React hooks, feature boundaries), actionlint over the GitHub workflows
# (var/bin/actionlint, pinned by infra/tools/actionlint/go.mod; bootstrap builds it). Needs no services
# (the settings import only wants some database port). Every step runs; exit 1 if any failed.
# The tools come from backend/requirements-dev.lock (infra/bin/bootstrap.sh installs it).
set -uo pipefail
cd "$(dirname "$0")/../.."

failed=()
step() {  # step NAME COMMAND...: runs it, records a failure
  local name=$1; shift
  echo "--- $name"
  "$@" || failed+=("$name")
}

# mypy's cache lives in the user's cache directory, not the checkout: a fresh clone then checks only
# the modules whose content changed (mypy compares hashes, not only times) rather than every module
# and every stub from scratch.
mypy_cache=${XDG_CACHE_HOME:-$HOME/.cache}/latencylab/mypy

step "python locks" .venv/bin/python infra/bin/locks.py check
step ruff .venv/bin/ruff check backend device-runner infra
step "mypy backend" bash -c "cd backend && LATENCYLAB_DB_PORT=${LATENCYLAB_DB_PORT:-5432} ../.venv/bin/mypy --cache-dir \"$mypy_cache/backend\" apps config"
step "import contracts" bash -c "cd backend && ../.venv/bin/lint-imports --no-cache"
# device-runner/.importlinter: the CLI imports neither the runner nor the tools, of the contract only its core; the tools only the contract.
step "import contracts device-runner" bash -c "cd device-runner && ../.venv/bin/lint-imports --no-cache"
step "mypy device-runner" bash -c "cd device-runner && ../.venv/bin/mypy --cache-dir \"$mypy_cache/device-runner\" \
  cli/latencylab_cli contract/latencylab_contract tools/latencylab_tools runner/latencylab_runner"
step eslint bash -c "cd frontend && npm run lint --silent"
# Every workflow's syntax, expressions, job graph and runner labels (actionlint finds them in .github/workflows).
step actionlint var/bin/actionlint -no-color

if [ ${#failed[@]} -gt 0 ]; then
  echo "lint FAILED: ${failed[*]}"
  exit 1
fi
echo "lint passed"
