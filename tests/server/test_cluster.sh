#!/usr/bin/env bash
# savekit-server on a replicated PostgreSQL (scripts/cluster.sh: etcd, Patroni, three nodes,
# synchronous_mode_strict): what a 2xx promises there. Each check failed before its fix.
#   1. A commit whose wait for the synchronous standby is cancelled (an administrator, a
#      failover) is committed on the primary only: PostgreSQL answers COMMIT with success and
#      a WARNING. The server answers 503, not 2xx.
#   2. The write-id replay trap: a write whose first answer was lost is visible on the
#      primary and on no standby; its replay is answered 2xx only once a standby has it.
#      So is a 412 or a reused write id's 409, which name a version others wrote: a
#      failover must not lose what an answer names.
#   3. The primary killed (SIGKILL, Patroni and PostgreSQL): requests get 503 meanwhile, and
#      the same servers, not restarted, write to the new primary; /healthz names the node.
# Usage: test_cluster.sh SAVEKIT_SERVER [DIR]
set -u
server_binary=$1
dir=${2:-$(mktemp -d)}
mkdir -p "$dir"
chmod 755 "$dir"  # (PostgreSQL runs as postgres, in folders below: mktemp -d makes 0700)
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../scripts/cluster.sh"
work=$dir
trap '[ -n "${extra_pid:-}" ] && kill "$extra_pid" 2>/dev/null; "$cluster" stop "$dir" >"$dir/stop.log" 2>&1' EXIT
. "$here/../cli/checks.sh"

"$cluster" start "$dir" 1 "$server_binary" >"$dir/start.log" 2>&1 || { cat "$dir/start.log"; echo "FAIL: the cluster did not start"; exit 1; }
. "$dir/cluster.env"
server=$SAVEKIT_CLUSTER_SERVERS
token=$("$server_binary" token --player p1 --ttl 1h --secret-file "$SAVEKIT_CLUSTER_SECRET")

