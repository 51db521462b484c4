#include "flowdg/mesh/validate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numbers>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/lagrange.hpp"
#include "flowdg/mesh/node_buckets.hpp"

namespace flowdg {
namespace {

constexpr std::size_t list_limit = 10;
// Below this relative measure (area / diameter^2, volume / diameter^3) an element is degenerate.
constexpr double zero_measure = 1e-12;
// Smaller angles are legal but cripple the explicit time step; worth a warning.
constexpr double sliver_angle_degrees = 1.0;

double cross_z(Point3 a, Point3 b) { return a.x * b.y - a.y * b.x; }
double triple(Point3 a, Point3 b, Point3 c) { return dot(a, cross(b, c)); }
double norm(Point3 a) { return std::sqrt(dot(a, a)); }

// The angle between two vectors, accurate also near 0 and pi.
double angle_between(Point3 a, Point3 b) { return std::atan2(norm(cross(a, b)), dot(a, b)); }

Point3 vertex(const Mesh& mesh, index_t element, int k) {
  return mesh.nodes[mesh.element_node_ids(element)[k]];
}

// Neighbours of each hexahedron vertex ordered so that the corner tetrahedron is positive.
constexpr int hexahedron_corners[8][3] = {{1, 3, 4}, {2, 0, 5}, {3, 1, 6}, {0, 2, 7},
                                          {7, 5, 0}, {4, 6, 1}, {5, 7, 2}, {6, 4, 3}};

// The Jacobian's sign at each vertex (a multiple of it): one value for simplices, whose Jacobian
// is constant, one per corner for quadrilaterals and hexahedra.
int corner_measures(const Mesh& mesh, index_t e, double* measures) {
  const auto v = [&](int k) { return vertex(mesh, e, k); };
  switch (mesh.element_shape(e)) {
    case Shape::triangle: measures[0] = cross_z(v(1) - v(0), v(2) - v(0)); return 1;
    case Shape::quadrilateral:
      for (int k = 0; k < 4; ++k) measures[k] = cross_z(v((k + 1) % 4) - v(k), v((k + 3) % 4) - v(k));
      return 4;
    case Shape::tetrahedron: measures[0] = triple(v(1) - v(0), v(2) - v(0), v(3) - v(0)); return 1;
    case Shape::hexahedron:
      for (int k = 0; k < 8; ++k) {
        const int* n = hexahedron_corners[k];
        measures[k] = triple(v(n[0]) - v(k), v(n[1]) - v(k), v(n[2]) - v(k));
      }
      return 8;
    default: return 0;
  }
}

// Whether det J <= smallest somewhere in a curved element: it is inverted (negative at the
// vertices), flat, or folds over where its edge nodes bulge across the opposite side. det J at its
// nodes (vertices included) and at the midpoints of all corner pairs (the quadrilaterals'
// diagonals meet at the centre) exposes that.
bool folds_inside(const Mesh& mesh, index_t e, double smallest) {
  const Shape shape = mesh.element_shape(e);
  std::vector<Point3> samples = reference_nodes(mesh.element_types[e]);
  for (int a = 0; a < n_vertices(shape); ++a)
    for (int b = a + 1; b < n_vertices(shape); ++b)
      samples.push_back(0.5 * (reference_vertex(shape, a) + reference_vertex(shape, b)));
  for (const Point3& r : samples)
    if (element_jacobian(mesh, e, r).det <= smallest) return true;
  return false;
}

std::string describe_element(const Mesh& mesh, index_t e) {
  const std::int64_t tag = mesh.element_file_tag(e);
  std::string text = cat("element ", e, tag < 0 ? std::string(" (") : cat(" (Gmsh tag ", tag, "; "), type_name(mesh.element_types[e]),
                         ", vertices");
  for (int k = 0; k < n_vertices(mesh.element_shape(e)); ++k)
    text += cat(k == 0 ? " " : ", ", describe_node(mesh, mesh.element_node_ids(e)[k]));
  return text + ")";
}

// A mirror image in the reference element, which flips the orientation of a linear element.
void reorient(Mesh& mesh, index_t e) {
  index_t* nodes = mesh.element_nodes.data() + mesh.element_offsets[e];
  switch (mesh.element_shape(e)) {
    case Shape::triangle:
    case Shape::tetrahedron: std::swap(nodes[1], nodes[2]); break;
    case Shape::quadrilateral: std::swap(nodes[1], nodes[3]); break;
    case Shape::hexahedron:
      std::swap(nodes[1], nodes[3]);
      std::swap(nodes[5], nodes[7]);
      break;
    default: break;
  }
}

class ItemList {
 public:
  void add(const std::string& item) {
    if (count_++ < list_limit) items_ += (items_.empty() ? "" : "; ") + item;
  }
  /// add(describe()), calling describe only while the list still shows items.
  template <class Describe>
  void add_lazily(Describe describe) {
    if (count_ < list_limit) add(describe());
    else ++count_;
  }
  std::size_t count() const { return count_; }
  std::string items() const { return items_ + (count_ > list_limit ? "; ..." : ""); }

