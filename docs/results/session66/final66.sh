#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 66".)
# Session 66's final build: ab65b.sh's float p = 4 comparison (the trace buffer at the face points against the
# nodes: tp1, tpp, tp5 — call 6 lost it to a machine restart), then issue 16's case (periodic, perturbed) at
# p = 1..4 in both precisions, one round each (cases64.sh).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
OUT="$out/ab" SPECS="4 single" BINS="flowdg tp1 tpp tp5" KERNEL_BINS="flowdg tp1" bash docs/results/session65/ab65b.sh > "$out/ab65b_stdout.txt" 2>&1
cp "$out"/ab/ab_*.txt "$out"/ab/kernel_times.txt "$out"/ab/summary.txt "$out/" 2>/dev/null
OUT="$out/cases" CASES=periodic ROUNDS=1 bash docs/results/session64/cases64.sh > /dev/null 2>&1
cp "$out/cases/cases.txt" "$out/"
rm -rf "$out/ab" "$out/cases"
grep "round\|against" "$out"/ab_*.txt; grep -A12 "^kernels" "$out/ab65b_stdout.txt" | grep "kernels\|face_variable\|element_tensor" | head -12; grep "round" "$out/cases.txt"
