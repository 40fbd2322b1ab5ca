#!/usr/bin/env bash
# Generates the Go code of rngd's gRPC API (rngd/api/tirage/*/v1/*.proto).
. "$(dirname "$0")/../protoc.sh"
protoc_go rngd/api tirage/qod/v1/qod.proto tirage/admin/v1/admin.proto
protoc_vt rngd/api tirage/qod/v1/qod.proto
