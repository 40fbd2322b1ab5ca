#!/usr/bin/env bash
# Trillian v1.8 stack for the transparency log's Trillian backend, all on loopback,
# all under .run/ (private to this working tree, never a system service):
#
#   scripts/trillian.sh up     MariaDB (private instance in .run/mariadb) + schema,
#                              trillian_log_server + trillian_log_signer (built from the
#                              module pinned in go.mod), one LOG tree; writes .run/trillian.env
#   scripts/trillian.sh down   stops them by PID (.run/*.pid)
#   scripts/trillian.sh status
#
# .run/trillian.env (read by the Trillian tests; rngd reads log.trillian_address and
# log.trillian_tree_id from its config, set them from it):
#   TRILLIAN_LOG_ADDR   log server gRPC address (admin API on the same port)
#   TRILLIAN_TREE_ID    a ready LOG tree
#   TRILLIAN_MYSQL_URI  the DSN the servers use (dev-only credentials, local socket stack)
# `up` is idempotent: a running stack is reused; binaries are rebuilt only when go.mod changes.
# A stack stopped (down, a crash, a reboot) comes back as it was, for an rngd pointed at it:
# MariaDB on its port and the log server on its address when still free, the same tree
# (.run/trillian.tree) while the database holds it as an ACTIVE LOG tree.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUN=$ROOT/.run
BIN=$RUN/trillian-bin
DB=$RUN/mariadb
ENV=$RUN/trillian.env
DB_RESTARTED=
export GOTOOLCHAIN=auto # go.mod's toolchain line

log() { echo "trillian.sh: $*" >&2; }

# alive PIDFILE: the process PIDFILE names runs, and is the program the file
# is named after (mariadbd, trillian_log_server, trillian_log_signer). After a
# reboot, or a make test killed before its down, a stale file's PID may be
# another process's: it is neither reused nor signalled.
alive() {
  local pid exe
  [ -f "$1" ] && pid=$(cat "$1") && [ -n "$pid" ] || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  exe=${exe% (deleted)} # a binary replaced since it started (an upgrade, a rebuild)
  [ "${exe##*/}" = "$(basename "$1" .pid)" ]
}

free_port() { # a loopback port nobody listens on (bash only: CI machines may lack python)
  # Below the kernel's ephemeral range (ip_local_port_range, 32768+ by default), so
  # that no test's outgoing connection can take the port between now and the bind.
  local p i
  for ((i = 0; i < 100; i++)); do
    p=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  log "no free port found"
  exit 1
}

