#!/usr/bin/env bash
# Cloud saves, end to end, on 127.0.0.1 (a server on SQLite, a secret and a player's token):
#  1. the seed's Status over HTTP as any client would: PUT as MessagePack with If-None-Match: *
#     (create only) and its metadata, read back byte for byte, a stale write refused (412);
#  2. two devices of one player (two slots folders) kept in step by `savekit cloud sync`:
#     progress made on one appears on the other; both play while the server is down; at the
#     next sync both saves are kept (the conflict is a second slot, named after its device)
#     and both devices list the same slots; then SIGTERM and a clean exit.
#   scripts/cloud_demo.sh [BUILD_DIR]    (default build/release: savekit-server, savekit and
#                                         examples built there)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
server=$build/server/savekit-server
cli=$build/tools/savekit
play=$build/examples/example_cloud_play
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

"$server" secret -o "$work/server.secret"
"$server" serve --listen 127.0.0.1:0 --port-file "$work/port" --db "sqlite:$work/saves.db" \
  --secret-file "$work/server.secret" 2>"$work/server.log" &
pid=$!
for _ in $(seq 1 200); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { cat "$work/server.log" >&2; echo "savekit-server did not start" >&2; exit 1; }
base=http://127.0.0.1:$(cat "$work/port")
token=$("$server" token --player demo-player --ttl 1h --secret-file "$work/server.secret")
auth="Authorization: Bearer $token"

status='{"lv":1,"exp":0,"hp":10,"max_hp":10,"atk":1,"def":1,"spd":1,"equip":{"name":"ぬののふく","atk":0,"def":1,"spd":0}}'
printf '%s' "$status" | "$cli" convert --from json --to msgpack -o "$work/status.msgpack"
meta=$(printf '{"title":"Status (seed A)","playtime":0}' | base64 -w0 | tr '+/' '-_' | tr -d '=')
echo "savekit-server on $base (SQLite: $work/saves.db)"
echo "PUT /v1/slots/status: $(stat -c %s "$work/status.msgpack") bytes of MessagePack, create only"
curl -sS -X PUT -H "$auth" -H "If-None-Match: *" -H "Savekit-Meta: $meta" \
  --data-binary @"$work/status.msgpack" -w ' -> HTTP %{http_code}\n' "$base/v1/slots/status"
echo "GET /v1/slots/status:"
curl -sS -H "$auth" -D "$work/headers" -o "$work/back.msgpack" "$base/v1/slots/status"
grep -i '^etag' "$work/headers" | tr -d '\r' | sed 's/^/  /'
cmp "$work/status.msgpack" "$work/back.msgpack"
echo "  loaded back byte for byte: $("$cli" convert --from msgpack --to json "$work/back.msgpack")"
echo "a second device replacing a version it never saw:"
curl -sS -X PUT -H "$auth" -H 'If-Match: "7"' --data-binary @"$work/status.msgpack" \
  -w '  -> HTTP %{http_code}\n' "$base/v1/slots/status" | sed 's/^{/  {/'
echo "GET /v1/slots: $(curl -sS -H "$auth" "$base/v1/slots")"

start_again() {  # the same database, the same port
  "$server" serve --listen "127.0.0.1:$(cat "$work/port")" --db "sqlite:$work/saves.db" \
    --secret-file "$work/server.secret" 2>>"$work/server.log" &
  pid=$!
  for _ in $(seq 1 200); do curl -sf "$base/healthz" >/dev/null 2>&1 && return; sleep 0.05; done
  cat "$work/server.log" >&2
  echo "savekit-server did not start again" >&2
  exit 1
}
sync() {  # sync DIR DEVICE: prints the report and its exit code (8: a conflict was met)
  local rc=0
  "$cli" cloud sync "$work/$1" --url "$base" --token-file "$work/token" --device "$2" | sed 's/^/    /' || rc=$?
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=${PIPESTATUS[0]}
  echo "    savekit cloud sync $1 -> exit $rc"
}
menu() { "$cli" slots list "$work/$1" | sed 's/^/    /'; }

echo
echo "== two devices of one player, kept in step by savekit cloud sync"
# Another player: the first part's slot was written by curl, not by a savekit game.
(umask 077 && "$server" token --player demo-traveller --ttl 1h --secret-file "$work/server.secret" >"$work/token")
echo "  desktop plays 3 hours and syncs:"
"$play" "$work/desktop" 3 | sed 's/^/    /'
sync desktop desktop
echo "  the Steam Deck (a new device) syncs: the desktop's progress is there"
sync deck deck
menu deck
echo "  the deck plays 2 hours; both sync: the desktop continues from the deck's save"
"$play" "$work/deck" 2 | sed 's/^/    /'
sync deck deck
sync desktop desktop
menu desktop
echo "  the server goes down; both play on (local first: every save commits)"
kill -TERM "$pid" && wait "$pid" || true
"$play" "$work/desktop" 1 | sed 's/^/    /'
"$play" "$work/deck" 4 | sed 's/^/    /'
echo "  the server is back; both sync: both saves are kept, the other as a second slot"
start_again
sync desktop desktop
sync deck deck
menu deck
sync desktop desktop
# What the load menus show (the generation numbers are each folder's own).
shown() { "$cli" slots list "$work/$1" --json | sed -E 's/"(generation|saved_at)":[^,]*,//g'; }
if [ "$(shown desktop)" = "$(shown deck)" ]; then
  echo "  both devices list the same slots:"
else
  echo "  the devices list different slots:" >&2
  exit 1
fi
menu desktop
kill -TERM "$pid"
wait "$pid" && echo "savekit-server stopped on SIGTERM (exit 0); $(wc -l <"$work/server.log") JSON log lines"
pid=""
