#!/usr/bin/env bash
# The penalty-constant table of docs/validation.md (issue 18 item 3): L2 and DG errors of 2D and 3D Poisson
# against C_sigma, sparse LU on the CPU. Usage: scripts/sipg-penalty-study.sh [flowdg program] > penalty.txt
set -uo pipefail
flowdg=${1:-build/bin/flowdg}
for C in 0.5 1 2 3 5 10 30; do
  for p in 1 2 3; do
    "$flowdg" run examples/poly/poisson.toml --backend cpu --set 'mesh.file="builtin:rectangle?nx=256&ny=256&perturbation=0.2"' \
      --set mesh.agglomerate=2000 --set solver.degree=$p --set solver.penalty=$C --set output.vtu=false --output ${TMPDIR:-/tmp}/flowdg-penalty > ${TMPDIR:-/tmp}/flowdg-penalty.log 2>&1
    echo "2D C=$C p=$p exit=$? $(python3 -c "import json; s=json.load(open('${TMPDIR:-/tmp}/flowdg-penalty/summary.json')); print(s['errors']['l2'], s['errors']['dg'])")"
  done
  for p in 1 2; do
    "$flowdg" run examples/poly/poisson3d.toml --backend cpu --set 'mesh.file="builtin:box?n=16"' \
      --set mesh.agglomerate=768 --set solver.degree=$p --set solver.penalty=$C --set output.vtu=false --output ${TMPDIR:-/tmp}/flowdg-penalty > ${TMPDIR:-/tmp}/flowdg-penalty.log 2>&1
    echo "3D C=$C p=$p exit=$? $(python3 -c "import json; s=json.load(open('${TMPDIR:-/tmp}/flowdg-penalty/summary.json')); print(s['errors']['l2'], s['errors']['dg'])")"
  done
done
