#include "flowdg/dg/groups.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>

#include "flowdg/core/error.hpp"

namespace flowdg::dg {

FaceOrder face_order(FaceOrder by_default) {
  const char* value = std::getenv("FLOWDG_FACE_ORDER");  // read at every build (tests set it for one)
  if (value == nullptr || *value == 0) return by_default;
  const std::string text(value);
  if (text == "element") return FaceOrder::element;
  if (text == "family") return FaceOrder::family;
  if (text == "window") return FaceOrder::window;
  throw InputError(cat("FLOWDG_FACE_ORDER='", text, "': expected element (a group's faces by lower element), family (by the lower element's local "
                       "face, then element) or window (by windows of 64 lower elements, then the sides' local faces and orientation)"));
}

namespace {
/// FaceOrder::window (the face tensor kernel's, euler3d_variable_kernels.cpp): a group's interior faces
/// by windows of face_window lower elements, in a window by class (the sides' local faces and the
/// orientation: the tensor kernel's tables), then by lower element — the faces of nearby elements
/// together (their coefficients read while in L2) and tiles of one class.
constexpr index_t face_window = 64;
constexpr int n_faces_max = 6, orientation_max = 8;  // (hexahedra's faces, quadrilaterals' orientations: a class a key)
}  // namespace

int orientation_count(Shape face) {
  switch (face) {
    case Shape::point: return 1;
    case Shape::line: return 2;
    default: return 2 * n_vertices(face);
  }
}

int inverse_orientation(Shape face, int orientation) {
  const int n = n_vertices(face);
  for (int candidate = 0; candidate < orientation_count(face); ++candidate) {
    bool inverse = true;
    for (int k = 0; k < n && inverse; ++k)
      inverse = face_vertex_permutation(face, candidate, face_vertex_permutation(face, orientation, k)) == k;
    if (inverse) return candidate;
  }
  throw Error(cat("orientation ", orientation, " of a ", shape_name(face), " face has no inverse"));
}

std::vector<int> face_point_permutations(Shape face, const std::vector<Point3>& points) {
  const int n_points = static_cast<int>(points.size());
  const int n = n_vertices(face);
  const int orientations = orientation_count(face);
  std::vector<std::vector<double>> weights(n_points, std::vector<double>(n));
  for (int q = 0; q < n_points; ++q) face_vertex_weights(face, points[q], weights[q].data());
  std::vector<int> permutation(static_cast<std::size_t>(orientations * n_points), -1);
  for (int orientation = 0; orientation < orientations; ++orientation)
    for (int q = 0; q < n_points; ++q) {
      // Minus vertex k is plus vertex pi(k): the same point has weight w_k on plus vertex pi(k).
      for (int candidate = 0; candidate < n_points; ++candidate) {
        double distance = 0;
        for (int k = 0; k < n; ++k)
          distance = std::max(distance, std::abs(weights[candidate][face_vertex_permutation(face, orientation, k)] -
                                                 weights[q][k]));
        if (distance < 1e-12) {
          permutation[orientation * n_points + q] = candidate;
          break;
        }
      }
      if (permutation[orientation * n_points + q] < 0)
        throw InputError(cat("the ", n_points, "-point ", shape_name(face),
                             " face rule is not symmetric: its point ", q, " has no image under orientation ",
                             orientation));
    }
  return permutation;
}

Groups build_groups(const Mesh& mesh, const Connectivity& connectivity, const std::vector<GeometryKind>& geometry,
                    const std::vector<int>& geometric_order, FaceOrder order_by_default) {
  const index_t K = mesh.n_elements();
  FLOWDG_ASSERT(static_cast<index_t>(geometry.size()) == K && static_cast<index_t>(geometric_order.size()) == K,
                "one geometry kind and order per element");
  Groups groups;

  // Element groups in a fixed order of (shape, geometry kind), so group ids do not depend on which
  // element comes first in the file.
  std::map<std::pair<int, int>, int> group_id;
  for (index_t e = 0; e < K; ++e) group_id[{static_cast<int>(mesh.element_shape(e)), static_cast<int>(geometry[e])}] = 0;
  for (auto& [key, id] : group_id) {
    id = static_cast<int>(groups.element_groups.size());
    ElementGroup group;
    group.shape = static_cast<Shape>(key.first);
    group.geometry = static_cast<GeometryKind>(key.second);
    groups.element_groups.push_back(group);
  }
  groups.group_of.resize(K);
  groups.index_in_group.resize(K);
  for (index_t e = 0; e < K; ++e) {
    const int g = group_id[{static_cast<int>(mesh.element_shape(e)), static_cast<int>(geometry[e])}];
    ElementGroup& group = groups.element_groups[g];
    groups.group_of[e] = g;
    groups.index_in_group[e] = group.size();
    group.elements.push_back(e);
    group.geometric_order = std::max(group.geometric_order, geometric_order[e]);
  }

  // One face shape per mesh.
  bool first = true;
  for (const ElementGroup& group : groups.element_groups) {
    const Shape face = face_shape(group.shape);
    if (!first && face != groups.face_shape)
      throw InputError(cat(mesh.source, " mixes elements whose faces are ", shape_name(groups.face_shape), "s and ",
                           shape_name(face), "s; flowdg has no prisms or pyramids to join them"));
    groups.face_shape = face;
    first = false;
  }

  // Faces: each with its group key, then a stable sort by key (boundary groups first, by tag).
  const FaceOrder order = face_order(order_by_default);
  const bool by_family = order != FaceOrder::element, windows = order == FaceOrder::window;
  struct Keyed {
    int tag, group_m, group_p, family;
    index_t window, lower_element;  // window: FaceOrder::window's (else 0)
    GroupFace face;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(connectivity.faces.size());
  for (index_t f = 0; f < connectivity.n_faces(); ++f) {
    const Face& face = connectivity.faces[f];
    Keyed k{};
    k.face.mesh_face = f;
    if (face.element_p < 0) {
      k.tag = face.tag;
      k.group_m = groups.group_of[face.element_m];
      k.group_p = -1;
      k.lower_element = face.element_m;
      k.family = by_family ? face.local_face_m : 0;
      k.face.element_m = k.face.element_p = groups.index_in_group[face.element_m];
      k.face.local_m = k.face.local_p = face.local_face_m;
      k.face.orientation = 0;
    } else {
      index_t element_m = face.element_m, element_p = face.element_p;
      int local_m = face.local_face_m, local_p = face.local_face_p, orientation = face.orientation;
      if (groups.group_of[element_m] > groups.group_of[element_p]) {
        std::swap(element_m, element_p);
        std::swap(local_m, local_p);
        orientation = inverse_orientation(groups.face_shape, orientation);
      }
      k.tag = -1;
      k.group_m = groups.group_of[element_m];
      k.group_p = groups.group_of[element_p];
      k.lower_element = std::min(element_m, element_p);
      k.family = !by_family ? 0 : element_m < element_p ? local_m : local_p;
      if (windows) {
        k.window = k.lower_element / face_window;
        k.family = (local_m * n_faces_max + local_p) * orientation_max + orientation;
      }
      k.face.element_m = groups.index_in_group[element_m];
      k.face.element_p = groups.index_in_group[element_p];
      k.face.local_m = local_m;
      k.face.local_p = local_p;
      k.face.orientation = orientation;
    }
    keyed.push_back(k);
  }
  // Boundary (tag >= 0) before interior (tag -1): sort by (interior, tag, group_m, group_p, family,
  // lower element), the family 0 by default and by family (faces_by_family) the lower element's
  // local face: each family in element order, so that the faces of consecutive elements' local face
  // l are consecutive where a mesh's numbering is regular (the element kernels' gathers of the
  // faces' values by element).
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return std::make_tuple(a.tag < 0, a.tag, a.group_m, a.group_p, a.window, a.family, a.lower_element) <
           std::make_tuple(b.tag < 0, b.tag, b.group_m, b.group_p, b.window, b.family, b.lower_element);
  });
  groups.faces.reserve(keyed.size());
  for (std::size_t i = 0; i < keyed.size(); ++i) {
    const Keyed& k = keyed[i];
    const index_t f = static_cast<index_t>(i);
    if (groups.face_groups.empty() || groups.face_groups.back().tag != k.tag ||
        groups.face_groups.back().group_m != k.group_m || groups.face_groups.back().group_p != k.group_p) {
      FaceGroup group;
      group.tag = k.tag;
      group.group_m = k.group_m;
      group.group_p = k.group_p;
      const bool curved = groups.element_groups[k.group_m].geometry == GeometryKind::curved ||
                          (k.group_p >= 0 && groups.element_groups[k.group_p].geometry == GeometryKind::curved);
      group.geometry = curved ? GeometryKind::curved : GeometryKind::affine;
      group.begin = f;
      groups.face_groups.push_back(group);
    }
    groups.face_groups.back().end = f + 1;
    groups.faces.push_back(k.face);
  }

