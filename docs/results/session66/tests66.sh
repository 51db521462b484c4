#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: session 66's checks on the final
# build.) The gpu tests (the interior-only variable face launch: its Boundary = true instances dropped, the batch
# carries every boundary group); memcheck over the automatic kernels on the affine tetrahedra (p = 0..4, both
# precisions) and over the boundary batch and the poisoned-memory tests.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
gpu_checks
memcheck_tests batch 'GpuDgCore.BatchedBoundary*:GpuDgCore.AnOperatorsStepsReadNoMemory*'
tests_summary
