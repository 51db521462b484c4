#pragma once
// The Lagrange geometry of every element type: the reference coordinates of its nodes in Gmsh's
// order and the shape functions through them, so that an element's map is
// x(r) = sum_n x_n N_n(r) (isoparametric elements of any order the reader knows).
#include <vector>

#include "flowdg/core/point.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// Reference coordinates (reference_element.hpp's elements) of the type's nodes in Gmsh's order:
/// the vertices; the edge nodes edge by edge, each edge's from its first vertex to its second, in
/// Gmsh's edge order (triangle 0-1 1-2 2-0; quadrilateral 0-1 1-2 2-3 3-0; tetrahedron 0-1 1-2
/// 2-0 3-0 3-2 3-1; hexahedron 0-1 0-3 0-4 1-2 1-5 2-3 2-6 3-7 4-5 4-7 5-6 6-7); in 3D the face
/// nodes face by face (tetrahedron faces 0-2-1 0-1-3 0-3-2 3-1-2; hexahedron 0-3-2-1 0-1-5-4
/// 0-4-7-3 1-2-6-5 2-3-7-6 4-5-6-7), each face's as the interior nodes of a face element with the
/// face's vertices in that order; then the interior nodes, which are recursively the nodes of an
/// element of the same shape of order g - 3 (triangle), g - 4 (tetrahedron) or g - 2
/// (quadrilateral, hexahedron) whose vertices are the interior lattice points nearest to the
/// vertices. quadrilateral8 has no centre node.
std::vector<Point3> reference_nodes(ElementType type);

/// values[n] = N_n(xi) and, unless gradients is null, gradients[n] = grad_r N_n(xi): the nodal
/// basis of P_g on simplices and Q_g on quadrilaterals and hexahedra (quadrilateral8: the
/// serendipity element). Both arrays hold n_nodes(type) entries.
void shape_functions(ElementType type, Point3 xi, double* values, Point3* gradients);

/// The element's map x(xi) = sum_n x_n N_n(xi) at a reference point.
Point3 map_to_physical(const Mesh& mesh, index_t element, Point3 xi);

/// The Jacobian matrix of an element's map at a reference point.
struct ElementJacobian {
  int dimension = 0;           ///< the element's (2 or 3); entries beyond it are zero
  double matrix[3][3] = {};    ///< matrix[d][r] = d x_d / d xi_r
  double det = 0;              ///< the determinant of the dimension x dimension block
};

ElementJacobian element_jacobian(const Mesh& mesh, index_t element, Point3 xi);

/// For every node, the elements that hold it.
std::vector<std::vector<index_t>> elements_of_nodes(const Mesh& mesh);

/// A tagged facet's nodes in Gmsh's order for a facet element of the order g of the element it
/// bounds (2D: a line of g + 1 nodes, its vertices, then the inner nodes from the first vertex to
/// the second; 3D: the triangle or quadrilateral of order g), taken from that element at the
/// reference positions of the facet element's nodes on its face; `element` gets that element.
/// Empty when no element holds every vertex of the facet. Error: the element lacks a node there
/// (quadrilateral8's faces).
std::vector<index_t> facet_nodes(const Mesh& mesh, const TaggedFacet& facet, const std::vector<std::vector<index_t>>& elements_of_node,
                                 index_t* element = nullptr);

}  // namespace flowdg
