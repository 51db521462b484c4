#pragma once
// Geometric order elevation of straight-sided meshes, and smooth deformations of any mesh.
#include <functional>

#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// The mesh with every straight-sided element (triangle3, quadrilateral4, tetrahedron4,
/// hexahedron8; mixed meshes too) turned into the Lagrange element of geometric order `order`
/// (1..4; hexahedra 1..2; quadrilaterals become the complete Q_g elements: quadrilateral9, 16,
/// 25), its new nodes at the affine, bilinear or trilinear image of the reference nodes. A node on
/// an edge or face is shared by all elements around it (one node per position: the result is
/// conforming, and its faces are the same as the straight mesh's). Nodes, their numbers, boundary
/// names and facets, boundary circles and element file tags are kept; the new nodes follow. In 2D
/// the edge nodes of a tagged facet whose tag has a BoundaryCircle are moved radially onto the
/// circle. Order 1 returns the mesh unchanged. InputError: an order out of range, or an element
/// that is already curved.
Mesh elevate_order(const Mesh& mesh, int order);

/// Moves every node x to deformation(x): with a smooth deformation, a mesh of curved elements (of
/// the mesh's geometric order) whose faces still match.
void map_nodes(Mesh& mesh, const std::function<Point3(Point3)>& deformation);

}  // namespace flowdg
