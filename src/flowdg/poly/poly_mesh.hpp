#pragma once
// Polytopic meshes by agglomeration (issue 18 item 1): the elements ("agglomerates") of the
// polytopic interior-penalty DG solver are unions of the simplices of a fine, straight mesh
// (3-node triangles in 2D, 4-node tetrahedra in 3D), each connected through fine faces.
//
// Vocabulary. An *element* is an agglomerate; a *fine element* is one simplex of the fine mesh. A
// *sub-face* is one fine face on an element's boundary. The *interface* between two elements is
// the totality of their common boundary (Dong, Georgoulis & Kappas 2021, section 2.2): one
// interface, one block pair in the matrix pattern, however many sub-faces (and however many
// disjoint pieces) it has. A *boundary piece* of an element is the totality of its boundary
// sub-faces with one tag.
//
// Layout. Everything is flat (CSR index arrays and structure-of-arrays) so that the arrays copy to
// the device as they are: per element `[start[k], start[k+1])` ranges, sub-face data in one array
// per quantity, index_t indices. Interior sub-faces are grouped by interface, interfaces ordered
// by (first element, second element), first < second; boundary sub-faces are grouped by element.
// Sub-face vertex order follows the reference elements' rule (element/reference_element.hpp): the
// right-hand rule gives the stored normal, in 2D the tangent b - a turned clockwise, in 3D
// (b - a) x (c - a). The normal of an interior sub-face points from the interface's first element
// into its second; a boundary sub-face's points out of the domain.
//
// Quadrature (paper, section 3): every element is split into sub-simplices, either its fine
// simplices or a coarser re-triangulation, one simplex per boundary sub-face joined to an interior
// "kernel" point of the element. The coarse one is valid exactly when every such simplex has a
// positive measure: the cones of a closed, outward-oriented surface from a point count every
// point of the element once (with sign) and every outside point zero times, so positive cones tile
// the element. The kernel point is the point deepest inside all the sub-faces' planes (the largest
// smallest distance to them: a linear program in d + 1 unknowns, solved exactly by the simplex
// method), so an element is star-shaped with respect to it whenever it is star-shaped at all
// (up to rounding); its centroid and the centroids of its fine simplices nearest to it are tried
// too, as a safeguard. Elements that are not star-shaped fall back to their fine simplices, and
// elements with no more fine simplices than boundary sub-faces keep theirs (an agglomerate of one
// to four triangles has more sub-faces than triangles).
//
// Penalty (paper, Appendix A, after Cangiani, Georgoulis & Houston 2014 and Cangiani, Dong,
// Georgoulis & Houston 2017): on a face F of element kappa,
//   sigma = C_sigma max over the sides kappa of  C_INV(p_kappa, kappa, F) abar_kappa p_kappa^2 |F| / |kappa|,
//   C_INV(p, kappa, F) = C_inv min(|kappa| / sup |kappa_b^F|, p^(2(d-1)))  for p-coverable kappa,
//                      = C_inv p^(2(d-1))                                  otherwise,
// the supremum over d-simplices kappa_b^F inside kappa that have F as a face. The mesh stores per
// (element, sub-face) a lower bound of that supremum, `cover` below: the larger of the fine simplex
// of kappa at F and, for an element that is star-shaped with respect to its kernel point x, the
// cone conv(F, x) (inside kappa by the tiling argument above). A lower bound of the supremum gives
// an upper bound of C_INV, so the penalty errs on the stable side. inverse_estimate_factor() below
// evaluates C_INV / C_inv from it.
#include <cstdint>
#include <string>
#include <vector>

#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg::poly {

/// How the elements are split into simplices for quadrature.
enum class SubSimplices {
  fine,    ///< each element's fine simplices
  /// one simplex per boundary sub-face and the kernel point, where the element is star-shaped and
  /// that makes fewer simplices than its fine ones; its fine simplices elsewhere
  coarse,
};

/// "fine" or "coarse".
const char* sub_simplices_name(SubSimplices kind);

/// The sub-simplices of every element, for quadrature.
struct SubSimplexSet {
  SubSimplices kind = SubSimplices::fine;  ///< what was asked for
  int dimension = 2;
  /// CSR, n_elements + 1 entries: element k's simplices are [start[k], start[k+1]).
  std::vector<index_t> start{0};
  /// (dimension + 1) vertices per simplex, simplex after simplex, ordered so that the simplex is
  /// positively oriented (counter-clockwise in 2D, positive determinant in 3D).
  std::vector<Point3> points;
  std::vector<double> measure;  ///< per simplex: area (2D) or volume (3D), > 0
  /// Per element: 1 when it uses the coarse simplices (cones from its kernel point), else 0.
  std::vector<std::uint8_t> coarse;
  /// Per element: 1 when coarse simplices were asked for but the element is not star-shaped, so it
  /// falls back to its fine simplices, else 0.
  std::vector<std::uint8_t> fallback;
  index_t n_coarse = 0;    ///< the number of elements with coarse = 1
  index_t n_fallback = 0;  ///< the number of elements with fallback = 1
  /// The number of star-shaped elements that use their fine simplices although coarse ones were
  /// asked for, because they have no more fine simplices than boundary sub-faces.
  index_t n_fine_fewer = 0;

