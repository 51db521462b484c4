#!/bin/bash
# bad_input.sh FLOWDG MPIEXEC CASE_DIR: distributed runs that cannot work stop on every rank with a
# message and a non-zero exit, without hanging (each under a time limit).
set -u
flowdg=$1 mpiexec=$2 cases=$3
source "$(dirname "$0")/common.sh"  # $work
status=0
# Two ranks for one quadrilateral.
expect "more ranks than elements" 2 "needs at least as many elements" \
  "$mpiexec" -np 2 --oversubscribe "$flowdg" run "$cases/euler2d_curved_quads.toml" --backend cpu \
  --set 'mesh.file="builtin:rectangle?nx=1&ny=1&cells=quadrilaterals"' --output "$work/a"
# Periodic boundaries on a partitioned directory made without the pairs (flowdg mesh partition --periodic).
"$flowdg" mesh partition "builtin:rectangle?nx=12&ny=12&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2" 2 -o "$work/periodic-parts" > /dev/null
expect "periodic boundaries of a partitioned mesh" 2 "run the whole mesh" \
  "$mpiexec" -np 2 --oversubscribe "$flowdg" run "$cases/euler2d_periodic.toml" --backend cpu --set "mesh.file=\"$work/periodic-parts\"" \
  --output "$work/b"
# A blow-up on one rank's part stops every rank with the element and the last good state.
expect "a non-physical state" 3 "non-physical state" \
  "$mpiexec" -np 3 --oversubscribe "$flowdg" run "$cases/euler2d_tuned.toml" --backend cpu --set time.cfl=50 \
  --set time.max_steps=50 --output "$work/c"
test -f "$work/c/last_good.h5" || { echo "FAILED: no last_good.h5 after the blow-up"; status=1; }
# A restart from a checkpoint of another mesh, on every rank.
expect "a checkpoint of another mesh" 2 "does not fit" \
  "$mpiexec" -np 2 --oversubscribe "$flowdg" run "$cases/euler2d_tuned.toml" --backend cpu --set mesh.refine=0 \
  --restart "$work/c/last_good.h5" --output "$work/d"
exit $status
