#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 67".)
# The build with float p = 1's node traces as the default: float p = 1 against the pairs (ft1, main until
# now) two rounds; then the tensor-core element kernel (solver.element_kernel = "tensor": its generic shape,
# the tuned ones are p = 3, 4's) against the warp-per-variable one at p = 1, 2 in both precisions, one round
# (a screening: never measured since the tensor kernel's tuning of sessions 45-63). Issue 16's case
# (periodic, perturbed, RK4, Rusanov, 998,250 tetrahedra).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper ft1 "FLOWDG_FACE_TRACES=1"
OUT="$out/s1" TET_CASE=periodic BINS="flowdg ft1 flowdg@@tensor" TET_ORDERS=1 TET_N=55 TET_FLUX=rusanov PRECISION=single ROUNDS=2 \
  bash scripts/gpu-ab-bins.sh > "$out/ab_p1_single.txt" 2>&1
OUT="$out/s2" TET_CASE=periodic BINS="flowdg flowdg@@tensor" TET_ORDERS=2 TET_N=55 TET_FLUX=rusanov PRECISION=single ROUNDS=1 \
  bash scripts/gpu-ab-bins.sh > "$out/ab_p2_single.txt" 2>&1
for p in 1 2; do
  OUT="$out/d$p" TET_CASE=periodic BINS="flowdg flowdg@@tensor" TET_ORDERS=$p TET_N=55 TET_FLUX=rusanov PRECISION=double ROUNDS=1 \
    bash scripts/gpu-ab-bins.sh > "$out/ab_p${p}_double.txt" 2>&1
done
for d in s1 s2 d1 d2; do grep -h "kernel\|describe" "$out/$d"/logs/* 2>/dev/null | sort | uniq -c | head -8 > "$out/describe_$d.txt"; done
rm -rf "$out"/s? "$out"/d?
grep -H "round\|against" "$out"/ab_*.txt