 private:
  std::string items_;
  std::size_t count_ = 0;
};

// The elements e with classify(e) != 0, with that value, in element order. classify runs in
// parallel (it may modify element e only); the few flagged elements are then reported serially,
// in the order and with the messages of a serial loop.
template <class Classify>
std::vector<std::pair<index_t, int>> flagged_elements(index_t n_elements, Classify classify) {
#ifdef _OPENMP
  const int n_parts = omp_get_max_threads();
#else
  const int n_parts = 1;
#endif
  std::vector<std::vector<std::pair<index_t, int>>> parts(n_parts);
#pragma omp parallel for schedule(static)
  for (int part = 0; part < n_parts; ++part) {
    const index_t end = n_elements * (part + 1) / n_parts;
    for (index_t e = n_elements * part / n_parts; e < end; ++e)
      if (const int flag = classify(e); flag != 0) parts[part].emplace_back(e, flag);
  }
  std::vector<std::pair<index_t, int>> flagged = std::move(parts[0]);
  for (int part = 1; part < n_parts; ++part) flagged.insert(flagged.end(), parts[part].begin(), parts[part].end());
  return flagged;
}

bool check_node_ids(const Mesh& mesh, std::vector<std::string>& errors) {
  bool all_good = true;
#pragma omp parallel for schedule(static) reduction(&& : all_good)
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    if (mesh.element_n_nodes(e) != n_nodes(mesh.element_types[e])) {
      all_good = false;
      continue;
    }
    const index_t* ids = mesh.element_node_ids(e);
    for (int k = 0; k < mesh.element_n_nodes(e); ++k) all_good = all_good && ids[k] >= 0 && ids[k] < mesh.n_nodes();
  }
  if (all_good) return true;

  // The messages, from the serial loop.
  ItemList bad;
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    if (mesh.element_n_nodes(e) != n_nodes(mesh.element_types[e])) {
      bad.add(cat(mesh.element_label(e), " has ", mesh.element_n_nodes(e), " nodes, a ",
                  type_name(mesh.element_types[e]), " has ", n_nodes(mesh.element_types[e])));
      continue;
    }
    for (int k = 0; k < mesh.element_n_nodes(e); ++k) {
      const index_t id = mesh.element_node_ids(e)[k];
      if (id < 0 || id >= mesh.n_nodes())
        bad.add(cat(mesh.element_label(e), " uses node ", id, " (the mesh has ", mesh.n_nodes(), " nodes)"));
    }
  }
  if (bad.count() > 0) errors.push_back(cat(bad.count(), " bad element node lists: ", bad.items()));
  return bad.count() == 0;
}

