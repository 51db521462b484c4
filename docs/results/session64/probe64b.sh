#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 64".)
# Session 64, call 2: what the boundary faces cost double p = 3 — issue 16's case (prescribed x and y faces,
# their kernels on the second stream), the same with them on the kernels' stream (FLOWDG_BOUNDARY_STREAM=0), and
# the same mesh periodic in x, y and z (vortex3d_periodic.toml: no boundary faces); then ncu's samples of the
# face tensor kernel by segment (PROFILE=1).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper bs0 "FLOWDG_BOUNDARY_STREAM=0"
ab p3_double 3 double flowdg bs0
per=docs/results/session64/vortex3d_periodic.toml
for round in 1 2; do
  for b in flowdg bs0; do
    timeout 120 .bundle/run $b run $per --backend cuda --output /tmp/per_$b > "$out/per_${b}_$round.log" 2>&1
    echo "periodic p=3 $b round $round: exit $? $(grep -o '"throughput_dof_stage_per_second": [0-9.e+]*' /tmp/per_$b/summary.json | awk '{print $2}')"
  done
done | tee "$out/ab_periodic.txt"
if [ "${PROFILE:-0}" = 1 ]; then
  LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 240 ncu --kernel-name regex:core_face_tensor_kernel --launch-skip 1 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SpeedOfLight \
    -o "$out/face" -f .bundle/bin/flowdg run examples/vortex3d_tetrahedra.toml --backend cuda \
    --set 'mesh.file="builtin:box?lx=6&ly=6&lz=6&nx=40&ny=40&nz=40"' --set 'boundary.zmin.translation=[0.0,0.0,6.0]' \
    --set 'solver.flux="rusanov"' --set time.max_steps=1 --set time.end_time=100.0 --set output.vtu=false --set solver.order=3 \
    --output /tmp/flowdg-face-profile > "$out/profile_face.log" 2>&1
  echo "ncu face exit $?"
  ncu --import "$out/face.ncu-rep" --page details > "$out/face_details.txt" 2>&1
  ncu --import "$out/face.ncu-rep" --page source --csv --print-source sass > "$out/face_sass.csv" 2>&1
  python3 docs/results/session52/sass_phases.py "$out/face_sass.csv" > "$out/face_phases.txt" 2>&1
  gzip -f "$out/face_sass.csv"; rm -f "$out/face.ncu-rep"
  grep -E "Duration|Achieved Occupancy|Registers Per|Block Limit|Issue Slots Busy|Eligible Warps|Throughput" "$out/face_details.txt" | head -20
  grep "^seg\|total\|stalls" "$out/face_phases.txt"
fi
summarize
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v '^summary.txt$\|^ab_.*\.txt$\|^face_phases.txt$\|^logs.tgz$'))
