#!/usr/bin/env bash
# make fuzz: every Fuzz target in the module for FUZZTIME (default 10s) each.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-10s}
# Minimising each new input for go's default minute left a short run no time
# to fuzz: FuzzParseState ran 4 inputs in 20 s, all the rest minimising.
m=${FUZZMINIMIZETIME:-2s}
for pkg in $(go list ./...); do
  # A package whose tests do not build fails the run (its targets would
  # otherwise be skipped unseen).
  if ! list=$(go test -list '^Fuzz' "$pkg" 2>&1); then
    echo "fuzz: $pkg: cannot list its tests:" >&2
    echo "$list" >&2
    exit 1
  fi
  for f in $(echo "$list" | grep '^Fuzz' || true); do
    echo "fuzz: $pkg $f ($t)"
    go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" -fuzzminimizetime "$m" "$pkg"
  done
done
