# Sourced by the distributed-run test scripts: a scratch directory removed at exit ($work),
# run LOG COMMAND...: the command's output into LOG, shown (and the script ended, exit 1) only if
# it fails, and expect NAME CODE FRAGMENT COMMAND...: the command (under a time limit) must exit
# with CODE and print FRAGMENT; otherwise its output is shown and status=1.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {
  local log=$1
  shift
  if ! "$@" > "$log" 2>&1; then
    cat "$log"
    echo "FAILED: $*"
    exit 1
  fi
}
expect() {  # expect NAME CODE FRAGMENT COMMAND...: exit code CODE and FRAGMENT in the output
  local name=$1 code=$2 fragment=$3
  shift 3
  timeout 120 "$@" > "$work/out.log" 2>&1
  local got=$?
  if [ "$got" -ne "$code" ] || ! grep -q -- "$fragment" "$work/out.log"; then
    echo "FAILED $name: exit $got (expected $code), output:"
    cat "$work/out.log"
    status=1
  else
    echo "ok $name: exit $got, $(grep -m1 -- "$fragment" "$work/out.log")"
  fi
}
