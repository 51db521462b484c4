#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/performance.md "Session 64".)
# Session 64, call 1: where double p = 3's stage time goes outside the kernels. `flowdg run` of the 3D vortex
# (384,000 tetrahedra, RK4, Rusanov) at 20 steps (issue 16's measure) against 100 steps, and 100 steps with the
# CFL step computed once (time.dt_every = 100: no per-step read-back); ncu's per-launch times of two steps at the
# GPU's own clocks (--clock-control none) to set beside the wall time per stage; then (PROFILE=1) the element
# kernel's samples by phase.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash scripts/unpack-bundle.sh || exit 1
source scripts/ab-env-lib.sh
[ -n "${DOUBLE3_BINS-x}" ] && ab p3_double 3 double ${DOUBLE3_BINS:-flowdg flowdg+time.max_steps=100 flowdg+time.max_steps=100+time.dt_every=100}
[ -n "${DOUBLE4_BINS-x}" ] && ab p4_double 4 double ${DOUBLE4_BINS:-flowdg flowdg+time.max_steps=100}
export LD_LIBRARY_PATH=$PWD/.bundle/lib
for p in ${CLOCK_ORDERS-3}; do
  timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum --csv .bundle/bin/flowdg run examples/vortex3d_tetrahedra.toml --backend cuda \
    --set 'mesh.file="builtin:box?lx=6&ly=6&lz=6&nx=40&ny=40&nz=40"' --set 'boundary.zmin.translation=[0.0,0.0,6.0]' --set 'solver.flux="rusanov"' \
    --set time.max_steps=3 --set time.end_time=100.0 --set output.vtu=false --set solver.order=$p --output /tmp/clock_run > "$out/clock_p$p.csv" 2> "$out/clock_p$p.err"
  echo "clock p=$p: ncu exit $?"
  grep '^"' "$out/clock_p$p.csv" | python3 -c "
import csv, sys, collections
t = collections.OrderedDict()
for r in csv.DictReader(sys.stdin):
    name = r['Kernel Name'].split('(')[0].replace('void ', '')[:60]
    s = {'ns': 1e-6, 'us': 1e-3, 'ms': 1.0}[r['Metric Unit']] * float(r['Metric Value'].replace(',', ''))
    t.setdefault(name, []).append(s)
for name, v in t.items(): print(f'  {len(v):3d} launches {sum(v):8.3f} ms (last 10: {sum(v[-10:]):.3f})  {name}')
" | tee "$out/clock_p$p.txt"
done
unset LD_LIBRARY_PATH
[ "${PROFILE:-0}" = 1 ] && PROFILE_ORDER=3 profile_element double flowdg
summarize flowdg
(cd "$out" && tar czf logs.tgz --remove-files $(ls | grep -v '^summary.txt$\|^ab_.*\.txt$\|^clock_p.\.txt$\|^logs.tgz$'))
