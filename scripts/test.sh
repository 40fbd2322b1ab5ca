#!/usr/bin/env bash
# make test: starts the services the integration tests need (MariaDB + Trillian on
# loopback), runs every package's tests with -race, and stops the services by PID.
# Extra arguments go to `go test` (make test-long passes -run Long).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
. scripts/services.sh
# The trap first: an up that fails halfway (MariaDB started, a Trillian
# server not) or is interrupted leaves nothing running behind it.
trap services_down EXIT
services_up
go vet ./...
go test -race -count=1 -timeout 40m "$@" ./...
# Again in a dev build (-tags tirage_dev, as make run's bin/rngd-dev), so that
# dev mode is tested refused (above) and taken (here): the packages with files
# for one build only (grep -rl '^//go:build.*tirage_dev' --include='*.go' .).
# The others build the same either way (rngd/loadtest builds a dev rngd
# itself). About a minute more. TestQoDStatisticsLong (make test-long, about
# 9 minutes with -race) plays no dev mode: the first run's is enough. A -run
# that matches nothing here (make test-long's) passes ("no tests to run").
dev_pkgs=(./rngd ./rngd/ctl ./cmd/rngd)
go vet -tags tirage_dev "${dev_pkgs[@]}"
go test -race -count=1 -timeout 40m -tags tirage_dev -skip '^TestQoDStatisticsLong$' "$@" "${dev_pkgs[@]}"
