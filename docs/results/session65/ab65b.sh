#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 65".)
# Session 65, call 6: float p = 4's face kernel (ncu, call 2: 0.48 ms a stage at the nodes' trace buffer, against
# double's 0.50 at the points — float gains nothing there). `flowdg run` of issue 16's case (TET_CASE=periodic),
# RK4, Rusanov, 384,000 tetrahedra, float p = 4, ROUNDS rounds, final states compared: the default (the trace buffer
# at the face nodes) against it at the face points (`tp1` = FLOWDG_TRACE_POINTS=1, the face kernel six blocks an
# SM), the points' pairs (`tpp`, four blocks) and the points in five and four blocks (`tp5`, `tp4`); ncu's
# per-launch times of one step for the default and tp1.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper tp1 "FLOWDG_TRACE_POINTS=1"
wrapper tpp "FLOWDG_TRACE_POINTS=1 FLOWDG_FACE_POINT_PAIRS=1"
wrapper tp5 "FLOWDG_TRACE_POINTS=1 FLOWDG_VARIABLE_FACE_BLOCKS=5"
wrapper tp4 "FLOWDG_TRACE_POINTS=1 FLOWDG_VARIABLE_FACE_BLOCKS=4"
IFS=, read -ra specs <<< "${SPECS:-4 single,4 double}"  # (comma-separated: "order precision,...")
for spec in "${specs[@]}"; do
  read -r p precision <<< "$spec"
  TET_CASE=${TET_CASE:-periodic} BINS="${BINS:-flowdg tp1 tpp tp5 tp4}" TET_ORDERS=$p TET_N=40 TET_FLUX=rusanov PRECISION=$precision \
    ROUNDS=${ROUNDS:-2} bash scripts/gpu-ab-bins.sh 2>&1 | tee "$out/ab_p${p}_$precision.txt"
  diffs $p ${BINS:-flowdg tp1 tpp tp5 tp4} | tee -a "$out/ab_p${p}_$precision.txt"
done
KERNEL_ORDER=4 KERNEL_PRECISIONS="single" kernel_times ${KERNEL_BINS-flowdg tp1}
summarize flowdg
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v '^summary.txt$\|^ab_.*\.txt$\|^kernel_times.txt$\|^logs.tgz$'))
