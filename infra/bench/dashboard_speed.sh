#!/usr/bin/env bash
# Dashboard speed benchmark (part of `make bench`): builds the dashboard, starts a private
# stack (infra/bin/stack.py on free ports), seeds a finished comparison of ~200,000 samples
# and a share link (infra/bench/seed_dashboard.py), then times in Chromium how fast the
# comparison page and the public report draw their first chart, their first screenful of
# charts and all their charts (median of 5 cold and 5 warm loads; target < 1.5 s each), and
# prints the JavaScript each page ships (frontend/bench/dashboard-speed.mjs).
# Prints figures only: no pass/fail on timing.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
mkdir -p var
work=$(mktemp -d "$REPO/var/bench-dashboard-XXXXXX")
cleanup() {
  .venv/bin/python infra/bin/stack.py down --dir "$work/stack" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

(cd frontend && npx vite build --outDir "$work/dist" --emptyOutDir --logLevel error) || { echo "build failed"; exit 1; }
up() { LATENCYLAB_FRONTEND_DIST="$work/dist" .venv/bin/python infra/bin/stack.py up --dir "$work/stack" --ports auto \
         --no-demo >> "$work/stack-up.log" 2>&1; }
# `up` is idempotent: a second try gets past a step that lost a start-up race.
up || up || { tail -20 "$work/stack-up.log"; exit 1; }
.venv/bin/python infra/bin/stack.py env --dir "$work/stack" > "$work/stack.json" || exit 1
# The stack's address and its database/Redis settings, for the seeder.
eval "$(.venv/bin/python - "$work/stack.json" <<'PY'
import json, shlex, sys
state = json.load(open(sys.argv[1]))
print(f"web={shlex.quote(state['web'])}")
for key, value in state["env"].items():
    print(f"export {key}={shlex.quote(value)}")
PY
)"
seed=$(cd backend && ../.venv/bin/python ../infra/bench/seed_dashboard.py) || { echo "seeding failed"; exit 1; }
echo "seeded: $seed"
value() { printf '%s' "$seed" | .venv/bin/python -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }
comparison=$(value comparison)
token=$(value share_token)
# In a subshell: the EXIT trap's stack.py down runs from the repository's root (a `cd` here left
# it unable to find stack.py, and every run's stack running after the benchmark).
(cd frontend && BENCH_BASE_URL="$web" BENCH_USERNAME=demo BENCH_PASSWORD=demo-latencylab \
  BENCH_COMPARISON="$comparison" BENCH_SHARE_TOKEN="$token" node bench/dashboard-speed.mjs)
