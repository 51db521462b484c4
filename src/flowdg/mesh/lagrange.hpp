#pragma once
// The Lagrange geometry of every element type: the reference coordinates of its nodes in Gmsh's
// order and the shape functions through them, so that an element's map is
// x(r) = sum_n x_n N_n(r) (isoparametric elements of any order the reader knows).
#include <vector>

#include "flowdg/core/point.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// Reference coordinates (reference_element.hpp's elements) of the type's nodes in Gmsh's order:
/// vertices, then the edge nodes edge by edge in each edge's direction, then the interior nodes
/// (for triangles recursively: the interior nodes of an order-g triangle are the nodes of an
/// order g - 3 triangle inside it).
std::vector<Point3> reference_nodes(ElementType type);

/// values[n] = N_n(xi) and, unless gradients is null, gradients[n] = grad_r N_n(xi): the nodal
/// basis of P_g on simplices and Q_g on quadrilaterals and hexahedra (quadrilateral8: the
/// serendipity element).
void shape_functions(ElementType type, Point3 xi, double* values, Point3* gradients);

}  // namespace flowdg
