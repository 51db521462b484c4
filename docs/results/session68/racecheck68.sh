#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: docs/performance.md "Session 68".)
# compute-sanitizer's racecheck (shared-memory hazards) and synccheck (barriers) over the CPU agreement test with
# the automatic kernels on the affine tetrahedra (p = 0..4, both precisions: the warp-per-variable kernels at p = 1,
# 2 with their defaults, the tensor-core kernels at p = 3, 4); the verdicts printed, the logs' tails kept.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
for tool in racecheck synccheck; do
  LD_LIBRARY_PATH=$PWD/.bundle/lib FLOWDG_CORE_CASES="affine tetrahedra" FLOWDG_CORE_KERNELS=automatic timeout 200 \
    compute-sanitizer --tool $tool --error-exitcode 3 .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.CudaAgreesWithTheCpuForEvery*' \
    > "$out/$tool.txt" 2>&1
  echo "$tool: exit $?"; grep "ERROR SUMMARY\|RACECHECK SUMMARY\|PASSED\|FAILED" "$out/$tool.txt"
  tail -40 "$out/$tool.txt" > "$out/${tool}_tail.txt"; rm "$out/$tool.txt"
done