void check_shapes(Mesh& mesh, MeshReport& report) {
  enum Flag { fine = 0, wrong_dimension, degenerate_shape, non_convex_shape, inverted_curved_shape, reoriented_shape };
  const auto flagged = flagged_elements(mesh.n_elements(), [&mesh](index_t e) -> int {
    const int dim = dimension(mesh.element_shape(e));
    if (dim != mesh.dimension) return wrong_dimension;
    const double smallest = zero_measure * std::pow(element_diameter(mesh, e), dim);
    // A curved element's corners are where its curved edges leave the vertices, not where the
    // chords do (a valid curved element may have a re-entrant chord corner): det J decides.
    if (geometric_order(mesh.element_types[e]) > 1) return folds_inside(mesh, e, smallest) ? inverted_curved_shape : fine;
    double measures[8];
    const int n = corner_measures(mesh, e, measures);
    double mean = 0;
    for (int k = 0; k < n; ++k) mean += measures[k] / n;
    const auto [low, high] = std::minmax_element(measures, measures + n);
    if (std::abs(mean) < smallest) return degenerate_shape;
    if (*low <= 0 && *high >= 0) return non_convex_shape;
    if (*high < 0) {
      reorient(mesh, e);  // only element e's own nodes: safe in parallel
      return reoriented_shape;
    }
    return fine;
  });
  ItemList degenerate, non_convex, inverted_curved, reoriented;
  for (const auto& [element, flag] : flagged) {
    const index_t e = element;  // a plain variable, for the lambdas below
    switch (flag) {
      case wrong_dimension:
        report.errors.push_back(cat(describe_element(mesh, e), " is ", dimension(mesh.element_shape(e)), "D in a ",
                                    mesh.dimension, "D mesh"));
        break;
      case degenerate_shape: degenerate.add_lazily([&] { return describe_element(mesh, e); }); break;
      case non_convex_shape: non_convex.add_lazily([&] { return describe_element(mesh, e); }); break;
      case inverted_curved_shape: inverted_curved.add_lazily([&] { return describe_element(mesh, e); }); break;
      case reoriented_shape: reoriented.add_lazily([&] { return cat(e); }); break;
      default: break;
    }
  }
  const char* measure = mesh.dimension == 3 ? "volume" : "area";
  if (degenerate.count() > 0)
    report.errors.push_back(cat(degenerate.count(), " elements have zero ", measure, ": ", degenerate.items()));
  if (non_convex.count() > 0)
    report.errors.push_back(cat(non_convex.count(),
                                " elements are not convex (a corner of 180 degrees or more, or twisted): ",
                                non_convex.items()));
  if (inverted_curved.count() > 0)
    report.errors.push_back(cat(inverted_curved.count(),
                                " curved elements are inverted or fold over (det J <= 0 at a node or between two vertices), "
                                "which renumbering cannot repair: ",
                                inverted_curved.items()));
  if (reoriented.count() > 0)
    report.notes.push_back(cat("reoriented ", reoriented.count(),
                               " inverted elements to positive orientation (first: ", reoriented.items(), ")"));
}

// Sorted vertex ids of an element, padded with values that sort last.
std::array<index_t, 8> vertex_key(const Mesh& mesh, index_t e) {
  std::array<index_t, 8> key;
  key.fill(std::numeric_limits<index_t>::max());
  const int n = n_vertices(mesh.element_shape(e));
  const index_t* ids = mesh.element_node_ids(e);
  for (int k = 0; k < n; ++k) {  // insertion sort of at most 8 ids
    int j = k;
    for (; j > 0 && key[j - 1] > ids[k]; --j) key[j] = key[j - 1];
    key[j] = ids[k];
  }
  return key;
}

// Whether two elements have the same vertex set: elements grouped by their smallest vertex (node
// ids are valid here), and only each group's few elements compared.
bool has_duplicates(const Mesh& mesh) {
  const detail::NodeBuckets buckets = detail::bucket_by_node(mesh.n_elements(), mesh.n_nodes(), [&mesh](index_t e) {
    const index_t* ids = mesh.element_node_ids(e);
    return *std::min_element(ids, ids + n_vertices(mesh.element_shape(e)));
  });
  bool found = false;
#pragma omp parallel reduction(|| : found)
  {
    std::vector<std::array<index_t, 8>> keys;
#pragma omp for schedule(static)
    for (index_t v = 0; v < mesh.n_nodes(); ++v) {
      if (buckets.end(v) - buckets.begin(v) < 2) continue;
      keys.clear();
      for (index_t i = buckets.begin(v); i < buckets.end(v); ++i) keys.push_back(vertex_key(mesh, buckets.items[i]));
      detail::sort_bucket(keys.data(), keys.data() + keys.size(), std::less<>());
      for (std::size_t k = 1; k < keys.size(); ++k) found = found || keys[k] == keys[k - 1];
    }
  }
  return found;
}

bool check_duplicates(const Mesh& mesh, std::vector<std::string>& errors) {
  if (!has_duplicates(mesh)) return true;
  // The message lists the pairs in the order of a sort by vertex set, as it always has.
  std::vector<std::pair<std::array<index_t, 8>, index_t>> keyed(mesh.n_elements());
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    // Padding that sorts last, so the whole array is sorted (see connectivity.cpp).
    std::array<index_t, 8> key;
    key.fill(std::numeric_limits<index_t>::max());
    const int n = n_vertices(mesh.element_shape(e));
    std::copy(mesh.element_node_ids(e), mesh.element_node_ids(e) + n, key.begin());
    std::sort(key.begin(), key.end());
    keyed[e] = {key, e};
  }
  std::sort(keyed.begin(), keyed.end());
  ItemList duplicates;
  for (std::size_t k = 1; k < keyed.size(); ++k)
    if (keyed[k].first == keyed[k - 1].first)
      duplicates.add(cat("elements ", keyed[k - 1].second, " and ", keyed[k].second,
                         " have the same vertices"));
  if (duplicates.count() > 0)
    errors.push_back(cat(duplicates.count(), " duplicate elements: ", duplicates.items()));
  return duplicates.count() == 0;
}

}  // namespace

