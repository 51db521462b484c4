#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 57".)
# Session 57: the element kernel's variants 8 (the splits' sums in the update) and 16 (phase 0's face
# codes first) against the defaults, p = 3, 4, double and float rows; final states compared.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
for v in 2 7 10 15 18 23 26 31; do
  printf '#!/bin/sh\nFLOWDG_TENSOR_VARIANT=%s exec "$(dirname "$0")/flowdg" "$@"\n' $v > .bundle/bin/wv$v; chmod +x .bundle/bin/wv$v
done
diffs() {  # $1 order, then the binaries: each against the first
  local p=$1 a=$2; shift 2
  for b in "$@"; do echo "   p=$p $a against $b: $(.bundle/run flowdg_checkpoint_diff /tmp/ab_${a}_tet$p/checkpoint.h5 /tmp/ab_${b}_tet$p/checkpoint.h5 2>&1 | tail -1)"; done
}
ab() {  # label, order, precision, bins
  local label=$1 p=$2 precision=$3; shift 3
  BINS="$*" TET_ORDERS=$p TET_N=40 TET_FLUX=rusanov PRECISION=$precision ROUNDS=${ROUNDS:-2} bash scripts/gpu-ab-bins.sh 2>&1 | tee "$out/ab_${label}.txt"
  diffs $p "$@" | tee -a "$out/ab_${label}.txt"
}
ab p4_double 4 double wv7 wv15 wv23 wv31 flowdg
ab p4_single 4 single wv2 wv10 wv18 wv26 flowdg
ab p3_double 3 double wv2 wv10 flowdg
ab p3_single 3 single wv2 wv10 flowdg
grep -h "round\|against" "$out"/ab_*.txt > "$out/summary.txt"
echo "=== summary"; cat "$out/summary.txt"
