#!/usr/bin/env bash
# savekit-server on a replicated PostgreSQL, all on 127.0.0.1 (docs/server.md, "Running it
# replicated"): three etcd members, three PostgreSQL 15 nodes under Patroni (one primary,
# two standbys, synchronous_mode_strict: a commit returns only once a standby has it) and N
# savekit-server processes that reach whichever node is primary through one multi-host
# connection string (target_session_attrs=read-write).
#
#   scripts/cluster.sh start DIR [SERVERS] [SAVEKIT_SERVER]   start everything; DIR/cluster.env says where
#   scripts/cluster.sh stop DIR                                stop what start started, by pid
#   scripts/cluster.sh status DIR                              the members, their roles, the servers
#   scripts/cluster.sh start-node DIR N                        start pgN's Patroni again (after a fault test killed it)
#   scripts/cluster.sh start-etcd DIR N                        start etcd member N again, on its data
#
# SAVEKIT_CLUSTER_SERVER_ARGS: more options for every savekit-server (--keep-versions 1000...).
# SAVEKIT_CLUSTER_TTL: Patroni's leader lease in seconds (default 20; a fault test's shorter
# lease makes failovers quicker).
# Ports: SAVEKIT_CLUSTER_PORT (default 24000) + 1..3 etcd clients, + 11..13 etcd peers,
# + 21..23 PostgreSQL, + 31..33 Patroni's REST API. PostgreSQL refuses root: as root,
# Patroni (which runs postgres) runs as the `postgres` user, and DIR's node folders are its.
# Every wait is bounded; nothing is stopped that this script did not start.
set -euo pipefail

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { sed -n '2,20p' "$0" >&2; exit 2; }
base=${SAVEKIT_CLUSTER_PORT:-24000}
pg_bin=${SAVEKIT_PG_BIN:-/usr/lib/postgresql/15/bin}

etcd_client() { echo $((base + $1)); }
etcd_peer() { echo $((base + 10 + $1)); }
pg_port() { echo $((base + 20 + $1)); }
rest_port() { echo $((base + 30 + $1)); }

as_postgres() {
  if [ "$(id -u)" = 0 ]; then /usr/sbin/runuser -u postgres -- "$@"; else "$@"; fi
}

