#!/usr/bin/env bash
# make bench: runs every scripts/bench.d/*.sh (each writes docs/bench/<area>.md),
# then assembles docs/BENCHMARKS.md with the machine description.
. "$(dirname "$0")/benchlib.sh"
# BENCH_ONLY="vrf rngd" runs only those areas; --assemble only rebuilds
# docs/BENCHMARKS.md from the sections already in docs/bench/.
# The Trillian stack (MariaDB and the signer, which polls every 10 ms) runs
# only during the areas that use it: idle, it takes most of a core here, which
# the other areas' figures would lose.
needs_services=" transparency "
if [ "${1:-}" != "--assemble" ]; then
  # The Debian packages the areas use (SoftHSM2 for rngd's PKCS#11 step,
  # MariaDB for Trillian's), as make bench installs them first: run alone
  # on a fresh machine the script would otherwise stop minutes in. A
  # dpkg query per package when all are present.
  bash scripts/deps.sh
  . scripts/services.sh
  trap services_down EXIT
  mkdir -p docs/bench
  for s in scripts/bench.d/*.sh; do
    [ -e "$s" ] || continue
    area=$(basename "$s" .sh)
    if [ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" $area "* ]]; then continue; fi
    echo "bench: $s"
    if [[ "$needs_services" == *" $area "* ]]; then
      services_up
      bash "$s"
      services_down
    else
      bash "$s"
    fi
  done
fi
{
  echo "# Benchmarks"
  echo
  echo "Assembled by \`make bench\` on $(date -u +%Y-%m-%dT%H:%MZ) from docs/bench/*.md; each section"
  echo "says when and under what machine load it was measured, and the command that reproduces it."
  echo "The machine is shared (2 cores): CPU-time figures are steadier than wall-clock ones."
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
