#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: session 64's checks.) The gpu
# tests (GpuDgCore.BatchedBoundaryFaceGroupsGiveTheSameBitsOnTetrahedra: the boundary groups in one launch
# against a launch each, four conditions, p = 1..4, both precisions); memcheck over the automatic kernels on
# the affine tetrahedra (p = 0..4, both precisions) and over the batch test.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
gpu_checks
export LD_LIBRARY_PATH=$PWD/.bundle/lib
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 \
  .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.BatchedBoundary*' > "$out/memcheck_batch.txt" 2>&1
echo "memcheck batch: exit $?"
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v "^gpu_tests.txt$\|^logs.tgz$"))
grep -h "^\[  PASSED\|^\[  FAILED\|FAILED TEST\|ERROR SUMMARY" "$out"/*.txt
