#pragma once
// DG connectivity: the faces of a mesh with their two sides. Boundary faces come first, grouped by
// tag in ascending tag order, then the interior faces.
#include <string>
#include <vector>

#include "flowdg/core/hd.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

struct Face {
  index_t element_m = -1;  ///< the owning ("minus", left) element
  index_t element_p = -1;  ///< the neighbour ("plus", right) element; -1 on a boundary
  int local_face_m = -1;   ///< local face index in element_m (reference_element.hpp numbering)
  int local_face_p = -1;
  int tag = -1;            ///< boundary tag (Mesh::boundary_names index); -1 for interior faces
  /// How the plus side's face vertices line up with the minus side's: the k-th vertex of the
  /// minus side's face (in its local face order) is vertex face_vertex_permutation(orientation, k)
  /// of the plus side's face. In 2D two conforming, consistently oriented elements always traverse
  /// their shared edge in opposite directions: orientation 1, "reversed" (2015 paper, Fig. 6).
  int orientation = 0;
};

/// Orientation codes. Line faces: 0 identity, 1 reversed. Triangle faces: 0..2 rotations, 3..5
/// reflections. Quadrilateral faces: 0..3 rotations, 4..7 reflections.
FLOWDG_HD constexpr int face_vertex_permutation(Shape face, int orientation, int k) {
  const int n = face == Shape::line ? 2 : (face == Shape::triangle ? 3 : 4);
  if (face == Shape::point) return 0;
  if (orientation < n) return (k + orientation) % n;           // rotation by `orientation`
  return ((n - k) + (orientation - n)) % n;                    // reflection then rotation
}

struct Connectivity {
  std::vector<Face> faces;
  /// Faces with tag t are [tag_offsets[t], tag_offsets[t+1]); interior faces start at tag_offsets.back().
  std::vector<index_t> tag_offsets;
  /// element_faces[e * max_faces + f] = face index of local face f of element e (-1 if absent).
  std::vector<index_t> element_faces;
  int max_faces = 0;

  index_t n_faces() const { return static_cast<index_t>(faces.size()); }
  index_t n_boundary_faces() const { return tag_offsets.empty() ? 0 : tag_offsets.back(); }
  index_t n_interior_faces() const { return n_faces() - n_boundary_faces(); }
};

/// The node ids of local face `local_face` of `element` (its vertices, in the reference face's
/// order) into ids (at least 4); returns their number.
int face_vertex_ids(const Mesh& mesh, index_t element, int local_face, index_t* ids);

/// Builds faces from the element vertices. Errors (InputError, naming element/face ids): a face
/// shared by more than two elements, a hanging (non-conforming) face, a boundary face without a
/// tag (all listed, up to a limit).
Connectivity build_connectivity(const Mesh& mesh);
/// The same, but each kind of problem is appended to `errors` as one message instead of thrown;
/// the result is complete only when no message was added (for validate_mesh).
Connectivity build_connectivity(const Mesh& mesh, std::vector<std::string>& errors);

enum class ElementOrdering { none, reverse_cuthill_mckee, hilbert };
/// Renumbers the mesh's elements for memory locality; returns new_to_old. Call before
/// build_connectivity (or rebuild it after).
std::vector<index_t> reorder_elements(Mesh& mesh, ElementOrdering ordering);

}  // namespace flowdg
