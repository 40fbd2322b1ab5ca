#!/usr/bin/env bash
# make generate: runs every scripts/generate.d/*.sh. Each regenerates its area's
# code with Debian's protoc (/usr/bin/protoc) and the plugins pinned in go.mod
# (go tool protoc-gen-go, go tool protoc-gen-go-grpc), so the output is reproducible.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
for s in scripts/generate.d/*.sh; do
  [ -e "$s" ] || continue
  echo "generate: $s"
  bash "$s"
done
