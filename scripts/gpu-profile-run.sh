#!/usr/bin/env bash
# Where a `flowdg run` step's time goes on the GPU: the run's throughput, the tuned kernels' own rate
# (`flowdg bench` with the same scheme), and a kernel timeline (nsys when present, else ncu with
# the clocks and caches left alone) of a few steps. Logs under $OUT; a summary printed last.
set -uo pipefail
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1  # the bundle (split or whole) unpacked
out=${OUT:-/tmp/profile-run}; mkdir -p $out
ORDERS=${ORDERS:-1 3}
vortex=(--set 'mesh.file="builtin:rectangle?nx=632&ny=632&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2"'
        --set 'time.scheme="rk4"' --set 'solver.flux="rusanov"' --set 'time.end_time=1000.0'
        --set 'output.vtu=false' --set 'time.dt_every=10')
summary=$out/summary.txt; : > $summary
echo "nsys: $(command -v nsys || ls /usr/local/cuda*/bin/nsys 2>/dev/null | head -1 || echo none)" | tee -a $summary
for p in $ORDERS; do
  .bundle/run flowdg run examples/isentropic_vortex.toml --backend cuda --output $out/run_p$p "${vortex[@]}" \
    --set solver.order=$p --set time.max_steps=${STEPS:-200} > $out/run_p$p.log 2>&1
  echo "run p=$p: $(grep -o '"throughput_dof_stage_per_second": [0-9.e+]*' $out/run_p$p/summary.json) $(grep -o '"stepping_seconds": [0-9.e+]*' $out/run_p$p/summary.json)" | tee -a $summary
done
.bundle/run flowdg bench --backend cuda --meshes 1M --orders ${ORDERS// /,} --scheme rk4 --steps 0 > $out/bench_rk4.log 2>&1
grep -E "^\| [A-Z0-9]+ " $out/bench_rk4.log | tee -a $summary
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys 2>/dev/null | head -1)
for p in $ORDERS; do
  if [ -n "$NSYS" ]; then
    $NSYS profile -o $out/nsys_p$p --force-overwrite true --trace cuda .bundle/run flowdg run examples/isentropic_vortex.toml \
      --backend cuda --output $out/nsys_run_p$p "${vortex[@]}" --set solver.order=$p --set time.max_steps=40 > $out/nsys_p$p.log 2>&1
    $NSYS stats --report cuda_gpu_kern_sum,cuda_api_sum --format csv -o $out/stats_p$p $out/nsys_p$p.nsys-rep > /dev/null 2>&1
    $NSYS stats --report cuda_gpu_trace --format csv $out/nsys_p$p.nsys-rep 2>/dev/null | tail -60 > $out/trace_p$p.csv
    echo "== p=$p kernels" >> $summary; head -12 $out/stats_p${p}_cuda_gpu_kern_sum.csv >> $summary 2>/dev/null
    echo "== p=$p api" >> $summary; head -12 $out/stats_p${p}_cuda_api_sum.csv >> $summary 2>/dev/null
    echo "== p=$p trace tail" >> $summary; tail -25 $out/trace_p$p.csv | cut -c1-160 >> $summary
  fi
done
echo "===== summary"; cat $summary
