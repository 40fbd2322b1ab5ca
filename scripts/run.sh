#!/usr/bin/env bash
# make run: builds rngd with dev mode compiled in (bin/rngd-dev, build tag
# tirage_dev), starts it on its embedded dev defaults — software keys, tessera
# log in ./data, dev mTLS certificates in ./data/dev (ca.pem, client.pem,
# client.key), gRPC on 127.0.0.1:7443, the auditors' gRPC (log audit service,
# no client certificate) on 127.0.0.1:7444, HTTP (metrics, health, /log/) on
# 127.0.0.1:7480 — then runs the demo game server, which plays a few games and
# verifies their receipts. The daemon then keeps running until Ctrl-C;
# DEMO_ONLY=1 stops it right after the demo (CI, tests).
#
# Without RNGD_CONFIG, a user who cannot read /dev/hwrng (rngd's default
# entropy source) gets the CPU's RDSEED instead, said on stderr; without
# RDSEED either, make run stops before starting rngd.
#
# RNGD_CONFIG=FILE starts `rngd-dev --dev --config FILE` instead: other
# addresses or another data_dir (e.g. a second clone's make run beside the
# first). The demo and the hints below follow the file; this script reads its
# top-level data_dir and [grpc] listen, [audit] listen, [http] listen and
# [admin] socket (one `key = "value"` per line). The admin socket must stay
# data_dir/admin.sock, where rngdemo looks for it.
# DEMO_GAMES=N plays N games (default 4).
set -euo pipefail
config=""
if [ -n "${RNGD_CONFIG:-}" ]; then
  [ -f "$RNGD_CONFIG" ] || { echo "run: RNGD_CONFIG=$RNGD_CONFIG: no such file" >&2; exit 2; }
  config=$(realpath "$RNGD_CONFIG") # before the cd: relative to the caller
fi
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=auto # go.mod's toolchain line

# rngd's default entropy source, /dev/hwrng, is root's only on Debian and
# absent without a hardware RNG. Without RNGD_CONFIG (its file decides the
# sources), when this user cannot read a byte of it, this run gives rngd a
# dev config whose physical source is the CPU's RDSEED, and says so; without
# RDSEED either it stops here, before the build. rngd's own default is left
# as it is: the config is this run's only (written into $tmp below).
rdseed=0
if [ -z "$config" ] && ! timeout 2 head -c 1 /dev/hwrng >/dev/null 2>&1; then
  if [ ! -e /dev/hwrng ]; then
    why="/dev/hwrng is absent (no hardware RNG)"
  elif [ ! -r /dev/hwrng ]; then
    why="user $(id -un) may not read /dev/hwrng ($(stat -c '%A %U:%G' /dev/hwrng); Debian lets only root read it)"
  else
    why="/dev/hwrng gave no byte within 2 s (no hardware RNG behind it?)"
  fi
  if [ "$(uname -m)" = x86_64 ] && grep -qw rdseed /proc/cpuinfo 2>/dev/null; then
    rdseed=1
    echo "run: ENTROPY SOURCE: RDSEED (the CPU's), not rngd's default /dev/hwrng: $why; for this dev run only (rngd's default is unchanged; RNGD_CONFIG=FILE chooses the sources)" >&2
  else
    echo "run: no entropy source for rngd: $why, and this CPU has no RDSEED: run make run as root on a machine with a hardware RNG, or name a physical source (e.g. a tpm) with RNGD_CONFIG=FILE (see README.md, docs/entropy.md)" >&2
    exit 1
  fi
fi
# The version rngd shows (banner, /healthz, rngctl qod status) comes from
# the build's VCS stamp (commit, tag, +dirty): asked for explicitly, since
# GOFLAGS may say -buildvcs=false. Outside a git work tree, go's default.
buildvcs=""
if git status --porcelain >/dev/null 2>&1; then buildvcs=-buildvcs=true; fi
mkdir -p bin
go build $buildvcs -tags tirage_dev -o bin/rngd-dev ./cmd/rngd
go build $buildvcs -o bin/rngdemo ./cmd/rngdemo
go build $buildvcs -o bin/rngverify ./cmd/rngverify

