#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 64".)
# Session 64: issue 16 item 7's throughput at p = 1..4 in double and single precision on the case as the issue
# states it (TET_CASE=periodic: examples/vortex3d_periodic_tetrahedra.toml, periodic in x, y, z, perturbed Kuhn
# cubes) beside the case sessions 39-63 measured (prescribed x and y faces, unperturbed): `flowdg run`, RK4,
# Rusanov, 20 steps, 998,250 tetrahedra at p = 1, 2 and 384,000 at p = 3, 4; ROUNDS rounds (2), BINS (flowdg).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
for precision in ${PRECISIONS:-double single}; do
  for c in ${CASES:-periodic prescribed}; do
    for spec in ${SPECS:-"1 55" "2 55" "3 40" "4 40"}; do
      read -r p n <<< "$spec"
      TET_CASE=$c BINS="${BINS:-flowdg}" TET_ORDERS=$p TET_N=$n TET_FLUX=rusanov PRECISION=$precision ROUNDS=${ROUNDS:-2} \
        bash scripts/gpu-ab-bins.sh 2>&1 | sed "s/^/$c $precision /"
    done
  done
done | tee "$out/cases.txt"
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v '^cases.txt$\|^logs.tgz$'))
