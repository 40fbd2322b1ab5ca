#!/usr/bin/env bash
# make test: starts the services the integration tests need (MariaDB + Trillian on
# loopback), runs every package's tests with -race, and stops the services by PID.
# Extra arguments go to `go test` (make test-long passes -run Long).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
. scripts/services.sh
services_up
trap services_down EXIT
go vet ./...
go test -race -count=1 -timeout 40m "$@" ./...
