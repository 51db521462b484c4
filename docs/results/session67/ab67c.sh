#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 67".)
# The warp-per-variable element kernel's velocity and pressure computed once an element and volume point and
# shared (pr1: FLOWDG_VARIABLE_PRIMITIVES=1) against each warp computing them (flowdg, the default) at p = 1, 2
# in both precisions, two rounds, the final states compared bit for bit; issue 16's case (periodic, perturbed,
# RK4, Rusanov, 998,250 tetrahedra). Then the kernels' registers and spills.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper pr1 "FLOWDG_VARIABLE_PRIMITIVES=1"
for precision in single double; do
  for p in 1 2; do
    OUT="$out/$precision$p" TET_CASE=periodic BINS="flowdg pr1" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=$precision ROUNDS=2 SAME_BITS=1 \
      bash scripts/gpu-ab-bins.sh > "$out/ab_p${p}_$precision.txt" 2>&1
  done
done
rm -rf "$out"/single? "$out"/double?
cuobjdump --dump-resource-usage .bundle/bin/flowdg 2>/dev/null | grep -A1 "core_element_variable_kernel" | grep -B1 "REG" > "$out/element_variable_registers.txt"
grep -H "round\|against" "$out"/ab_*.txt
grep -c REG "$out/element_variable_registers.txt"
