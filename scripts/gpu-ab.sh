#!/usr/bin/env bash
# A/B of the CUDA kernel variants (session 4): gpu tests of the 2D Euler solver, then
# flowdg bench with each element/face kernel pair on mesh F and 1M triangles.
set -uo pipefail
out=${OUT:-/tmp/ab}; mkdir -p $out
if [ "${TESTS:-1}" = 1 ]; then
  timeout 200 .bundle/run flowdg_gpu_tests --gtest_filter='GpuEuler2d.*' > $out/gpu_tests.log 2>&1
  echo "gpu tests exit $? $(grep -E '^\[  (PASSED|FAILED) ' $out/gpu_tests.log | tr '\n' ' ')"
  grep -E "FAILED|Failure" $out/gpu_tests.log | head -20
fi
for combo in ${COMBOS:-block,point tensor,point block,block tensor,block}; do
  e=${combo%,*}; f=${combo#*,}
  timeout 150 .bundle/run flowdg bench --backend cuda --meshes ${MESHES:-F,1M} --orders ${ORDERS:-1,2,3,4,5} --steps 0 --kernels $e --faces $f \
    --output $out/ab_${e}_$f.json > $out/ab_${e}_$f.log 2>&1
  echo "== element $e faces $f: exit $?"
  grep -E "^\| [A-Z0-9]+ " $out/ab_${e}_$f.log | awk -F'|' '{print $2,$4,$7,$10}'
done
if [ -n "${MESH_ORDER:-}" ]; then
  timeout 150 .bundle/run flowdg bench --backend cuda --meshes ${MESHES:-F,1M} --orders ${ORDERS:-1,2,3,4,5} --steps 0 \
    --kernels $MESH_ORDER --faces point --face-order mesh --output $out/ab_mesh_order.json > $out/ab_mesh_order.log 2>&1
  echo "== element $MESH_ORDER faces point, mesh face order: exit $?"
  grep -E "^\| [A-Z0-9]+ " $out/ab_mesh_order.log | awk -F'|' '{print $2,$4,$7,$10}'
fi
