#!/usr/bin/env bash
# Promotions benchmark (issue 6): ROWS (default 10,000,000) synthetic stake rows
# → eligibility, e-credit report, four freezes, four bailiff ceremonies with
# their certificates and PDFs, then rngverify of each certificate with its
# entrant list. Every step is a real rngctl/rngverify process on the embedded
# log, a software keystore and /dev/hwrng; /usr/bin/time -v gives wall time,
# CPU time and peak RSS. Writes docs/bench/promo.md.
# Goal: ≤ 60 s and ≤ 2 GiB peak RSS on the 2-core machine.
. "$(dirname "$0")/../benchlib.sh"
ROWS=${ROWS:-10000000}
FORMATS=${FORMATS:-${FORMAT:-csv jsonl}}
OUT_MD=${OUT_MD:-docs/bench/promo.md}
work=$(mktemp -d /tmp/tirage-promo-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/bin/" ./cmd/rngctl ./cmd/rngverify
rngctl="$work/bin/rngctl"; rngverify="$work/bin/rngverify"
# The 2016 example allows ceremonies from 21 June to 21 July 2016 only (art.
# 2.4), and rngctl refuses one on another day: the bench runs a copy whose
# last allowed day is moved to 2099, on today's clock.
rules=$work/bonus-crescendo.yaml
sed 's/latest_date: 2016-07-21/latest_date: 2099-12-31/' examples/bonus-crescendo.yaml > "$rules"
grep -q 'latest_date: 2099-12-31' "$rules" || { echo "promo bench: couldn't move the example's draw dates" >&2; exit 1; }
printf 'promo bench keystore passphrase\n' > "$work/pass"; chmod 600 "$work/pass"
# A software keystore (a production rngctl asks for it explicitly).
"$rngctl" keys init --backend software --allow-software --dir "$work/keys" --passphrase-file "$work/pass" --announcement "$work/ann.json" \
  --kdf-time 1 --kdf-memory-mib 8 --kdf-threads 1 >/dev/null 2>&1

# measure NAME CMD...: runs CMD under /usr/bin/time -v, appends "name wall user sys rss_kb".
measure() {
  local name=$1; shift
  /usr/bin/time -v -o "$work/time.$name" "$@"
  local wall user sys rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.$name")
  user=$(awk -F': ' '/User time/{print $2}' "$work/time.$name")
  sys=$(awk -F': ' '/System time/{print $2}' "$work/time.$name")
  rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$work/time.$name")
  echo "$name $wall $user $sys $rss" >> "$work/results"
}

# run_format FORMAT: generate, freeze, draw, verify; table section on stdout.
run_format() {
  local FORMAT=$1
  rm -rf "$work/data" "$work/out" "$work/results" "$work/closed.csv"
  echo "promo bench: generating $ROWS rows ($FORMAT)" >&2
  local t0 t1
  t0=$(date +%s.%N)
  "$rngctl" promo gen --rules "$rules" --rows "$ROWS" --format "$FORMAT" --defects --seed 2016 \
    --out "$work/stakes.$FORMAT" --closed "$work/closed.csv"
  t1=$(date +%s.%N)
  gen_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')
  size_mb=$(( $(stat -c %s "$work/stakes.$FORMAT") / 1048576 ))
  load_before=$(loadavg)
  measure freeze "$rngctl" promo freeze --rules "$rules" --stakes "$work/stakes.$FORMAT" --closed "$work/closed.csv" \
    --out "$work/out" --quiet "${common[@]}" > "$work/freeze.out"
  for d in 1 2 3 4; do
    echo "6 1 4 2 5 3 3 5 2 6 1 1 4 4 2 5 6 3 3 1 2 5 6 4 $d" | \
      measure "draw$d" "$rngctl" promo draw --dice --draw "bonus-crescendo/$d" --out "$work/out" "${common[@]}" > "$work/draw$d.out" 2>/dev/null
  done
  for d in 1 2 3 4; do
    measure "verify$d" "$rngverify" certificate "$work/out/bonus-crescendo-$d-certificate.json" \
      --entrants "$work/out/bonus-crescendo-$d-entrants.txt" --rules "$rules" --reserves 3 \
      --log-key "$work/ann.json" --vrf-key "$work/ann.json" > /dev/null
  done
  load_after=$(loadavg)
  rm -f "$work/stakes.$FORMAT"
  awk -v rows="$ROWS" -v gen="$gen_s" -v mb="$size_mb" -v fmt="$FORMAT" -v lb="$load_before" -v la="$load_after" \
    -v entrants="$(grep '^frozen' "$work/freeze.out" | grep -o '[0-9]* entrants' | awk '{s=s (s?" / ":"") $1} END{print s}')" \
    -v summary="$(head -1 "$work/freeze.out")" '
{ name[NR]=$1; wall[NR]=$2; cpu[NR]=$3+$4; rss[NR]=$5 }
END {
  printf "### %s\n\n", (fmt=="csv" ? "CSV" : "JSON Lines")
  printf "Bonus Crescendo on %d synthetic stake rows (%s, %d MB, with malformed and duplicate rows and a closed-accounts file):\n", rows, fmt, mb
  printf "%s; entrants per draw %s.\n\n", summary, entrants
  printf "| step | wall (s) | CPU user+sys (s) | peak RSS (MiB) |\n|---|---:|---:|---:|\n"
  tw=0; tc=0; mr=0
  for (i=1;i<=NR;i++) {
    label=name[i]
    if (label=="freeze") label="ingest + eligibility + e-credit report + 4 freezes + receipts"
    else if (label ~ /^draw/) label="ceremony + certificate + PDFs, draw " substr(name[i],5)
    else if (label ~ /^verify/) label="rngverify certificate --entrants, draw " substr(name[i],7)
    printf "| %s | %.2f | %.2f | %.0f |\n", label, wall[i], cpu[i], rss[i]/1024
    if (name[i] !~ /^verify/) { tw+=wall[i]; tc+=cpu[i] }
    if (rss[i]>mr) mr=rss[i]
  }
  printf "| **total appliance (freeze + 4 draws)** | **%.2f** | **%.2f** | **%.0f** (max) |\n\n", tw, tc, mr/1024
  printf "Goal: ≤ 60 s and ≤ 2048 MiB peak RSS. Generating the file (not counted) took %.1f s.\n", gen
  printf "Load average (1, 5, 15 min) before: %s, after: %s — the machine is shared; CPU time is the\n", lb, la
  printf "figure that does not depend on other users, wall time is what this run got.\n\n"
}' "$work/results"
}

common=(--data "$work/data" --origin tirage.bench/promo --backend software --allow-software --keys "$work/keys" --passphrase-file "$work/pass")
{
  printf "## Promotions\n\n"
  printf "Each step is a real \`rngctl\`/\`rngverify\` process (embedded tile log, software keystore, /dev/hwrng);\n"
  printf "wall time, CPU time and peak RSS from \`/usr/bin/time -v\`.\n\n"
  for f in $FORMATS; do
    run_format "$f"
    echo
  done
  printf "Reproduce: \`bash scripts/bench.d/promo.sh\` (env ROWS, FORMATS=\"csv jsonl\"), or \`make bench\`.\n"
} > "$work/promo.md"
mv "$work/promo.md" "$OUT_MD"
cat "$OUT_MD"
