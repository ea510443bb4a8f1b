# What the CLI test scripts share (sourced): check a command's exit code and standard output,
# then its standard error; count what passed and failed. Needs $work, a scratch folder.
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
