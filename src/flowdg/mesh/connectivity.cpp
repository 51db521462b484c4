#include "flowdg/mesh/connectivity.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/node_buckets.hpp"
#include "flowdg/mesh/validate.hpp"

namespace flowdg {

int face_vertex_ids(const Mesh& mesh, index_t element, int local_face, index_t* ids) {
  const Shape shape = mesh.element_shape(element);
  const index_t* nodes = mesh.element_node_ids(element);
  const int n = n_face_vertices(shape);
  for (int k = 0; k < n; ++k) ids[k] = nodes[face_vertex(shape, local_face, k)];
  return n;
}

namespace {

// How many offending items a message lists before giving only the count.
constexpr std::size_t list_limit = 10;

// Sorted vertex ids; the padding sorts last, so the whole array can be sorted (a variable-length
// sort of a fixed array trips GCC 12's -Warray-bounds).
using FaceKey = std::array<index_t, 4>;
constexpr index_t no_vertex = std::numeric_limits<index_t>::max();

// One element's view of one of its faces. Sorting these by key brings the sides of each face
// together: faster and more deterministic than a hash map for millions of faces.
struct HalfFace {
  FaceKey key;
  index_t element;
  int local_face;
};

FaceKey sorted_key(const index_t* ids, int n) {
  FaceKey key;
  key.fill(no_vertex);
  std::copy(ids, ids + n, key.begin());
  std::sort(key.begin(), key.end());
  return key;
}

std::vector<HalfFace> sorted_half_faces(const Mesh& mesh) {
  std::vector<HalfFace> half_faces;
  std::size_t total = 0;
  for (index_t e = 0; e < mesh.n_elements(); ++e) total += n_faces(mesh.element_shape(e));
  half_faces.reserve(total);
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    for (int f = 0; f < n_faces(mesh.element_shape(e)); ++f) {
      index_t ids[4];
      const int n = face_vertex_ids(mesh, e, f, ids);
      half_faces.push_back({sorted_key(ids, n), e, f});
    }
  }
  std::sort(half_faces.begin(), half_faces.end(), [](const HalfFace& a, const HalfFace& b) {
    if (a.key != b.key) return a.key < b.key;
    return a.element != b.element ? a.element < b.element : a.local_face < b.local_face;
  });
  return half_faces;
}

// Calls visit(first, last) for each run of half-faces with the same key.
template <class Visit>
void for_each_face(const std::vector<HalfFace>& half_faces, Visit visit) {
  for (std::size_t first = 0; first < half_faces.size();) {
    std::size_t last = first + 1;
    while (last < half_faces.size() && half_faces[last].key == half_faces[first].key) ++last;
    visit(first, last);
    first = last;
  }
}

std::string describe_face(const Mesh& mesh, const FaceKey& key) {
  std::string text = "face with nodes";
  for (const index_t id : key)
    if (id != no_vertex) text += cat(id == key[0] ? " " : ", ", describe_node(mesh, id));
  return text;
}

// Collects offending items of one kind into one message: "<count> <what>: item; item; ...".
class ProblemList {
 public:
  explicit ProblemList(std::string what) : what_(std::move(what)) {}
  void add(const std::string& item) {
    if (count_++ < list_limit) items_ += (items_.empty() ? "" : "; ") + item;
  }
  std::size_t count() const { return count_; }
  void report(std::vector<std::string>& errors) const {
    if (count_ == 0) return;
    errors.push_back(cat(count_, " ", what_, ": ", items_, count_ > list_limit ? "; ..." : ""));
  }

