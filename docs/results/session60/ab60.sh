#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 60".)
# Session 60: the tensor-core element kernel in narrow blocks (FLOWDG_TENSOR_ROW_GROUPS=1: five warps a block
# of 8 elements, a warp a column tile; `narrow`) against the default's ten (`flowdg`) — double p = 3 (narrow
# takes the compact layout: five blocks of 40 KB an SM; `compact` is the default's ten warps in it, the
# control), float rows p = 3, double p = 4, float rows p = 4 (each entry skipped when its *_BINS is set empty). The final states compared with the first entry's (the same
# products in the same order: the same bits expected). REGISTERS=1: cuobjdump's registers and stack of the
# 3D tensor-core element kernels. PROFILE=1: ncu's samples per SASS instruction of one p = 3 double element
# kernel launch for PROFILE_BINS, summed between barriers (docs/results/session52/sass_phases.py).
# The second build's entries (call 4): `plain` the Runge-Kutta update without the coefficients' tests
# (FLOWDG_RK_UPDATE=plain), `tested` with them, `v34` phase 3's k range in five splits at p = 3
# (FLOWDG_TENSOR_VARIANT=34), `v34plain` both, `ten` float rows at p = 3 in ten-warp blocks (the default
# before: FLOWDG_TENSOR_ROW_GROUPS=2). The final build (call 11): `before` the session's start defaults
# (ten warps, the plain layout at double p = 3, the tested update).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
wrapper narrow "FLOWDG_TENSOR_ROW_GROUPS=1"
wrapper compact "FLOWDG_TENSOR_COMPACT=1"
wrapper plain "FLOWDG_RK_UPDATE=plain"
wrapper tested "FLOWDG_RK_UPDATE=tested"
wrapper v34 "FLOWDG_TENSOR_VARIANT=34"
wrapper v34plain "FLOWDG_TENSOR_VARIANT=34 FLOWDG_RK_UPDATE=plain"
wrapper ten "FLOWDG_TENSOR_ROW_GROUPS=2"
wrapper before "FLOWDG_TENSOR_ROW_GROUPS=2 FLOWDG_TENSOR_COMPACT=0 FLOWDG_RK_UPDATE=tested"
if [ "${REGISTERS:-1}" = 1 ]; then
  cuobjdump --dump-resource-usage .bundle/bin/flowdg > "$out/resource_usage.txt" 2>&1
  python3 docs/results/session52/kernel_registers.py "$out/resource_usage.txt" > "$out/registers.txt" 2>&1
fi
[ -n "${DOUBLE3_BINS-x}" ] && ab p3_double 3 double ${DOUBLE3_BINS:-flowdg narrow compact}
[ -n "${SINGLE3_BINS-x}" ] && ab p3_single 3 single ${SINGLE3_BINS:-flowdg narrow}
[ -n "${DOUBLE4_BINS-x}" ] && ab p4_double 4 double ${DOUBLE4_BINS:-flowdg narrow}
[ -n "${SINGLE4_BINS-x}" ] && ab p4_single 4 single ${SINGLE4_BINS:-flowdg narrow}
[ "${PROFILE:-0}" = 1 ] && profile_element double ${PROFILE_BINS:-flowdg narrow}
grep -h "round\|against" "$out"/ab_*.txt > "$out/summary.txt" 2>/dev/null
[ -f "$out/registers.txt" ] && grep "p=3\|p=4" "$out/registers.txt" | grep -v "^$" | tail -20 >> "$out/summary.txt"
[ "${PROFILE:-0}" = 1 ] && profile_summary ${PROFILE_BINS:-flowdg narrow} >> "$out/summary.txt"
echo "=== summary"; cat "$out/summary.txt"
