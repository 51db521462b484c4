#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: session 61's checks of the
# final build.) The gpu tests (the defaults); the CPU agreement test on the affine tetrahedra with the
# automatic kernels under FLOWDG_RK_UPDATE=tested (the coefficient-testing update; the plain one, now the
# same two sums through detail::runge_kutta_stage_sums, is the default) and under FLOWDG_TRACE_BUFFER=0
# (the face sums at p = 3) and under FLOWDG_TENSOR_SWIZZLE=1 and =0 (the rows' order within fours);
# memcheck over the automatic kernels on the affine tetrahedra (p = 0..4, both precisions), by default and
# with the swizzle.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
export LD_LIBRARY_PATH=$PWD/.bundle/lib
source scripts/ab-env-lib.sh  # agree
if [ "${ALL:-1}" = 1 ]; then
  timeout 300 .bundle/bin/flowdg_gpu_tests > "$out/gpu_tests.txt" 2>&1; echo "gpu tests: exit $?"
fi
agree tested FLOWDG_RK_UPDATE=tested
agree sums FLOWDG_TRACE_BUFFER=0
agree swizzle FLOWDG_TENSOR_SWIZZLE=1
agree swizzle_off FLOWDG_TENSOR_SWIZZLE=0
for m in default swizzle; do
  v=FLOWDG_UNSET=1; [ $m = swizzle ] && v=FLOWDG_TENSOR_SWIZZLE=1
  env $v FLOWDG_CORE_CASES="affine tetrahedra" FLOWDG_CORE_KERNELS=automatic timeout 240 compute-sanitizer --tool memcheck --error-exitcode 3 \
    .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.CudaAgreesWithTheCpuForEvery*' > "$out/memcheck_$m.txt" 2>&1; echo "memcheck $m: exit $?"
done
grep -h "^\[  PASSED\|^\[  FAILED\|FAILED TEST\|ERROR SUMMARY" "$out"/*.txt
