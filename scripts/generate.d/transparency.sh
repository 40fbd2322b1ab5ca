#!/usr/bin/env bash
# Generates the Go code of the transparency log's auditor gRPC API
# (transparency/auditpb/v1/audit.proto).
. "$(dirname "$0")/../protoc.sh"
protoc_go . transparency/auditpb/v1/audit.proto
