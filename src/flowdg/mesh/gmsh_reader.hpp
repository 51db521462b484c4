#pragma once
// Gmsh MSH reader: format 2.2 and 4.1, ASCII and binary, as written by gmsh and meshio.
#include <string>

#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// Reads a mesh file. Physical groups of dimension (mesh dimension - 1) become boundary tags
/// (named by $PhysicalNames, else "tag<N>") on the matching facets. Any problem is an InputError
/// naming the file and the line (ASCII) or byte offset (binary).
Mesh read_gmsh(const std::string& path);

}  // namespace flowdg
