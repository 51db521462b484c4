#pragma once
// Gmsh MSH 2.2 (ASCII) writer: a mesh of any element type flowdg reads, high-order ones included,
// with its tagged boundary facets as facet elements of the volume elements' order (lines of 2 to 5
// nodes in 2D, triangles or quadrilaterals of the matching order in 3D; their high-order nodes are
// the adjacent element's nodes on the facet) and one physical group per boundary name plus one,
// "domain", for the elements. Gmsh opens it, and read_gmsh reads back the same nodes (printed
// with 17 significant digits), elements and boundary tags.
#include <string>

#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// Writes `mesh` to `path` (a temporary file renamed into place). InputError: the file cannot be
/// written, or a tagged facet has no element with all its vertices.
void write_gmsh(const Mesh& mesh, const std::string& path);

}  // namespace flowdg
