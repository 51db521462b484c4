#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 62".)
# Session 62: at p = 3, the face tensor kernel gathering the coefficients from their own rows with the faces
# in windows (`gw`: FLOWDG_TRACE_BUFFER=0 FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_ORDER=window — no element-major
# copy pass; `gw5`, `gw6` its blocks an SM, FLOWDG_FACE_TENSOR_BLOCKS) against the default (double: the
# copy and the face tensor kernel; float: the face sums) and the sums (`s0`); `sw0` the element kernel's
# rows unswizzled, `u0` phase 0's coefficient copies unswizzled (FLOWDG_TENSOR_SWIZZLE_U=0, second build).
# `b3` three blocks an SM (FLOWDG_TENSOR_BLOCKS=3); `r0` phase 3's A fragments in the ring of APrefetch
# slots (FLOWDG_TENSOR_RING=0; the default now APrefetch + 1 at p = 4); `pf` A prefetched where it is not by
# default (FLOWDG_TENSOR_PREFETCH=1: double p = 3, float rows p = 4, two steps ahead, the new ring) — both builds in
# ring_and_prefetch.patch; `us0` the update a thread an (element, mode) pair (FLOWDG_TENSOR_UPDATE_SPLIT=0, the
# third build; from the fourth FLOWDG_TENSOR_VARIANT=2: `v2`); `v74` the update two threads a pair and the splits'
# sums in it, `v194` two threads a pair and phase 0's plus sides kept for phase 2 (p = 3), `v151` the plus
# sides kept at p = 4 (on the committed build `us0`, `v74`, `v194`, `r0` and `pf` ask for what is no longer built:
# an InputError or the default shape; the patch and the call-11 build had them). Then ncu's per-launch times
# of one step for KERNEL_BINS at KERNEL_ORDER (scripts/tets-kernel-times.sh), and with PROFILE=1 ncu's
# samples of one element kernel launch at PROFILE_ORDER for PROFILE_BINS. Entries skipped
# where *_BINS is set empty; the final states compared with the first entry's.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper s0 "FLOWDG_TRACE_BUFFER=0"
wrapper gw "FLOWDG_TRACE_BUFFER=0 FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_ORDER=window"
wrapper gw5 "FLOWDG_TRACE_BUFFER=0 FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_ORDER=window FLOWDG_FACE_TENSOR_BLOCKS=5"
wrapper gw6 "FLOWDG_TRACE_BUFFER=0 FLOWDG_FACE_TENSOR=1 FLOWDG_FACE_ORDER=window FLOWDG_FACE_TENSOR_BLOCKS=6"
wrapper sw0 "FLOWDG_TENSOR_SWIZZLE=0"
wrapper u0 "FLOWDG_TENSOR_SWIZZLE_U=0"
wrapper b3 "FLOWDG_TENSOR_BLOCKS=3"
wrapper r0 "FLOWDG_TENSOR_RING=0"
wrapper pf "FLOWDG_TENSOR_PREFETCH=1"
wrapper us0 "FLOWDG_TENSOR_UPDATE_SPLIT=0"
wrapper v2 "FLOWDG_TENSOR_VARIANT=2"
wrapper v74 "FLOWDG_TENSOR_VARIANT=74"
wrapper v194 "FLOWDG_TENSOR_VARIANT=194"
wrapper v151 "FLOWDG_TENSOR_VARIANT=151"
wrapper v23 "FLOWDG_TENSOR_VARIANT=23"
registers
[ -n "${DOUBLE3_BINS-x}" ] && ab p3_double 3 double ${DOUBLE3_BINS:-flowdg gw gw6 s0}
[ -n "${SINGLE3_BINS-x}" ] && ab p3_single 3 single ${SINGLE3_BINS:-flowdg gw gw6}
[ -n "${DOUBLE4_BINS-x}" ] && ab p4_double 4 double ${DOUBLE4_BINS:-flowdg}
[ -n "${SINGLE4_BINS-x}" ] && ab p4_single 4 single ${SINGLE4_BINS:-flowdg}
kernel_times ${KERNEL_BINS-flowdg gw}
[ "${PROFILE:-0}" = 1 ] && profile_element ${PROFILE_PRECISION:-double} ${PROFILE_BINS:-flowdg}
summarize ${PROFILE_BINS:-flowdg}