 private:
  std::string what_;
  std::string items_;
  std::size_t count_ = 0;
};

int orientation_count(Shape face) {
  return face == Shape::line ? 2 : 2 * n_vertices(face);
}

// The orientation code that maps the plus side's face vertex list onto the minus side's, or -1.
int match_orientation(Shape face, const index_t* minus, const index_t* plus) {
  for (int orientation = 0; orientation < orientation_count(face); ++orientation) {
    bool same = true;
    for (int k = 0; k < n_vertices(face) && same; ++k)
      same = minus[k] == plus[face_vertex_permutation(face, orientation, k)];
    if (same) return orientation;
  }
  return -1;
}

// One side of a face: an element and its local face index.
struct Side {
  index_t element;
  int local_face;
};

// 2D: a vertex strictly inside a boundary edge. 3D: a vertex strictly inside an edge of a boundary
// face. Both are what a refined neighbour leaves behind. Vertices are binned in a sparse grid of
// about one edge length, so each edge only tests the vertices near it.
void find_hanging_faces(const Mesh& mesh, std::span<const Side> boundary, ProblemList& problems) {
  struct Edge {
    index_t a, b;
    index_t element;
  };
  std::vector<Edge> edges;
  std::vector<std::pair<index_t, index_t>> vertex_elements;  // (vertex, element) on the boundary
  for (const Side& side : boundary) {
    index_t ids[4];
    const int n = face_vertex_ids(mesh, side.element, side.local_face, ids);
    const int n_edges = n == 2 ? 1 : n;
    for (int k = 0; k < n_edges; ++k)
      edges.push_back({std::min(ids[k], ids[(k + 1) % n]), std::max(ids[k], ids[(k + 1) % n]), side.element});
    for (int k = 0; k < n; ++k) vertex_elements.emplace_back(ids[k], side.element);
  }
  if (edges.empty()) return;
  std::sort(vertex_elements.begin(), vertex_elements.end());
  vertex_elements.erase(std::unique(vertex_elements.begin(), vertex_elements.end()),
                        vertex_elements.end());

  double total_length = 0;
  Point3 low = mesh.nodes[edges[0].a], high = low;
  for (const Edge& edge : edges) {
    const Point3 d = mesh.nodes[edge.b] - mesh.nodes[edge.a];
    total_length += std::sqrt(dot(d, d));
    for (const index_t id : {edge.a, edge.b}) {
      const Point3 p = mesh.nodes[id];
      low = {std::min(low.x, p.x), std::min(low.y, p.y), std::min(low.z, p.z)};
      high = {std::max(high.x, p.x), std::max(high.y, p.y), std::max(high.z, p.z)};
    }
  }
  const double extent = std::max({high.x - low.x, high.y - low.y, high.z - low.z});
  // Cell coordinates must fit in 21 bits each for the packed key.
  const double cell = std::max(total_length / static_cast<double>(edges.size()), extent * 0x1.0p-20);
  if (!(cell > 0)) return;
  const auto cell_of = [&](double x, double origin) {
    return static_cast<std::uint64_t>(std::clamp((x - origin) / cell, 0.0, 0x1.0p21 - 1));
  };
  const auto cell_key = [](std::uint64_t i, std::uint64_t j, std::uint64_t k) {
    return (i << 42) | (j << 21) | k;
  };
  std::vector<std::pair<std::uint64_t, index_t>> binned;  // (cell key, vertex)
  for (std::size_t v = 0; v < vertex_elements.size(); ++v) {
    if (v > 0 && vertex_elements[v].first == vertex_elements[v - 1].first) continue;
    const Point3 p = mesh.nodes[vertex_elements[v].first];
    binned.emplace_back(cell_key(cell_of(p.x, low.x), cell_of(p.y, low.y), cell_of(p.z, low.z)),
                        vertex_elements[v].first);
  }
  std::sort(binned.begin(), binned.end());

  constexpr double tolerance = 1e-10;  // relative to the edge length
  for (const Edge& edge : edges) {
    const Point3 a = mesh.nodes[edge.a], b = mesh.nodes[edge.b], d = b - a;
    const double length_squared = dot(d, d);
    const double slack = tolerance * std::sqrt(length_squared);
    const auto range = [&](double x0, double x1, double origin) {
      return std::pair{cell_of(std::min(x0, x1) - slack, origin), cell_of(std::max(x0, x1) + slack, origin)};
    };
    const auto [i0, i1] = range(a.x, b.x, low.x);
    const auto [j0, j1] = range(a.y, b.y, low.y);
    const auto [k0, k1] = range(a.z, b.z, low.z);
    for (auto i = i0; i <= i1; ++i)
      for (auto j = j0; j <= j1; ++j)
        for (auto k = k0; k <= k1; ++k) {
          const std::uint64_t key = cell_key(i, j, k);
          auto it = std::lower_bound(binned.begin(), binned.end(), std::pair{key, index_t{-1}});
          for (; it != binned.end() && it->first == key; ++it) {
            const index_t id = it->second;
            if (id == edge.a || id == edge.b) continue;
            const Point3 offset = mesh.nodes[id] - a;
            const double t = dot(offset, d) / length_squared;
            const Point3 off_line = offset - t * d;
            if (t <= tolerance || t >= 1 - tolerance ||
                dot(off_line, off_line) > tolerance * tolerance * length_squared)
              continue;
            std::string users;
            auto user = std::lower_bound(vertex_elements.begin(), vertex_elements.end(),
                                         std::pair{id, index_t{-1}});
            for (; user != vertex_elements.end() && user->first == id; ++user)
              users += cat(users.empty() ? "" : ", ", user->second);
            problems.add(cat("node ", describe_node(mesh, id), " of element(s) ", users,
                             " lies inside the edge from node ", edge.a, " to node ", edge.b,
                             " of element ", edge.element));
          }
        }
  }
}

// The straightforward algorithm: sort all half-faces by vertex set, walk the runs, then sort the
// faces into their final order. Kept for broken meshes, for the messages in the order they always
// had; valid meshes take match_faces below, which gives the same connectivity.
Connectivity build_by_sorting(const Mesh& mesh, std::vector<std::string>& errors) {
  const std::vector<HalfFace> half_faces = sorted_half_faces(mesh);
  const int n_tags = static_cast<int>(mesh.boundary_names.size());

  Connectivity connectivity;
  std::vector<std::size_t> boundary;  // half-face index of each face with one side
  ProblemList crowded("faces are shared by more than two elements");
  ProblemList self_adjacent("elements have two faces with the same vertices");
  ProblemList mismatched("shared faces whose vertex order matches no orientation");
  for_each_face(half_faces, [&](std::size_t first, std::size_t last) {
    const HalfFace& minus = half_faces[first];
    if (last - first == 1) {
      boundary.push_back(first);
      return;
    }
    if (last - first > 2) {
      std::string elements;
      for (std::size_t h = first; h < last; ++h)
        elements += cat(h == first ? "" : ", ", half_faces[h].element);
      crowded.add(cat(describe_face(mesh, minus.key), " is shared by elements ", elements));
      return;
    }
    const HalfFace& plus = half_faces[first + 1];
    if (plus.element == minus.element) {
      self_adjacent.add(cat(mesh.element_label(minus.element), " (", describe_face(mesh, minus.key), ")"));
      return;
    }
    index_t minus_ids[4], plus_ids[4];
    face_vertex_ids(mesh, minus.element, minus.local_face, minus_ids);
    face_vertex_ids(mesh, plus.element, plus.local_face, plus_ids);
    const int orientation =
        match_orientation(face_shape(mesh.element_shape(minus.element)), minus_ids, plus_ids);
    if (orientation < 0) {
      mismatched.add(cat("elements ", minus.element, " and ", plus.element, " (",
                         describe_face(mesh, minus.key), ")"));
      return;
    }
    connectivity.faces.push_back(
        {minus.element, plus.element, minus.local_face, plus.local_face, -1, orientation});
  });

  ProblemList hanging("non-conforming (hanging) faces");
  if (mesh.dimension >= 2) {
    std::vector<Side> sides;
    for (const std::size_t h : boundary) sides.push_back({half_faces[h].element, half_faces[h].local_face});
    find_hanging_faces(mesh, sides, hanging);
  }

  // Tagged facets sorted by vertex set, to look up each boundary face's tag.
  std::vector<std::pair<FaceKey, int>> facets;
  std::vector<bool> used;
  ProblemList bad_tag("tagged facets with an unknown tag id");
  ProblemList malformed("malformed tagged facets");
  for (std::size_t f = 0; f < mesh.tagged_facets.size(); ++f) {
    const TaggedFacet& facet = mesh.tagged_facets[f];
    const auto vertices = std::span(facet.vertices).first(std::clamp(facet.n_vertices, 0, 4));
    if (facet.n_vertices < 2 || facet.n_vertices > 4 ||
        std::any_of(vertices.begin(), vertices.end(),
                    [&](index_t id) { return id < 0 || id >= mesh.n_nodes(); })) {
      malformed.add(cat("facet ", f, " has ", facet.n_vertices, " vertices or a node id outside [0, ",
                        mesh.n_nodes(), ")"));
      continue;
    }
    const FaceKey key = sorted_key(facet.vertices.data(), facet.n_vertices);
    if (facet.tag < 0 || facet.tag >= n_tags)
      bad_tag.add(cat(describe_face(mesh, key), " has tag ", facet.tag, " but the mesh has ",
                      n_tags, " boundary names"));
    else
      facets.emplace_back(key, facet.tag);
  }
  std::sort(facets.begin(), facets.end());
  facets.erase(std::unique(facets.begin(), facets.end()), facets.end());
  used.assign(facets.size(), false);
  const auto facets_of = [&](const FaceKey& key) {
    return std::equal_range(facets.begin(), facets.end(), std::pair{key, -1},
                            [](const auto& x, const auto& y) { return x.first < y.first; });
  };

  ProblemList untagged("boundary faces have no boundary tag");
  ProblemList conflicting("boundary faces carry more than one tag");
  for (const std::size_t h : boundary) {
    const HalfFace& side = half_faces[h];
    const auto [begin, end] = facets_of(side.key);
    if (begin == end) {
      untagged.add(cat(describe_face(mesh, side.key), " of element ", side.element));
      continue;
    }
    for (auto it = begin; it != end; ++it) used[it - facets.begin()] = true;
    if (end - begin > 1) {
      std::string names;
      for (auto it = begin; it != end; ++it)
        names += cat(it == begin ? "" : ", ", mesh.boundary_names[it->second]);
      conflicting.add(cat(describe_face(mesh, side.key), " of element ", side.element, " (", names, ")"));
    }
    connectivity.faces.push_back({side.element, -1, side.local_face, -1, begin->second, 0});
  }

  // Facets on interior faces are allowed (an interface named in the mesher), others are errors.
  ProblemList orphan("tagged facets are not a face of any element");
  for (std::size_t f = 0; f < facets.size(); ++f) {
    if (used[f]) continue;
    const bool interior = std::binary_search(
        half_faces.begin(), half_faces.end(), HalfFace{facets[f].first, -1, -1},
        [](const HalfFace& x, const HalfFace& y) { return x.key < y.key; });
    if (!interior)
      orphan.add(cat(describe_face(mesh, facets[f].first), " tagged '",
                     mesh.boundary_names[facets[f].second], "'"));
  }

  const std::size_t n_errors = errors.size();
  for (const ProblemList* problems :
       {&crowded, &self_adjacent, &mismatched, &hanging, &malformed, &bad_tag, &conflicting, &untagged, &orphan})
    problems->report(errors);
  if (errors.size() > n_errors) return connectivity;

  const auto group = [n_tags](const Face& face) { return face.tag < 0 ? n_tags : face.tag; };
  std::sort(connectivity.faces.begin(), connectivity.faces.end(),
            [&](const Face& a, const Face& b) {
              if (group(a) != group(b)) return group(a) < group(b);
              return a.element_m != b.element_m ? a.element_m < b.element_m
                                                : a.local_face_m < b.local_face_m;
            });
  connectivity.tag_offsets.assign(n_tags + 1, 0);
  for (const Face& face : connectivity.faces)
    if (face.tag >= 0) ++connectivity.tag_offsets[face.tag + 1];
  std::partial_sum(connectivity.tag_offsets.begin(), connectivity.tag_offsets.end(),
                   connectivity.tag_offsets.begin());

  for (index_t e = 0; e < mesh.n_elements(); ++e)
    connectivity.max_faces = std::max(connectivity.max_faces, n_faces(mesh.element_shape(e)));
  connectivity.element_faces.assign(
      static_cast<std::size_t>(mesh.n_elements()) * connectivity.max_faces, -1);
  for (index_t f = 0; f < connectivity.n_faces(); ++f) {
    const Face& face = connectivity.faces[f];
    connectivity.element_faces[face.element_m * connectivity.max_faces + face.local_face_m] = f;
    if (face.element_p >= 0)
      connectivity.element_faces[face.element_p * connectivity.max_faces + face.local_face_p] = f;
  }
  return connectivity;
}

// ---- Fast path for valid meshes ------------------------------------------------------------------
//
// Half-faces are grouped by their smallest vertex (a parallel counting sort, node_buckets.hpp),
// each bucket is sorted by (vertex set, element, local face) like the reference's global sort, and
// the runs of equal vertex sets are matched bucket by bucket, in parallel. The result is written
// per half-face slot (element * max_faces + local face), whose order is the final face order within
// each group (boundary tags, then interior), so the faces are numbered by a prefix count instead of
// a sort. Any problem makes match_faces return false and the caller runs the reference.

// What a slot holds between matching and numbering.
constexpr index_t slot_absent = -1;  // the element has fewer faces than max_faces
constexpr index_t slot_plus = -2;    // the plus side of an interior face
// A boundary face with tag t: -3 - t. The minus side of an interior face: (plus slot << 3) | orientation.
constexpr index_t boundary_code(int tag) { return -3 - static_cast<index_t>(tag); }
constexpr int orientation_bits = 3;  // orientation codes are 0..7

bool key_less(const FaceKey& a, const FaceKey& b) {
  for (int k = 0; k < 4; ++k)
    if (a[k] != b[k]) return a[k] < b[k];
  return false;
}

FaceKey face_key(const Mesh& mesh, index_t element, int local_face) {
  index_t ids[4];
  const int n = face_vertex_ids(mesh, element, local_face, ids);
  FaceKey key;
  key.fill(no_vertex);
  for (int k = 0; k < n; ++k) {  // insertion sort of at most 4 ids; the padding stays last
    int j = k;
    for (; j > 0 && key[j - 1] > ids[k]; --j) key[j] = key[j - 1];
    key[j] = ids[k];
  }
  return key;
}

// Tagged facets sorted by vertex set, as the reference builds them; false if any facet is
// malformed or has an unknown tag.
bool sorted_facets(const Mesh& mesh, std::vector<std::pair<FaceKey, int>>& facets) {
  const int n_tags = static_cast<int>(mesh.boundary_names.size());
  facets.reserve(mesh.tagged_facets.size());
  for (const TaggedFacet& facet : mesh.tagged_facets) {
    const auto vertices = std::span(facet.vertices).first(std::clamp(facet.n_vertices, 0, 4));
    if (facet.n_vertices < 2 || facet.n_vertices > 4 ||
        std::any_of(vertices.begin(), vertices.end(), [&](index_t id) { return id < 0 || id >= mesh.n_nodes(); }))
      return false;
    if (facet.tag < 0 || facet.tag >= n_tags) return false;
    facets.emplace_back(sorted_key(facet.vertices.data(), facet.n_vertices), facet.tag);
  }
  std::sort(facets.begin(), facets.end());
  facets.erase(std::unique(facets.begin(), facets.end()), facets.end());
  return true;
}

// The largest number of faces of an element, or -1 if an element has fewer nodes than vertices
// or a vertex id outside [0, n_nodes) (the reference copes with those; the buckets cannot).
int checked_max_faces(const Mesh& mesh) {
  const index_t n_elements = mesh.n_elements(), n_nodes = mesh.n_nodes();
  if (mesh.element_offsets.size() != static_cast<std::size_t>(n_elements) + 1) return -1;
  int max_faces = 0;
  bool sane = true;
#pragma omp parallel for schedule(static) reduction(max : max_faces) reduction(&& : sane)
  for (index_t e = 0; e < n_elements; ++e) {
    const Shape shape = mesh.element_shape(e);
    const int n = n_vertices(shape);
    if (mesh.element_n_nodes(e) < n) {
      sane = false;
      continue;
    }
    const index_t* nodes = mesh.element_node_ids(e);
    for (int k = 0; k < n; ++k) sane = sane && nodes[k] >= 0 && nodes[k] < n_nodes;
    max_faces = std::max(max_faces, n_faces(shape));
  }
  return sane ? max_faces : -1;
}

// Half-face slots (element * max_faces + local face) grouped by their smallest vertex.
detail::NodeBuckets half_face_buckets(const Mesh& mesh, int max_faces) {
  return detail::bucket_by_node(mesh.n_elements() * max_faces, mesh.n_nodes(), [&mesh, max_faces](index_t slot) -> index_t {
    const index_t e = slot / max_faces;
    const int f = static_cast<int>(slot % max_faces);
    const Shape shape = mesh.element_shape(e);
    if (f >= n_faces(shape)) return -1;
    const index_t* nodes = mesh.element_node_ids(e);
    index_t low = nodes[face_vertex(shape, f, 0)];
    for (int k = 1; k < n_face_vertices(shape); ++k) low = std::min(low, nodes[face_vertex(shape, f, k)]);
    return low;
  });
}

// The half-faces of bucket v in the reference's order: by vertex set, element, local face.
void sorted_bucket(const Mesh& mesh, const detail::NodeBuckets& buckets, index_t v, int max_faces,
                   std::vector<HalfFace>& bucket) {
  bucket.clear();
  for (index_t i = buckets.begin(v); i < buckets.end(v); ++i) {
    const index_t slot = buckets.items[i];
    const index_t e = slot / max_faces;
    const int f = static_cast<int>(slot % max_faces);
    bucket.push_back({face_key(mesh, e, f), e, f});
  }
  detail::sort_bucket(bucket.data(), bucket.data() + bucket.size(), [](const HalfFace& a, const HalfFace& b) {
    if (a.key != b.key) return key_less(a.key, b.key);
    return a.element != b.element ? a.element < b.element : a.local_face < b.local_face;
  });
}

bool match_faces(const Mesh& mesh, Connectivity& connectivity) {
  const index_t n_elements = mesh.n_elements(), n_nodes = mesh.n_nodes();
  const int n_tags = static_cast<int>(mesh.boundary_names.size());
  const int max_faces = checked_max_faces(mesh);
  if (max_faces < 0) return false;

  std::vector<std::pair<FaceKey, int>> facets;
  if (!sorted_facets(mesh, facets)) return false;
  std::vector<char> used(facets.size(), 0);

  const index_t n_slots = n_elements * max_faces;
  detail::NodeBuckets buckets = half_face_buckets(mesh, max_faces);

  // Matching, bucket by bucket. Static schedule: thread t gets the t-th block of buckets, so the
  // boundary sides concatenated by thread are in the reference's (vertex set) order.
  std::vector<index_t>& code = connectivity.element_faces;
  code.assign(static_cast<std::size_t>(n_slots), slot_absent);
#ifdef _OPENMP
  const int max_threads = omp_get_max_threads();
#else
  const int max_threads = 1;
#endif
  std::vector<std::vector<Side>> boundary_parts(max_threads);
  bool ok = true;
#pragma omp parallel reduction(&& : ok)
  {
#ifdef _OPENMP
    std::vector<Side>& boundary_part = boundary_parts[omp_get_thread_num()];
#else
    std::vector<Side>& boundary_part = boundary_parts[0];
#endif
    std::vector<HalfFace> bucket;
#pragma omp for schedule(static)
    for (index_t v = 0; v < n_nodes; ++v) {
      if (buckets.begin(v) == buckets.end(v)) continue;
      sorted_bucket(mesh, buckets, v, max_faces, bucket);
      for (std::size_t first = 0; first < bucket.size();) {
        std::size_t last = first + 1;
        while (last < bucket.size() && bucket[last].key == bucket[first].key) ++last;
        const HalfFace& minus = bucket[first];
        const index_t minus_slot = minus.element * max_faces + minus.local_face;
        if (last - first == 1) {
          const auto [match, match_end] =
              std::equal_range(facets.begin(), facets.end(), std::pair{minus.key, -1},
                               [](const auto& x, const auto& y) { return key_less(x.first, y.first); });
          if (match_end - match != 1) {
            ok = false;  // untagged, or more than one tag
          } else {
#pragma omp atomic write
            used[match - facets.begin()] = 1;
            code[minus_slot] = boundary_code(match->second);
            boundary_part.push_back({minus.element, minus.local_face});
          }
        } else if (last - first > 2) {
          ok = false;
        } else {
          const HalfFace& plus = bucket[first + 1];
          index_t minus_ids[4], plus_ids[4];
          face_vertex_ids(mesh, minus.element, minus.local_face, minus_ids);
          face_vertex_ids(mesh, plus.element, plus.local_face, plus_ids);
          const int orientation =
              plus.element == minus.element
                  ? -1
                  : match_orientation(face_shape(mesh.element_shape(minus.element)), minus_ids, plus_ids);
          if (orientation < 0) {
            ok = false;
          } else {
            const index_t plus_slot = plus.element * max_faces + plus.local_face;
            code[minus_slot] = (plus_slot << orientation_bits) | orientation;
            code[plus_slot] = slot_plus;
          }
        }
        first = last;
      }
    }
  }
  if (!ok) return false;

  // Tagged facets that are not a boundary face must be an interior face.
  for (std::size_t f = 0; f < facets.size(); ++f) {
    if (used[f]) continue;
    const FaceKey& key = facets[f].first;
    bool found = false;
    for (index_t i = buckets.begin(key[0]); i < buckets.end(key[0]) && !found; ++i)
      found = face_key(mesh, buckets.items[i] / max_faces, static_cast<int>(buckets.items[i] % max_faces)) == key;
    if (!found) return false;
  }
  buckets = {};

  if (mesh.dimension >= 2) {
    std::vector<Side> boundary;
    for (const auto& part : boundary_parts) boundary.insert(boundary.end(), part.begin(), part.end());
    ProblemList hanging("");
    find_hanging_faces(mesh, boundary, hanging);
    if (hanging.count() > 0) return false;
  }

  // Numbering: the faces of group g (tag g, or interior for g = n_tags) in slot order. Each of
  // n_chunks slot ranges counts its faces per group; prefix sums give each range's first index.
  const int n_groups = n_tags + 1;
  const index_t n_chunks = std::max<index_t>(1, std::min<index_t>(4 * max_threads, n_slots));
  const auto chunk_begin = [&](index_t c) { return n_slots * c / n_chunks; };
  const auto group_of = [n_tags](index_t slot_code) {
    return slot_code >= 0 ? n_tags : (slot_code <= boundary_code(0) ? static_cast<int>(-3 - slot_code) : -1);
  };
  std::vector<index_t> first_face(static_cast<std::size_t>(n_chunks) * n_groups, 0);
#pragma omp parallel for schedule(static)
  for (index_t c = 0; c < n_chunks; ++c)
    for (index_t s = chunk_begin(c); s < chunk_begin(c + 1); ++s) {
      const int g = group_of(code[s]);
      if (g >= 0) ++first_face[c * n_groups + g];
    }
  connectivity.tag_offsets.assign(n_tags + 1, 0);
  index_t n_faces_total = 0;
  for (int g = 0; g < n_groups; ++g) {
    connectivity.tag_offsets[g] = n_faces_total;  // g = n_tags: where the interior faces start
    for (index_t c = 0; c < n_chunks; ++c) {
      const index_t count = first_face[c * n_groups + g];
      first_face[c * n_groups + g] = n_faces_total;
      n_faces_total += count;
    }
  }
  connectivity.faces.resize(static_cast<std::size_t>(n_faces_total));
  Face* faces = connectivity.faces.data();
#pragma omp parallel for schedule(static)
  for (index_t c = 0; c < n_chunks; ++c) {
    index_t* next = &first_face[c * n_groups];
    for (index_t s = chunk_begin(c); s < chunk_begin(c + 1); ++s) {
      const index_t slot_code = code[s];
      const int g = group_of(slot_code);
      if (g < 0) continue;
      Face& face = faces[next[g]++];
      face.element_m = s / max_faces;
      face.local_face_m = static_cast<int>(s % max_faces);
      if (slot_code >= 0) {
        const index_t plus_slot = slot_code >> orientation_bits;
        face.element_p = plus_slot / max_faces;
        face.local_face_p = static_cast<int>(plus_slot % max_faces);
        face.tag = -1;
        face.orientation = static_cast<int>(slot_code & ((1 << orientation_bits) - 1));
      } else {
        face.element_p = -1;
        face.local_face_p = -1;
        face.tag = g;
        face.orientation = 0;
      }
    }
  }
  // The codes become face indices; absent slots keep -1.
#pragma omp parallel for schedule(static)
  for (index_t f = 0; f < n_faces_total; ++f) {
    const Face& face = faces[f];
    code[face.element_m * max_faces + face.local_face_m] = f;
    if (face.element_p >= 0) code[face.element_p * max_faces + face.local_face_p] = f;
  }
  connectivity.max_faces = max_faces;
  return true;
}

}  // namespace

