#!/usr/bin/env bash
# Installs what LatencyLab needs on a Debian machine, and nothing twice:
# Debian packages that are missing (as root; otherwise prints the apt command),
# the Python virtualenv in .venv, and the frontend's npm packages.
set -euo pipefail
cd "$(dirname "$0")/../.."

missing=()
have() { command -v "$1" >/dev/null 2>&1; }
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing+=(postgresql)
have redis-server || missing+=(redis-server)
have nginx || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
# Caddy (h1/h2/h3) stands in, beside nginx, for a customer's own servers in the acceptance tests.
have caddy || missing+=(caddy)
have h2load || missing+=(nghttp2-client)
have curl || missing+=(curl)
have ip || missing+=(iproute2)
have ping || missing+=(iputils-ping)
have chromium || [ -x /usr/bin/chromium ] || missing+=(chromium)
# The share-links end-to-end test renders report PDFs with pdftoppm; cards are drawn in DejaVu Sans.
have pdftoppm || missing+=(poppler-utils)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
have runuser || missing+=(util-linux)
# The device-lab tests drive the real adb client against a fake adb server.
have adb || missing+=(adb)
# The lab Wi-Fi recipe's test (device-runner/runner/tests/test_ap_recipe.py) runs dnsmasq and the
# nftables NAT in network namespaces, and hostapd's parser on its config.
have dnsmasq || [ -x /usr/sbin/dnsmasq ] || missing+=(dnsmasq-base)
have nft || [ -x /usr/sbin/nft ] || missing+=(nftables)
have hostapd || [ -x /usr/sbin/hostapd ] || missing+=(hostapd)
# The Android harness core (device-runner/harness/android/core) builds and tests with Maven on a JDK.
have javac || missing+=(default-jdk-headless)
have mvn || missing+=(maven)
# The harness APKs built without Gradle (device-runner/harness/android/apk): Debian's Android build
# tools, and Android 10's framework resources that aapt links the manifests against.
have aapt || missing+=(aapt)
have zipalign || missing+=(zipalign)
have apksigner || missing+=(apksigner)
have dexdump || missing+=(dexdump)
[ -f /usr/share/android-framework-res/framework-res.apk ] || missing+=(android-framework-res)
python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
have node || missing+=(nodejs npm)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "bootstrap: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # The Debian packages start their own servers; LatencyLab runs its own instances.
    for svc in postgresql redis-server nginx caddy; do
      (systemctl stop "$svc" || service "$svc" stop) >/dev/null 2>&1 || true
    done
  else
    echo "bootstrap: missing Debian packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# The dashboard's build (Vite 7; frontend/package.json "engines") needs Node.js 20.19 or newer.
if ! node -e 'const [major, minor] = process.versions.node.split(".").map(Number);
              process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1)'; then
  echo "bootstrap: Node.js >= 20.19 is required (found $(node --version)). Debian 12's own nodejs is 18:" >&2
  echo "bootstrap: install a newer one (e.g. Node.js 22 from NodeSource's Debian packages, or nvm) and run again." >&2
  exit 1
fi

# Frontend: npm ci when the lock file changed, in the background beside the Python packages' install
# (on a clean clone about 25 s and 13 s).
npm_job=
if [ -f frontend/package-lock.json ]; then
  fstamp=frontend/node_modules/.lock.sha
  fwant=$(sha256sum frontend/package-lock.json | cut -d' ' -f1)
  if [ "$(cat $fstamp 2>/dev/null)" != "$fwant" ]; then
    echo "bootstrap: installing npm packages"
    # npm ci needs every optional platform package of the lock in the registry; a
    # registry mirror that lacks one (seen with rollup's) makes it refuse, and then
    # npm install, which still honours the lock's versions, does the job.
    (
      cd frontend
      npm ci --no-audit --no-fund --loglevel=silent 2>/dev/null || npm install --no-audit --no-fund --loglevel=error
      echo "$fwant" > node_modules/.lock.sha
    ) &
    npm_job=$!
  fi
