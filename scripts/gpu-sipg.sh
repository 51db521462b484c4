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
# same (warm) machine. PARTS=tables,study picks.
# Logs and JSON under $OUT, a summary last.
set -uo pipefail
[ -f .bundle/all.tar.xz ] && [ ! -x .bundle/run ] && tar xJf .bundle/all.tar.xz -C .bundle
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
