#!/usr/bin/env bash
# The polytopic SIPG assembly tables on the GPU machine (issue 18 items 4, 7, 8; docs/performance.md):
#   1. the paper's Tables 1-2 analogue: per-kernel ms per million unknowns, pattern / index time and
#      the whole assembly, p = 1..4, double and single, the three ways, on perturbed squares of
#      triangles used as elements (500,000 triangles for p = 1, 2; 125,000 for p = 3, 4);
#   2. the agglomeration study (Tables 4-5 analogue): the oscillating-boundary mesh of ~500,000
#      triangles (examples/poly/make_meshes.sh) as is and agglomerated by METIS into 126,000 and
#      8,300 elements, p = 1, showing Approach 1's duplicates grow with agglomeration.
# Expects NO_TESTS=1 scripts/make-bundle.sh build, and the large mesh compressed as
# .bundle/oscillating_large.msh.xz (xz -c out/poly/oscillating_large.msh) or, when the bundle and the
# mesh exceed the carry limit together, out/oscillating_large.msh.xz carried by an earlier call to the
# same (warm) machine. PARTS=tables,study,verify3d,run picks (default tables,study).
# Logs and JSON under $OUT, a summary last.
set -uo pipefail
bash "$(dirname "$0")/unpack-bundle.sh" || exit 1  # the bundle (split or whole) unpacked
out=${OUT:-/tmp/flowdg-sipg}
mkdir -p "$out/logs"
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
parts=${PARTS:-tables,study}
repeat=${REPEAT:-3}
note "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); commit $(cat .bundle/COMMIT 2>/dev/null || echo '?')"
bench() {  # bench NAME MESH [bench-sipg options...]
  local name=$1 mesh=$2
  shift 2
  timeout "${LIMIT:-240}" .bundle/run flowdg bench-sipg "$mesh" --backend cuda --repeat "$repeat" --output "$out/$name.json" "$@" \
    > "$out/logs/$name.log" 2>&1
  note "$name: exit $?"
  sed -n '/^bench-sipg:/p;/^SIPG assembly/,$p' "$out/logs/$name.log" | grep -v "^  p = " | tee -a "$summary"
}
if [[ $parts == *tables* ]]; then
  bench square500k 'builtin:rectangle?nx=500&ny=500&perturbation=0.2' --degrees 1,2
  bench square125k 'builtin:rectangle?nx=250&ny=250&perturbation=0.2' --degrees 3,4
fi
if [[ $parts == *study* ]]; then
  # the mesh rides in the bundle, or (the carry limit) in an earlier call's out/ on the same machine
  study=.bundle/oscillating_large.msh.xz
  [ -f "$study" ] || study=out/oscillating_large.msh.xz
  if [ -f "$study" ]; then
    xz -dc "$study" > /tmp/oscillating_large.msh
    bench oscillating_as_is /tmp/oscillating_large.msh --degrees 1
    bench oscillating_126000 /tmp/oscillating_large.msh --agglomerate 126000 --degrees 1
    bench oscillating_8300 /tmp/oscillating_large.msh --agglomerate 8300 --degrees 1
  else
    note "study: no oscillating_large.msh.xz in .bundle/ or out/"
  fi
fi
# 3. verify3d: 3D Poisson on METIS agglomerates of 32 tetrahedra each (box n = 8, 16, 32: 96, 768 and
#    6,144 elements), p = 1..3, solved by CG with block Jacobi on the device (tools/sipg_convergence.py;
#    docs/validation.md). Needs python3 on the machine.
if [[ $parts == *verify3d* ]]; then
  timeout "${VERIFY_LIMIT:-400}" python3 tools/sipg_convergence.py --flowdg '.bundle/run flowdg' --backend cuda \
    --case examples/poly/poisson3d.toml --set solver.linear_solver=cg --set solver.tolerance=1e-10 --set solver.max_iterations=40000 \
    --mesh-per-count '96=builtin:box?n=8,768=builtin:box?n=16,6144=builtin:box?n=32' --agglomerates 96,768,6144 \
    --degrees 1,2,3 --work "$out/verify3d" --output "$out/verify3d_poisson.md" --title "3D Poisson" > "$out/logs/verify3d.log" 2>&1
  note "verify3d: exit $?"
  tail -8 "$out/logs/verify3d.log" | tee -a "$summary"
  rm -rf "$out/verify3d"/*/solution*.vtu
fi
# 3b. verify2d: the four built-in 2D problems on 500 / 2,000 / 8,000 METIS agglomerates of 128^2, 256^2
#    and 512^2 x 2 perturbed triangles (about 65 each), p = 1..4, the four side by side (assembly on the
#    device, Eigen's sparse LU on the host: up to 120,000 unknowns).
if [[ $parts == *verify2d* ]]; then
  meshes='500=builtin:rectangle?nx=128&ny=128&perturbation=0.2,2000=builtin:rectangle?nx=256&ny=256&perturbation=0.2,8000=builtin:rectangle?nx=512&ny=512&perturbation=0.2'
  for problem in poisson advection-diffusion-reaction hyperbolic degenerate; do
    timeout "${VERIFY_LIMIT:-400}" python3 tools/sipg_convergence.py --flowdg '.bundle/run flowdg' --backend cuda \
      --case examples/poly/poisson.toml --set problem.type=$problem --mesh-per-count "$meshes" --agglomerates 500,2000,8000 \
      --degrees 1,2,3,4 --work "$out/verify2d_$problem" --output "$out/verify2d_$problem.md" --title "2D $problem" \
      > "$out/logs/verify2d_$problem.log" 2>&1 &
  done
  wait
  for problem in poisson advection-diffusion-reaction hyperbolic degenerate; do
    note "verify2d $problem: $(tail -1 "$out/logs/verify2d_$problem.log" | head -c 0)"
    tail -6 "$out/logs/verify2d_$problem.log" | tee -a "$summary"
  done
fi
# 4. run: flowdg run of a SIPG case as a user runs it, on the device: 1.5M unknowns at p = 1
#    (500 x 500 x 2 triangles as elements: pattern, assembly, CG with block Jacobi, errors, files).
if [[ $parts == *run* ]]; then
  timeout 200 .bundle/run flowdg run examples/poly/poisson.toml --backend cuda --set 'mesh.file="builtin:rectangle?nx=500&ny=500&perturbation=0.2"' \
    --set mesh.agglomerate=0 --set solver.degree=1 --set solver.linear_solver=cg --set solver.tolerance=1e-8 --set solver.max_iterations=20000 \
    --set output.vtu=false --output "$out/run_1p5M" > "$out/logs/run_1p5M.log" 2>&1
  note "run 1.5M unknowns p = 1: exit $?"
  grep -E "^flowdg" "$out/logs/run_1p5M.log" | tee -a "$summary"
fi
