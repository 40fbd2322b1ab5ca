# Sourced first by scripts/bench.sh and every scripts/bench.d/*.sh: strict
# mode, the repository root as the working directory, go.mod's toolchain
# line (the machine's own Go is older), and what a section says of the load.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOTOOLCHAIN=auto

# loadavg prints the 1, 5 and 15 minute load averages, as a section quotes
# them (the machine is shared; its figures vary with load).
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_raw sets raw to a temporary file for the script's raw benchmark
# output, removed when the script exits.
bench_raw() {
  raw=$(mktemp)
  trap 'rm -f "$raw"' EXIT
}

# whole V prints a benchmark metric as a whole number (go test prints one
# with four significant digits: 12.00 for a count of 12), or — when V is
# empty (a revision from before the benchmark reported it).
whole() {
  if [ -n "$1" ]; then awk -v v="$1" 'BEGIN { printf "%.0f", v }'; else echo "—"; fi
}
