#pragma once
// Element and face groups: the unit of launch of the DG core. At set-up every element is put into
// one group by (shape, geometry kind) and every face into one group by (boundary tag or interior,
// the element groups of its two sides); a kernel is instantiated per group's shape and geometry
// kind, so no kernel branches on a shape or on "is curved" (PyFR launches per element type and
// linear/curved region; deal.II's MatrixFree keeps a geometry type per cell batch).
//
// Numbering: elements are numbered within their group (group order = mesh order, so a mesh
// reordered for locality stays so); faces are numbered globally (one flux array per face shape,
// and a mesh has one face shape: lines in 2D, triangles for tetrahedra, quadrilaterals for
// hexahedra), group after group: boundary groups first (by tag, then element group), interior
// groups after them. Within an interior group faces follow their lower element, so neighbouring
// threads of a face kernel read neighbouring elements; by family (build_groups' FaceOrder, the DG
// operator's choice by physics, FLOWDG_FACE_ORDER for A/B runs) a group's faces are sorted by the
// lower element's local face first, then by lower element, so that where a mesh's numbering is
// regular the faces of consecutive elements' local face l are consecutive too (the element kernels'
// gathers of face values); by window an interior group's faces by windows of 64 lower elements, in a
// window by class (the sides' local faces and the orientation), then by lower element (the face
// kernel on the FP64 tensor cores: a tile of 8 faces mostly of one class, nearby elements' data read
// while in L2).
#include <string>
#include <vector>

#include "flowdg/core/hd.hpp"
#include "flowdg/element/reference_element.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg::dg {

/// Affine: the map from the reference element is affine, the Jacobian constant (one metric per
/// element, a diagonal mass matrix). Curved: anything else, including non-parallelogram bilinear
/// quadrilaterals (a metric per quadrature point and a full mass matrix per element).
enum class GeometryKind : int { affine = 0, curved = 1 };

constexpr const char* geometry_name(GeometryKind kind) { return kind == GeometryKind::affine ? "affine" : "curved"; }

struct ElementGroup {
  Shape shape = Shape::triangle;
  GeometryKind geometry = GeometryKind::affine;
  /// Largest geometric order of the group's elements (1: straight-sided), for the quadrature rules.
  int geometric_order = 1;
  std::vector<index_t> elements;  ///< mesh element ids in group order
  index_t size() const { return static_cast<index_t>(elements.size()); }
};

struct FaceGroup {
  int tag = -1;        ///< boundary tag (Mesh::boundary_names index); -1: interior
  int group_m = -1;    ///< element group of the minus side
  int group_p = -1;    ///< element group of the plus side; -1 on a boundary
  GeometryKind geometry = GeometryKind::affine;  ///< curved when either side is curved
  index_t begin = 0, end = 0;  ///< the group's faces in the global face numbering
  bool boundary() const { return tag >= 0; }
  index_t size() const { return end - begin; }
};

/// One face as the kernels see it: group-local element indices on both sides.
struct GroupFace {
  index_t element_m = -1;  ///< index in group_m
  index_t element_p = -1;  ///< index in group_p; on a boundary the minus element again
  int local_m = -1, local_p = -1;
  /// Vertex k of the minus side's face is vertex face_vertex_permutation(orientation, k) of the
  /// plus side's face (connectivity.hpp); 0 on a boundary.
  int orientation = 0;
  index_t mesh_face = -1;  ///< the Connectivity face it came from
};

struct Groups {
  Shape face_shape = Shape::line;
  std::vector<ElementGroup> element_groups;
  std::vector<int> group_of;           ///< per mesh element: its element group
  std::vector<index_t> index_in_group; ///< per mesh element: its index in that group
  std::vector<FaceGroup> face_groups;
  std::vector<GroupFace> faces;        ///< global face numbering (face groups are ranges of it)
  /// Per element group g: face_of[g][l * size + e] = the global face on local face l of element e.
  std::vector<std::vector<index_t>> element_faces;
  /// Per element group g: whether local face l of element e is the plus side of its face.
  std::vector<std::vector<unsigned char>> element_plus_side;
};

/// Face codes: a face index, its orientation and the element's side of it in one word
/// (core_kernels.hpp's layout).
FLOWDG_HD constexpr index_t face_code(index_t face, int orientation, bool plus_side) {
  return (face << 4) | (static_cast<index_t>(orientation) << 1) | (plus_side ? 1 : 0);
}
FLOWDG_HD constexpr index_t code_face(index_t code) { return code >> 4; }
FLOWDG_HD constexpr int code_orientation(index_t code) { return static_cast<int>((code >> 1) & 7); }
FLOWDG_HD constexpr bool code_plus_side(index_t code) { return (code & 1) != 0; }
/// The element's own point (its order on its face l) of the face's point q: the plus side reads it
/// through the face orientation's permutation [orientation Nfq + q] (a View or a pointer).
template <class Permutation>
FLOWDG_HD FLOWDG_FORCEINLINE int code_own_point(index_t code, const Permutation& permutation, int Nfq, int q) {
  return code_plus_side(code) ? permutation[code_orientation(code) * Nfq + q] : q;
}

/// The face order above.
enum class FaceOrder { element, family, window };
/// FLOWDG_FACE_ORDER "element", "family" or "window" for A/B runs, unset -> by_default; anything else
/// an InputError. Read at every build_groups.
FaceOrder face_order(FaceOrder by_default);

/// Builds the groups. `geometry[e]` is each mesh element's geometry kind and `geometric_order[e]`
/// its map's polynomial order. Interior faces between two groups get the lower group id on their
/// minus side (so one kernel serves both orders of a pair). Throws InputError for a mesh whose
/// elements need two face shapes (tetrahedra with hexahedra: no prisms or pyramids to join them).
Groups build_groups(const Mesh& mesh, const Connectivity& connectivity, const std::vector<GeometryKind>& geometry,
                    const std::vector<int>& geometric_order, FaceOrder order = FaceOrder::element);

/// The orientation code of the inverse permutation: swapping a face's two sides turns code o
/// into inverse_orientation(face, o).
int inverse_orientation(Shape face, int orientation);

/// Number of orientation codes of a face shape (line 2, triangle 6, quadrilateral 8).
int orientation_count(Shape face);

/// Point permutations of a face quadrature rule, [orientation * n_points + q]: the minus side's
/// face point q is the plus side's face point permutation[...] under that orientation. The rule
/// must be symmetric under the face's symmetries; InputError otherwise (no rule of flowdg is not).
std::vector<int> face_point_permutations(Shape face, const std::vector<Point3>& points);

}  // namespace flowdg::dg
