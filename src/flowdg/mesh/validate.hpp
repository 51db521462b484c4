#pragma once
// Mesh validation: refuses broken meshes with messages naming element or face ids.
#include <string>
#include <vector>

#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

struct MeshReport {
  std::vector<std::string> notes;     ///< e.g. "reoriented 12 clockwise triangles"
  std::vector<std::string> warnings;  ///< e.g. boundary faces with no physical tag
  std::vector<std::string> errors;    ///< invalid mesh
  bool ok() const { return errors.empty(); }
};

/// Checks the mesh: inverted elements (straight-sided ones are reoriented in place, with a note;
/// curved ones are an error), zero-area/volume elements, duplicate elements, faces shared by more
/// than two elements, hanging faces, untagged boundary faces.
MeshReport validate_mesh(Mesh& mesh);
/// validate_mesh, then throws InputError with the first errors if the mesh is invalid.
void validate_or_throw(Mesh& mesh);

}  // namespace flowdg
