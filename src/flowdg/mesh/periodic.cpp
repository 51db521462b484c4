#include "flowdg/mesh/periodic.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "flowdg/core/error.hpp"

namespace flowdg {

namespace {

struct FaceVertices {
  Point3 points[4];
  int n = 0;
};

FaceVertices face_vertices(const Mesh& mesh, index_t element, int local_face) {
  const Shape shape = mesh.element_shape(element);
  const index_t* nodes = mesh.element_node_ids(element);
  FaceVertices result;
  result.n = n_face_vertices(shape);
  for (int k = 0; k < result.n; ++k) result.points[k] = mesh.nodes[nodes[face_vertex(shape, local_face, k)]];
  return result;
}

Point3 centroid(const FaceVertices& vertices) {
  Point3 sum;
  for (int k = 0; k < vertices.n; ++k) sum = sum + vertices.points[k];
  return (1.0 / vertices.n) * sum;
}

double distance(Point3 a, Point3 b) { return std::sqrt(dot(a - b, a - b)); }

}  // namespace

void make_periodic(const Mesh& mesh, Connectivity& connectivity, int tag_a, int tag_b, Point3 translation) {
  const auto n_tags = static_cast<int>(connectivity.tag_offsets.size()) - 1;
  auto tag_name = [&](int tag) { return tag >= 0 && tag < static_cast<int>(mesh.boundary_names.size()) ? mesh.boundary_names[tag] : cat("#", tag); };
  if (tag_a < 0 || tag_b < 0 || tag_a >= n_tags || tag_b >= n_tags || tag_a == tag_b)
    throw InputError(cat("periodic pair '", tag_name(tag_a), "' / '", tag_name(tag_b), "' is not a pair of two boundary tags of ", mesh.source));
  const index_t a_begin = connectivity.tag_offsets[tag_a], a_end = connectivity.tag_offsets[tag_a + 1];
  const index_t b_begin = connectivity.tag_offsets[tag_b], b_end = connectivity.tag_offsets[tag_b + 1];
  if (a_end - a_begin != b_end - b_begin)
    throw InputError(cat("periodic boundaries '", tag_name(tag_a), "' (", a_end - a_begin, " faces) and '", tag_name(tag_b), "' (",
                         b_end - b_begin, " faces) of ", mesh.source, " do not have the same number of faces"));

  // Index tag_b's faces by their centroid moved back by the translation, on a grid much finer
  // than a face (the 8 neighbouring cells are searched, so rounding at a cell edge is harmless).
  double face_size = 0;
  for (index_t f = a_begin; f < a_end; ++f) {
    const FaceVertices v = face_vertices(mesh, connectivity.faces[f].element_m, connectivity.faces[f].local_face_m);
    face_size = std::max(face_size, distance(v.points[0], v.points[1]));
  }
  const double cell = std::max(face_size, 1e-300) * 0.25;
  using Key = std::tuple<long long, long long, long long>;
  auto key_of = [&](Point3 x) { return Key{std::llround(x.x / cell), std::llround(x.y / cell), std::llround(x.z / cell)}; };
  std::multimap<Key, index_t> b_faces;
  for (index_t f = b_begin; f < b_end; ++f)
    b_faces.emplace(key_of(centroid(face_vertices(mesh, connectivity.faces[f].element_m, connectivity.faces[f].local_face_m)) - translation), f);

  std::vector<Face> joined;
  std::vector<char> used(static_cast<std::size_t>(b_end - b_begin), 0);
  const double tolerance = 1e-8 * face_size;
  for (index_t f = a_begin; f < a_end; ++f) {
    const Face& face_a = connectivity.faces[f];
    const FaceVertices va = face_vertices(mesh, face_a.element_m, face_a.local_face_m);
    const Key key = key_of(centroid(va));
    index_t partner = -1;
    int orientation = -1;
    for (long long dx = -1; dx <= 1 && partner < 0; ++dx)
      for (long long dy = -1; dy <= 1 && partner < 0; ++dy)
        for (long long dz = -1; dz <= 1 && partner < 0; ++dz) {
          const Key probe{std::get<0>(key) + dx, std::get<1>(key) + dy, std::get<2>(key) + dz};
          for (auto [it, end] = b_faces.equal_range(probe); it != end && partner < 0; ++it) {
            const Face& face_b = connectivity.faces[it->second];
            FaceVertices vb = face_vertices(mesh, face_b.element_m, face_b.local_face_m);
            for (int k = 0; k < vb.n; ++k) vb.points[k] = vb.points[k] - translation;
            const Shape shape = face_shape(mesh.element_shape(face_a.element_m));
            for (int o = 0; o < 2 * vb.n && partner < 0; ++o) {
              bool match = true;
              for (int k = 0; k < va.n && match; ++k)
                match = distance(va.points[k], vb.points[face_vertex_permutation(shape, o, k)]) <= tolerance;
              if (match) {
                partner = it->second;
                orientation = o;
              }
            }
          }
        }
    if (partner < 0 || used[partner - b_begin])
      throw InputError(cat("periodic boundary '", tag_name(tag_a), "' face at (", centroid(va).x, ", ", centroid(va).y, ", ",
                           centroid(va).z, ") has no partner on '", tag_name(tag_b), "' translated by (", translation.x, ", ",
                           translation.y, ", ", translation.z, ") in ", mesh.source));
    used[partner - b_begin] = 1;
    const Face& face_b = connectivity.faces[partner];
    Face interior;
    interior.element_m = face_a.element_m;
    interior.local_face_m = face_a.local_face_m;
    interior.element_p = face_b.element_m;
    interior.local_face_p = face_b.local_face_m;
    interior.tag = -1;
    interior.orientation = orientation;
    joined.push_back(interior);
  }

  replace_boundary_faces(connectivity, {tag_a, tag_b}, joined);
}

void replace_boundary_faces(Connectivity& connectivity, std::initializer_list<int> tags, const std::vector<Face>& joins) {
  // Remaining boundary faces grouped by tag, then the old and new interior faces.
  const auto n_tags = static_cast<int>(connectivity.tag_offsets.size()) - 1;
  std::vector<Face> faces;
  std::vector<index_t> offsets(1, 0);
  for (int tag = 0; tag < n_tags; ++tag) {
    if (std::find(tags.begin(), tags.end(), tag) == tags.end())
      for (index_t f = connectivity.tag_offsets[tag]; f < connectivity.tag_offsets[tag + 1]; ++f) faces.push_back(connectivity.faces[f]);
    offsets.push_back(static_cast<index_t>(faces.size()));
  }
  for (index_t f = connectivity.n_boundary_faces(); f < connectivity.n_faces(); ++f) faces.push_back(connectivity.faces[f]);
  faces.insert(faces.end(), joins.begin(), joins.end());
  std::fill(connectivity.element_faces.begin(), connectivity.element_faces.end(), -1);
  for (index_t f = 0; f < static_cast<index_t>(faces.size()); ++f) {
    connectivity.element_faces[faces[f].element_m * connectivity.max_faces + faces[f].local_face_m] = f;
    if (faces[f].element_p >= 0) connectivity.element_faces[faces[f].element_p * connectivity.max_faces + faces[f].local_face_p] = f;
  }
  connectivity.faces = std::move(faces);
  connectivity.tag_offsets = std::move(offsets);
}

}  // namespace flowdg
