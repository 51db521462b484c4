#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 58".)
# Session 58: the interior face kernel on the FP64 tensor cores (p = 3; euler3d_variable_kernels.cpp
# core_face_tensor_kernel; FLOWDG_FACE_TENSOR=1, ft1; not the default) against the variable face kernel's
# sums (the default; ft0 = FLOWDG_FACE_TENSOR=0), five, six and eight blocks an SM (ft5, ft6, ft8); the
# final states compared with the first entry's (not the same bits: the sums in another order).
# (During the session the tensor kernel was the build's default: the calls' logs name it `flowdg`.)
# FLOWDG_FACE_AOS=1 (fa1): the element-major coefficients' copy before it (A/B); faw, f0w: fa1, ft0 with the faces
# in windows of 64 elements by class (FLOWDG_FACE_ORDER=window). DOUBLE_BINS, SINGLE_BINS: the entries; KT_BINS: the kernel times'.
# KERNEL_TIMES=1: ncu's time of every launch of a one-step run, both kernels (scripts/tets-kernel-times.sh).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper ft0 "FLOWDG_FACE_TENSOR=0"
wrapper ft1 "FLOWDG_FACE_TENSOR=1"
wrapper ft5 "FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_TENSOR_BLOCKS=5"
wrapper ft6 "FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_TENSOR_BLOCKS=6"
wrapper ft8 "FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_TENSOR_BLOCKS=8"
wrapper fa1 "FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_AOS=1"
wrapper faw "FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_AOS=1 FLOWDG_FACE_ORDER=window"
wrapper f0w "FLOWDG_FACE_TENSOR=0 FLOWDG_FACE_ORDER=window"
ab p3_double 3 double ${DOUBLE_BINS:-ft0 ft1 fa1 faw f0w}
ab p3_single 3 single ${SINGLE_BINS:-ft0 ft1 faw}
if [ "${KERNEL_TIMES:-0}" = 1 ]; then
  for b in ${KT_BINS:-ft0 ft1 faw}; do
    BIN=$b OUT=$out/ncu_$b bash scripts/tets-kernel-times.sh "3 40 double" > "$out/kernel_times_$b.txt" 2>&1
  done
  tar czf "$out/ncu.tgz" -C "$out" $(cd "$out" && ls -d ncu_*) && rm -rf "$out"/ncu_*/
fi
grep -h "round\|against" "$out"/ab_*.txt > "$out/summary.txt"
[ "${KERNEL_TIMES:-0}" = 1 ] && grep -h "face\|element_tensor\|ncu exit" "$out"/kernel_times_*.txt | grep -v "grid (100," | head -30 >> "$out/summary.txt"
echo "=== summary"; cat "$out/summary.txt"
