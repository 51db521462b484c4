#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 68".)
# The interior face kernel's blocks an SM in float at p = 1, 2 (default 4, measured in sessions 41-46 when float
# p = 1 read the point table in pairs; since session 67 it evaluates the traces at the face nodes): fb3 / fb5 /
# fb6 = FLOWDG_VARIABLE_FACE_BLOCKS=3 / 5 / 6 against the default, two rounds, the final states compared bit for
# bit; issue 16's case (periodic, perturbed, RK4, Rusanov, 998,250 tetrahedra).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
for b in 3 5 6; do wrapper fb$b "FLOWDG_VARIABLE_FACE_BLOCKS=$b"; done
for p in 1 2; do
  OUT="$out/single$p" TET_CASE=periodic BINS="flowdg fb3 fb5 fb6" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=single ROUNDS=2 SAME_BITS=1 \
    bash scripts/gpu-ab-bins.sh > "$out/ab_p${p}_single.txt" 2>&1
done
rm -rf "$out"/single?
grep -H "round\|against" "$out"/ab_*.txt
