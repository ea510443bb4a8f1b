#!/usr/bin/env bash
# Runs the savekit command-line program as a user would: every subcommand, bad input,
# a damaged store, a locked store. Usage: test_cli.sh PATH_TO_SAVEKIT
set -u
savekit=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
passed=0
failed=0

check() {  # check NAME EXPECTED_EXIT EXPECTED_STDOUT_REGEX -- COMMAND...
  local name=$1 want_exit=$2 want_out=$3
  shift 4
  local out got_exit
  out=$("$@" 2>"$work/stderr")
  got_exit=$?
  if [ "$got_exit" -ne "$want_exit" ] || ! grep -qE -- "$want_out" <<<"$out"; then
    echo "FAIL $name: exit $got_exit (want $want_exit), stdout: $out"
    echo "     stderr: $(cat "$work/stderr")"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}
stderr_has() {  # stderr_has NAME REGEX: the last command's stderr matches
  if grep -qE -- "$2" "$work/stderr"; then passed=$((passed + 1)); else
    echo "FAIL $1: stderr: $(cat "$work/stderr")"
    failed=$((failed + 1))
  fi
}

# set / get / list / delete
check "set int" 0 '^$' -- "$savekit" set s.prefs Status1.lv 3 --type int
check "set string" 0 '^$' -- "$savekit" set s.prefs name "ぬののふく"
check "set bytes" 0 '^$' -- "$savekit" set s.prefs blob AAEC/w== --type bytes
check "set float" 0 '^$' -- "$savekit" set s.prefs speed 1.5 --type float
check "set json" 0 '^$' -- "$savekit" set s.prefs status '{"lv":1,"equip":{"name":"ぬののふく","atk":0}}' --type json
check "get int" 0 '^3$' -- "$savekit" get s.prefs Status1.lv
check "get float" 0 '^1.5$' -- "$savekit" get s.prefs speed
check "get string" 0 '^ぬののふく$' -- "$savekit" get s.prefs name
check "get bytes as Base64" 0 '^AAEC/w==$' -- "$savekit" get s.prefs blob
check "get object as JSON" 0 '^\{"lv":1,"equip":\{"name":"ぬののふく","atk":0\}\}$' -- "$savekit" get s.prefs status
"$savekit" get s.prefs blob --raw >raw.bin
check "get --raw is the stored bytes" 0 '^000102ff$' -- sh -c "od -An -tx1 raw.bin | tr -d ' \n'"
check "list" 0 'status +msgpack +38 bytes' -- "$savekit" list s.prefs
check "list --json" 0 '"key":"blob","type":"bytes","bytes":4' -- "$savekit" list s.prefs --json
check "delete" 0 '^$' -- "$savekit" delete s.prefs speed
check "deleted key is gone" 1 '^$' -- "$savekit" get s.prefs speed
stderr_has "missing key names the store" 's.prefs: not_found'

# export / import: lossless, including bytes, a non-UTF-8 string and a NaN
check "set non-UTF-8 string via import" 0 '^$' -- sh -c "printf '%s' '{\"savekit_export\":1,\"entries\":[{\"key\":\"odd\",\"type\":\"string\",\"base64\":\"/wA=\"},{\"key\":\"nan\",\"type\":\"float\",\"base64\":\"y3/4AAAAAAAA\"}]}' | '$savekit' import s.prefs"
"$savekit" export s.prefs >dump.json
check "export has type tags" 0 '"key":"odd","type":"string","base64":"/wA="' -- cat dump.json
check "import into a new store" 0 '^$' -- "$savekit" import copy.prefs dump.json
"$savekit" export copy.prefs >dump2.json
check "export, import, export: identical" 0 '^$' -- cmp dump.json dump2.json
check "raw bytes survive" 0 '^ff00$' -- sh -c "'$savekit' get copy.prefs odd --raw | od -An -tx1 | tr -d ' \n'"
check "import --replace" 0 '^$' -- sh -c "printf '%s' '{\"savekit_export\":1,\"entries\":[]}' | '$savekit' import copy.prefs --replace"
check "replaced store is empty" 0 '^$' -- "$savekit" list copy.prefs

