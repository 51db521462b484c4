#!/usr/bin/env bash
# make_meshes.sh [OUT_DIR]: the fine triangle meshes of the oscillating-boundary domain
# (oscillating.geo) for the agglomeration study (issue 18 item 7):
#   OUT_DIR/oscillating_small.msh  h = 0.0108   ~20,000 triangles (committed as examples/poly/oscillating_small.msh)
#   OUT_DIR/oscillating_large.msh  h = 0.00215  ~500,000 triangles (25 MB: not committed; make it here)
# OUT_DIR defaults to out/poly in the repository (git-ignored). Needs gmsh (Debian: apt-get install
# gmsh; or GMSH=/path/to/gmsh). SMALL_H and LARGE_H override the sizes; ONLY=small or ONLY=large
# makes one. Prints each mesh's triangle count; the counts below are gmsh 4.8.4's, and other gmsh
# versions may differ by a few per cent.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(dirname "$(dirname "$here")")/out/poly}
gmsh=${GMSH:-gmsh}
small_h=${SMALL_H:-0.0108}   # 20,110 triangles (gmsh 4.8.4)
large_h=${LARGE_H:-0.00215}  # 500,660 triangles (gmsh 4.8.4), ~15 s
only=${ONLY:-}

command -v "$gmsh" > /dev/null || {
  echo "make_meshes.sh: gmsh not found (apt-get install gmsh, or GMSH=/path/to/gmsh)" >&2
  exit 1
}
mkdir -p "$out"

# The number of 3-node triangles (Gmsh type 2) in an MSH 4.1 file: the $Elements section is blocks of
# "dim tag type count" followed by `count` element lines.
triangles() {
  awk '/^\$Elements/ { inside = 1; getline; next }
       /^\$EndElements/ { inside = 0; next }
       inside { if (skip > 0) { skip--; next } if ($3 == 2) n += $4; skip = $4 }
       END { print n + 0 }' "$1"
}

make_mesh() {
  local name=$1 h=$2
  local mesh=$out/$name.msh
  if ! "$gmsh" -2 -setnumber h "$h" "$here/oscillating.geo" -o "$mesh" > "$out/$name.log" 2>&1; then
    cat "$out/$name.log" >&2
    echo "make_meshes.sh: gmsh failed on $name (h = $h); its output is above" >&2
    exit 1
  fi
  printf '%s: h = %s, %s triangles, %s bytes\n' "$mesh" "$h" "$(triangles "$mesh")" "$(wc -c < "$mesh")"
}

if [[ -z $only || $only == small ]]; then
  make_mesh oscillating_small "$small_h"
  if [[ $small_h == 0.0108 ]]; then
    if cmp -s "$out/oscillating_small.msh" "$here/oscillating_small.msh"; then
      echo "  the same file as examples/poly/oscillating_small.msh"
    else
      echo "  differs from examples/poly/oscillating_small.msh (another gmsh version?)"
    fi
  fi
fi
if [[ -z $only || $only == large ]]; then make_mesh oscillating_large "$large_h"; fi
