#!/usr/bin/env bash
# Generates the Go code of rngd's gRPC API (rngd/api/tirage/*/v1/*.proto).
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
PROTOC=${PROTOC:-/usr/bin/protoc}
# The plugins are the versions pinned by go.mod's tool directives.
gen_go=$(go tool -n protoc-gen-go)
gen_grpc=$(go tool -n protoc-gen-go-grpc)
cd rngd/api
"$PROTOC" -I . -I /usr/include \
  --plugin=protoc-gen-go="$gen_go" --plugin=protoc-gen-go-grpc="$gen_grpc" \
  --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative \
  tirage/qod/v1/qod.proto tirage/admin/v1/admin.proto