# wait_for WHAT SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds.
wait_for() {
  local what=$1 seconds=$2
  shift 2
  local tries=$((seconds * 5))
  for ((i = 0; i < tries; ++i)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "cluster.sh: $what did not happen within ${seconds}s" >&2
  return 1
}

http_ok() { curl -sf -o /dev/null --max-time 2 "$1"; }

endpoints() { echo "127.0.0.1:$(etcd_client 1),127.0.0.1:$(etcd_client 2),127.0.0.1:$(etcd_client 3)"; }

# start_etcd N new|existing: etcd member N (a member started again keeps its data folder,
# which holds its identity: the --initial-* flags are then ignored).
start_etcd() {
  local n=$1 initial=""
  for m in 1 2 3; do initial+="${initial:+,}e$m=http://127.0.0.1:$(etcd_peer $m)"; done
  etcd --name "e$n" --data-dir "$dir/etcd$n" \
    --listen-client-urls "http://127.0.0.1:$(etcd_client $n)" --advertise-client-urls "http://127.0.0.1:$(etcd_client $n)" \
    --listen-peer-urls "http://127.0.0.1:$(etcd_peer $n)" --initial-advertise-peer-urls "http://127.0.0.1:$(etcd_peer $n)" \
    --initial-cluster "$initial" --initial-cluster-state "$2" --initial-cluster-token savekit-cluster \
    </dev/null >>"$dir/etcd$n.log" 2>&1 &
  echo "etcd$n $!" >>"$dir/pids"
}

# start_patroni N: pgN's Patroni, from DIR/pgN.yml (it starts its PostgreSQL).
start_patroni() {
  local n=$1 node="$dir/pg$1"
  rm -f "$node/patroni.pid"
  # The shell's pid becomes Patroni's (exec): the pid file names Patroni itself.
  as_postgres sh -c 'echo $$ >"$1/patroni.pid" && exec patroni "$2" >>"$1/patroni.log" 2>&1' sh "$node" "$dir/pg$n.yml" \
    </dev/null >/dev/null 2>&1 &  # (runuser stays, as its parent: it must not hold this script's output)
  # runuser stops itself when Patroni is stopped (SIGSTOP, a fault test's) and is not
  # continued with it: stop continues it, or it would never reap Patroni and end.
  [ "$(id -u)" = 0 ] && echo "runuser$n $!" >>"$dir/pids"
  wait_for "pg$n's Patroni to start" 20 test -s "$node/patroni.pid"
  echo "patroni$n $(cat "$node/patroni.pid")" >>"$dir/pids"
}

# pgN's postmaster, if its pid file names a process that is that PostgreSQL (a file left by
# a killed one may name a pid reused since).
postmaster_of() {
  local pm
  pm=$(head -1 "$dir/pg$1/data/postmaster.pid" 2>/dev/null) || return 1
  [[ "$(tr '\0' ' ' <"/proc/$pm/cmdline" 2>/dev/null)" == *"-D $dir/pg$1/data"* ]] || return 1
  echo "$pm"
}

# Whether pid is still the process of that kind this script started (a pid is reused once
# its process is gone: a pid file's old line must not end another program).
is_ours() {
  local cmdline
  cmdline=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
  case "$2" in
    etcd*) [[ "$cmdline" == *"--data-dir $dir/etcd"* ]] ;;
    patroni*) [[ "$cmdline" == *"patroni $dir/pg"* ]] ;;
    server*) [[ "$cmdline" == *"--port-file $dir/server"* ]] ;;
    runuser*) [[ "$cmdline" == *"runuser -u postgres"*"$dir/pg"* ]] ;;
    *) return 1 ;;
  esac
}
start() {
  local servers=${3:-2}
  # Patroni requires loop_wait + 2 x retry_timeout <= ttl.
  local ttl=${SAVEKIT_CLUSTER_TTL:-20}
  local retry_timeout=$(((ttl - 2) / 2 < 5 ? (ttl - 2) / 2 : 5))
  [ "$retry_timeout" -ge 1 ] || { echo "cluster.sh: SAVEKIT_CLUSTER_TTL is at least 4" >&2; exit 1; }
  local server_binary=${4:-build/dev/server/savekit-server}
  [ -e "$dir/pids" ] && { echo "cluster.sh: $dir holds a cluster already (stop it first)" >&2; exit 1; }
  for tool in etcd etcdctl patroni curl; do
    command -v "$tool" >/dev/null || { echo "cluster.sh: $tool is missing (apt-get install patroni etcd-server etcd-client curl)" >&2; exit 1; }
  done
  [ -x "$server_binary" ] || { echo "cluster.sh: no savekit-server at $server_binary" >&2; exit 1; }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if ! as_postgres test -x "$dir"; then
    echo "cluster.sh: the postgres user cannot reach $dir (a folder on the way is not o+x: mktemp -d makes 0700)" >&2
    exit 1
  fi
  # Ports in use (another cluster, a test's leftover) would join this cluster to theirs.
  for port in $(etcd_client 1) $(etcd_client 2) $(etcd_client 3) $(etcd_peer 1) $(etcd_peer 2) $(etcd_peer 3) \
    $(pg_port 1) $(pg_port 2) $(pg_port 3) $(rest_port 1) $(rest_port 2) $(rest_port 3); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "cluster.sh: 127.0.0.1:$port is in use (SAVEKIT_CLUSTER_PORT moves the cluster's ports)" >&2
      exit 1
    fi
  done
  : >"$dir/pids"

  # etcd: three members, v3 API (Patroni's etcd3), flags only (the gRPC gateway is on).
  for n in 1 2 3; do start_etcd "$n" new; done
  local endpoints
  endpoints=$(endpoints)
  wait_for "etcd's health" 60 env ETCDCTL_API=3 etcdctl --endpoints="$endpoints" endpoint health

  # Patroni: three PostgreSQL nodes. Settings that must be the cluster's (in the DCS) are in
  # bootstrap.dcs; why each is there: docs/server.md, "Running it replicated".
  for n in 1 2 3; do
    local node="$dir/pg$n"
    mkdir -p "$node"
    cat >"$dir/pg$n.yml" <<EOF
scope: savekit
namespace: /savekit/
name: pg$n
restapi:
  listen: 127.0.0.1:$(rest_port $n)
  connect_address: 127.0.0.1:$(rest_port $n)
etcd3:
  hosts: $endpoints
bootstrap:
  dcs:
    ttl: $ttl
    loop_wait: 2
    retry_timeout: $retry_timeout
    synchronous_mode: true
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_log_hints: "on"
        max_connections: 200
        synchronous_commit: "on"
        commit_delay: 1000
        commit_siblings: 5
  initdb:
    - encoding: UTF8
    - data-checksums
postgresql:
  listen: 127.0.0.1:$(pg_port $n)
  connect_address: 127.0.0.1:$(pg_port $n)
  data_dir: $node/data
  bin_dir: $pg_bin
  pgpass: $node/pgpass
  authentication:
    superuser: {username: postgres, password: savekit}
    replication: {username: replicator, password: savekit}
    rewind: {username: rewinder, password: savekit}
  parameters:
    unix_socket_directories: $node
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
EOF
    [ "$(id -u)" = 0 ] && chown -R postgres "$node" "$dir/pg$n.yml"
    start_patroni "$n"
    # The first node bootstraps the cluster; the others then copy it.
    if [ "$n" = 1 ]; then wait_for "pg1 to become primary" 120 http_ok "http://127.0.0.1:$(rest_port 1)/primary"; fi
  done
  wait_for "a synchronous standby" 120 sync_standby_up
  for n in 1 2 3; do wait_for "pg$n to run" 120 http_ok "http://127.0.0.1:$(rest_port $n)/health"; done

  # savekit-server: N processes, one multi-host connection string.
  local hosts="127.0.0.1:$(pg_port 1),127.0.0.1:$(pg_port 2),127.0.0.1:$(pg_port 3)"
  local db="postgresql://postgres:savekit@$hosts/postgres?connect_timeout=2"
  "$server_binary" secret -o "$dir/secret" >/dev/null
  local urls=""
  for n in $(seq 1 "$servers"); do
    "$server_binary" serve --listen 127.0.0.1:0 --port-file "$dir/server$n.port" --db "$db" \
      --secret-file "$dir/secret" ${SAVEKIT_CLUSTER_SERVER_ARGS:-} </dev/null >"$dir/server$n.log" 2>&1 &
    echo "server$n $!" >>"$dir/pids"
    wait_for "savekit-server $n to listen" 60 test -s "$dir/server$n.port"
    urls+="${urls:+ }http://127.0.0.1:$(cat "$dir/server$n.port")"
  done
  {
    echo "SAVEKIT_CLUSTER_DB='$db'"
    echo "SAVEKIT_CLUSTER_SERVERS='$urls'"
    echo "SAVEKIT_CLUSTER_SECRET='$dir/secret'"
    echo "SAVEKIT_CLUSTER_REST='$(for n in 1 2 3; do printf 'http://127.0.0.1:%s ' "$(rest_port $n)"; done)'"
    echo "SAVEKIT_CLUSTER_ETCD='$endpoints'"
  } >"$dir/cluster.env"
  echo "cluster up: $dir/cluster.env"
  status
}

