#!/usr/bin/env bash
# The sum-factorised kernels' blocks (dg/factorised_kernels.hpp) swept in one GPU call: the viscous
# vortex (examples/vortex_navier_stokes.toml, RK4, Rusanov + BR2, 20 steps) on 640,000 perturbed
# quadrilaterals through `flowdg run`, for each order of SWEEP_ORDERS (default 2 3 4) and each block
# of SWEEP_BLOCKS ("E_element,threads_element,E_lifting,threads_lifting", FLOWDG_FACTORISED_BLOCK;
# "default" for the operator's own choice), ROUNDS rounds alternating. Prints DOF-stage updates/s.
# SWEEP_FACES instead sweeps the face kernel: entries "automatic", "point", "block" (solver.face_kernel)
# or "factorised:Fb" (the factorised face kernel with Fb faces a block, FLOWDG_FACTORISED_FACES;
# "factorised" alone its default).
set -uo pipefail
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1
quad='builtin:rectangle?nx=800&ny=800&x0=-10&x1=10&y0=-10&y1=10&cells=quadrilaterals&perturbation=0.2'
out=${OUT:-/tmp/sweep}; mkdir -p $out
run() {  # run <p> <label> <env assignments...> -- <extra flowdg args...>
  local p=$1 label=$2; shift 2
  local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local d=/tmp/sweep_${p}_${label//[,:]/_}
  env "${envs[@]}" timeout 120 .bundle/run ${BIN:-flowdg} run examples/vortex_navier_stokes.toml --backend cuda \
    --set "mesh.file=\"$quad\"" --set solver.order=$p --set time.max_steps=20 --set time.end_time=100.0 \
    --set output.vtu=false --output $d "$@" > $out/p${p}_${label//[,:]/_}_$round.log 2>&1
  local rc=$?
  echo "p=$p $label round $round: exit $rc $(grep -o '"throughput_dof_stage_per_second": [0-9.e+]*' $d/summary.json 2>/dev/null | awk '{print $2}')"
}
for round in $(seq 1 ${ROUNDS:-1}); do
  for p in ${SWEEP_ORDERS:-2 3 4}; do
    if [ -n "${SWEEP_FACES:-}" ]; then
      for faces in $SWEEP_FACES; do
        kind=${faces%%:*}; fb=""; [ "$kind" != "$faces" ] && fb=${faces#*:}
        run $p "faces=$faces" FLOWDG_FACTORISED_FACES=$fb -- --set "solver.face_kernel=\"$kind\""
      done
      continue
    fi
    for block in ${SWEEP_BLOCKS:-default}; do
      value=$block; [ "$block" = default ] && value=""
      run $p "block=$block" FLOWDG_FACTORISED_BLOCK=$value --
    done
  done
done