fi

# Python: one virtualenv for the backend and the device-runner's four packages (contract, tools,
# runner, cli), installed from the dev lock (exact versions with their hashes, nothing resolved),
# then our packages editable without their dependencies (the lock has them), then whatever the
# lock no longer lists is removed.
# Runs again when the lock or a package's metadata changes. Updating a lock: docs/architecture.md.
stamp=.venv/.requirements.sha
want=$(cat backend/requirements-dev.lock backend/pyproject.toml device-runner/*/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat $stamp 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: installing Python packages into .venv from backend/requirements-dev.lock"
  python3 -m venv .venv
  # uv does the installing: pip spent ~50 s of one core unpacking the lock's ~100 wheels on a clean
  # clone, uv a few seconds (from its cache, or downloading in parallel). uv itself comes first,
  # by pip, at the version and hashes its entry in the same lock pins.
  mkdir -p var
  awk '/^uv==/ {entry = 1} entry {print; if ($0 !~ /\\$/) exit}' backend/requirements-dev.lock > var/uv.requirement
  .venv/bin/pip install -q --disable-pip-version-check --require-hashes --no-deps -r var/uv.requirement
  # UV_NATIVE_TLS: trust the machine's certificate store, as pip and npm here do (a proxy's CA among them).
  uv() { UV_NATIVE_TLS=1 .venv/bin/uv pip "$@" --quiet --python .venv/bin/python; }
  # uv compiles nothing up front: Python compiles what it imports on first use and keeps it.
  uv install --require-hashes --no-deps -r backend/requirements-dev.lock
  # The runner first: replacing a runner package of the old one-package layout removes the commands
  # it had (latencylab, latencylab-target), which the cli and the tools then install anew.
  uv install --no-deps --no-build-isolation -e backend -e device-runner/runner \
    -e device-runner/contract -e device-runner/tools -e device-runner/cli
  .venv/bin/python infra/bin/locks.py prune
  echo "$want" > $stamp
fi

# Native HTTP/3 client and server (quic-go from the Go module proxy, versions pinned by go.sum):
# aioquic in Python spends more CPU per packet than a long link's round trip allows (docs/methodology.md).
GO=$(infra/bin/go-toolchain.sh)
nstamp=device-runner/tools/native/bin/.source.sha
nwant=$(cat device-runner/tools/native/go.mod device-runner/tools/native/go.sum $(find device-runner/tools/native/cmd device-runner/tools/native/internal -name '*.go' 2>/dev/null | sort) | sha256sum | cut -d' ' -f1)
if [ "$(cat $nstamp 2>/dev/null)" != "$nwant" ]; then
  echo "bootstrap: building the native HTTP/3 client and server (device-runner/tools/native)"
  (cd device-runner/tools/native && "$GO" build -trimpath -o bin/ ./cmd/...)
  echo "$nwant" > $nstamp
fi

# actionlint, the workflow checker `make lint` runs over .github/workflows (a Go tool dependency
# pinned with its hashes by infra/tools/actionlint/go.mod and go.sum), built once into var/bin.
astamp=var/bin/.actionlint.sha
awant=$(cat infra/tools/actionlint/go.mod infra/tools/actionlint/go.sum | sha256sum | cut -d' ' -f1)
if [ ! -x var/bin/actionlint ] || [ "$(cat $astamp 2>/dev/null)" != "$awant" ]; then
  echo "bootstrap: building actionlint (infra/tools/actionlint)"
  mkdir -p var/bin
  (cd infra/tools/actionlint && CGO_ENABLED=0 "$GO" build -trimpath -o ../../../var/bin/actionlint \
    github.com/rhysd/actionlint/cmd/actionlint)
  echo "$awant" > $astamp
fi

if [ -n "$npm_job" ]; then wait "$npm_job"; fi  # its failure fails bootstrap (set -e)
