#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 61".)
# Session 61: at p = 3, the trace buffer filled by the tensor-core element kernel (FLOWDG_TRACE_BUFFER=2:
# `fp` at the face points, `fn` at the face nodes; `fpv` with FLOWDG_TENSOR_VARIANT=$FPV_VARIANT) against
# the default (mode 3: the coefficients' element-major copy and the face tensor kernel) and the face sums
# (`s0`), in double and float (call 2); the face moments stored into the elements' own rows
# (FLOWDG_ELEMENT_FLUXES=1: `ef`; `ef0` =0) at p = 3, 4 (second build: element_rows_and_fused_p3.patch
# applied — the committed build has neither, and neither switch); `tested` the Runge-Kutta update with its
# coefficient tests (FLOWDG_RK_UPDATE=tested: the final build against its plain default); `sw` / `sw0` the
# element kernel's rows in the order (0, 2, 1, 3) within fours in phases 0, 2 and the update
# (FLOWDG_TENSOR_SWIZZLE=1 / 0). Then ncu's per-launch times of one
# step for KERNEL_BINS (scripts/tets-kernel-times.sh), and with PROFILE=1 ncu's samples of one element
# kernel launch for PROFILE_BINS. Entries skipped where *_BINS is set empty; the final states compared
# with the first entry's.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper fp "FLOWDG_TRACE_BUFFER=2 FLOWDG_TRACE_POINTS=1"
wrapper fn "FLOWDG_TRACE_BUFFER=2 FLOWDG_TRACE_POINTS=0"
wrapper s0 "FLOWDG_TRACE_BUFFER=0"
wrapper ef "FLOWDG_ELEMENT_FLUXES=1"
wrapper ef0 "FLOWDG_ELEMENT_FLUXES=0"
wrapper tested "FLOWDG_RK_UPDATE=tested"
wrapper sw "FLOWDG_TENSOR_SWIZZLE=1"
wrapper sw0 "FLOWDG_TENSOR_SWIZZLE=0"
wrapper efs0 "FLOWDG_ELEMENT_FLUXES=1 FLOWDG_TRACE_BUFFER=0"
wrapper fpv "FLOWDG_TRACE_BUFFER=2 FLOWDG_TRACE_POINTS=1 FLOWDG_TENSOR_VARIANT=${FPV_VARIANT:-3}"
wrapper fnv "FLOWDG_TRACE_BUFFER=2 FLOWDG_TRACE_POINTS=0 FLOWDG_TENSOR_VARIANT=${FPV_VARIANT:-3}"
registers
[ -n "${DOUBLE3_BINS-x}" ] && ab p3_double 3 double ${DOUBLE3_BINS:-flowdg fp fn s0}
[ -n "${SINGLE3_BINS-x}" ] && ab p3_single 3 single ${SINGLE3_BINS:-flowdg fp fn}
[ -n "${DOUBLE4_BINS-x}" ] && ab p4_double 4 double ${DOUBLE4_BINS:-flowdg}
[ -n "${SINGLE4_BINS-x}" ] && ab p4_single 4 single ${SINGLE4_BINS:-flowdg}
kernel_times ${KERNEL_BINS-flowdg fp}
[ "${PROFILE:-0}" = 1 ] && profile_element ${PROFILE_PRECISION:-double} ${PROFILE_BINS:-flowdg fp}
summarize ${PROFILE_BINS:-flowdg fp}
