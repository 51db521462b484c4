#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 67".)
# Session 67's final build (float p = 1's node traces, the shared primitives at p = 1): issue 16's case
# (periodic, perturbed) at p = 1..4 in both precisions, one round (cases64.sh); then ncu of the
# warp-per-variable element kernel at p = 2 in both precisions (where it stands: the stall reasons by
# instruction, docs/results/session52/sass_phases.py's table; 384,000 tetrahedra, the prescribed vortex).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
OUT="$out/cases" CASES=periodic ROUNDS=1 bash docs/results/session64/cases64.sh > /dev/null 2>&1
cp "$out/cases/cases.txt" "$out/"; rm -rf "$out/cases"
PROFILE_KERNEL=core_element_variable_kernel PROFILE_ORDER=2 profile_element single flowdg
mv "$out/element_details_flowdg.txt" "$out/element_details_p2_single.txt"; mv "$out/element_sass_flowdg.csv.gz" "$out/element_sass_p2_single.csv.gz"
PROFILE_KERNEL=core_element_variable_kernel PROFILE_ORDER=2 profile_element double flowdg
mv "$out/element_details_flowdg.txt" "$out/element_details_p2_double.txt"; mv "$out/element_sass_flowdg.csv.gz" "$out/element_sass_p2_double.csv.gz"
rm -f "$out"/element_phases_*.txt "$out"/profile_run_*.log
grep "round" "$out/cases.txt"
for x in single double; do echo "== p = 2 $x"; grep -E "Duration|Achieved Occupancy|Registers Per|Issue Slots Busy|Eligible Warps|Stall|Throughput" "$out/element_details_p2_$x.txt" | head -24; done
