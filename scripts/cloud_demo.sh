#!/usr/bin/env bash
# The seed's Status saved to savekit-server and loaded back, as a game's cloud save would be:
# a server on SQLite on 127.0.0.1, a secret and a player's token, the Status as MessagePack
# PUT with If-None-Match: * (create only) and its metadata, read back byte for byte, shown
# as JSON, the player's slot list, then SIGTERM and a clean exit.
#   scripts/cloud_demo.sh [BUILD_DIR]    (default build/release: savekit-server and savekit built there)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
server=$build/server/savekit-server
cli=$build/tools/savekit
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
kill -TERM "$pid"
wait "$pid" && echo "savekit-server stopped on SIGTERM (exit 0); $(wc -l <"$work/server.log") JSON log lines"
pid=""
