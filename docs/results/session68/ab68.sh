#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 68".)
# The warp-per-variable element kernel's tables from shared memory (st1: FLOWDG_VARIABLE_TABLES=1, a broadcast
# load four floats or two doubles) against the default (flowdg: the parameters' tables, uniform loads of two
# floats or one double) at p = 1, 2 in both precisions, two rounds, the final states compared; issue 16's case (periodic,
# perturbed, RK4, Rusanov, 998,250 tetrahedra).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper st1 "FLOWDG_VARIABLE_TABLES=1"
for precision in single double; do
  for p in 2 1; do
    OUT="$out/$precision$p" TET_CASE=periodic BINS="flowdg st1" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=$precision ROUNDS=2 SAME_BITS=1 \
      bash scripts/gpu-ab-bins.sh > "$out/ab_p${p}_$precision.txt" 2>&1
  done
done
rm -rf "$out"/single? "$out"/double?
grep -H "round\|against" "$out"/ab_*.txt
