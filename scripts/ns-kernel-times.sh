#!/usr/bin/env bash
# Per-kernel time T_k of the Navier-Stokes operator (issue 15 item 8, the paper's Table 6) on the GPU
# machine (NS_SET="solver.element_kernel='\"tensor\"'" adds --set options; NS_MESHES=tri|quad|both): ncu's gpu__time_duration of every launch of a 2-step `flowdg run` of the viscous vortex
# (RK4, Rusanov + BR2), mean per launch by kernel, for the meshes and orders of NS_THROUGHPUT (BIN: another binary of .bundle/bin)
# (scripts/gpu-session.sh). Usage (bundle unpacked): scripts/ns-kernel-times.sh [orders] > table.txt
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.bundle/lib
tri='builtin:rectangle?nx=632&ny=632&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2'
quad='builtin:rectangle?nx=800&ny=800&x0=-10&x1=10&y0=-10&y1=10&cells=quadrilaterals&perturbation=0.2'
meshes=("$tri" "$quad"); [ "${NS_MESHES:-both}" = tri ] && meshes=("$tri"); [ "${NS_MESHES:-both}" = quad ] && meshes=("$quad")
extra=(); for s in ${NS_SET:-}; do extra+=(--set "$s"); done
for mesh in "${meshes[@]}"; do
  for p in ${1:-1 2 3 4}; do
    name=$(echo "$mesh" | grep -q quadrilaterals && echo quadrilaterals || echo triangles)
    timeout 120 ncu --metrics gpu__time_duration.sum --csv .bundle/bin/${BIN:-flowdg} run examples/vortex_navier_stokes.toml --backend cuda \
      --set "mesh.file=\"$mesh\"" --set solver.order=$p --set time.max_steps=2 --set time.end_time=100.0 \
      --set output.directory='"/tmp/flowdg-ns-kernels"' --set output.vtu=false "${extra[@]}" 2>/dev/null | grep '^"' |
      python3 -c "
import csv, sys, collections, re
times = collections.defaultdict(list)
for row in csv.DictReader(sys.stdin):
    if row['Metric Name'] != 'gpu__time_duration.sum': continue
    name = row['Kernel Name']
    short = re.sub(r'<.*', '', name.split('(')[0]).split('::')[-1].replace('void ', '')
    if 'for_each' in short: short = 'for_each: ' + re.sub(r'.*?dg::([A-Za-z]+Kernel).*', r'\1', name)
    value = float(row['Metric Value'].replace(',', ''))
    unit = row['Metric Unit']
    times[short].append(value * {'nsecond': 1e-6, 'usecond': 1e-3, 'msecond': 1.0}.get(unit, 1e-6))
print('$name p=$p: ' + ' | '.join(f'{k} {sum(v)/len(v):.3f} ms x{len(v)}' for k, v in times.items()))
"
  done
done
