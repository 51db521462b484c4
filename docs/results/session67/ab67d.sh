#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 67".)
# The warp-per-variable element kernel's tables in constant memory (ct1: FLOWDG_VARIABLE_CONSTANT=1) against
# the kernel's parameters (flowdg, the default) at p = 1, 2 in both precisions, two rounds, the final states
# compared bit for bit; issue 16's case (periodic, perturbed, RK4, Rusanov, 998,250 tetrahedra). Then the
# registers, and ncu of ct1's element kernel at float p = 2 (its instruction mix against call 12's).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper ct1 "FLOWDG_VARIABLE_CONSTANT=1"
for precision in single double; do
  for p in 1 2; do
    OUT="$out/$precision$p" TET_CASE=periodic BINS="flowdg ct1" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=$precision ROUNDS=2 SAME_BITS=1 \
      bash scripts/gpu-ab-bins.sh > "$out/ab_p${p}_$precision.txt" 2>&1
  done
done
rm -rf "$out"/single? "$out"/double?
cuobjdump --dump-resource-usage .bundle/bin/flowdg 2>/dev/null | grep -A1 "core_element_variable_kernel" | grep -B1 "REG" > "$out/element_variable_registers.txt"
PROFILE_KERNEL=core_element_variable_kernel PROFILE_ORDER=2 profile_element single ct1
rm -f "$out"/element_phases_*.txt "$out"/profile_run_*.log
grep -H "round\|against" "$out"/ab_*.txt
grep -E "Duration|Issued Warp|Eligible Warps|Registers Per" "$out/element_details_ct1.txt" | head