sync_standby_up() {
  for n in 1 2 3; do http_ok "http://127.0.0.1:$(rest_port "$n")/sync" && return 0; done
  return 1
}

status() {
  curl -s --max-time 2 "http://127.0.0.1:$(rest_port 1)/cluster" || true
  echo
  [ -f "$dir/cluster.env" ] && cat "$dir/cluster.env"
}

stop() {
  dir=$(cd "$dir" 2>/dev/null && pwd) || { echo "cluster.sh: no cluster in $dir" >&2; return 0; }
  [ -f "$dir/pids" ] || { echo "cluster.sh: no cluster in $dir" >&2; return 0; }
  # A process stopped with SIGSTOP (a fault test's) never ends: every PostgreSQL of the
  # cluster is continued first.
  for n in 1 2 3; do
    local pm
    pm=$(postmaster_of "$n") || continue
    kill -CONT "$pm" $(pgrep -P "$pm" 2>/dev/null) 2>/dev/null || true
  done
  while read -r name pid; do
    case "$name" in runuser*) is_ours "$pid" "$name" && kill -CONT "$pid" 2>/dev/null || true ;; esac
  done <"$dir/pids"
  # Servers first, then Patroni (which stops its PostgreSQL), then etcd; each by its pid.
  for group in server patroni etcd; do
    local pids=()
    while read -r name pid; do
      case "$name" in "$group"*) is_ours "$pid" "$name" && kill -CONT "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null && pids+=("$pid") || true ;; esac
    done <"$dir/pids"
    for pid in "${pids[@]}"; do
      for ((i = 0; i < 150 && $(kill -0 "$pid" 2>/dev/null && echo 1 || echo 0); ++i)); do sleep 0.2; done
      kill -KILL "$pid" 2>/dev/null || true
    done
  done
  # A PostgreSQL whose Patroni was killed outright is left running: stopped here, by its data folder.
  for n in 1 2 3; do
    if postmaster_of "$n" >/dev/null; then
      as_postgres "$pg_bin/pg_ctl" -D "$dir/pg$n/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    fi
  done
  rm -f "$dir/pids"
  echo "cluster stopped: $dir"
}

case "$command" in
  start)
    [ -e "$dir/pids" ] && { echo "cluster.sh: $dir holds a cluster already (stop it first)" >&2; exit 1; }
    # A start that fails stops what it started: nothing is left running. (It runs as a
    # process of its own: in an `if` or `||`, a function or subshell runs without set -e.)
    if ! "$0" start-here "$dir" "${@:3}"; then
      [ -f "$dir/pids" ] && stop >&2
      exit 1
    fi
    ;;
  stop) stop ;;
  status) status ;;
  start-here) start "$@" ;;
  start-node)
    [ -f "$dir/pids" ] && [ -f "$dir/pg${3:-}.yml" ] || { echo "cluster.sh: no node pg${3:-} in $dir" >&2; exit 1; }
    dir=$(cd "$dir" && pwd)
    start_patroni "$3"
    ;;
  start-etcd)
    [ -f "$dir/pids" ] && [ -d "$dir/etcd${3:-}" ] || { echo "cluster.sh: no etcd member ${3:-} in $dir" >&2; exit 1; }
    dir=$(cd "$dir" && pwd)
    start_etcd "$3" existing
    wait_for "etcd member $3 to answer" 30 curl -sf --max-time 2 "http://127.0.0.1:$(etcd_client "$3")/health"
    ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
