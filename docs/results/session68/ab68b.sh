#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 68".)
# The warp-per-variable element kernel with two elements a thread (pr3 / pr2: FLOWDG_VARIABLE_PAIRS=3 / 2, its
# registers bounded for 3 / 2 blocks an SM) against one (flowdg, the default) at p = 2, 1 in both precisions, two
# rounds, the final states compared bit for bit; issue 16's case (periodic, perturbed, RK4, Rusanov, 998,250
# tetrahedra).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper pr3 "FLOWDG_VARIABLE_PAIRS=3"
wrapper pr2 "FLOWDG_VARIABLE_PAIRS=2"
for precision in single double; do
  for p in 2 1; do
    OUT="$out/$precision$p" TET_CASE=periodic BINS="flowdg pr3 pr2" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=$precision ROUNDS=2 SAME_BITS=1 \
      bash scripts/gpu-ab-bins.sh > "$out/ab_p${p}_$precision.txt" 2>&1
  done
done
rm -rf "$out"/single? "$out"/double?
grep -H "round\|against" "$out"/ab_*.txt
cuobjdump --dump-resource-usage .bundle/bin/flowdg 2>/dev/null | grep -A1 "core_element_variable_kernel" | grep -B1 "REG" > "$out/element_variable_registers.txt"
grep -c REG "$out/element_variable_registers.txt"
