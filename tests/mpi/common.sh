# Sourced by the distributed-run test scripts: a scratch directory removed at exit ($work), and
# run LOG COMMAND...: the command's output into LOG, shown (and the script ended, exit 1) only if
# it fails.
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