Connectivity build_connectivity(const Mesh& mesh, std::vector<std::string>& errors) {
  Connectivity connectivity;
  if (match_faces(mesh, connectivity)) return connectivity;
  // Something is wrong with the mesh: the reference algorithm names every problem.
  return build_by_sorting(mesh, errors);
}

Connectivity build_connectivity(const Mesh& mesh) {
  std::vector<std::string> errors;
  Connectivity connectivity = build_connectivity(mesh, errors);
  if (errors.empty()) return connectivity;
  std::string message = cat("mesh ", mesh.source, ": ");
  for (std::size_t k = 0; k < errors.size(); ++k) message += (k == 0 ? "" : "; and ") + errors[k];
  throw InputError(message);
}

namespace {

// Element adjacency through shared faces, as CSR.
struct Graph {
  std::vector<index_t> offsets, neighbours;
  index_t degree(index_t v) const { return offsets[v + 1] - offsets[v]; }
};

// Each face with exactly two sides of different elements links them, once per such face; each
// element's neighbours in ascending order (the order of a sort of all (element, neighbour) pairs).
Graph face_graph(const Mesh& mesh) {
  const index_t n_elements = mesh.n_elements();
  const int max_faces = checked_max_faces(mesh);
  if (max_faces >= 0) {
    // The other side's element per half-face slot (-1: none), found bucket by bucket.
    std::vector<index_t> other(static_cast<std::size_t>(n_elements) * max_faces, -1);
    {
      const detail::NodeBuckets buckets = half_face_buckets(mesh, max_faces);
#pragma omp parallel
      {
        std::vector<HalfFace> bucket;
#pragma omp for schedule(static)
        for (index_t v = 0; v < mesh.n_nodes(); ++v) {
          if (buckets.end(v) - buckets.begin(v) < 2) continue;
          sorted_bucket(mesh, buckets, v, max_faces, bucket);
          for (std::size_t first = 0; first < bucket.size();) {
            std::size_t last = first + 1;
            while (last < bucket.size() && bucket[last].key == bucket[first].key) ++last;
            if (last - first == 2 && bucket[first].element != bucket[first + 1].element) {
              const HalfFace &a = bucket[first], &b = bucket[first + 1];
              other[a.element * max_faces + a.local_face] = b.element;
              other[b.element * max_faces + b.local_face] = a.element;
            }
            first = last;
          }
        }
      }
    }
    Graph graph;
    graph.offsets.assign(n_elements + 1, 0);
#pragma omp parallel for schedule(static)
    for (index_t e = 0; e < n_elements; ++e)
      for (int f = 0; f < max_faces; ++f) graph.offsets[e + 1] += other[e * max_faces + f] >= 0 ? 1 : 0;
    std::partial_sum(graph.offsets.begin(), graph.offsets.end(), graph.offsets.begin());
    graph.neighbours.resize(graph.offsets.back());
#pragma omp parallel for schedule(static)
    for (index_t e = 0; e < n_elements; ++e) {
      index_t* out = graph.neighbours.data() + graph.offsets[e];
      for (int f = 0; f < max_faces; ++f)
        if (other[e * max_faces + f] >= 0) *out++ = other[e * max_faces + f];
      std::sort(graph.neighbours.data() + graph.offsets[e], out);
    }
    return graph;
  }
  // Node ids out of range: the plain sort of all half-faces.
  const std::vector<HalfFace> half_faces = sorted_half_faces(mesh);
  std::vector<std::pair<index_t, index_t>> pairs;
  for_each_face(half_faces, [&](std::size_t first, std::size_t last) {
    if (last - first != 2 || half_faces[first].element == half_faces[first + 1].element) return;
    pairs.emplace_back(half_faces[first].element, half_faces[first + 1].element);
    pairs.emplace_back(half_faces[first + 1].element, half_faces[first].element);
  });
  std::sort(pairs.begin(), pairs.end());
  Graph graph;
  graph.offsets.assign(mesh.n_elements() + 1, 0);
  for (const auto& [from, to] : pairs) {
    ++graph.offsets[from + 1];
    graph.neighbours.push_back(to);
  }
  std::partial_sum(graph.offsets.begin(), graph.offsets.end(), graph.offsets.begin());
  return graph;
}

// Breadth-first levels from `root`: the visit order, where its last level starts, and the depth.
struct Levels {
  std::vector<index_t> order;
  std::size_t last_level = 0;
  int depth = 1;
};

Levels level_structure(const Graph& graph, index_t root, std::vector<index_t>& stamp, index_t mark) {
  Levels levels;
  levels.order.push_back(root);
  stamp[root] = mark;
  while (true) {
    const std::size_t level_end = levels.order.size();
    for (std::size_t k = levels.last_level; k < level_end; ++k)
      for (index_t n = graph.offsets[levels.order[k]]; n < graph.offsets[levels.order[k] + 1]; ++n)
        if (stamp[graph.neighbours[n]] != mark) {
          stamp[graph.neighbours[n]] = mark;
          levels.order.push_back(graph.neighbours[n]);
        }
    if (levels.order.size() == level_end) return levels;
    levels.last_level = level_end;
    ++levels.depth;
  }
}

std::vector<index_t> reverse_cuthill_mckee(const Graph& graph, index_t n) {
  const auto lower_degree = [&](index_t a, index_t b) { return graph.degree(a) < graph.degree(b); };
  std::vector<index_t> by_degree(n);
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(), lower_degree);
  std::vector<index_t> stamp(n, -1);
  std::vector<bool> placed(n, false);
  std::vector<index_t> order;
  order.reserve(n);
  index_t mark = 0;
  for (const index_t seed : by_degree) {
    if (placed[seed]) continue;
    // A pseudo-peripheral start (George & Liu): move to a low-degree node of the last level while
    // that makes the level structure deeper; deep structures have narrow levels, hence a small
    // bandwidth.
    index_t root = seed;
    Levels levels = level_structure(graph, root, stamp, mark++);
    while (true) {
      const index_t candidate = *std::min_element(
          levels.order.begin() + static_cast<std::ptrdiff_t>(levels.last_level), levels.order.end(),
          lower_degree);
      Levels next = level_structure(graph, candidate, stamp, mark++);
      if (next.depth <= levels.depth) break;
      root = candidate;
      levels = std::move(next);
    }
    const std::size_t begin = order.size();
    order.push_back(root);
    placed[root] = true;
    for (std::size_t k = begin; k < order.size(); ++k) {
      const std::size_t first_new = order.size();
      for (index_t e = graph.offsets[order[k]]; e < graph.offsets[order[k] + 1]; ++e)
        if (!placed[graph.neighbours[e]]) {
          placed[graph.neighbours[e]] = true;
          order.push_back(graph.neighbours[e]);
        }
      std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(first_new), order.end(),
                       lower_degree);
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// Position along the Hilbert curve of a point with `dims` coordinates of `bits` bits each
// (J. Skilling, "Programming the Hilbert curve", 2004).
std::uint64_t hilbert_index(std::array<std::uint32_t, 3> x, int dims, int bits) {
  const std::uint32_t top = 1u << (bits - 1);
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    const std::uint32_t p = q - 1;
    for (int i = 0; i < dims; ++i) {
      // Without branches (they would be unpredictable): bit q of x[i] set: invert x[0]'s low
      // bits; clear: exchange the low bits of x[0] and x[i] (t = 0 for i = 0).
      const std::uint32_t set = (x[i] & q) != 0 ? ~0u : 0u;
      const std::uint32_t t = (x[0] ^ x[i]) & p & ~set;
      x[0] ^= (p & set) | t;
      x[i] ^= t;
    }
  }
  for (int i = 1; i < dims; ++i) x[i] ^= x[i - 1];
  std::uint32_t t = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1)
    if (x[dims - 1] & q) t ^= q - 1;
  for (int i = 0; i < dims; ++i) x[i] ^= t;
  std::uint64_t index = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int i = 0; i < dims; ++i) index = (index << 1) | ((x[i] >> b) & 1u);
  return index;
}

