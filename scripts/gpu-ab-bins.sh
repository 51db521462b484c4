#!/usr/bin/env bash
# A/B of flowdg binaries in one GPU call, through `flowdg run` (the user's path): .bundle holds
# the new build as bin/flowdg and the baseline as bin/flowdg_A (bundle-libs of the new one, the old
# binary copied beside it); BINS names others (default "flowdg_A flowdg"). Build each with
# `ninja flowdg_cli` (bin/flowdg's target; `ninja flowdg` builds only the library).
# TET_ORDERS: 998k affine tetrahedra (the 3D vortex, RK4, automatic kernels, TET_STEPS = 20 steps, PRECISION;
# TET_CASE=periodic: examples/vortex3d_periodic_tetrahedra.toml, issue 16's case as the issue states it — periodic in
# x, y and z, the cubes' inner nodes perturbed by 0.2 of a side; else examples/vortex3d_tetrahedra.toml, the exact state
# prescribed on the x and y faces, the cubes unperturbed, the case sessions 39-64 measured;
# TET_N=40: issue 16's 384,000 for p = 3, 4; TET_FLUX: the numerical flux (default hllc, the example's; issue 16's
# measure is rusanov); SAME_BITS=1: the last round's final states of the first two
# BINS compared bit for bit (tetrahedra, triangles, Navier-Stokes): the bundle needs flowdg_checkpoint_diff, `make-bundle.sh build
# build/bin/flowdg_checkpoint_diff`);
# TRI_ORDERS: 798,848 perturbed periodic triangles (the isentropic vortex, RK4, Rusanov, 200
# steps); NS_TRI_ORDERS / NS_QUAD_ORDERS: the viscous vortex (examples/vortex_navier_stokes.toml, RK4,
# Rusanov + BR2, 20 steps) on 798,848 perturbed triangles / 640,000 perturbed quadrilaterals, as
# gpu-session.sh's NS_THROUGHPUT; ROUNDS rounds, the binaries alternating.
# A BINS entry BIN@FACE runs binary BIN with solver.face_kernel = FACE (one binary's kernels against
# each other: BINS="flowdg@block flowdg@chunked"); BIN@FACE@ELEMENT also sets solver.element_kernel
# (FACE may be empty: BINS="flowdg@@block flowdg@@tensor"); BIN@FACE@ELEMENT@LIFTING also sets solver.lifting_kernel
# (BINS="flowdg@@block@block flowdg@@block@tensor"). Each entry may end in +KEY=VALUE settings (flowdg run --set),
# e.g. BINS="flowdg flowdg+solver.chained_launches=false".
set -uo pipefail
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1  # the bundle (split or whole) unpacked
out=${OUT:-/tmp/ab}; mkdir -p $out/logs
n=${TET_N:-55}
if [ "${TET_CASE:-prescribed}" = periodic ]; then  # issue 16's case: periodic in x, y, z, perturbed Kuhn cubes
  tet_case=examples/vortex3d_periodic_tetrahedra.toml
  tets=(--set "mesh.file=\"builtin:box?lx=10&ly=10&lz=10&nx=$n&ny=$n&nz=$n&perturbation=0.2\"")
else
  tet_case=examples/vortex3d_tetrahedra.toml
  tets=(--set "mesh.file=\"builtin:box?lx=6&ly=6&lz=6&nx=$n&ny=$n&nz=$n\"" --set 'boundary.zmin.translation=[0.0,0.0,6.0]')
fi
tets+=(--set "solver.precision=\"${PRECISION:-double}\"" --set "solver.flux=\"${TET_FLUX:-hllc}\"" --set time.max_steps=${TET_STEPS:-20} --set time.end_time=100.0 --set output.vtu=false)
tris=(--set 'mesh.file="builtin:rectangle?nx=632&ny=632&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2"'
      --set 'time.scheme="rk4"' --set 'solver.flux="rusanov"' --set 'time.end_time=1000.0' --set time.max_steps=200 --set output.vtu=false)
