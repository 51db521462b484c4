#pragma once
// Mesh specs (a file or a built-in generator) and the summary behind `flowdg mesh info`.
#include <string>
#include <utility>
#include <vector>

#include "flowdg/mesh/mesh.hpp"
#include "flowdg/mesh/validate.hpp"

namespace flowdg {

/// What a mesh spec may be; shown by `flowdg mesh info --help`.
extern const char* const mesh_spec_help;

/// Loads a mesh from a spec: a Gmsh file, or "builtin:NAME" with optional "?key=value&..."
/// parameters (see mesh_spec_help). Mesh::source is set to the spec. Unknown names, keys or bad
/// values are InputErrors.
Mesh load_mesh(const std::string& spec);

struct MeshInfo {
  std::string source;
  int dimension = 0;
  index_t n_nodes = 0;
  std::vector<std::pair<std::string, index_t>> element_counts;  ///< per element type present
  bool has_faces = false;  ///< false when the mesh is invalid and faces could not be matched
  index_t n_boundary_faces = 0;
  index_t n_interior_faces = 0;
  std::vector<std::pair<std::string, index_t>> tag_face_counts;  ///< boundary faces per tag
  double h_min = 0, h_max = 0;  ///< element diameters (largest vertex distance)
  double worst_angle_degrees = 0;
  index_t worst_element = -1;
  MeshReport report;
};

/// Validates the mesh (which may reorient inverted elements) and summarises it.
MeshInfo mesh_info(Mesh& mesh);
std::string to_text(const MeshInfo& info);
std::string to_json(const MeshInfo& info);

}  // namespace flowdg
