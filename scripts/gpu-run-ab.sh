#!/usr/bin/env bash
# A/B of two builds in one GPU call: the tuned 2D Euler kernels through `flowdg bench` (MESHES,
# ORDERS) and the user's path, `flowdg run` on the periodic isentropic vortex (RK4, Rusanov, about
# 800k perturbed triangles, RUN_ORDERS, RUN_STEPS steps), each binary twice, alternating. Expects
# .bundle (the new build) and .bundle-old (the baseline), both from scripts/make-bundle.sh.
set -uo pipefail
for b in .bundle .bundle-old; do [ -f $b/all.tar.xz ] && [ ! -x $b/run ] && tar xJf $b/all.tar.xz -C $b; done
out=${OUT:-/tmp/run-ab}; mkdir -p $out
vortex=(--set 'mesh.file="builtin:rectangle?nx=632&ny=632&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2"'
        --set 'time.scheme="rk4"' --set 'solver.flux="rusanov"' --set 'time.end_time=1000.0' --set "time.max_steps=${RUN_STEPS:-200}"
        --set 'output.vtu=false')
for round in 1 2; do
  for b in .bundle-old .bundle; do
    name=$([ $b = .bundle ] && echo new || echo old)
    if [ -n "${MESHES:-1M,4M}" ]; then
      timeout 200 $b/run flowdg bench --backend cuda --meshes ${MESHES:-1M,4M} --orders ${ORDERS:-1,2,3,4,5} --steps 0 \
        --output $out/bench_${name}_$round.json > $out/bench_${name}_$round.log 2>&1
      echo "bench $name round $round: exit $?"
      grep -E "^\| [A-Z0-9]+ " $out/bench_${name}_$round.log | awk -F'|' '{print $2,$4,$7}'
    fi
    for p in ${RUN_ORDERS:-1 2 3 4}; do
      for extra in ${RUN_VARIANTS:-default}; do
        set_extra=(); [ "$extra" != default ] && set_extra=(--set "$extra")
        [ $name = old ] && [ "$extra" != default ] && continue
        dir=$out/run_${name}_p${p}_$round$( [ "$extra" != default ] && echo _${extra//[^a-z0-9]/} )
        timeout 200 $b/run flowdg run examples/isentropic_vortex.toml --backend cuda --output $dir "${vortex[@]}" \
          --set solver.order=$p "${set_extra[@]}" > $dir.log 2>&1
        echo "run $name p=$p $extra round $round: exit $? $(grep -o '"throughput_dof_stage_per_second": [0-9.e+]*' $dir/summary.json)"
      done
    done
  done
done
