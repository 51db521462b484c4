#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: session 59's final checks.)
# The gpu tests; the CPU agreement and Riemann-solver tests with the face tensor kernel gathering
# (FLOWDG_FACE_TENSOR=1, faces by window); memcheck over the CPU agreement test on the affine tetrahedra
# (p = 3 in double there runs the default: the trace buffer's copy and the face tensor kernel).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
export LD_LIBRARY_PATH=$PWD/.bundle/lib
timeout 300 .bundle/bin/flowdg_gpu_tests > "$out/gpu_tests.txt" 2>&1; echo "gpu tests: exit $?"
FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_ORDER=window timeout 200 .bundle/bin/flowdg_gpu_tests \
  --gtest_filter='GpuDgCore.CudaAgrees*:GpuDgCore.EachRiemann*' > "$out/gpu_tests_face_tensor_gathering.txt" 2>&1; echo "gathering: exit $?"
FLOWDG_CORE_CASES="affine tetrahedra" timeout 400 compute-sanitizer --tool memcheck --error-exitcode 3 .bundle/bin/flowdg_gpu_tests \
  --gtest_filter='GpuDgCore.CudaAgrees*' > "$out/memcheck_agreement.txt" 2>&1; echo "memcheck: exit $?"
grep -h "^\[  PASSED\|^\[  FAILED\|FAILED TEST\|ERROR SUMMARY" "$out"/*.txt
grep -h "copy" "$out/gpu_tests.txt" | head -12
