#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 57".)
# Session 57: the element kernel's variants 8 (the splits' sums in the update) and 16 (phase 0's face
# codes first) against the defaults, p = 3, 4, double and float rows; final states compared.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
for v in 2 7 10 15 18 23 26 31; do
  wrapper wv$v "FLOWDG_TENSOR_VARIANT=$v"
done
ab p4_double 4 double wv7 wv15 wv23 wv31 flowdg
ab p4_single 4 single wv2 wv10 wv18 wv26 flowdg
ab p3_double 3 double wv2 wv10 flowdg
ab p3_single 3 single wv2 wv10 flowdg
grep -h "round\|against" "$out"/ab_*.txt > "$out/summary.txt"
echo "=== summary"; cat "$out/summary.txt"
