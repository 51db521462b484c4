#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 65".)
# Session 65, call 1: where the float/double ratio is lost at p = 1, 2 (issue 16 item 7 asks float >= 1.8x double;
# session 64: 1.52x, 1.70x) and where p = 4's stage goes on this build. ncu's per-launch times and DRAM bytes of one
# step (scripts/tets-kernel-times.sh; the 3D vortex, RK4, Rusanov, 998,250 tetrahedra at p = 1, 2, 384,000 at p = 4)
# in both precisions; then ncu's samples per instruction of the p = 1 warp-per-variable element kernel in both
# precisions (profile_element, PROFILE_KERNEL) and the wall rates of the case at p = 1 (cases64.sh).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
OUT="$out/ncu" bash scripts/tets-kernel-times.sh ${TIME_SPECS:-"1 55 double" "1 55 single" "2 55 double" "2 55 single" "4 40 double" "4 40 single"} \
  > "$out/kernel_times.txt" 2>&1
wrapper d1 ""; wrapper s1 ""; wrapper d1f ""; wrapper s1f ""
PROFILE_KERNEL=core_element_variable_kernel PROFILE_ORDER=1 PROFILE_N=55 profile_element double d1
PROFILE_KERNEL=core_element_variable_kernel PROFILE_ORDER=1 PROFILE_N=55 profile_element single s1
PROFILE_KERNEL=core_face_variable_kernel PROFILE_ORDER=1 PROFILE_N=55 profile_element double d1f
PROFILE_KERNEL=core_face_variable_kernel PROFILE_ORDER=1 PROFILE_N=55 profile_element single s1f
OUT="$out/cases" CASES=periodic SPECS="1 55" bash docs/results/session64/cases64.sh > /dev/null 2>&1; cp "$out/cases/cases.txt" "$out/cases_p1.txt"
{ cat "$out/kernel_times.txt"; PROFILE=1 profile_summary d1 s1 d1f s1f; grep "round" "$out/cases_p1.txt"; } > "$out/summary.txt"
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v '^summary.txt$\|^kernel_times.txt$\|^logs.tgz$'))
echo "=== summary"; cat "$out/summary.txt"