std::string describe_node(const Mesh& mesh, index_t node) {
  const Point3 p = mesh.nodes[node];
  char text[96];
  if (mesh.dimension == 3)
    std::snprintf(text, sizeof text, " (%.9g, %.9g, %.9g)", p.x, p.y, p.z);
  else
    std::snprintf(text, sizeof text, " (%.9g, %.9g)", p.x, p.y);
  return cat(node, text);
}

double element_diameter(const Mesh& mesh, index_t e) {
  const int n = n_vertices(mesh.element_shape(e));
  double largest = 0;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) largest = std::max(largest, norm(vertex(mesh, e, b) - vertex(mesh, e, a)));
  return largest;
}

double min_angle_degrees(const Mesh& mesh, index_t e) {
  const Shape shape = mesh.element_shape(e);
  const auto v = [&](int k) { return vertex(mesh, e, k); };
  double smallest = std::numbers::pi;
  if (shape == Shape::tetrahedron) {
    Point3 normals[4];
    for (int f = 0; f < 4; ++f) {
      const Point3 a = v(face_vertex(shape, f, 0));
      normals[f] = cross(v(face_vertex(shape, f, 1)) - a, v(face_vertex(shape, f, 2)) - a);
    }
    // The dihedral angle at the edge two faces share is pi minus the angle of their normals.
    for (int f = 0; f < 4; ++f)
      for (int g = f + 1; g < 4; ++g)
        smallest = std::min(smallest, std::numbers::pi - angle_between(normals[f], normals[g]));
  } else {
    // Corner angles of the element's faces (2D: of the element itself).
    const bool solid = dimension(shape) == 3;
    const int polygons = solid ? n_faces(shape) : 1;
    for (int f = 0; f < polygons; ++f) {
      const int n = solid ? n_face_vertices(shape) : n_vertices(shape);
      const auto corner = [&](int k) { return v(solid ? face_vertex(shape, f, k % n) : k % n); };
      for (int k = 0; k < n; ++k)
        smallest = std::min(smallest, angle_between(corner(k + 1) - corner(k), corner(k + n - 1) - corner(k)));
    }
  }
  return smallest * 180.0 / std::numbers::pi;
}

MeshReport validate_mesh(Mesh& mesh) { return validate_mesh(mesh, nullptr); }

MeshReport validate_mesh(Mesh& mesh, Connectivity* connectivity) {
  MeshReport report;
  if (!check_node_ids(mesh, report.errors)) return report;
  check_shapes(mesh, report);
  if (!check_duplicates(mesh, report.errors)) return report;
  {
    Connectivity built = build_connectivity(mesh, report.errors);
    if (connectivity != nullptr && report.ok()) *connectivity = std::move(built);
  }

  ItemList slivers;
  const auto thin = flagged_elements(mesh.n_elements(), [&mesh](index_t e) {
    return min_angle_degrees(mesh, e) < sliver_angle_degrees ? 1 : 0;
  });
  for (const auto& flagged : thin) {
    const index_t e = flagged.first;
    slivers.add_lazily([&] { return cat(mesh.element_label(e), " (", min_angle_degrees(mesh, e), " degrees)"); });
  }
  if (slivers.count() > 0)
    report.warnings.push_back(cat(slivers.count(), " elements have an angle below ", sliver_angle_degrees,
                                  " degree, which shrinks the stable time step: ", slivers.items()));
  return report;
}

void validate_or_throw(Mesh& mesh) { validate_or_throw(mesh, nullptr); }

void validate_or_throw(Mesh& mesh, Connectivity* connectivity) {
  const MeshReport report = validate_mesh(mesh, connectivity);
  if (report.ok()) return;
  constexpr std::size_t shown = 3;
  std::string message = cat("mesh ", mesh.source, " is invalid: ");
  for (std::size_t k = 0; k < std::min(shown, report.errors.size()); ++k)
    message += (k == 0 ? "" : "; and ") + report.errors[k];
  if (report.errors.size() > shown) message += cat(" (and ", report.errors.size() - shown, " more problems)");
  throw InputError(message);
}

}  // namespace flowdg