wait_tcp() { # host port seconds
  local i
  for ((i = 0; i < $3 * 20; i++)); do
    if (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  return 1
}

build() {
  local stamp=$BIN/.stamp want
  want=$(sha256sum go.mod go.sum | sha256sum | cut -c1-16)
  if [ -x "$BIN/trillian_log_server" ] && [ -x "$BIN/trillian_log_signer" ] && [ -x "$BIN/createtree" ] &&
    [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return
  fi
  log "building trillian_log_server, trillian_log_signer, createtree ($(go list -m -f '{{.Version}}' github.com/google/trillian))"
  mkdir -p "$BIN"
  go build -o "$BIN/" github.com/google/trillian/cmd/trillian_log_server \
    github.com/google/trillian/cmd/trillian_log_signer github.com/google/trillian/cmd/createtree
  echo "$want" >"$stamp"
}

mariadb_up() {
  mkdir -p "$DB"
  local user=(--user="$(id -un)")
  local i
  for ((i = 0; i < 200; i++)); do # a running server answers, or is shutting down
    alive "$RUN/mariadbd.pid" || break
    mariadb-admin --no-defaults --socket="$DB/mysqld.sock" -uroot ping >/dev/null 2>&1 && return
    sleep 0.05
  done
  if alive "$RUN/mariadbd.pid"; then log "mariadbd (pid $(cat "$RUN/mariadbd.pid")) does not answer"; exit 1; fi
  if [ ! -d "$DB/data/mysql" ]; then
    log "initialising MariaDB in $DB/data"
    rm -rf "$DB/data"
    mariadb-install-db --no-defaults --datadir="$DB/data" "${user[@]}" \
      --auth-root-authentication-method=socket --skip-test-db >"$DB/install.log" 2>&1 ||
      { cat "$DB/install.log" >&2; exit 1; }
  fi
  local port old
  old=$(cat "$DB/port" 2>/dev/null || true)
  port=$old
  if [[ ! $port =~ ^[0-9]+$ ]] || (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    port=$(free_port)
    [ -z "$old" ] || log "MariaDB's port $old is taken: it starts on $port"
  fi
  echo "$port" >"$DB/port"
  # Servers still running would point at the old port; on the same one they
  # reconnect by themselves.
  [ "$port" = "$old" ] || DB_RESTARTED=1
  mariadbd --no-defaults --datadir="$DB/data" "${user[@]}" --socket="$DB/mysqld.sock" \
    --port="$port" --bind-address=127.0.0.1 --skip-name-resolve --pid-file="$DB/mariadbd.pid" \
    --log-error="$DB/mariadbd.log" --innodb-buffer-pool-size=128M --max-connections=500 \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$RUN/mariadbd.pid"
  for ((i = 0; i < 600; i++)); do
    if mariadb-admin --no-defaults --socket="$DB/mysqld.sock" -uroot ping >/dev/null 2>&1; then break; fi
    kill -0 "$(cat "$RUN/mariadbd.pid")" 2>/dev/null || { tail -20 "$DB/mariadbd.log" >&2; log "mariadbd exited"; exit 1; }
    sleep 0.05
  done
  mariadb-admin --no-defaults --socket="$DB/mysqld.sock" -uroot ping >/dev/null
}

sql() { mariadb --no-defaults --socket="$DB/mysqld.sock" -uroot "$@"; }

schema() {
  local pass
  # Made 0600 (umask), not chmodded after: no moment when others may read it.
  [ -f "$DB/password" ] || (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$DB/password")
  chmod 600 "$DB/password"
  pass=$(cat "$DB/password")
  sql <<SQL
CREATE DATABASE IF NOT EXISTS trillian;
CREATE USER IF NOT EXISTS 'trillian'@'127.0.0.1' IDENTIFIED BY '$pass';
GRANT ALL ON trillian.* TO 'trillian'@'127.0.0.1';
SQL
  if [ "$(sql -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='trillian' AND table_name='Trees'")" = 0 ]; then
    local dir
    dir=$(go list -m -f '{{.Dir}}' github.com/google/trillian)
    log "loading Trillian schema"
    sql trillian <"$dir/storage/mysql/schema/storage.sql"
  fi
}

trillian_up() {
  local port pass uri
  if [ -n "${DB_RESTARTED:-}" ]; then
    stop "$RUN/trillian_log_signer.pid"
    stop "$RUN/trillian_log_server.pid"
  fi
  port=$(cat "$DB/port")
  pass=$(cat "$DB/password")
  uri="trillian:${pass}@tcp(127.0.0.1:${port})/trillian"
  # The DSN holds a password: pass it in a 0600 flag file, never on the command line.
  (umask 077 && echo "--mysql_uri='$uri'" >"$RUN/trillian.flags")
  if ! alive "$RUN/trillian_log_server.pid"; then
    local rpc=
    # A log server that stopped (crashed, killed) comes back on its address, if
    # still free: rngd's log.trillian_address names it, and rngd recovers from
    # the outage by itself only if the log server answers there again.
    if [ -f "$RUN/trillian_log_server.addr" ]; then
      rpc=$(cat "$RUN/trillian_log_server.addr")
      rpc=${rpc##*:}
      if [[ ! $rpc =~ ^[0-9]+$ ]] || (exec 3<>"/dev/tcp/127.0.0.1/$rpc") 2>/dev/null; then
        log "the log server's address 127.0.0.1:$rpc is taken: it starts on another port (update log.trillian_address)"
        rpc=
      fi
    fi
    [ -n "$rpc" ] || rpc=$(free_port)
    # No HTTP endpoint: metrics are not used, and one port less to collide.
    "$BIN/trillian_log_server" --rpc_endpoint="127.0.0.1:$rpc" --http_endpoint= \
      --storage_system=mysql --quota_system=noop --config="$RUN/trillian.flags" --mysql_max_conns=100 \
      </dev/null >"$RUN/trillian_log_server.log" 2>&1 &
    echo $! >"$RUN/trillian_log_server.pid"
    echo "127.0.0.1:$rpc" >"$RUN/trillian_log_server.addr"
  fi
  if ! alive "$RUN/trillian_log_signer.pid"; then
    local rpc
    rpc=$(free_port)
    # A short sequencer interval: Append waits for integration (see docs/transparency.md).
    "$BIN/trillian_log_signer" --rpc_endpoint="127.0.0.1:$rpc" --http_endpoint= \
      --storage_system=mysql --quota_system=noop --config="$RUN/trillian.flags" --mysql_max_conns=100 \
      --force_master --sequencer_interval=10ms --batch_size=2000 --num_sequencers=4 \
      </dev/null >"$RUN/trillian_log_signer.log" 2>&1 &
    echo $! >"$RUN/trillian_log_signer.pid"
  fi
  local addr
  addr=$(cat "$RUN/trillian_log_server.addr")
  wait_tcp 127.0.0.1 "${addr##*:}" 30 || { tail -20 "$RUN/trillian_log_server.log" >&2; log "log server did not start"; exit 1; }
  sleep 1
  for d in trillian_log_server trillian_log_signer; do
    alive "$RUN/$d.pid" || { tail -20 "$RUN/$d.log" >&2; log "$d exited at start"; exit 1; }
  done
  local tree
  # The tree made by an earlier up, while the database holds it as an active
  # LOG tree: an rngd on it would otherwise lose its log (a new tree's root
  # does not extend its trillian-checkpoint).
  tree=$(cat "$RUN/trillian.tree" 2>/dev/null || true)
  if [[ ! $tree =~ ^[0-9]+$ ]] ||
    [ "$(sql -N trillian -e "SELECT COUNT(*) FROM Trees WHERE TreeId=$tree AND TreeType='LOG' AND TreeState='ACTIVE' AND (Deleted IS NULL OR Deleted=0)")" != 1 ]; then
    [ -z "$tree" ] || log "tree $tree is not an active LOG tree of this database (re-initialised?): creating another"
    tree=$("$BIN/createtree" --admin_server="$addr" --display_name=tirage --max_root_duration=0 2>"$RUN/createtree.log") ||
      { cat "$RUN/createtree.log" >&2; exit 1; }
    echo "$tree" >"$RUN/trillian.tree"
  fi
  (
    umask 077 # it holds the database password: 0600 from the start
    {
      echo "TRILLIAN_LOG_ADDR=$addr"
      echo "TRILLIAN_TREE_ID=$tree"
      echo "TRILLIAN_MYSQL_URI=$uri"
    } >"$ENV.tmp"
  )
  chmod 600 "$ENV.tmp"
  mv "$ENV.tmp" "$ENV"
}

stop() { # pidfile
  local f=$1 pid i
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if alive "$f"; then
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 200; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

case "${1:-}" in
up)
  mkdir -p "$RUN"
  command -v mariadbd >/dev/null || { log "mariadbd missing: run make deps"; exit 1; }
  build
  mariadb_up
  schema
  trillian_up
  log "up: $(tr '\n' ' ' <"$ENV" | sed 's/TRILLIAN_MYSQL_URI=[^ ]*/TRILLIAN_MYSQL_URI=<in .run\/trillian.env>/')"
  ;;
down)
  stop "$RUN/trillian_log_signer.pid"
  stop "$RUN/trillian_log_server.pid"
  stop "$RUN/mariadbd.pid"
  # The log server's address and the tree (trillian_log_server.addr,
  # trillian.tree) are kept for the next up.
  rm -f "$ENV" "$RUN/trillian.flags"
  log "down"
  ;;
status)
  for p in mariadbd trillian_log_server trillian_log_signer; do
    if alive "$RUN/$p.pid"; then echo "$p: running (pid $(cat "$RUN/$p.pid"))"; else echo "$p: stopped"; fi
  done
  ;;
*)
  echo "usage: $0 up|down|status" >&2
  exit 2
  ;;
esac
