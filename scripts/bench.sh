#!/usr/bin/env bash
# make bench: runs every scripts/bench.d/*.sh (each writes docs/bench/<area>.md),
# then assembles docs/BENCHMARKS.md with the machine description.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
. scripts/services.sh
services_up
trap services_down EXIT
mkdir -p docs/bench
for s in scripts/bench.d/*.sh; do
  [ -e "$s" ] || continue
  echo "bench: $s"
  bash "$s"
done
{
  echo "# Benchmarks"
  echo
  echo "Written by \`make bench\` on $(date -u +%Y-%m-%dT%H:%MZ). Reproduce with \`make bench\`."
  echo
  echo "## Machine"
  echo
  echo '```'
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "cores: $(nproc)   memory: $(free -h | awk '/Mem:/{print $2}')   go: $(go version | cut -d' ' -f3-)"
  echo "kernel: $(uname -sr)"
  echo '```'
  for f in docs/bench/*.md; do
    [ -e "$f" ] || continue
    echo
    cat "$f"
  done
} > docs/BENCHMARKS.md
echo "bench: wrote docs/BENCHMARKS.md"