std::vector<index_t> hilbert_order(const Mesh& mesh) {
  // The nodes' bounding box with one scale for all axes: the curve's cells stay square, and on a
  // structured 2^k grid each element centroid falls into its own curve cell.
  double low_x = 1e300, low_y = 1e300, low_z = 1e300, high_x = -1e300, high_y = -1e300, high_z = -1e300;
#pragma omp parallel for schedule(static) reduction(min : low_x, low_y, low_z) reduction(max : high_x, high_y, high_z)
  for (index_t n = 0; n < mesh.n_nodes(); ++n) {
    const Point3& p = mesh.nodes[n];
    low_x = std::min(low_x, p.x), low_y = std::min(low_y, p.y), low_z = std::min(low_z, p.z);
    high_x = std::max(high_x, p.x), high_y = std::max(high_y, p.y), high_z = std::max(high_z, p.z);
  }
  const Point3 low{low_x, low_y, low_z}, high{high_x, high_y, high_z};
  const int dims = mesh.dimension == 3 ? 3 : 2;
  const int bits = dims == 3 ? 21 : 31;
  const double cells = std::ldexp(1.0, bits);
  const double extent = std::max({high.x - low.x, high.y - low.y, high.z - low.z});
  const double scale = extent > 0 ? cells / extent : 0.0;
  const auto cell = [&](double x) { return static_cast<std::uint32_t>(std::min(x * scale, cells - 1)); };
  const index_t n = mesh.n_elements();
  std::vector<std::uint64_t> keys(n);
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < n; ++e) {
    const int vertices = n_vertices(mesh.element_shape(e));
    Point3 sum{0, 0, 0};
    for (int k = 0; k < vertices; ++k) sum = sum + mesh.nodes[mesh.element_node_ids(e)[k]];
    const Point3 c = (1.0 / vertices) * sum - low;
    // Constant arguments, so that the compiler specialises the bit loops for each case.
    keys[e] = dims == 2 ? hilbert_index({cell(c.x), cell(c.y), cell(c.z)}, 2, 31)
                        : hilbert_index({cell(c.x), cell(c.y), cell(c.z)}, 3, 21);
  }
  // Sorted by (key, element): grouped by the top 16 key bits, then each group sorted, in parallel.
  constexpr int group_bits = 16;
  const int shift = dims * bits - group_bits;
  const detail::NodeBuckets groups = detail::bucket_by_node(
      n, index_t{1} << group_bits, [&keys, shift](index_t e) { return static_cast<index_t>(keys[e] >> shift); });
  std::vector<index_t> order(n);
