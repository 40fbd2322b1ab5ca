#!/usr/bin/env bash
# Generates the Go code of the transparency log's auditor gRPC API
# (transparency/auditpb/v1/audit.proto), with Debian's protoc and the plugins
# pinned by go.mod's tool directives.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
PROTOC=${PROTOC:-/usr/bin/protoc}
gen_go=$(go tool -n protoc-gen-go)
gen_grpc=$(go tool -n protoc-gen-go-grpc)
"$PROTOC" -I . \
  --plugin=protoc-gen-go="$gen_go" --plugin=protoc-gen-go-grpc="$gen_grpc" \
  --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative \
  transparency/auditpb/v1/audit.proto
