#pragma once
// VTK's arbitrary-order Lagrange cells on flowdg's reference elements: where the equispaced nodes
// of VTK_LAGRANGE_TRIANGLE (69), _QUADRILATERAL (70), _TETRAHEDRON (71) and _HEXAHEDRON (72) lie,
// in the order VTK reads them (vtkHigherOrderTriangle/Quadrilateral/Tetra/Hexahedron, VTK 9), and
// the split of the same node lattice into linear cells for readers without higher-order cells.
//
// VTK's parametric cells are [0,1]^d and the unit simplices with the vertices in flowdg's (Gmsh's)
// order, so lattice index (i, j, k) of an order-n cell is VTK's parametric point (i, j, k) / n and
// flowdg's reference point 2 (i, j, k) / n - 1. The order (tools/check_vtk_lagrange.py compares it
// with VTK's own vtkLagrange* cells):
//   all shapes    vertices first, in flowdg's vertex order;
//   triangle      edges 0-1, 1-2, 2-0, each from its first vertex to its second; then the interior
//                 nodes as a triangle of order n - 3 in the same order (recursively);
//   quadrilateral edges 0-1, 1-2, 3-2, 0-3: every edge runs along +i or +j; then the interior,
//                 i fastest;
//   tetrahedron   edges 0-1, 1-2, 2-0, 0-3, 1-3, 2-3, each from its first vertex to its second;
//                 then the faces (0,1,3), (2,3,1), (0,3,2), (0,2,1), each face's interior nodes as
//                 a triangle of order n - 3 with those vertices; then the interior as a
//                 tetrahedron of order n - 4 (recursively);
//   hexahedron    edges 0-1, 1-2, 3-2, 0-3 (k = 0), the same four at k = n, then 0-4, 1-5, 2-6,
//                 3-7 (VTK 9; VTK 8 swapped the last two); every edge runs along +i, +j or +k. Then
//                 the faces i = 0, i = n (j fastest, then k), j = 0, j = n (i fastest, then k),
//                 k = 0, k = n (i fastest, then j), then the interior (i, then j, then k).
#include <array>
#include <cstdint>
#include <vector>

#include "flowdg/core/point.hpp"
#include "flowdg/element/reference_element.hpp"

namespace flowdg {

/// The highest order VTK's Lagrange cells are checked to (tools/check_vtk_lagrange.py) and
/// tested at; the node order itself is defined for every order >= 1.
inline constexpr int max_checked_vtk_lagrange_order = 10;

/// VTK's cell type number of the Lagrange cell of `shape` (69, 70, 71, 72).
std::uint8_t vtk_lagrange_cell_type(Shape shape);
/// VTK's cell type number of the linear cell of `shape`: VTK_TRIANGLE (5), VTK_QUAD (9),
/// VTK_TETRA (10), VTK_HEXAHEDRON (12).
std::uint8_t vtk_linear_cell_type(Shape shape);

/// Nodes of the order-`order` Lagrange cell: (n+1)(n+2)/2, (n+1)^2, (n+1)(n+2)(n+3)/6, (n+1)^3.
int n_vtk_lagrange_nodes(Shape shape, int order);

/// The nodes' lattice indices (i, j, k) in VTK's order (k = 0 in 2D): node q lies at reference
/// point 2 (i, j, k) / order - 1.
std::vector<std::array<int, 3>> vtk_lagrange_lattice(Shape shape, int order);

/// The nodes' reference coordinates in VTK's order, 2.0 * i / order - 1.0 per coordinate.
std::vector<Point3> vtk_lagrange_nodes(Shape shape, int order);

/// The linear cells that tile the order-`order` node lattice, n_vertices(shape) node indices
/// (into VTK's order) per cell, each cell positively oriented like the reference element:
/// order^2 triangles or quadrilaterals, order^3 hexahedra or tetrahedra. The tetrahedral lattice
/// is cut into its upright tetrahedra, its inverted tetrahedra and its octahedra, each octahedron
/// into four tetrahedra around one diagonal (the same direction in every octahedron); the
/// octahedra's faces stay whole, so the tetrahedra meet face to face (a conforming split).
std::vector<int> vtk_subdivision_cells(Shape shape, int order);

}  // namespace flowdg
