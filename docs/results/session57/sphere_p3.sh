#!/usr/bin/env bash
# (Run from the repository root on the GPU machine, the flowdg bundle carried: docs/validation.md, sphere.)
# Session 57: why the sphere at p = 3 does not reach a steady state (residual plateau 1-3e-4).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out/p3"
bash scripts/unpack-bundle.sh > /dev/null 2>&1 || true
export LD_LIBRARY_PATH=$PWD/.bundle/lib:${LD_LIBRARY_PATH:-}
LIMIT=${LIMIT:-65}
run() {
  name=$1; shift
  dir="$out/p3/$name"; mkdir -p "$dir"
  begin=$(date +%s)
  timeout -s TERM $LIMIT .bundle/run flowdg run examples/sphere.toml --backend cuda --set solver.order=${ORDER:-3} \
    --set time.local_time_step=true --set 'time.p_continuation=[]' --set time.residual_tolerance=1e-9 --set time.max_steps=2000000 \
    --set time.dt_every=20 --set time.residual_every=50 --set time.progress_every=1000000 --set output.vtu=false \
    --set output.directory="\"$dir\"" "$@" > "$dir/run.log" 2>&1
  code=$?
  rm -f "$dir/checkpoint.h5"
  echo "$name: exit $code $(( $(date +%s) - begin )) s | $(grep -o 'entropy error[^:]*: [0-9.e+-]*' "$dir/run.log" | tail -1) | $(tail -1 "$dir/residuals.csv" 2>/dev/null)" | tee -a "$out/summary.txt"
  # residual minimum and the last 20,000 steps' range
  awk -F, 'NR>1 {n++; r[n]=$3; if (min=="" || $3<min) {min=$3; at=$1}} END {lo=1e9; hi=0; for (i=(n>400?n-400:1); i<=n; i++) {if (r[i]<lo) lo=r[i]; if (r[i]>hi) hi=r[i]}; print "   rho residual: min " min " at step " at ", last 400 lines in [" lo ", " hi "]"}' "$dir/residuals.csv" | tee -a "$out/summary.txt"
}
run base
run geom4 --set mesh.curve.order=4
run quad2p2 --set 'solver.volume_quadrature="2p+2"'
run hllc --set 'solver.flux="hllc"'
run straight --set mesh.curve.order=1
run global --set time.local_time_step=false
tar czf "$out/p3_residuals.tgz" -C "$out" p3
rm -rf "$out/p3"
cat "$out/summary.txt"
