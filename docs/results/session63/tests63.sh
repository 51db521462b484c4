#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: session 63's checks.) The gpu
# tests (GpuDgCore.TheElementMajorStateGivesTheCopysBits and the Riemann solvers' test's "tensor moments
# element-major" run FLOWDG_TRACE_BUFFER=4 at p = 3); memcheck over the automatic kernels on the affine
# tetrahedra (p = 0..4, both precisions) and over the element-major test.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
gpu_checks
export LD_LIBRARY_PATH=$PWD/.bundle/lib
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 3 \
  .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.TheElementMajorState*' > "$out/memcheck_element_major.txt" 2>&1
echo "memcheck element-major: exit $?"
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v "^gpu_tests.txt$\|^logs.tgz$"))
grep -h "^\[  PASSED\|^\[  FAILED\|FAILED TEST\|ERROR SUMMARY" "$out"/*.txt
