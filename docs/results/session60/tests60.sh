#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: session 60's checks.)
# The gpu tests (the defaults: float rows at p = 3 in narrow blocks, double rows at p = 3 compact, the
# Runge-Kutta update's plain products); the CPU agreement test on the affine tetrahedra with the
# automatic kernels under FLOWDG_TENSOR_ROW_GROUPS=1 (narrow blocks in every default shape at p = 3, 4:
# double p = 3 compact, float rows p = 3 and 4, double p = 4 with the fused traces — the shapes not built
# for them refuse with an InputError, which is why the other kernels are left out) and under
# FLOWDG_RK_UPDATE=tested; memcheck over the automatic kernels on the affine tetrahedra (p = 0..4, both
# precisions: the new defaults) and under FLOWDG_TENSOR_ROW_GROUPS=1.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
export LD_LIBRARY_PATH=$PWD/.bundle/lib
source scripts/ab-env-lib.sh  # agree
if [ "${ALL:-1}" = 1 ]; then
  timeout 300 .bundle/bin/flowdg_gpu_tests > "$out/gpu_tests.txt" 2>&1; echo "gpu tests: exit $?"
fi
agree narrow FLOWDG_TENSOR_ROW_GROUPS=1
agree tested FLOWDG_RK_UPDATE=tested
for m in default narrow; do
  v=FLOWDG_TENSOR_ROW_GROUPS=2; [ $m = narrow ] && v=FLOWDG_TENSOR_ROW_GROUPS=1
  [ $m = default ] && v=FLOWDG_UNSET=1
  env $v FLOWDG_CORE_CASES="affine tetrahedra" FLOWDG_CORE_KERNELS=automatic timeout 240 compute-sanitizer --tool memcheck --error-exitcode 3 \
    .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.CudaAgreesWithTheCpuForEvery*' > "$out/memcheck_$m.txt" 2>&1; echo "memcheck $m: exit $?"
done
grep -h "^\[  PASSED\|^\[  FAILED\|FAILED TEST\|ERROR SUMMARY" "$out"/*.txt
grep -h "p = 3 .*automatic\|p = 4 .*automatic" "$out/gpu_tests_narrow.txt" | head -8