  index_t n_simplices() const { return static_cast<index_t>(measure.size()); }
};

struct PolyMeshOptions {
  SubSimplices quadrature = SubSimplices::coarse;  ///< the set stored in PolyMesh::quadrature
  /// The most points tried as an element's kernel point besides the linear program's: its
  /// centroid, then the centroids of its fine simplices nearest to it; of all, the one farthest
  /// inside every sub-face plane is kept.
  int kernel_candidates = 16;
};

/// A polytopic mesh: elements made of fine simplices, their interfaces and boundary sub-faces,
/// their geometry and what the penalty and the quadrature need. Lengths in the mesh's units,
/// measures are areas (2D) or volumes (3D) of elements and lengths (2D) or areas (3D) of sub-faces.
struct PolyMesh {
  int dimension = 2;
  std::string source;  ///< the fine mesh's source, for messages

  // ---- the fine mesh
  std::vector<Point3> nodes;                ///< the fine mesh's nodes
  /// (dimension + 1) node ids per fine element, in the fine mesh's element order and vertex order.
  std::vector<index_t> fine_vertices;
  std::vector<index_t> agglomerate_of;      ///< per fine element: its element
  std::vector<std::string> boundary_names;  ///< tag -> name, as the fine mesh's

  // ---- elements
  /// CSR, n_elements + 1 entries: element k's fine elements are fine_elements[element_start[k] ..].
  std::vector<index_t> element_start{0};
  std::vector<index_t> fine_elements;  ///< fine element ids, grouped by element, ascending in each
  std::vector<double> measure;         ///< per element: area / volume
  std::vector<Point3> centroid;        ///< per element: its centre of mass
  std::vector<Point3> box_min;         ///< per element: the lowest corner of its bounding box
  std::vector<Point3> box_max;         ///< per element: the highest corner of its bounding box
  std::vector<double> diameter;        ///< per element: the largest distance between two of its vertices
  /// Per element: the interior point the coarse sub-simplices share: the point found deepest
  /// inside all its sub-face planes (see the top); the centroid when the element is not star-shaped.
  std::vector<Point3> kernel_point;
  /// Per element: the smallest signed distance from kernel_point to the planes of its boundary
  /// sub-faces (positive inside); > 0 (beyond rounding) exactly when the element is star-shaped
  /// with respect to kernel_point.
  std::vector<double> kernel_distance;
  std::vector<std::uint8_t> star_shaped;  ///< per element: 1 when star-shaped w.r.t. kernel_point

  // ---- interfaces (pairs of elements) and their sub-faces
  std::vector<index_t> interface_elements;  ///< 2 per interface: first, second (first < second)
  /// CSR, n_interfaces + 1 entries: interface i's sub-faces are [interface_start[i], interface_start[i+1]).
  std::vector<index_t> interface_start{0};
  std::vector<index_t> interior_fine_face;      ///< per interior sub-face: its face in the Connectivity
  /// 2 per interior sub-face: the fine element on the first element's side, then the second's.
  std::vector<index_t> interior_fine_elements;
  std::vector<index_t> interior_vertices;       ///< dimension node ids per interior sub-face (order: see the top)
  std::vector<Point3> interior_normal;          ///< per interior sub-face: unit normal, first -> second
  std::vector<double> interior_measure;         ///< per interior sub-face: length / area
  /// 2 per interior sub-face: the cover measure (penalty, see the top) on the first side, then on
  /// the second: a lower bound of the largest simplex in that element with the sub-face as a face.
  std::vector<double> interior_cover;

  /// CSR, n_elements + 1 entries: element k's interfaces are element_interfaces[element_interface_start[k] ..],
  /// ordered by the neighbour's number.
  std::vector<index_t> element_interface_start{0};
  std::vector<index_t> element_interfaces;