# bad input: offsets and carets on stderr
check "bad JSON value for set" 1 '^$' -- "$savekit" set s.prefs bad '{"a":}' --type json
stderr_has "caret for a bad value" '\^'
check "bad int" 1 '^$' -- "$savekit" set s.prefs n 1.5 --type int
check "bad import document" 1 '^$' -- sh -c "printf '{\"savekit_export\":1,\"entries\":[{\"key\":1}]}' | '$savekit' import s.prefs"
stderr_has "import error names stdin and the path" '<stdin>: 1:.*\$\.entries\[0\]\.key'
check "usage error" 2 '^$' -- "$savekit" set s.prefs k v --type nonsense
check "no subcommand" 2 '^$' -- "$savekit"
check "--help on a subcommand" 0 'Convert a save' -- "$savekit" convert --help

# convert ({"a":[1,2.5,"X"]} is 81 a1 61 93 01 cb 40 04 00.. a1 58: 16 bytes)
check "json to msgpack to json" 0 '^\{"a":\[1,2\.5,"x"\]\}$' -- sh -c "printf '{\"a\": [1, 2.5, \"x\"]}' | '$savekit' convert --from json --to msgpack | '$savekit' convert --from msgpack --to json"
check "json to base64" 0 '^gaFhkwHLQAQAAAAAAAChWA==$' -- sh -c "printf '{\"a\":[1,2.5,\"X\"]}' | '$savekit' convert --from json --to base64"
check "base64 to pretty json from a file" 0 '^  "a": \[$' -- sh -c "printf 'gaFhkwHLQAQAAAAAAAChWA==' > in.b64 && '$savekit' convert --from base64 --to json --pretty in.b64"
check "convert to a file" 0 '^$' -- "$savekit" convert --from base64 --to msgpack in.b64 -o out.msgpack
check "msgpack file size" 0 '^16$' -- sh -c "wc -c < out.msgpack | tr -d ' '"
check "bad msgpack" 1 '^$' -- sh -c "printf '\\222\\001\\301' | '$savekit' convert --from msgpack --to json"
stderr_has "hex dump with a caret for binary input" 'byte 2: invalid_msgpack.*'
check "bad base64" 1 '^$' -- sh -c "printf 'QQ*=' | '$savekit' convert --from base64 --to json"

# verify, and damaged stores
check "verify intact" 0 'intact' -- "$savekit" verify s.prefs
cp s.prefs torn.prefs
truncate -s -3 torn.prefs
before=$(md5sum torn.prefs)
check "verify torn tail" 4 'recoverable' -- "$savekit" verify torn.prefs
check "verify --json" 4 '"verdict":"recoverable".*"torn_tail":true' -- "$savekit" verify torn.prefs --json
check "list a torn store" 0 'Status1.lv' -- "$savekit" list torn.prefs
stderr_has "list warns about damage" 'warning: damaged'
check "export a torn store" 0 'savekit_export' -- "$savekit" export torn.prefs
check "reading never modifies the store" 0 '^$' -- sh -c "[ \"$before\" = \"\$(md5sum torn.prefs)\" ]"
cp s.prefs flipped.prefs
printf '\xff' | dd of=flipped.prefs bs=1 seek=40 conv=notrunc 2>/dev/null
check "verify a damaged record" 4 'a copy is kept' -- "$savekit" verify flipped.prefs
printf 'not a store at all' >garbage.prefs
check "verify garbage" 5 'nothing intact' -- "$savekit" verify garbage.prefs
check "list garbage" 1 '^$' -- "$savekit" list garbage.prefs
stderr_has "corrupt store error" 'garbage.prefs: corrupt_store'
check "verify missing" 1 '^$' -- "$savekit" verify missing.prefs

# a locked store: another process holds it
flock -n -o s.prefs.lock sleep 30 &  # -o: only flock itself holds the lock
holder=$!
sleep 0.3
check "get on a locked store" 3 '^$' -- "$savekit" get s.prefs name
stderr_has "locked error" 'locked'
check "set on a locked store" 3 '^$' -- "$savekit" set s.prefs name x
kill $holder
wait $holder 2>/dev/null
check "unlocked again" 0 '^ぬののふく$' -- "$savekit" get s.prefs name

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
