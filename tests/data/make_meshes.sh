#!/bin/sh
# Regenerates the sample meshes in this folder from the .geo scripts (gmsh 4.8.4 and meshio 7.0
# were used for the committed files). Run from anywhere: sh tests/data/make_meshes.sh
# The bad_*.msh files are written by hand and are not touched here (see README.md).
set -eu
cd "$(dirname "$0")"
GMSH=${GMSH:-gmsh}
PYTHON=${PYTHON:-/usr/bin/python3}

# mesh NAME GEO DIMENSION [gmsh options...]: writes NAME_msh41.msh and NAME_msh22.msh (ASCII).
mesh() {
  name=$1 geo=$2 dim=$3
  shift 3
  for format in msh41 msh22; do
    "$GMSH" "-$dim" -v 1 "$@" -format $format -o "${name}_$format.msh" "$geo"
  done
}

# binary NAME GEO DIMENSION [gmsh options...]: writes NAME_msh41_bin.msh and NAME_msh22_bin.msh.
binary() {
  name=$1 geo=$2 dim=$3
  shift 3
  for format in msh41 msh22; do
    "$GMSH" "-$dim" -v 1 "$@" -bin -format $format -o "${name}_${format}_bin.msh" "$geo"
  done
}

mesh square_tri square_tri.geo 2
binary square_tri square_tri.geo 2
mesh square_quad square_quad.geo 2
mesh square_quad9 square_quad.geo 2 -order 2
mesh square_quad8 square_quad.geo 2 -order 2 -string "Mesh.SecondOrderIncomplete=1;"
mesh mixed mixed.geo 2
mesh annulus annulus.geo 2
mesh annulus_p2 annulus.geo 2 -order 2
mesh cube_tet cube_tet.geo 3
binary cube_tet cube_tet.geo 3
mesh cube_tet_p2 cube_tet.geo 3 -order 2
mesh cube_hex cube_hex.geo 3

# Cubic and quartic elements, and the triquadratic hexahedron. High-order optimisation stays off,
# so the nodes of straight elements are at their affine positions and those of the curved
# boundaries on the circles (sector, cylinder).
high="-string Mesh.HighOrderOptimize=0;"
mesh square_tri_p2 square_tri.geo 2 $high -order 2
"$GMSH" -2 -v 1 -setnumber order 3 -o triangle10_msh22.msh triangle_high_order.geo
"$GMSH" -2 -v 1 -setnumber order 4 -o triangle15_msh22.msh triangle_high_order.geo
mesh square_quad16 square_quad.geo 2 $high -order 3 -setnumber nx 3 -setnumber ny 2
mesh square_quad25 square_quad.geo 2 $high -order 4 -setnumber nx 3 -setnumber ny 2
mesh cube_tet20 cube_tet.geo 3 $high -order 3 -clscale 2.5
mesh cube_tet35 cube_tet.geo 3 $high -order 4 -clscale 2.5
binary cube_tet35 cube_tet.geo 3 $high -order 4 -clscale 2.5
mesh cube_hex27 cube_hex.geo 3 $high -order 2 -setnumber cells 2
mesh sector_tri15 sector.geo 2 -order 4
mesh sector_quad16 sector.geo 2 -order 3 -setnumber quadrilaterals 1
mesh cylinder_hex27 cylinder.geo 3 -order 2 -setnumber hexahedra 1
"$GMSH" -3 -v 1 -order 4 -format msh41 -o cylinder_tet35_msh41.msh cylinder.geo

# The same meshes rewritten by meshio, whose writer differs from gmsh's (zero entity bounding
# boxes, one element block per physical group, exponent notation).
"$PYTHON" - <<'PY'
import meshio
for source, target, file_format, binary in [
    ("square_tri_msh41.msh", "square_tri_meshio22_bin.msh", "gmsh22", True),
    ("square_tri_msh41.msh", "square_tri_meshio41.msh", "gmsh", False),
    ("annulus_p2_msh41.msh", "annulus_p2_meshio22_bin.msh", "gmsh22", True),
    ("cube_tet_msh41.msh", "cube_tet_meshio41.msh", "gmsh", False),
]:
    meshio.write(target, meshio.read(source), file_format=file_format, binary=binary)
PY
