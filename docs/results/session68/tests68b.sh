#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the tests bundle carried: docs/performance.md "Session 68".)
# The gpu tests on session 68's final build (the shared-tables switch removed; the variable kernels' switch
# cases: node and pair traces, shared and own primitives, chained and summed volume sums), then memcheck over the
# automatic kernels on the affine tetrahedra (p = 0..4, both precisions); the results written as they come.
exec bash "$(dirname "$0")/tests68.sh"  # the same commands as call 2's
