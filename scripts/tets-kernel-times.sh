#!/usr/bin/env bash
# Per-launch time and DRAM bytes of the 3D Euler path on tetrahedra (issue 16 item 7) on the GPU
# machine: ncu's gpu__time_duration, dram__bytes and registers of every launch of a 1-step `flowdg
# run` of the 3D vortex (RK4, Rusanov, automatic kernels) — 998,250 tetrahedra (n = 55) or 384,000
# (n = 40). Usage (bundle unpacked): scripts/tets-kernel-times.sh ["p n precision" ...] > table.txt;
# default "1 55 double" "2 55 double" "3 40 double" "4 40 double". TETS_SET: more --set options
# (e.g. TETS_SET="solver.face_kernel=\"block\""); BIN: another binary of .bundle/bin. Raw CSVs under $OUT.
set -uo pipefail
out=${OUT:-/tmp/flowdg-tets-ncu}; mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.bundle/lib  # the binary itself, not the run wrapper, under ncu
extra=(); for s in ${TETS_SET:-}; do extra+=(--set "$s"); done
[ $# -eq 0 ] && set -- "1 55 double" "2 55 double" "3 40 double" "4 40 double"
for spec in "$@"; do
  read -r p n precision <<< "$spec"
  csv=$out/ncu_p${p}_n${n}_$precision.csv
  timeout 200 ncu --metrics gpu__time_duration.sum,launch__registers_per_thread,dram__bytes.sum --csv \
    .bundle/bin/${BIN:-flowdg} run examples/vortex3d_tetrahedra.toml --backend cuda --set "mesh.file=\"builtin:box?lx=6&ly=6&lz=6&nx=$n&ny=$n&nz=$n\"" \
    --set 'boundary.zmin.translation=[0.0,0.0,6.0]' --set 'solver.flux="rusanov"' --set time.max_steps=1 --set time.end_time=100.0 \
    --set output.vtu=false --set solver.order=$p --set "solver.precision=\"$precision\"" "${extra[@]}" --output /tmp/flowdg-tets-ncu-run > "$csv" 2> "${csv%.csv}.err"
  echo "p = $p, $precision, n = $n: ncu exit $?"
  grep '^"' "$csv" | python3 -c "
import csv, sys
rows = {}
for r in csv.DictReader(sys.stdin):
    key = (int(r['ID']), r['Kernel Name'].split('(')[0].replace('void ', '')[:80], r.get('Grid Size', ''))
    rows.setdefault(key, {})[r['Metric Name']] = (float(r['Metric Value'].replace(',', '')), r['Metric Unit'])
scale = {'nsecond': 1e-6, 'usecond': 1e-3, 'msecond': 1.0}
bytes_ = {'byte': 1, 'Kbyte': 1e3, 'Mbyte': 1e6, 'Gbyte': 1e9}
for (i, name, grid), m in sorted(rows.items()):
    t = m['gpu__time_duration.sum'][0] * scale.get(m['gpu__time_duration.sum'][1], 1e-6)
    d = m['dram__bytes.sum'][0] * bytes_.get(m['dram__bytes.sum'][1], 1)
    print(f'  launch {i:2d} grid {grid:14s} {t:7.3f} ms  DRAM {d / 1e6:8.1f} MB {d / t / 1e9 if t else 0:5.2f} TB/s  regs {m[\"launch__registers_per_thread\"][0]:.0f}  {name}')
"
done