  // Each element's faces.
  groups.element_faces.resize(groups.element_groups.size());
  groups.element_plus_side.resize(groups.element_groups.size());
  for (std::size_t g = 0; g < groups.element_groups.size(); ++g) {
    const ElementGroup& group = groups.element_groups[g];
    const index_t n = group.size() * n_faces(group.shape);
    groups.element_faces[g].assign(static_cast<std::size_t>(n), -1);
    groups.element_plus_side[g].assign(static_cast<std::size_t>(n), 0);
  }
  for (const FaceGroup& group : groups.face_groups)
    for (index_t f = group.begin; f < group.end; ++f) {
      const GroupFace& face = groups.faces[f];
      groups.element_faces[group.group_m][face.local_m * groups.element_groups[group.group_m].size() + face.element_m] = f;
      if (!group.boundary()) {
        const index_t slot = face.local_p * groups.element_groups[group.group_p].size() + face.element_p;
        groups.element_faces[group.group_p][slot] = f;
        groups.element_plus_side[group.group_p][slot] = 1;
      }
    }
  for (std::size_t g = 0; g < groups.element_groups.size(); ++g) {
    const ElementGroup& group = groups.element_groups[g];
    for (index_t i = 0; i < static_cast<index_t>(groups.element_faces[g].size()); ++i)
      if (groups.element_faces[g][i] < 0)
        throw InputError(cat(mesh.element_label(group.elements[i % group.size()]), " of ", mesh.source, " has no face ",
                             i / group.size(), " in the connectivity"));
  }
  return groups;
}

}  // namespace flowdg::dg
