#pragma once
// Gmsh MSH reader: format 2.2 and 4.1, ASCII and binary, as written by gmsh and meshio.
#include <string>
#include <string_view>

#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// Reads a mesh file. Physical groups of dimension (mesh dimension - 1) become boundary tags
/// (named by $PhysicalNames, else "tag<N>") on the matching facets. Any problem is an InputError
/// naming the file and the line (ASCII) or byte offset (binary).
Mesh read_gmsh(const std::string& path);

/// Reads a mesh from the bytes of a file; `name` is what error messages call it. read_gmsh and
/// the fuzzer share this entry point.
Mesh read_gmsh_from_memory(std::string_view bytes, const std::string& name);

/// Gmsh's element type number of an ElementType (the node orders agree: mesh/lagrange.hpp).
int gmsh_type_number(ElementType type);

}  // namespace flowdg
