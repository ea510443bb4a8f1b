#!/usr/bin/env bash
# savekit show, diff, edit and schema as a user runs them, on a value of every kind a save
# holds (inspect_fixtures.cpp): 64-bit integers at their limits, float32, NaN and the
# infinities, bytes, maps with integer keys, in a store, a MessagePack file and a slot.
# Edits are made by a scripted $EDITOR; what they change is checked with diff, so "nothing
# else changed" is checked too. Usage:
#   test_inspect_cli.sh PATH_TO_SAVEKIT PATH_TO_INSPECT_FIXTURES
set -u
savekit=$1
fixtures=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
. "$here/checks.sh"
lines_of() {  # lines_of NAME COUNT -- COMMAND...: the command prints exactly COUNT lines
  local name=$1 want=$2
  shift 3
  local got
  got=$("$@" 2>/dev/null | wc -l)
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: $got lines (want $want): $("$@" 2>&1)"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}
# An editor that runs a sed script on the file it is given.
editor() {  # editor NAME SED_SCRIPT
  printf '#!/bin/sh\nsed -i -e %q "$1"\n' "$2" >"$work/$1"
  chmod +x "$work/$1"
}

"$fixtures" . || { echo "FAIL: inspect_fixtures"; exit 1; }

# ---- show --------------------------------------------------------------------------------------
check "show lists a store's keys and types" 0 '^hero +msgpack +[0-9]+ +fixmap' -- "$savekit" show every.prefs
check "show: the JSON entry" 0 '^hero_json +json ' -- "$savekit" show every.prefs
check "show: int64 min with its width" 0 '"low": int64 -9223372036854775808  @[0-9]+ \+9' -- "$savekit" show every.prefs hero
check "show: uint64 max" 0 '"top": uint64 18446744073709551615' -- "$savekit" show every.prefs hero
check "show: a float32 in its own digits" 0 '"speed": float32 0.1  @' -- "$savekit" show every.prefs hero
check "show: NaN" 0 '"nan": float64 NaN' -- "$savekit" show every.prefs hero
check "show: -Infinity" 0 '"inf": float64 -Infinity' -- "$savekit" show every.prefs hero
check "show: bytes as hex" 0 '"seed": bin8 \(3 bytes\) 00 ff 10' -- "$savekit" show every.prefs hero
check "show: an integer map key" 0 '\(negative fixint -1  @[0-9]+ \+1\): fixmap \(1 entry\)' -- "$savekit" show every.prefs hero
check "show --path into integer keys" 0 '^fixstr "far"' -- "$savekit" show every.prefs hero --path 'regions.-1.5000000000'
check "show --path to nothing" 1 '^$' -- "$savekit" show every.prefs hero --path regions.7
stderr_has "says the path" "nothing at the path 'regions.7'"
check "show --json keeps exact values as text" 0 '"format":"uint64","offset":[0-9]+,"size":9,"value":"18446744073709551615"' -- "$savekit" show every.prefs hero --json
check "show --json: float32" 0 '"format":"float32","offset":[0-9]+,"size":5,"value":"0.1"' -- "$savekit" show every.prefs hero --json
check "show: a JSON entry keeps numbers as written" 0 '"top": number 18446744073709551615' -- "$savekit" show every.prefs hero_json
check "show: a string entry" 0 '^fixstr "carpe diem"' -- "$savekit" show every.prefs motto
check "show: an integer entry" 0 '^int64 -9223372036854775808' -- "$savekit" show every.prefs count
check "show: a MessagePack file" 0 '"speed": float32 0.1' -- "$savekit" show every.msgpack
check "show: no colours when not a terminal" 1 '' -- grep -q $'\x1b' <("$savekit" show every.msgpack)
check "show: a slots folder's menu" 0 '^hero +2  msgpack +[0-9]+  Chapter 2' -- "$savekit" show slots
check "show: a slot's newest generation" 0 '"items": fixarray \(3 elements\)' -- "$savekit" show slots hero
check "show --generation: an older one" 0 '"items": fixarray \(2 elements\)' -- "$savekit" show slots hero --generation 1
first=$(ls slots/*.1.slot)
mkdir lone && cp "$first" lone/ && lone=lone/$(basename "$first")  # (the folder prunes it later)
check "show: a lone generation file" 0 "generation 1 \(msgpack" -- "$savekit" show "$first"
check "show: ...its payload" 0 '"level": positive fixint 7' -- "$savekit" show "$first"
check "show: a missing key" 1 '^$' -- "$savekit" show every.prefs nothing
check "show: a file that is neither" 1 '^$' -- sh -c "printf '\\301' >bad.bin && '$savekit' show bad.bin"
stderr_has "says where it went wrong" 'byte 0xc1 is never valid MessagePack'

# ---- diff --------------------------------------------------------------------------------------
check "diff of two generations: different is exit 1" 1 '^~ level: positive fixint 7 -> positive fixint 8$' -- "$savekit" diff slots slots --key hero --generation-a 1 --generation-b 2
check "diff: a changed element" 1 '^~ items\[1\]\.count: positive fixint 3 -> positive fixint 4$' -- "$savekit" diff slots slots --key hero --generation-a 1 --generation-b 2
check "diff: an added element" 1 '^\+ items\[2\]: fixmap \(3 entries\)$' -- "$savekit" diff slots slots --key hero --generation-a 1 --generation-b 2
lines_of "diff: exactly those three" 3 -- "$savekit" diff slots slots --key hero --generation-a 1 --generation-b 2
lines_of "diff --ignore leaves out a path and what is under it" 1 -- "$savekit" diff slots slots --key hero --generation-a 1 --generation-b 2 --ignore items
lines_of "diff --ignore with a wildcard" 2 -- "$savekit" diff slots slots --key hero --generation-a 1 --generation-b 2 --ignore 'items[*].count'
check "diff --id-field aligns by id" 1 '^\+ items\[2\]' -- "$savekit" diff slots slots --key hero --generation-a 1 --generation-b 2 --id-field id
check "diff of a save with itself is exit 0" 0 '^same$' -- "$savekit" diff every.msgpack every.msgpack
check "diff --json" 1 '"change":"changed","path":"level"' -- "$savekit" diff slots slots --key hero --generation-a 1 --generation-b 2 --json
check "diff: trouble is exit 2" 2 '^$' -- "$savekit" diff every.msgpack missing.msgpack

# ---- edit --------------------------------------------------------------------------------------
cp every.prefs before.prefs
check "edit with no change saves nothing" 0 '^$' -- env EDITOR=true "$savekit" edit every.prefs hero
stderr_has "and says so" 'no change; nothing was saved'
editor reindent 's/^ *//'
check "edit re-indented by the editor is the same value" 0 '^$' -- env EDITOR="$work/reindent" "$savekit" edit every.prefs hero
stderr_has "and says so" 'the same value; nothing was saved'
check "the store is byte for byte as it was" 0 '^$' -- cmp every.prefs before.prefs

editor every_kind 's/"top": 18446744073709551615/"top": 0/; s/"low": -9223372036854775808/"low": -9223372036854775807/; s/"speed": 0.1/"speed": 0.5/; s/"nan": "NaN"/"nan": "Infinity"/; s/"seed": "AP8Q"/"seed": "AQID"/; s/"5000000000": "far"/"5000000000": "near"/; s/"level": 7/"level": 255/'
check "edit every kind of value" 0 '^$' -- env EDITOR="$work/every_kind" "$savekit" edit every.prefs hero
stderr_has "saved as a new commit" 'saved as a new commit'
lines_of "diff after the edit: exactly the seven changes" 7 -- "$savekit" diff before.prefs every.prefs --key hero
check "uint64 0 keeps its width" 1 '^~ top: uint64 18446744073709551615 -> uint64 0$' -- "$savekit" diff before.prefs every.prefs --key hero
check "int64 keeps its width" 1 '^~ low: int64 -9223372036854775808 -> int64 -9223372036854775807$' -- "$savekit" diff before.prefs every.prefs --key hero
check "a float32 stays float32" 1 '^~ speed: float32 0.1 -> float32 0.5$' -- "$savekit" diff before.prefs every.prefs --key hero
check "NaN becomes Infinity, still float64" 1 '^~ nan: float64 NaN -> float64 Infinity$' -- "$savekit" diff before.prefs every.prefs --key hero
check "bytes stay bytes" 1 '^~ seed: bin8 \(3 bytes\) 00 ff 10 -> bin8 \(3 bytes\) 01 02 03$' -- "$savekit" diff before.prefs every.prefs --key hero
check "a value under integer keys" 1 '^~ regions.-1.5000000000: fixstr "far" -> fixstr "near"$' -- "$savekit" diff before.prefs every.prefs --key hero
check "a fixint widened as savekit writes it" 1 '^~ level: positive fixint 7 -> uint8 255$' -- "$savekit" diff before.prefs every.prefs --key hero
check "the edited save is still valid for the game's type" 0 '^valid$' -- "$savekit" schema every.schema.json every.prefs hero

cp every.prefs edited.prefs
editor too_big 's/"level": 255/"level": 256/'
check "edit --schema refuses what the type cannot hold" 1 '^$' -- env EDITOR="$work/too_big" "$savekit" edit every.prefs hero --schema every.schema.json
stderr_has "with the path and the reason" 'level: 256 is above 255 \(maximum\)'
stderr_has "and keeps the edit" 'your edit is kept in '
editor retype 's/"name": "Ayla"/"name": 5/'
check "edit refuses a change of type" 1 '^$' -- env EDITOR="$work/retype" "$savekit" edit every.prefs hero
stderr_has "with a caret under it" '^ +\^$'
stderr_has "naming the path" 'name: the save has a string \(fixstr\) here'
check "nothing was saved" 0 '^$' -- cmp every.prefs edited.prefs
check "--allow-type-changes takes it" 0 '^$' -- env EDITOR="$work/retype" "$savekit" edit every.prefs hero --allow-type-changes
check "and the schema check says it is wrong" 1 '^name: expected string, found integer 5$' -- "$savekit" schema every.schema.json every.prefs hero
check "schema: a valid save" 0 '^valid$' -- "$savekit" schema every.schema.json slots hero

editor motto 's/carpe diem/carpe noctem/'
check "edit a string entry" 0 '^$' -- env EDITOR="$work/motto" "$savekit" edit every.prefs motto
check "it is stored as a string" 0 '^carpe noctem$' -- "$savekit" get every.prefs motto
editor blob 's/"AP8Q"/"AQIDBA=="/'
check "edit a bytes entry" 0 '^$' -- env EDITOR="$work/blob" "$savekit" edit every.prefs blob
check "it is stored as bytes" 0 '^AQIDBA==$' -- "$savekit" get every.prefs blob
editor count_max 's/-9223372036854775808/9223372036854775807/'
check "edit an integer entry to int64 max" 0 '^$' -- env EDITOR="$work/count_max" "$savekit" edit every.prefs count
check "it reads back" 0 '^9223372036854775807$' -- "$savekit" get every.prefs count
editor count_over 's/9223372036854775807/9223372036854775808/'
check "an integer entry past int64 is refused by the store" 1 '^$' -- env EDITOR="$work/count_over" "$savekit" edit every.prefs count
check "and the old value stays" 0 '^9223372036854775807$' -- "$savekit" get every.prefs count
editor json_level 's/"level": 7/"level": 9/'
check "edit a JSON entry" 0 '^$' -- env EDITOR="$work/json_level" "$savekit" edit every.prefs hero_json
check "its other numbers are as written" 0 '"top": number 18446744073709551615' -- "$savekit" show every.prefs hero_json
check "its edit" 0 '"level": number 9' -- "$savekit" show every.prefs hero_json

editor slot_count 's/"count": 4/"count": 5/'
check "edit a slot" 0 '^$' -- env EDITOR="$work/slot_count" "$savekit" edit slots hero
stderr_has "saved as a new generation" 'saved as generation 3'
check "the older generations are kept" 0 '^hero +3 ' -- "$savekit" show slots
check "the new generation differs by the edit alone" 1 '^~ items\[1\]\.count: positive fixint 4 -> positive fixint 5$' -- "$savekit" diff slots slots --key hero --generation-a 2 --generation-b 3
lines_of "...and nothing else" 1 -- "$savekit" diff slots slots --key hero --generation-a 2 --generation-b 3
check "its title is kept" 0 'Chapter 2' -- "$savekit" show slots
check "edit of an older generation is refused" 1 '^$' -- env EDITOR=true "$savekit" edit slots hero --generation 1
check "an editor that fails saves nothing" 1 '^$' -- env EDITOR=false "$savekit" edit slots hero
check "still generation 3" 0 '^hero +3 ' -- "$savekit" show slots

# ---- from an attack review: each failed before its fix ------------------------------------------
editor motto_null 's/"carpe noctem"/null/'
check "a text entry set to null is refused, not stored empty" 1 '^$' -- env EDITOR="$work/motto_null" "$savekit" edit every.prefs motto
stderr_has "says it stays a string" 'stored as text, so it stays a string'
check "the text is still there" 0 '^carpe noctem$' -- "$savekit" get every.prefs motto
# The game saves while the person edits: the edit is refused, the game's save stays.
printf '#!/bin/sh\n"%s" set every.prefs motto "saved by the game" && sed -i -e "s/carpe noctem/edited/" "$1"\n' "$savekit" >"$work/racing"
chmod +x "$work/racing"
check "an entry the game changed meanwhile is not overwritten" 1 '^$' -- env EDITOR="$work/racing" "$savekit" edit every.prefs motto
stderr_has "says why" 'changed \(or went\) since it was opened'
check "the game's save stays" 0 '^saved by the game$' -- "$savekit" get every.prefs motto
cat >"$work/racing_slot" <<EOF
#!/bin/sh
"$savekit" slots restore slots hero 1 && sed -i -e 's/"count": 5/"count": 6/' "\$1"
EOF
chmod +x "$work/racing_slot"
check "a slot the game wrote meanwhile is not overwritten" 1 '^$' -- env EDITOR="$work/racing_slot" "$savekit" edit slots hero
stderr_has "says why" 'has a newer generation \(4\) than the one edited \(3\)'
check "the game's generation is the newest" 0 '^hero +4 ' -- "$savekit" show slots
check "a lone generation file is not edited" 1 '^$' -- env EDITOR="$work/json_level" "$savekit" edit "$lone" hero
stderr_has "says where to edit it" 'shown, not edited: edit the slots folder'
printf '\xa7\xc2\x9b2J\x9b\xc3\xa9' >csi.msgpack
check "show escapes C1 controls and stray bytes" 0 '^fixstr "\\u009b2J\\x9bé"' -- "$savekit" show csi.msgpack
check "...so no CSI byte reaches the terminal" 1 '' -- grep -q $'\x9b' <("$savekit" show csi.msgpack)

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
