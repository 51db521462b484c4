#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: docs/performance.md "Session 68".)
# The gpu tests on session 68's final build (the shared-tables switch removed; the variable kernels' switch
# cases: node and pair traces, shared and own primitives, chained and summed volume sums), then memcheck over the
# automatic kernels on the affine tetrahedra (p = 0..4, both precisions); the results written as they come.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
LD_LIBRARY_PATH=$PWD/.bundle/lib timeout 100 .bundle/bin/flowdg_gpu_tests > "$out/gpu_tests.txt" 2>&1; echo "gpu tests: exit $?"
grep "^\[  PASSED\|^\[  FAILED\|FAILED TEST" "$out/gpu_tests.txt"
grep "traces faces\|primitives faces\|sums faces\|products faces\|tables faces" "$out/gpu_tests.txt" > "$out/switch_cases.txt"
awk '{n++; a=$(NF-3)+0; b=$(NF-1)+0; if (a>sa) sa=a; if (b>sb) sb=b} END {print "switch cases", n, "largest state", sa, "residual", sb}' "$out/switch_cases.txt"
LD_LIBRARY_PATH=$PWD/.bundle/lib FLOWDG_CORE_CASES="affine tetrahedra" FLOWDG_CORE_KERNELS=automatic timeout 60 \
  compute-sanitizer --tool memcheck --error-exitcode 3 .bundle/bin/flowdg_gpu_tests --gtest_filter='GpuDgCore.CudaAgreesWithTheCpuForEvery*' \
  > "$out/memcheck_default.txt" 2>&1
echo "memcheck default: exit $?"; grep "ERROR SUMMARY" "$out/memcheck_default.txt"; gzip -f "$out/memcheck_default.txt"