put() {  # put URL NAME: a create under write id NAME; prints the status
  curl -s -o /dev/null -w '%{http_code}' --max-time 60 -X PUT -H "Authorization: Bearer $token" -H 'If-None-Match: *' \
    -H "Savekit-Write-Id: $2" --data-binary "save $2" "$1/v1/slots/$2"
}
put_as() {  # put_as URL NAME WRITE_ID: a create of NAME under WRITE_ID, other bytes than put's; prints the status
  curl -s -o /dev/null -w '%{http_code}' --max-time 60 -X PUT -H "Authorization: Bearer $token" -H 'If-None-Match: *' \
    -H "Savekit-Write-Id: $3" --data-binary "other save $3" "$1/v1/slots/$2"
}
health_names() {  # health_names URL: the node /healthz says it writes to
  curl -s --max-time 10 "$1/healthz" | python3 -c "import json,sys; print(json.load(sys.stdin).get('database', ''))"
}
member() {  # member ROLE: the name of the member in that role (leader, sync_standby)
  for port in 1 2 3; do
    curl -s --max-time 2 "http://127.0.0.1:$((${SAVEKIT_CLUSTER_PORT:-24000} + 30 + port))/cluster" 2>/dev/null &&
      break
  done | python3 -c "import json,sys; print(next(m['name'] for m in json.load(sys.stdin)['members'] if m['role']=='$1'))"
}
on_leader() {
  local n
  n=$(member leader)
  /usr/sbin/runuser -u postgres -- psql -h 127.0.0.1 -p $((${SAVEKIT_CLUSTER_PORT:-24000} + 20 + ${n#pg})) -U postgres \
    -d postgres -Atc "$1"
}
# Freezes (SIGSTOP) or thaws (SIGCONT) every standby's PostgreSQL: the primary's commits wait.
standbys() {
  local leader
  leader=$(member leader)
  for n in 1 2 3; do
    [ "pg$n" = "$leader" ] && continue
    local pm
    pm=$(head -1 "$dir/pg$n/data/postmaster.pid" 2>/dev/null) || continue
    kill "-$1" "$pm" $(pgrep -P "$pm") 2>/dev/null
  done
}
cancel_waits() { on_leader "select count(pg_cancel_backend(pid)) from pg_stat_activity where wait_event = 'SyncRep'"; }

check "a write on the cluster" 0 '^201$' -- put "$server" warm
# A second server that gives up on PostgreSQL after 2 s (started now: a server's start
# commits too, and would wait for the frozen standbys below).
"$server_binary" serve --listen 127.0.0.1:0 --port-file "$dir/short.port" --db "$SAVEKIT_CLUSTER_DB" --db-timeout 2 \
  --secret-file "$SAVEKIT_CLUSTER_SECRET" </dev/null >"$dir/short.log" 2>&1 &
extra_pid=$!
for ((i = 0; i < 300; ++i)); do [ -s "$dir/short.port" ] && break; sleep 0.1; done
short="http://127.0.0.1:$(cat "$dir/short.port")"

# 1. The commit's wait cancelled while the server still waits for its answer.
standbys STOP
(put "$server" cancelled >"$dir/cancelled.code") &
writer=$!
for ((i = 0; i < 100; ++i)); do [ "$(on_leader "select count(*) from pg_stat_activity where wait_event = 'SyncRep'")" != 0 ] && break; sleep 0.1; done
check "a commit waits for the frozen standby" 0 '^1$' -- cancel_waits
wait "$writer"
check "a commit whose wait was cancelled is 503, not 2xx" 0 '^503$' -- cat "$dir/cancelled.code"

# 2. The replay trap: the first answer lost (a server with a short --db-timeout gives up),
# the wait then cancelled: the row is on the primary, on no standby.
check "the first attempt times out: 503" 0 '^503$' -- put "$short" trapped
cancel_waits >/dev/null
check "its row is on the primary" 0 '^1$' -- on_leader "select count(*) from slot_writes where write_id = 'trapped'"
check "a replay while no standby has it is 503, not 2xx" 0 '^503$' -- put "$short" trapped
check "a 412 that would name it is 503 too" 0 '^503$' -- put_as "$short" trapped other-write
check "so is a 409 for its write id reused" 0 '^503$' -- put_as "$short" trapped trapped
standbys CONT
check "the replay once a standby has it: the first answer" 0 '^201$' -- put "$short" trapped

# 3. Failover: the primary's Patroni and PostgreSQL killed outright — once a synchronous
# standby is named again (strict mode promotes only one: with none, no failover is safe).
for ((i = 0; i < 600; ++i)); do member sync_standby >/dev/null 2>&1 && break; sleep 0.2; done
check "a synchronous standby again after the thaw" 0 '^pg[123]$' -- member sync_standby
leader=$(member leader)
n=${leader#pg}
check "/healthz names the primary" 0 "^127.0.0.1:$((${SAVEKIT_CLUSTER_PORT:-24000} + 20 + n))\$" -- health_names "$server"
kill -KILL "$(cat "$dir/pg$n/patroni.pid")" "$(head -1 "$dir/pg$n/data/postmaster.pid")"
codes=""
for ((i = 0; i < 240; ++i)); do  # (bounded: 240 attempts, each within curl's 60 s)
  code=$(put "$server" "after$i")
  codes+="$code "
  [ "$code" = 201 ] && break
  sleep 0.5
done
check "writes go on after the failover, on the same server" 0 '201 $' -- echo "$codes"
check "...and were 503 meanwhile, never 5xx of another kind" 1 '' -- sh -c "echo '$codes' | grep -qE '50[0124]'"
check "a new leader" 0 '^pg[123]$' -- member leader
new_leader=$(member leader)
for ((h = 0; h < 50; ++h)); do  # (the health check asks once a second)
  [ "$(health_names "$server")" = "127.0.0.1:$((${SAVEKIT_CLUSTER_PORT:-24000} + 20 + ${new_leader#pg}))" ] && break
  sleep 0.2
done
check "/healthz names the new primary" 0 "^127.0.0.1:$((${SAVEKIT_CLUSTER_PORT:-24000} + 20 + ${new_leader#pg}))\$" -- \
  health_names "$server"
check "every acknowledged write is on the new primary" 0 "^after$i,cancelled,trapped,warm\$" -- \
  on_leader "select string_agg(name, ',' order by name) from slots where name in ('warm', 'trapped', 'after$i', 'cancelled')"
echo "failover: $(echo "$codes" | wc -w) attempts until the first 2xx"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
