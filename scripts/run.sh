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
  local port=${1##*:}
  [ "$port" != 0 ] || return 0
  if command -v ss >/dev/null; then
    ss -Hltnp "( sport = :$port )" 2>/dev/null | awk '{ print $4, $6 }'
  elif timeout 1 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$(h=${1%:*}; h=${h#[}; echo "${h%]}")" "$port" 2>/dev/null; then
    echo "$1"
  fi
}
busy=0
check_free() { # check_free KEY ADDR
  [ -n "$2" ] || return 0
  local who
  who=$(taken "$2" | tr '\n' ' ')
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
# The banner (stdout) and the errors (stderr) are shown and kept in $tmp.
bin/rngd-dev "${args[@]}" > >(tee "$tmp/banner") 2> >(tee "$tmp/stderr" >&2) &
pid=$!
stop() {
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    wait "$pid" || true
  fi
  rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# died explains in one line why our rngd is gone, and fails.
died() {
  local st=0
  wait "$pid" || st=$?
  sleep 0.2 # let tee write out rngd's last lines
  if grep -q 'address already in use' "$tmp/stderr" 2>/dev/null; then
    echo "run: rngd exited (status $st): an address it listens on is taken (see its error above): stop the other daemon (another make run?), or choose other addresses with RNGD_CONFIG=FILE (see README.md)" >&2
  else
    echo "run: rngd exited (status $st) before serving: see its error above" >&2
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
st=0
wait "$pid" || st=$?
exit $st
