#!/usr/bin/env bash
# Alternating pairs: the daemon's CPU per draw of two versions of rngd, run
# one after the other, N times, A first in odd pairs and B first in even
# ones, so that the machine's drift (±5 % from minute to minute on this
# shared machine) falls on both alike. A single bench run cannot tell a
# change of a few µs a draw from that drift; use an even number of pairs.
#
#   scripts/pairs.sh [-n PAIRS] [-d DRAWS] [-u] [-c] [-r RATE] REV_A [REV_B]
#
# REV_A and REV_B are git revisions; REV_B defaults to the working tree.
# Each side's rngd/loadtest benchmark builds cmd/rngd from its own tree.
#   -n  pairs (default 4)
#   -d  draws a run (default 60000; tickets: a third of that)
#   -u  unary calls (default: Play streams)
#   -c  BenchmarkDaemonProcessCall (bare GetGame calls, 4 × DRAWS) instead
#       of draws
#   -r  draws paced at RATE a second (open loop, as the bench's half of
#       peak) instead of the peak: the table gives each run's latency (p99,
#       the slowest draw, the p99 bounds of a pick in the daemon, of the
#       durable appends and of the journal's fsyncs: the fsyncs' blank for
#       a revision before 2026-12-07, the pick's before stop 50), the daemon's
#       garbage collections in its window, and its CPU a draw; the
#       default 60,000 draws are the bench's half-of-peak step (a run of
#       10,000 ends before the daemon's first garbage collection past
#       start-up, and misses the tail that comes with those)
# TOML_A, TOML_B: extra daemon configuration for a side (TIRAGE_BENCH_TOML),
# to compare settings on one revision: TOML_B=$'[log]\nbatch_max_age = "1s"'
# scripts/pairs.sh HEAD HEAD.
source "$(dirname "${BASH_SOURCE[0]}")/benchlib.sh"

pairs=4 draws=60000 play=1 bench='DaemonProcess$' rate=
while getopts n:d:ucr: opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    d) draws=$OPTARG ;;
    u) play=0 ;;
    c) bench='DaemonProcessCall$' ;;
    r) rate=$OPTARG ;;
    *) sed -n '2,27p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '2,27p' "$0" >&2
  exit 2
fi
n=$draws
[ "$bench" = 'DaemonProcessCall$' ] && n=$((4 * draws))

tmp=$(mktemp -d)
cleanup() {
  for side in a b; do
    [ -d "$tmp/$side" ] && git worktree remove --force "$tmp/$side" >/dev/null 2>&1
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
# The daemons' data directories, kept until the pairs end (as scripts/bench.d/rngd.sh).
export TIRAGE_BENCH_DATA=$tmp/data
mkdir "$TIRAGE_BENCH_DATA"

# tree SIDE REV: the side's source tree (a worktree of REV, or this one).
tree() {
  if [ "$2" = . ]; then
    pwd
  else
    git worktree add --detach "$tmp/$1" "$2" >/dev/null 2>&1 || { echo "pairs: no revision $2" >&2; exit 2; }
    echo "$tmp/$1"
  fi
}
dir_a=$(tree a "$1")
dir_b=$(tree b "${2:-.}")
for side in a b; do
  d=dir_$side
  (cd "${!d}/rngd/loadtest" && go test -c -o "$tmp/$side.test" .)
done

# run SIDE: one run; prints the benchmark's metrics as name=value.
run() {
  local d=dir_$1 t=TOML_${1^^}
  (cd "${!d}/rngd/loadtest" &&
    TIRAGE_BENCH_TOML="${!t:-}" TIRAGE_BENCH_RATE="$rate" TIRAGE_BENCH_PLAY=$play TIRAGE_BENCH_CLIENTS=256 TIRAGE_BENCH_TICKETS=$((draws / 3 + 100)) \
      "$tmp/$1.test" -test.run '^$' -test.bench "$bench" -test.benchtime "${n}x" 2>&1) |
    awk '/^Benchmark/ { for (i = 3; i < NF; i++) if ($(i + 1) ~ /[a-z]/) printf "%s=%s ", $(i + 1), $i }'
}
# get METRIC RUN: a metric's value in a run's output.
get() { tr ' ' '\n' <<<"$2" | sed -n "s|^$1=||p"; }

unit=draw
[ "$bench" = 'DaemonProcessCall$' ] && unit=call
echo "pairs: A=$1 B=${2:-working tree}, $pairs pairs of ${n} ${unit}s, $([ $play = 1 ] && echo Play streams || echo unary calls)${rate:+, paced at $rate a second}; load $(loadavg)"
if [ -n "$rate" ]; then
  echo "| pair | A p99 ms | B p99 ms | A slowest | B slowest | A pick p99 ≤ | B pick p99 ≤ | A append p99 ≤ | B append p99 ≤ | A fsync p99 ≤ | B fsync p99 ≤ | A GCs | B GCs | A µs/$unit | B µs/$unit |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
else
  echo "| pair | A µs/$unit | B µs/$unit | B − A | A kernel | B kernel | A ${unit}s/s | B ${unit}s/s |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
fi
psum=0
sum=0
for i in $(seq 1 "$pairs"); do
  # A first in odd pairs, B first in even ones (A B B A …): a drift of the
  # machine during the pairs falls on both sides alike instead of always
  # on the side that runs second.
  if [ $((i % 2)) = 1 ]; then
    ra=$(run a)
    rb=$(run b)
  else
    rb=$(run b)
    ra=$(run a)
  fi
  ca=$(get "daemon-cpu-us/$unit" "$ra") cb=$(get "daemon-cpu-us/$unit" "$rb")
  if [ -z "$ca" ] || [ -z "$cb" ]; then
    echo "pairs: a run printed no result (A: $ra; B: $rb)" >&2
    exit 1
  fi
  d=$(awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%+.3g", b - a }')
  sum=$(awk -v s="$sum" -v a="$ca" -v b="$cb" 'BEGIN { print s + b - a }')
  if [ -n "$rate" ]; then
    pa=$(get p99-ms "$ra") pb=$(get p99-ms "$rb")
    psum=$(awk -v s="$psum" -v a="$pa" -v b="$pb" 'BEGIN { print s + b - a }')
    echo "| $i | $pa | $pb | $(get max-ms "$ra") | $(get max-ms "$rb") | $(get pick-p99-ms "$ra") | $(get pick-p99-ms "$rb") | $(get append-p99-ms "$ra") | $(get append-p99-ms "$rb") | $(get fsync-p99-ms "$ra") | $(get fsync-p99-ms "$rb") | $(whole "$(get daemon-gc-cycles "$ra")") | $(whole "$(get daemon-gc-cycles "$rb")") | $ca | $cb |"
  else
    echo "| $i | $ca | $cb | $d | $(get "daemon-sys-cpu-us/$unit" "$ra") | $(get "daemon-sys-cpu-us/$unit" "$rb") | $(get "${unit}s/s" "$ra") | $(get "${unit}s/s" "$rb") |"
  fi
done
[ -n "$rate" ] && awk -v s="$psum" -v n="$pairs" 'BEGIN { printf "mean B − A: %+.3g ms of p99\n", s / n }'
awk -v s="$sum" -v n="$pairs" -v u="$unit" 'BEGIN { printf "mean B − A: %+.3g µs a %s\n", s / n, u }'
