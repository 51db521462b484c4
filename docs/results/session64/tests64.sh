#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: session 64's checks.) The gpu
# tests (GpuDgCore.BatchedBoundaryFaceGroupsGiveTheSameBitsOnTetrahedra: the boundary groups in one launch
# against a launch each, four conditions, p = 1..4, both precisions; GpuDgCore.AnOperatorsStepsReadNoMemoryItDidNotWrite);
# memcheck over the automatic kernels on the affine tetrahedra (p = 0..4, both precisions) and over the batch test.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
gpu_checks
memcheck_tests batch 'GpuDgCore.BatchedBoundary*'
tests_summary
