#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: session 62's checks of the
# final build.) The gpu tests (the defaults: at double p = 3 the element kernel's update two threads an
# (element, mode) pair, Variant 66 — the agreement test on the affine tetrahedra runs it at p = 3; another
# FLOWDG_TENSOR_VARIANT applies at every order, and p = 3's values are an InputError at p = 4, so the A/B
# variants are checked by the A/B runs' final states, the same bits); memcheck over the automatic kernels
# on the affine tetrahedra (p = 0..4, both precisions).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
export LD_LIBRARY_PATH=$PWD/.bundle/lib
if [ "${ALL:-1}" = 1 ]; then
  timeout 300 .bundle/bin/flowdg_gpu_tests > "$out/gpu_tests.txt" 2>&1; echo "gpu tests: exit $?"
fi
FLOWDG_CORE_CASES="affine tetrahedra" FLOWDG_CORE_KERNELS=automatic timeout 240 compute-sanitizer --tool memcheck --error-exitcode 3 \
  .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.CudaAgreesWithTheCpuForEvery*' > "$out/memcheck_default.txt" 2>&1
echo "memcheck: exit $?"
grep -h "^\[  PASSED\|^\[  FAILED\|FAILED TEST\|ERROR SUMMARY" "$out"/*.txt
