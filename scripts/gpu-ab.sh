#!/usr/bin/env bash
# A/B of the CUDA kernel variants (sessions 4, 5): gpu tests of the 2D Euler solver, then
# flowdg bench with each element,face[,launches] choice of COMBOS on MESHES (default mesh F and
# 1M triangles); launches is chained (programmatic dependent launches, the default) or plain.
set -uo pipefail
# A bundle carried compressed (scripts/make-bundle.sh) is unpacked first.
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1  # the bundle (split or whole) unpacked
out=${OUT:-/tmp/ab}; mkdir -p $out
if [ "${TESTS:-1}" = 1 ]; then
  timeout 200 .bundle/run flowdg_gpu_tests --gtest_filter='GpuEuler2d.*' > $out/gpu_tests.log 2>&1
  echo "gpu tests exit $? $(grep -E '^\[  (PASSED|FAILED) ' $out/gpu_tests.log | tr '\n' ' ')"
  grep -E "FAILED|Failure" $out/gpu_tests.log | head -20
fi
for combo in ${COMBOS:-auto,auto,plain auto,auto,chained}; do
  IFS=, read -r e f l <<< "$combo"; l=${l:-chained}
  name=ab_${e}_${f}_$l
  timeout 150 .bundle/run flowdg bench --backend cuda --meshes ${MESHES:-F,1M} --orders ${ORDERS:-1,2,3,4,5} --steps 0 --kernels $e --faces $f \
    --launches $l ${REORDER:+--reorder $REORDER} --output $out/$name.json > $out/$name.log 2>&1
  echo "== element $e faces $f launches $l: exit $?"
  grep -E "^\| [A-Z0-9]+ " $out/$name.log | awk -F'|' '{print $2,$4,$7,$10}'
done
if [ -n "${MESH_ORDER:-}" ]; then
  timeout 150 .bundle/run flowdg bench --backend cuda --meshes ${MESHES:-F,1M} --orders ${ORDERS:-1,2,3,4,5} --steps 0 \
    --kernels $MESH_ORDER --faces point --face-order mesh --output $out/ab_mesh_order.json > $out/ab_mesh_order.log 2>&1
  echo "== element $MESH_ORDER faces point, mesh face order: exit $?"
  grep -E "^\| [A-Z0-9]+ " $out/ab_mesh_order.log | awk -F'|' '{print $2,$4,$7,$10}'
fi
