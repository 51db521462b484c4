#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 59".)
# ncu's detailed sections (speed of light, pipes, memory, occupancy, warp states and stall sampling) of one
# launch of the face tensor kernel at p = 3 (the coefficients' copy, one tile a warp, faces by window:
# FLOWDG_TRACE_BUFFER=3 FLOWDG_FACE_AOS=1 in session 59's first build) on the 3D vortex, 384,000 tetrahedra, double.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
export LD_LIBRARY_PATH=$PWD/.bundle/lib
n=40
env ${PROFILE_ENV:-FLOWDG_TRACE_BUFFER=3 FLOWDG_FACE_AOS=1} timeout 300 ncu --kernel-name regex:core_face_tensor_kernel --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
  --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters --section LaunchStats \
  -o "$out/face" -f \
  .bundle/bin/flowdg run examples/vortex3d_tetrahedra.toml --backend cuda --set "mesh.file=\"builtin:box?lx=6&ly=6&lz=6&nx=$n&ny=$n&nz=$n\"" \
  --set 'boundary.zmin.translation=[0.0,0.0,6.0]' --set 'solver.flux="rusanov"' --set time.max_steps=1 --set time.end_time=100.0 \
  --set output.vtu=false --set solver.order=3 --set 'solver.precision="double"' --output /tmp/flowdg-face-profile > "$out/profile_run.log" 2>&1
echo "ncu exit $?"
ncu --import "$out/face.ncu-rep" --page details > "$out/face_details.txt" 2>&1
grep -v "^    ---\|^  ---" "$out/face_details.txt" | head -250
