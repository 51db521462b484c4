#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 67".)
# Float p = 1, 2 on issue 16's case (periodic, perturbed, RK4, Rusanov, 998,250 tets): the interior face
# kernel's traces at the face nodes (ft2: FLOWDG_FACE_TRACES=2; in double the default at p = 1, 2 since
# session 43) against float's default (flowdg: the pairs), two rounds each; then double p = 1, 2 the same way
# (the default is the nodes there: ft0/ft1 = the points/pairs, to see that the choice still holds).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper ft2 "FLOWDG_FACE_TRACES=2"
wrapper ft1 "FLOWDG_FACE_TRACES=1"
for p in 1 2; do
  OUT="$out/s$p" TET_CASE=periodic BINS="flowdg ft2" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=single ROUNDS=2 \
    bash scripts/gpu-ab-bins.sh > "$out/ab_p${p}_single.txt" 2>&1
done
for p in 1 2; do
  OUT="$out/d$p" TET_CASE=periodic BINS="flowdg ft1" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=double ROUNDS=1 \
    bash scripts/gpu-ab-bins.sh > "$out/ab_p${p}_double.txt" 2>&1
done
rm -rf "$out"/s? "$out"/d?
grep -H "round\|against" "$out"/ab_*.txt
