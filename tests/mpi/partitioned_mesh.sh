#!/bin/bash
# partitioned_mesh.sh FLOWDG DIFF MPIEXEC CASE_DIR: a mesh partitioned on disk (flowdg mesh partition
# -o DIR), each rank reading only its part, gives the one-rank run's state bit for bit (the limiter
# case with two vertex rings; the curvature walls of the annulus, whose circles the manifest keeps);
# periodic pairs joined by --periodic before partitioning; the wrong rank count, a ghost layer too
# thin for the case and periodic boundaries the directory was not joined with are refused on every
# rank.
set -u
source "$(dirname "$0")/common.sh"  # $work, run
flowdg=$1 diff=$2 mpiexec=$3 cases=$4
status=0
check() {  # check NAME CASE MESH RANKS PARTITION-OPTIONS...
  local name=$1 case=$2 mesh=$3 ranks=$4
  shift 4
  run "$work/$name-partition.log" "$flowdg" mesh partition "$mesh" "$ranks" -o "$work/$name-parts" "$@"
  run "$work/$name-serial.log" "$flowdg" run "$case" --backend cpu --set "mesh.file=\"$mesh\"" --set mesh.refine=0 \
    --output "$work/$name-serial"
  run "$work/$name-parts.log" "$mpiexec" -np "$ranks" --oversubscribe "$flowdg" run "$case" --backend cpu \
    --set "mesh.file=\"$work/$name-parts\"" --set mesh.refine=0 --output "$work/$name-run"
  grep -m1 "distributed over" "$work/$name-parts.log"
  echo -n "$name, $ranks ranks from the parts vs 1 rank: "
  "$diff" "$work/$name-run/checkpoint.h5" "$work/$name-serial/checkpoint.h5" 0 || status=1
}
check limiter "$cases/euler2d_limiter.toml" "builtin:double-mach?ny=12" 3 --ghost-depth 2 --ghost-rings vertex
check curvature "$cases/euler2d_tuned.toml" "builtin:annulus?refine=1" 4
# periodic pairs joined before partitioning (given either way round), the joins in the part files
periodic_mesh="builtin:rectangle?nx=12&ny=12&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2"
check periodic "$cases/euler2d_periodic.toml" "$periodic_mesh" 3 --periodic left:right:20,0 --periodic top:bottom:0,-20
expect() {
  local name=$1 fragment=$2
  shift 2
  timeout 120 "$@" > "$work/out.log" 2>&1
  local got=$?
  if [ "$got" -ne 2 ] || ! grep -q -- "$fragment" "$work/out.log"; then
    echo "FAILED $name: exit $got (expected 2):"
    cat "$work/out.log"
    status=1
  else
    echo "ok $name: $(grep -m1 -- "$fragment" "$work/out.log")"
  fi
}
expect "wrong rank count" "partitioned into 3 parts" \
  "$mpiexec" -np 2 --oversubscribe "$flowdg" run "$cases/euler2d_limiter.toml" --backend cpu --set "mesh.file=\"$work/limiter-parts\"" \
  --output "$work/x"
run "$work/thin.log" "$flowdg" mesh partition "builtin:double-mach?ny=12" 3 -o "$work/thin"
expect "ghost layer too thin" "this case needs 2 vertex rings" \
  "$mpiexec" -np 3 --oversubscribe "$flowdg" run "$cases/euler2d_limiter.toml" --backend cpu --set "mesh.file=\"$work/thin\"" \
  --output "$work/y"
run "$work/unjoined.log" "$flowdg" mesh partition "$periodic_mesh" 2 -o "$work/unjoined"
expect "periodic boundaries of a partitioned mesh without --periodic" "was not partitioned with 'bottom' joined onto 'top'" \
  "$mpiexec" -np 2 --oversubscribe "$flowdg" run "$cases/euler2d_periodic.toml" --backend cpu --set "mesh.file=\"$work/unjoined\"" \
  --output "$work/w"
# one pair joined (given the other way round: accepted for left and right), the other missing
run "$work/one-pair.log" "$flowdg" mesh partition "$periodic_mesh" 2 -o "$work/one-pair" --periodic right:left:-20,0
expect "a pair missing" "partition it with flowdg mesh partition ... --periodic bottom:top:0,20" \
  "$mpiexec" -np 2 --oversubscribe "$flowdg" run "$cases/euler2d_periodic.toml" --backend cpu --set "mesh.file=\"$work/one-pair\"" \
  --output "$work/v"
expect "a translation that joins nothing" "has no partner" "$flowdg" mesh partition "$periodic_mesh" 2 -o "$work/bad-shift" \
  --periodic bottom:top:0,10
expect "no partition.toml" "not a partitioned mesh" \
  "$mpiexec" -np 2 --oversubscribe "$flowdg" run "$cases/euler2d_limiter.toml" --backend cpu --set "mesh.file=\"$work\"" \
  --output "$work/z"
exit $status
