#!/usr/bin/env bash
# Build main.go into $1 (default: ../../.tools/bin/trp-counterpart, relative to this folder).
# Skips the build when the binary is newer than main.go, go.mod and go.sum.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/../../.tools/bin/trp-counterpart}"
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"  # absolute: we cd below
if [[ -x "$out" && "$out" -nt "$here/main.go" && "$out" -nt "$here/go.mod" && "$out" -nt "$here/go.sum" ]]; then
  echo "trp-counterpart: up to date, skipped build ($out)"
  exit 0
fi
start=$SECONDS
(cd "$here" && GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -o "$out" .)
echo "trp-counterpart: built $out in $((SECONDS - start))s"