  // ---- boundary sub-faces, grouped by element
  /// CSR, n_elements + 1 entries: element k's boundary sub-faces are [boundary_start[k], boundary_start[k+1]),
  /// ordered by (tag, fine face).
  std::vector<index_t> boundary_start{0};
  std::vector<index_t> boundary_fine_face;     ///< per boundary sub-face: its face in the Connectivity
  std::vector<index_t> boundary_fine_element;  ///< per boundary sub-face: its fine element
  std::vector<index_t> boundary_vertices;      ///< dimension node ids per boundary sub-face
  std::vector<int> boundary_tag;               ///< per boundary sub-face: index into boundary_names
  std::vector<Point3> boundary_normal;         ///< per boundary sub-face: outward unit normal
  std::vector<double> boundary_measure;        ///< per boundary sub-face: length / area
  std::vector<double> boundary_cover;          ///< per boundary sub-face: cover measure (penalty)

  // ---- quadrature
  SubSimplexSet quadrature;  ///< the sub-simplices PolyMeshOptions::quadrature asked for

  index_t n_elements() const { return static_cast<index_t>(measure.size()); }
  index_t n_fine_elements() const { return static_cast<index_t>(agglomerate_of.size()); }
  index_t n_interfaces() const { return static_cast<index_t>(interface_start.size()) - 1; }
  index_t n_interior_subfaces() const { return static_cast<index_t>(interior_measure.size()); }
  index_t n_boundary_subfaces() const { return static_cast<index_t>(boundary_measure.size()); }
  /// The other element of interface i (element must be one of its two).
  index_t neighbour(index_t interface, index_t element) const {
    const index_t first = interface_elements[2 * interface];
    return first == element ? interface_elements[2 * interface + 1] : first;
  }
};

/// Builds the polytopic mesh of `agglomerate` (per fine element of `mesh`, ids 0..N-1, every id
/// used) on a fine mesh of 3-node triangles (2D) or 4-node tetrahedra (3D) with its connectivity.
/// InputError: another element type or dimension, an assignment of the wrong size, a negative
/// id, an unused id, an element that is not connected through fine faces (make_connected in
/// agglomerate.hpp splits them), a fine element of zero measure, an interior face whose two sides
/// have different vertices (periodic joins are not supported).
PolyMesh build_poly_mesh(const Mesh& mesh, const Connectivity& connectivity, const std::vector<index_t>& agglomerate,
                         const PolyMeshOptions& options = {});

/// The sub-simplices of `kind` for every element of `poly` (PolyMesh::quadrature holds the kind
/// its options asked for; this makes the other).
SubSimplexSet make_sub_simplices(const PolyMesh& poly, SubSimplices kind);

/// min / mean / max of a count per element.
struct CountRange {
  index_t min = 0;
  double mean = 0;
  index_t max = 0;
};

struct PolyStatistics {
  int dimension = 2;
  index_t elements = 0;
  index_t fine_elements = 0;
  index_t interfaces = 0;
  index_t interior_subfaces = 0;
  index_t boundary_subfaces = 0;
  CountRange faces;                 ///< per element: interfaces + boundary pieces (one per tag)
  CountRange subfaces;              ///< per element: interior + boundary sub-faces
  CountRange fine_simplices;        ///< per element: fine simplices
  CountRange quadrature_simplices;  ///< per element: sub-simplices of PolyMesh::quadrature
  SubSimplices quadrature = SubSimplices::fine;
  index_t star_shaped = 0;          ///< elements star-shaped with respect to their kernel point
  index_t coarse = 0;               ///< elements on coarse simplices (SubSimplexSet::n_coarse)
  index_t fallbacks = 0;            ///< elements not star-shaped, on fine simplices (SubSimplexSet::n_fallback)
  index_t fine_fewer = 0;           ///< star-shaped elements on their fewer fine simplices (n_fine_fewer)
  double diameter_min = 0, diameter_max = 0;
};

PolyStatistics poly_statistics(const PolyMesh& poly);

/// A few lines for `flowdg mesh info`: counts, faces / sub-faces / sub-simplices per element
/// (min, mean, max), star-shaped elements, how many elements use coarse simplices and why the
/// others do not, diameters.
std::string describe_statistics(const PolyMesh& poly);

/// Appendix A's C_INV(p, kappa, F) / C_inv for a face F of element kappa of degree p >= 1 in
/// `dimension` space dimensions: min(|kappa| / cover, p^(2(d-1))) for a p-coverable element,
/// p^(2(d-1)) otherwise; element_measure = |kappa|, cover = the sub-face's cover measure on
/// kappa's side (PolyMesh::interior_cover / boundary_cover).
FLOWDG_HD inline double inverse_estimate_factor(int p, int dimension, double element_measure, double cover,
                                                bool coverable = true) {
  double cap = 1;
  for (int k = 0; k < 2 * (dimension - 1); ++k) cap *= p;
  if (!coverable) return cap;
  const double ratio = element_measure / cover;
  return ratio < cap ? ratio : cap;
}

}  // namespace flowdg::poly