ns_tri='builtin:rectangle?nx=632&ny=632&x0=-10&x1=10&y0=-10&y1=10&perturbation=0.2'
ns_quad='builtin:rectangle?nx=800&ny=800&x0=-10&x1=10&y0=-10&y1=10&cells=quadrilaterals&perturbation=0.2'
throughput() { grep -o '"throughput_dof_stage_per_second": [0-9.e+]*' $1/summary.json | awk '{print $2}'; }
for round in $(seq 1 ${ROUNDS:-2}); do
  for entry in ${BINS:-flowdg_A flowdg}; do
    face=(); spec=${entry%%+*}
    if [ "$spec" != "$entry" ]; then IFS=+ read -ra sets <<< "${entry#*+}"; for s in "${sets[@]}"; do face+=(--set "$s"); done; fi
    bin=${spec%%@*}; rest=${spec#"$bin"}; rest=${rest#@}
    kind_face=${rest%%@*}; kind_element=""; [ "$rest" != "$kind_face" ] && kind_element=${rest#*@}
    kind_lifting=""; [ "$kind_element" != "${kind_element%%@*}" ] && kind_lifting=${kind_element#*@} && kind_element=${kind_element%%@*}
    [ -n "$kind_face" ] && face+=(--set "solver.face_kernel=\"$kind_face\"")
    [ -n "$kind_element" ] && face+=(--set "solver.element_kernel=\"$kind_element\"")
    [ -n "$kind_lifting" ] && face+=(--set "solver.lifting_kernel=\"$kind_lifting\"")
    name=${entry//@/_}; name=${name//[+=.\"]/_}
    for p in ${TET_ORDERS:-}; do
      d=/tmp/ab_${name}_tet$p; timeout 120 .bundle/run $bin run $tet_case --backend cuda "${tets[@]}" \
        "${face[@]}" --set solver.order=$p --output $d > $out/logs/${name}_tet${p}_$round.log 2>&1
      echo "tets p=$p $entry round $round: exit $? $(throughput $d)"
    done
    for p in ${TRI_ORDERS:-}; do
      d=/tmp/ab_${name}_tri$p; timeout 120 .bundle/run $bin run examples/isentropic_vortex.toml --backend cuda "${tris[@]}" \
        "${face[@]}" --set solver.order=$p --output $d > $out/logs/${name}_tri${p}_$round.log 2>&1
      echo "tris p=$p $entry round $round: exit $? $(throughput $d)"
    done
    for mesh in tri quad; do
      orders=NS_${mesh^^}_ORDERS
      for p in ${!orders:-}; do
        file=ns_$mesh; d=/tmp/ab_${name}_ns_$mesh$p
        timeout 200 .bundle/run $bin run examples/vortex_navier_stokes.toml --backend cuda --set "mesh.file=\"${!file}\"" \
          "${face[@]}" --set solver.order=$p --set time.max_steps=20 --set time.end_time=100.0 --set output.vtu=false --output $d \
          > $out/logs/${name}_ns_$mesh${p}_$round.log 2>&1
        echo "navier-stokes $mesh p=$p $entry round $round: exit $? $(throughput $d)"
      done
    done
  done
done
if [ "${SAME_BITS:-0}" = 1 ]; then
  set -- ${BINS:-flowdg_A flowdg}
  a=${1//@/_}; a=${a//[+=.\"]/_}; b=${2//@/_}; b=${b//[+=.\"]/_}  # the runs' directory names (as above)
  for p in ${TET_ORDERS:-}; do
    echo "tets p=$p, $1 against $2: $(.bundle/run flowdg_checkpoint_diff /tmp/ab_${a}_tet$p/checkpoint.h5 /tmp/ab_${b}_tet$p/checkpoint.h5 2>&1)"
  done
  for p in ${TRI_ORDERS:-}; do
    echo "tris p=$p, $1 against $2: $(.bundle/run flowdg_checkpoint_diff /tmp/ab_${a}_tri$p/checkpoint.h5 /tmp/ab_${b}_tri$p/checkpoint.h5 2>&1)"
  done
  for mesh in tri quad; do
    orders=NS_${mesh^^}_ORDERS
    for p in ${!orders:-}; do
      echo "navier-stokes $mesh p=$p, $1 against $2: $(.bundle/run flowdg_checkpoint_diff /tmp/ab_${a}_ns_$mesh$p/checkpoint.h5 /tmp/ab_${b}_ns_$mesh$p/checkpoint.h5 2>&1)"
    done
  done
fi