# toml_get TABLE KEY prints KEY's string value in [TABLE] of the config ("" is
# the top level; TABLE.KEY at the top level counts too), or nothing.
toml_get() {
  [ -n "$config" ] || return 0
  awk -v t="$1" -v k="$2" '
    function val(s) {
      sub(/^[ \t]*=[ \t]*/, "", s)
      if (s ~ /^"/) { sub(/^"/, "", s); sub(/".*$/, "", s) }
      else if (s ~ /^'\''/) { sub(/^'\''/, "", s); sub(/'\''.*$/, "", s) }
      else { sub(/[ \t]*#.*$/, "", s); sub(/[ \t]+$/, "", s) }
      return s
    }
    /^[ \t]*\[/ { tbl = $0; gsub(/^[ \t]*\[[ \t]*|[ \t]*\].*$/, "", tbl); next }
    {
      line = $0; sub(/^[ \t]+/, "", line)
      if (tbl == t && index(line, k) == 1 && substr(line, length(k) + 1) ~ /^[ \t]*=/) { print val(substr(line, length(k) + 1)); exit }
      q = t "." k
      if (t != "" && tbl == "" && index(line, q) == 1 && substr(line, length(q) + 1) ~ /^[ \t]*=/) { print val(substr(line, length(q) + 1)); exit }
    }' "$config"
}

# The addresses and directory the daemon will use: the config's, else
# rngd's defaults ("off" turns a listener off).
data=$(toml_get "" data_dir); data=$(realpath -m "${data:-./data}")
grpc=$(toml_get grpc listen); grpc=${grpc:-127.0.0.1:7443}
audit=$(toml_get audit listen); audit=${audit:-127.0.0.1:7444}
http=$(toml_get http listen); http=${http:-127.0.0.1:7480}
[ "$audit" = off ] && audit=""
[ "$http" = off ] && http=""
socket=$(toml_get admin socket)
if [ -n "$socket" ] && [ "$(realpath -m "$socket")" != "$data/admin.sock" ]; then
  echo "run: $config sets admin.socket = $socket; the demo (rngdemo) finds the admin socket only at data_dir/admin.sock ($data/admin.sock): remove admin.socket from the file" >&2
  exit 2
fi

# Refuse early when an address is taken (another rngd, e.g. another clone's
# make run): the demo would otherwise talk to that daemon.
taken() { # taken HOST:PORT prints the listener(s) on PORT, if any
  local port=${1##*:} host out
  [ -n "$port" ] && [ "$port" != 0 ] || return 0
  # ss, when it works: it may not (an iproute2 too old for -H, no netlink
  # in a container…), and then the probe below answers.
  if command -v ss >/dev/null 2>&1 && out=$(ss -Hltnp "( sport = :$port )" 2>/dev/null); then
    [ -z "$out" ] || awk '{ print $4, $6 }' <<<"$out"
    return 0
  fi
  # Else a connection: something accepts on the address (a wildcard one is
  # probed on loopback).
  host=${1%:*}; host=${host#[}; host=${host%]}
  case $host in
    "" | 0.0.0.0) host=127.0.0.1 ;;
    ::) host=::1 ;;
  esac
  if timeout 1 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null; then
    echo "$1"
  fi
  return 0
}
busy=0
hostport='^(\[[^]]*\]|[^]:[]*):[^]:[]*$' # HOST:PORT, IPv6 hosts in brackets
check_free() { # check_free KEY ADDR
  [ -n "$2" ] || return 0
  if ! [[ $2 =~ $hostport ]]; then
    echo "run: ${config:-the dev defaults}: $1 = \"$2\" is not HOST:PORT (a port is required, e.g. 127.0.0.1:7443; an IPv6 address in brackets, [::1]:7443)" >&2
    exit 2
  fi
  local who
  who=$(taken "$2" | tr '\n' ' ') || who=""
  if [ -n "$who" ]; then
    echo "run: $1 $2 is taken (listening: ${who% }): stop the other daemon (another make run?), or choose other addresses with RNGD_CONFIG=FILE (see README.md)" >&2
    busy=1
  fi
}
check_free grpc.listen "$grpc"
check_free audit.listen "$audit"
check_free http.listen "$http"
[ $busy -eq 0 ] || exit 1

# Everything the daemon and the demo create is private to this user: data_dir
# is 0700 (docs/rngd.md), transcripts too (only this user runs rngverify).
umask 077
mkdir -p "$data/transcripts"
chmod 0700 "$data" "$data/transcripts"

tmp=$(mktemp -d)
args=(--dev)
[ -z "$config" ] || args+=(--config "$config")
if [ $rdseed -eq 1 ]; then
  # The dev defaults with the default's sources, RDSEED in /dev/hwrng's
  # place (README.md, docs/entropy.md).
  printf '[[entropy.source]]\nkind = "rdseed"\nmin_entropy = 4.0\n[[entropy.source]]\nkind = "getrandom"\n' >"$tmp/rngd-dev.toml"
  args+=(--config "$tmp/rngd-dev.toml")
fi
pid="" tails="" rngd_st=""
# reap waits for rngd to exit (its status into rngd_st), then for the tails to
# have shown its last lines (they end once it is gone).
reap() {
  if [ -z "$rngd_st" ]; then
    local st=0
    wait "$pid" || st=$?
    rngd_st=$st
  fi
  # shellcheck disable=SC2086 # pids
  [ -z "$tails" ] || wait $tails 2>/dev/null || true
}
# stop ends rngd (SIGTERM, if still running), lets it shut down — further
# Ctrl-Cs are ignored meanwhile: rngd ignores them too, finishing its drain
# and final writes — and says so when it did not exit cleanly (0: rngd exits 0
# when a signal stops it, see cmd/rngd).
explained=0
stop() {
  local st=$?
  trap '' INT TERM
  if [ -n "$pid" ]; then
    [ -n "$rngd_st" ] || kill -TERM "$pid" 2>/dev/null || true
    reap
    if [ "$rngd_st" != 0 ] && [ $explained -eq 0 ]; then
      local why="see its log above" sig
      if [ "$rngd_st" -gt 128 ]; then
        sig=$(kill -l $((rngd_st - 128)) 2>/dev/null) || sig=$((rngd_st - 128))
        why="killed by signal $sig: its shutdown did not complete"
      fi
      echo "run: rngd (pid $pid) exited with status $rngd_st: $why" >&2
      [ "$st" -ne 0 ] || st=1
    fi
  fi
  rm -rf "$tmp"
  exit "$st"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# rngd writes its banner (stdout) and its log (stderr) to files in $tmp, which
# two tails show: its output never depends on another process (through a pipe
# to a reader that Ctrl-C killed, its first line of shutdown log would end it
# by SIGPIPE, before its drain and final writes). The tails ignore SIGINT, to
# show rngd's shutdown to the end, and end with it (--pid).
: >"$tmp/banner"
: >"$tmp/stderr"
bin/rngd-dev "${args[@]}" >"$tmp/banner" 2>"$tmp/stderr" &
pid=$!
(trap '' INT; exec tail -n +1 -s 0.2 --pid="$pid" -f "$tmp/banner") &
tails=$!
(trap '' INT; exec tail -n +1 -s 0.2 --pid="$pid" -f "$tmp/stderr" >&2) &
tails="$tails $!"

# died explains in one line why our rngd is gone, and fails.
died() {
  reap
  explained=1
  if grep -q 'address already in use' "$tmp/stderr" 2>/dev/null; then
    echo "run: rngd exited (status $rngd_st): an address it listens on is taken (see its error above): stop the other daemon (another make run?), or choose other addresses with RNGD_CONFIG=FILE (see README.md)" >&2
  elif grep -q 'entropy: source hwrng' "$tmp/stderr" 2>/dev/null; then
    echo "run: rngd exited (status $rngd_st): it cannot read its entropy source hwrng (see its error above; /dev/hwrng is root's only on Debian, and absent without a hardware RNG): run make run as root, or give rngd another physical source with RNGD_CONFIG=FILE, e.g. an [[entropy.source]] table with kind = \"rdseed\" and min_entropy = 4.0 (see README.md, docs/entropy.md)" >&2
  else
    echo "run: rngd exited (status $rngd_st) before serving: see its error above" >&2
  fi
  exit 1
}

# banner_get LABEL prints the first word after LABEL in rngd's banner (the
# address it really listens on), or nothing.
banner_get() { sed -n "s|^  $1  *\([^ ]*\).*|\1|p" "$tmp/banner" 2>/dev/null | head -1; }

# Wait until OUR daemon serves: it is alive, has printed its banner (its
# listeners are bound), and answers on its own HTTP address.
ready=0
for _ in $(seq 1 300); do
  kill -0 "$pid" 2>/dev/null || died
  if grep -q '^  admin ' "$tmp/banner" 2>/dev/null; then
    h=$(banner_get http); h=${h#http://}; h=${h:-$http}
    if [ -z "$h" ] || curl -fsS "http://$h/healthz" >/dev/null 2>&1; then
      kill -0 "$pid" 2>/dev/null || died
      ready=1
      break
    fi
  fi
  sleep 0.2
done
if [ $ready -eq 0 ]; then
  echo "run: rngd (pid $pid) did not print its banner and answer on ${h:-$http}/healthz within 60 s" >&2
  exit 1
fi

# The addresses rngd reports (its banner), else the configured ones.
v=$(banner_get 'grpc (mTLS)'); grpc=${v:-$grpc}
v=$(banner_get 'audit (TLS)'); audit=${v:-$audit}
v=$(banner_get 'data dir'); data=${v:-$data}
# A wildcard listener is reached on loopback (the dev certificate's names).
client_addr() {
  case $1 in
    0.0.0.0:*) echo "127.0.0.1:${1##*:}" ;;
    "[::]:"* | ":"*) echo "[::1]:${1##*:}" ;;
    *) echo "$1" ;;
  esac
}
grpc=$(client_addr "$grpc")
[ -z "$audit" ] || audit=$(client_addr "$audit")
# Paths as typed from here: data/… for the default data_dir.
shown=$data
[ "$data" != "$PWD/data" ] || shown=data

echo
echo "== demo game server (rngd at $grpc, client certificate $shown/dev/client.pem) =="
bin/rngdemo --data "$data" --grpc "$grpc" --games "${DEMO_GAMES:-4}"

# The standalone verifier, as an auditor runs it, on the newest transcript.
if [ -x bin/rngverify ]; then
  t=$(ls -t "$data"/transcripts/*.json 2>/dev/null | head -1 || true)
  if [ -n "$t" ]; then
    echo
    echo "== bin/rngverify game ${t/#$data/$shown} --log-key $shown/transcripts/log.vkey =="
    bin/rngverify game "$t" --log-key "$data/transcripts/log.vkey"
  fi
fi

if [ "${DEMO_ONLY:-0}" = "1" ]; then
  exit 0
fi
sock=""
[ "$shown" = data ] || sock=" --socket $shown/admin.sock"
echo
echo "rngd keeps running (dev mode). Try:"
echo "  go tool grpcurl -cacert $shown/dev/ca.pem -cert $shown/dev/client.pem -key $shown/dev/client.key $grpc list"
[ -z "$audit" ] || echo "  go tool grpcurl -cacert $shown/dev/ca.pem $audit tirage.transparency.audit.v1.Audit/Checkpoint"
echo "  bin/rngctl emission list$sock"
echo "Ctrl-C stops it."
reap
exit "$rngd_st"