#pragma omp parallel
  {
    std::vector<std::pair<std::uint64_t, index_t>> keyed;
#pragma omp for schedule(dynamic, 64)
    for (index_t g = 0; g < (index_t{1} << group_bits); ++g) {
      keyed.clear();
      for (index_t i = groups.begin(g); i < groups.end(g); ++i) keyed.emplace_back(keys[groups.items[i]], groups.items[i]);
      std::sort(keyed.begin(), keyed.end());
      for (std::size_t k = 0; k < keyed.size(); ++k) order[groups.begin(g) + static_cast<index_t>(k)] = keyed[k].second;
    }
  }
  return order;
}

}  // namespace

std::vector<index_t> reorder_elements(Mesh& mesh, ElementOrdering ordering) {
  std::vector<index_t> new_to_old;
  switch (ordering) {
    case ElementOrdering::none:
      new_to_old.resize(mesh.n_elements());
      std::iota(new_to_old.begin(), new_to_old.end(), 0);
      return new_to_old;
    case ElementOrdering::reverse_cuthill_mckee:
      new_to_old = reverse_cuthill_mckee(face_graph(mesh), mesh.n_elements());
      break;
    case ElementOrdering::hilbert: new_to_old = hilbert_order(mesh); break;
  }
  const index_t n = static_cast<index_t>(new_to_old.size());
  std::vector<ElementType> types(n);
  std::vector<index_t> offsets(n + 1, 0);
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < n; ++e) {
    types[e] = mesh.element_types[new_to_old[e]];
    offsets[e + 1] = mesh.element_n_nodes(new_to_old[e]);
  }
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  std::vector<index_t> nodes(offsets.back());
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < n; ++e)
    std::copy(mesh.element_node_ids(new_to_old[e]), mesh.element_node_ids(new_to_old[e]) + mesh.element_n_nodes(new_to_old[e]),
              nodes.begin() + offsets[e]);
  mesh.element_types = std::move(types);
  mesh.element_offsets = std::move(offsets);
  mesh.element_nodes = std::move(nodes);
  if (static_cast<index_t>(mesh.element_file_tags.size()) == n) {
    std::vector<std::int64_t> tags(n);
    for (index_t e = 0; e < n; ++e) tags[e] = mesh.element_file_tags[new_to_old[e]];
    mesh.element_file_tags = std::move(tags);
  }
  return new_to_old;
}

}  // namespace flowdg
