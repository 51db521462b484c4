#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: the calls on the builds of session 67.)
# The gpu tests (their new case "moments node traces": FLOWDG_FACE_TRACES=2 in float and double, p = 1..3,
# never run on a GPU before); memcheck over the automatic kernels on the affine tetrahedra (p = 0..4, both
# precisions), over the boundary batch and the poisoned-memory tests, and over the face-kernel dispatch test
# (its node-traces case included).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
gpu_checks
memcheck_tests batch 'GpuDgCore.BatchedBoundary*:GpuDgCore.AnOperatorsStepsReadNoMemory*'
grep "node traces\|pair traces\|primitives" "$out/gpu_tests.txt" > "$out/node_traces.txt"
memcheck_tests dispatch 'GpuDgCore.EachRiemannSolverHasItsOwnThreeDimensionalFaceKernel'
tests_summary

echo "=== node traces, pair traces, primitives (cpu - cuda): cases, the largest state and residual differences (relative)"
tar xzf "$out/logs.tgz" -O node_traces.txt | awk '{n++; a=$(NF-3)+0; b=$(NF-1)+0; if (a>sa) sa=a; if (b>sb) sb=b} END {print n, sa, sb}' 
