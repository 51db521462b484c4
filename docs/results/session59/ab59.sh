#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 59".)
# Session 59, p = 3, the final build: the face kernel on the FP64 tensor cores reading the trace buffer's
# element-major copy of the coefficients (FLOWDG_TRACE_BUFFER=3: a copy kernel at each stage's start, the faces
# by window; the default in double) against the variable face kernel's sums (sums: FLOWDG_TRACE_BUFFER=0, the
# faces by family — the default before), with the traces' B columns permuted (the default: `flowdg`) or not
# (unpermuted: FLOWDG_FACE_PERMUTED=0). In float the sums stay the default (copy: FLOWDG_TRACE_BUFFER=3).
# The final states compared with the first entry's. DOUBLE_BINS, SINGLE_BINS: the entries; KERNEL_TIMES=1:
# ncu's time of every launch of a one-step run (KT_BINS). (The first build's entries, call 2: README.md.)
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper sums "FLOWDG_TRACE_BUFFER=0"
wrapper unpermuted "FLOWDG_FACE_PERMUTED=0"
wrapper copy "FLOWDG_TRACE_BUFFER=3"
ab p3_double 3 double ${DOUBLE_BINS:-sums flowdg unpermuted}
ab p3_single 3 single ${SINGLE_BINS:-flowdg copy}
if [ "${KERNEL_TIMES:-0}" = 1 ]; then
  for b in ${KT_BINS:-flowdg unpermuted}; do
    BIN=$b OUT=$out/ncu_$b bash scripts/tets-kernel-times.sh "3 40 double" > "$out/kernel_times_$b.txt" 2>&1
  done
  tar czf "$out/ncu.tgz" -C "$out" $(cd "$out" && ls -d ncu_*) && rm -rf "$out"/ncu_*/
fi
grep -h "round\|against" "$out"/ab_*.txt > "$out/summary.txt"
if [ "${KERNEL_TIMES:-0}" = 1 ]; then
  for b in ${KT_BINS:-flowdg unpermuted}; do
    echo "kernel times, $b:"; grep -h "face\|element_tensor\|copy\|ncu exit" "$out/kernel_times_$b.txt" | grep -v "grid (100," | head -12
  done >> "$out/summary.txt"
fi
echo "=== summary"; cat "$out/summary.txt"
