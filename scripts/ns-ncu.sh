#!/usr/bin/env bash
# Nsight Compute on single Navier-Stokes kernels (issue 15 item 8): a 2-step `flowdg run` of the
# viscous vortex on 798,848 perturbed triangles (or quadrilaterals: NCU_MESH=quad), one launch of the
# kernel matched by each entry's regex after two skipped. Entries "p element_kernel regex", e.g.
#   scripts/ns-ncu.sh "4 tensor lifting_tensor" "1 automatic Lifting"
# Reports to $OUT/ncu_<p>_<kernel>_<regex>.txt; the main lines printed last. BIN: another binary of .bundle/bin;
# NCU_EXTRA: more ncu options (e.g. "--section MemoryWorkloadAnalysis_Tables --section SourceCounters").
set -uo pipefail
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1
export LD_LIBRARY_PATH=$PWD/.bundle/lib
out=${OUT:-/tmp/flowdg-ncu}
mkdir -p "$out"
mesh='builtin:rectangle?nx=632&ny=632&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2'
[ "${NCU_MESH:-tri}" = quad ] && mesh='builtin:rectangle?nx=800&ny=800&x0=-10&x1=10&y0=-10&y1=10&cells=quadrilaterals&perturbation=0.2'
for entry in "$@"; do
  set -- $entry
  timeout 150 ncu --kernel-name "regex:$3" --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis ${NCU_EXTRA:-} \
    .bundle/bin/${BIN:-flowdg} run examples/vortex_navier_stokes.toml --backend cuda --set "mesh.file=\"$mesh\"" \
    --set solver.order="$1" --set solver.element_kernel="\"$2\"" --set time.max_steps=2 --set time.end_time=100.0 \
    --set output.directory='"/tmp/flowdg-ns-ncu"' --set output.vtu=false > "$out/ncu_$1_$2_$3.txt" 2>&1
  echo "$entry: exit $?"
done
grep -H -E "^  [a-zA-Z_:]+.*\(|Duration|Memory Throughput|DRAM Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Dynamic Shared|Block Limit|Warp Cycles Per Issued|Executed Ipc A" \
  "$out"/ncu_*.txt | sed "s|$out/||" | cut -c1-140
