#!/usr/bin/env bash
# Prints the path of a Go toolchain new enough for device-runner/tools/native/go.mod, fetching it
# once when the machine has none: bootstrap builds the native programs with it, make test runs
# their Go tests with it. Progress goes to stderr; stdout is the path only.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Go: the machine's when it is new enough, else the toolchain go.mod names, fetched once from the
# Go module proxy (the same zip GOTOOLCHAIN would fetch; Debian 12's golang-go is too old).
go_need=$(sed -n 's/^go \([0-9.]*\).*/\1/p' device-runner/tools/native/go.mod)
go_have=$( (command -v go >/dev/null && go env GOVERSION 2>/dev/null || true) | sed 's/^go//')
GO=go
if [ "$(printf '%s\n%s\n' "$go_need" "$go_have" | sort -V | head -1)" != "$go_need" ]; then
  GO=$(pwd)/var/go/go$go_need/bin/go
  if [ ! -x "$GO" ]; then
    echo "bootstrap: fetching Go $go_need from the Go module proxy (found ${go_have:-no Go})" >&2
    proxy=${GOPROXY:-https://proxy.golang.org}; proxy=${proxy%%,*}
    if [ "$proxy" = direct ] || [ "$proxy" = off ]; then proxy=https://proxy.golang.org; fi
    arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
    mkdir -p var/go
    curl -fsSL -o var/go/toolchain.zip "$proxy/golang.org/toolchain/@v/v0.0.1-go$go_need.linux-$arch.zip"
    python3 infra/bin/unpack_go.py var/go/toolchain.zip "var/go/go$go_need" >&2
    rm -f var/go/toolchain.zip
  fi
fi
echo "$GO"
