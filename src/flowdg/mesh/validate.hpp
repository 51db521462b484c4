#pragma once
// Mesh validation: refuses broken meshes with messages naming element or face ids.
#include <string>
#include <vector>

#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

struct Connectivity;

struct MeshReport {
  std::vector<std::string> notes;     ///< e.g. "reoriented 12 clockwise triangles"
  std::vector<std::string> warnings;  ///< e.g. boundary faces with no physical tag
  std::vector<std::string> errors;    ///< invalid mesh
  bool ok() const { return errors.empty(); }
};

/// Checks the mesh: inverted elements (straight-sided ones are reoriented in place, with a note),
/// zero-area/volume elements, non-convex straight quadrilaterals and hexahedra, curved elements
/// that are inverted, flat or fold over (det J <= 0 at a node or between two vertices: an error),
/// duplicate elements, faces shared by more than two elements, hanging faces, untagged boundary
/// faces.
MeshReport validate_mesh(Mesh& mesh);
/// The same, and when the mesh is valid also the connectivity that validation built, which is
/// build_connectivity(mesh) of the validated (possibly reoriented) mesh: callers need not build it
/// again.
MeshReport validate_mesh(Mesh& mesh, Connectivity* connectivity);
/// validate_mesh, then throws InputError with the first errors if the mesh is invalid.
void validate_or_throw(Mesh& mesh);
/// The same, keeping the connectivity as validate_mesh(mesh, connectivity) does.
void validate_or_throw(Mesh& mesh, Connectivity* connectivity);

/// "17 (0.5, 0.25)": a node id with its coordinates, as error messages name nodes.
std::string describe_node(const Mesh& mesh, index_t node);

/// The smallest angle of an element in degrees: corner angle of triangles and quadrilaterals,
/// dihedral angle of tetrahedra, face corner angle of hexahedra (from the vertices).
double min_angle_degrees(const Mesh& mesh, index_t element);

/// The largest distance between two of an element's vertices.
double element_diameter(const Mesh& mesh, index_t element);

}  // namespace flowdg
