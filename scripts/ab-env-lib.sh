# Helpers for A/B runs of one flowdg binary under environment switches on the GPU machine (sourced by
# docs/results/session*/ab*.sh, from the repository root with the flowdg bundle unpacked; $out the
# output folder):
#   wrapper NAME "VAR=VALUE ..."   .bundle/bin/NAME runs flowdg with those variables set
#   ab LABEL P PRECISION BINS...   the 3D vortex on 384,000 tetrahedra at order P, Rusanov, ROUNDS
#                                  rounds (scripts/gpu-ab-bins.sh), then every entry's final state
#                                  against the first's (flowdg_checkpoint_diff): $out/ab_LABEL.txt
wrapper() { printf '#!/bin/sh\n%s exec "$(dirname "$0")/flowdg" "$@"\n' "$2" > .bundle/bin/$1; chmod +x .bundle/bin/$1; }
diffs() {  # $1 order, then the binaries: each against the first
  local p=$1 a=$2; shift 2
  for b in "$@"; do echo "   p=$p $a against $b: $(.bundle/run flowdg_checkpoint_diff /tmp/ab_${a}_tet$p/checkpoint.h5 /tmp/ab_${b}_tet$p/checkpoint.h5 2>&1 | tail -1)"; done
}
ab() {  # label, order, precision, bins
  local label=$1 p=$2 precision=$3; shift 3
  BINS="$*" TET_ORDERS=$p TET_N=40 TET_FLUX=rusanov PRECISION=$precision ROUNDS=${ROUNDS:-2} bash scripts/gpu-ab-bins.sh 2>&1 | tee "$out/ab_${label}.txt"
  diffs $p "$@" | tee -a "$out/ab_${label}.txt"
}
